"""Render a study's tables and figures as CSV, PNG/SVG, Markdown and a self-contained HTML page.

Layout written under the study directory::

    report.md          sections with tables as Markdown and links to the figures
    report.html        the same, figures embedded as base64 PNG (opens offline in any browser)
    tables/NAME.csv    every table in full
    figures/NAME.png   every figure
    figures/NAME.svg

Every file is written atomically (temporary file in the same directory, then ``os.replace``), so
an interrupted run never leaves a half-written report that looks complete.

:func:`build_tables` and :func:`build_figures` compute the standard study content from loaded
runs; :func:`render_study` does load, compute and write in one call, and ``python -m
analysis.report RUN_DIR... --out STUDY_DIR`` does it from the command line.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import deck, plots, stats
from analysis.load import RunData, load_runs
from analysis.schema import BASE_VARIANT, LUNA


def _umask_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _umask_file_mode()

#: Rows of a table shown in the Markdown/HTML report; the CSV always has all of them.
DEFAULT_MAX_ROWS = 40


@dataclass(frozen=True)
class Section:
    """One report section: a heading, an explanation and the tables/figures it shows.

    Attributes
    ----------
    title
        Heading text.
    text
        Paragraph under the heading (Markdown; kept plain so the HTML shows it as is).
    items
        Names of tables and figures in display order. A name that is both a table and a figure
        shows the figure, then the table.
    """

    title: str
    text: str
    items: tuple[str, ...] = field(default_factory=tuple)


DEFAULT_SECTIONS: tuple[Section, ...] = (
    Section("Runs", "The run directories in this study.", ("runs",)),
    Section(
        "Scores",
        f"Luna's final score and its 7 categories per group, in {plots.POINTS}: mean, standard deviation,"
        " standard error of the mean (sem), median and the 10th/90th percentiles.",
        ("score_ecdf", "category_breakdown", "score_summary"),
    ),
    Section(
        "Level ladder",
        "Change from each level to the level below: mean total score (95 % interval from the two standard"
        " errors, or from per-game differences when both levels played the same games) and win rate"
        " (Newcombe interval, or per-game differences for the same games).",
        ("level_ladder",),
    ),
    Section(
        "Win rates",
        "Luna's win rate in games with at least one other seat; a k-way shared win counts 1/k."
        " Intervals: Wilson score 95 %.",
        ("win_rates",),
    ),
    Section(
        "Deck cycle",
        "Reshuffles of Luna's deck, grade-2 cards entering it (by reshuffle or by Luna token), the round in"
        " which slots A and E are first used and how often each card is played from each slot. Per-game"
        " values count each Luna seat in each game once.",
        (
            "deck_counters",
            "reshuffle_distribution",
            "reshuffles_by_round",
            "reshuffle_timing",
            "grade2_by_round",
            "slot_first_use",
            "card_play_counts",
        ),
    ),
    Section(
        "Majorities and blocking",
        "Luna's majority values by round, and the probability that she blocks a player whose total of a"
        " type is t (blocked when t is lower than her value).",
        ("majority_by_round", "majority_distribution", "blocking_probability"),
    ),
    Section(
        "Interaction with scripted players",
        "Per-game counters of what Luna took from or denied the scripted players.",
        ("interactions",),
    ),
    Section(
        "Variants against base",
        "Paired differences (variant − base) over games played with the same seeds; 95 % intervals from"
        " the per-game differences.",
        ("variant_differences",),
    ),
)


#: Captions of the standard figures; other figures are captioned from their name.
FIGURE_CAPTIONS: dict[str, str] = {
    "score_ecdf": "Distribution (ECDF) of Luna's total score by level",
    "category_breakdown": "Luna's mean score per category by level",
    "level_ladder": "Step from each level to the level below, 95 % intervals",
    "win_rates": "Luna's win rate by level per opponents, Wilson 95 % intervals",
    "reshuffles_by_round": "Reshuffles of Luna's deck per round",
    "grade2_by_round": "Grade-2 cards entering Luna's deck by level and round",
    "slot_first_use": "Share of games with slots A and E in use by round",
    "majority_by_round": "Luna's mean majority values by round",
    "blocking_probability": "Probability that Luna blocks a player with total t, per round",
    "variant_differences": "Variant − base paired differences, 95 % intervals",
}


@dataclass(frozen=True)
class ReportFiles:
    """Paths written by :func:`write_report`."""

    markdown: Path
    html: Path
    tables: dict[str, Path]
    figures: dict[str, tuple[Path, Path]]


# ----------------------------------------------------------------------------------------------
# Writing files


def atomic_write(path: str | Path, content: bytes | str) -> Path:
    """Write a file atomically: a temporary file in the same directory, then ``os.replace``.

    Parameters
    ----------
    path
        Destination; its directory is created if needed.
    content
        Bytes, or text written as UTF-8.

    Returns
    -------
    Path
        The destination path.
    """
    destination = Path(path)
    destination.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    # Same directory as the destination: os.replace is only atomic within one file system.
    handle, temporary = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".tmp", dir=destination.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp creates the file private (0600); give it the mode a plain open() would.
        os.chmod(temporary, _FILE_MODE)
        os.replace(temporary, destination)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return destination


def figure_bytes(figure: Figure, image_format: str) -> bytes:
    """Render a figure to PNG or SVG bytes in the project's style, without dates in the file."""
    buffer = io.BytesIO()
    metadata = {"Date": None} if image_format == "svg" else {"Software": None}
    with plots.plot_style():
        figure.savefig(buffer, format=image_format, metadata=metadata, bbox_inches="tight")
    return buffer.getvalue()


