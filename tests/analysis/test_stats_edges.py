"""Known-answer tests for analysis/stats.py at its edges: each pins behaviour that a mutation audit
(mutmut over analysis/stats.py against tests/analysis, docs/reliability.md) showed no test pinned.

Known answers: Wilson bounds checked against scipy.stats.binomtest(...).proportion_ci(method="wilson") and against
the roots of (k/n - p)^2 = z^2 p (1 - p) / n; means, SDs and Student-t intervals by hand (t from scipy.stats.t.ppf).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from analysis.intervals import paired_difference, paired_difference_of_sums, wilson_interval
from analysis.load import RunData
from analysis.stats import (
    duel_row,
    interaction_summary,
    level_ladder,
    paired_differences,
    score_summary,
    variant_differences,
    win_rates,
)

LADDER_COLUMNS = ["level", "level_below", "paired", "n", "n_below", "mean", "mean_below", "diff", "diff_se",
                  "diff_low", "diff_high", "win_rate", "win_rate_below", "win_diff", "win_diff_low", "win_diff_high"]
PAIRED_COLUMNS = ["metric", "n", "mean_base", "mean_variant", "diff", "sd", "se", "ci_low", "ci_high"]
#: scipy.stats.t.ppf(0.975, df): the 95 % Student-t quantiles of the few-game examples below.
T95 = {1: 12.706204736174694, 2: 4.302652729749462, 3: 3.1824463052837078}


# ---------------------------------------------------------------- wilson_interval
def test_wilson_one_trial():
    # scipy: binomtest(0, 1) -> (0, 0.7934506856), binomtest(1, 1) -> (0.2065493144, 1)
    assert wilson_interval(0, 1) == pytest.approx((0.0, 0.7934506856227626), abs=1e-12)
    assert wilson_interval(1, 1) == pytest.approx((0.20654931437723745, 1.0), abs=1e-12)


def test_wilson_zero_trials_give_nan():
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)
    lows, highs = wilson_interval(np.array([0, 2]), np.array([0, 4]))  # an empty group beside a full one
    assert math.isnan(lows[0]) and math.isnan(highs[0]) and 0 < lows[1] < 0.5 < highs[1] < 1
    with pytest.raises(ValueError, match="between 0 and trials"):  # 3 of 0 gave NaN (a QA pass, 2026-11-26)
        wilson_interval(3, 0)


def test_wilson_scalar_and_array_mixed():
    lows, highs = wilson_interval(np.array([8, 5]), 10)
    assert lows == pytest.approx([0.4901624715, 0.2365930905]) and highs == pytest.approx([0.9433178485, 0.7634069095])
    lows, highs = wilson_interval(8, np.array([10, 20]))
    assert lows == pytest.approx([0.4901624715, 0.2188065324]) and highs == pytest.approx([0.9433178485, 0.6134184992])


def test_wilson_object_dtype_input_is_coerced():
    lows, highs = wilson_interval(pd.Series([8, 5], dtype=object), pd.Series([10, 10], dtype=object))
    assert lows == pytest.approx([0.4901624715, 0.2365930905]) and highs == pytest.approx([0.9433178485, 0.7634069095])


def test_wilson_lower_bound_is_exactly_zero_at_zero_successes():
    # The formula's centre - half_width is 0 only up to rounding (e.g. +2.8e-17 at n = 7).
    assert wilson_interval(0, 7)[0] == 0.0
    assert all(wilson_interval(0, n)[0] == 0.0 for n in range(1, 200))


def test_wilson_never_leaves_the_unit_interval_under_rounding():
    assert wilson_interval(1e-13, 10)[0] >= 0.0          # unclipped: -2.8e-17
    assert wilson_interval(1000 - 1e-11, 1000)[1] <= 1.0  # unclipped: 1.0000000000000002


# ---------------------------------------------------------------- level_ladder
def _independent(build_seats):
    rows = [{"run": "a", "game": g, "level": 1, "score_total": t} for g, t in enumerate([10, 20, 30])]
    rows += [{"run": "b", "game": g, "level": 2, "score_total": t} for g, t in enumerate([30, 40])]
    return build_seats(rows)


def test_level_ladder_counts_means_and_columns(build_seats):
    ladder = level_ladder(_independent(build_seats))
    assert list(ladder.columns) == LADDER_COLUMNS
    step = ladder.iloc[0]
    assert (step["n"], step["n_below"]) == (2, 3)
    assert (step["mean"], step["mean_below"]) == pytest.approx((35.0, 20.0))
    # No opponents: the win columns are float NaN (not None).
    assert ladder["win_rate"].dtype == np.float64 and ladder["win_rate_below"].dtype == np.float64
    assert math.isnan(step["win_rate"]) and math.isnan(step["win_rate_below"])


def test_level_ladder_with_one_level_is_empty_with_columns(build_seats):
    ladder = level_ladder(build_seats([{"game": 0, "level": 1}]))
    assert ladder.empty and list(ladder.columns) == LADDER_COLUMNS


def test_level_ladder_win_rates_need_opponents_at_both_levels(build_seats):
    rows = []
    for game, won in enumerate([1.0, 0.0]):   # level 1 against a scripted seat: 1 win in 2
        rows.append({"run": "a", "game": game, "seat": 0, "kind": "scripted", "level": -1, "won": 1 - won})
        rows.append({"run": "a", "game": game, "seat": 1, "level": 1, "score_total": 10 + game, "won": won})
    # level 2 plays solo
    rows += [{"run": "b", "game": g, "seat": 0, "level": 2, "score_total": 20 + g, "won": 1.0} for g in range(2)]
    step = level_ladder(build_seats(rows)).iloc[0]
    assert math.isnan(step["win_rate"]) and math.isnan(step["win_rate_below"]) and math.isnan(step["win_diff"])


@pytest.mark.parametrize(("rows", "diff", "variance"), [
    # Level 2 sits twice in game 0 (20, 30); level 1 in games 0 and 1 (10, 14): equal row counts but not a
    # pairing. Independent: diff = 25 - 12 = 13, se = sqrt(50/2 + 8/2) = sqrt(29). (Wrongly paired: 15 and 5.)
    ([{"game": 0, "seat": 0, "level": 2, "score_total": 20, "won": 0.0},
      {"game": 0, "seat": 1, "level": 2, "score_total": 30, "won": 1.0},
      {"game": 0, "seat": 2, "level": 1, "score_total": 10, "won": 0.0},
      {"game": 1, "seat": 0, "level": 1, "score_total": 14, "won": 1.0}], 13.0, 29),
    # Level 2 in games 0 and 1 (20, 24); level 1 twice in game 0 (10, 14). Independent: diff 10, se sqrt(8).
    ([{"game": 0, "seat": 0, "level": 2, "score_total": 20, "won": 1.0},
      {"game": 0, "seat": 1, "level": 1, "score_total": 10, "won": 0.0},
      {"game": 0, "seat": 2, "level": 1, "score_total": 14, "won": 0.0},
      {"game": 1, "seat": 0, "level": 2, "score_total": 24, "won": 1.0}], 10.0, 8),
], ids=["upper level twice in a game", "lower level twice in a game"])
def test_level_ladder_does_not_pair_when_a_level_repeats_in_a_game(build_seats, rows, diff, variance):
    step = level_ladder(build_seats(rows)).iloc[0]
    assert not step["paired"]
    assert step["diff"] == pytest.approx(diff) and step["diff_se"] == pytest.approx(math.sqrt(variance))


# ---------------------------------------------------------------- paired_differences / score_summary
def _base_variant(build_seats):
    base = build_seats([{"game": g, "level": 5, "score_total": t} for g, t in enumerate([10, 20, 30])])
    variant = build_seats([{"game": g, "level": 5, "score_total": t} for g, t in enumerate([12, 21, 36])])
    return base, variant


def test_paired_differences_columns_and_integer_n(build_seats):
    table = paired_differences(*_base_variant(build_seats), metrics=["score_total"])
    assert list(table.columns) == ["level", *PAIRED_COLUMNS]
    assert table["n"].dtype == np.int64


def test_paired_differences_with_two_group_keys(build_seats):
    base, variant = _base_variant(build_seats)
    table = paired_differences(base.assign(opponents=""), variant, by=["opponents", "level"], metrics=["score_total"])
    assert list(table.columns) == ["opponents", "level", *PAIRED_COLUMNS]
    assert table.loc[0, "level"] == 5 and table.loc[0, "diff"] == pytest.approx(3.0)


def test_paired_differences_rejects_a_game_and_seat_twice(build_seats):
    base, variant = _base_variant(build_seats)
    with pytest.raises(ValueError, match="the base frame holds a game and seat twice"):
        paired_differences(pd.concat([base, base], ignore_index=True), variant, metrics=["score_total"])
    with pytest.raises(ValueError, match="the variant frame holds a game and seat twice"):
        paired_differences(base, pd.concat([variant, variant], ignore_index=True), metrics=["score_total"])


def test_paired_differences_refuses_a_seat_whose_kind_differs_between_runs(build_seats):
    # Seat 1 is scripted in the base run and Luna in the variant. Keeping Luna's seats before pairing would
    # drop seat 1 from the base run and pair seat 0 alone: a result from runs with different seat mixes.
    base = build_seats([{"game": 0, "seat": 0, "level": 5, "score_total": 10},
                        {"game": 0, "seat": 1, "kind": "scripted", "level": -1, "score_total": 20}])
    variant = build_seats([{"game": 0, "seat": 0, "level": 5, "score_total": 12},
                           {"game": 0, "seat": 1, "level": 5, "score_total": 22}])
    with pytest.raises(ValueError, match=r"^paired_differences: the runs have different seat mixes: game 0 seat 1 "
                                         r"is scripted:-1 in base and luna:5 in variant$"):
        paired_differences(base, variant, metrics=["score_total"])


def test_paired_differences_keeps_the_chosen_kind_after_pairing(build_seats):
    # Seat 0 Luna (10 -> 12), seat 1 scripted (20 -> 26) in both runs: each kind's difference alone.
    rows = [{"game": 0, "seat": 0, "level": 5}, {"game": 0, "seat": 1, "kind": "scripted", "level": -1}]
    base = build_seats([dict(row, score_total=total) for row, total in zip(rows, [10, 20], strict=True)])
    variant = build_seats([dict(row, score_total=total) for row, total in zip(rows, [12, 26], strict=True)])
    assert paired_differences(base, variant, metrics=["score_total"])["diff"].tolist() == [2.0]
    assert paired_differences(base, variant, metrics=["score_total"], kind="scripted")["diff"].tolist() == [6.0]
    with pytest.raises(ValueError, match=r"^paired_differences: no luna seat appears in both runs$"):
        paired_differences(base[base["kind"] == "scripted"], variant[variant["kind"] == "scripted"],
                           metrics=["score_total"])


def test_score_summary_n_is_integer(build_seats):
    table = score_summary(build_seats([{"game": g, "level": 1, "score_total": t} for g, t in enumerate([10, 20])]),
                          metrics=["score_total"])
    assert table["n"].dtype == np.int64


# ---------------------------------------------------------------- variant_differences
def _runs(build_seats, manifests, extra=(), scripted=False):
    def run(name, variant, shift):
        rows = [{"game": g, "seat": 1, "level": 2, "score_total": 10 + g + shift} for g in range(3)]
        if scripted:
            rows += [{"game": g, "seat": 0, "kind": "scripted", "level": -1, "score_total": 100 + 10 * shift}
                     for g in range(3)]
        return build_seats(rows).assign(run=name, variant=variant, seats="luna:2")
    frames = [run("base", "base", 0), run("cheap", "cheap", 2), *(run(*spec) for spec in extra)]
    return RunData(seats=pd.concat(frames, ignore_index=True), rounds=pd.DataFrame(), manifests=manifests)


VD_COLUMNS = ["variant", "variant_run", "base_run", "level", *PAIRED_COLUMNS]


def test_variant_differences_labels_and_columns(build_seats):
    table = variant_differences(_runs(build_seats, {}), metrics=["score_total"])
    assert list(table.columns) == VD_COLUMNS
    assert table.loc[0, ["variant", "variant_run", "base_run", "level"]].tolist() == ["cheap", "cheap", "base", 2]
    assert table.loc[0, "diff"] == pytest.approx(2.0)   # without manifests the runs still pair


def test_variant_differences_by_none_and_by_level(build_seats):
    table = variant_differences(_runs(build_seats, {}), by=None, metrics=["score_total"])
    assert "level" not in table.columns and len(table) == 1


def test_variant_differences_compares_games_and_ignores_settings_only_one_side_records(build_seats):
    differ = {"base": {"config": {"seed": 1, "games": 3}}, "cheap": {"config": {"seed": 1, "games": 4}}}
    assert variant_differences(_runs(build_seats, differ), metrics=["score_total"]).empty
    one_sided = {"base": {"config": {"games": 3}}, "cheap": {"config": {"seed": 2, "games": 3}}}
    assert len(variant_differences(_runs(build_seats, one_sided), metrics=["score_total"])) == 1
    not_a_mapping = {"base": {"config": "seed=1"}, "cheap": {"config": {"seed": 1}}}
    assert len(variant_differences(_runs(build_seats, not_a_mapping), metrics=["score_total"])) == 1


def test_variant_differences_kind(build_seats):
    data = _runs(build_seats, {}, scripted=True)   # Luna +2 per game, scripted seat +20
    assert variant_differences(data, metrics=["score_total"])["diff"].tolist() == pytest.approx([2.0])
    assert variant_differences(data, metrics=["score_total"], kind="scripted")["diff"].tolist() == pytest.approx([20.0])


def test_variant_differences_two_variants_have_a_fresh_index(build_seats):
    table = variant_differences(_runs(build_seats, {}, extra=[("dear", "dear", -1)]), metrics=["score_total"])
    assert list(table.index) == [0, 1]
    assert table["diff"].tolist() == pytest.approx([2.0, -1.0])


def test_variant_differences_empty_has_columns(build_seats):
    seeds = {"base": {"config": {"seed": 1}}, "cheap": {"config": {"seed": 2}}}
    table = variant_differences(_runs(build_seats, seeds), metrics=["score_total"])
    assert table.empty and list(table.columns) == VD_COLUMNS


# ---------------------------------------------------------------- interaction_summary
def _scripted_vs_luna(build_seats):
    rows = [{"game": g, "seat": 0, "kind": "scripted", "level": -1, "profile": "tank"} for g in range(2)]
    rows += [{"game": g, "seat": 1, "level": 4} for g in range(2)]
    return build_seats(rows).assign(luna_level=4)


def test_interaction_summary_empty_has_columns(build_seats):
    table = interaction_summary(_scripted_vs_luna(build_seats))
    assert table.empty
    assert list(table.columns) == ["luna_level", "profile", "metric", "n", "mean", "sd", "sem", "median", "p10", "p90"]


def test_interaction_summary_ignores_counters_only_luna_seats_have(build_seats):
    frame = _scripted_vs_luna(build_seats)
    frame["blocked_energy"] = [np.nan, np.nan, 1.0, 3.0]
    assert interaction_summary(frame).empty


# ---------------------------------------------------------------- error messages (exact)
def test_error_messages_name_the_function(build_seats):
    frame = build_seats([{"game": 0, "level": 5}])
    with pytest.raises(ValueError, match=r"^win_rates: missing column\(s\): variant$"):
        win_rates(frame, by="variant")
    with pytest.raises(ValueError, match=r"^score_summary: missing column\(s\): variant$"):
        score_summary(frame, by="variant")
    with pytest.raises(ValueError, match=r"^level_ladder: missing column\(s\): variant$"):
        level_ladder(frame, by="variant")
    with pytest.raises(ValueError, match=r"^level_ladder: 'level' is always a key; do not pass it in by$"):
        level_ladder(frame, by="level")
    with pytest.raises(ValueError, match=r"^paired_differences base: missing column\(s\): variant$"):
        paired_differences(frame, frame, by="variant")
    with pytest.raises(ValueError, match=r"^paired_differences variant: missing column\(s\): score_x$"):
        paired_differences(frame.assign(score_x=0), frame, metrics=["score_x"])
    with pytest.raises(ValueError, match=r"^paired_differences: no \(game, seat\) appears in both runs$"):
        paired_differences(frame, build_seats([{"game": 7, "level": 5}]))
    with pytest.raises(ValueError, match=r"^paired_differences: the runs have different seat mixes: game 0 seat 0 "
                                         r"is luna:5 in base and luna:6 in variant$"):
        paired_differences(frame, build_seats([{"game": 0, "level": 6}]))


# ---------------------------------------------------------------- paired_difference / duel_row
def test_paired_difference_known_values():
    # d = 2, 1, 6: mean 3, sd sqrt(7), interval 3 -/+ t(2) sqrt(7/3) = (-3.572411, 9.572411)
    mean, sd, low, high = paired_difference(np.array([12, 21, 36]), np.array([10, 20, 30]))
    assert (mean, sd) == pytest.approx((3.0, math.sqrt(7)))
    assert (low, high) == pytest.approx((3 - T95[2] * math.sqrt(7 / 3), 3 + T95[2] * math.sqrt(7 / 3)))
    assert (low, high) == pytest.approx((-3.572411, 9.572411))
    # n = 2: d = 2, 1 -> mean 1.5, sd sqrt(0.5), se 0.5, interval 1.5 -/+ t(1) 0.5 = (-4.853102, 7.853102)
    assert paired_difference(np.array([12, 21]), np.array([10, 20])) == pytest.approx(
        (1.5, math.sqrt(0.5), 1.5 - T95[1] * 0.5, 1.5 + T95[1] * 0.5))


def test_paired_difference_too_few_games_gives_nan_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, sd, low, high = paired_difference(np.array([12]), np.array([10]))
        assert mean == 2.0 and all(math.isnan(x) for x in (sd, low, high))
        assert all(math.isnan(x) for x in paired_difference(np.array([], dtype=float), np.array([], dtype=float)))



def test_paired_difference_of_sums_known_values_and_too_few_games():
    # d = 2, 1, 6: n 3, sum 9, squares 41 -> the same numbers as the arrays give (above)
    assert paired_difference_of_sums(3, 9, 41) == pytest.approx(
        (3.0, math.sqrt(7), 3 - T95[2] * math.sqrt(7 / 3), 3 + T95[2] * math.sqrt(7 / 3)))
    mean, sd, low, high = paired_difference_of_sums(1, 2, 4)
    assert mean == 2.0 and all(math.isnan(x) for x in (sd, low, high))
    assert all(math.isnan(x) for x in paired_difference_of_sums(0, 0, 0))
    assert paired_difference_of_sums(4, 0, 0) == (0.0, 0.0, 0.0, 0.0)  # nothing changed: 0, no interval


def test_paired_difference_of_sums_agrees_with_the_arrays_where_float_sums_lose_digits():
    """The readings' sums (analysis/readings.py) are exact; the arrays' version rounds as it sums, so the two agree
    to rounding, here on a million differences of a large offset (where a float sum of squares would lose digits)."""
    rng = np.random.default_rng(5)
    before = rng.integers(0, 200, 1_000_000)
    after = before + 1_000 + rng.integers(-30, 31, before.size)
    d = after - before
    mean, sd, low, high = paired_difference_of_sums(d.size, int(d.sum()), int(np.dot(d, d)))
    assert (mean, sd, low, high) == pytest.approx(paired_difference(after, before), rel=1e-12)
    assert mean == d.sum() / d.size and sd == pytest.approx(np.std(d - 1_000, ddof=1), rel=1e-13)

def test_duel_row_known_values():
    # won 1, 0.5, 0, 1 -> 2.5 of 4; Wilson(2.5, 4) = (0.2194265201, 0.9081007708) (roots of the score quadratic).
    # Score differences 10, 0, -8, 10: mean 3, sd sqrt(76), se sqrt(76)/2 -> 3 -/+ t(3) sqrt(76)/2 = 3 -/+ 13.871.
    row = duel_row(np.array([1.0, 0.5, 0.0, 1.0]), np.array([30, 25, 20, 40]), np.array([20, 25, 28, 30]))
    assert list(row) == ["games", "wins", "win_rate", "ci_low", "ci_high", "score_diff", "diff_low", "diff_high"]
    assert (row["games"], row["wins"], row["win_rate"]) == (4, 2.5, 0.625)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((0.2194265201, 0.9081007708))
    half = T95[3] * math.sqrt(76) / 2
    assert (row["score_diff"], row["diff_low"], row["diff_high"]) == pytest.approx((3.0, 3 - half, 3 + half))
