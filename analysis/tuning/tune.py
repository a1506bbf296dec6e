"""``luna-balance tune``: search each level's free parameters toward its target, in memory.

:func:`tune` runs the searches (:mod:`analysis.tuning.search`) on the metrics of
:mod:`analysis.tuning.evaluate`, level by level; a ladder first measures its ends to set its targets.
:func:`analysis.tuning.output.run_tune` adds the output directory around it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analysis.tuning.evaluate import Candidates, metric_evaluator, parity_race
from analysis.tuning.parameters import invalid_reason, shipped_luna
from analysis.tuning.search import (
    DEFAULT_TUNE_GAMES,
    DEFAULT_TUNE_SEED,
    Measure,
    Point,
    SearchResult,
    coordinate_search,
)
from analysis.tuning.targets import Goal, Targets, ladder_targets
from sim.config import check_count, check_seed
from sim.gamedata import OVERLAY_TABLES, DataError, load_game_data, merge_overlay, read_toml


@dataclass(frozen=True)
class GoalResult:
    """One level's outcome: its goal (with its target), where the search started and ended, and every trial."""

    goal: Goal
    names: tuple[str, ...]
    search: SearchResult
    race_target: float | None = None  # what the races compared (evaluate.parity_race), when not the goal's own
    race_label: str = ""

    @property
    def before(self) -> Measure:
        """The metric at the start, on the full game count."""
        return self.search.start_measure

    @property
    def after(self) -> Measure:
        """The metric of the tuned level, on the full game count."""
        return self.search.best_measure

    @property
    def met(self) -> bool:
        """Whether the tuned level's metric is within the tolerance of the target."""
        return self.goal.target is not None and abs(self.after.value - self.goal.target) <= self.goal.tolerance

    def moved(self) -> list[tuple[str, int, int]]:
        """The parameters that changed: (name, before, after)."""
        return [(name, start, best) for name, start, best in zip(self.names, self.search.start, self.search.best,
                                                                  strict=True) if start != best]


@dataclass(frozen=True)
class TuneResult:
    """Everything a tuning found: per level, and the overlay that makes the tuned data."""

    targets: Targets
    results: tuple[GoalResult, ...]
    overlay: dict[str, Any]  # the starting overlay with every tuned value: tuned.toml's tables
    games: int
    seed: int
    engine: str
    start_overlay: str | None


