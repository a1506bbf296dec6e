"""Plots of the analysis tables: one function per figure, each returning a matplotlib Figure.

Figures are built with the object-oriented API on an Agg canvas, never through ``pyplot``: no
global figure registry fills up in long notebook sessions or batch reports, and nothing depends
on the interactive backend. Jupyter still displays a returned Figure inline.

Every function draws inside :func:`plot_style`, so all figures share one look; Luna's levels
always get the same colour (dark = easy level 0, light = hard level 8).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ParamSpec

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from analysis._frames import require_columns, select_kind
from analysis.schema import CATEGORIES, LUNA, MAJORITY_TYPES, SCORE_TOTAL, SWITCHED_SLOTS

#: The shared look of every figure; kept small on purpose.
STYLE: dict[str, Any] = {
    "figure.figsize": (7.0, 4.5),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "lines.linewidth": 1.6,
    # Fixed salt and no date: the same data gives byte-identical SVG files.
    "svg.hashsalt": "luna-balance",
}

MAX_LEVEL = 8
POINTS = "CrypCoin"
METRIC_LABELS: dict[str, str] = {
    SCORE_TOTAL: "Total score",
    **{f"score_{category}": category.capitalize() for category in CATEGORIES},
    "score_tawac": "TAWAC",
}

P = ParamSpec("P")


@contextmanager
def plot_style() -> Iterator[None]:
    """Context in which figures are drawn with the project's style (:data:`STYLE`)."""
    with mpl.rc_context(STYLE):
        yield


def _styled(function: Callable[P, Figure]) -> Callable[P, Figure]:
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
    return mpl.colormaps["viridis"](0.9 * min(max(level, 0), MAX_LEVEL) / MAX_LEVEL)


def _series_colors(hue: str, values: Sequence[Any]) -> dict[Any, Any]:
    if hue == "level":
        return {value: level_color(int(value)) for value in values}
    palette = mpl.colormaps["tab10"]
    return {value: palette(index % 10) for index, value in enumerate(values)}


def _series_label(hue: str, value: Any) -> str:
    if hue == "level":
        return f"level {value}"
    if value == "":
        return "alone" if hue == "opponents" else "(empty)"
    return str(value)


def _legend(axes: Axes, **options: Any) -> None:
    # legend() warns when nothing is labelled; only draw one when there is something to show.
    handles, _ = axes.get_legend_handles_labels()
    if handles:
        axes.legend(**options)


def _metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def _ensure_unique(table: pd.DataFrame, columns: Sequence[str], function: str) -> None:
    if table.duplicated(list(columns)).any():
        raise ValueError(f"{function}: several rows per ({', '.join(columns)}); filter the table to one group first")


@_styled
def plot_score_ecdf(
    seats: pd.DataFrame, metric: str = SCORE_TOTAL, hue: str = "level", kind: str | None = LUNA
) -> Figure:
    """Empirical cumulative distribution of a score, one line per level (or other ``hue``).

    Parameters
    ----------
    seats
        Seats frame.
    metric
        Score column, default the total.
    hue
        Column whose values get one line each.
    kind
        Seat kind plotted, default Luna.

    Returns
    -------
    Figure
        One axes with one step line per value of ``hue``.
    """
    data = select_kind(seats, kind)
    require_columns(data, [metric, hue], "plot_score_ecdf")
    figure, axes = new_figure()
    ax = axes[0, 0]
    values = sorted(data[hue].unique())
    colors = _series_colors(hue, values)
    for value in values:
        # One step per distinct score, not per game: millions of games stay a few hundred vertices.
        scores, counts = np.unique(data.loc[data[hue] == value, metric].dropna().to_numpy(), return_counts=True)
        shares = np.cumsum(counts) / counts.sum()
        ax.step(
            np.concatenate([scores[:1], scores]),
            np.concatenate([[0.0], shares]),
            where="post",
            label=_series_label(hue, value),
            color=colors[value],
        )
    ax.set_xlabel(f"{_metric_label(metric)} ({POINTS})")
    ax.set_ylabel("Share of games scoring at most x")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"Distribution of Luna's {_metric_label(metric).lower()}")
    _legend(ax, loc="lower right")
    return figure


