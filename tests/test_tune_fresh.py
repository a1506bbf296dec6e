"""The tuner's verdict on fresh games, the order check around the tuned levels, and what tuned.toml says.

Each test pins a QA finding: the verdict read the games the search chose on (a target out of reach reported
0.8966 [0.8879, 0.9047], and 0.8852 on other games); two goals pulled level 4 past level 5 without a word; a
card move changed every level unseen; tuned.toml restated every free parameter (581 lines for two card numbers)
and carried no word of the result.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

import pandas as pd
import pytest

from analysis.tuning.output import run_tune
from analysis.tuning.search import Measure
from sim.cli import main
from sim.gamedata import read_toml
from sim.play import play

SEED = 3
#: level 5's mean score toward 400 by one token within three spaces: a quick search of a few hundred games
NEAR_400 = """
    [levels.5]
    metric = "luna_mean_score"
    target = 400
    tolerance = 1
    move = ["levels.5.helium_tokens.0"]
    bounds = { "levels.5.helium_tokens.0" = [6, 8] }
    """


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def test_the_verdict_reads_games_the_search_never_played(tmp_path):
    targets = _write(tmp_path / "t.toml", 'description = "level 5 near 400"\n' + NEAR_400)
    games = 300
    result = run_tune(targets, tmp_path / "out", games=games, seed=SEED)
    (goal,) = result.results
    tuned = tmp_path / "out" / "tuned.toml"
    searched = play("luna:5", games, SEED, overlay=tuned).column("score_total").mean()
    fresh = play("luna:5", games, SEED, overlay=tuned, first_game=games).column("score_total").mean()
    assert goal.after.value == pytest.approx(searched) and goal.fresh.value == pytest.approx(fresh)
    assert goal.fresh.value != goal.after.value
    assert goal.met == (abs(fresh - 400) <= 1)
    # the verdict is the fresh games', whatever the search's games say
    within, outside = Measure(400.5, 399.8, 401.2, games), Measure(403.0, 402.0, 404.0, games)
    assert not replace(goal, search=replace(goal.search, best_measure=within), fresh=outside).met
    assert replace(goal, search=replace(goal.search, best_measure=outside), fresh=within).met
    ladder = pd.read_csv(tmp_path / "out" / "tables" / "ladder.csv")
    assert ladder.loc[0, "fresh"] == pytest.approx(fresh) and ladder.loc[0, "met"] == goal.met
    # tuned.toml says what came of it, in comments and in its description, and keeps the file's own words first
    text = tuned.read_text()
    assert text.startswith(f"# Tuned by luna-balance tune from {targets} ({games} games per candidate, seed {SEED}")
    assert f"{goal.fresh.value:.4g} [" in text.splitlines()[1] and "on fresh games" in text.splitlines()[1]
    description = read_toml(tuned)["description"]
    assert description.startswith("level 5 near 400. Tuned by luna-balance tune")
    assert description.endswith(f"{int(goal.met)} of 1 level(s) within tolerance on fresh games.")


def test_a_wide_interval_or_a_start_already_within_is_said(tmp_path):
    targets = _write(tmp_path / "t.toml", NEAR_400)
    (goal,) = run_tune(targets, tmp_path / "out", games=100, seed=SEED).results
    wide = Measure(400.2, 390.0, 410.4, 100)  # within on its value, its interval ten times the band
    narrow = Measure(400.2, 399.6, 400.8, 100)
    start_within = replace(goal.search, start_measure=Measure(400.9, 390.0, 411.0, 100))
    start_outside = replace(goal.search, start_measure=Measure(380.0, 370.0, 390.0, 100))
    assert replace(goal, fresh=wide).met and not replace(goal, fresh=wide).confirmed
    assert "more --games would confirm it" in "; ".join(replace(goal, fresh=wide).notes())
    assert replace(goal, fresh=narrow).confirmed and not any("confirm" in note for note in
                                                             replace(goal, fresh=narrow).notes())
    assert "the start was within the tolerance already" in replace(goal, search=start_within).notes()
    assert not any("start" in note for note in replace(goal, search=start_outside, fresh=narrow).notes())
    far = Measure(420.0, 415.0, 425.0, 100)
    assert any("out of these parameters' reach" in note for note in replace(goal, fresh=far).notes())
    # outside on its value, but the interval reaches the band: not "out of reach" (a QA pass: at 1,000 games 29 of
    # 100 such verdicts were truly within tolerance)
    near = Measure(402.0, 398.5, 405.5, 100)
    assert not replace(goal, fresh=near).met
    assert [note for note in replace(goal, fresh=near, search=start_outside).notes()] == [
        "inconclusive: the interval reaches into the tolerance; more --games would tell"]


def test_goals_that_cross_their_levels_are_flagged(tmp_path, capsys):
    # level 4 pulled up and level 5 down past it: both searches end wherever their tokens reach
    targets = _write(tmp_path / "t.toml", """
        [levels.4]
        metric = "luna_mean_score"
        target = 440
        tolerance = 2
        move = ["levels.4.grade2", "levels.4.helium_tokens.*"]
        [levels.5]
        metric = "luna_mean_score"
        target = 350
        tolerance = 2
        move = ["levels.5.grade2", "levels.5.helium_tokens.*"]
        """)
    out = tmp_path / "out"
    assert main(["tune", str(targets), "--out", str(out), "--games", "500", "--seed", str(SEED), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "warning: level 4 (" in printed and "is at or above level 5 (" in printed
    order = pd.read_csv(out / "tables" / "order.csv").set_index("level")
    assert list(order.index) == [3, 4, 5, 6]  # the tuned levels and their neighbours
    assert order.loc[4, "after"] >= order.loc[5, "after"] and order.loc[4, "in_order"] == False  # noqa: E712
    assert order.loc[3, "in_order"] == True and pd.isna(order.loc[6, "in_order"])  # noqa: E712
    assert any(line.startswith("# warning: level 4") for line in (out / "tuned.toml").read_text().splitlines())
    assert "1 pair(s) of adjacent levels out of order" in (out / "report.md").read_text()
    # only what moved is written: grade2 was free at both levels and stayed as it was
    levels = read_toml(out / "tuned.toml")["luna"]["levels"]
    assert set(levels) == {"4", "5"} and all(set(level) == {"helium_tokens"} for level in levels.values())


def test_a_card_move_is_checked_at_every_level(tmp_path):
    targets = _write(tmp_path / "t.toml", """
        [levels.5]
        metric = "luna_mean_score"
        target = 300
        tolerance = 2
        move = ["cards.II-7.actions.1.count", "cards.II-7.majority.left"]
        """)
    result = run_tune(targets, tmp_path / "out", games=300, seed=SEED)
    (goal,) = result.results
    moved = [name for name, _, _ in goal.moved()]
    assert moved and all(name.startswith("cards.II-7.") for name in moved)
    assert any("shared by every level" in note for note in goal.notes())
    assert [check.level for check in result.checks] == list(range(9))
    assert all(check.before is not None for check in result.checks)
    # a grade-2 card: levels 0 and 1 never draw one, every level from 2 up plays it
    changed = [check.level for check in result.checks if check.before.value != check.after.value]
    assert changed == list(range(2, 9))
    # tuned.toml holds the one card, and of it only what the overlay must replace
    luna = read_toml(tmp_path / "out" / "tuned.toml")["luna"]
    assert set(luna) == {"cards"} and [card["id"] for card in luna["cards"]] == ["II-7"]
