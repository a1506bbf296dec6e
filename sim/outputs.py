"""Output directories: checked, built beside ``--out`` and moved into place whole only when complete.

Every command that writes a directory of results (``simulate``, each ``levels`` level, a study's parts, ``tune``,
``sensitivity``, ``campaign``, ``readings``) goes through :func:`output_directory`. An earlier output at ``--out``
is replaced whole, so before anything is played this module makes sure the replacement can lose nothing but that
earlier output: the folder must be ours (its manifest records this package), must hold nothing its kind of output
does not write itself (:func:`output_kinds`: a report, notes, a study or ``levels`` folders put into a run folder
would go with it), no file the command reads, and must not be a symbolic link (replacing one would replace the
link, not the folder it points to). A second command writing the same ``--out`` at the same time is refused
(:func:`sim.temporaries.others_writing`); parent folders made for a result that then fails are removed again.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sim.crashpoints import crash_point
from sim.stop_signals import not_cut_short
from sim.temporaries import create_held, hold, old_for, others_writing, release, remove_abandoned, temporary_for

#: The name under which a manifest's ``versions`` records this project: what tells a run directory of ours from
#: another folder that happens to hold a ``manifest.json`` (a web app's, say), which a run must never replace.
OWN_PACKAGE = "luna-balance"

# The names each output writes, defined here once and imported by their writers (analysis.render, the tuner,
# sensitivity, the campaign and readings: they import this module, so it could not import theirs);
# tests/test_output_replacement.py checks every kind against the files its command really writes.
MARKDOWN_FILE, HTML_FILE = "report.md", "report.html"  # a report's two pages
DEFAULT_REPORT_TITLE = "Luna balance report"  # a report's title when its writer names none (runs-report --title)
#: The folders analysis.render.write_report writes its files into, with those files' suffixes.
TABLES_DIR, FIGURES_DIR = "tables", "figures"
FIGURE_FORMATS = ("png", "svg")  # every figure is written in each (analysis.drawing draws them in this order)
REPORT_FOLDERS = {TABLES_DIR: (".csv",), FIGURES_DIR: tuple(f".{suffix}" for suffix in FIGURE_FORMATS)}
REPORT_NAMES = (MARKDOWN_FILE, HTML_FILE, *REPORT_FOLDERS)
TUNED_FILE, TUNING_FILE = "tuned.toml", "tuning.csv"  # tune's overlay and its table of every candidate
TUNE_NAMES = (TUNED_FILE, TUNING_FILE)
SENSITIVITY_FILE = "sensitivity.csv"
CHAPTERS_FILE, CAMPAIGNS_FILE, CAMPAIGNS_CSV = "chapters.parquet", "campaigns.parquet", "campaigns.csv"
READINGS_FILE = "readings.csv"
MANIFEST_FILE = "manifest.json"  # every output's
STUDY_FILE = "study.json"  # a study's plan (analysis/study/plan.py), at the top of its folder
SEATS_FILE, ROUNDS_FILE = "seats.parquet", "luna_rounds.parquet"  # a run's per-game rows (sim.run)
AGGREGATE_FILE, HISTOGRAMS_FILE = "aggregate.parquet", "histograms.parquet"  # written by sim.run's Aggregates
#: A study part's summary files (analysis/study/summaries.py writes them; the rounds, cards and timing ones with
#: detail) and its pair columns.
SEAT_SUMMARY_FILE = "summary_seats.parquet"
ROUND_SUMMARY_FILE = "summary_rounds.parquet"
CARD_SUMMARY_FILE = "summary_cards.parquet"
TIMING_SUMMARY_FILE = "summary_timing.parquet"
PAIRS_FILE = "pairs.parquet"


#: The manifest key under which a run records each file it wrote beside the manifest, with its :func:`file_digest`.
MANIFEST_FILES = "files"


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` of the file's bytes.

    A run's manifest records it for every file it wrote (:func:`written_files`), and the readers compare: a file
    copied in from another run of the same seats and games (another seed, another level's part of a study) holds
    the same columns and seats, so nothing else in it tells it apart, and its numbers were reported as this run's.
    """
    with open(path, "rb") as handle:
        return "sha256:" + hashlib.file_digest(handle, "sha256").hexdigest()


def written_files(directory: Path) -> dict[str, str]:
    """:func:`file_digest` of every file a finished run left in ``directory``, by name (its manifest's ``files``)."""
    return {path.name: file_digest(path) for path in sorted(directory.iterdir())
            if path.is_file() and path.name != MANIFEST_FILE}


class OutputPathError(ValueError):
    """``out`` names a place where no run directory can be written; the message says where and why."""


