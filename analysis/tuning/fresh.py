"""The tuned data on fresh games: each tuned level measured again, and the levels around it, in order.

A search picks the candidate closest to its target *on the games it raced*, so its winner's value on
those games leans toward the target (a QA pass: a target out of reach reported 0.8966 [0.8879, 0.9047]
after the search, and 0.8852 on other games). The tuner therefore measures every tuned level once more
on games the search never played: games ``games .. 2 * games - 1`` of the same seed. Its verdict,
``within`` or ``outside``, is that measure's.

Moving one level can put it past its neighbour (two goals pulling levels 4 and 5 past each other), and
card numbers change every level at once. :func:`ladder_check` measures, on the same fresh games, each
tuned level's neighbours with the tuned data (every level when a card moved, before and after) and
flags each pair of adjacent levels whose values are not increasing: every metric the tuner knows grows
with Luna's difficulty (her win rate, her mean score, the strength a profile needs to hold her even).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from analysis.tuning.evaluate import Candidates, metric_evaluator
from analysis.tuning.parameters import luna_with
from analysis.tuning.search import Measure
from analysis.tuning.targets import Goal
from sim.config import LEVELS


@dataclass(frozen=True)
class LevelCheck:
    """One level's metric on the fresh games, with the tuned data (and with the starting data, when cards moved)."""

    level: int
    metric: str  # the metric's label
    tuned: bool  # whether the tuner moved this level's own numbers
    after: Measure
    before: Measure | None  # None: the level's data did not change, or only its own numbers (measured by the search)


@dataclass(frozen=True)
class OrderProblem:
    """Two adjacent levels whose metric does not increase: ``lower``'s value is at or above ``higher``'s."""

    metric: str
    lower: LevelCheck
    higher: LevelCheck

    def sentence(self) -> str:
        """The problem in words."""
        return (f"level {self.lower.level} ({self.lower.after.value:.4g}) is at or above level {self.higher.level} "
                f"({self.higher.after.value:.4g}) in {self.metric} on fresh games: the levels are out of order")


def fresh_measure(goal: Goal, overlay: Mapping[str, Any], raw_luna: Mapping[str, Any], games: int, seed: int,
                  engine: str) -> Measure:
    """``goal``'s metric at its level with the data of ``overlay`` (``raw_luna``: Luna's raw data with it), on
    games ``games .. 2 * games - 1`` of ``seed``: games the search, which plays ``0 .. games - 1``, never played."""
    return metric_evaluator(goal, Candidates((), overlay, raw_luna), seed, engine, first_game=games)((), games)


def ladder_check(goals: Sequence[Goal], fresh: Mapping[int, Measure], start_overlay: Mapping[str, Any],
                 tuned_overlay: Mapping[str, Any], cards_moved: bool, games: int, seed: int,
                 engine: str) -> tuple[LevelCheck, ...]:
    """Each goal's level and its neighbours on the fresh games, per metric (every level when ``cards_moved``).

    Parameters
    ----------
    goals
        The tuning's goals; those with free parameters were tuned.
    fresh
        Each tuned goal's level -> its metric on the fresh games with the tuned data (reused, not replayed).
    start_overlay, tuned_overlay
        The overlays of the starting and the tuned data.
    cards_moved
        Whether a card number moved: then every level changed, and each is measured before and after.
    games, seed, engine
        As the tuning's.

    Returns
    -------
    tuple of LevelCheck
        Ordered by metric (in the goals' order), then level.
    """
    tuned_raw, start_raw = luna_with(tuned_overlay), luna_with(start_overlay)
    by_metric: dict[str, tuple[Goal, dict[int, Goal]]] = {}
    for goal in goals:
        template, of_level = by_metric.setdefault(goal.metric.label, (goal, {}))
        of_level[goal.level] = goal
    checks = []
    for label, (template, of_level) in by_metric.items():
        wanted = set(LEVELS) if cards_moved else {near for goal in of_level.values()
                                                  for near in (goal.level - 1, goal.level, goal.level + 1)
                                                  if near in LEVELS}
        for level in sorted(wanted):
            goal = of_level.get(level, replace(template, level=level, target=None, free=()))
            tuned = bool(goal.free)
            after = fresh[level] if tuned and level in fresh else \
                fresh_measure(goal, tuned_overlay, tuned_raw, games, seed, engine)
            before = fresh_measure(goal, start_overlay, start_raw, games, seed, engine) if cards_moved else None
            checks.append(LevelCheck(level, label, tuned, after, before))
    return tuple(checks)


def order_problems(checks: Sequence[LevelCheck]) -> list[OrderProblem]:
    """Each pair of adjacent levels of one metric whose value does not increase with the level."""
    problems = []
    for lower, higher in itertools.pairwise(checks):
        if lower.metric == higher.metric and higher.level == lower.level + 1 and \
                lower.after.value >= higher.after.value:
            problems.append(OrderProblem(lower.metric, lower, higher))
    return problems
