"""The 95 % intervals of the tables: of a win rate (Wilson), of two independent win rates' difference (Newcombe),
of a mean or a mean difference (Student's t, Welch's degrees of freedom for two independent means).

Numbers in, numbers out (floats or arrays alike): :mod:`analysis.stats` and the study's tables apply them to
frames. ``tests/analysis/test_interval_calibration.py`` measures each one's coverage.

A mean's interval is ``estimate ± t · SE``, :func:`t95` of ``n - 1`` degrees of freedom. Monte Carlo runs
have thousands of games per group, where t and the normal 1.96 agree to well under 1 %; but
``--games`` may be as small as 2, where ``± 1.96 · SE`` covers the truth 70 % of the time rather than 95 %.
They rest on the central limit theorem all the same: a rare, lopsided effect needs more games (a change
that moves one game in ten, by a skewed amount, was covered 88 % of the time at 100 games and 94 % at
1,000), and so does a paired win-rate difference near 0 or 1. Win rates use the Wilson score interval,
which stays inside [0, 1] and behaves near 0 and 1, where Luna's low and high levels live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: Two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054


def t95(df: Any) -> Any:
    """Two-sided 95 % quantile of Student's t with ``df`` degrees of freedom (``scipy.special.stdtrit``).

    Parameters
    ----------
    df
        Degrees of freedom, a number or an array; a fractional one (Welch's) as it is, infinity gives the
        normal quantile :data:`Z95`, below 1 or NaN gives NaN (one value has no spread to scale).

    Returns
    -------
    float or numpy.ndarray
        As ``df``: 12.706 for 1, 2.262 for 9, 1.9600 for 19,999.

    Examples
    --------
    >>> round(t95(9), 4), round(t95(float("inf")), 4)
    (2.2622, 1.96)
    """
    from scipy.special import stdtrit  # here: only the tables with intervals pay scipy's import (0.2-0.4 s)

    values = np.asarray(df, dtype=float)
    usable = values >= 1  # False for NaN too
    quantiles = np.where(usable, stdtrit(np.where(usable, values, 1.0), 0.975), np.nan)
    return float(quantiles) if quantiles.ndim == 0 else quantiles


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


def newcombe_interval(wins_a: float, games_a: int, wins_b: float, games_b: int) -> tuple[float, float, float]:
    """Difference of two independent proportions with Newcombe's hybrid score interval.

    The interval combines the two Wilson intervals (Newcombe 1998, method 10) and inherits
    their good behaviour near 0 and 1, where a plain ``± 1.96·SE`` interval misbehaves.
    """
    p_a, p_b = wins_a / games_a, wins_b / games_b
    low_a, high_a = wilson_interval(wins_a, games_a)
    low_b, high_b = wilson_interval(wins_b, games_b)
    diff = p_a - p_b
    low = diff - np.sqrt((p_a - low_a) ** 2 + (high_b - p_b) ** 2)
    high = diff + np.sqrt((high_a - p_a) ** 2 + (p_b - low_b) ** 2)
    return diff, float(low), float(high)
