"""The standard run report: its tables, figures, sections and captions, and the command that writes it.

:func:`report_tables` and :func:`build_figures` compute the standard content from loaded runs;
:func:`render_study` does load, compute and write in one call, and ``python -m analysis.report
RUN_DIR... --out STUDY_DIR`` does it from the command line. Writing the files (CSV, PNG/SVG,
Markdown, HTML) is :mod:`analysis.render`'s job; its public names are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from analysis import deck, plots, stats
from analysis._frames import in_label_order
from analysis.drawing import drawing_helper, figure_bytes  # noqa: F401  (figure_bytes re-exported, as below)
from analysis.duels import head_to_head
from analysis.folder_lock import FolderHeldError, folder_lock
from analysis.load import RunData, load_runs
from analysis.render import (  # noqa: F401  (re-exported: the report's public API predates the split)
    DEFAULT_MAX_ROWS,
    OTHER_SECTION,
    ReportFiles,
    Section,
    arrange_sections,
    atomic_write,
    check_report_places,
    format_value,
    html_table,
    markdown_table,
    write_report,
)
from analysis.schema import BASE_VARIANT, CATEGORIES, LUNA, SCRIPTED
from sim.outputs import DEFAULT_REPORT_TITLE

#: Ids of the sections other code adds to or replaces (see :mod:`analysis.study.content`).
WIN_RATES_SECTION = "win-rates"
HEAD_TO_HEAD_SECTION = "head-to-head"
VARIANTS_SECTION = "variants"
LADDER_SECTION = "level-ladder"

DEFAULT_SECTIONS: tuple[Section, ...] = (
    Section("runs", "Runs", "The run directories in this report.", ("runs",)),
    Section(
        "scores",
        "Scores",
        f"Luna's final score and its {len(CATEGORIES)} categories per group, in {plots.POINTS}: mean, standard"
        " deviation, standard error of the mean (sem), median and the 10th/90th percentiles.",
        ("score_ecdf", "category_breakdown", "score_summary"),
    ),
    Section(
        LADDER_SECTION,
        "Level ladder",
        "Change from the level below to each level: mean total score (95 % interval from the two standard"
        " errors, or from per-game differences when both levels played the same games) and win rate"
        " (Newcombe interval, or per-game differences for the same games).",
        ("level_ladder",),
    ),
    Section(
        WIN_RATES_SECTION,
        "Win rates",
        "Luna's win rate in games with at least one other seat; a k-way shared win counts 1/k."
        " Intervals: Wilson score 95 %.",
        ("win_rates",),
    ),
    Section(
        HEAD_TO_HEAD_SECTION,
        "Head to head",
        "Runs of two Lunas of different levels, left out of the ladder and win rates: how often the higher level"
        " wins (ties count half; Wilson 95 %) and its mean score minus the lower one's per game (paired 95 %)."
        " Seat order matters, so two runs of the same levels in opposite seat orders with the same seed and game"
        " numbers pool into one row, its intervals from the two outcomes of each game number (paired Newcombe;"
        " paired t); the seated_first and seated_second columns give each order alone. A row of one run"
        " includes the edge of its seat order.",
        ("head_to_head",),
    ),
    Section(
        "deck-cycle",
        "Deck cycle",
        "Reshuffles of Luna's deck, grade-2 cards entering it (by reshuffle or by Luna token), the round in"
        " which slots A and E are first used and how often each card is played from each slot. Per-game"
        " values count each Luna seat in each game once. In the slot first use, first_round 0 counts the games in which"
        " she never used the slot. In the reshuffle timing, share is of the games that"
        " had that reshuffle at all; in the card plays, slot_share is the share of a card's plays made from"
        " that slot.",
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
        "majorities",
        "Majorities and blocking",
        "Luna's majority values by round, and the probability that she blocks a player whose total of a"
        " type is t (blocked when t is lower than her value).",
        ("majority_by_round", "majority_distribution", "blocking_probability"),
    ),
    Section(
        "interactions",
        "Interaction with scripted players",
        "Per-game counters of what Luna took from or denied the scripted players, per level faced and profile"
        " (and per variant and opponents, with the strength, where the runs have more than one).",
        ("interactions",),
    ),
    Section(
        VARIANTS_SECTION,
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
    "level_ladder": "Step from the level below to each level, 95 % intervals",
    "win_rates": "Luna's win rate by level per opponents, Wilson 95 % intervals",
    "reshuffles_by_round": "Reshuffles of Luna's deck per round",
    "grade2_by_round": "Grade-2 cards entering Luna's deck by level and round",
    "slot_first_use": "Share of games with slots A and E in use by round",
    "majority_by_round": "Luna's mean majority values by round",
    "blocking_probability": "Probability that Luna blocks a player with total t, per round, every level together "
                            "(the table gives each level)",
    "variant_differences": "Variant − base paired differences, 95 % intervals (Luna alone, or the most common "
                           "opponents; the table has every pair of runs)",
}


# ----------------------------------------------------------------------------------------------
# The standard study content


def varying_keys(frame: pd.DataFrame, candidates: Iterable[str]) -> list[str]:
    """Group keys worth showing: those of ``candidates`` that take more than one value."""
    return [column for column in candidates if column in frame.columns and frame[column].nunique() > 1]


def played_rounds(data: RunData) -> int:
    """The most rounds a game of ``data``'s runs lasted (their manifests' ``rounds``; 7 when none says)."""
    return max((int(((manifest or {}).get("config") or {}).get("rounds", deck.STANDARD_ROUNDS))
                for manifest in data.manifests.values()), default=deck.STANDARD_ROUNDS)


def interaction_keys(seats: pd.DataFrame) -> list[str]:
    """Group keys of the interactions table: the level faced and the profile, and what else tells the scripted
    seats' games apart: the variant, and ``opponents`` when it says more than the profile (a strength other than
    1, ``balanced@0.8``, or a second scripted seat), so that no row pools two strengths or two variants."""
    scripted = seats[seats["kind"] == SCRIPTED]
    keys = varying_keys(scripted, ["variant"])
    keys += ["luna_level", "profile"]
    if (scripted["opponents"].astype(str) != scripted["profile"].astype(str)).any():
        keys.append("opponents")
    return keys


def run_overview(data: RunData) -> pd.DataFrame:
    """One row per run: labels, games, seed and engine from the manifest, and whether rounds exist."""
    seats = data.seats
    rows = []
    with_rounds = set(data.rounds["run"].unique())
    for run, group in seats.groupby("run", sort=False, observed=True):
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


def report_tables(data: RunData) -> dict[str, pd.DataFrame]:
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
    luna = data.seats.loc[data.seats["kind"] == LUNA, ["variant", "opponents"]]  # not every column: a copy
    keys = [*varying_keys(luna, ["variant", "opponents"]), "level"]
    tables: dict[str, pd.DataFrame] = {"runs": run_overview(data)}
    tables["score_summary"] = stats.score_summary(data.seats, by=keys)
    fixed_opponents = without_mixed_duels(data.seats)
    tables["level_ladder"] = stats.level_ladder(fixed_opponents, by=keys[:-1])
    win_table = stats.win_rates(fixed_opponents, by=keys)
    if not win_table.empty:
        tables["win_rates"] = win_table
    tables["deck_counters"] = deck.deck_counters_summary(data.seats, by=keys)
    tables["reshuffle_distribution"] = deck.reshuffle_distribution(data.seats, by=keys)
    tables["slot_first_use"] = deck.slot_first_use(data.seats, by=keys, rounds=played_rounds(data))
    if not data.rounds.empty:
        rounds = data.rounds
        tables["reshuffles_by_round"] = deck.reshuffles_by_round(rounds, by=keys)
        tables["reshuffle_timing"] = deck.reshuffle_timing(rounds, by=keys)
        tables["grade2_by_round"] = deck.grade2_by_round(rounds, by=keys)
        tables["card_play_counts"] = deck.card_play_counts(rounds, by=keys)
        tables["majority_by_round"] = deck.majority_by_round(rounds, by=keys)
        tables["majority_distribution"] = deck.majority_distribution(rounds, by=keys)
        tables["blocking_probability"] = deck.blocking_probability(rounds, by=keys)
    interactions = stats.interaction_summary(data.seats, by=interaction_keys(data.seats))
    if not interactions.empty:
        tables["interactions"] = interactions
    differences = stats.variant_differences(data, by="level")
    if not differences.empty:
        tables["variant_differences"] = differences
    duels = head_to_head(data)  # the two-Luna runs without_mixed_duels keeps out of the ladder and win rates
    if not duels.empty:
        tables["head_to_head"] = duels
    return {name: in_label_order(table) for name, table in tables.items()}


def without_mixed_duels(seats: pd.DataFrame) -> pd.DataFrame:
    """Seats whose opponents are the same at every level: games among several Lunas are left out.

    A level-L Luna meets level L-1 in one duel and L+1 in another, so pooling her duels into a
    per-level ladder or win rate would mix two different opponents; the head-to-head table
    reports duels instead.
    """
    if "opponents" not in seats.columns:
        return seats
    return _rows(seats, ~seats["opponents"].str.contains("luna", regex=False))


def _rows(frame: pd.DataFrame, mask: pd.Series) -> pd.DataFrame:
    """``frame[mask]``, and a shallow copy of ``frame`` when every row is kept (a selection copies every column;
    copy-on-write copies none until one is written): ``frame`` itself would take the caller's new columns."""
    return frame.copy(deep=False) if mask.all() else frame[mask]


