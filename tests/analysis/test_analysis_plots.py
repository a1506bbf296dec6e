"""Every plot function runs on small frames and draws the expected axes, labels and artists."""

from __future__ import annotations

import matplotlib as mpl
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis import deck, plots, stats
from analysis.load import RunData, load_runs


@pytest.fixture
def small_study(make_run) -> RunData:
    runs = [make_run(f"solo_l{level}", [f"luna:{level}"], games=12, seed=level) for level in (2, 3, 4)]
    runs += [
        make_run(f"{profile}_l{level}", [f"scripted:{profile}", f"luna:{level}"], games=12, seed=20 + level)
        for profile in ("passive", "shares")
        for level in (2, 3)
    ]
    return load_runs(runs)


def _drawn(figure: Figure) -> Figure:
    """Draw once: layout problems only surface (as warnings, errors under -W error) at draw time."""
    assert isinstance(figure, Figure)
    assert isinstance(figure.canvas, FigureCanvasAgg)
    figure.canvas.draw()
    return figure


def _legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    return [] if legend is None else [text.get_text() for text in legend.get_texts()]


def _solo(data: RunData) -> pd.DataFrame:
    return data.seats[data.seats["opponents"] == ""]


def test_score_ecdf(small_study):
    figure = _drawn(plots.plot_score_ecdf(_solo(small_study)))
    (ax,) = figure.axes
    assert len(ax.lines) == 3
    assert ax.get_xlabel() == "Total score (CrypCoin)"
    assert "Share of games" in ax.get_ylabel()
    assert _legend_texts(ax) == ["level 2", "level 3", "level 4"]
    # The curve of a level ends at 1 and steps at the distinct scores only.
    solo = _solo(small_study)
    level_2 = solo.loc[solo["level"] == 2, "score_total"]
    assert ax.lines[0].get_ydata()[-1] == pytest.approx(1.0)
    assert len(ax.lines[0].get_xdata()) == level_2.nunique() + 1


def test_score_ecdf_from_value_counts_draws_the_same_curves(small_study):
    solo = _solo(small_study)
    counts = solo.groupby(["level", "score_total"]).size().rename("count").reset_index()
    from_games = _drawn(plots.plot_score_ecdf(solo)).axes[0]
    from_counts = _drawn(plots.plot_score_ecdf(counts, weight="count", kind=None)).axes[0]
    assert len(from_counts.lines) == len(from_games.lines) == 3
    for line, expected in zip(from_counts.lines, from_games.lines, strict=True):
        assert line.get_xydata().ravel().tolist() == pytest.approx(expected.get_xydata().ravel().tolist())


def test_category_breakdown(small_study):
    summary = stats.score_summary(_solo(small_study), by="level")
    figure = _drawn(plots.plot_category_breakdown(summary))
    (ax,) = figure.axes
    assert len(ax.patches) == 3 * 7
    assert ax.get_ylabel() == "Mean points (CrypCoin)"
    assert ax.get_xlabel() == "Level"
    assert [label.get_text() for label in ax.get_xticklabels()] == ["2", "3", "4"]
    assert _legend_texts(ax) == ["Cash", "Helium", "Research", "Astrogo", "TAWAC", "Skymine", "Minerva"]
    # Stacked: the top of each bar is the mean total (categories sum to the total).
    tops = {}
    for patch in ax.patches:
        x = round(patch.get_x() + patch.get_width() / 2)
        tops[x] = max(tops.get(x, 0.0), patch.get_y() + patch.get_height())
    totals = summary[summary["metric"] == "score_total"]["mean"].tolist()
    assert [tops[x] for x in sorted(tops)] == pytest.approx(totals)


def test_level_ladder_with_and_without_win_rates(small_study):
    solo_ladder = stats.level_ladder(_solo(small_study))
    figure = _drawn(plots.plot_level_ladder(solo_ladder))
    (ax,) = figure.axes
    assert len(ax.containers) == 1
    assert ax.get_ylabel() == "Change in mean total score (CrypCoin)"

    ladder = stats.level_ladder(small_study.seats, by="opponents")
    figure = _drawn(plots.plot_level_ladder(ladder, hue="opponents"))
    score_ax, win_ax = figure.axes
    assert len(score_ax.containers) == 3  # solo, passive, shares
    assert len(win_ax.containers) == 2  # win rates only exist against opponents
    assert _legend_texts(score_ax) == ["alone", "passive", "shares"]
    assert "percentage points" in win_ax.get_ylabel()
    with pytest.raises(ValueError, match="filter the table"):
        plots.plot_level_ladder(ladder)  # several rows per level without a hue


