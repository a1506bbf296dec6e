"""The shared look of every figure: colours, figure creation and the drawing helpers (the style itself:
:mod:`analysis.style`).

Figures are built with the object-oriented API on an Agg canvas, never through ``pyplot``: no
global figure registry fills up in long notebook sessions or batch reports, and nothing depends
on the interactive backend. Jupyter still displays a returned Figure inline.

Every figure function (:mod:`analysis.plots`) draws inside :func:`plot_style`, so all figures share
one look; Luna's levels always get the same colour (dark = easy level 0, light = hard level 8).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ParamSpec

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis._frames import labels_in_order
from analysis.schema import CATEGORIES, CATEGORY_SCORES, SCORE_TOTAL
from analysis.style import STYLE, plot_style
from sim.constants import MAX_LEVEL, MIN_LEVEL

POINTS = "CrypCoin"
METRIC_LABELS: dict[str, str] = {
    SCORE_TOTAL: "Total score",
    **{column: category.capitalize() for column, category in zip(CATEGORY_SCORES, CATEGORIES, strict=True)},
    "score_tawac": "TAWAC",
}

P = ParamSpec("P")


def styled(function: Callable[P, Figure]) -> Callable[P, Figure]:
    """Decorator: the figure function draws inside :func:`plot_style`."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Figure:
        with plot_style():
            return function(*args, **kwargs)

    return wrapper


def new_figure(
    nrows: int = 1, ncols: int = 1, width: float | None = None, height: float | None = None, **subplot_options: Any
) -> tuple[Figure, np.ndarray]:
    """A Figure on an Agg canvas with a grid of axes.

    Parameters
    ----------
    nrows, ncols
        Grid of axes.
    width, height
        Size in inches; default from :data:`STYLE`.
    **subplot_options
        Passed to :meth:`matplotlib.figure.Figure.subplots` (e.g. ``sharey=True``).

    Returns
    -------
    tuple
        The figure and a 2-D array of its axes.
    """
    default_width, default_height = STYLE["figure.figsize"]
    figure = Figure(figsize=(width or default_width, height or default_height), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(nrows, ncols, squeeze=False, **subplot_options)
    return figure, axes


def level_color(level: int) -> tuple[float, float, float, float]:
    """The colour of one of Luna's levels, the same in every figure."""
    # Stop short of viridis' pale yellow end, which is hard to see on white.
    return mpl.colormaps["viridis"](0.9 * (min(max(level, MIN_LEVEL), MAX_LEVEL) - MIN_LEVEL) / (MAX_LEVEL - MIN_LEVEL))


#: Luna alone (``opponents`` ""): a grey of its own, so that each opponent keeps its colour in a figure with Luna
#: alone (the level ladder) and in one without (the win rates).
ALONE_COLOR = "0.3"


def series_colors(hue: str, values: Sequence[Any]) -> dict[Any, Any]:
    """One colour per series: the level colours for levels, else the tab10 palette in sorted order (Luna alone
    in :data:`ALONE_COLOR`)."""
    if hue == "level":
        return {value: level_color(int(value)) for value in values}
    palette = mpl.colormaps["tab10"]
    others = [value for value in labels_in_order(values) if value != ""]
    colors = {value: palette(index % 10) for index, value in enumerate(others)}
    return {value: ALONE_COLOR if value == "" else colors[value] for value in values}


def series_label(hue: str, value: Any) -> str:
    """Legend text of one series (``level 5``; ``alone`` for no opponents)."""
    if hue == "level":
        return f"level {value}"
    if value == "":
        return "alone" if hue == "opponents" else "(empty)"
    return str(value)


def legend(axes: Axes, **options: Any) -> None:
    """A legend when any artist is labelled; none otherwise."""
    # legend() warns when nothing is labelled; only draw one when there is something to show.
    handles, _ = axes.get_legend_handles_labels()
    if handles:
        axes.legend(**options)


def metric_label(metric: str) -> str:
    """Axis text of a score column."""
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def require_rows(table: pd.DataFrame, function: str, why: str) -> None:
    """Refuse an empty table with what makes one empty (``why``), rather than fail inside matplotlib."""
    if table.empty:
        raise ValueError(f"{function}: the table is empty: {why}")


def ensure_unique(table: pd.DataFrame, columns: Sequence[str], function: str) -> None:
    """Refuse a table with several rows per point: a line through them would zigzag silently."""
    if table.duplicated(list(columns)).any():
        raise ValueError(f"{function}: several rows per ({', '.join(columns)}); filter the table to one group first")


def series_offsets(count: int, spread: float = 0.24) -> np.ndarray:
    """Small x offsets so several series at the same x do not hide each other."""
    if count <= 1:  # no series has no offset: a plot of an empty table with a hue drew nothing but raised
        return np.zeros(count)
    return np.linspace(-spread / 2, spread / 2, count)


def errorbar_series(
    ax: Axes,
    table: pd.DataFrame,
    x: str,
    y: str,
    low: str,
    high: str,
    hue: str | None,
    scale: float = 1.0,
    hue_values: Sequence[Any] | None = None,
) -> None:
    """One errorbar series per ``hue`` value; ``hue_values`` fixes colours and offsets across panels."""
    if hue is None:
        groups = {None: table}
        colors: dict[Any, Any] = {None: "C0"}
        offsets = {None: 0.0}
    else:
        grouped = dict(list(table.groupby(hue, sort=False, observed=True)))
        groups = {value: grouped[value] for value in labels_in_order(grouped)}  # the legend's order
        values = labels_in_order(table[hue]) if hue_values is None else list(hue_values)
        colors = series_colors(hue, values)
        offsets = dict(zip(values, series_offsets(len(values)), strict=True))
    for value, rows in groups.items():
        rows = rows.sort_values(x)
        centre = rows[y].to_numpy(dtype=float) * scale
        errors = np.vstack(
            [centre - rows[low].to_numpy(dtype=float) * scale, rows[high].to_numpy(dtype=float) * scale - centre]
        )
        ax.errorbar(
            rows[x].to_numpy(dtype=float) + offsets[value],
            centre,
            yerr=errors,
            marker="o",
            capsize=3,
            color=colors[value],
            label=None if hue is None else series_label(hue, value),
        )


def panel_grid(count: int) -> tuple[Figure, list[Axes], Axes | None]:
    """Up to three panels per row; the first unused cell (if any) is returned for the legend."""
    columns = 3
    rows = int(np.ceil(count / columns))
    figure, axes = new_figure(rows, columns, width=11.0, height=3.4 * rows)
    cells = list(axes.flat)
    spare = cells[count:]
    for unused in spare[1:]:
        unused.remove()
    legend_cell = spare[0] if spare else None
    if legend_cell is not None:
        legend_cell.axis("off")
    return figure, cells[:count], legend_cell


def shared_legend(figure: Figure, source: Axes, legend_cell: Axes | None) -> None:
    """One legend for all panels, in the spare grid cell so it never squeezes a panel."""
    handles, labels = source.get_legend_handles_labels()
    if not handles:
        return
    if legend_cell is not None:
        legend_cell.legend(handles, labels, loc="center left")
    else:
        figure.legend(handles, labels, loc="outside right upper")


def level_ticks(ax: Axes, levels: Iterable[Any]) -> None:
    """Ticks at the levels (or rounds) present: integer positions, never fractional ones."""
    ticks = sorted({int(level) for level in levels})
    ax.set_xticks(ticks, labels=[str(tick) for tick in ticks])
    if ticks:
        # Room for the series offsets, and a sensible width when only one level is present.
        ax.set_xlim(ticks[0] - 0.5, ticks[-1] + 0.5)
