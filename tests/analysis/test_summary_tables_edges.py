"""Known-answer tests for analysis/study/summary_tables.py and analysis/intervals.py at their edges: each pins
behaviour that a mutation audit of the summary-based tables and the intervals (a QA pass, 2026-11-28) showed no
test pinned. The study's own parity test (tests/test_study_summaries.py) builds both report paths from one small
study, whose levels all have the same number of games and more than one game each, so it cannot see these.

Known answers: by hand, and by the frame-based namesakes in analysis/stats.py on the same seats (the route the
summary tables are checked against).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import deck, stats
from analysis.intervals import (
    newcombe_interval,
    paired_proportion_interval,
    paired_share_difference,
    t95,
    welch_df,
    wilson_interval,
)
from analysis.schema import MAJORITY_COLUMNS, MAJORITY_TYPES
from analysis.study import summary_tables as st


def _histogram(seats: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The study's value counts of ``columns`` from a seats frame: one row per run, seat, value (with n_seats)."""
    seats = seats.assign(n_seats=seats.groupby(["run", "game"])["seat"].transform("size"))
    if "variant" not in seats.columns:
        seats = seats.assign(variant="base")
    labels = ["run", "variant", "n_seats", "seat", "kind", "level", "profile"]
    long = seats.melt(id_vars=labels, value_vars=columns, var_name="column", value_name="value")
    long["value"] = long["value"].astype(float)
    return long.groupby([*labels, "column", "value"], sort=True).size().rename("count").reset_index()


def _runs(build_seats, scores_by_level: dict[int, list[float]]) -> pd.DataFrame:
    """Luna alone, each level in a run of its own (as a study's parts): one seat per game."""
    frames = [build_seats([{"game": g, "level": level, "score_total": t} for g, t in enumerate(scores)]).assign(
        run=f"L{level}") for level, scores in scores_by_level.items()]
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------- level_ladder
def test_level_ladder_welch_degrees_of_freedom_pair_each_level_with_its_own_games(build_seats):
    # Level 1: 10, 20, 30 (n 3, SE² 100/3); level 2: 30, 40 (n 2, SE² 25). diff 15, SE² 175/3, and Welch's
    # df = (175/3)² / (25²/1 + (100/3)²/2) = 49/17 (each SE⁴ over its own level's n - 1; swapped: 2.39).
    seats = _runs(build_seats, {1: [10, 20, 30], 2: [30, 40]})
    # by the variant (by=None, the default, raised for any two levels until it was mended: the test below)
    step = st.level_ladder(_histogram(seats, ["score_total", "won"]), by="variant").iloc[0]
    se = math.sqrt(175 / 3)
    assert (step["n"], step["n_below"], step["diff"]) == (2, 3, pytest.approx(15.0))
    assert step["diff_se"] == pytest.approx(se, rel=1e-12)
    half = t95(49 / 17) * se
    assert (step["diff_low"], step["diff_high"]) == pytest.approx((15.0 - half, 15.0 + half), rel=1e-12)
    frame_step = stats.level_ladder(seats).iloc[0]
    assert (step["diff_low"], step["diff_high"]) == pytest.approx((frame_step["diff_low"], frame_step["diff_high"]),
                                                                  rel=1e-12)



def test_level_ladder_with_no_group_keys_is_the_frame_ladder(build_seats):
    """Regression: ``level_ladder(hist)``, its default ``by=None``, raised "zip() argument 2 is longer than argument
    1" for any two levels (a tuple of one level looked up on an index of levels alone); the study always groups by
    opponents, so no study met it (the QA pass that added this file)."""
    seats = _runs(build_seats, {1: [10, 20, 30], 2: [30, 40], 4: [25, 45, 50, 60]})
    ladder = st.level_ladder(_histogram(seats, ["score_total", "won"]))
    frame = stats.level_ladder(seats)
    columns = ["level", "level_below", "n", "n_below", "mean", "mean_below", "diff", "diff_low", "diff_high"]
    assert ladder[["level", "level_below"]].to_numpy().tolist() == [[2, 1], [4, 2]]
    pd.testing.assert_frame_equal(ladder[columns], frame[columns], check_dtype=False, rtol=1e-12)

