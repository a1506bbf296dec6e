"""Head to head (analysis/duels.py): the two seat orders of a duel pooled, and runs-report's table of two-Luna runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import report
from analysis.duels import HEAD_TO_HEAD_COLUMNS, DuelRun, duel_table, head_to_head
from analysis.intervals import paired_difference, paired_share_difference, wilson_interval
from analysis.load import load_runs
from analysis.stats import duel_row


def _order(run: str, seated_first: bool, won: list[float], score: list[int], below: list[int],
           seed: int | None = 7, games: list[int] | None = None) -> DuelRun:
    index = pd.Index(games if games is not None else range(len(won)), name="game")
    frame = pd.DataFrame({"won": won, "score": score, "score_below": below}, index=index, dtype=float)
    return DuelRun("base", run, 5, 4, seated_first, seed, frame)


def _higher_level(data, run: str) -> pd.DataFrame:
    seats = data.seats[data.seats["run"] == run]
    high = seats[seats["level"] == 5].set_index("game")
    low = seats[seats["level"] == 4].set_index("game")
    return pd.DataFrame({"won": high["won"], "diff": high["score_total"] - low["score_total"]})


def test_head_to_head_pools_the_two_seat_orders_of_a_duel(make_run):
    """Regression: duels were played with the lower level in seat 0 only, and the table showed that one order,
    the higher level's numbers with the seat-1 edge added (level 4 against 3: 58.5 % and +12.5 instead of the
    55.9 % and +7.0 of the other order)."""
    runs = [make_run("d45", ["luna:4", "luna:5"], games=60, seed=7), make_run("d54", ["luna:5", "luna:4"], games=60,
                                                                             seed=7)]
    data = load_runs(runs)
    table = report.report_tables(data)["head_to_head"]
    assert list(table.columns) == HEAD_TO_HEAD_COLUMNS
    assert table[["runs", "level", "level_below", "games"]].values.tolist() == [["d45, d54", 5, 4, 120]]
    second, first = _higher_level(data, "d45"), _higher_level(data, "d54")  # the higher level's seat in each
    row = table.iloc[0]
    assert row["wins"] == pytest.approx(second["won"].sum() + first["won"].sum())
    assert row["win_rate"] == pytest.approx((second["won"].mean() + first["won"].mean()) / 2)
    assert row["score_diff"] == pytest.approx((second["diff"].mean() + first["diff"].mean()) / 2)
    assert (row["win_rate_seated_first"], row["win_rate_seated_second"]) == pytest.approx(
        (first["won"].mean(), second["won"].mean()))
    assert (row["score_diff_seated_first"], row["score_diff_seated_second"]) == pytest.approx(
        (first["diff"].mean(), second["diff"].mean()))
    # the intervals from the 60 game numbers, each with its two orders' outcomes
    _, low, high = paired_share_difference(second["won"].to_numpy(), 1.0 - first["won"].loc[second.index].to_numpy())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(((1 + low) / 2, (1 + high) / 2))
    means = (second["diff"] + first["diff"]) / 2
    _, _, diff_low, diff_high = paired_difference(means.to_numpy(), np.zeros(len(means)))
    assert (row["diff_low"], row["diff_high"]) == pytest.approx((diff_low, diff_high))


def test_the_two_orders_of_the_same_games_are_not_counted_as_independent_games():
    # Orders that always agree carry no more than one order's information: the pooled intervals must be one
    # order's, not the ~1/sqrt(2) narrower ones of 2n independent games (Wilson of the pooled count). No tie: a
    # tie's share has less spread than p (1 - p), which the paired interval counts and one order's Wilson not
    won = [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    score = [30, 22, 41, 35, 28, 20, 33, 39, 25, 31]
    below = [25, 24, 30, 30, 28, 26, 30, 31, 27, 22]
    alone = duel_table([_order("a", False, won, score, below)]).iloc[0]
    pooled = duel_table([_order("a", False, won, score, below), _order("b", True, won, score, below)]).iloc[0]
    assert (pooled["games"], pooled["wins"], pooled["win_rate"]) == (20, 2 * alone["wins"], alone["win_rate"])
    assert (pooled["ci_low"], pooled["ci_high"]) == pytest.approx((alone["ci_low"], alone["ci_high"]))
    assert (pooled["diff_low"], pooled["diff_high"]) == pytest.approx((alone["diff_low"], alone["diff_high"]))
    assert pooled["ci_high"] - pooled["ci_low"] > np.diff(wilson_interval(2 * alone["wins"], 20))[0]


def test_one_order_alone_is_that_orders_duel_row():
    won, score, below = [1.0, 0.0, 0.5, 1.0], [30, 25, 20, 40], [20, 28, 20, 30]
    row = duel_table([_order("a", True, won, score, below)]).iloc[0]
    expected = duel_row(np.array(won), np.array(score), np.array(below))
    assert {key: row[key] for key in expected} == pytest.approx(expected)
    assert row["win_rate_seated_first"] == pytest.approx(0.625) and np.isnan(row["win_rate_seated_second"])


@pytest.mark.parametrize(("other_seed", "other_games"), [(8, None), (None, None), (7, [0, 1, 2, 4])])
def test_orders_pool_only_over_the_same_seed_and_game_numbers(other_seed, other_games):
    won, score, below = [1.0, 0.0, 1.0, 1.0], [30, 25, 20, 40], [20, 28, 22, 30]
    orders = [_order("a", False, won, score, below),
              _order("b", True, won, score, below, seed=other_seed, games=other_games)]
    assert duel_table(orders)["runs"].tolist() == ["a", "b"]


def test_a_pooled_row_stands_where_its_first_run_is():
    won, score, below = [1.0, 0.0, 1.0], [30, 25, 20], [20, 28, 22]
    runs = [_order("a", False, won, score, below), _order("x", False, won, score, below, seed=9),
            _order("b", True, won, score, below)]
    assert duel_table(runs)["runs"].tolist() == ["a, b", "x"]


def test_runs_report_compares_the_two_levels_of_a_duel_run(make_run, tmp_path, capsys):
    """Regression: runs-report left two-Luna runs out of every table, so `simulate --seats luna:4,luna:5`
    got no comparison of the two levels."""
    from sim.cli import main

    run = make_run("d45", ["luna:4", "luna:5"], games=40, seed=3)
    out = tmp_path / "report"
    assert main(["runs-report", str(run), "--out", str(out)]) == 0
    capsys.readouterr()
    table = pd.read_csv(out / "tables" / "head_to_head.csv")
    higher = _higher_level(load_runs([run]), "d45")
    assert table[["runs", "level", "level_below", "games"]].values.tolist() == [["d45", 5, 4, 40]]
    assert table["win_rate_seated_second"].iloc[0] == pytest.approx(higher["won"].mean())
    assert table["score_diff"].iloc[0] == pytest.approx(higher["diff"].mean())
    assert "## Head to head" in (out / "report.md").read_text(encoding="utf-8")


def test_runs_of_other_seeds_are_rows_of_their_own(make_run):
    runs = [make_run("d45", ["luna:4", "luna:5"], games=30, seed=1), make_run("d54", ["luna:5", "luna:4"], games=30,
                                                                             seed=2)]
    table = head_to_head(load_runs(runs))
    assert table["runs"].tolist() == ["d45", "d54"] and table["games"].tolist() == [30, 30]


def test_runs_without_two_lunas_have_no_head_to_head(make_run):
    runs = [make_run("solo", ["luna:4"], games=10), make_run("vs", ["scripted:tank", "luna:4"], games=10)]
    assert "head_to_head" not in report.report_tables(load_runs(runs))
