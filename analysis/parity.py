"""Strength at parity: the profile strength at which a scripted player wins half its games against Luna.

For one level, ``win_rate(s)`` is the scripted seat's win share over the same games (seed and game
indices fixed: common random numbers), played with strength ``s``. Because every strength replays
the same games, ``win_rate`` is a deterministic, nearly monotone function of ``s``, and bisection
finds where it crosses 1/2. The 95% interval inverts the pointwise Wilson interval: it runs from the
strength whose win rate's upper Wilson bound reaches 1/2 to the strength whose lower bound does, each end
taken on its outer side of the bisection's last step and rounded outward, so that the search's resolution
widens the interval rather than narrowing it.

A profile may never win half its games at any strength tried (up to :data:`HIGHEST_STRENGTH`), or win more
than half even at the lowest (:data:`LOWEST_STRENGTH`): its strength at parity is then not reached, given as
NaN with a ``note`` ("not reached: above 64") and an interval open on that side, never as the end of the
range tried, which read like a measured strength.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.intervals import wilson_interval
from analysis.study.plan import PARITY_TOLERANCE
from sim.config import DEFAULT_START_BONUS, ConfigError, GameConfig, Seat, check_games, check_seed, is_level
from sim.constants import DEFAULT_BOARD, MAX_LEVEL, MIN_LEVEL, ROUNDS
from sim.engines import engine_function
from sim.gamedata import GameData

#: The finest bisection a search accepts: :class:`WinRateCurve` plays strengths rounded to 6 decimals, so a
#: finer one would only replay the same strength (and below about 2e-16 the bracket cannot narrow at all).
MIN_PARITY_TOLERANCE = 1e-6
#: A profile at its strength at parity wins this share of its games against Luna.
PARITY_WIN_SHARE = 0.5
#: The strengths a search first brackets parity between.
START_BRACKET = (0.25, 4.0)
#: The search widens its bracket (from START_BRACKET) by halving and doubling up to these strengths, and no
#: further: a profile that loses at 64 times its data's steps and resources is not going to hold even.
LOWEST_STRENGTH = START_BRACKET[0] / 2**8
HIGHEST_STRENGTH = 64.0


def check_tolerance(tolerance: float) -> float:
    """``tolerance`` as a bisection width, or a one-line :class:`sim.config.ConfigError` naming ``tolerance``."""
    if not (isinstance(tolerance, int | float) and math.isfinite(tolerance) and tolerance > 0):
        raise ConfigError(f"must be a positive number, got {tolerance!r}", "tolerance")
    if tolerance < MIN_PARITY_TOLERANCE:
        raise ConfigError(f"must be at least {MIN_PARITY_TOLERANCE:g} (strengths are played to 6 decimals), "
                          f"got {tolerance:g}", "tolerance")
    return float(tolerance)


@dataclass(frozen=True)
class ParityResult:
    level: int
    strength: float  # where the win rate crosses 1/2, rounded as printed; NaN when not reached (see ``note``)
    low: float  # 95% interval of that strength (0 or inf on the side where it is not reached)
    high: float
    win_rate: float  # measured at ``strength`` as rounded; when not reached, at the end of the range tried
    games: int
    evaluations: int  # distinct strengths played
    note: str = ""  # "" when parity is reached, else "not reached: above 64" or "not reached: below 0.000977"


class WinRateCurve:
    """Win share of one scripted profile against one Luna level, as a function of strength (memoised)."""

    def __init__(self, data: GameData, profile: str, level: int, games: int, seed: int, engine: str,
                 rounds: int = ROUNDS, start_bonus: str = DEFAULT_START_BONUS, board: str = DEFAULT_BOARD,
                 first_game: int = 0) -> None:
        self.data, self.profile, self.level = data, profile, level
        self.first_game = first_game  # the curve plays games first_game .. first_game + games - 1
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
            chunk = self.play(self.data, config, self.seed, self.first_game, self.games, False)
            self.cache[strength] = float(chunk.seats["won"][chunk.seats["seat"] == 0].mean())
        return self.cache[strength]

    def bounds(self, strength: float) -> tuple[float, float]:
        """Wilson 95% interval of the win rate at ``strength``."""
        return wilson_interval(self(strength) * self.games, self.games)


def _bracket(function: Callable[[float], float], target: float, low: float, high: float,
             tolerance: float) -> tuple[float, float]:
    """Bisection for where ``function`` (increasing) reaches ``target``: a bracket at most ``tolerance`` wide,
    ``function`` below ``target`` at its low end and not below at its high end."""
    while high - low > tolerance:
        middle = 0.5 * (low + high)
        if not low < middle < high:  # adjacent floats: no narrower bracket exists, whatever the tolerance
            break
        if function(middle) < target:
            low = middle
        else:
            high = middle
    return low, high


def _crossing(function: Callable[[float], float], target: float, low: float, high: float, tolerance: float) -> float:
    """The middle of :func:`_bracket`: the best single guess at where ``function`` reaches ``target``."""
    return 0.5 * sum(_bracket(function, target, low, high, tolerance))


def _round_outward(low: float, high: float, decimals: int) -> tuple[float, float]:
    """``low`` rounded down and ``high`` rounded up to ``decimals``, so rounding never narrows an interval.

    The values are first rounded to 9 decimals, so that a bound a float hair above 1.23 stays 1.23."""
    scale = 10.0**decimals
    return (math.floor(round(low * scale, 9)) / scale, math.ceil(round(high * scale, 9)) / scale)


def strength_decimals(tolerance: float) -> int:
    """The decimals a strength bisected to ``tolerance`` is given with: the first place at least as fine as the
    tolerance (2 for 0.01, 3 for the tuner's 0.0025); more would show digits the search never settled."""
    # the small margin keeps 0.01, whose log10 may come out a hair beyond -2, at two decimals
    return max(0, math.ceil(-math.log10(tolerance) - 1e-9))


def strength_at_parity(curve: WinRateCurve, low: float = START_BRACKET[0], high: float = START_BRACKET[1],
                       tolerance: float = PARITY_TOLERANCE) -> ParityResult:
    """Bisect for the parity strength of one level, widening the bracket if it does not hold the root.

    The strength is rounded to :func:`strength_decimals` of ``tolerance``; its interval runs from the outer
    ends of the bisection brackets of its two ends, rounded outward, so neither the bisection nor the rounding
    narrows it (it is up to about two tolerances wider on each side than the exact inversion). The win rate is
    played at the strength as rounded, the one shown. When the win rate stays below 1/2 up to
    :data:`HIGHEST_STRENGTH` (or above it down to :data:`LOWEST_STRENGTH`), parity is not reached: the strength
    is NaN, ``note`` says which side, and the interval keeps its one end that the games settle."""
    check_tolerance(tolerance)
    while curve(low) > PARITY_WIN_SHARE and low > LOWEST_STRENGTH:
        low /= 2
    while curve(high) < PARITY_WIN_SHARE and high < HIGHEST_STRENGTH:
        high *= 2
    decimals = strength_decimals(tolerance)
    # Not reached: the crossing would be the end of the range tried, a made-up strength (64.00 (63.98-64.00)
    # for a profile winning none of its games); the interval's inner end is still found below.
    above, below = curve(high) < PARITY_WIN_SHARE, curve(low) > PARITY_WIN_SHARE
    strength = high if above else low if below else _crossing(curve, PARITY_WIN_SHARE, low, high, tolerance)
    # Each end of the interval is the outer end of its bracket, rounded outward: the middle of the bracket,
    # rounded to the nearest, moved each end inward by up to a tolerance, and when the interval is about as
    # narrow as the tolerance (10,000 games and more) that left it covering the true strength far less often
    # than 95 % (as little as 0.3 % in the calibration tests; 0.98 (0.98-0.98) in the README's table).
    # Each end is searched from where its bound is clear of 1/2, widened as the strength was: with a few games a
    # game the bounds straddle 1/2 across the first bracket, whose ends (0.25-4.00) then read as measured.
    low_clear, high_clear = low, high
    while curve.bounds(low_clear)[1] >= PARITY_WIN_SHARE and low_clear > LOWEST_STRENGTH:
        low_clear /= 2
    while curve.bounds(high_clear)[0] < PARITY_WIN_SHARE and high_clear < HIGHEST_STRENGTH:
        high_clear *= 2
    upper_reaches, _ = _bracket(lambda s: curve.bounds(s)[1], PARITY_WIN_SHARE, low_clear, strength, tolerance)
    _, lower_reaches = _bracket(lambda s: curve.bounds(s)[0], PARITY_WIN_SHARE, strength, high_clear, tolerance)
    interval_low, interval_high = _round_outward(upper_reaches, lower_reaches, decimals)
    if curve.bounds(low_clear)[1] >= PARITY_WIN_SHARE:  # the games cannot rule out parity at any strength tried below
        interval_low = 0.0
    if curve.bounds(high_clear)[0] < PARITY_WIN_SHARE:
        interval_high = math.inf
    if above or below:
        end = high if above else low
        # the search brackets each end to within a tolerance of the range's end, even when the win rate's
        # interval there is clear of 1/2; the open interval then starts at the end itself (64, not 63.99)
        if above and curve.bounds(high)[1] < PARITY_WIN_SHARE:
            interval_low = high
        if below and curve.bounds(low)[0] > PARITY_WIN_SHARE:
            interval_high = _round_outward(low, low, 6)[1]
        return ParityResult(level=curve.level, strength=math.nan, low=interval_low if above else 0.0,
                            high=math.inf if above else interval_high, win_rate=curve(end), games=curve.games,
                            evaluations=len(curve.cache),
                            note=f"not reached: {'above' if above else 'below'} {end:.3g}")
    shown = round(strength, decimals)
    return ParityResult(level=curve.level, strength=shown, low=interval_low, high=interval_high,
                        win_rate=curve(shown), games=curve.games, evaluations=len(curve.cache))


def parity_table(data: GameData, profile: str, levels: list[int], games: int, seed: int, engine: str,
                 tolerance: float = PARITY_TOLERANCE, progress: Callable[[int], None] | None = None,
                 rounds: int = ROUNDS, start_bonus: str = DEFAULT_START_BONUS,
                 board: str = DEFAULT_BOARD) -> pd.DataFrame:
    """Strength at parity per level, one row each."""
    check_tolerance(tolerance)  # before any game: a bad tolerance would otherwise fail after the first search
    # the command line's checks, for a caller in Python: games=0 gave a row of NaN means, seed=-1 seed 2**64-1's games
    games, seed = check_games(games), check_seed(seed)
    if isinstance(levels, str) or not all(map(is_level, levels)):
        raise ConfigError(f"must be a list of levels {MIN_LEVEL}-{MAX_LEVEL}, got {levels!r}", "levels")
    if profile not in data.players.profiles:
        raise ConfigError(f"unknown scripted profile {profile!r} (known: {', '.join(sorted(data.players.profiles))})",
                          "profile")
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
