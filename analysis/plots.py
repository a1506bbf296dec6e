"""Plots of the analysis tables: one function per figure, each returning a matplotlib Figure.

Every function draws inside :func:`analysis.plotting.plot_style`, so all figures share one look (see
:mod:`analysis.plotting` for the style, the level colours and the drawing helpers; its public names
are importable from here too).
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from analysis._frames import labels_in_order, require_columns, select_kind
from analysis.intervals import difference_interval
from analysis.plotting import (
    METRIC_LABELS,
    POINTS,
    STYLE,
    ensure_unique,
    errorbar_series,
    legend,
    level_color,
    level_ticks,
    metric_label,
    new_figure,
    panel_grid,
    plot_style,
    require_rows,
    series_colors,
    series_label,
    series_offsets,
    shared_legend,
    styled,
)
from analysis.schema import CATEGORY_SCORES, LUNA, MAJORITY_TYPES, SCORE_TOTAL, SWITCHED_SLOTS

# The style and helpers are part of this module's public API (notebooks call plots.new_figure, ...).
__all__ = [
    "METRIC_LABELS",
    "POINTS",
    "STYLE",
    "level_color",
    "new_figure",
    "plot_blocking_curves",
    "plot_category_breakdown",
    "plot_grade2_heatmap",
    "plot_level_ladder",
    "plot_majority_by_round",
    "plot_reshuffle_timing",
    "plot_score_ecdf",
    "plot_slot_first_use",
    "plot_style",
    "plot_variant_differences",
    "plot_variant_scores",
    "plot_win_rates",
]


@styled
def plot_score_ecdf(
    seats: pd.DataFrame, metric: str = SCORE_TOTAL, hue: str = "level", kind: str | None = LUNA,
    weight: str | None = None,
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
    weight
        Column counting the games each row stands for (a histogram: one row per score value);
        None when each row is one game.

    Returns
    -------
    Figure
        One axes with one step line per value of ``hue``.
    """
    data = select_kind(seats, kind)
    require_columns(data, [metric, hue, *([weight] if weight else [])], "plot_score_ecdf")
    figure, axes = new_figure()
    ax = axes[0, 0]
    values = labels_in_order(data[hue])
    colors = series_colors(hue, values)
    for value in values:
        # One step per distinct score, not per game: millions of games stay a few hundred vertices.
        rows = data[(data[hue] == value) & data[metric].notna()]
        if weight is None:
            scores, counts = np.unique(rows[metric].to_numpy(), return_counts=True)
        else:
            summed = rows.groupby(metric, sort=True, observed=True)[weight].sum()
            scores, counts = summed.index.to_numpy(), summed.to_numpy()
        shares = np.cumsum(counts) / counts.sum()
        ax.step(
            np.concatenate([scores[:1], scores]),
            np.concatenate([[0.0], shares]),
            where="post",
            label=series_label(hue, value),
            color=colors[value],
        )
    ax.set_xlabel(f"{metric_label(metric)} ({POINTS})")
    ax.set_ylabel("Share of games scoring at most x")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"Distribution of Luna's {metric_label(metric).lower()}")
    legend(ax, loc="lower right")
    return figure


@styled
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
    categories = list(CATEGORY_SCORES)
    table = summary[summary["metric"].isin(categories)]
    ensure_unique(table, [x, "metric"], "plot_category_breakdown")
    wide = table.pivot(index=x, columns="metric", values="mean").reindex(columns=categories).fillna(0.0)
    figure, axes = new_figure()
    ax = axes[0, 0]
    positions = np.arange(len(wide))
    bottom = np.zeros(len(wide))
    palette = mpl.colormaps["tab10"]
    for index, category in enumerate(categories):
        heights = wide[category].to_numpy(dtype=float)
        ax.bar(positions, heights, bottom=bottom, color=palette(index), label=metric_label(category), width=0.7)
        bottom += heights
    ax.set_xticks(positions, labels=[str(value) for value in wide.index])
    ax.set_xlabel(x.replace("_", " ").capitalize())
    ax.set_ylabel(f"Mean points ({POINTS})")
    ax.set_title("Luna's score by category")
    ax.grid(axis="x", visible=False)
    legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def _step_ticks(ax: Axes, ladder: pd.DataFrame) -> None:
    """Ticks at the levels, each labelled ``3→5`` when its step is from a level other than the next lower one: the
    axis says "compared with the level below", which a reader takes for ``level - 1`` (a study of levels 3 and 5)."""
    level_ticks(ax, ladder["level"])
    if "level_below" not in ladder.columns:
        return
    labels = []
    for level in ax.get_xticks():
        below = sorted({int(value) for value in ladder.loc[ladder["level"] == level, "level_below"]})
        labels.append(str(int(level)) if below == [int(level) - 1] else
                      f"{'/'.join(str(value) for value in below)}→{int(level)}")
    ax.set_xticks(ax.get_xticks(), labels=labels)