# ----------------------------------------------------------------------------------------------
# Tables as text


def format_value(value: Any) -> str:
    """Text for one table cell: integers as is, floats to 4 significant digits, NaN as empty."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if math.isnan(number):
            return ""
        if abs(number) >= 1e4:
            return f"{number:.0f}"
        return f"{number:.4g}"
    if value is pd.NA:
        return ""
    return str(value)


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _shown_rows(frame: pd.DataFrame, max_rows: int | None) -> tuple[pd.DataFrame, str]:
    if max_rows is None or len(frame) <= max_rows:
        return frame, ""
    return frame.head(max_rows), f"First {max_rows} of {len(frame)} rows."


def markdown_table(frame: pd.DataFrame, max_rows: int | None = None) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned).

    Parameters
    ----------
    frame
        Table to render; the index is ignored.
    max_rows
        Show only the first rows, with a note saying how many there are.

    Returns
    -------
    str
        The Markdown text, ending with a newline.
    """
    if frame.columns.empty:
        return "*(no columns)*\n"
    if frame.empty:
        return "*(no rows)*\n"
    shown, note = _shown_rows(frame, max_rows)

    def cell(text: str) -> str:
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(cell(str(column)) for column in shown.columns) + " |"
    rule = "|" + "|".join("---:" if _is_numeric(shown[column]) else ":---" for column in shown.columns) + "|"
    rows = [
        "| " + " | ".join(cell(format_value(value)) for value in row) + " |"
        for row in shown.itertuples(index=False, name=None)
    ]
    text = "\n".join([header, rule, *rows]) + "\n"
    return text + (f"\n*{note}*\n" if note else "")


def html_table(frame: pd.DataFrame, max_rows: int | None = None) -> str:
    """An HTML ``<table>`` of a frame (escaped, numbers right-aligned)."""
    if frame.columns.empty or frame.empty:
        return "<p><em>(no rows)</em></p>\n"
    shown, note = _shown_rows(frame, max_rows)
    numeric = [_is_numeric(shown[column]) for column in shown.columns]
    lines = ["<table>", "<thead><tr>"]
    lines += [f"<th>{html.escape(str(column))}</th>" for column in shown.columns]
    lines += ["</tr></thead>", "<tbody>"]
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(
            f'<td class="num">{html.escape(format_value(value))}</td>'
            if is_number
            else f"<td>{html.escape(format_value(value))}</td>"
            for value, is_number in zip(row, numeric, strict=True)
        )
        lines.append(f"<tr>{cells}</tr>")
    lines += ["</tbody>", "</table>"]
    if note:
        lines.append(f'<p class="note">{html.escape(note)}</p>')
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# The report


_HTML_STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 72em;
       padding: 0 1em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { margin-top: 2em; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; margin: .8em 0; font-size: .85em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; }