@_styled
def plot_category_breakdown(summary: pd.DataFrame, x: str = "level") -> Figure:
    """Mean score per category as stacked bars, one bar per level (or other ``x``).

    Parameters
    ----------
    summary
        Output of :func:`analysis.stats.score_summary` grouped by ``x`` only.
    x
        Column giving the bars.

    Returns
    -------
    Figure
        One axes with ``len(x values) × 7`` bar patches and a legend of the categories.
    """
    require_columns(summary, [x, "metric", "mean"], "plot_category_breakdown")
    categories = [f"score_{category}" for category in CATEGORIES]
    table = summary[summary["metric"].isin(categories)]
    _ensure_unique(table, [x, "metric"], "plot_category_breakdown")
    wide = table.pivot(index=x, columns="metric", values="mean").reindex(columns=categories).fillna(0.0)
    figure, axes = new_figure()
    ax = axes[0, 0]
    positions = np.arange(len(wide))
    bottom = np.zeros(len(wide))
    palette = mpl.colormaps["tab10"]
    for index, category in enumerate(categories):
        heights = wide[category].to_numpy(dtype=float)
        ax.bar(positions, heights, bottom=bottom, color=palette(index), label=_metric_label(category), width=0.7)
        bottom += heights
    ax.set_xticks(positions, labels=[str(value) for value in wide.index])
    ax.set_xlabel(x.replace("_", " ").capitalize())
    ax.set_ylabel(f"Mean points ({POINTS})")
    ax.set_title("Luna's score by category")
    ax.grid(axis="x", visible=False)
    _legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def _offsets(count: int, spread: float = 0.24) -> np.ndarray:
    """Small x offsets so several series at the same x do not hide each other."""
    if count <= 1:
        return np.zeros(max(count, 1))
    return np.linspace(-spread / 2, spread / 2, count)


def _errorbar_series(
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
        groups = dict(list(table.groupby(hue, sort=True)))
        values = sorted(table[hue].unique()) if hue_values is None else list(hue_values)
        colors = _series_colors(hue, values)
        offsets = dict(zip(values, _offsets(len(values)), strict=True))
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
            label=None if hue is None else _series_label(hue, value),
        )


@_styled
def plot_level_ladder(ladder: pd.DataFrame, hue: str | None = None) -> Figure:
    """Step from each level to the one below, with 95 % intervals.

    Parameters
    ----------
    ladder
        Output of :func:`analysis.stats.level_ladder`.
    hue
        Optional group column (e.g. ``"opponents"``) drawn as separate series.

    Returns
    -------
    Figure
        One axes for the score step; a second for the win-rate step when the table has win
        rates. Each series is one errorbar container.
    """
    require_columns(ladder, ["level", "diff", "diff_low", "diff_high", "win_diff"], "plot_level_ladder")
    _ensure_unique(ladder, ["level", *([hue] if hue else [])], "plot_level_ladder")
    with_wins = ladder["win_diff"].notna().any()
    figure, axes = new_figure(1, 2 if with_wins else 1, width=10.0 if with_wins else 7.0)
    score_ax = axes[0, 0]
    hue_values = sorted(ladder[hue].unique()) if hue else None
    _errorbar_series(score_ax, ladder, "level", "diff", "diff_low", "diff_high", hue, hue_values=hue_values)
    _level_ticks(score_ax, ladder["level"])
    score_ax.axhline(0.0, color="0.4", linewidth=0.8)
    score_ax.set_xlabel("Level (compared with the level below)")
    score_ax.set_ylabel(f"Change in mean total score ({POINTS})")
    score_ax.set_title("Score step per level")
    _legend(score_ax)
    if with_wins:
        win_ax = axes[0, 1]
        wins = ladder[ladder["win_diff"].notna()]
        _errorbar_series(
            win_ax, wins, "level", "win_diff", "win_diff_low", "win_diff_high", hue, scale=100.0, hue_values=hue_values
        )
        _level_ticks(win_ax, wins["level"])
        win_ax.axhline(0.0, color="0.4", linewidth=0.8)
        win_ax.set_xlabel("Level (compared with the level below)")
        win_ax.set_ylabel("Change in Luna's win rate (percentage points)")
        win_ax.set_title("Win-rate step per level")
        _legend(win_ax)
    return figure