@functools.cache
def output_kinds() -> dict[str, frozenset[str]]:
    """The names each kind of output writes at the top of its directory, by kind: what an earlier output at
    ``--out`` may hold for a command to replace it whole (anything else is someone else's, and would be lost)."""
    report = {MANIFEST_FILE, *REPORT_NAMES}
    kinds = {
        # a study's parts are runs whose consumers (analysis/study/summaries.py) add their summaries
        "run": {MANIFEST_FILE, SEATS_FILE, ROUNDS_FILE, AGGREGATE_FILE, HISTOGRAMS_FILE, SEAT_SUMMARY_FILE,
                ROUND_SUMMARY_FILE, CARD_SUMMARY_FILE, TIMING_SUMMARY_FILE, PAIRS_FILE},
        "tune": {*report, *TUNE_NAMES},
        "sensitivity": {*report, SENSITIVITY_FILE},
        "campaign": {*report, CHAPTERS_FILE, CAMPAIGNS_FILE, CAMPAIGNS_CSV},
        "readings": {*report, READINGS_FILE},
    }
    return {kind: frozenset(names) for kind, names in kinds.items()}


#: What an output of each kind is, for a message refusing to replace it with another kind.
KIND_NAMES = {"run": "a run", "tune": "a tuning", "sensitivity": "a sensitivity analysis", "campaign": "a campaign",
              "readings": "a readings comparison"}


def foreign_entries(out: Path) -> list[str]:
    """The names in the output directory ``out`` that no single kind of output writes (empty: it may be replaced).

    An output is of one kind, so its names must all be one kind's: a ``tuned.toml`` in a simulate run is foreign.
    """
    names = {entry.name for entry in out.iterdir()}
    fits = [names - own for own in output_kinds().values()]
    return [] if not all(fits) else sorted(min(fits, key=len))


def is_run_directory(path: Path) -> bool:
    """Whether ``path`` holds the ``manifest.json`` of a luna-balance output (any command's: every manifest
    records the package versions, this project's among them)."""
    try:
        manifest = json.loads((path / MANIFEST_FILE).read_text())
    except (OSError, ValueError):  # missing, unreadable, not UTF-8 or not JSON: not ours
        return False
    versions = manifest.get("versions") if isinstance(manifest, dict) else None
    return isinstance(versions, dict) and OWN_PACKAGE in versions


def _refuse_to_replace(out: Path, kind: str) -> None:
    """Refuse to replace a non-empty directory at ``out`` that is not an output of ours, holds other things, or is
    the output of another kind than ``kind`` (a simulate whose --out named a tuning deleted its tuned.toml)."""
    if not any(out.iterdir()):
        return
    if not is_run_directory(out):
        raise OutputPathError(f"{out}: exists and is not a run directory; refusing to replace it")
    if foreign := foreign_entries(out):
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        them = "it" if len(foreign) == 1 else "them"
        raise OutputPathError(f"{out}: holds {shown}, which no luna-balance output writes there; replacing {out} "
                              f"would delete {them}: move {them} out or choose another --out")
    names = {entry.name for entry in out.iterdir()}
    kinds = output_kinds()
    if not names <= kinds[kind]:
        earlier = next(other for other, own in kinds.items() if names <= own)
        # the files that tell it apart (a tuning's tuned.toml, not the report every output but a run has)
        telling = names - set().union(*(own for other, own in kinds.items() if other != earlier)) or names - kinds[kind]
        raise OutputPathError(f"{out}: holds {KIND_NAMES[earlier]} ({', '.join(sorted(telling))}), which this command "
                              "would delete in replacing it: choose another --out, or remove it first")


