"""``luna-balance tune``: search each level's free parameters toward its target, in memory.

:func:`tune` runs the searches (:mod:`analysis.tuning.search`) on the metrics of
:mod:`analysis.tuning.evaluate`, level by level; a ladder first measures its ends to set its targets. Each tuned
level is then measured on fresh games, which decide its verdict, and the levels around it are checked for order
(:mod:`analysis.tuning.fresh`).
:func:`analysis.tuning.output.run_tune` adds the output directory around it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analysis.tuning.evaluate import Candidates, metric_evaluator, parity_race
from analysis.tuning.fresh import LevelCheck, OrderProblem, ladder_check, order_problems
from analysis.tuning.parameters import invalid_reason, luna_with, shipped_luna
from analysis.tuning.search import (
    DEFAULT_TUNE_GAMES,
    DEFAULT_TUNE_SEED,
    Measure,
    Point,
    SearchResult,
    coordinate_search,
)
from analysis.tuning.targets import PARITY_METRIC, Goal, Targets, ladder_targets
from sim.config import MIN_INTERVAL_GAMES, check_games, check_seed
from sim.engines import DEFAULT_ENGINE
from sim.gamedata import OVERLAY_TABLES, DataError, load_game_data, read_toml


@dataclass(frozen=True)
class GoalResult:
    """One level's outcome: its goal (with its target), where the search started and ended, and every trial."""

    goal: Goal
    names: tuple[str, ...]
    search: SearchResult
    race_target: float | None = None  # what the races compared (evaluate.parity_race), when not the goal's own
    race_label: str = ""
    fresh: Measure | None = None  # the tuned level on games the search never played (analysis.tuning.fresh)

    @property
    def before(self) -> Measure:
        """The metric at the start, on the full game count."""
        return self.search.start_measure

    @property
    def after(self) -> Measure:
        """The metric of the tuned level, on the full game count."""
        return self.search.best_measure

    @property
    def verdict_measure(self) -> Measure:
        """What the verdict reads: the fresh games' measure, else (a level only measured) the search's."""
        return self.after if self.fresh is None else self.fresh

    def _within(self, value: float) -> bool:
        return self.goal.target is not None and abs(value - self.goal.target) <= self.goal.tolerance

    @property
    def met(self) -> bool:
        """Whether the tuned level's metric, on fresh games, is within the tolerance of the target."""
        return self._within(self.verdict_measure.value)

    @property
    def confirmed(self) -> bool:
        """Whether the whole 95 % interval of :attr:`verdict_measure` lies within the tolerance of the target."""
        return self._within(self.verdict_measure.low) and self._within(self.verdict_measure.high)

    @property
    def started_within(self) -> bool:
        """Whether the starting level was already within the tolerance (on the search's games)."""
        return self._within(self.before.value)

    def notes(self) -> list[str]:
        """What a designer should know beside the verdict, one clause each."""
        if not self.goal.free:
            return []
        notes = []
        if self.started_within:
            notes.append("the start was within the tolerance already")
        measure, target, tolerance = self.verdict_measure, self.goal.target, self.goal.tolerance
        reaches_band = target is not None and measure.low <= target + tolerance and measure.high >= target - tolerance
        if not self.met and not reaches_band:
            notes.append("the closest level these moves reach: the target may be out of these parameters' reach")
        elif not self.met:  # a QA pass: at 1,000 games 29 of 100 such lines were truly within tolerance
            notes.append("inconclusive: the interval reaches into the tolerance; more --games would tell")
        elif not self.confirmed:
            notes.append("the interval is wider than the tolerance: more --games would confirm it")
        if any(name.startswith("cards.") for name, _, _ in self.moved()):
            notes.append("card numbers are shared by every level: every level changed (the report's order table)")
        return notes

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
    checks: tuple[LevelCheck, ...] = ()  # the levels around the tuned ones on fresh games (analysis.tuning.fresh)

    @property
    def order_problems(self) -> list[OrderProblem]:
        """Adjacent levels out of order on the fresh games."""
        return order_problems(self.checks)


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
    return tables, luna_with(tables)


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
    fresh = metric_evaluator(goal, candidates, seed, engine, first_game=games)  # games the search never plays
    if goal.metric.kind != PARITY_METRIC:
        search = coordinate_search(start, lows, highs, evaluate, goal.target, games, candidates.valid, on_race=said)
        return GoalResult(goal, names, search, fresh=fresh(search.best, games))
    race_evaluate, race_target, race_label = parity_race(goal, candidates, seed, engine)
    search = coordinate_search(start, lows, highs, race_evaluate, race_target, games, candidates.valid, on_race=said)
    # The races compared a stand-in (evaluate.parity_race): before and after are the bisected strengths.
    search = replace(search, start_measure=evaluate(search.start, games), best_measure=evaluate(search.best, games))
    return GoalResult(goal, names, search, race_target, race_label, fresh=fresh(search.best, games))


def _measured_only(goal: Goal, start_overlay: Mapping[str, Any], raw_luna: Mapping[str, Any], games: int, seed: int,
                   engine: str) -> Measure:
    return metric_evaluator(goal, Candidates((), start_overlay, raw_luna), seed, engine)((), games)


def tune(targets: Targets, start_overlay: Mapping[str, Any], raw_luna: Mapping[str, Any],
         games: int = DEFAULT_TUNE_GAMES, seed: int = DEFAULT_TUNE_SEED, engine: str = DEFAULT_ENGINE,
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
        Games per candidate on a race's last stage; the before and after values are measured on these, and each
        tuned level once more on as many fresh games (``games .. 2 * games - 1``).
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
    # one game's interval is [-inf, inf]: the races could not rank anything
    games = check_games(games, least=MIN_INTERVAL_GAMES)
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
            log(summary_line(result))
    # only what moved: a card's unchanged numbers written out would pin them (and bury the change) in tuned.toml
    tuned_values = {name: after for result in results for name, _, after in result.moved()}
    overlay = Candidates(tuple(tuned_values), start_overlay, raw_luna).overlay(tuple(tuned_values.values()))
    checks = ladder_check(goals, {result.goal.level: result.fresh for result in results if result.fresh is not None},
                          start_overlay, overlay, any(name.startswith("cards.") for name in tuned_values), games,
                          seed, engine)
    if log is not None:
        for problem in order_problems(checks):
            log(f"warning: {problem.sentence()}")
    return TuneResult(targets, tuple(results), overlay, games, seed, engine, overlay_source, checks)


def _interval(measure: Measure) -> str:
    return f"{measure.value:.4g} [{measure.low:.4g}, {measure.high:.4g}]"


def summary_line(result: GoalResult) -> str:
    """A finished level in one line: before and after on the search's games, the fresh games' measure and the
    verdict it gives, what moved, and the notes (:meth:`GoalResult.notes`)."""
    goal = result.goal
    moved = ", ".join(f"{name} {before}->{after}" for name, before, after in result.moved()) or "nothing moved"
    verdict = "within" if result.met else "outside"
    if not goal.free:
        return f"level {goal.level}: {goal.metric.label} {result.after.value:.4g} (measured; not moved)"
    notes = "".join(f"; {note}" for note in result.notes())
    return (f"level {goal.level}: {goal.metric.label} {result.before.value:.4g} -> {_interval(result.after)} on the "
            f"search's games, {_interval(result.verdict_measure)} on fresh games; target {goal.target:.4g} ± "
            f"{goal.tolerance:g} ({verdict}){notes}; {moved}; {len(result.search.trials)} evaluations, "
            f"{result.search.moves} move{'' if result.search.moves == 1 else 's'}")
