"""The figures of the tuning commands, in the project's shared look (:mod:`analysis.plotting`)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis._frames import require_columns
from analysis.plotting import POINTS, legend, new_figure, styled
from analysis.tuning.options import SCORE_METRIC, WIN_METRIC

#: Parameters shown per metric in the tornado plot (the CSV has them all).
TORNADO_PARAMETERS = 20
_AXIS = {SCORE_METRIC: (f"Change of Luna's mean total score ({POINTS})", 1.0),
         WIN_METRIC: ("Change of Luna's win rate (percentage points)", 100.0)}


def _direction(change: str) -> str:
    return "decrease" if change.startswith("-") or change == "off" else "increase"


@styled
def plot_tornado(table: pd.DataFrame, metrics: Sequence[str], top: int = TORNADO_PARAMETERS) -> Figure:
    """A tornado plot: per metric, the parameters with the largest effects, a bar per direction of change.

    Parameters
    ----------
    table
        Rows ``parameter, change, metric, diff, ci_low, ci_high`` (``sensitivity.csv``); ``change`` is
        ``+1``/``-2``-style or ``on``/``off``.
    metrics
        The metrics to draw, one panel each, top to bottom.
    top
        Parameters per panel, largest effect at the top.

    Returns
    -------
    Figure
        One axes per metric; each parameter's decrease and increase as horizontal bars from 0 (of each
        direction the change with the largest effect, not necessarily the largest step: a token's -1 can
        move the metric more than its -2), with the paired 95 % interval as whiskers.
    """
    require_columns(table, ["parameter", "change", "metric", "diff", "ci_low", "ci_high"], "plot_tornado")
    shown = {metric: table[table["metric"] == metric] for metric in metrics}
    counts = [min(top, rows["parameter"].nunique()) for rows in shown.values()]
    figure, axes = new_figure(len(metrics), 1, width=8.0, height=sum(0.28 * n + 1.3 for n in counts))
    palette = mpl.colormaps["tab10"]
    colors = {"decrease": palette(0), "increase": palette(1)}
    for ax, (metric, rows) in zip(axes[:, 0], shown.items(), strict=True):
        label, scale = _AXIS.get(metric, (metric.replace("_", " "), 1.0))
        rows = rows.assign(direction=rows["change"].map(_direction), size=rows["diff"].abs())
        order = rows.groupby("parameter", sort=False)["size"].max().sort_values(ascending=False, kind="stable")
        names = list(order.index[:top])
        positions = {name: index for index, name in enumerate(names)}
        # per parameter and direction, the change with the largest effect (the ±2 step of a token, usually)
        largest = rows[rows["parameter"].isin(names)].sort_values("size", ascending=False, kind="stable")
        largest = largest.drop_duplicates(["parameter", "direction"])
        for offset, direction in ((-0.2, "decrease"), (0.2, "increase")):
            bars = largest[largest["direction"] == direction]
            if bars.empty:
                continue
            y = bars["parameter"].map(positions).to_numpy(dtype=float) + offset
            diff = bars["diff"].to_numpy(dtype=float) * scale
            errors = np.vstack([diff - bars["ci_low"].to_numpy(dtype=float) * scale,
                                bars["ci_high"].to_numpy(dtype=float) * scale - diff])
            ax.barh(y, diff, height=0.38, color=colors[direction], label=f"{direction} (largest effect)")
            ax.errorbar(diff, y, xerr=errors, fmt="none", ecolor="0.25", capsize=2, linewidth=0.8)
        ax.axvline(0.0, color="0.4", linewidth=0.8)
        ax.set_yticks(np.arange(len(names)), labels=names)
        ax.set_ylim(len(names) - 0.5, -0.5)  # the largest effect on top
        ax.set_xlabel(label)
        ax.grid(axis="y", visible=False)
        legend(ax, loc="best")
    return figure
