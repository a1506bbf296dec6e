"""Measuring a candidate level: the data it makes, and its metric on the first n games (common random numbers).

A goal's candidates are points: the values of its free parameters, in the goal's order.
:class:`Candidates` turns a point into an overlay (the starting overlay with the point's values) and
validated data, each built once. :func:`metric_evaluator` returns a goal's ``evaluate(point, games)``
(:func:`parity_race`: what the races of a strength at parity compare instead). Every candidate plays
games ``0 .. games-1`` of one seed, so candidates differ only by their parameters, and the games
already played for a candidate are kept and extended, never replayed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from analysis.intervals import t95, wilson_interval
from analysis.parity import HIGHEST_STRENGTH, LOWEST_STRENGTH, PARITY_WIN_SHARE, WinRateCurve, strength_at_parity
from analysis.tuning.options import METRIC_COLUMNS
from analysis.tuning.parameters import invalid_reason, overlay_for, variant_data
from analysis.tuning.search import Measure, Point
from analysis.tuning.targets import PARITY_METRIC, Goal
from sim.config import Seat
from sim.gamedata import GameData, load_game_data, merge_overlay
from sim.play import play

#: Bisection width of a strength at parity during tuning: finer than the study's (0.01), so that
#: neighbouring candidates are not rounded onto the same strength.
TUNE_PARITY_TOLERANCE = 0.0025


class Candidates:
    """The candidates of one goal: overlay, data and validity of each point, each built once.

    Parameters
    ----------
    names
        The free parameters, in the order of a point's values.
    start_overlay
        The overlay the search starts from (``{}`` for the shipped data).
    raw_luna
        Luna's raw data with ``start_overlay`` applied: what a point's values are put into.
    """

    def __init__(self, names: Sequence[str], start_overlay: Mapping[str, Any], raw_luna: Mapping[str, Any]) -> None:
        self.names = tuple(names)
        self.start_overlay = dict(start_overlay)
        self.raw_luna = raw_luna
        self._data: dict[Point, GameData] = {}
        self._start: GameData | None = None

    def values(self, point: Point) -> dict[str, int]:
        """The point as parameter name -> value."""
        return dict(zip(self.names, map(int, point), strict=True))

    def overlay(self, point: Point) -> dict[str, Any]:
        """The starting overlay with the point's values put in."""
        if not self.names:
            return dict(self.start_overlay)
        return merge_overlay(self.start_overlay, overlay_for(self.values(point), self.raw_luna), new_ids=True)

    def valid(self, point: Point) -> bool:
        """Whether the point makes valid data (tokens on the tracks, in order; every data check)."""
        return not self.names or invalid_reason(self.values(point), self.raw_luna) is None

    def data(self, point: Point) -> GameData:
        """The point's validated data."""
        if point not in self._data:
            if self._start is None:
                self._start = load_game_data(self.start_overlay or None, label="<start>")
            label = ", ".join(f"{name}={value}" for name, value in self.values(point).items())
            self._data[point] = variant_data(self.values(point), self._start, self.raw_luna, f"<candidate {label}>") \
                if self.names else self._start
        return self._data[point]


class PerGameEvaluator:
    """One seat's win share or total score per game, kept per point and extended as a race asks for more games.

    Parameters
    ----------
    seats
        The seats of every game.
    column
        ``won`` (a Wilson interval) or ``score_total`` (a Student-t interval of the mean).
    seat
        Whose column: None for Luna's seat.
    candidates, seed, engine
        The goal's candidates, the seed of every game, the engine.
    first_game
        The first game played: 0 for the search, the search's game count for a check on fresh games.
    """

    def __init__(self, seats: Sequence[Seat], column: str, seat: int | None, candidates: Candidates, seed: int,
                 engine: str, first_game: int = 0) -> None:
        self.seats, self.column, self.seat = tuple(seats), column, seat
        self.candidates, self.seed, self.engine, self.first_game = candidates, seed, engine, first_game
        self.played: dict[Point, np.ndarray] = {}

    def __call__(self, point: Point, games: int) -> Measure:
        have = self.played.get(point, np.empty(0))
        if len(have) < games:
            more = play(self.seats, games - len(have), self.seed, data=self.candidates.data(point),
                        engine=self.engine, first_game=self.first_game + len(have))
            have = np.concatenate([have, more.column(self.column, self.seat).astype(np.float64)])
            self.played[point] = have
        values = have[:games]
        mean = float(values.mean())
        if self.column == "won":
            low, high = wilson_interval(float(values.sum()), games)
        else:
            half = t95(games - 1) * float(values.std(ddof=1)) / math.sqrt(games) if games > 1 else math.inf
            low, high = mean - half, mean + half
        return Measure(mean, float(low), float(high), games, values)


class ParityEvaluator:
    """The strength at which a profile wins half its games against the level (:mod:`analysis.parity`)."""

    def __init__(self, goal: Goal, candidates: Candidates, seed: int, engine: str, first_game: int = 0) -> None:
        self.goal, self.candidates, self.seed, self.engine = goal, candidates, seed, engine
        self.first_game = first_game
        self.found: dict[tuple[Point, int], Measure] = {}

    def __call__(self, point: Point, games: int) -> Measure:
        if (point, games) not in self.found:
            curve = WinRateCurve(self.candidates.data(point), self.goal.metric.profile, self.goal.level, games,
                                 self.seed, self.engine, first_game=self.first_game)
            result = strength_at_parity(curve, tolerance=TUNE_PARITY_TOLERANCE)
            value = result.strength
            if math.isnan(value):  # not reached: the end of the range tried, with the interval open beyond it
                value = HIGHEST_STRENGTH if math.isinf(result.high) else LOWEST_STRENGTH
            self.found[(point, games)] = Measure(value, result.low, result.high, games)
        return self.found[(point, games)]


def metric_evaluator(goal: Goal, candidates: Candidates, seed: int, engine: str,
                     first_game: int = 0) -> Callable[[Point, int], Measure]:
    """The ``evaluate(point, games)`` of a goal's metric, on games ``first_game ..`` of ``seed``."""
    if goal.metric.kind == PARITY_METRIC:
        return ParityEvaluator(goal, candidates, seed, engine, first_game)
    return PerGameEvaluator(goal.metric.seats(goal.level), METRIC_COLUMNS[goal.metric.kind], None, candidates,
                            seed, engine, first_game)


def parity_race(goal: Goal, candidates: Candidates, seed: int,
                engine: str) -> tuple[Callable[[Point, int], Measure], float, str]:
    """What the races of a strength-at-parity goal compare: ``(evaluate, target, label)``.

    For a target strength ``t``: the profile's win share at strength ``t``, with target 1/2. The profile
    wins half its games at strength ``t`` exactly when ``t`` is its strength at parity (its win rate rises
    with strength, which the parity search assumes too). That replaces a bisection of some 30 plays per
    candidate by one, and gives the race per-game values to pair; the levels' before and after values
    are still the bisected strengths.
    """
    strength = float(goal.target if goal.target is not None else 1.0)
    seats = (Seat(kind="scripted", profile=goal.metric.profile, strength=strength),
             Seat(kind="luna", level=goal.level))
    label = f"{goal.metric.profile}'s win rate at strength {strength:.4g} (1/2 at parity)"
    return PerGameEvaluator(seats, "won", 0, candidates, seed, engine), PARITY_WIN_SHARE, label