@_styled
def plot_reshuffle_timing(by_round: pd.DataFrame) -> Figure:
    """Mean reshuffles of Luna's deck in each round, one line per level.

    Parameters
    ----------
    by_round
        Output of :func:`analysis.deck.reshuffles_by_round` grouped by level.

    Returns
    -------
    Figure
        One axes with one line per level.
    """
    require_columns(by_round, ["level", "round", "mean_reshuffles"], "plot_reshuffle_timing")
    _ensure_unique(by_round, ["level", "round"], "plot_reshuffle_timing")
    figure, axes = new_figure()
    ax = axes[0, 0]
    for level, rows in by_round.groupby("level", sort=True):
        ax.plot(
            rows["round"],
            rows["mean_reshuffles"],
            marker="o",
            color=level_color(level),
            label=_series_label("level", level),
        )
    ax.set_xlabel("Round")
    ax.set_ylabel("Reshuffles per game in the round")
    ax.set_title("When Luna's deck is reshuffled")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _legend(ax)
    return figure


@_styled
def plot_grade2_heatmap(grade2: pd.DataFrame, column: str = "grade2_entered") -> Figure:
    """Grade-2 cards entering Luna's deck, as a level × round heatmap.

    Parameters
    ----------
    grade2
        Output of :func:`analysis.deck.grade2_by_round` grouped by level.
    column
        ``grade2_entered`` (all causes), ``grade2_by_reshuffle``, ``grade2_by_token`` or
        ``cumulative_entered``.

    Returns
    -------
    Figure
        The heatmap axes (one image, levels as rows) and its colour bar.
    """
    require_columns(grade2, ["level", "round", column], "plot_grade2_heatmap")
    _ensure_unique(grade2, ["level", "round"], "plot_grade2_heatmap")
    grid = grade2.pivot(index="level", columns="round", values=column).sort_index()
    figure, axes = new_figure()
    ax = axes[0, 0]
    values = np.ma.masked_invalid(grid.to_numpy(dtype=float))
    image = ax.imshow(values, aspect="auto", cmap="magma_r", origin="lower", vmin=0.0)
    ax.set_xticks(np.arange(grid.shape[1]), labels=[str(value) for value in grid.columns])
    ax.set_yticks(np.arange(grid.shape[0]), labels=[str(value) for value in grid.index])
    ax.grid(False)
    ax.set_xlabel("Round")
    ax.set_ylabel("Level")
    cause = {"grade2_by_reshuffle": " (by reshuffle)", "grade2_by_token": " (by token)"}.get(column, "")
    ax.set_title(f"Grade-2 cards entering Luna's deck{cause}")
    bar_label = "Grade-2 cards in the deck per game" if column == "cumulative_entered" else "Grade-2 cards per game"
    figure.colorbar(image, ax=ax, label=bar_label)
    if grid.size <= 120:
        # Numbers in the cells; the colour alone is hard to read off.
        threshold = 0.6 * (np.nanmax(grid.to_numpy(dtype=float)) if np.isfinite(values).any() else 1.0)
        for (row, col), value in np.ndenumerate(grid.to_numpy(dtype=float)):
            if np.isfinite(value):
                ax.text(
                    col,
                    row,
                    f"{value:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if value > threshold else "black",
                )
    return figure


@_styled
def plot_slot_first_use(first_use: pd.DataFrame) -> Figure:
    """Share of games in which slots A and E are in use by each round, one line per level.

    Parameters
    ----------
    first_use
        Output of :func:`analysis.deck.slot_first_use` grouped by level.

    Returns
    -------
    Figure
        Two axes (slot A, slot E) with one line per level.
    """
    require_columns(first_use, ["level", "slot", "first_round", "cumulative_share"], "plot_slot_first_use")
    _ensure_unique(first_use, ["level", "slot", "first_round"], "plot_slot_first_use")
    figure, axes = new_figure(1, len(SWITCHED_SLOTS), width=10.0, sharey=True)
    used = first_use[first_use["first_round"] > 0]
    for ax, slot in zip(axes.flat, SWITCHED_SLOTS, strict=True):
        for level, rows in used[used["slot"] == slot].groupby("level", sort=True):
            ax.plot(
                rows["first_round"],
                rows["cumulative_share"],
                marker="o",
                color=level_color(level),
                label=_series_label("level", level),
            )
        ax.set_title(f"Slot {slot}")
        ax.set_xlabel("Round")
        ax.set_ylim(-0.02, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0, 0].set_ylabel("Share of games with the slot in use")
    _legend(axes[0, -1], loc="upper left")
    figure.suptitle("When Luna's slots A and E come into play")
    return figure


