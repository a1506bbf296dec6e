"""Streaming summaries of a run's per-seat columns, for runs too large to keep one row per game.

``run_simulation(..., aggregate_only=True)`` feeds every chunk to a :class:`StreamingSummary` and
writes its two tables (``aggregate.parquet``, ``histograms.parquet``) instead of ``seats.parquet``, so
memory stays flat however many games run.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.columns import SEAT_NUMERIC
from sim.config import GameConfig
from sim.engines import Columns


class StreamingSummary:
    """Per seat and numeric column: count, sum, sum of squares, min, max, and a histogram of values.

    Integer columns sum exactly, so the totals do not depend on how games were chunked; ``won``
    (1/k for a k-way tie) is summed in float64, exact except for the last bits after 3-way ties.
    """

    def __init__(self) -> None:
        self.moments: dict[tuple[int, str], list[float]] = {}  # (seat, column) -> [count, sum, sumsq, min, max]
        self.histograms: dict[tuple[int, str], dict[float, int]] = {}

    def update(self, columns: Columns) -> None:
        """Add one chunk's per-seat columns (``seat`` plus ``SEAT_NUMERIC``)."""
        seats = columns["seat"]
        for seat in np.unique(seats):
            mask = seats == seat
            for name in SEAT_NUMERIC:
                values = columns[name][mask]
                key = (int(seat), name)
                moments = self.moments.setdefault(key, [0, 0.0, 0.0, np.inf, -np.inf])
                moments[0] += values.size
                moments[1] += float(values.sum())
                moments[2] += float((values.astype(np.float64) ** 2).sum())
                moments[3] = min(moments[3], float(values.min()))
                moments[4] = max(moments[4], float(values.max()))
                histogram = self.histograms.setdefault(key, {})
                for value, count in zip(*np.unique(values, return_counts=True), strict=True):
                    histogram[float(value)] = histogram.get(float(value), 0) + int(count)

    def tables(self, config: GameConfig) -> tuple[pa.Table, pa.Table]:
        """The aggregate table (one row per seat and column) and the histogram table (one row per value)."""
        rows = []
        for (seat, name), (count, total, squares, low, high) in sorted(self.moments.items()):
            mean = total / count
            variance = max(squares / count - mean * mean, 0.0) * count / max(count - 1, 1)
            rows.append({"seat": seat, "kind": config.seats[seat].kind, "level": config.seats[seat].level,
                         "profile": config.seats[seat].profile, "column": name, "count": count, "sum": total,
                         "mean": mean, "sd": variance ** 0.5, "min": low, "max": high})
        histogram_rows = [{"seat": seat, "column": name, "value": value, "count": count}
                          for (seat, name), histogram in sorted(self.histograms.items())
                          for value, count in sorted(histogram.items())]
        return pa.Table.from_pylist(rows), pa.Table.from_pylist(histogram_rows)
