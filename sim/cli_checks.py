"""Checks of the command line made before a command does its work: settings no command can use, and its output paths
(none inside another output of ours, and ``parity --csv`` and ``runs-report --out``, written in place, not replaced
whole as :mod:`sim.outputs` replaces a run directory)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from analysis.folder_lock import is_lock_or_temporary
from sim.config import ConfigError, check_seed
from sim.constants import DEFAULT_BACKEND
from sim.dispatch import usable_cpus
from sim.environment import thread_count_problem
from sim.outputs import (
    KIND_NAMES,
    STUDY_FILE,
    OutputPathError,
    is_run_directory,
    not_utf8,
    output_kinds,
    refuse_inside_output,
    refuse_other_writers,
)

#: The options that name an input file (argparse's name -> the option), and the commands that write its name into a
#: text file of their output (a report, a sentence), which takes only UTF-8; simulate's manifest escapes it.
INPUT_FILES = {"overlay": "--overlay", "target": "TARGET.toml", "variant": "--variant"}
NAMING_INPUTS = ("readings", "study", "tune")


def check_options(args: argparse.Namespace) -> None:
    """Refuse settings no command can use, before any command runs: a ``NUMBA_NUM_THREADS`` below 1 (numba fails
    only when the engine first plays), a seed beyond the 64 bits its streams are derived from (two seeds 2**64
    apart would play the same games), a parity tolerance the bisection never gets below (it would never stop),
    readings asked for with no games (0 means no readings once it reaches the study's plan, which checks
    ``--parity-games`` itself), an input file whose name is not UTF-8 (found only as its name was written, after
    every game). More games than there are game numbers are refused where the games are played
    (:func:`sim.config.check_games`)."""
    if problem := thread_count_problem():  # the script said it before importing numba; a caller of main() did not
        raise ConfigError(problem)
    seed = getattr(args, "seed", None)
    if seed is not None:
        check_seed(seed)
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance > 0):
        raise ConfigError(f"--tolerance: must be a positive number, got {tolerance}")
    readings_games = getattr(args, "readings_games", None)
    if readings_games is not None and readings_games < 1:
        raise ConfigError(f"--readings-games: must be at least 1, got {readings_games}")
    for name, option in INPUT_FILES.items() if args.command in NAMING_INPUTS else ():
        given = getattr(args, name, None)
        for path in given if isinstance(given, list) else [given]:
            if path is not None and (shown := not_utf8(path)):
                raise ConfigError(f"{option}: {shown}: the file name is not valid UTF-8, which the outputs that "
                                  "record it are written in; rename it")


def clamp_workers(args: argparse.Namespace) -> None:
    """Refuse ``--workers`` below 1; lower it to the usable CPUs for local runs (more only add memory)."""
    workers = getattr(args, "workers", None)
    if workers is None:
        return
    if workers < 1:  # checked here, before any command runs, for every command that has the option
        raise ConfigError(f"--workers: must be at least 1, got {workers}")
    cpus = usable_cpus()
    if workers > cpus and getattr(args, "backend", DEFAULT_BACKEND) == "local":  # Dask workers live on other machines
        sys.stderr.write(f"luna-balance: --workers: {workers} is more than the {cpus} usable CPU(s); using {cpus}\n")
        args.workers = cpus


def check_csv_path(text: str) -> None:
    """Refuse a ``--csv`` path a table cannot be written at, or should not be: a folder, a place under a file, a
    symbolic link or an existing file that is not CSV (the table would take its place), or a place inside an
    output of ours (``r1/seats.parquet``: a run's own file would be replaced, and anything else there is lost
    with the run when it is next replaced), so such a mistake costs no search. An earlier CSV file is replaced.
    """
    path, folder = Path(text), Path(text).parent
    why = ("no name" if not text else "a symbolic link" if path.is_symlink() else "a folder" if path.is_dir()
           else f"{folder} is a file" if folder.exists() and not folder.is_dir()
           else "an existing file that is not CSV" if path.exists() and path.suffix.lower() != ".csv" else "")
    if not why and (output := next((parent for parent in path.absolute().parents if is_run_directory(parent)),
                                   None)):
        why = f"inside {os.path.relpath(output)}, an output of luna-balance"
    if why:
        raise OutputPathError(f"--csv: {text!r} is not a file that can be written ({why})")


def check_report_out(out: Path, study_file: str) -> None:
    """Refuse a ``runs-report --out`` that is not a report folder (a report is written into its folder, beside
    nothing but an earlier report: a folder of other things is the user's, as for ``simulate``) or is a study's
    (``study_file`` in it: its report.html is the study's, with tables this report would mix into), or a symbolic
    link to nothing (the folder could not be made)."""
    from analysis.render import is_report_folder  # pandas and matplotlib: not for every command's parser

    if out.is_symlink() and not out.exists():
        raise OutputPathError(f"--out: {out} is a symbolic link to {os.readlink(out)}, which does not exist")
    # (a lock or temporary files alone are a report killed before it wrote anything)
    if (out.is_dir() and any(not is_lock_or_temporary(entry.name) for entry in out.iterdir())
            and not is_report_folder(out)):
        raise OutputPathError(f"--out: {out} holds other files and no luna-balance report; refusing to write a "
                              "report into it")
    if (out / study_file).is_file():
        raise OutputPathError(f"--out: {out} is a study; `luna-balance report {out}` rebuilds its report")
    if is_run_directory(out):  # a campaign's, a tuning's... report: written over, it lost that output's own pages
        raise OutputPathError(f"--out: {out} is the output of another luna-balance command; a runs report would "
                              "write over its report: choose another --out")
    refuse_other_writers(out)


def _output_kind(out: Path) -> str | None:
    """What output of ours ``out`` itself is, in words (``a run``, ``a study``), or None when it is none."""
    if (out / STUDY_FILE).is_file():
        return "a study"
    if not is_run_directory(out):
        return None
    names = {entry.name for entry in out.iterdir()}
    return next((KIND_NAMES[kind] for kind, own in output_kinds().items() if names <= own), "an output")


def check_levels_out(out: Path) -> None:
    """Refuse a ``levels --out`` that is itself an output of ours (a run, a campaign, a study, one level's run of an
    earlier ``levels``): its level-N runs went into it, and the output's next run refused them as foreign files
    (``holds level-3, which no luna-balance output writes there``) or deleted them. An earlier ``levels --out``
    folder holds only level-N runs and no manifest of its own, so it is not refused: a rerun replaces them."""
    if kind := _output_kind(out):
        raise OutputPathError(f"--out: {out} is {kind}, an output of luna-balance; levels writes its level-N runs "
                              "into a folder of their own: choose another --out")


def check_output_places(args: argparse.Namespace) -> None:
    """Refuse a command's output folder inside another output of ours (:func:`sim.outputs.refuse_inside_output`),
    and a ``levels --out`` (the folder of its runs) that is one (:func:`check_levels_out`)."""
    if getattr(args, "out", None) is not None:
        refuse_inside_output(Path(args.out))
        if args.command == "levels":
            check_levels_out(Path(args.out))
    if args.command == "study":
        refuse_inside_output(Path(args.results_dir) / args.name, "--results-dir and --name")
