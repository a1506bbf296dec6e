"""Counts of each value of an integer column, compiled: the reduction of ``--aggregate-only`` and of a study.

Both run on the thread that writes while the kernel plays a chunk on every core, so each nanosecond they
spend per value is taken from the kernel (issue 9: ``simulate --aggregate-only`` at 84-92 % of the kernel
at level 0, almost all of the gap this reduction: 57 ns a game of 97,541 games of ``luna:0``). numpy's
``bincount`` of ``values - low`` cost 0.9 ns a value and allocated twice; :func:`count_from` costs 0.3, and
a column of one value (a third of a solo Luna's columns are all zeros) is counted from its bounds alone.
With numpy's ``min`` and ``max`` for the bounds (0.1 ns a value), the reduction fell to 21 ns a game.

The counting pass spreads consecutive values over four histograms, summed at the end: a column of few
distinct values otherwise increments the same counter back to back, each increment waiting for the last
(a column of many distinct values is counted in one histogram: four would only cost memory).
"""

from __future__ import annotations

import numpy as np

from sim.fast._jit import jit

_LANES = 4  # histograms the counting pass spreads consecutive values over
# Above this many distinct values a column's consecutive values rarely share a counter, and four histograms
# would cost more to clear and add up than they save: such a column is counted straight into ``counts``.
_LANED_SPAN = 1024


def value_bounds(values: np.ndarray) -> tuple[int, int]:
    """The smallest and largest of a non-empty integer array (numpy's vectorised passes: 0.1 ns a value here,
    against 0.7 for a compiled loop of ``min``/``max``, which LLVM left scalar)."""
    return int(values.min()), int(values.max())


@jit
def count_from(values, low, counts):
    """Add to ``counts`` (int64, shape (span,)) one for each of ``values`` (int64, shape (n,)) at ``value - low``.

    Every value must lie in ``low .. low + span - 1`` (:func:`value_bounds`)."""
    count_strided(values, 0, 1, low, counts)


@jit
def count_strided(values, start, step, low, counts):
    """:func:`count_from` of ``values[start::step]`` (``values``: int64, shape (n,)): a seat's rows of a chunk's
    column, every n-th value. Every one of them must lie in ``low .. low + span - 1``.

    With several seats the span is the whole column's bounds (``sim.summary``, ``analysis/study/summaries.py``):
    numpy takes them over the contiguous column at 0.1 ns a value, and over a seat's every n-th value at 0.65
    ns each for the smallest and the largest, as much as the counting."""
    span = counts.shape[0]
    n = (values.shape[0] - start + step - 1) // step if values.shape[0] > start else 0
    if span > _LANED_SPAN:
        for i in range(n):
            counts[values[start + i * step] - low] += 1
        return
    lanes = np.zeros((_LANES, span), np.int64)
    whole = n - n % _LANES
    for i in range(0, whole, _LANES):
        for lane in range(_LANES):
            lanes[lane, values[start + (i + lane) * step] - low] += 1
    for i in range(whole, n):
        lanes[0, values[start + i * step] - low] += 1
    for lane in range(_LANES):
        for k in range(span):
            counts[k] += lanes[lane, k]


@jit
def count_columns_from(values, low, counts):
    """Add to ``counts`` (int64, shape (columns, span)) one for each ``values[i, j]`` (int64, shape (rows,
    columns)) at ``[j, values[i, j] - low]``: one histogram per column (a study's per-round values: a column per
    round). Every value must lie in ``low .. low + span - 1``."""
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            counts[j, values[i, j] - low] += 1


def integer_counts(values: np.ndarray, bounds: tuple[int, int] | None = None) -> tuple[int, np.ndarray]:
    """``(low, counts)`` of an integer array: ``counts[v - low]`` is how often ``v`` occurs, for every ``v``
    from the smallest value ``low`` to the largest (the dense histogram ``np.bincount`` gives from 0);
    ``(0, [])`` for no values. ``bounds``: the smallest and largest value, when the caller knows them."""
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return 0, np.zeros(0, np.int64)
    low, high = bounds if bounds is not None else value_bounds(values)
    counts = np.zeros(high - low + 1, np.int64)
    if low == high:
        counts[0] = values.size
    else:
        count_from(values, low, counts)
    return low, counts
