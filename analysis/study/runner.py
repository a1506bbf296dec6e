"""Playing a study: which parts are missing, which engine plays each, and the runs themselves.

Resume: every part is written atomically by :func:`sim.run.run_simulation`, its summary
(:mod:`analysis.study.summaries`) inside it, and a part whose ``manifest.json`` already records the
wanted configuration and summary is kept as it is (:func:`analysis.study.plan.part_is_finished`).
Running the same study again after an interruption therefore only plays the missing parts.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from signal import SIGINT
from typing import Any

from analysis.render import ReportFiles, atomic_write
from analysis.schema import BASE_VARIANT, MANIFEST_FILE
from analysis.study.checks import check_variants
from analysis.study.content import render_study_dir
from analysis.study.lock import holding_study_lock
from analysis.study.parity_step import run_parity
from analysis.study.plan import (
    DEFAULT_GAMES,
    DEFAULT_LEVELS,
    DEFAULT_NAME,
    DEFAULT_PARITY_GAMES,
    DEFAULT_RESULTS,
    DEFAULT_SEED,
    DEFAULT_STRENGTHS,
    RUNS_DIR,
    STUDY_FILE,
    STUDY_FORMAT,
    StudyError,
    parity_is_finished,
    parse_profiles,
    parse_strengths,
    part_is_finished,
    plan_study,
    read_json,
    read_variant,
    summary_record,
)
from analysis.study.readings_step import readings_are_finished, readings_games_to_play, run_readings
from analysis.study.summaries import PartReducer
from sim.config import DEFAULT_START_BONUS, GameConfig, check_count, parse_levels, parse_seats
from sim.constants import DEFAULT_BACKEND, DEFAULT_BOARD, DEFAULT_WORKERS, ROUNDS
from sim.gamedata import load_game_data
from sim.progress import progress_bar
from sim.run import RunOptions, default_chunk_size
from sim.stop_signals import stop_cause

#: How long to wait for a Dask scheduler before giving up with a one-line error.
SCHEDULER_TIMEOUT = "10s"


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C (or another stop signal: ``signum``) during a study; the message says what was kept."""

    signum: int = SIGINT


def remove_stale_temporaries(runs_dir: Path) -> None:
    """Delete half-written run directories left by study processes that died (SIGKILL, power loss).

    ``run_simulation`` names them ``.<part>.partial-<pid>`` / ``.<part>.old-<pid>`` and removes its
    own on any exception. The caller holds the study's lock (:mod:`analysis.study.lock`), so no other
    process is writing into this directory: every such temporary is left over.
    """
    if not runs_dir.is_dir():
        return
    for path in sorted(runs_dir.rglob(".*")):  # listed in full first: removing while walking is unsafe
        if re.fullmatch(r"\..+\.(?:partial|old)-\d+", path.name) and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


def resolve_engine(engine: str | None) -> tuple[str, str]:
    """The engine to use and a note for the user ("" when there is nothing to say).

    ``None`` means the fast engine when it can be imported, else the reference engine. An engine
    asked for by name that cannot be loaded is an error rather than a silent substitution.
    """
    from sim.engines import DEFAULT_ENGINE, engine_function

    if engine is not None:
        try:
            engine_function(engine)
        except ImportError as error:
            raise StudyError(f"the {engine} engine cannot be loaded: {error}", "engine") from None
        return engine, ""
    try:
        engine_function(DEFAULT_ENGINE)
    except Exception as error:  # a broken numba install may fail in any way on import; say so and go on
        return "reference", f"the {DEFAULT_ENGINE} engine is not available ({type(error).__name__}: {error}); " \
                            "using the reference engine"
    return DEFAULT_ENGINE, ""


def part_engine(engine: str, data: Any, config: Any) -> tuple[str, str]:
    """The engine one part is played with, and why it is not ``engine`` ("" when it is).

    The fast engine may not play every configuration (data beyond its compiled capacities); such a
    part falls back to the reference engine, which plays everything the loader accepts.
    """
    from sim.engines import engine_problems

    reason = engine_problems(engine, data, config)
    return ("reference", reason) if reason else (engine, "")


def chunk_size(games: int, workers: int, config: GameConfig, detail: bool) -> int:
    """Games per chunk of one part: the size chosen from memory, or smaller so that several workers share a part."""
    size = default_chunk_size(config, detail)
    if workers <= 1:
        return size
    # Several chunks per worker so joblib can balance them; results never depend on the chunking.
    return max(1, min(size, math.ceil(games / (4 * workers))))


def cluster_threads(scheduler: str) -> int:
    """Threads of the Dask cluster at ``scheduler``, asked once before any work so a wrong address fails early.

    Raises
    ------
    StudyError
        When dask.distributed is missing or the scheduler cannot be reached.
    """
    from sim.dispatch import dask_problem

    if problem := dask_problem():
        raise StudyError("{backend} dask: " + problem, mentions=("backend",))
    from dask.distributed import Client

    try:
        with Client(scheduler, timeout=SCHEDULER_TIMEOUT) as client:
            return max(1, sum(client.nthreads().values()))
    except Exception as error:  # distributed raises OSError, TimeoutError or ValueError by address and version
        raise StudyError(f"cannot reach a Dask scheduler at {scheduler!r} "
                         f"({type(error).__name__}: {error})", "scheduler") from None