def figure_slice(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows the single-series figures show: the base variant and one opponents setting.

    The opponents setting is Luna alone when the study has it, else the most common one (of equally common
    ones, the one whose rows come first); the tables keep every group.
    """
    if "variant" in frame.columns and (frame["variant"] == BASE_VARIANT).any():
        frame = _rows(frame, frame["variant"] == BASE_VARIANT)
    if "opponents" in frame.columns and frame["opponents"].nunique() > 1:
        # Counted in the order the settings first appear, so that of equally common ones the first run's wins:
        # value_counts breaks ties by category order for a categorical (the text's order), by appearance for text
        counts = frame["opponents"].value_counts(sort=False).reindex(pd.unique(frame["opponents"]))
        chosen = "" if "" in counts.index else counts.idxmax()
        frame = frame[frame["opponents"] == chosen]
    return frame


def standard_figures(scores: pd.DataFrame, categories: pd.DataFrame, ladder: pd.DataFrame, win_table: pd.DataFrame,
                     first_use: pd.DataFrame, several_opponents: bool, by_round: dict[str, pd.DataFrame] | None,
                     weight: str | None = None) -> dict[str, Figure]:
    """The figures every report shows, from their tables (computed from games or from a study's summaries).

    ``scores`` holds Luna's ``score_total`` (per game, or per value with counts in ``weight``); ``by_round``
    maps ``reshuffles_by_round``, ``grade2_by_round``, ``majority_by_round`` and ``blocking_probability``
    to their tables, or is None without per-round records.
    """
    figures: dict[str, Figure] = {
        "score_ecdf": plots.plot_score_ecdf(scores, weight=weight),
        "category_breakdown": plots.plot_category_breakdown(categories),
    }
    if not ladder.empty:
        figures["level_ladder"] = plots.plot_level_ladder(ladder, hue="opponents" if several_opponents else None)
    if not win_table.empty:
        figures["win_rates"] = plots.plot_win_rates(win_table, hue="opponents")
    figures["slot_first_use"] = plots.plot_slot_first_use(first_use)
    if by_round is not None:
        figures["reshuffles_by_round"] = plots.plot_reshuffle_timing(by_round["reshuffles_by_round"])
        figures["grade2_by_round"] = plots.plot_grade2_heatmap(by_round["grade2_by_round"])
        figures["majority_by_round"] = plots.plot_majority_by_round(by_round["majority_by_round"])
        figures["blocking_probability"] = plots.plot_blocking_curves(by_round["blocking_probability"])
    return figures


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
    base = without_mixed_duels(_rows(data.seats, is_base) if is_base.any() else data.seats)
    rounds = figure_slice(data.rounds) if not data.rounds.empty else None
    figures = standard_figures(
        scores=luna, categories=stats.score_summary(luna, by="level"),
        ladder=stats.level_ladder(base, by="opponents"), win_table=stats.win_rates(base, by=["opponents", "level"]),
        first_use=deck.slot_first_use(luna, rounds=played_rounds(data)),
        several_opponents=base["opponents"].nunique() > 1,
        by_round=None if rounds is None else {
            "reshuffles_by_round": deck.reshuffles_by_round(rounds), "grade2_by_round": deck.grade2_by_round(rounds),
            "majority_by_round": deck.majority_by_round(rounds),
            "blocking_probability": deck.blocking_probability(rounds, by=None)})
    differences = figure_differences(data, stats.variant_differences(data, by="level"))
    if not differences.empty:
        figures["variant_differences"] = plots.plot_variant_differences(differences, hue="level")
    return figures


def figure_differences(data: RunData, differences: pd.DataFrame) -> pd.DataFrame:
    """The variant differences the figure draws: those of the runs :func:`figure_slice` shows (Luna alone, else the
    most common opponents), and of each variant, level and metric the first pair of runs (the table holds every
    pair). A variant played alone and against a profile gave two rows a level, and the figure, which draws one
    point a variant, level and metric, refused them: ``runs-report`` of such runs stopped with no report."""
    if differences.empty:
        return differences
    opponents = data.seats.drop_duplicates("run").set_index("run")["opponents"].astype(str)
    shown = figure_slice(pd.DataFrame({"opponents": differences["variant_run"].map(opponents).to_numpy()}))
    rows = differences.iloc[shown.index.to_numpy()]
    return rows.drop_duplicates(["metric", "variant", "level"], keep="first")


def render_study(
    run_dirs: Iterable[str | Path], study_dir: str | Path, title: str = DEFAULT_REPORT_TITLE
) -> ReportFiles:
    """Load runs, build the standard tables and figures and write the report.

    Parameters
    ----------
    run_dirs
        Run directories written by the simulator, each with its manifest (which must describe its files).
    study_dir
        Output directory.
    title
        Report title.

    Returns
    -------
    ReportFiles
        Paths of everything written.
    """
    with drawing_helper() as helper:  # started first: it imports matplotlib while the runs load
        # a copy of a run without a manifest would count twice; integers narrowed: a third of the memory
        data = load_runs(run_dirs, require_manifest=True, compact=True)
        introduction = (
            f"{len(data.runs)} run(s), {len(data.seats)} seat-games. Figures of distributions show the base"
            " variant with Luna alone (or the most common opponents); the tables hold every group."
        )
        tables, figures = report_tables(data), build_figures(data)
        out = Path(study_dir)
        check_report_places(out)  # a file where the folder goes is named as such, not as mkdir's errno
        out.mkdir(parents=True, exist_ok=True)
        with ExitStack() as held:
            try:  # one writer a report folder (analysis/folder_lock.py); a killed one's temporary files go first
                held.enter_context(folder_lock(out))
            except FolderHeldError as other:
                raise ValueError(f"{out}: another report is being written into this folder ({other.holder}); "
                                 "wait for it to end or stop it, then run the command again") from None
            return write_report(out, tables, figures, title=title, sections=DEFAULT_SECTIONS,
                                introduction=introduction, captions=FIGURE_CAPTIONS, helper=helper)
