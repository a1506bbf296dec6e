"""Score summaries, Wilson intervals, win rates, level ladder and paired differences: known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.intervals import wilson_interval
from analysis.load import RunData
from analysis.stats import (
    interaction_summary,
    level_ladder,
    paired_differences,
    score_summary,
    variant_differences,
    win_rates,
)

#: scipy.stats.t.ppf(0.975, 2): the 95 % Student-t quantile of the three-game examples below.
T95_2 = 4.302652729749462


def test_score_summary_known_values(build_seats):
    # Level 1 totals 10, 20, 30, 40: mean 25; sd = sqrt((15² + 5² + 5² + 15²) / 3) = sqrt(500/3)
    # = 12.9099; sem = sd / 2 = 6.4550; median 25; p10 at position 0.1·3 = 0.3 -> 10 + 0.3·10 = 13;
    # p90 at position 2.7 -> 30 + 0.7·10 = 37. Level 2 totals 5, 5: mean 5, sd 0.
    totals = {1: [10, 20, 30, 40], 2: [5, 5]}
    rows = [
        {"game": game, "level": level, "score_total": total, "score_cash": total}
        for level, values in totals.items()
        for game, total in enumerate(values)
    ]
    table = score_summary(build_seats(rows), by="level")
    total = table[table["metric"] == "score_total"].set_index("level")
    assert total.loc[1, "n"] == 4
    assert total.loc[1, "mean"] == pytest.approx(25.0)
    assert total.loc[1, "sd"] == pytest.approx(math.sqrt(500 / 3))
    assert total.loc[1, "sem"] == pytest.approx(math.sqrt(500 / 3) / 2)
    assert total.loc[1, "median"] == pytest.approx(25.0)
    assert total.loc[1, "p10"] == pytest.approx(13.0)
    assert total.loc[1, "p90"] == pytest.approx(37.0)
    assert total.loc[2, "mean"] == pytest.approx(5.0)
    assert total.loc[2, "sd"] == pytest.approx(0.0)
    # Default metrics: the total first, then the 7 categories in scoring order.
    assert list(table.loc[table["level"] == 1, "metric"]) == [
        "score_total",
        "score_cash",
        "score_helium",
        "score_research",
        "score_astrogo",
        "score_tawac",
        "score_skymine",
        "score_minerva",
    ]
    assert list(table.columns) == ["level", "metric", "n", "mean", "sd", "sem", "median", "p10", "p90"]


def test_score_summary_only_luna_and_overall_group(build_seats):
    frame = build_seats(
        [
            {"game": 0, "seat": 0, "kind": "scripted", "level": -1, "score_total": 100, "won": 1.0},
            {"game": 0, "seat": 1, "kind": "luna", "level": 3, "score_total": 4, "won": 0.0},
            {"game": 1, "seat": 1, "kind": "luna", "level": 4, "score_total": 8, "won": 0.0},
        ]
    )
    table = score_summary(frame, by=None, metrics=["score_total"])
    # Scripted seat excluded; one overall group: mean (4 + 8) / 2 = 6.
    assert len(table) == 1
    assert "level" not in table.columns
    assert table.loc[0, "mean"] == pytest.approx(6.0)
    with pytest.raises(ValueError, match="missing column"):
        score_summary(frame, by="variant")


def test_wilson_hand_computed():
    # p = 0.8, n = 10, z² = 3.8415: centre = (0.8 + 0.19207) / 1.38415 = 0.71682,
    # half = 1.95996 / 1.38415 · sqrt(0.016 + 0.0096037) = 0.22658 -> (0.4902, 0.9433).
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    # 0 of 10: the lower bound is exactly 0, the upper 0.2775 (not the degenerate Wald [0, 0]).
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(0.2775, abs=1e-4)
    # Vectorised, and n = 0 gives NaN rather than a division error.
    lows, highs = wilson_interval(np.array([8, 0, 0]), np.array([10, 10, 0]))
    assert lows[0] == pytest.approx(0.4902, abs=1e-4)
    assert math.isnan(lows[2]) and math.isnan(highs[2])
    # The interval always contains the estimate and stays in [0, 1].
    for wins in range(11):
        low, high = wilson_interval(wins, 10)
        assert 0.0 <= low <= wins / 10 <= high <= 1.0


def test_win_rates_ties_count_half(build_seats):
    # Four 2-seat games, Luna (seat 1) wins game 0, shares game 1 (won 0.5), loses games 2 and 3:
    # wins = 1.5, rate 0.375. Wilson(1.5, 4): z²/n = 0.96037, centre = (0.375 + 0.48018) / 1.96037
    # = 0.43624; half = 1.95996 / 1.96037 · sqrt(0.0585938 + 0.0600229) = 0.34434
    # -> (0.0919, 0.7806). A solo game (game 4) is ignored: a lone seat always "wins".
    luna_won = [1.0, 0.5, 0.0, 0.0]
    rows = []
    for game, won in enumerate(luna_won):
        rows.append({"game": game, "seat": 0, "kind": "scripted", "level": -1, "profile": "shares", "won": 1 - won})
        rows.append({"game": game, "seat": 1, "kind": "luna", "level": 4, "won": won})
    rows.append({"game": 4, "seat": 0, "kind": "luna", "level": 4, "won": 1.0})
    table = win_rates(build_seats(rows), by="level")
    assert len(table) == 1
    row = table.iloc[0]
    assert row["games"] == 4
    assert row["wins"] == pytest.approx(1.5)
    assert row["win_rate"] == pytest.approx(0.375)
    assert row["ci_low"] == pytest.approx(0.0919, abs=1e-4)
    assert row["ci_high"] == pytest.approx(0.7806, abs=1e-4)
    # The scripted side's rate is the complement: 2.5 of 4.
    scripted = win_rates(build_seats(rows), by="profile", kind="scripted")
    assert scripted.loc[0, "win_rate"] == pytest.approx(0.625)


def test_win_rates_empty_for_solo_games(build_seats):
    frame = build_seats([{"game": game, "level": 2} for game in range(3)])
    assert win_rates(frame).empty


def test_level_ladder_independent_levels(build_seats):
    # Level 1 in run a: totals 10, 20, 30 -> mean 20, sd 10, sem 10/√3 = 5.7735.
    # Level 2 in run b: totals 30, 40 -> mean 35, sd 7.0711, sem 5.
    # diff 15, se = sqrt(33.333 + 25) = 7.6376; Welch df = 58.333² / (33.333² / 2 + 25² / 1) = 2.8824,
    # t = 3.257208 (scipy t.ppf(0.975, 2.8824), as R's t.test), interval 15 ± 3.257208·7.6376 = (-9.8773, 39.8773).
    rows = [{"run": "a", "game": g, "level": 1, "score_total": t} for g, t in enumerate([10, 20, 30])]
    rows += [{"run": "b", "game": g, "level": 2, "score_total": t} for g, t in enumerate([30, 40])]
    ladder = level_ladder(build_seats(rows))
    assert len(ladder) == 1
    step = ladder.iloc[0]
    assert (step["level"], step["level_below"]) == (2, 1)
    assert not step["paired"]
    assert step["diff"] == pytest.approx(15.0)
    assert step["diff_se"] == pytest.approx(math.sqrt(100 / 3 + 25))
    assert step["diff_low"] == pytest.approx(-9.8773, abs=1e-3)
    assert step["diff_high"] == pytest.approx(39.8773, abs=1e-3)
    # Solo games: no win rates.
    assert math.isnan(step["win_diff"])


def test_level_ladder_paired_when_same_games(build_seats):
    # Seats "luna:1,luna:2" in the same three games: totals (L1, L2) = (10, 14), (20, 20), (30, 36).
    # Per-game differences 4, 0, 6: mean 3.3333, sd = sqrt((0.667² + 3.333² + 2.667²) / 2) = 3.0551,
    # se = 1.7638. Won: L2 wins games 0 and 2, game 1 is a tie (0.5 each): win shares L2 (1, .5, 1), L1 (0, .5, 0),
    # rates 2.5/3 and 0.5/3, difference 0.6667. Newcombe's paired interval: covariance .25/3 - 2.5*.5/9 = -0.055556,
    # phi = -0.055556 / sqrt((5/6 * 1/6)^2) = -0.4. Wilson(2.5, 3) = (0.309988, 0.982347), Wilson(0.5, 3) =
    # (0.017653, 0.690012); so d = 0.833333 - 0.309988 = 0.690012 - 0.166667 = 0.523345 and e = 0.149014 on both
    # sides: low = 0.6667 - d * sqrt(2 + 0.8) = -0.209057, high = 0.6667 + e * sqrt(2.8) = 0.916015. (The t interval
    # of the differences 1, 0, 1 was 0.6667 ± 4.302653 / 3 = (-0.7676, 2.1009), past the possible 1.)
    pairs = [(10, 14), (20, 20), (30, 36)]
    rows = []
    for game, (low, high) in enumerate(pairs):
        won_low, won_high = (0.5, 0.5) if low == high else (0.0, 1.0)
        rows.append({"game": game, "seat": 0, "level": 1, "score_total": low, "won": won_low})
        rows.append({"game": game, "seat": 1, "level": 2, "score_total": high, "won": won_high})
    step = level_ladder(build_seats(rows)).iloc[0]
    assert step["paired"]
    assert step["diff"] == pytest.approx(10 / 3)
    assert step["diff_se"] == pytest.approx(math.sqrt(28 / 3 / 3))
    assert step["win_rate"] == pytest.approx(2.5 / 3)
    assert step["win_rate_below"] == pytest.approx(0.5 / 3)
    assert step["win_diff"] == pytest.approx(2 / 3)
    assert step["win_diff_low"] == pytest.approx(2 / 3 - 0.523345 * math.sqrt(2.8), abs=2e-6)
    assert step["win_diff_low"] == pytest.approx(-0.209057, abs=1e-6)
    assert step["win_diff_high"] == pytest.approx(0.916015, abs=1e-6)


def test_level_ladder_newcombe_for_independent_win_rates(build_seats):
    # Level 3 wins 8 of 10 two-seat games, level 2 wins 5 of 10 (separate runs).
    # Wilson(8, 10) = (0.4902, 0.9433), Wilson(5, 10) = (0.2366, 0.7634). Newcombe:
    # low = 0.3 - sqrt((0.8 - 0.4902)² + (0.7634 - 0.5)²) = 0.3 - 0.4067 = -0.1067,
    # high = 0.3 + sqrt((0.9433 - 0.8)² + (0.5 - 0.2366)²) = 0.3 + 0.2999 = 0.5999.
    rows = []
    for run, level, wins in (("r3", 3, 8), ("r2", 2, 5)):
        for game in range(10):
            won = 1.0 if game < wins else 0.0
            rows.append({"run": run, "game": game, "seat": 0, "kind": "scripted", "level": -1, "won": 1 - won})
            rows.append({"run": run, "game": game, "seat": 1, "level": level, "won": won})
    step = level_ladder(build_seats(rows)).iloc[0]
    assert step["win_diff"] == pytest.approx(0.3)
    assert step["win_diff_low"] == pytest.approx(-0.1067, abs=1e-4)
    assert step["win_diff_high"] == pytest.approx(0.5999, abs=1e-4)


def test_level_ladder_groups_and_gaps(build_seats):
    # Levels 0, 2, 5 present: each is compared with the next lower level present; per opponents.
    rows = [
        {"run": f"r{level}", "game": game, "level": level, "opponents": "", "score_total": level * 10 + game}
        for level in (0, 2, 5)
        for game in range(2)
    ]
    ladder = level_ladder(build_seats(rows), by="opponents")
    assert list(zip(ladder["level_below"], ladder["level"], strict=True)) == [(0, 2), (2, 5)]
    assert list(ladder["diff"]) == pytest.approx([20.0, 30.0])
    with pytest.raises(ValueError, match="level"):
        level_ladder(build_seats(rows), by="level")


def test_paired_differences_known_values(build_seats):
    # Base totals 10, 20, 30; variant 12, 21, 36 (same games and seats): d = 2, 1, 6, mean 3,
    # sd = sqrt((1 + 4 + 9) / 2) = sqrt(7) = 2.6458, se = 1.5275, interval 3 ± 4.302653 · 1.5275 = 3 ± 6.5722.
    base = build_seats([{"game": g, "level": 5, "score_total": t, "score_cash": t} for g, t in enumerate([10, 20, 30])])
    variant = build_seats(
        [{"game": g, "level": 5, "score_total": t, "score_cash": t - 1} for g, t in enumerate([12, 21, 36])]
    )
    table = paired_differences(base, variant, metrics=["score_total", "score_cash"])
    total = table[table["metric"] == "score_total"].iloc[0]
    assert total["n"] == 3
    assert total["mean_base"] == pytest.approx(20.0)
    assert total["mean_variant"] == pytest.approx(23.0)
    assert total["diff"] == pytest.approx(3.0)
    assert total["sd"] == pytest.approx(math.sqrt(7))
    assert total["se"] == pytest.approx(math.sqrt(7 / 3))
    assert total["ci_low"] == pytest.approx(3 - T95_2 * math.sqrt(7 / 3))
    assert total["ci_high"] == pytest.approx(3 + T95_2 * math.sqrt(7 / 3))
    cash = table[table["metric"] == "score_cash"].iloc[0]
    assert cash["diff"] == pytest.approx(2.0)


def test_paired_differences_rejects_different_seat_mix(build_seats):
    base = build_seats([{"game": 0, "level": 5}])
    variant = build_seats([{"game": 0, "level": 6}])
    with pytest.raises(ValueError, match="different seat mixes"):
        paired_differences(base, variant)
    with pytest.raises(ValueError, match="no \\(game, seat\\)"):
        paired_differences(base, build_seats([{"game": 7, "level": 5}]))


def test_variant_differences_pairs_runs_by_seed(build_seats):
    def run(name: str, variant: str, shift: int) -> pd.DataFrame:
        frame = build_seats([{"game": g, "level": 2, "score_total": 10 + g + shift} for g in range(3)])
        return frame.assign(run=name, variant=variant, seats="luna:2")

    seats = pd.concat([run("base", "base", 0), run("other_seed", "base", 5), run("cheap", "cheap", 2)])
    manifests = {
        "base": {"config": {"seed": 1, "games": 3}},
        "other_seed": {"config": {"seed": 2, "games": 3}},
        "cheap": {"config": {"seed": 2, "games": 3, "variant": "cheap"}},
    }
    data = RunData(seats=seats, rounds=pd.DataFrame(), manifests=manifests)
    table = variant_differences(data, metrics=["score_total"])
    # Only the base run with the same seed (other_seed) pairs with the variant: 12 - 15 = -3.
    assert list(table["base_run"]) == ["other_seed"]
    assert table.loc[0, "diff"] == pytest.approx(-3.0)
    assert table.loc[0, "variant"] == "cheap"


def test_interaction_summary_present_and_absent(build_seats):
    rows = [
        {"game": g, "seat": 0, "kind": "scripted", "level": -1, "profile": "tank", "won": 0.0} for g in range(2)
    ] + [{"game": g, "seat": 1, "level": 4, "won": 1.0} for g in range(2)]
    frame = build_seats(rows).assign(luna_level=4)
    assert interaction_summary(frame).empty
    frame["blocked_energy"] = [1, 3, 0, 0]
    table = interaction_summary(frame)
    # Only the scripted seats count: blocked_energy 1 and 3 -> mean 2.
    assert list(table["metric"]) == ["blocked_energy"]
    assert table.loc[0, "mean"] == pytest.approx(2.0)
    assert (table.loc[0, "luna_level"], table.loc[0, "profile"]) == (4, "tank")
