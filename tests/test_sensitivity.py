"""The sensitivity of a level's parameters: paired effects with known signs and known zeros, its files, its CLI."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from analysis.tuning import sensitivity
from analysis.tuning.options import SCORE_METRIC, WIN_METRIC, SensitivityOptions
from analysis.tuning.parameters import variant_data
from analysis.tuning.sensitivity import COLUMNS, measure, plan_changes, run_sensitivity_dir
from sim.cli import main
from sim.config import ConfigError
from sim.gamedata import load_game_data
from sim.play import play

GRADE2_CARDS = tuple(card.id for card in load_game_data().luna.cards if card.grade == 2)


def test_grade2_cards_change_nothing_at_level_1_game_for_game():
    # level 1 never uses grade-2 cards, so a change to one must leave every game exactly as it was
    plan = plan_changes(SensitivityOptions(level=1, games=60))
    grade2 = [change for change in plan.changes if change.parameter.name.split(".")[1] in GRADE2_CARDS]
    assert len(grade2) > 40
    table = measure(plan)
    rows = table[table["parameter"].str.split(".").str[1].isin(GRADE2_CARDS)]
    assert len(rows) == 2 * len(grade2) and set(rows["metric"]) == {SCORE_METRIC, WIN_METRIC}
    # every game's difference is zero: the score's a mean and a standard deviation of zero; the win rate's interval
    # (Newcombe's for paired proportions) no discordant game in 60, which still leaves a few points either way
    assert (rows["diff"] == 0).all()
    scores, wins = rows[rows["metric"] == SCORE_METRIC], rows[rows["metric"] == WIN_METRIC]
    assert (scores["ci_low"] == 0).all() and (scores["ci_high"] == 0).all()
    assert (wins["ci_low"] == -wins["ci_high"]).all() and wins["ci_high"].between(0.01, 0.1).all()
    data = load_game_data()
    base = play("scripted:balanced@1,luna:1", 60, 1, data=data)
    for change in grade2[:6]:
        changed = play("scripted:balanced@1,luna:1", 60, 1,
                       data=variant_data({change.parameter.name: change.value}, data))
        for column in ("score_total", "won", "cash", "reshuffles"):
            np.testing.assert_array_equal(changed.column(column), base.column(column))
    # ... while grade-1 cards do matter at level 1
    grade1 = table[table["parameter"].str.startswith("cards.I-") & (table["metric"] == SCORE_METRIC)]
    assert (grade1["diff"] != 0).any()


def test_changes_with_a_known_sign():
    plan = plan_changes(SensitivityOptions(level=5, opponent=None, games=400, cards=True))
    wanted = {("levels.5.grade2", "off"), ("cards.I-3.actions.0.count", "+1"), ("cards.I-3.actions.0.count", "-1")}
    picked = sensitivity.Plan(plan.options, tuple(change for change in plan.changes
                                                  if (change.parameter.name, change.label) in wanted))
    assert len(picked.changes) == 3
    table = measure(picked).set_index(["parameter", "change"])
    assert list(table["metric"].unique()) == [SCORE_METRIC]  # Luna alone: no win rate
    # Without grade-2 cards level 5 scores far less; a card's gain_coin +1 (I-3: 2 -> 3 CrypCoin) raises her score
    assert table.loc[("levels.5.grade2", "off"), "ci_high"] < 0
    assert table.loc[("cards.I-3.actions.0.count", "+1"), "ci_low"] > 0
    assert table.loc[("cards.I-3.actions.0.count", "-1"), "ci_high"] < 0
    # a helium token moved earlier brings grade-2 cards in sooner: more of them enter, game by game on average
    data = load_game_data()
    base = play("luna:5", 400, 1, data=data)
    earlier = play("luna:5", 400, 1, data=variant_data({"levels.5.helium_tokens.0": 5}, data))
    assert earlier.column("grade2_by_token").mean() >= base.column("grade2_by_token").mean()
    differences = earlier.column("grade2_entered") - base.column("grade2_entered")
    assert differences.mean() > 0


def test_the_plan_skips_invalid_changes_and_says_why():
    plan = plan_changes(SensitivityOptions(level=8, cards=False))
    labels = {(change.parameter.name, change.label) for change in plan.changes}
    # level 8: research start 3, tokens [5, 7]; start +2 would sit on the first token
    assert ("levels.8.start_research", "+1") in labels and ("levels.8.start_research", "+2") not in labels
    assert ("levels.8.grade2", "off") in labels
    skipped = {(change.parameter.name, change.label): reason for change, reason in plan.skipped}
    assert "increasing order" in skipped[("levels.8.start_research", "+2")]
    assert "twice" in skipped[("levels.8.research_tokens.0", "+2")]
    assert len(labels) + len(skipped) == 4 * 4 + 2 * 4 + 1
    assert all(not change.parameter.name.startswith("cards.") for change in plan.changes)


def test_the_output_directory(tmp_path):
    plan = plan_changes(SensitivityOptions(level=6, games=40, cards=False))
    out, sentence = run_sensitivity_dir(plan, tmp_path / "sens")
    table = pd.read_csv(out / "sensitivity.csv")
    assert tuple(table.columns) == COLUMNS
    assert len(table) == 2 * len(plan.changes) and list(table["metric"].unique()) == [SCORE_METRIC, WIN_METRIC]
    for metric, rows in table.groupby("metric"):
        assert rows["diff"].abs().is_monotonic_decreasing, metric  # biggest effects first
        assert (rows["base"] == rows["base"].iloc[0]).all()
        np.testing.assert_allclose(rows["changed"] - rows["base"], rows["diff"], atol=1e-9)
        assert (rows["ci_low"] <= rows["diff"]).all() and (rows["diff"] <= rows["ci_high"]).all()
    for name in ("report.html", "report.md", "figures/tornado.png", "figures/tornado.svg", "manifest.json"):
        assert (out / name).is_file(), name
    html = (out / "report.html").read_text()
    assert "depends most on" in sentence and sentence.split(";")[0] in html
    assert f"{len(plan.skipped)} skipped as invalid" in sentence
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["level"], manifest["games"], manifest["changes"]) == (6, 40, len(plan.changes))
    assert manifest["data"]["digest"] == load_game_data().digest  # regression: no digest was recorded


def test_nothing_is_left_when_the_measurement_fails(tmp_path, monkeypatch):
    def broken(plan, progress=None):
        raise RuntimeError("interrupted")

    monkeypatch.setattr(sensitivity, "measure", broken)
    with pytest.raises(RuntimeError):
        run_sensitivity_dir(plan_changes(SensitivityOptions(level=3, games=10, cards=False)), tmp_path / "sens")
    assert list(tmp_path.iterdir()) == []


def test_the_command_line(tmp_path, capsys):
    out = tmp_path / "l7"
    assert main(["sensitivity", "--level", "7", "--opponent", "none", "--games", "30", "--no-cards", "--seed", "4",
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "Luna at level 7 alone, 30 paired games per change" in printed and f"wrote {out}" in printed
    table = pd.read_csv(out / "sensitivity.csv")
    assert set(table["metric"]) == {SCORE_METRIC}
    assert not table["parameter"].str.startswith("cards.").any()
    assert {"levels.7.start_helium", "levels.7.grade2"} <= set(table["parameter"])


@pytest.mark.parametrize(("arguments", "message"), [
    (["--level", "9"], "--level: must be one of 0-8, got 9"),
    (["--level", "5", "--opponent", "scripted:nobody"], "--opponent: unknown scripted profile 'nobody'"),
    (["--level", "5", "--opponent", "luna:3"], "--opponent: 'luna:3' is not a scripted seat"),
    (["--level", "5", "--opponent", "scripted:passive"], "is passive and never wins"),
    (["--level", "5", "--games", "1"], "--games: must be at least 2"),
    (["--level", "5", "--engine", "turbo"], "--engine: invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, arguments, message):
    try:
        code = main(["sensitivity", *arguments, "--out", str(tmp_path / "sens"), "--quiet"])
    except SystemExit as error:  # the parser's own checks (a choice, a type) exit there
        code = error.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "sens").exists()


@pytest.mark.parametrize(("value", "shown"), [(110.4, "110"), (105.0, "100"), (4.34, "4.3"), (0.0523, "0.052"),
                                              (1234.5, "1,200"), (-3.14, "-3.1"), (0.0, "0")])
def test_effect_sizes_are_written_in_plain_digits(value, shown):
    # the summary said "up to 1.1e+02 CrypCoin" (a QA pass, 2026-11-26)
    assert sensitivity._two_digits(value) == shown


@pytest.mark.parametrize(("options", "message"), [
    ({"level": 4.0}, "level: must be one of 0-8, got 4.0"),  # passed, then KeyError: '4.0'
    ({"level": 4, "games": 2.5}, "games: must be at least 2"),  # refused only later, by play()
])
def test_options_refuse_numbers_of_the_wrong_type(options, message):
    # a QA pass of the Python API, 2026-11-26
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}"):
        SensitivityOptions(**options)


@pytest.mark.parametrize(("opponent", "message"), [
    ("luna:3", "is not a scripted seat"),  # failed in measure(): 'luna:3,luna:4 has 2 Luna seats'
    ("scripted:passive", "is passive and never wins"),  # was measured; the command line refuses it
    ("scripted:nope", "unknown scripted profile 'nope'"),  # failed only inside measure()
])
def test_the_plan_checks_the_opponent_as_the_command_line_does(opponent, message):
    with pytest.raises(ConfigError, match=f"^opponent: .*{message}"):
        plan_changes(SensitivityOptions(level=4, opponent=opponent, games=10))


def test_the_tornado_says_its_bars_are_the_largest_effects_not_steps():
    # At level 5 against balanced (10,000 games, seed 1) helium_tokens.1 -1 moved the win rate by +0.60 points
    # and -2 by +0.56: the bar drawn is the -1 change, so a legend "largest step" named the wrong change.
    from analysis.tuning.plots import plot_tornado

    table = pd.DataFrame({"parameter": ["levels.5.helium_tokens.1"] * 4, "change": ["-1", "-2", "+1", "+2"],
                          "metric": [WIN_METRIC] * 4, "diff": [0.00595, 0.00555, -0.0030, -0.0073],
                          "ci_low": [0.002, 0.0007, -0.0056, -0.0118], "ci_high": [0.0099, 0.0104, -0.0004, -0.0028]})
    ax = plot_tornado(table, (WIN_METRIC,)).axes[0]
    bars = {bar.get_label(): bar for bar in ax.containers if not bar.get_label().startswith("_")}  # not whiskers
    assert set(bars) == {"decrease (largest effect)", "increase (largest effect)"}
    assert bars["decrease (largest effect)"].patches[0].get_width() == pytest.approx(0.595)  # the -1 change
    assert bars["increase (largest effect)"].patches[0].get_width() == pytest.approx(-0.73)  # the +2 change
