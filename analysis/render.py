"""Write a report: tables as CSV, figures as PNG/SVG, ``report.md`` and a self-contained ``report.html``.

Layout written under the study directory::

    report.md          sections with tables as Markdown and links to the figures
    report.html        the same, figures embedded as base64 PNG (opens offline in any browser)
    tables/NAME.csv    every table in full
    figures/NAME.png   every figure
    figures/NAME.svg

Every file is rendered, then written beside its place as a temporary file, before anything of an earlier
report is touched; then the earlier pages are removed and each file is moved into place (``os.replace``), the
pages last. So a run that fails or is interrupted while writing leaves the earlier report as it was, and one
stopped while moving leaves no page that looks complete. This module knows
nothing of what a report contains; :mod:`analysis.report` builds the standard run report and
:mod:`analysis.study.content` the study report.
"""

from __future__ import annotations

import base64
import errno
import html
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.drawing import DrawingHelper, figure_files
from analysis.folder_lock import LOCK_FILE, TEMPORARY_SUFFIX, is_lock_or_temporary
from sim.crashpoints import crash_point
from sim.outputs import DEFAULT_REPORT_TITLE, FIGURES_DIR, HTML_FILE, MARKDOWN_FILE, REPORT_FOLDERS, TABLES_DIR
from sim.run import os_error_naming


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
    id
        Stable name of the section: code refers to a section by it, and it is the section's HTML
        anchor, so use ``[a-z0-9-]``. The title may change freely.
    title
        Heading text.
    text
        Paragraph under the heading (Markdown; kept plain so the HTML shows it as is).
    items
        Names of tables and figures in display order. A name that is both a table and a figure
        shows the figure, then the table.
    """

    id: str
    title: str
    text: str
    items: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not self.id or any(not (ch.isascii() and (ch.isalnum() or ch in "-_")) for ch in self.id):
            raise ValueError(f"Section: {self.id!r} is not a usable id (letters, digits, - and _)")


#: Id of the section that gathers the tables and figures no other section names.
OTHER_SECTION = "other"


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
    _move_staged([(_staged_copy(destination, content), destination)])
    return destination


def _staged_copy(destination: Path, content: bytes | str) -> Path:
    """Write ``content`` to a temporary file beside ``destination`` (created private, then given the mode a plain
    ``open()`` would, and synced) and return the temporary file's path; nothing is left behind if it fails."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    # Same directory as the destination: os.replace is only atomic within one file system.
    handle, name = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=TEMPORARY_SUFFIX, dir=destination.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, _FILE_MODE)
        crash_point("file-written")
    except OSError as error:
        temporary.unlink(missing_ok=True)
        if error.filename and error.filename != name:
            raise
        raise os_error_naming(error, destination) from error  # the destination, not the temporary file
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def _move_staged(staged: Sequence[tuple[Path, Path]]) -> None:
    """Move each staged temporary file onto its destination, in order; if one move fails, the temporary files not
    yet moved are deleted."""
    for done, (temporary, destination) in enumerate(staged):
        try:
            os.replace(temporary, destination)
        except BaseException as error:
            for left, _ in staged[done:]:
                left.unlink(missing_ok=True)
            if isinstance(error, OSError) and error.filename in (None, "", str(temporary)):
                raise os_error_naming(error, destination) from error  # not the temporary file, now deleted
            raise


def _discard_staged(staged: Sequence[tuple[Path, Path]]) -> None:
    for temporary, _ in staged:
        temporary.unlink(missing_ok=True)


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
        if not number.is_integer() and (2 * number).is_integer() and abs(number) < 1e15:
            return f"{number:.1f}"  # a count with half-wins (a tie counts 1/k), shown exactly: .4g made 1824.5 "1824"
        if abs(number) >= 1e4:
            return f"{number:.0f}"
        return f"{number:.4g}"
    if value is pd.NA:
        return ""
    return str(value)


#: ``frame.attrs[FIXED_DECIMALS]``: columns a table shows with a fixed number of decimals, ``{column: digits}``,
#: where every row is rounded alike (a strength at parity settled to 0.01 reads 1.10, not 1.1)
FIXED_DECIMALS = "fixed_decimals"


def _cell_formats(frame: pd.DataFrame) -> list[Any]:
    fixed = frame.attrs.get(FIXED_DECIMALS, {})

    def fixed_format(digits: int) -> Any:
        return lambda value: format_value(value) if pd.isna(value) else f"{float(value):.{digits}f}"

    return [fixed_format(fixed[column]) if column in fixed else format_value for column in frame.columns]