# ---------------------------------------------------------------- summary_stats
def test_summary_stats_quantiles_of_a_single_game_are_its_value(build_seats):
    # One game at level 1: median, p10 and p90 are its score (numpy's quantiles of one value), beside a level of
    # five games whose quantiles interpolate: 1, 2, 2, 5, 9 -> median 2, p10 1.4, p90 7.4.
    seats = _runs(build_seats, {1: [7], 2: [5, 2, 9, 2, 1]})
    table = st.summary_stats(_histogram(seats, ["score_total"]), metrics=["score_total"])
    assert table[["level", "n"]].values.tolist() == [[1, 1], [2, 5]]
    assert table[["median", "p10", "p90"]].to_numpy() == pytest.approx(np.array([[7, 7, 7], [2, 1.4, 7.4]]),
                                                                        abs=1e-12)
    assert math.isnan(table["sd"].iloc[0]) and math.isnan(table["sem"].iloc[0])
    frames = stats.score_summary(seats, metrics=["score_total"])
    assert table[["median", "p10", "p90"]].to_numpy() == pytest.approx(frames[["median", "p10", "p90"]].to_numpy(),
                                                                        abs=1e-12)


def test_level_ladder_refuses_two_levels_that_share_a_part(build_seats):
    # A duel part (luna:1,luna:2) plays both levels in the same games: their step must be paired from the part's
    # pair columns, which value counts cannot do, and the unpaired one would pass for it. The variant whose levels
    # come from separate parts is fine; the one with a duel is refused.
    solo = _runs(build_seats, {1: [10, 20], 2: [30, 40]}).assign(variant="base")
    assert len(st.level_ladder(_histogram(solo, ["score_total", "won"]), by="variant")) == 1
    duel = build_seats([{"game": g, "seat": seat, "level": seat + 1, "score_total": 10 * seat + g, "won": float(seat)}
                        for g in range(3) for seat in (0, 1)]).assign(run="duel", variant="cheap")
    both = pd.concat([_histogram(solo, ["score_total", "won"]), _histogram(duel, ["score_total", "won"])])
    with pytest.raises(ValueError, match="two levels share a part"):
        st.level_ladder(both, by="variant")


# ---------------------------------------------------------------- paired_step
def test_paired_step_is_upper_minus_lower_over_the_games_both_played():
    # Per-game differences upper - lower over games 0-2 (game 3 has no upper): 2, 5, 1 -> mean 8/3,
    # sd sqrt(13/3), interval 8/3 ± t95(2) sqrt(13/3) / sqrt(3), t95(2) = 4.302652729749462 (scipy.stats.t.ppf).
    upper = pd.DataFrame({"game": [2, 0, 1], "score_total": [31, 12, 25]})
    lower = pd.DataFrame({"game": [0, 1, 2, 3], "score_total": [10, 20, 30, 99]})
    step = st.paired_step(upper, lower)
    half = 4.302652729749462 * math.sqrt(13 / 9)
    assert step == pytest.approx({"n": 3, "diff": 8 / 3, "diff_low": 8 / 3 - half, "diff_high": 8 / 3 + half},
                                 rel=1e-12)


# ---------------------------------------------------------------- slot_first_use
def test_slot_first_use_rows_run_to_the_last_round_when_every_slot_is_in_use_early(build_seats):
    # Slot A first used in round 1, 1, 2; slot E in round 2, never (0), 1: no game reaches round 3 unused, yet the
    # rows run 0 (never) and 1 to ``rounds``, the later rounds with no games and every used game counted.
    seats = build_seats([{"game": g, "level": 3, "slot_a_first_round": a, "slot_e_first_round": e}
                         for g, (a, e) in enumerate([(1, 2), (1, 0), (2, 1)])]).assign(run="L3")
    table = st.slot_first_use(_histogram(seats, ["slot_a_first_round", "slot_e_first_round"]), rounds=4)
    slot_a = table[table["slot"] == "A"]
    assert slot_a["first_round"].tolist() == [0, 1, 2, 3, 4]
    assert slot_a["games"].tolist() == [0, 2, 1, 0, 0]
    assert slot_a["cumulative_share"].tolist()[1:] == pytest.approx([2 / 3, 1.0, 1.0, 1.0])
    slot_e = table[table["slot"] == "E"]
    assert slot_e["games"].tolist() == [1, 1, 1, 0, 0]
    assert slot_e["cumulative_share"].tolist()[1:] == pytest.approx([1 / 3, 2 / 3, 2 / 3, 2 / 3])
    frames = deck.slot_first_use(seats, rounds=4)
    pd.testing.assert_frame_equal(table.reset_index(drop=True), frames.reset_index(drop=True), check_dtype=False)