def test_level_ladder_ticks_name_a_level_below_that_is_not_the_next_lower(small_study):
    # a study of levels 0 and 8 drew its one step at a tick "8" over "Level (compared with the level below)": the
    # step 0→8 (+289 points), read as 7→8 (a QA pass, 2026-11-28)
    solo = _solo(small_study)
    gap = stats.level_ladder(solo[solo["level"] != 3])
    assert gap[["level", "level_below"]].values.tolist() == [[4, 2]]
    (ax,) = _drawn(plots.plot_level_ladder(gap)).axes
    assert [label.get_text() for label in ax.get_xticklabels()] == ["2→4"]
    # consecutive levels keep their plain ticks
    (ax,) = _drawn(plots.plot_level_ladder(stats.level_ladder(solo))).axes
    assert [label.get_text() for label in ax.get_xticklabels()] == ["3", "4"]


def test_reshuffle_timing(small_study):
    table = deck.reshuffles_by_round(small_study.rounds[small_study.rounds["opponents"] == ""])
    figure = _drawn(plots.plot_reshuffle_timing(table))
    (ax,) = figure.axes
    assert len(ax.lines) == 3
    assert ax.get_xlabel() == "Round"
    assert ax.get_ylabel() == "Reshuffles per game in the round"


def test_grade2_heatmap(small_study):
    table = deck.grade2_by_round(small_study.rounds[small_study.rounds["opponents"] == ""])
    figure = _drawn(plots.plot_grade2_heatmap(table))
    heatmap, colorbar = figure.axes
    assert len(heatmap.images) == 1
    assert heatmap.images[0].get_array().shape == (3, 7)
    assert (heatmap.get_xlabel(), heatmap.get_ylabel()) == ("Round", "Level")
    assert colorbar.get_ylabel() == "Grade-2 cards per game"
    by_token = _drawn(plots.plot_grade2_heatmap(table, column="grade2_by_token"))
    assert "by token" in by_token.axes[0].get_title()


def test_slot_first_use(small_study):
    table = deck.slot_first_use(_solo(small_study))
    figure = _drawn(plots.plot_slot_first_use(table))
    slot_a, slot_e = figure.axes
    assert (slot_a.get_title(), slot_e.get_title()) == ("Slot A", "Slot E")
    assert len(slot_a.lines) == len(slot_e.lines) == 3
    assert slot_a.get_ylabel() == "Share of games with the slot in use"
    assert list(slot_a.lines[0].get_xdata()) == list(range(1, 8))


def test_majority_by_round(small_study):
    table = deck.majority_by_round(small_study.rounds[small_study.rounds["opponents"] == ""])
    figure = _drawn(plots.plot_majority_by_round(table))
    panels = [ax for ax in figure.axes if ax.axison]
    assert [ax.get_title() for ax in panels] == ["Titanium", "Carbon", "Energy", "Minerals", "Scientists"]
    assert all(len(ax.lines) == 3 for ax in panels)
    assert all(ax.get_ylabel() == "Mean majority value" for ax in panels)
    legend_cells = [ax for ax in figure.axes if not ax.axison]
    assert _legend_texts(legend_cells[0]) == ["level 2", "level 3", "level 4"]


def test_blocking_curves(small_study):
    table = deck.blocking_probability(small_study.rounds, by=None)
    figure = _drawn(plots.plot_blocking_curves(table))
    panels = [ax for ax in figure.axes if ax.axison]
    assert len(panels) == 5
    assert all(len(ax.lines) == 7 for ax in panels)  # one per round
    assert panels[0].get_xlabel() == "Player's titanium total"
    assert panels[0].get_ylabel() == "P(Luna blocks the space)"
    per_level = deck.blocking_probability(small_study.rounds, by="level")
    figure = _drawn(plots.plot_blocking_curves(per_level[per_level["round"] == 3], hue="level"))
    assert all(len(ax.lines) == 3 for ax in figure.axes if ax.axison)
    with pytest.raises(ValueError, match="filter the table"):
        plots.plot_blocking_curves(per_level)