def signed(value: float, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals; one that rounds to zero is ``+0.00``, never ``-0.00``
    (a reader takes "-0.00" for a measured loss)."""
    text = f"{value:+.{digits}f}"
    return "+" + text[1:] if text.startswith("-") and float(text) == 0 else text


def interval_end(value: float, digits: int) -> str:
    """An interval's end with its sign and ``digits`` decimals, or the few more that show its sign when it rounds to
    zero (``-0.03``): whether an interval reaches zero is what a reader checks, so its end is never shown as the
    ``+0.0`` of :func:`signed` (under "scores less", "-2.4 to +0.0" reached the zero it was said to exclude)."""
    if math.isfinite(value) and value != 0:
        for decimals in range(digits, digits + 7):
            text = f"{value:+.{decimals}f}"
            if float(text) != 0:
                return text
    return signed(value, digits)


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
    formats = _cell_formats(frame)
    rows = [
        "| " + " | ".join(cell(form(value)) for value, form in zip(row, formats, strict=True)) + " |"
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
    formats = _cell_formats(frame)
    lines = ["<table>", "<thead><tr>"]
    lines += [f"<th>{html.escape(str(column))}</th>" for column in shown.columns]
    lines += ["</tr></thead>", "<tbody>"]
    for row in shown.itertuples(index=False, name=None):
        cells = "".join(
            f'<td class="num">{html.escape(form(value))}</td>'
            if is_number
            else f"<td>{html.escape(form(value))}</td>"
            for value, is_number, form in zip(row, numeric, formats, strict=True)
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



# Words of table names a heading writes otherwise than capitalize() would ("Sp distribution", "Grade2 by round").
_HEADING_WORDS = {"sp": "SP", "grade2": "grade-2", "ci": "CI"}


def _caption(name: str) -> str:
    words = [_HEADING_WORDS.get(word, word) for word in name.split("_")]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def arrange_sections(
    sections: Sequence[Section], tables: Mapping[str, pd.DataFrame], figures: Mapping[str, Figure]
) -> list[Section]:
    """Keep sections that have content; gather names no section claims into a last section."""
    ids = [section.id for section in sections]
    if len(set(ids)) != len(ids) or OTHER_SECTION in ids:
        raise ValueError(f"write_report: section ids must be unique and not {OTHER_SECTION!r}, got {ids}")
    available = set(tables) | set(figures)
    arranged = []
    claimed: set[str] = set()
    for section in sections:
        present = tuple(name for name in section.items if name in available)
        claimed.update(section.items)
        if present:
            arranged.append(Section(section.id, section.title, section.text, present))
    leftovers = tuple(name for name in [*tables, *figures] if name not in claimed)
    if leftovers:
        arranged.append(Section(OTHER_SECTION, "Other tables and figures", "", tuple(dict.fromkeys(leftovers))))
    return arranged


#: The tag every report page carries in its head: what tells a report a later one may replace from a page of
#: the user's that happens to be called report.html.
GENERATOR_TAG = '<meta name="generator" content="luna-balance">'


def is_report_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a report :func:`write_report` wrote: its page carries :data:`GENERATOR_TAG`
    (a page written before the tag: with ``report.md`` and ``tables/`` beside it), or it is a report that stopped
    before its pages (:func:`_is_stopped_report`)."""
    try:
        with (folder / HTML_FILE).open("rb") as page:
            head = page.read(4096)
    except FileNotFoundError:
        return _is_stopped_report(folder)
    except OSError:
        return False
    return GENERATOR_TAG.encode() in head or ((folder / MARKDOWN_FILE).is_file() and (folder / TABLES_DIR).is_dir())


def _is_temporary(path: Path) -> bool:
    return is_lock_or_temporary(path.name) and path.name != LOCK_FILE


def _is_stopped_report(folder: Path) -> bool:
    """Whether ``folder`` holds nothing but a report's tables and figures, perhaps its ``report.md`` (the page
    written first) and :func:`atomic_write`'s temporaries: a report stopped by a full disk, a kill or Ctrl-C after it
    removed the earlier pages and before it wrote ``report.html``, which the same command must be able to complete."""
    try:
        entries = [entry for entry in folder.iterdir() if not is_lock_or_temporary(entry.name)
                   and entry.name != MARKDOWN_FILE]
        return bool(entries) and all(
            entry.name in REPORT_FOLDERS and entry.is_dir()
            and all(_is_temporary(item) or (item.is_file() and item.suffix in REPORT_FOLDERS[entry.name])
                    for item in entry.iterdir())
            for entry in entries)
    except OSError:
        return False


def check_report_places(root: Path) -> None:
    """Refuse, before anything is written, a report whose folders are files or whose files are folders (a
    report that stopped there would leave the tables written before it)."""
    for folder in (root, root / TABLES_DIR, root / FIGURES_DIR):
        if folder.exists() and not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "is a file, not a folder the report can write into", str(folder))
    for name in (MARKDOWN_FILE, HTML_FILE):
        if (root / name).is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file the report can replace", str(root / name))


def _remove_earlier_items(root: Path, written: Mapping[str, set[str]]) -> None:
    """Remove the tables and figures of an earlier report that this one does not write (a study rerun with fewer
    variants kept its variant tables beside a report without them); other files there are left as they are."""
    for folder, suffixes in REPORT_FOLDERS.items():
        if not (root / folder).is_dir():
            continue
        for item in (root / folder).iterdir():
            if item.suffix in suffixes and item.name not in written[folder] and item.is_file() \
                    and not _is_temporary(item):
                item.unlink(missing_ok=True)