@styled
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
    ensure_unique(ladder, ["level", *([hue] if hue else [])], "plot_level_ladder")
    with_wins = ladder["win_diff"].notna().any()
    figure, axes = new_figure(1, 2 if with_wins else 1, width=10.0 if with_wins else 7.0)
    score_ax = axes[0, 0]
    hue_values = labels_in_order(ladder[hue]) if hue else None
    errorbar_series(score_ax, ladder, "level", "diff", "diff_low", "diff_high", hue, hue_values=hue_values)
    _step_ticks(score_ax, ladder)
    score_ax.axhline(0.0, color="0.4", linewidth=0.8)
    score_ax.set_xlabel("Level (compared with the level below)")
    score_ax.set_ylabel(f"Change in mean total score ({POINTS})")
    score_ax.set_title("Score step per level")
    legend(score_ax)
    if with_wins:
        win_ax = axes[0, 1]
        wins = ladder[ladder["win_diff"].notna()]
        errorbar_series(
            win_ax, wins, "level", "win_diff", "win_diff_low", "win_diff_high", hue, scale=100.0, hue_values=hue_values
        )
        _step_ticks(win_ax, wins)
        win_ax.axhline(0.0, color="0.4", linewidth=0.8)
        win_ax.set_xlabel("Level (compared with the level below)")
        win_ax.set_ylabel("Change in Luna's win rate (percentage points)")
        win_ax.set_title("Win-rate step per level")
        legend(win_ax)
    return figure


@styled
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
    ensure_unique(by_round, ["level", "round"], "plot_reshuffle_timing")
    figure, axes = new_figure()
    ax = axes[0, 0]
    for level, rows in by_round.groupby("level", sort=True, observed=True):
        ax.plot(
            rows["round"],
            rows["mean_reshuffles"],
            marker="o",
            color=level_color(level),
            label=series_label("level", level),
        )
    ax.set_xlabel("Round")
    ax.set_ylabel("Reshuffles per game in the round")
    ax.set_title("When Luna's deck is reshuffled")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    legend(ax)
    return figure


@styled
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
    ensure_unique(grade2, ["level", "round"], "plot_grade2_heatmap")
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


@styled
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
    ensure_unique(first_use, ["level", "slot", "first_round"], "plot_slot_first_use")
    figure, axes = new_figure(1, len(SWITCHED_SLOTS), width=10.0, sharey=True)
    used = first_use[first_use["first_round"] > 0]
    for ax, slot in zip(axes.flat, SWITCHED_SLOTS, strict=True):
        for level, rows in used[used["slot"] == slot].groupby("level", sort=True, observed=True):
            ax.plot(
                rows["first_round"],
                rows["cumulative_share"],
                marker="o",
                color=level_color(level),
                label=series_label("level", level),
            )
        ax.set_title(f"Slot {slot}")
        ax.set_xlabel("Round")
        ax.set_ylim(-0.02, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0, 0].set_ylabel("Share of games with the slot in use")
    legend(axes[0, -1], loc="upper left")
    figure.suptitle("When Luna's slots A and E come into play")
    return figure


@styled
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
    ensure_unique(majority, ["level", "round", "majority"], "plot_majority_by_round")
    figure, panels, legend_cell = panel_grid(len(MAJORITY_TYPES))
    for ax, kind in zip(panels, MAJORITY_TYPES, strict=True):
        for level, rows in majority[majority["majority"] == kind].groupby("level", sort=True, observed=True):
            ax.plot(
                rows["round"], rows["mean"], marker="o", color=level_color(level), label=series_label("level", level)
            )
        ax.set_title(kind.capitalize())
        ax.set_xlabel("Round")
        ax.set_ylabel("Mean majority value")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    shared_legend(figure, panels[-1], legend_cell)
    figure.suptitle("Luna's majority values by round")
    return figure