def not_utf8(path: str | Path) -> str | None:
    """``path`` with its bytes that are not UTF-8 shown as ``\\xNN``, if it has any; else None. Arrow's writers take
    paths as UTF-8, and the manifests and reports that record an input file's name are written in it."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return None


def check_output(out: Path, kind: str, inputs: Iterable[str | Path | None] = ()) -> None:
    """Refuse an ``out`` no run directory may be written at (a file, a symbolic link, a directory of other things,
    an earlier output holding more than its own files or one of the command's ``inputs``), creating nothing: a
    command that writes several runs checks them all before it plays any."""
    if out.name in ("", ".."):  # "." or "/" or "..": the temporary sibling would have no name
        raise OutputPathError(f"{out}: name the run directory itself, e.g. {out / 'run'}")
    if not_utf8(out.absolute()):  # arrow's writers raise UnicodeEncodeError on it, naming no file
        shown = not_utf8(out) or out  # the folder it is in may be what is not UTF-8
        raise OutputPathError(f"{shown}: the path is not valid UTF-8, which the parquet files' writer needs; "
                              "rename it")
    try:
        if out.is_symlink():  # os.replace would put the result in the link's place, not in the folder it names
            raise OutputPathError(f"{out}: is a symbolic link; give the folder it points to ({out.resolve()}) "
                                  "or another --out")
        if out.is_dir() and os.path.ismount(out):  # the result is moved into place, which a mount point cannot take
            raise OutputPathError(f"{out}: is a mount point, which the result (built beside it, then moved into its "
                                  f"place) cannot replace; give a folder inside it, e.g. {out / 'run'}")
        if out.is_dir():
            _refuse_holding_inputs(out, inputs)  # first: the more precise message
            _refuse_to_replace(out, kind)
            _refuse_read_only(out)
        elif out.exists():
            raise OutputPathError(f"{out}: is a file, not a run directory; refusing to replace it")
    except OSError as error:
        raise OutputPathError(f"{out}: cannot write a run directory there ({_why(error, out)})") from None


def _raise(error: OSError) -> None:
    raise error


def _refuse_read_only(out: Path) -> None:
    """Refuse to replace an output whose folders this user may not remove files from (``chmod -R a-w``): the new
    run was moved into place, then removing the old one failed, and the command reported a failure and left a
    ``.OUT.old-PID`` folder beside it (a QA pass, as the folder's owner). Such permissions protect the folder."""
    for folder, _, _ in os.walk(out, onerror=_raise):  # a folder it cannot list, rmtree could not empty either
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputPathError(f"{out}: is read-only ({folder} may not have files removed), so a new output cannot "
                                  f"replace it: make it writable (chmod -R u+w {out}) or choose another --out")


def _refuse_holding_inputs(out: Path, inputs: Iterable[str | Path | None]) -> None:
    """Refuse to replace ``out`` whole when a file the command reads (an overlay, a target file) is inside it: the
    run would delete its own input, and its manifest would name a file that no longer exists."""
    root = out.resolve()
    for given in inputs:
        if given is not None and root in Path(given).resolve().parents:
            raise OutputPathError(f"{out}: holds {given}, which this command reads; replacing {out} would delete "
                                  "it: move the file out of it or choose another --out")


@dataclass(frozen=True)
class Started:
    """An output being built: its held temporary directory, and the parent folders made for it (deepest last)."""

    temporary: Path
    held: int
    made: tuple[Path, ...]


def _make_parents(out: Path) -> tuple[Path, ...]:
    """Create the missing parents of ``out``; returns those it created, outermost first."""
    missing = []
    for parent in out.absolute().parents:
        if parent.exists() or parent.is_symlink():
            break
        missing.append(parent)
    out.parent.mkdir(parents=True, exist_ok=True)
    return tuple(reversed(missing))


def _remove_made(made: tuple[Path, ...]) -> None:
    """Remove the parent folders made for an output that was not written, those still empty (another command may
    have put something into one meanwhile)."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def start_output(out: Path, kind: str, inputs: Iterable[str | Path | None] = ()) -> Started:
    """Check that a run directory can be written at ``out`` (see :func:`check_output`) and create the temporary
    one beside it, held (:mod:`sim.temporaries`), after removing those of earlier processes at ``out`` that died.

    Runs before any game is played, so a bad ``out`` costs nothing and leaves nothing behind: not even the parent
    folders it made (an over-long name fails only when the temporary directory is made).
    """
    check_output(out, kind, inputs)
    temporary = temporary_for(out)
    made: tuple[Path, ...] = ()
    try:
        made = _make_parents(out)
        remove_abandoned(out)
        if temporary.exists():
            shutil.rmtree(temporary)
        held = create_held(temporary)
    except OSError as error:
        _remove_made(made)
        if error.errno == errno.ENAMETOOLONG:  # the system names only the temporary directory, not why it is longer
            raise OutputPathError(f"{out}: the name is too long: the folder the result is built in first, "
                                  f"{temporary.name}, must fit the file system's limit too; shorten it") from None
        raise OutputPathError(f"{out}: cannot write a run directory there ({_why(error, out)})") from None
    # Checked once ours is held, so of two commands starting together the later always sees the earlier.
    try:
        refuse_other_writers(out)
    except OutputPathError:
        release(held)
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return Started(temporary, held, made)


def refuse_other_writers(out: Path) -> None:
    """Refuse ``out`` while another live luna-balance command builds its output there (a simulate, a campaign...):
    a study or report written into it meanwhile would be deleted by that command's result, or make it fail after
    all its games (a QA pass lost 3 million games so)."""
    if writers := others_writing(out):
        raise OutputPathError(f"{out}: another luna-balance process (pid {writers[0]}) is writing it now; wait for it "
                              "to finish or choose another --out")


def refuse_inside_output(out: Path, option: str = "--out") -> None:
    """Refuse an ``out`` inside another output of ours: a run, tuning, campaign... (its ``manifest.json``) or a
    study (``study_file``). A run written over a study's part replaced that part; one inside a run made the run
    impossible to replace later (``holds sub, which no luna-balance output writes there``), and is lost with it."""
    for parent in out.absolute().parents:
        if is_run_directory(parent) or (parent / STUDY_FILE).is_file():
            raise OutputPathError(f"{option}: {out} is inside {parent}, an output of luna-balance, whose next run "
                                  "replaces it whole: choose a folder outside it")


@contextlib.contextmanager
def output_directory(out: Path, kind: str, inputs: Iterable[str | Path | None] = ()) -> Iterator[Path]:
    """Build an output directory beside ``out`` and move it into place only when the block completes.

    ``out`` is checked first (:func:`start_output`, before any game is played; ``inputs`` are the files the
    command reads, which an earlier run at ``out`` must not hold); the block writes into the
    temporary directory it is given; on any error (or Ctrl-C) the temporary directory is removed and
    ``out`` is left as it was, so a command's result is all there or not there at all.
    """
    started = start_output(out, kind, inputs)
    temporary, written = started.temporary, False
    try:
        yield temporary
        replace_directory(temporary, out, kind)
        written = True
    except OSError as error:
        if not error.filename:
            raise os_error_naming(error, out) from error
        inside = Path(os.fsdecode(error.filename))
        if temporary not in inside.parents:
            raise
        # a file of the temporary directory, which is removed below: name its place in ``out`` instead
        raise OSError(error.errno, error.strerror, str(out / inside.relative_to(temporary))) from error
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)
        release(started.held)
        if not written:
            _remove_made(started.made)


#: The held folder several runs are built in together (:func:`staged_runs`): ``.<this>.partial-<pid>`` in their folder.
STAGED = "staged-runs"


@contextlib.contextmanager
def staged_runs(folder: Path, names: Sequence[str]) -> Iterator[Path]:
    """Build the run directories ``folder/NAME`` (one per ``names``) in one held staging folder, and move them into
    place together when the block completes.

    ``levels --out`` over an earlier one, stopped part way, left the levels it had played replaced and the others not:
    a mix of two commands' runs that looked complete (a QA pass). Now an error, Ctrl-C or stop signal before the end
    leaves every earlier run as it was; the moves are made with the stop signals held, so only a ``kill -9`` in those
    milliseconds can part them. The block gives each run to ``run_simulation`` under the folder it is given. A staging
    folder whose process died is removed by the next command staging runs in ``folder``; the folders made for it
    are removed again if nothing was moved into place.
    """
    started = start_output(folder / STAGED, "run")  # as any output's temporary folder: held, the dead ones removed
    moved = False
    try:
        yield started.temporary
        with not_cut_short():
            for name in names:
                replace_directory(started.temporary / name, folder / name, "run")
                moved = True
    finally:
        shutil.rmtree(started.temporary, ignore_errors=True)
        release(started.held)
        if not moved:
            _remove_made(started.made)


_ERRNO_DETAIL = re.compile(r"\[errno (\d+)\]")


def os_error_naming(error: OSError, out: Path) -> OSError:
    """``error`` as an ``OSError`` naming ``out``, for one that names no file: arrow's writers give the
    system's reason inside their text ("Error writing bytes to file. Detail: [errno 27] File too large"),
    a write through a file descriptor gives no name at all."""
    code = error.errno
    if code is None and (found := _ERRNO_DETAIL.search(str(error))):
        code = int(found.group(1))
    reason = os.strerror(code) if code is not None else error.strerror or str(error) or type(error).__name__
    return OSError(code, reason, str(out))


def _why(error: OSError, out: Path) -> str:
    """The reason behind ``error`` in words, naming the path it concerns."""
    existing = next((parent for parent in out.parents if parent.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is a file, not a directory"  # mkdir would only say "File exists" or "Not a directory"
    path = error.filename or out
    return f"{path}: {error.strerror or error}"


def replace_directory(temporary: Path, out: Path, kind: str) -> None:
    """Move a finished run into place; an existing run directory at ``out`` is replaced whole."""
    if out.exists() or out.is_symlink():
        check_output(out, kind)  # again: it may have become a link or gained files while the games were played
        old = old_for(out)
        crash_point("part-moving")
        # Held, so that a process killed outright (kill -9) while deleting it leaves remains the next command at
        # this --out removes (sim.temporaries.remove_abandoned); a Ctrl-C or stop signal waits for the deletion.
        with not_cut_short():
            try:
                held: int | None = hold(out)
            except OSError:  # a folder we may not read (chmod 300) is still replaced, as before, only not held
                held = None
            try:
                os.replace(out, old)
                os.replace(temporary, out)
                crash_point("part-moved")
                shutil.rmtree(old)
            finally:
                if held is not None:
                    release(held)
    else:
        crash_point("part-moving")
        os.replace(temporary, out)
        crash_point("part-moved")