def start_data(overlay: str | Path | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The overlay the search starts from (``{}``: the shipped data) and Luna's raw data with it applied.

    Raises
    ------
    DataError
        When the overlay does not load (the same checks as ``--overlay`` anywhere).
    """
    if overlay is None:
        return {}, shipped_luna()
    load_game_data(overlay)  # every check, with the file's own file: field: problem lines
    raw = read_toml(Path(overlay))
    tables = {key: value for key, value in raw.items() if key in OVERLAY_TABLES}  # tuned.toml keeps every one
    return tables, merge_overlay(shipped_luna(), tables.get("luna", {}), "luna.")


def _search_goal(goal: Goal, start_overlay: Mapping[str, Any], raw_luna: Mapping[str, Any], games: int, seed: int,
                 engine: str, path: str, progress: Callable[[str], None] | None) -> GoalResult:
    names = tuple(free.name for free in goal.free)
    candidates = Candidates(names, start_overlay, raw_luna)
    evaluate = metric_evaluator(goal, candidates, seed, engine)
    start = tuple(free.start for free in goal.free)
    reason = invalid_reason(candidates.values(start), raw_luna)
    if reason is not None:
        raise DataError([f"{path}: levels.{goal.level}: the starting values cannot be tuned: {reason}"])
    if goal.target is None:
        raise ValueError("tune: a goal without a target")

    def said(race: int, winner: Point, measure: Measure) -> None:
        if progress is not None:
            changes = ", ".join(f"{name}={value}" for name, value, first in zip(names, winner, start, strict=True)
                                if value != first) or "the start"
            progress(f"level {goal.level}, race {race}: {changes} ({measure.value:.4g} on {measure.games} games)")

    lows, highs = [free.low for free in goal.free], [free.high for free in goal.free]
    if goal.metric.kind != "parity_strength":
        return GoalResult(goal, names, coordinate_search(start, lows, highs, evaluate, goal.target, games,
                                                         candidates.valid, on_race=said))
    race_evaluate, race_target, race_label = parity_race(goal, candidates, seed, engine)
    search = coordinate_search(start, lows, highs, race_evaluate, race_target, games, candidates.valid, on_race=said)
    # The races compared a stand-in (evaluate.parity_race): before and after are the bisected strengths.
    search = replace(search, start_measure=evaluate(search.start, games), best_measure=evaluate(search.best, games))
    return GoalResult(goal, names, search, race_target, race_label)


def _measured_only(goal: Goal, start_overlay: Mapping[str, Any], raw_luna: Mapping[str, Any], games: int, seed: int,
                   engine: str) -> Measure:
    return metric_evaluator(goal, Candidates((), start_overlay, raw_luna), seed, engine)((), games)


def tune(targets: Targets, start_overlay: Mapping[str, Any], raw_luna: Mapping[str, Any],
         games: int = DEFAULT_TUNE_GAMES, seed: int = DEFAULT_TUNE_SEED, engine: str = "numba",
         log: Callable[[str], None] | None = None, overlay_source: str | None = None,
         progress: Callable[[str], None] | None = None) -> TuneResult:
    """Search every goal of a target file; a ladder first measures its ends to set its targets.

    Parameters
    ----------
    targets
        The checked target file (:func:`analysis.tuning.targets.read_targets`).
    start_overlay, raw_luna
        The starting overlay and Luna's raw data with it applied (:func:`start_data`).
    games
        Games per candidate on a race's last stage; the before and after values are measured on these.
    seed
        The seed of every game played (common random numbers across candidates).
    engine
        ``numba`` or ``reference``.
    log
        Called with a line per finished level.
    progress
        Called with a line per race (its winner so far).
    overlay_source
        The starting overlay's file, recorded in the result.

    Returns
    -------
    TuneResult
    """
    games = check_count(games, "games", 2)  # one game's interval is [-inf, inf]: the races could not rank anything
    seed = check_seed(seed)
    goals = targets.goals
    measured: dict[int, Measure] = {}
    if targets.ladder:  # its ends and fixed levels first: the moving levels' targets are steps between them
        measured = {goal.level: _measured_only(goal, start_overlay, raw_luna, games, seed, engine)
                    for goal in goals if not goal.free}
        goals = ladder_targets(goals, {level: measure.value for level, measure in measured.items()})
    results = []
    for goal in goals:
        if goal.free:
            result = _search_goal(goal, start_overlay, raw_luna, games, seed, engine, targets.path, progress)
        else:  # a ladder's end or fixed level: measured, never moved
            measure = measured.get(goal.level) or _measured_only(goal, start_overlay, raw_luna, games, seed, engine)
            result = GoalResult(goal, (), SearchResult((), (), measure, measure, (), 0))
        results.append(result)
        if log is not None:
            log(_summary_line(result))
    tuned_values = {name: value for result in results for name, value in zip(result.names, result.search.best,
                                                                               strict=True)}
    overlay = Candidates(tuple(tuned_values), start_overlay, raw_luna).overlay(tuple(tuned_values.values()))
    return TuneResult(targets, tuple(results), overlay, games, seed, engine, overlay_source)


def _summary_line(result: GoalResult) -> str:
    goal = result.goal
    moved = ", ".join(f"{name} {before}->{after}" for name, before, after in result.moved()) or "nothing moved"
    verdict = "within" if result.met else "outside"
    if not goal.free:
        return f"level {goal.level}: {goal.metric.label} {result.after.value:.4g} (measured; not moved)"
    return (f"level {goal.level}: {goal.metric.label} {result.before.value:.4g} -> {result.after.value:.4g} "
            f"[{result.after.low:.4g}, {result.after.high:.4g}], target {goal.target:.4g} ± {goal.tolerance:g} "
            f"({verdict}); {moved}; {len(result.search.trials)} evaluations, "
            f"{result.search.moves} move{'' if result.search.moves == 1 else 's'}")
