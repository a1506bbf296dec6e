"""Seats labels in the report's tables, columns and legends: by profile, then strength as a number (a QA pass: text
order put ``balanced`` (strength 1) before ``balanced@0.8``, and ``balanced@10`` before ``balanced@2``)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis import plots
from analysis._frames import in_label_order, label_key
from analysis.study.findings import findings_table

STRENGTHS_AS_TEXT = ["", "balanced", "balanced@0.8", "balanced@1.2", "balanced@10", "balanced@2", "tank"]
STRENGTHS_IN_ORDER = ["", "balanced@0.8", "balanced", "balanced@1.2", "balanced@2", "balanced@10", "tank"]


def test_a_label_sorts_by_profile_then_strength_as_a_number():
    assert sorted(STRENGTHS_AS_TEXT) == STRENGTHS_AS_TEXT  # what text order gave
    assert sorted(STRENGTHS_AS_TEXT, key=label_key) == STRENGTHS_IN_ORDER
    assert sorted(["balanced,tank@1.2", "balanced,tank", "balanced@0.8,tank"], key=label_key) == [
        "balanced@0.8,tank", "balanced,tank", "balanced,tank@1.2"]
    assert sorted([10, 2, 1], key=label_key) == [1, 2, 10]  # levels and rounds stay numbers


def test_rows_of_a_table_follow_the_label_order_within_the_columns_before_it():
    table = pd.DataFrame({"variant": ["base"] * 4 + ["big"] * 2,
                          "opponents": ["balanced", "balanced", "balanced@0.8", "balanced@0.8", "balanced",
                                        "balanced@2"],
                          "level": [4, 5, 4, 5, 4, 4]})
    ordered = in_label_order(table)
    assert ordered[["variant", "opponents", "level"]].values.tolist() == [
        ["base", "balanced@0.8", 4], ["base", "balanced@0.8", 5], ["base", "balanced", 4], ["base", "balanced", 5],
        ["big", "balanced", 4], ["big", "balanced@2", 4]]
    assert list(ordered.index) == list(range(6))  # a table of positions keeps positions
    no_labels = table.drop(columns="opponents")
    assert in_label_order(no_labels) is no_labels  # a table without the column is left as it is


def test_findings_columns_follow_the_label_order():
    scores = pd.DataFrame({"level": [5], "mean": [400.0], "low": [399.0], "high": [401.0]})
    steps = pd.DataFrame(columns=["level", "level_below", "diff", "diff_low", "diff_high"])
    win_rates = pd.DataFrame({"opponent": ["balanced", "balanced@0.8", "balanced@10", "balanced@2"], "level": 5,
                              "win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6})
    columns = list(findings_table(scores, steps, win_rates).columns)
    assert columns[3:] == ["balanced@0.8 wins %", "balanced wins %", "balanced@2 wins %", "balanced@10 wins %"]


def test_win_rate_legend_follows_the_label_order():
    table = pd.DataFrame({"opponents": ["balanced", "balanced@0.8", "balanced@10", "balanced@2"], "level": 5,
                          "games": 100, "wins": 50.0, "win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6})
    figure = plots.plot_win_rates(table, hue="opponents")
    assert isinstance(figure, Figure)
    texts = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert texts == ["balanced@0.8", "balanced", "balanced@2", "balanced@10"], texts