# ---------------------------------------------------------------- blocking_probability
def test_blocking_probability_tabulates_totals_from_zero_when_luna_never_showed_zero(build_rounds):
    # In round 1 Luna showed the first type at 2 and at 3, never below: a player with total 0 or 1 is blocked in
    # both rounds (P(value > t) = 1), with 2 in one (0.5), with 3 in none; the rows start at total 0 all the same.
    first = MAJORITY_TYPES[0]
    frame = build_rounds([{"game": g, "round": 1, "level": 2, f"majority_{first}": value}
                          for g, value in enumerate([2, 3])])
    rounds = frame.melt(id_vars=["level", "round"], value_vars=list(MAJORITY_COLUMNS), var_name="column")
    rounds = rounds.groupby(["level", "round", "column", "value"]).size().rename("count").reset_index()
    table = st.blocking_probability(rounds)
    mine = table[table["majority"] == first]
    assert mine["total"].tolist() == [0, 1, 2, 3]
    assert mine["p_blocked"].tolist() == [1.0, 1.0, 0.5, 0.0]
    assert mine["rounds_observed"].tolist() == [2, 2, 2, 2]
    frames = deck.blocking_probability(frame)
    pd.testing.assert_frame_equal(table.reset_index(drop=True), frames.reset_index(drop=True), check_dtype=False)


# ---------------------------------------------------------------- reshuffles_by_round
def test_reshuffles_by_round_counts_a_round_of_two_reshuffles_once_in_the_share(build_rounds):
    # Round 1 of four seat-games: 0, 0, 1 and 2 reshuffles -> mean 3/4, but 2 of 4 reshuffled at least once (1/2).
    frame = build_rounds([{"game": g, "round": 1, "level": 2, "reshuffles": value}
                          for g, value in enumerate([0, 2, 0, 1])])
    rounds = frame.groupby(["level", "round", "reshuffles"]).size().rename("count").reset_index()
    rounds = rounds.rename(columns={"reshuffles": "value"}).assign(column="reshuffles")
    table = st.reshuffles_by_round(rounds)
    assert table[["level", "round", "games"]].values.tolist() == [[2, 1, 4]]
    assert (table["mean_reshuffles"].iloc[0], table["share_reshuffled"].iloc[0]) == (0.75, 0.5)
    frames = deck.reshuffles_by_round(frame)
    pd.testing.assert_frame_equal(table, frames, check_dtype=False)


# ---------------------------------------------------------------- welch_df
def test_welch_df_of_one_constant_side_is_the_other_side_s_n_minus_one():
    # SE_a = 0: df = SE_b⁴ / (SE_b⁴ / (n_b - 1)) = n_b - 1 (not infinity: one side still varies)
    assert welch_df(0.0, 5, 2.0, 10) == pytest.approx(9.0, rel=1e-15)
    assert welch_df(3.0, 4, 0.0, 50) == pytest.approx(3.0, rel=1e-15)
    # both sides constant: infinity (a zero-width interval whatever the quantile), not 0/0
    assert welch_df(0.0, 5, 0.0, 10) == math.inf
    both = welch_df(np.array([0.0, 0.0, 5.0]), np.array([5, 5, 2]), np.array([0.0, 2.0, 10 / math.sqrt(3)]),
                    np.array([10, 10, 3]))
    assert both.tolist() == pytest.approx([math.inf, 9.0, 49 / 17], rel=1e-12)


