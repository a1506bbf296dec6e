"""A study's strength-at-parity step (``luna-balance study --parity``).

For every profile the study plays (passive ones aside: they never win) and every level, base and
each variant, the strength at which that profile wins half its games against Luna, found by
:func:`analysis.parity.strength_at_parity` exactly as the ``parity`` command finds it (same seed as
the study's parts, ``plan.parity_games`` games per strength tried, the same games at every strength).

Each search is a :class:`analysis.study.plan.ParityTask`; its result is written whole to
``parity/<task>.json`` with the settings it was played with, so an interrupted study resumes only
the missing searches, and a search with other settings (games, seed, rounds, start bonus, data) is
played again, as a stale part is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.parity import WinRateCurve, strength_at_parity, strength_decimals
from analysis.render import FIXED_DECIMALS, atomic_write
from analysis.study.plan import (
    PARITY_TOLERANCE,
    ParityTask,
    StudyError,
    StudyPlan,
    expected_parity,
    parity_is_finished,
    read_json,
    rerun_command,
)
from sim.config import GameConfig, Seat
from sim.constants import DEFAULT_BOARD, DEFAULT_WORKERS
from sim.dispatch import ordered_results
from sim.gamedata import GameData

#: Columns of the study's ``strength_at_parity`` table.
PARITY_COLUMNS = ("variant", "profile", "level", "strength", "low", "high", "win_rate", "games", "evaluations",
                  "note")


def _matchup(task: ParityTask, plan: StudyPlan) -> GameConfig:
    """The seats and settings of a parity search's games, at the profile's default strength."""
    return GameConfig(seats=(Seat(kind="scripted", profile=task.profile), Seat(kind="luna", level=task.level)),
                      rounds=plan.rounds, start_bonus=plan.start_bonus, board=plan.board)


def search_engine(engine: str, data: GameData, task: ParityTask, plan: StudyPlan) -> str:
    """``engine``, or the reference engine when ``engine`` cannot play this matchup (as a part would)."""
    from sim.engines import engine_problems

    return "reference" if engine_problems(engine, data, _matchup(task, plan)) else engine


def search(data: GameData, profile: str, level: int, games: int, seed: int, engine: str, rounds: int,
           start_bonus: str, board: str = DEFAULT_BOARD) -> dict[str, Any]:
    """One strength-at-parity search; the :class:`analysis.parity.ParityResult` as a dict.

    A module-level function of plain arguments, so joblib and Dask can ship it to a worker.
    """
    curve = WinRateCurve(data, profile, level, games, seed, engine, rounds=rounds, start_bonus=start_bonus,
                         board=board)
    return asdict(strength_at_parity(curve, tolerance=PARITY_TOLERANCE))


def run_parity(study_dir: Path, plan: StudyPlan, game_data: Mapping[str, GameData], engine: str,
               workers: int = DEFAULT_WORKERS, progress: Callable[[int], None] | None = None) -> int:
    """Play the study's missing parity searches and store each result as it arrives.

    Parameters
    ----------
    study_dir
        The study directory.
    plan
        The study's plan (its ``backend`` and ``scheduler`` say where the searches run).
    game_data
        Resolved data per variant name (``base`` included).
    engine
        The study's engine; a matchup it cannot play uses the reference engine.
    workers
        joblib processes (local backend) or Dask workers to use (default: all the cluster's threads).
    progress
        Called with 1 after each finished search.

    Returns
    -------
    int
        The number of searches played (those already finished are kept).
    """
    todo = [task for task in plan.parity_tasks()
            if not parity_is_finished(study_dir, plan, task, game_data[task.variant].digest)]
    engines = [search_engine(engine, game_data[task.variant], task, plan) for task in todo]
    calls = [(game_data[task.variant], task.profile, task.level, plan.parity_games, plan.seed, task_engine,
              plan.rounds, plan.start_bonus, plan.board) for task, task_engine in zip(todo, engines, strict=True)]
    def compile_once() -> None:  # the searches' workers load the engine compiled here (sim.engines)
        from sim.engines import compile_before_workers

        for task, task_engine in zip(todo, engines, strict=True):
            compile_before_workers(task_engine, game_data[task.variant], _matchup(task, plan))

    results = ordered_results(search, calls, workers, plan.backend, plan.scheduler, before_workers=compile_once)
    for task, task_engine, result in zip(todo, engines, results, strict=True):
        stored = {"settings": expected_parity(plan, task), "data_digest": game_data[task.variant].digest,
                  "engine": task_engine, "result": result}
        atomic_write(study_dir / task.file, json.dumps(stored, indent=2) + "\n")
        if progress is not None:
            progress(1)
    return len(todo)


def parity_frame(study_dir: str | Path, plan: StudyPlan) -> pd.DataFrame:
    """The study's stored parity results as one table (:data:`PARITY_COLUMNS`), empty without ``--parity``.

    Raises
    ------
    StudyError
        When a search has no stored result with the plan's settings (the study was interrupted).
    """
    root = Path(study_dir)
    rows = []
    for task in plan.parity_tasks():
        if not parity_is_finished(root, plan, task):
            raise StudyError(f"{root}: the strength-at-parity search {task.name} is not finished; rerun: "
                             f"{rerun_command(plan, root)}")
        stored = read_json(root / task.file) or {}
        result = stored["result"]
        rows.append({"variant": task.variant, "profile": task.profile, "note": "", **result})
    table = pd.DataFrame(rows, columns=list(PARITY_COLUMNS))
    # a CSV writes the NaN, inf and 0 of a parity not reached as they are; the note says why
    table = table.astype({"strength": "float64", "low": "float64", "high": "float64", "note": "object"})
    decimals = strength_decimals(PARITY_TOLERANCE)  # what the bisection settles, in every row alike
    table.attrs[FIXED_DECIMALS] = {column: decimals for column in ("strength", "low", "high")}
    return table