@styled
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
    ensure_unique(blocking, ["majority", hue, "total"], "plot_blocking_curves")
    figure, panels, legend_cell = panel_grid(len(MAJORITY_TYPES))
    values = labels_in_order(blocking[hue])
    if hue == "round":
        cmap = mpl.colormaps["plasma"]
        colors = {value: cmap(0.85 * index / max(len(values) - 1, 1)) for index, value in enumerate(values)}
    else:
        colors = series_colors(hue, values)
    for ax, kind in zip(panels, MAJORITY_TYPES, strict=True):
        rows = blocking[blocking["majority"] == kind]
        for value in values:
            series = rows[rows[hue] == value].sort_values("total")
            if series.empty:
                continue
            label = f"round {value}" if hue == "round" else series_label(hue, value)
            ax.plot(series["total"], series["p_blocked"], marker=".", color=colors[value], label=label)
        ax.set_title(kind.capitalize())
        ax.set_xlabel(f"Player's {kind} total")
        ax.set_ylabel("P(Luna blocks the space)")
        ax.set_ylim(-0.02, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    shared_legend(figure, panels[-1], legend_cell)
    figure.suptitle("Blocking of majority bonus spaces")
    return figure


@styled
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
    require_rows(win_table, "plot_win_rates", "no group has an opponent (a win rate needs games of two seats or more)")
    ensure_unique(win_table, [x, hue], "plot_win_rates")
    figure, axes = new_figure()
    ax = axes[0, 0]
    errorbar_series(ax, win_table, x, "win_rate", "ci_low", "ci_high", hue, scale=100.0)
    ax.set_xlabel("Luna's level")
    ax.set_ylabel(f"{player}'s win rate (%, ties count half)")
    ax.set_ylim(-2, 102)
    ax.set_title(f"{player}'s win rate by Luna's level")
    level_ticks(ax, win_table[x])
    legend(ax, title=hue.replace("_", " ").capitalize())
    return figure


@styled
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
    require_rows(differences, "plot_variant_differences",
                 "no variant run has a base run of the same seats, games and seed to pair with")
    series_keys = [column for column in ("variant", hue) if column and column in differences.columns]
    ensure_unique(differences, ["metric", *series_keys], "plot_variant_differences")
    metrics = list(dict.fromkeys(differences["metric"]))
    figure, axes = new_figure(height=max(3.0, 0.45 * len(metrics) + 1.5))
    ax = axes[0, 0]
    positions = {metric: index for index, metric in enumerate(metrics)}
    groups = list(differences.groupby(series_keys, sort=True, observed=True)) if series_keys else [((), differences)]
    palette = mpl.colormaps["tab10"]
    for index, (offset, (value, rows)) in enumerate(zip(series_offsets(len(groups), 0.5), groups, strict=True)):
        values = value if isinstance(value, tuple) else (value,)
        label = ", ".join(series_label(key, item) for key, item in zip(series_keys, values, strict=True))
        by_level = bool(series_keys) and series_keys[-1] == "level"
        color = level_color(int(values[-1])) if by_level else palette(index % 10)
        y = rows["metric"].map(positions).to_numpy(dtype=float) + offset
        centre = rows["diff"].to_numpy(dtype=float)
        errors = np.vstack(
            [centre - rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float) - centre]
        )
        ax.errorbar(centre, y, xerr=errors, fmt="o", capsize=3, color=color, label=label or None)
    ax.axvline(0.0, color="0.4", linewidth=0.8)
    ax.set_yticks(np.arange(len(metrics)), labels=[metric_label(metric) for metric in metrics])
    ax.invert_yaxis()
    ax.set_xlabel(f"Difference variant − base ({POINTS}, paired 95 % interval)")
    ax.set_ylabel("Score")
    if len(groups) > 1:
        ax.set_title("Variant against base")
        legend(ax, loc="lower right")
    else:  # no legend with one series: the title names it (a notebook's level-5 figure said neither)
        ax.set_title(f"Variant against base{': ' + label if label else ''}")
    return figure


@styled
def plot_variant_scores(summary: pd.DataFrame) -> Figure:
    """Luna's mean total score by level for the base and each variant (95 % intervals), side by side.

    Parameters
    ----------
    summary
        Output of :func:`analysis.stats.score_summary` of the total score grouped by
        ``["variant", "level"]``.

    Returns
    -------
    Figure
        One axes with one errorbar container per variant.
    """
    require_columns(summary, ["variant", "level", "n", "mean", "sem"], "plot_variant_scores")
    ensure_unique(summary, ["variant", "level"], "plot_variant_scores")  # score_summary's default: 8 metrics
    figure, axes = new_figure()
    ax = axes[0, 0]
    low, high = difference_interval(summary["mean"], summary["sem"], summary["n"] - 1)
    table = summary.assign(ci_low=low, ci_high=high)
    errorbar_series(ax, table, "level", "mean", "ci_low", "ci_high", "variant")
    level_ticks(ax, table["level"])
    ax.set_xlabel("Luna's level")
    ax.set_ylabel(f"Mean total score ({POINTS})")
    ax.set_title("Luna alone: base and variants")
    legend(ax, title="Variant")
    return figure