figcaption, p.note { color: #555; font-size: .85em; }
nav ul { columns: 2; }
"""


def _anchor(title: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else " " for ch in title.lower()).split())


def _caption(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _arrange_sections(
    sections: Sequence[Section], tables: Mapping[str, pd.DataFrame], figures: Mapping[str, Figure]
) -> list[Section]:
    """Keep sections that have content; gather names no section claims into a last section."""
    available = set(tables) | set(figures)
    arranged = []
    claimed: set[str] = set()
    for section in sections:
        present = tuple(name for name in section.items if name in available)
        claimed.update(section.items)
        if present:
            arranged.append(Section(section.title, section.text, present))
    leftovers = tuple(name for name in [*tables, *figures] if name not in claimed)
    if leftovers:
        arranged.append(Section("Other tables and figures", "", tuple(dict.fromkeys(leftovers))))
    return arranged


def write_report(
    study_dir: str | Path,
    tables: Mapping[str, pd.DataFrame],
    figures: Mapping[str, Figure],
    title: str = "Luna balance report",
    sections: Sequence[Section] = DEFAULT_SECTIONS,
    max_rows: int | None = DEFAULT_MAX_ROWS,
    introduction: str = "",
    captions: Mapping[str, str] | None = None,
) -> ReportFiles:
    """Write tables (CSV), figures (PNG, SVG), ``report.md`` and ``report.html``.

    Parameters
    ----------
    study_dir
        Output directory (created if needed).
    tables
        Table name -> DataFrame. Names become file names, so use ``[A-Za-z0-9_-]``.
    figures
        Figure name -> Figure.
    title
        Report title.
    sections
        Section layout; sections without content are left out, and tables or figures no section
        names go to a final "Other tables and figures" section.
    max_rows
        Rows shown per table in the Markdown/HTML (None for all); the CSV files are complete.
    introduction
        Optional paragraph under the title.
    captions
        Figure name -> caption; default :data:`FIGURE_CAPTIONS`, else the name in words.

    Returns
    -------
    ReportFiles
        Paths of everything written.
    """
    root = Path(study_dir)
    for name in [*tables, *figures]:
        if not name or any(not (ch.isalnum() or ch in "_-") for ch in name):
            raise ValueError(f"write_report: {name!r} is not a usable file name (letters, digits, _ and -)")
    table_paths = {
        name: atomic_write(root / "tables" / f"{name}.csv", frame.to_csv(index=False, lineterminator="\n"))
        for name, frame in tables.items()
    }
    png_data: dict[str, bytes] = {}
    figure_paths: dict[str, tuple[Path, Path]] = {}
    for name, figure in figures.items():
        png_data[name] = figure_bytes(figure, "png")
        png = atomic_write(root / "figures" / f"{name}.png", png_data[name])
        svg = atomic_write(root / "figures" / f"{name}.svg", figure_bytes(figure, "svg"))
        figure_paths[name] = (png, svg)

    figure_captions = FIGURE_CAPTIONS if captions is None else captions
    arranged = _arrange_sections(sections, tables, figures)
    markdown = [f"# {title}\n"]
    page = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_HTML_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    if introduction:
        markdown.append(f"{introduction}\n")
        page.append(f"<p>{html.escape(introduction)}</p>")
    markdown.append("## Contents\n")
    markdown += [f"- [{section.title}](#{_anchor(section.title)})" for section in arranged]
    markdown.append("")
    page.append("<nav><h2>Contents</h2><ul>")
    page += [f'<li><a href="#{_anchor(s.title)}">{html.escape(s.title)}</a></li>' for s in arranged]
    page.append("</ul></nav>")

    for section in arranged:
        anchor = _anchor(section.title)
        markdown.append(f"## {section.title}\n")
        page.append(f'<section id="{anchor}">')
        page.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.text:
            markdown.append(f"{section.text}\n")
            page.append(f"<p>{html.escape(section.text)}</p>")
        for name in section.items:
            if name in figures:
                caption = figure_captions.get(name) or _caption(name)
                markdown.append(f"![{caption}](figures/{name}.png)\n")
                markdown.append(f"*Figure: {caption}* ([SVG](figures/{name}.svg))\n")
                encoded = base64.b64encode(png_data[name]).decode("ascii")
                page.append(
                    f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{encoded}">'
                    f"<figcaption>Figure: {html.escape(caption)}</figcaption></figure>"
                )
            if name in tables:
                caption = _caption(name)
                markdown.append(f"### {caption}\n")
                markdown.append(markdown_table(tables[name], max_rows))
                markdown.append(f"Full table: [tables/{name}.csv](tables/{name}.csv)\n")
                page.append(f"<h3>{html.escape(caption)}</h3>")
                page.append(html_table(tables[name], max_rows))
        page.append("</section>")
    page += ["</body>", "</html>", ""]

    markdown_path = atomic_write(root / "report.md", "\n".join(markdown))
    html_path = atomic_write(root / "report.html", "\n".join(page))
    return ReportFiles(markdown=markdown_path, html=html_path, tables=table_paths, figures=figure_paths)


# ----------------------------------------------------------------------------------------------
# The standard study content


def _varying_keys(frame: pd.DataFrame, candidates: Iterable[str]) -> list[str]:
    """Group keys worth showing: those of ``candidates`` that take more than one value."""
    return [column for column in candidates if column in frame.columns and frame[column].nunique() > 1]


def run_overview(data: RunData) -> pd.DataFrame:
    """One row per run: labels, games, seed and engine from the manifest, and whether rounds exist."""
    seats = data.seats
    rows = []
    with_rounds = set(data.rounds["run"].unique())
    for run, group in seats.groupby("run", sort=False):
        config = (data.manifests.get(run) or {}).get("config") or {}
        rows.append(
            {
                "run": run,
                "variant": group["variant"].iloc[0],
                "seats": group["seats"].iloc[0],
                "games": group["game"].nunique(),
                "seed": config.get("seed", ""),
                "engine": config.get("engine", ""),
                "rounds_recorded": run in with_rounds,
            }
        )
    return pd.DataFrame(rows)


def build_tables(data: RunData) -> dict[str, pd.DataFrame]:
    """The standard study tables.

    Group keys are the level plus ``variant`` and ``opponents`` when the study has more than one
    of them, so a single-configuration study gets plain per-level tables.

    Parameters
    ----------
    data
        Loaded runs.

    Returns
    -------
    dict
        Table name -> DataFrame (the names used by :data:`DEFAULT_SECTIONS`); tables that need
        data the runs lack (per-round records, opponents, variants, interaction counters) are
        left out.
    """
    luna = data.luna
    keys = [*_varying_keys(luna, ["variant", "opponents"]), "level"]
    tables: dict[str, pd.DataFrame] = {"runs": run_overview(data)}
    tables["score_summary"] = stats.score_summary(data.seats, by=keys)
    fixed_opponents = without_mixed_duels(data.seats)
    tables["level_ladder"] = stats.level_ladder(fixed_opponents, by=keys[:-1])
    win_table = stats.win_rates(fixed_opponents, by=keys)
    if not win_table.empty:
        tables["win_rates"] = win_table
    tables["deck_counters"] = deck.deck_counters_summary(data.seats, by=keys)
    tables["reshuffle_distribution"] = deck.reshuffle_distribution(data.seats, by=keys)
    tables["slot_first_use"] = deck.slot_first_use(data.seats, by=keys)
    if not data.rounds.empty:
        rounds = data.rounds
        tables["reshuffles_by_round"] = deck.reshuffles_by_round(rounds, by=keys)
        tables["reshuffle_timing"] = deck.reshuffle_timing(rounds, by=keys)
        tables["grade2_by_round"] = deck.grade2_by_round(rounds, by=keys)
        tables["card_play_counts"] = deck.card_play_counts(rounds, by=keys)
        tables["majority_by_round"] = deck.majority_by_round(rounds, by=keys)
        tables["majority_distribution"] = deck.majority_distribution(rounds, by=keys)
        tables["blocking_probability"] = deck.blocking_probability(rounds, by=keys)
    interactions = stats.interaction_summary(data.seats, by=["luna_level", "profile"])
    if not interactions.empty:
        tables["interactions"] = interactions
    differences = stats.variant_differences(data, by="level")
    if not differences.empty:
        tables["variant_differences"] = differences
    return tables


def without_mixed_duels(seats: pd.DataFrame) -> pd.DataFrame:
    """Seats whose opponents are the same at every level: games among several Lunas are left out.

    A level-L Luna meets level L-1 in one duel and L+1 in another, so pooling her duels into a
    per-level ladder or win rate would mix two different opponents; the head-to-head table
    reports duels instead.
    """
    if "opponents" not in seats.columns:
        return seats
    return seats[~seats["opponents"].str.contains("luna", regex=False)]


def figure_slice(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows the single-series figures show: the base variant and one opponents setting.

    The opponents setting is Luna alone when the study has it, else the most common one; the
    tables keep every group.
    """
    if "variant" in frame.columns and (frame["variant"] == BASE_VARIANT).any():
        frame = frame[frame["variant"] == BASE_VARIANT]
    if "opponents" in frame.columns and frame["opponents"].nunique() > 1:
        counts = frame["opponents"].value_counts()
        chosen = "" if "" in counts.index else counts.index[0]
        frame = frame[frame["opponents"] == chosen]
    return frame


def build_figures(data: RunData) -> dict[str, Figure]:
    """The standard study figures (names match :data:`DEFAULT_SECTIONS`).

    Distribution figures show :func:`figure_slice` of the data (base variant; Luna alone when
    present, else the most common opponents); the ladder and win-rate figures draw one series
    per opponents setting of the base variant.

    Parameters
    ----------
    data
        Loaded runs.

    Returns
    -------
    dict
        Figure name -> Figure.
    """
    seats = figure_slice(data.seats)
    luna = seats[seats["kind"] == LUNA]
    is_base = data.seats["variant"] == BASE_VARIANT
    base = without_mixed_duels(data.seats[is_base] if is_base.any() else data.seats)
    several_opponents = base["opponents"].nunique() > 1
    figures: dict[str, Figure] = {
        "score_ecdf": plots.plot_score_ecdf(luna),
        "category_breakdown": plots.plot_category_breakdown(stats.score_summary(luna, by="level")),
    }
    ladder = stats.level_ladder(base, by="opponents")
    if not ladder.empty:
        figures["level_ladder"] = plots.plot_level_ladder(ladder, hue="opponents" if several_opponents else None)
    win_table = stats.win_rates(base, by=["opponents", "level"])
    if not win_table.empty:
        figures["win_rates"] = plots.plot_win_rates(win_table, hue="opponents")
    figures["slot_first_use"] = plots.plot_slot_first_use(deck.slot_first_use(luna))
    if not data.rounds.empty:
        rounds = figure_slice(data.rounds)
        figures["reshuffles_by_round"] = plots.plot_reshuffle_timing(deck.reshuffles_by_round(rounds))
        figures["grade2_by_round"] = plots.plot_grade2_heatmap(deck.grade2_by_round(rounds))
        figures["majority_by_round"] = plots.plot_majority_by_round(deck.majority_by_round(rounds))
        figures["blocking_probability"] = plots.plot_blocking_curves(deck.blocking_probability(rounds, by=None))
    differences = stats.variant_differences(data, by="level")
    if not differences.empty:
        figures["variant_differences"] = plots.plot_variant_differences(differences, hue="level")
    return figures


def render_study(
    run_dirs: Iterable[str | Path], study_dir: str | Path, title: str = "Luna balance report"
) -> ReportFiles:
    """Load runs, build the standard tables and figures and write the report.

    Parameters
    ----------
    run_dirs
        Run directories written by the simulator.
    study_dir
        Output directory.
    title
        Report title.

    Returns
    -------
    ReportFiles
        Paths of everything written.
    """
    data = load_runs(run_dirs)
    introduction = (
        f"{len(data.runs)} run(s), {len(data.seats)} seat-games. Figures of distributions show the base"
        " variant with Luna alone (or the most common opponents); the tables hold every group."
    )
    return write_report(study_dir, build_tables(data), build_figures(data), title=title, introduction=introduction)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m analysis.report RUN_DIR... --out STUDY_DIR [--title TEXT]``."""
    parser = argparse.ArgumentParser(prog="python -m analysis.report", description="Render a Luna balance report.")
    parser.add_argument("runs", nargs="+", help="run directories written by the simulator")
    parser.add_argument("--out", required=True, help="study directory to write the report into")
    parser.add_argument("--title", default="Luna balance report")
    args = parser.parse_args(argv)
    try:
        files = render_study(args.runs, args.out, title=args.title)
    except ValueError as error:
        parser.exit(2, f"error: {error}\n")
    print(files.html)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
