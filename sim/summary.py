"""Streaming summaries of a run's per-seat columns, for runs too large to keep one row per game.

``run_simulation(..., aggregate_only=True)`` feeds every chunk to a :class:`StreamingSummary` and
writes its two tables (``aggregate.parquet``, ``histograms.parquet``) instead of ``seats.parquet``, so
memory stays flat however many games run.

Every chunk is reduced with a few calls per column: an integer column becomes a per-seat histogram,
from which the count, sum, sum of squares, minimum and maximum follow exactly at the end; a float column
(``won``) is counted per value the same way, and its moments follow from those counts at the end too, so no
number of the tables depends on the chunk size.

The histogram of a column is counted per seat by ``sim.fast.counts`` (one compiled pass; numpy's ``min``
and ``max`` for the bounds) over that seat's rows, picked by :func:`seat_rows`: the engines' chunks list
the seats in turn (row ``g * n_seats + seat``), so a seat's rows are every n-th value, where a mask would
copy them; with several seats each is counted over the whole column's bounds, which numpy takes at a tenth
of the cost of a seat's own (a chunk of ``scripted:balanced,luna:1``: 7.2 -> 6.1 ms of CPU). The summary
runs on the thread that writes while the kernel plays on every core, so each pass it saves over the chunk
is kernel time (issue 9: the ``--aggregate-only`` share of the kernel's throughput); the study's reducer
uses the same helpers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from sim import arrow
from sim.columns import SEAT_NUMERIC, Columns
from sim.config import GameConfig

# A chunk's integer column whose values spread wider than this many per row is counted with np.unique
# instead of a dense bincount, so a column of sparse large values cannot allocate a huge histogram.
_DENSE_SPAN_PER_ROW = 4
_DENSE_SPAN_MIN = 1 << 16


def seat_rows(seat_index: np.ndarray, n_seats: int) -> list[slice | np.ndarray]:
    """What picks each seat's rows (seats ``0 .. n_seats - 1``) out of a chunk's per-seat columns.

    Both engines list a game's seats in turn (row ``g * n_seats + seat``): then each seat's rows are a strided
    slice, a view. Any other order gets boolean masks. ``seat_index`` is the chunk's ``seat`` column.
    """
    if seat_index.size % n_seats == 0 and bool((seat_index.reshape(-1, n_seats) == np.arange(n_seats)).all()):
        return [slice(seat, None, n_seats) for seat in range(n_seats)]
    return [seat_index == seat for seat in range(n_seats)]


def value_counts(values: np.ndarray) -> Iterable[tuple[float, int]]:
    """``(value, count)`` of each distinct value of a non-empty array, in increasing order of value.

    A column of one value (Luna alone always wins whole) is counted without sorting it.
    """
    low, high = values.min(), values.max()
    if low == high:
        return [(low, values.size)]
    return zip(*np.unique(values, return_counts=True), strict=True)


class _IntegerHistogram:
    """Counts of each value of one integer column, per seat: ``counts[value - low, seat]``."""

    def __init__(self) -> None:
        self.low = 0
        self.counts = np.zeros((0, 0), np.int64)
        self.sparse: dict[tuple[int, int], int] = {}  # (seat, value) -> count, for widely spread values

    def add(self, values: np.ndarray, seats: np.ndarray, rows: list[slice | np.ndarray]) -> None:
        """Count ``values`` (row ``i`` of seat ``seats[i]``; ``rows``: :func:`seat_rows`)."""
        from sim.fast.counts import (  # here: sim.run loads no numba until a run needs it
            count_strided,
            integer_counts,
            value_bounds,
        )

        low, high = value_bounds(values)
        span = high - low + 1
        n_seats = len(rows)
        if span > max(_DENSE_SPAN_MIN, _DENSE_SPAN_PER_ROW * values.size):
            distinct, inverse = np.unique(values, return_inverse=True)
            counts = np.bincount(inverse.ravel() * n_seats + seats, minlength=distinct.size * n_seats)
            for (row, seat) in zip(*np.nonzero(counts.reshape(distinct.size, n_seats)), strict=True):
                key = (int(seat), int(distinct[row]))
                self.sparse[key] = self.sparse.get(key, 0) + int(counts[row * n_seats + seat])
            return
        self._widen(low, span, n_seats)
        counts = self.counts[low - self.low:low - self.low + span]
        for seat, picked in enumerate(rows):
            if isinstance(picked, slice) and n_seats > 1:
                # every n-th value, counted over the whole column's span in one pass: no bounds of its own
                seat_counts = np.zeros(span, np.int64)
                count_strided(values, seat, n_seats, low, seat_counts)
                counts[:, seat] += seat_counts
                continue
            seat_low, seat_counts = integer_counts(values[picked], (low, high) if n_seats == 1 else None)
            counts[seat_low - low:seat_low - low + seat_counts.size, seat] += seat_counts

    def _widen(self, low: int, span: int, n_seats: int) -> None:
        """Grow ``counts`` to cover ``low .. low + span - 1`` and ``n_seats`` seats."""
        old_rows, old_seats = self.counts.shape
        if old_rows == 0:
            self.low, self.counts = low, np.zeros((span, n_seats), np.int64)
            return
        new_low = min(self.low, low)
        new_high = max(self.low + old_rows, low + span)
        if new_low == self.low and new_high == self.low + old_rows and n_seats <= old_seats:
            return
        grown = np.zeros((new_high - new_low, max(n_seats, old_seats)), np.int64)
        grown[self.low - new_low:self.low - new_low + old_rows, :old_seats] = self.counts
        self.low, self.counts = new_low, grown

    def per_seat(self) -> dict[int, dict[int, int]]:
        """Seat -> {value: count} of every value seen, in increasing order of value."""
        result: dict[int, dict[int, int]] = {}
        for row, seat in zip(*np.nonzero(self.counts), strict=True):
            result.setdefault(int(seat), {})[self.low + int(row)] = int(self.counts[row, seat])
        for (seat, value), count in self.sparse.items():
            histogram = result.setdefault(seat, {})
            histogram[value] = histogram.get(value, 0) + count
        return {seat: dict(sorted(histogram.items())) for seat, histogram in result.items()}


class StreamingSummary:
    """Per seat and numeric column: count, sum, sum of squares, min, max, and a histogram of values.

    Every column is counted per value, so the totals do not depend on how games were chunked: integer columns
    sum exactly; ``won`` (1/k for a k-way tie) sums its values times their counts with ``math.fsum``.
    """

    def __init__(self) -> None:
        self.integers: dict[str, _IntegerHistogram] = {}
        # float columns: (seat, column) -> {value: count}
        self.float_histograms: dict[tuple[int, str], dict[float, int]] = {}

    def update(self, columns: Columns) -> None:
        """Add one chunk's per-seat columns (``seat`` plus ``SEAT_NUMERIC``)."""
        seats = np.asarray(columns["seat"], dtype=np.int64)
        if seats.size == 0:
            return
        rows = seat_rows(seats, int(seats.max()) + 1)
        for name in SEAT_NUMERIC:
            values = columns[name]
            if np.issubdtype(values.dtype, np.integer):
                self.integers.setdefault(name, _IntegerHistogram()).add(values.astype(np.int64, copy=False),
                                                                        seats, rows)
            else:
                self._update_float(name, values, rows)

    def _update_float(self, name: str, values: np.ndarray, rows: list[slice | np.ndarray]) -> None:
        for seat, picked in enumerate(rows):
            selected = values[picked]
            if selected.size == 0:
                continue
            histogram = self.float_histograms.setdefault((seat, name), {})
            for value, count in value_counts(selected):
                histogram[float(value)] = histogram.get(float(value), 0) + int(count)

    def _statistics(self) -> dict[tuple[int, str], tuple[list[float], dict[float, int]]]:
        """(seat, column) -> ([count, sum, sumsq, min, max], {value: count}) of every column seen.

        Every moment follows from the exact counts of each value, so no number depends on how the games were
        chunked: ``won``'s sums were once added chunk by chunk, and a game's 1/3 share made their last bits
        depend on the chunk size (a QA pass). A float column's products are added with ``math.fsum``."""
        result = {}
        for key, counts in self.float_histograms.items():
            ordered = sorted(counts.items())
            moments = [sum(counts.values()), math.fsum(value * count for value, count in ordered),
                       math.fsum(value * value * count for value, count in ordered), ordered[0][0], ordered[-1][0]]
            result[key] = (moments, dict(ordered))
        for name, histogram in self.integers.items():
            for seat, counts in histogram.per_seat().items():
                # exact integer sums (Python ints), as floats only at the end
                total = sum(value * count for value, count in counts.items())
                squares = sum(value * value * count for value, count in counts.items())
                moments = [sum(counts.values()), float(total), float(squares), float(min(counts)), float(max(counts))]
                result[(seat, name)] = (moments, {float(value): count for value, count in counts.items()})
        return result

    def tables(self, config: GameConfig) -> tuple[pa.Table, pa.Table]:
        """The aggregate table (one row per seat and column) and the histogram table (one row per value)."""
        statistics = sorted(self._statistics().items())
        seats = [config.seats[seat] for (seat, _), _ in statistics]
        names = [name for (_, name), _ in statistics]
        moments = np.array([moments for _, (moments, _) in statistics], dtype=np.float64).reshape(-1, 5)
        count, total, squares, low, high = moments.T
        mean = total / np.maximum(count, 1)
        variance = np.maximum(squares / np.maximum(count, 1) - mean * mean, 0.0) * count / np.maximum(count - 1, 1)
        aggregate = arrow.table({
            "seat": arrow.numeric(np.array([seat for (seat, _), _ in statistics], dtype=np.int64)),
            "kind": arrow.strings([seat.kind for seat in seats]),
            "level": arrow.numeric(np.array([seat.level for seat in seats], dtype=np.int64)),
            "profile": arrow.strings([seat.profile for seat in seats]),
            "column": arrow.strings(names),
            "count": arrow.numeric(count.astype(np.int64)), "sum": arrow.numeric(total), "mean": arrow.numeric(mean),
            "sd": arrow.numeric(np.sqrt(variance)), "min": arrow.numeric(low), "max": arrow.numeric(high),
        })
        values = [(seat, name, value, times) for (seat, name), (_, histogram) in statistics
                  for value, times in sorted(histogram.items())]
        histograms = arrow.table({
            "seat": arrow.numeric(np.array([row[0] for row in values], dtype=np.int64)),
            "column": arrow.strings([row[1] for row in values]),
            "value": arrow.numeric(np.array([row[2] for row in values], dtype=np.float64)),
            "count": arrow.numeric(np.array([row[3] for row in values], dtype=np.int64)),
        })
        return aggregate, histograms