def _panel_grid(count: int) -> tuple[Figure, list[Axes], Axes | None]:
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


def _shared_legend(figure: Figure, source: Axes, legend_cell: Axes | None) -> None:
    """One legend for all panels, in the spare grid cell so it never squeezes a panel."""
    handles, labels = source.get_legend_handles_labels()
    if not handles:
        return
    if legend_cell is not None:
        legend_cell.legend(handles, labels, loc="center left")
    else:
        figure.legend(handles, labels, loc="outside right upper")


def _level_ticks(ax: Axes, levels: Iterable[Any]) -> None:
    """Ticks at the levels (or rounds) present: integer positions, never fractional ones."""
    ticks = sorted({int(level) for level in levels})
    ax.set_xticks(ticks, labels=[str(tick) for tick in ticks])
    if ticks:
        # Room for the series offsets, and a sensible width when only one level is present.
        ax.set_xlim(ticks[0] - 0.5, ticks[-1] + 0.5)


@_styled
def plot_majority_by_round(majority: pd.DataFrame) -> Figure:
    """Mean majority values by round, one panel per majority type and one line per level.

    Parameters
    ----------
    majority
        Output of :func:`analysis.deck.majority_by_round` grouped by level.

    Returns
    -------
    Figure
        Five axes (titanium, carbon, energy, minerals, scientists).
    """
    require_columns(majority, ["level", "round", "majority", "mean"], "plot_majority_by_round")
    _ensure_unique(majority, ["level", "round", "majority"], "plot_majority_by_round")
    figure, panels, legend_cell = _panel_grid(len(MAJORITY_TYPES))
    for ax, kind in zip(panels, MAJORITY_TYPES, strict=True):
        for level, rows in majority[majority["majority"] == kind].groupby("level", sort=True):
            ax.plot(
                rows["round"], rows["mean"], marker="o", color=level_color(level), label=_series_label("level", level)
            )
        ax.set_title(kind.capitalize())
        ax.set_xlabel("Round")
        ax.set_ylabel("Mean majority value")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _shared_legend(figure, panels[-1], legend_cell)
    figure.suptitle("Luna's majority values by round")
    return figure