def test_level_ladder_of_two_constant_levels_has_a_zero_width_interval(build_seats):
    # Every game at level 1 scores 10 and at level 2 scores 14: diff 4, SE 0, interval (4, 4), not NaN.
    seats = _runs(build_seats, {1: [10, 10, 10], 2: [14, 14]})
    step = st.level_ladder(_histogram(seats, ["score_total", "won"]), by="variant").iloc[0]
    assert (step["diff"], step["diff_se"], step["diff_low"], step["diff_high"]) == (4.0, 0.0, 4.0, 4.0)


# ---------------------------------------------------------------- wilson_interval
def test_wilson_accepts_a_sum_of_shared_wins_that_rounds_past_its_trials():
    # 33 three-way shared wins over 11 trials add up to 11.000000000000002 in floats: every trial won, not more
    # wins than trials; the bounds are those of 11 of 11. A real excess is still refused.
    wins = sum([1 / 3] * 33)
    assert wins > 11
    assert wilson_interval(wins, 11) == pytest.approx(wilson_interval(11, 11), abs=1e-12)
    lows, highs = wilson_interval(np.array([wins, 3.0]), np.array([11, 6]))
    assert (lows[0], highs[0]) == pytest.approx(wilson_interval(11, 11), abs=1e-12)
    with pytest.raises(ValueError, match="between 0 and trials"):
        wilson_interval(11.001, 11)


# ---------------------------------------------------------------- paired_proportion_interval
def test_paired_newcombe_takes_a_small_positive_covariance_as_no_correlation():
    # Ten games: the variant wins games 0-2, the base games 0, 3 and 4: rates 0.3 and 0.3, covariance
    # 1/10 - 0.09 = 0.01, under Newcombe's continuity correction 1/(2n) = 0.05, so phi = max(0.01 - 0.05, 0) / ... = 0
    # and the interval is the independent square-and-add one of 3 of 10 against 3 of 10.
    after = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=float)
    before = np.array([1, 0, 0, 1, 1, 0, 0, 0, 0, 0], dtype=float)
    diff, low, high = paired_share_difference(after, before)
    assert (diff, low, high) == pytest.approx(newcombe_interval(3, 10, 3, 10), abs=1e-12)
    assert (diff, low, high) == pytest.approx(paired_proportion_interval(0.3, 0.3, 0.0, 10), abs=1e-12)


# ---------------------------------------------------------------- t95
def _two_sided_t_probability(t: float, df: int) -> float:
    """P(|T| < t) for Student's T with an integer ``df``, by the finite series of Abramowitz and Stegun 26.7.3-4."""
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for k in range(1, df // 2):  # (1·3···(2k-1)) / (2·4···2k) cos^2k
            term *= (2 * k - 1) / (2 * k) * cos2
            total += term
        return math.sin(theta) * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(1, (df - 1) // 2):  # (2·4···2k) / (3·5···(2k+1)) cos^(2k+1)
        term *= 2 * k / (2 * k + 1) * cos2
        total += term
    return 2 / math.pi * (theta + math.sin(theta) * total)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 14, 15, 30, 60, 145, 146])
def test_t95_leaves_two_and_a_half_percent_in_each_tail_to_rounding(df):
    # Newton's method stops when a step changes the quantile by at most 1e-15 of it; stopping at 1e-9 left
    # quantiles up to 1e-9 off (df 14: 1.4e-10 in the probability below), which the table of quantiles missed
    assert _two_sided_t_probability(t95(df), df) == pytest.approx(0.95, rel=0, abs=1e-13)


def test_wilson_of_zero_trials_is_nan_even_with_a_rounding_level_count():
    # Zero trials give NaN bounds (the docstring's promise), also for a count of wins the 1e-9 slack lets through:
    # 1e-10 / 0 is an infinite rate, whose upper bound would otherwise read 1.
    low, high = wilson_interval(1e-10, 0)
    assert math.isnan(low) and math.isnan(high)
    lows, highs = wilson_interval(np.array([1e-10, 2.0]), np.array([0, 4]))
    assert math.isnan(lows[0]) and math.isnan(highs[0]) and 0 < lows[1] < 0.5 < highs[1] < 1
