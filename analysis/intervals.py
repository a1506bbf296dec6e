"""The 95 % intervals of the tables: of a win rate (Wilson), of two win rates' difference (Newcombe's, for independent
games and for the same games), of a mean or a mean difference (Student's t, Welch's degrees of freedom for two
independent means).

Numbers in, numbers out (floats or arrays alike): :mod:`analysis.stats` and the study's tables apply them to
frames. ``tests/analysis/test_interval_calibration.py`` measures each one's coverage.

A mean's interval is ``estimate ± t · SE``, :func:`t95` of ``n - 1`` degrees of freedom. Monte Carlo runs
have thousands of games per group, where t and the normal 1.96 agree to well under 1 %; but
``--games`` may be as small as 2, where ``± 1.96 · SE`` covers the truth 70 % of the time rather than 95 %.
They rest on the central limit theorem all the same: a rare, lopsided effect needs more games (a change
that moves one game in ten, by a skewed amount, was covered 88 % of the time at 100 games and 94 % at
1,000). Win rates use the Wilson score interval, which stays inside [0, 1] and behaves near 0 and 1, where
Luna's low and high levels live, and so do the differences of two win rates built from it.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: Two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054


def t95(df: Any) -> Any:
    """Two-sided 95 % quantile of Student's t with ``df`` degrees of freedom.

    Parameters
    ----------
    df
        Degrees of freedom, a number or an array; a fractional one (Welch's) as it is, infinity gives the
        normal quantile :data:`Z95`, below 1 or NaN gives NaN (one value has no spread to scale).

    Returns
    -------
    float or numpy.ndarray
        As ``df``: 12.706 for 1, 2.262 for 9, 1.9600 for 19,999; within 1e-12 of ``scipy.stats.t.ppf``
        (``tests/analysis/test_interval_calibration.py``).

    Examples
    --------
    >>> round(t95(9), 4), round(t95(float("inf")), 4)
    (2.2622, 1.96)
    """
    values = np.asarray(df, dtype=float)
    flat = values.reshape(-1)
    quantiles = np.full(flat.shape, np.nan)
    for value in np.unique(flat[flat >= 1]):  # NaN compares False: left NaN
        quantiles[flat == value] = _t95_of(float(value))
    quantiles = quantiles.reshape(values.shape)
    return float(quantiles) if quantiles.ndim == 0 else quantiles


# Student's t is computed here rather than taken from scipy: numba imports scipy.linalg whenever scipy is
# installed (to find a BLAS), at every engine load, so the dependency cost every simulate 0.1-0.2 s of its ~1 s
# warm start (issue 9) for the few quantiles a table needs (README, Dependencies).
_TAIL = 0.025  # the upper tail of a two-sided 95 % quantile
_EXPANSION_DF = 1000.0  # from here on the expansion below is within 2e-15 of the exact quantile
_TINY = 1e-300  # keeps the continued fraction's terms off zero (Lentz's method)


@functools.lru_cache(maxsize=4096)
def _t95_of(df: float) -> float:
    """:func:`t95` of one ``df`` >= 1: Newton's method on the upper tail, kept inside a shrinking bracket."""
    if df >= _EXPANSION_DF:  # the Cornish-Fisher expansion (Abramowitz and Stegun 26.7.5), to 1/df^4
        z, z2 = Z95, Z95 * Z95
        terms = ((z2 + 1) * z / 4, ((5 * z2 + 16) * z2 + 3) * z / 96, (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384,
                 ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160)
        return z + sum(term / df**power for power, term in enumerate(terms, start=1))
    low, high = Z95, 12.71  # the quantile falls with df: 12.7062 at 1 degree of freedom, Z95 at infinity
    log_scale = math.lgamma(0.5 * (df + 1)) - math.lgamma(0.5 * df) - 0.5 * math.log(df * math.pi)  # of the density
    t = 2.0 * Z95
    for _ in range(200):
        excess = _t_upper_tail(t, df) - _TAIL
        low, high = (t, high) if excess > 0 else (low, t)
        log_density = log_scale - 0.5 * (df + 1) * math.log1p(t * t / df)
        candidate = t + excess / math.exp(log_density)
        candidate = candidate if low < candidate < high else 0.5 * (low + high)  # Newton left the bracket: bisect
        if abs(candidate - t) <= 1e-15 * t:
            return candidate
        t = candidate
    return t


def _t_upper_tail(t: float, df: float) -> float:
    """P(T > t) for Student's T with ``df`` degrees of freedom and ``t`` >= 0: half I_x(df/2, 1/2), x = df/(df+t²)."""
    x, a, b = df / (df + t * t), 0.5 * df, 0.5
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):  # where the continued fraction converges fast; else by symmetry
        return 0.5 * math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 0.5 * (1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Abramowitz and Stegun 26.5.8), by Lentz's method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    fraction = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-16:
            return fraction
    raise ArithmeticError(f"the incomplete beta fraction did not converge (a={a}, b={b}, x={x})")


def welch_df(se_a: Any, n_a: Any, se_b: Any, n_b: Any) -> Any:
    """Welch-Satterthwaite degrees of freedom of the difference of two independent means.

    ``se_a``, ``se_b`` are the standard errors of the two means, ``n_a``, ``n_b`` their sample sizes;
    infinity where both standard errors are 0 (the interval then has no width whatever the quantile).
    """
    var_a, var_b = np.square(np.asarray(se_a, dtype=float)), np.square(np.asarray(se_b, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (var_a + var_b) ** 2 / (var_a**2 / (np.asarray(n_a, dtype=float) - 1)
                                     + var_b**2 / (np.asarray(n_b, dtype=float) - 1))
    df = np.where((var_a == 0) & (var_b == 0), np.inf, df)
    return float(df) if df.ndim == 0 else df


def wilson_interval(
    successes: float | np.ndarray | pd.Series,
    trials: float | np.ndarray | pd.Series,
    z: float = Z95,
) -> tuple[Any, Any]:
    """Wilson score interval for a binomial proportion.

    With ``p = successes / trials`` and ``n = trials`` the interval is

    .. math::

        \\frac{p + z^2 / (2n)}{1 + z^2 / n}
        \\pm \\frac{z}{1 + z^2 / n} \\sqrt{\\frac{p (1 - p)}{n} + \\frac{z^2}{4 n^2}}

    (Wilson 1927). It inverts the score test, so unlike the Wald interval ``p ± z·SE`` it never
    leaves [0, 1] and keeps its coverage when ``p`` is near 0 or 1. ``successes`` may be
    fractional: a k-way shared win counts 1/k, which keeps the estimate unbiased; the interval is
    then conservative because a fractional outcome has less variance than a 0/1 one, the more so the
    more wins are shared (coverage about 96 % with 10 % of games tied two ways, 99 % with 30 % tied
    three ways; 95 % without ties).

    Parameters
    ----------
    successes
        Number of successes (may be fractional).
    trials
        Number of trials; 0 gives NaN bounds.
    z
        Normal quantile, 1.96 for a 95 % interval.

    Returns
    -------
    tuple
        ``(low, high)``, floats for scalar input, arrays otherwise.

    Raises
    ------
    ValueError
        A count of successes below 0 or above its trials, or trials below 0.

    Examples
    --------
    >>> low, high = wilson_interval(8, 10)
    >>> round(low, 4), round(high, 4)
    (0.4902, 0.9433)
    """
    scalar = np.ndim(successes) == 0 and np.ndim(trials) == 0
    wins = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    # (11, 10) gave (nan, 1.0) without a word; the slack is for sums of fractional wins (1/3 + 1/3 + ...)
    if np.any(n < 0) or np.any(wins < 0) or np.any(wins > n + 1e-9 * np.maximum(n, 1.0)):
        raise ValueError("wilson_interval: successes must be between 0 and trials, and trials at least 0")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = wins / n
        z2 = z * z
        denominator = 1.0 + z2 / n
        centre = (p + z2 / (2.0 * n)) / denominator
        half_width = z / denominator * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
        # At p = 0 or 1 the bound is exactly 0 or 1; rounding would otherwise leave 1 - 1e-16.
        low = np.where(p <= 0.0, 0.0, np.clip(centre - half_width, 0.0, 1.0))
        high = np.where(p >= 1.0, 1.0, np.clip(centre + half_width, 0.0, 1.0))
        low = np.where(n > 0, low, np.nan)
        high = np.where(n > 0, high, np.nan)
    if scalar:
        return float(low), float(high)
    return low, high


def difference_interval(diff: Any, se: Any, df: Any = np.inf) -> tuple[Any, Any]:
    """The 95 % interval ``diff ± t95(df)·se`` (floats or arrays alike), e.g. of a paired mean difference.

    ``df`` is the degrees of freedom of ``se`` (``n - 1`` for the mean of ``n`` values); the default,
    infinity, gives the normal interval ``diff ± 1.96·se``.
    """
    quantile = t95(df)
    return diff - quantile * se, diff + quantile * se


def paired_difference(after: np.ndarray, before: np.ndarray) -> tuple[float, float, float, float]:
    """The mean per-game difference ``after - before`` over the same games (common random numbers).

    Parameters
    ----------
    after, before
        Shape (games,): one value per game, game by game.

    Returns
    -------
    tuple
        ``(mean, sd, low, high)``: the mean difference, the standard deviation of the per-game
        differences and the 95 % interval ``mean ± t·sd/√n``, ``t`` = :func:`t95` of ``n - 1`` (NaN
        where ``n`` is too small).
    """
    differences = np.asarray(after, dtype=np.float64) - np.asarray(before, dtype=np.float64)
    n = differences.size
    mean = float(differences.mean()) if n else np.nan
    sd = float(differences.std(ddof=1)) if n > 1 else np.nan
    low, high = difference_interval(mean, sd / np.sqrt(n) if n > 1 else np.nan, n - 1)
    return mean, sd, float(low), float(high)


def paired_difference_of_sums(n: int, total: int, squares: int) -> tuple[float, float, float, float]:
    """:func:`paired_difference` of ``n`` integer per-game differences given as their sum ``total`` and the sum of
    their ``squares``, which a caller adds up a chunk of games at a time and need not keep the games for.

    The sums are Python integers, so ``n·squares - total²`` (``n·(n - 1)·sd²``) is exact and the mean and sd are
    rounded once, where the arrays' version rounds as it sums.

    Returns
    -------
    tuple
        ``(mean, sd, low, high)`` as :func:`paired_difference`'s (NaN where ``n`` is too small).
    """
    if n < 1:
        return math.nan, math.nan, math.nan, math.nan
    mean = total / n  # integer over integer: correctly rounded
    sd = math.sqrt((n * squares - total * total) / (n * (n - 1))) if n > 1 else math.nan
    low, high = difference_interval(mean, sd / math.sqrt(n) if n > 1 else math.nan, n - 1)
    return mean, sd, float(low), float(high)


def newcombe_interval(wins_a: float, games_a: int, wins_b: float, games_b: int) -> tuple[float, float, float]:
    """Difference of two independent proportions with Newcombe's hybrid score interval.

    The interval combines the two Wilson intervals (Newcombe 1998, method 10) and inherits
    their good behaviour near 0 and 1, where a plain ``± 1.96·SE`` interval misbehaves.
    """
    if games_a <= 0 or games_b <= 0:  # no games on a side: no rate, no interval (was a ZeroDivisionError)
        return math.nan, math.nan, math.nan
    p_a, p_b = wins_a / games_a, wins_b / games_b
    diff, low, high = _square_and_add(p_a, wilson_interval(wins_a, games_a), p_b, wilson_interval(wins_b, games_b), 0.0)
    return diff, float(low), float(high)


def _square_and_add(p_a: Any, bounds_a: tuple[Any, Any], p_b: Any, bounds_b: tuple[Any, Any],
                    phi: Any) -> tuple[Any, Any, Any]:
    """Newcombe's square-and-add interval of ``p_a - p_b`` from each rate's Wilson ``(low, high)`` and the
    outcomes' correlation ``phi`` (0 for independent games)."""
    (low_a, high_a), (low_b, high_b) = bounds_a, bounds_b
    d_a, e_a, d_b, e_b = p_a - low_a, high_a - p_a, p_b - low_b, high_b - p_b
    diff = p_a - p_b
    low = diff - np.sqrt(np.maximum(d_a**2 - 2.0 * phi * d_a * e_b + e_b**2, 0.0))
    high = diff + np.sqrt(np.maximum(e_a**2 - 2.0 * phi * e_a * d_b + d_b**2, 0.0))
    return diff, low, high


def paired_proportion_interval(p_a: Any, p_b: Any, covariance: Any, games: Any) -> tuple[Any, Any, Any]:
    """Difference ``p_a - p_b`` of two win rates measured over the same games, with Newcombe's paired interval.

    Two seats of one game (two levels played against each other) or one seat in two runs with the same
    seed (a variant and its base) give each game two win shares that are not independent; a t interval of
    the per-game differences ignores that they are proportions and covers far below 95 % near 0 and 1
    (0.35 at 4 games and 0.88 at 50 when one level wins 90 % of their duels). Newcombe's (1998, Statistics in
    Medicine 17:2635-2650) square-and-add method for paired proportions, method 10, combines the two Wilson
    intervals with the outcomes' correlation:

    .. math::

        L = \\hat\\delta - \\sqrt{d_a^2 - 2 \\hat\\phi\\, d_a e_b + e_b^2}, \\qquad
        U = \\hat\\delta + \\sqrt{e_a^2 - 2 \\hat\\phi\\, e_a d_b + d_b^2}

    with ``d = p - low`` and ``e = high - p`` of each rate's Wilson interval, and ``phi`` the correlation
    ``covariance / sqrt(p_a (1 - p_a) p_b (1 - p_b))`` with Newcombe's continuity correction (a positive
    covariance is lowered by ``1 / (2 n)``, to no less than 0). Where either rate is 0 or 1 the correlation
    is not measured; Newcombe then takes 0, which for two levels in a duel (always -1) covered 0.92 at 100
    games and 97 % wins, so this takes -1, the widest the formula allows. Win shares (a k-way tie counts 1/k)
    are taken as they come, as :func:`wilson_interval` does: the interval is then conservative.

    Parameters
    ----------
    p_a, p_b
        The two mean win shares over the same games.
    covariance
        Their covariance over the games, with divisor ``games``: ``mean(a * b) - p_a * p_b``.
    games
        Number of games; fewer than 2 gives NaN bounds (no spread is measured from one game).

    Returns
    -------
    tuple
        ``(diff, low, high)``, floats for scalar input, arrays otherwise; the bounds within [-1, 1].
    """
    scalar = all(np.ndim(value) == 0 for value in (p_a, p_b, covariance, games))
    p_a, p_b = np.asarray(p_a, dtype=float), np.asarray(p_b, dtype=float)
    covariance, n = np.asarray(covariance, dtype=float), np.asarray(games, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        bounds_a = wilson_interval(np.where(n > 0, p_a * n, 0.0), np.maximum(n, 0.0))
        bounds_b = wilson_interval(np.where(n > 0, p_b * n, 0.0), np.maximum(n, 0.0))
        corrected = np.where(covariance > 0.5 / n, covariance - 0.5 / n, np.minimum(covariance, 0.0))
        spread = p_a * (1.0 - p_a) * p_b * (1.0 - p_b)
        phi = np.where(spread > 0.0, np.clip(corrected / np.sqrt(spread), -1.0, 1.0), -1.0)
        diff, low, high = _square_and_add(p_a, bounds_a, p_b, bounds_b, phi)
        low = np.where(n >= 2, np.clip(low, -1.0, 1.0), np.nan)
        high = np.where(n >= 2, np.clip(high, -1.0, 1.0), np.nan)
    if scalar:
        return float(diff), float(low), float(high)
    return diff, low, high


def paired_share_difference(after: np.ndarray, before: np.ndarray) -> tuple[float, float, float]:
    """The difference ``mean(after) - mean(before)`` of two win shares over the same games, with
    :func:`paired_proportion_interval`.

    Parameters
    ----------
    after, before
        Shape (games,): each game's win share (0 to 1, a k-way tie 1/k) of the two seats or runs compared.

    Returns
    -------
    tuple
        ``(diff, low, high)``; NaN bounds for fewer than two games, all NaN for none.
    """
    after, before = np.asarray(after, dtype=np.float64), np.asarray(before, dtype=np.float64)
    if after.size == 0:
        return np.nan, np.nan, np.nan
    covariance = float(np.mean(after * before) - after.mean() * before.mean())
    return paired_proportion_interval(float(after.mean()), float(before.mean()), covariance, after.size)
