"""Strength at parity: the profile strength at which a scripted player wins half its games against Luna.

For one level, ``win_rate(s)`` is the scripted seat's win share over the same games (seed and game
indices fixed: common random numbers), played with strength ``s``. Because every strength replays
the same games, ``win_rate`` is a deterministic, nearly monotone function of ``s``, and bisection
finds where it crosses 1/2. The 95% interval inverts the pointwise Wilson interval: it runs from the
strength whose win rate's upper Wilson bound reaches 1/2 to the strength whose lower bound does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.stats import wilson_interval
from analysis.study.plan import PARITY_TOLERANCE
from sim.config import DEFAULT_START_BONUS, GameConfig, Seat
from sim.constants import DEFAULT_BOARD, ROUNDS
from sim.engines import engine_function
from sim.gamedata import GameData


@dataclass(frozen=True)
class ParityResult:
    level: int
    strength: float  # where the win rate crosses 1/2
    low: float  # 95% interval of that strength
    high: float
    win_rate: float  # measured at ``strength``
    games: int
    evaluations: int  # distinct strengths played


class WinRateCurve:
    """Win share of one scripted profile against one Luna level, as a function of strength (memoised)."""

    def __init__(self, data: GameData, profile: str, level: int, games: int, seed: int, engine: str,
                 rounds: int = ROUNDS, start_bonus: str = DEFAULT_START_BONUS, board: str = DEFAULT_BOARD) -> None:
        self.data, self.profile, self.level = data, profile, level
        self.games, self.seed, self.rounds, self.start_bonus = games, seed, rounds, start_bonus
        self.board = board
        self.play = engine_function(engine)
        self.cache: dict[float, float] = {}

    def __call__(self, strength: float) -> float:
        strength = float(round(strength, 6))
        if strength not in self.cache:
            config = GameConfig(seats=(Seat(kind="scripted", profile=self.profile, strength=strength),
                                       Seat(kind="luna", level=self.level)),
                                rounds=self.rounds, start_bonus=self.start_bonus, board=self.board)
            chunk = self.play(self.data, config, self.seed, 0, self.games, False)
            self.cache[strength] = float(chunk.seats["won"][chunk.seats["seat"] == 0].mean())
        return self.cache[strength]

    def bounds(self, strength: float) -> tuple[float, float]:
        """Wilson 95% interval of the win rate at ``strength``."""
        return wilson_interval(self(strength) * self.games, self.games)


def _crossing(function: Callable[[float], float], target: float, low: float, high: float, tolerance: float) -> float:
    """Bisection for the strength where ``function`` (increasing) reaches ``target``."""
    while high - low > tolerance:
        middle = 0.5 * (low + high)
        if function(middle) < target:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def strength_decimals(tolerance: float) -> int:
    """The decimals a strength bisected to ``tolerance`` is given with: the first place at least as fine as the
    tolerance (2 for 0.01, 3 for the tuner's 0.0025); more would show digits the search never settled."""
    # the small margin keeps 0.01, whose log10 may come out a hair beyond -2, at two decimals
    return max(0, math.ceil(-math.log10(tolerance) - 1e-9))


def strength_at_parity(curve: WinRateCurve, low: float = 0.25, high: float = 4.0,
                       tolerance: float = PARITY_TOLERANCE) -> ParityResult:
    """Bisect for the parity strength of one level, widening the bracket if it does not hold the root.

    The strength and its interval are rounded to :func:`strength_decimals` of ``tolerance``."""
    while curve(low) > 0.5 and low > 1e-3:
        low /= 2
    while curve(high) < 0.5 and high < 64:
        high *= 2
    strength = _crossing(curve, 0.5, low, high, tolerance)
    upper_reaches = _crossing(lambda s: curve.bounds(s)[1], 0.5, low, strength, tolerance)
    lower_reaches = _crossing(lambda s: curve.bounds(s)[0], 0.5, strength, high, tolerance)
    decimals = strength_decimals(tolerance)
    return ParityResult(level=curve.level, strength=round(strength, decimals), low=round(upper_reaches, decimals),
                        high=round(lower_reaches, decimals), win_rate=curve(strength), games=curve.games,
                        evaluations=len(curve.cache))


def parity_table(data: GameData, profile: str, levels: list[int], games: int, seed: int, engine: str,
                 tolerance: float = PARITY_TOLERANCE, progress: Callable[[int], None] | None = None,
                 rounds: int = ROUNDS, start_bonus: str = DEFAULT_START_BONUS,
                 board: str = DEFAULT_BOARD) -> pd.DataFrame:
    """Strength at parity per level, one row each."""
    rows = []
    for level in levels:
        curve = WinRateCurve(data, profile, level, games, seed, engine, rounds=rounds, start_bonus=start_bonus,
                             board=board)
        result = strength_at_parity(curve, tolerance=tolerance)
        rows.append(result.__dict__)
        if progress is not None:
            progress(1)
    table = pd.DataFrame(rows)
    table.insert(0, "profile", profile)
    return table.astype({"strength": np.float64, "low": np.float64, "high": np.float64})