def run_simulation(*args: Any, **kwargs: Any) -> Path:
    """:func:`sim.run.run_simulation`, imported on first use (kept as a module name so tests can patch it)."""
    from sim.run import run_simulation as simulate

    return simulate(*args, **kwargs)


@holding_study_lock  # one study process per directory; see analysis/study/lock.py
def run_study(
    name: str = DEFAULT_NAME,
    games: int = DEFAULT_GAMES,
    levels: str | Sequence[int] = DEFAULT_LEVELS,
    seed: int = DEFAULT_SEED,
    variants: str | Path | Sequence[str | Path] = (),
    engine: str | None = None,
    workers: int = DEFAULT_WORKERS,
    quiet: bool = False,
    results_dir: str | Path = DEFAULT_RESULTS,
    profiles: str | Sequence[str] | None = None,
    command: str = "",
    log: Callable[[str], None] | None = None,
    strengths: str | Sequence[float] = DEFAULT_STRENGTHS,
    rounds: int = ROUNDS,
    start_bonus: str = DEFAULT_START_BONUS,
    board: str = DEFAULT_BOARD,
    parity: bool = False,
    parity_games: int = DEFAULT_PARITY_GAMES,
    backend: str = DEFAULT_BACKEND,
    scheduler: str | None = None,
    keep_games: bool = False,
    readings_games: int = 0,
) -> ReportFiles:
    """Simulate the missing parts of a study and write its report.

    ``levels``, ``profiles`` and ``strengths`` may also be given as their command-line options are
    (``"4-5"``, ``"balanced,tank"``, ``"0.8,1"``), and ``variants`` as one overlay file.

    Parameters
    ----------
    name
        Study name; the study is written to ``results_dir/name``.
    games
        Games per part.
    levels
        Luna's levels.
    seed
        Run seed shared by every part (so every part, and every variant, plays the same boards).
    variants
        Overlay TOML files; each is simulated for every part with the base's seed and games.
    engine
        ``"reference"``, ``"numba"``, or None for numba when available.
    workers
        Processes per part (joblib), or Dask workers to use (default: all the cluster's threads); results
        do not depend on it.
    quiet
        No progress bar and no messages.
    results_dir
        Parent directory of the study.
    profiles
        Scripted profiles to play against every level; default every built-in one but ``passive``.
    command
        The command line recorded in ``study.json``.
    log
        Receives one-line messages (default: stderr unless quiet).
    strengths
        Strengths each profile plays at (a part per profile, strength and level).
    rounds
        Rounds per game (7, or 6 for the threat card Singularity).
    start_bonus
        Luna's starting research token: ``random`` or ``none``.
    board
        The side of the board: ``moon`` or ``belt``.
    parity
        Also find each profile's strength at parity per level (``parity/``, a report section).
    parity_games
        Games per strength tried by the parity searches.
    backend
        ``"local"`` (joblib processes) or ``"dask"`` (the cluster at ``scheduler``); results do not depend on it.
    scheduler
        Dask scheduler address, with ``backend="dask"``.
    readings_games
        With more than 0, a "Rule readings" section: every rule reading against the defaults, Luna alone at
        each level, this many games per level and reading (``readings/``).
    keep_games
        Also keep every part's per-game rows (``seats.parquet``, ``luna_rounds.parquet``) for
        :func:`analysis.study.load_study`; the report needs only the parts' summaries.

    Returns
    -------
    analysis.render.ReportFiles
        The report's files.
    """
    say = log or ((lambda _text: None) if quiet else (lambda text: print(f"luna-balance: {text}", file=sys.stderr)))
    # a string is read as its command-line option would be ("4-5", "balanced,tank", "0.8,1"; one overlay file)
    levels = parse_levels(levels) if isinstance(levels, str) else levels
    profiles = parse_profiles(profiles) if isinstance(profiles, str) else profiles
    strengths = parse_strengths(strengths) if isinstance(strengths, str) else strengths
    variants = [variants] if isinstance(variants, str | Path) else variants
    workers = check_count(workers, "workers", 1)
    study_dir = Path(results_dir) / name
    loaded = [read_variant(path) for path in variants]  # validate every overlay before any work
    engine, note = resolve_engine(engine)
    if note:
        say(note)
    plan = plan_study(name, games, seed, levels, engine, [variant for variant, _ in loaded], profiles,
                      command=command, strengths=strengths, rounds=rounds, start_bonus=start_bonus, parity=parity,
                      parity_games=parity_games, backend=backend, scheduler=scheduler, board=board,
                      readings_games=readings_games)
    # every part and search checked against its variant's data before anything is written or played: a variant
    # that cannot seat a part was found only after every base part had been played
    check_variants(plan, {BASE_VARIANT: load_game_data(),
                          **{variant.name: load_game_data(variant.source) for variant in plan.variants}})
    # Chunks small enough that every thread of the cluster gets some (chunking never changes a number).
    threads = cluster_threads(plan.scheduler) if plan.backend == "dask" and plan.scheduler else workers
    study_dir.mkdir(parents=True, exist_ok=True)
    previous = read_json(study_dir / STUDY_FILE)
    if previous is not None and previous.get("format") != STUDY_FORMAT:
        raise StudyError(f"{study_dir / STUDY_FILE}: written by another version of luna-balance; "
                         "use another --name or delete the directory")
    # the plan first: a folder with it is a study (analysis/study/lock.py), so a study stopped here is resumed
    atomic_write(study_dir / STUDY_FILE, json.dumps(plan.to_json(), indent=2) + "\n")
    for variant, content in loaded:
        target = study_dir / variant.file
        if not target.is_file() or target.read_bytes() != content:
            atomic_write(target, content)
    remove_stale_temporaries(study_dir / RUNS_DIR)

    game_data = {BASE_VARIANT: load_game_data()}
    for variant in plan.variants:
        game_data[variant.name] = load_game_data(study_dir / variant.file)
    todo = [part for part in plan.parts
            if not part_is_finished(study_dir, plan, part, game_data[part.variant].digest, keep_games=keep_games)]
    kept = len(plan.parts) - len(todo)
    searches = plan.parity_tasks()
    searched = sum(parity_is_finished(study_dir, plan, task) for task in searches)
    if kept or searched:
        left = len(searches) - searched
        kept_searches = f" and {searched} of {len(searches)} parity searches" if searches else ""
        searches_left = f", {left} search{'es' if left != 1 else ''} to run" if searches else ""
        parts_left = f"{len(todo)} part{'s' if len(todo) != 1 else ''}"
        say(f"{study_dir}: keeping {kept} finished part(s){kept_searches}; {parts_left} to play{searches_left}")
    configs = {part.name: GameConfig(seats=parse_seats(part.seats), rounds=plan.rounds, start_bonus=plan.start_bonus,
                                     board=plan.board)
               for part in todo}
    engines = {part.name: part_engine(engine, game_data[part.variant], configs[part.name])
               for part in todo}
    refused = [(name, reason) for name, (_, reason) in engines.items() if reason]
    if refused:
        say(f"the {engine} engine cannot play {len(refused)} part(s) (e.g. {refused[0][0]}: {refused[0][1]}); "
            "they use the reference engine")
    for part in todo:  # a part's folder that lost its manifest (by hand) holds no finished run: play it again
        folder = study_dir / part.run
        if folder.is_dir() and not (folder / MANIFEST_FILE).exists():
            say(f"{folder}: no {MANIFEST_FILE}, so not a finished part; playing it again")
            shutil.rmtree(folder)
    try:
        with progress_bar(len(todo) * games, quiet, "study") as bar:
            for part in todo:
                bar.set_postfix_str(part.name, refresh=False)
                options = RunOptions(games=games, seed=seed, engine=engines[part.name][0], detail=part.detail,
                                     chunk_size=chunk_size(games, threads, configs[part.name], part.detail),
                                     workers=workers, overlay=part.overlay,
                                     backend=plan.backend, scheduler=plan.scheduler)
                record = summary_record(keep_games)
                reducer = PartReducer(configs[part.name], game_data[part.variant], record["pairs"])
                run_simulation(game_data[part.variant], configs[part.name], options, study_dir / part.run,
                               progress=bar.update, consumers=[reducer], write_games=keep_games,
                               extra_manifest={"study": {"name": plan.name, "part": part.name,
                                                         "variant": part.variant,
                                                         "overlay_digest": part.overlay_digest,
                                                         "summary": record}})
        if searches:
            with progress_bar(len(searches), quiet, "parity") as bar:
                run_parity(study_dir, plan, game_data, engine, workers, progress=bar.update)
        if plan.readings_games and not readings_are_finished(study_dir, plan, game_data[BASE_VARIANT]):
            with progress_bar(readings_games_to_play(plan, game_data[BASE_VARIANT]), quiet, "readings") as bar:
                run_readings(study_dir, plan, game_data[BASE_VARIANT], engine, progress=bar.update)
    except KeyboardInterrupt as stop:
        done = sum(part_is_finished(study_dir, plan, part) for part in plan.parts)
        searched = sum(parity_is_finished(study_dir, plan, task) for task in plan.parity_tasks())
        parity_note = f" and {searched} of {len(plan.parity_tasks())} parity searches" if plan.parity_tasks() else ""
        kept = f"{done} of {len(plan.parts)} parts{parity_note} are finished and kept in {study_dir}"
        interrupted = StudyInterrupted(f"interrupted{stop_cause(stop)}; {kept} - rerun the same command to simulate "
                                       "only the rest")
        interrupted.signum = getattr(stop, "signum", SIGINT)  # a stop signal's exit code (sim.cli)
        raise interrupted from None
    return render_study_dir(study_dir)