def write_report(
    study_dir: str | Path,
    tables: Mapping[str, pd.DataFrame],
    figures: Mapping[str, Figure],
    title: str = DEFAULT_REPORT_TITLE,
    sections: Sequence[Section] = (),
    max_rows: int | None = DEFAULT_MAX_ROWS,
    introduction: str = "",
    captions: Mapping[str, str] | None = None,
    helper: DrawingHelper | None = None,
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
        Section layout (e.g. :data:`analysis.report.DEFAULT_SECTIONS`); sections without content are
        left out, and tables or figures no section names go to a final "Other tables and figures"
        section (id :data:`OTHER_SECTION`).
    max_rows
        Rows shown per table in the Markdown/HTML (None for all); the CSV files are complete.
    introduction
        Optional paragraph under the title.
    captions
        Figure name -> caption (e.g. :data:`analysis.report.FIGURE_CAPTIONS`); else the name in words.
    helper
        A second process to draw some of the figures in (:func:`analysis.drawing.drawing_helper`); the files
        are the same without it.

    Returns
    -------
    ReportFiles
        Paths of everything written.
    """
    root = Path(study_dir)
    for name in [*tables, *figures]:
        if not name or any(not (ch.isalnum() or ch in "_-") for ch in name):
            raise ValueError(f"write_report: {name!r} is not a usable file name (letters, digits, _ and -)")
    check_report_places(root)
    # Everything is rendered before anything is written: a table or figure that fails leaves an earlier
    # report in this folder as it was, rather than its report.html beside some new tables.
    csv_text = {name: frame.to_csv(index=False, lineterminator="\n") for name, frame in tables.items()}
    drawn = figure_files(figures, helper)
    png_data = {name: png for name, (png, _) in drawn.items()}
    svg_data = {name: svg for name, (_, svg) in drawn.items()}

    figure_captions = captions or {}
    arranged = arrange_sections(sections, tables, figures)
    markdown = [f"# {title}\n"]
    page = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        GENERATOR_TAG,
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
    markdown += [f"- [{section.title}](#{section.id})" for section in arranged]
    markdown.append("")
    page.append("<nav><h2>Contents</h2><ul>")
    page += [f'<li><a href="#{s.id}">{html.escape(s.title)}</a></li>' for s in arranged]
    page.append("</ul></nav>")

    for section in arranged:
        # The anchor is the section's id in both files, so links survive a retitled section.
        markdown.append(f'<a id="{section.id}"></a>\n')
        markdown.append(f"## {section.title}\n")
        page.append(f'<section id="{section.id}">')
        page.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.text:
            markdown.append(f"{section.text}\n")
            page.append(f"<p>{html.escape(section.text)}</p>")
        for name in section.items:
            if name in figures:
                caption = figure_captions.get(name) or _caption(name)
                markdown.append(f"![{caption}]({FIGURES_DIR}/{name}.png)\n")
                markdown.append(f"*Figure: {caption}* ([SVG]({FIGURES_DIR}/{name}.svg))\n")
                encoded = base64.b64encode(png_data[name]).decode("ascii")
                page.append(
                    f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{encoded}">'
                    f"<figcaption>Figure: {html.escape(caption)}</figcaption></figure>"
                )
            if name in tables:
                caption = _caption(name)
                markdown.append(f"### {caption}\n")
                markdown.append(markdown_table(tables[name], max_rows))
                markdown.append(f"Full table: [{TABLES_DIR}/{name}.csv]({TABLES_DIR}/{name}.csv)\n")
                page.append(f"<h3>{html.escape(caption)}</h3>")
                page.append(html_table(tables[name], max_rows))
        page.append("</section>")
    page += ["</body>", "</html>", ""]

    # Every file is written beside its place first, and only once all are written does the earlier report give
    # way: a write that fails (a full disk, a file size limit) or is interrupted leaves the earlier report as it
    # was. Then the earlier pages go, so that a move that fails part way leaves no report.html beside a mix of old
    # and new files, and the pages come last.
    table_paths = {name: root / TABLES_DIR / f"{name}.csv" for name in tables}
    figure_paths = {name: (root / FIGURES_DIR / f"{name}.png", root / FIGURES_DIR / f"{name}.svg") for name in figures}
    markdown_path, html_path = root / MARKDOWN_FILE, root / HTML_FILE
    contents: list[tuple[Path, bytes | str]] = [(table_paths[name], text) for name, text in csv_text.items()]
    for name, (png_path, svg_path) in figure_paths.items():
        contents += [(png_path, png_data[name]), (svg_path, svg_data[name])]
    contents += [(markdown_path, "\n".join(markdown)), (html_path, "\n".join(page))]
    staged: list[tuple[Path, Path]] = []
    try:
        for destination, content in contents:
            staged.append((_staged_copy(destination, content), destination))
        for name in (HTML_FILE, MARKDOWN_FILE):
            (root / name).unlink(missing_ok=True)
        _remove_earlier_items(root, {TABLES_DIR: {path.name for path in table_paths.values()},
                                     FIGURES_DIR: {path.name for pair in figure_paths.values() for path in pair}})
    except BaseException:
        _discard_staged(staged)
        raise
    _move_staged(staged)
    return ReportFiles(markdown=markdown_path, html=html_path, tables=table_paths, figures=figure_paths)
