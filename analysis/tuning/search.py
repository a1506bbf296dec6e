"""The tuner's search: coordinate moves over integer parameters, each move decided by a race.

A level's free parameters (token positions, start positions, grade-2 use, card numbers) are
integers in a box, and every point of the box is one candidate level. The search walks that box
from the starting point: at each step it *races* the current point against its neighbours (one
parameter moved by ±1 or ±2, within the bounds and valid), moves to the race's winner, and stops
when the current point wins (no neighbour is closer to the target) or after :data:`MAX_MOVES` moves.

Why a race, and why it is sound here:

- **Common random numbers.** Every candidate plays the same games (same seed, game numbers
  ``0 .. n-1``), so two candidates differ only through the parameters, never through the shuffles.
  Their per-game results are strongly correlated, and the *paired* difference between two
  candidates has a far smaller variance than either measurement: neighbours that differ by a
  fraction of a point are told apart with a few thousand games instead of hundreds of thousands.
- **Games go where candidates are close** (racing, as in Maron & Moore's Hoeffding races and
  successive halving): a race plays every surviving candidate on a growing prefix of the same games
  (:func:`stage_games`: ``games/16, games/8, ..., games``) and after each stage drops every
  candidate *clearly worse* than the stage's best, so a far-off neighbour costs ``games/16`` games,
  and only the candidates that cannot be told apart are played to the full count. Far-off means far:
  with the best near the target, a rival's paired difference must be about twice the best's
  :data:`DROP_Z` margin and more (some 17 win-rate points at 250 games, 5 at 4,000), while a token
  moved by 1 or 2 shifts Luna's win rate by 1-4 points. So a race near its target rarely drops anyone
  (``tune examples/tune_level4.toml --games 4000``: none of 160 evaluations) and plays every candidate
  to the full count; drops save games when the target is far from the current level.
- **Clearly worse** is about distances to the target, ``|m - target|``, and two things decide it.
  The rival's value lies at ``m_best + delta``; ``delta``, its paired difference from the stage's best,
  is known precisely from the common games. The rival is farther from the target exactly when the
  target lies on the best's side of the midpoint ``m_best + delta / 2``; where that midpoint lies
  depends on the best's own level, which the shared games do not pin down (a run of lucky games moves
  every candidate alike). So for the per-game metrics (Luna's win rate, her mean score) a rival is
  dropped when the :data:`DROP_Z` interval of ``delta`` excludes zero and the target lies on the best's
  side of the midpoint for every ``m_best`` and ``delta`` in their intervals. A rival far from the
  target goes after the first stage; two neighbours on either side of the target stay until their
  levels are measured well enough, which is where the games are needed. :data:`DROP_Z` is a two-sided
  99 % quantile rather than 95 %: a race makes up to a few dozen comparisons, and losing the best
  candidate by chance would cost a move. A measure without per-game values (none of the tuner's races
  has one: a strength at parity is raced as a win rate, :func:`analysis.tuning.evaluate.parity_race`)
  is dropped when its interval's nearest point to the target is farther than the best's farthest
  point: conservative, it costs more games but never drops unfairly more.
- **Deterministic.** The same seed, target and start give the same games, races and answer; ties
  go to the earlier candidate, and the current point is listed first, so a tie never moves.
- **Never an invalid level.** Every neighbour passes the caller's ``valid`` check (data validation:
  tokens within the tracks, in order) before it is played; an invalid one is never evaluated.

A point already visited is never raced again, so the walk cannot cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sim.config import MIN_INTERVAL_GAMES
from sim.constants import DEFAULT_RUN_SEED

#: Games per candidate on a race's last stage (``tune --games``), and of the before and after measurements.
DEFAULT_TUNE_GAMES = 20_000
DEFAULT_TUNE_SEED = DEFAULT_RUN_SEED
#: Two-sided 99 % normal quantile used to drop a clearly worse candidate in a race.
DROP_Z = 2.5758293035489004
#: The stages of a race play ``games / 2**k`` games for k = STAGES-1 .. 0; a stage of fewer games is left out.
MIN_STAGE_GAMES = 250
STAGES = 5
#: Moves of one parameter tried from the current point (each with both signs).
STEPS = (1, 2)
#: The walk stops after this many moves even if a neighbour is still closer.
MAX_MOVES = 60

Point = tuple[int, ...]


@dataclass(frozen=True)
class Measure:
    """A candidate's metric on its first ``games`` games, with a 95 % interval.

    ``per_game`` holds the per-game values whose mean is ``value`` (Luna's win share or score), for
    paired comparisons; it is None for a metric that has none (the strength at parity).
    """

    value: float
    low: float
    high: float
    games: int
    per_game: np.ndarray | None = None


Evaluate = Callable[[Point, int], Measure]


@dataclass(frozen=True)
class Trial:
    """One evaluation in a race: a row of ``tuning.csv``.

    ``status`` is ``dropped`` (clearly worse after this stage), ``kept`` (still in the race) or
    ``chosen`` (the race's winner, on its last stage).
    """

    race: int
    stage: int
    point: Point
    measure: Measure
    status: str


@dataclass(frozen=True)
class SearchResult:
    """Where the walk started and ended, with both measured on the full game count, and every trial."""

    start: Point
    best: Point
    start_measure: Measure
    best_measure: Measure
    trials: tuple[Trial, ...]
    moves: int


def stage_games(games: int, stages: int = STAGES, minimum: int = MIN_STAGE_GAMES) -> list[int]:
    """The growing game counts of a race's stages, ending at ``games`` (each at least ``minimum``).

    Examples
    --------
    >>> stage_games(20000)
    [1250, 2500, 5000, 10000, 20000]
    >>> stage_games(600)
    [300, 600]
    >>> stage_games(100)
    [100]
    """
    counts = sorted({math.ceil(games / 2**k) for k in range(stages)})
    return [count for count in counts if count >= minimum or count == games]


def distance(measure: Measure, target: float) -> float:
    """How far a measured metric is from the target."""
    return abs(measure.value - target)


def _interval_distances(measure: Measure, target: float) -> tuple[float, float]:
    """The nearest and farthest distance to the target of any value in the measure's interval."""
    far = max(abs(measure.low - target), abs(measure.high - target))
    near = 0.0 if measure.low <= target <= measure.high else min(abs(measure.low - target),
                                                                   abs(measure.high - target))
    return near, far


def clearly_worse(rival: Measure, best: Measure, target: float, z: float = DROP_Z) -> bool:
    """Whether ``rival`` is farther from ``target`` than ``best`` beyond doubt (see the module docstring)."""
    if rival.per_game is None or best.per_game is None:
        return _interval_distances(rival, target)[0] > _interval_distances(best, target)[1]
    if len(rival.per_game) != len(best.per_game):
        raise ValueError("clearly_worse: the two measures were taken on different games")
    games = len(rival.per_game)
    if games < MIN_INTERVAL_GAMES:
        return False
    paired = rival.per_game - best.per_game
    delta = float(np.mean(paired))
    delta_error = z * float(np.std(paired, ddof=1)) / math.sqrt(games)
    best_error = z * float(np.std(best.per_game, ddof=1)) / math.sqrt(games)
    if delta - delta_error > 0.0:  # the rival lies above the best: worse while the target is below the midpoint
        return target < (best.value - best_error) + (delta - delta_error) / 2
    if delta + delta_error < 0.0:
        return target > (best.value + best_error) + (delta + delta_error) / 2
    return False


def race(candidates: Sequence[Point], evaluate: Evaluate, target: float, schedule: Sequence[int],
         number: int = 0) -> tuple[Point, list[Trial]]:
    """Race ``candidates`` over the stages ``schedule``; return the winner and every trial.

    Parameters
    ----------
    candidates
        Distinct points, the current one first (ties go to the earlier candidate).
    evaluate
        ``evaluate(point, games)``: the metric on games ``0 .. games-1`` (common random numbers).
    target
        The value the metric should reach.
    schedule
        Increasing game counts (:func:`stage_games`).
    number
        The race's number, recorded in the trials.

    Returns
    -------
    tuple
        The winner (closest to the target on the last stage it reached) and the trials in order.
    """
    alive = list(candidates)
    trials: list[Trial] = []
    for stage, games in enumerate(schedule):
        measures = {point: evaluate(point, games) for point in alive}
        best = min(alive, key=lambda point: distance(measures[point], target))  # min keeps the first of ties
        dropped = {point for point in alive if point != best and clearly_worse(measures[point], measures[best], target)}
        last = stage == len(schedule) - 1 or len(alive) - len(dropped) == 1
        for point in alive:
            status = "dropped" if point in dropped else "chosen" if last and point == best else "kept"
            trials.append(Trial(number, stage, point, measures[point], status))
        alive = [point for point in alive if point not in dropped]
        if last:
            return best, trials
    raise ValueError("race: the schedule is empty")


def neighbours(point: Point, lows: Sequence[int], highs: Sequence[int], valid: Callable[[Point], bool],
               skip: set[Point] | frozenset[Point] = frozenset(), steps: Sequence[int] = STEPS) -> list[Point]:
    """The points one parameter away (by each of ``steps``, both signs), within bounds, valid and not in ``skip``.

    Smaller steps come first, so a tie between a small and a large move goes to the small one.
    """
    found = []
    for step in steps:
        for index in range(len(point)):
            for signed in (step, -step):
                moved = point[index] + signed
                if not lows[index] <= moved <= highs[index]:
                    continue
                candidate = (*point[:index], moved, *point[index + 1:])
                if candidate not in skip and candidate not in found and valid(candidate):
                    found.append(candidate)
    return found


def coordinate_search(start: Point, lows: Sequence[int], highs: Sequence[int], evaluate: Evaluate, target: float,
                      games: int, valid: Callable[[Point], bool], steps: Sequence[int] = STEPS,
                      max_moves: int = MAX_MOVES,
                      on_race: Callable[[int, Point, Measure], None] | None = None) -> SearchResult:
    """Walk from ``start`` to a point whose metric is closest to ``target`` (module docstring).

    Parameters
    ----------
    start
        The starting values of the free parameters (must be valid and within the bounds).
    lows, highs
        Inclusive bounds per parameter.
    evaluate
        ``evaluate(point, games)`` -> :class:`Measure` on games ``0 .. games-1``.
    target
        The value the metric should reach.
    games
        The full game count of a race's last stage (and of the final measurements).
    valid
        Whether a point makes valid data; an invalid point is never evaluated.
    steps
        Moves of one parameter tried from the current point.
    max_moves
        Safety stop for the walk.
    on_race
        Called after each race with its number, its winner and the winner's last measure.

    Returns
    -------
    SearchResult
        Start and end points, both measured on ``games`` games, and every trial of every race.
    """
    if not valid(start):
        raise ValueError("coordinate_search: the starting point is not valid")
    schedule = stage_games(games)
    point = tuple(start)
    visited = {point}
    trials: list[Trial] = []
    moves = 0
    while moves < max_moves:
        rivals = neighbours(point, lows, highs, valid, visited, steps)
        if not rivals:
            break
        winner, raced = race([point, *rivals], evaluate, target, schedule, number=moves)
        trials += raced
        visited.update(rivals)
        if on_race is not None:
            on_race(moves, winner, next(trial.measure for trial in reversed(raced) if trial.point == winner))
        if winner == point:
            break
        point = winner
        moves += 1
    return SearchResult(start=tuple(start), best=point, start_measure=evaluate(tuple(start), games),
                        best_measure=evaluate(point, games), trials=tuple(trials), moves=moves)