@_styled
def plot_blocking_curves(blocking: pd.DataFrame, hue: str = "round") -> Figure:
    """Probability that Luna blocks a player with total t, per majority type.

    Parameters
    ----------
    blocking
        Output of :func:`analysis.deck.blocking_probability`, filtered so that each
        (majority, ``hue``, total) occurs once (e.g. grouped by nothing, or one level selected).
    hue
        Column drawn as separate lines, default the round.

    Returns
    -------
    Figure
        Five axes, one per majority type, with one line per value of ``hue``.
    """
    require_columns(blocking, ["majority", hue, "total", "p_blocked"], "plot_blocking_curves")
    _ensure_unique(blocking, ["majority", hue, "total"], "plot_blocking_curves")
    figure, panels, legend_cell = _panel_grid(len(MAJORITY_TYPES))
    values = sorted(blocking[hue].unique())
    if hue == "round":
        cmap = mpl.colormaps["plasma"]
        colors = {value: cmap(0.85 * index / max(len(values) - 1, 1)) for index, value in enumerate(values)}
    else:
        colors = _series_colors(hue, values)
    for ax, kind in zip(panels, MAJORITY_TYPES, strict=True):
        rows = blocking[blocking["majority"] == kind]
        for value in values:
            series = rows[rows[hue] == value].sort_values("total")
            if series.empty:
                continue
            label = f"round {value}" if hue == "round" else _series_label(hue, value)
            ax.plot(series["total"], series["p_blocked"], marker=".", color=colors[value], label=label)
        ax.set_title(kind.capitalize())
        ax.set_xlabel(f"Player's {kind} total")
        ax.set_ylabel("P(Luna blocks the space)")
        ax.set_ylim(-0.02, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _shared_legend(figure, panels[-1], legend_cell)
    figure.suptitle("Blocking of majority bonus spaces")
    return figure


@_styled
def plot_win_rates(win_table: pd.DataFrame, hue: str = "opponents", x: str = "level", player: str = "Luna") -> Figure:
    """Win rate against level with Wilson 95 % intervals, one line per ``hue`` value.

    Parameters
    ----------
    win_table
        Output of :func:`analysis.stats.win_rates` grouped by ``[hue, x]``: Luna's seats by
        ``["opponents", "level"]`` (default), or scripted seats by ``["profile", "luna_level"]``.
    hue
        Column drawn as separate lines, default whom Luna plays against.
    x
        Level column on the x axis: ``"level"`` for Luna's seats, ``"luna_level"`` for scripted ones.
    player
        Whose win rate it is, for the axis label.

    Returns
    -------
    Figure
        One axes with one errorbar container per value of ``hue``.
    """
    require_columns(win_table, [x, hue, "win_rate", "ci_low", "ci_high"], "plot_win_rates")
    _ensure_unique(win_table, [x, hue], "plot_win_rates")
    figure, axes = new_figure()
    ax = axes[0, 0]
    _errorbar_series(ax, win_table, x, "win_rate", "ci_low", "ci_high", hue, scale=100.0)
    ax.set_xlabel("Luna's level")
    ax.set_ylabel(f"{player}'s win rate (%, ties count half)")
    ax.set_ylim(-2, 102)
    ax.set_title(f"{player}'s win rate by Luna's level")
    _level_ticks(ax, win_table[x])
    _legend(ax, title=hue.replace("_", " ").capitalize())
    return figure


@_styled
def plot_variant_differences(differences: pd.DataFrame, hue: str | None = "level") -> Figure:
    """Paired differences variant − base per score metric, with 95 % intervals.

    Parameters
    ----------
    differences
        Output of :func:`analysis.stats.paired_differences` or
        :func:`analysis.stats.variant_differences`.
    hue
        Column whose values are drawn as separate series (default the level; None for one).

    Returns
    -------
    Figure
        One axes, metrics on the y axis, one errorbar container per series.
    """
    require_columns(differences, ["metric", "diff", "ci_low", "ci_high"], "plot_variant_differences")
    series_keys = [column for column in ("variant", hue) if column and column in differences.columns]
    _ensure_unique(differences, ["metric", *series_keys], "plot_variant_differences")
    metrics = list(dict.fromkeys(differences["metric"]))
    figure, axes = new_figure(height=max(3.0, 0.45 * len(metrics) + 1.5))
    ax = axes[0, 0]
    positions = {metric: index for index, metric in enumerate(metrics)}
    groups = list(differences.groupby(series_keys, sort=True)) if series_keys else [((), differences)]
    palette = mpl.colormaps["tab10"]
    for index, (offset, (value, rows)) in enumerate(zip(_offsets(len(groups), 0.5), groups, strict=True)):
        values = value if isinstance(value, tuple) else (value,)
        label = ", ".join(_series_label(key, item) for key, item in zip(series_keys, values, strict=True))
        by_level = bool(series_keys) and series_keys[-1] == "level"
        color = level_color(int(values[-1])) if by_level else palette(index % 10)
        y = rows["metric"].map(positions).to_numpy(dtype=float) + offset
        centre = rows["diff"].to_numpy(dtype=float)
        errors = np.vstack(
            [centre - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - centre]
        )
        ax.errorbar(centre, y, xerr=errors, fmt="o", capsize=3, color=color, label=label or None)
    ax.axvline(0.0, color="0.4", linewidth=0.8)
    ax.set_yticks(np.arange(len(metrics)), labels=[_metric_label(metric) for metric in metrics])
    ax.invert_yaxis()
    ax.set_xlabel(f"Difference variant − base ({POINTS}, paired 95 % interval)")
    ax.set_ylabel("Score")
    ax.set_title("Variant against base")
    if len(groups) > 1:
        _legend(ax, loc="lower right")
    return figure