def test_win_rates(small_study):
    table = stats.win_rates(small_study.seats, by=["opponents", "level"])
    figure = _drawn(plots.plot_win_rates(table))
    (ax,) = figure.axes
    assert len(ax.containers) == 2
    assert _legend_texts(ax) == ["passive", "shares"]
    assert ax.get_xlabel() == "Luna's level"
    assert ax.get_ylabel() == "Luna's win rate (%, ties count half)"
    scripted = stats.win_rates(small_study.seats, by=["profile", "luna_level"], kind="scripted")
    figure = _drawn(plots.plot_win_rates(scripted, hue="profile", x="luna_level", player="Scripted player"))
    assert len(figure.axes[0].containers) == 2
    assert figure.axes[0].get_ylabel().startswith("Scripted player's win rate")
    # The markers sit at 100 × the table's win rates.
    passive = ax.containers[0].lines[0]
    expected = table[table["opponents"] == "passive"].sort_values("level")["win_rate"] * 100
    assert list(passive.get_ydata()) == pytest.approx(list(expected))


def test_variant_differences(make_run):
    base = load_runs([make_run("base", ["luna:4"], games=10, seed=3)]).seats
    variant = load_runs([make_run("variant", ["luna:4"], games=10, seed=3, score_shift=1)]).seats
    table = stats.paired_differences(base, variant)
    figure = _drawn(plots.plot_variant_differences(table))
    (ax,) = figure.axes
    assert len(ax.containers) == 1
    assert [label.get_text() for label in ax.get_yticklabels()][:2] == ["Total score", "Cash"]
    assert "CrypCoin" in ax.get_xlabel()
    assert ax.get_legend() is None  # a single series needs no legend: the title names it (a QA pass)
    assert ax.get_title() == "Variant against base: level 4"
    two_levels = pd.concat([table, table.assign(level=5)], ignore_index=True)
    figure = _drawn(plots.plot_variant_differences(two_levels))
    assert len(figure.axes[0].containers) == 2
    assert _legend_texts(figure.axes[0]) == ["level 4", "level 5"]
    assert figure.axes[0].get_title() == "Variant against base"


def test_style_is_local_and_levels_keep_their_colour():
    before = mpl.rcParams["axes.spines.top"]
    figure, axes = plots.new_figure(1, 2)
    assert axes.shape == (1, 2)
    assert figure.axes == list(axes.flat)
    assert mpl.rcParams["axes.spines.top"] == before
    assert plots.level_color(3) == plots.level_color(3)
    assert plots.level_color(0) != plots.level_color(8)


def test_level_ladder_plot_of_an_empty_ladder_with_a_hue(small_study):
    # a filter that keeps one level leaves no step; with a hue the offsets of no series raised
    # "zip() argument 2 is longer than argument 1" where without one the plot came out empty
    seats = small_study.seats
    ladder = stats.level_ladder(seats[seats["level"] == seats["level"].max()], by="opponents")
    assert ladder.empty
    figure = _drawn(plots.plot_level_ladder(ladder, hue="opponents"))
    assert figure.axes[0].containers == []


def test_an_opponent_keeps_its_colour_with_and_without_luna_alone(study_runs):
    # the level ladder (with Luna alone) drew "balanced" in tab10's second colour, the win rates (without) in its
    # first: the same opponent in two colours in figures side by side (a QA pass, 2026-11-27)
    from analysis.load import load_runs

    seats = load_runs(study_runs[:-1]).seats
    ladder = plots.plot_level_ladder(stats.level_ladder(seats, by="opponents"), hue="opponents")
    wins = plots.plot_win_rates(stats.win_rates(seats, by=["opponents", "level"]), hue="opponents")

    def colors(figure):
        return {bars.get_label(): mpl.colors.to_hex(bars.lines[0].get_color()) for ax in figure.axes
                for bars in ax.containers if not bars.get_label().startswith("_")}

    ladder_colors, win_colors = colors(ladder), colors(wins)
    assert {"balanced", "passive"} <= set(win_colors)
    for opponent in ("balanced", "passive"):
        assert ladder_colors[opponent] == win_colors[opponent]
