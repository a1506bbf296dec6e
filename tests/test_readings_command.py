"""``luna-balance readings``: paired differences of every rule reading per level, written atomically."""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest

from analysis.readings import (
    COLUMNS,
    ROUND_PANELS_NOTE,
    compare_readings,
    findings,
    readings_to_compare,
    summary_table,
    with_readings,
)
from sim.cli import main
from sim.config import parse_seats
from sim.constants import DEFAULT_RUN_SEED, RULE_SWITCHES
from sim.engines import play_chunk_reference
from sim.gamedata import load_game_data


@pytest.fixture(scope="module")
def data():
    return load_game_data()


def test_every_other_reading_alone_and_the_preset_are_compared(data):
    compared = readings_to_compare(data)
    assert list(compared) == [f"{switch}={readings[1]}" for switch, readings in RULE_SWITCHES.items()] + [
        "preset=companion-app"]
    assert compared["preset=companion-app"] == {"draw_order": "majority_first", "reveal_timing": "first_turn",
                                                "step_order": "helium_then_research",
                                                "early_discard_card": "discard_pile"}
    assert with_readings(data, compared["rebuild=immediate"]).luna.rules.readings()["rebuild"] == "immediate"


def test_paired_differences_are_those_of_the_same_games_played_twice(data):
    table = compare_readings(data, [5], 40, seed=3, engine="reference")
    assert list(table.columns) == COLUMNS
    # by hand: the same 40 games with and without majority_first, Luna's total score per game
    config_games = play_chunk_reference(data, _config("luna:5"), 3, 0, 40, False)
    variant = with_readings(data, {"draw_order": "majority_first"})
    other = play_chunk_reference(variant, _config("luna:5"), 3, 0, 40, False)
    d = other.seats["score_total"] - config_games.seats["score_total"]
    row = table[(table["reading"] == "draw_order=majority_first") & (table["metric"] == "score_total")].iloc[0]
    assert row["n"] == 40 and row["diff"] == pytest.approx(d.mean())
    half = 2.022690920036761 * d.std(ddof=1) / np.sqrt(40)  # scipy.stats.t.ppf(0.975, 39)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(d.mean() - half), pytest.approx(d.mean() + half))
    # a reading that changes nothing in these games (no level-5 start position) shows exactly 0, no interval
    place = table[table["reading"] == "start_position=place"]
    assert (place["diff"] == 0).all() and (place["sd"] == 0).all()
    rounds = table[table["metric"] == "majority_scientists"]
    assert sorted(set(rounds["round"])) == list(range(1, 8)) and (rounds["n"] == 40).all()
    assert summary_table(table).columns.tolist() == ["reading", "L5"]



def test_each_resources_majority_value_is_compared_by_round_and_the_four_add_up(data):
    """The table holds each resource's majority value per round beside their sum (the figure plots the sum)."""
    table = compare_readings(data, [5], 30, seed=8, engine="numba")
    rows = table[table["reading"] == "draw_order=majority_first"].set_index(["metric", "round"])
    types = [f"majority_{name}" for name in ("titanium", "carbon", "energy", "minerals")]
    for rnd in range(1, 8):
        assert (rows.loc[[(metric, rnd) for metric in types], "n"] == 30).all()
        for column in ("mean_base", "mean_reading", "diff"):
            parts = sum(rows.loc[(metric, rnd), column] for metric in types)
            assert parts == pytest.approx(rows.loc[("majority_resources", rnd), column], abs=1e-12)
    # by hand: round 3's titanium of the same 30 games under both readings
    base = play_chunk_reference(data, _config("luna:5"), 8, 0, 30, True).rounds
    other = play_chunk_reference(with_readings(data, {"draw_order": "majority_first"}), _config("luna:5"), 8, 0, 30,
                                 True).rounds
    d = (other["majority_titanium"][other["round"] == 3].astype(np.int64)
         - base["majority_titanium"][base["round"] == 3].astype(np.int64))
    assert rows.loc[("majority_titanium", 3), "diff"] == pytest.approx(d.mean())
    assert rows.loc[("majority_titanium", 3), "sd"] == pytest.approx(d.std(ddof=1))

def _config(seats: str):
    from sim.config import GameConfig

    return GameConfig(seats=parse_seats(seats), rounds=7, start_bonus="random")


def test_a_bound_that_rounds_to_zero_keeps_its_sign():
    """Regression: an interval bound of -0.004 showed as "-0.00", which a reader takes for a loss; then as "+0.00",
    on the side of zero it is not, beside a finding that says whether the interval excludes 0 (a QA pass)."""
    row = {column: 0.0 for column in COLUMNS} | {"reading": "r", "switch": "s", "level": 1, "metric": "score_total",
                                                 "round": 0, "n": 10, "diff": 1.5, "sd": 2.0, "ci_low": -0.004,
                                                 "ci_high": 3.0}
    assert summary_table(pd.DataFrame([row], columns=COLUMNS))["L1"].tolist() == ["+1.50 (-0.004 to +3.00)"]


def test_a_finding_names_the_size_and_the_sign_of_the_largest_change():
    """Regression: "moves by -8.21 at most" left a reader to guess whether -8.21 was a floor or a largest loss."""
    base = {column: 0.0 for column in COLUMNS} | {"reading": "r", "switch": "s", "metric": "score_total",
                                                  "round": 0, "n": 10, "sd": 2.0}
    rows = [base | {"level": 2, "diff": 3.0, "ci_low": 1.0, "ci_high": 5.0},
            base | {"level": 5, "diff": -8.206, "ci_low": -9.0, "ci_high": -7.0}]
    assert findings(pd.DataFrame(rows, columns=COLUMNS)) == [
        "r: Luna's total score moves by up to 8.21 points (the largest change, -8.21 at L5); the interval excludes "
        "0 at L2, L5."]


def test_the_engines_give_the_same_table(data):
    kwargs = {"levels": [2, 7], "games": 30, "seed": 9, "opponents": parse_seats("scripted:balanced")}
    reference = compare_readings(data, engine="reference", **kwargs)
    numba = compare_readings(data, engine="numba", **kwargs)
    pd.testing.assert_frame_equal(reference, numba)


def test_games_are_played_a_chunk_at_a_time_with_the_same_table(data, monkeypatch):
    """Regression: every level and reading was one call of all its games with their rounds' rows: a million games
    held 3.6 GB; then each reading's games a chunk at a time, but every game's values kept to the end: 857 MB. Each
    chunk (here made 7 games) is now played under the readings in force and then under each reading, its sums
    taken and the chunk let go, and the table is the same."""
    import analysis.readings
    from sim.engines import engine_function

    kwargs = {"levels": [4], "games": 30, "seed": 2, "opponents": parse_seats("scripted:balanced")}
    whole = compare_readings(data, engine="numba", **kwargs)
    played, real = [], engine_function("numba")

    def counted(*args):
        played.append(args[4])
        return real(*args)

    monkeypatch.setattr(analysis.readings, "engine_function", lambda engine: counted)
    monkeypatch.setattr(analysis.readings, "default_chunk_size", lambda config, detail: 7)
    progress = []
    pd.testing.assert_frame_equal(compare_readings(data, engine="numba", progress=progress.append, **kwargs), whole)
    readings = 1 + len(readings_to_compare(data))  # the readings in force, then each compared
    assert played == [7] * readings * 4 + [2] * readings and progress == played


def test_command_writes_csv_figure_report_and_manifest(tmp_path, capsys):
    out = tmp_path / "readings"
    assert main(["readings", "--levels", "6", "--games", "20", "--seed", "4", "--engine", "reference",
                 "--seats", "scripted:tank", "--out", str(out), "--quiet"]) == 0
    table = pd.read_csv(out / "readings.csv")
    assert set(table["level"]) == {6} and set(table["reading"]) == set(readings_to_compare(load_game_data()))
    assert (out / "report.html").stat().st_size > 0 and (out / "figures" / "readings.png").exists()
    assert "Rule readings" in (out / "report.html").read_text()
    # regression: the caption promised 95 % intervals of the by-round means; the whiskers are averaged bounds
    assert html.escape(ROUND_PANELS_NOTE) in (out / "report.html").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["seats"] == ["scripted:tank"] and manifest["readings_in_force"]["rebuild"] == "lazy"
    assert str(out / "report.html") in capsys.readouterr().out


def test_an_overlay_changes_the_readings_compared_against(tmp_path):
    overlay = tmp_path / "app.toml"
    overlay.write_text('[luna.rules]\npreset = "companion-app"\n')
    out = tmp_path / "readings"
    assert main(["readings", "--levels", "3", "--games", "10", "--engine", "reference", "--overlay", str(overlay),
                 "--out", str(out), "--quiet"]) == 0
    table = pd.read_csv(out / "readings.csv")
    assert "draw_order=slots_first" in set(table["reading"])  # the other reading of a switch the preset set
    assert "draw_order=majority_first" not in set(table["reading"])
    # the report says what the differences are against: before, only manifest.json did (a QA pass)
    markdown = (out / "report.md").read_text()
    assert (f"Played: Luna alone at level 3, 10 games per level and reading, seed {DEFAULT_RUN_SEED}, the moon side, "
            f"7 rounds, starting bonus random, reference engine, the overlay {overlay}; readings in force: "
            "start_position=add, draw_order=majority_first, reveal_timing=first_turn, ") in markdown


def test_a_preset_of_one_switch_is_labelled_a_preset(tmp_path):
    # its rows' switch column read as the switch it sets (draw_order), so a table by switch mixed the two
    overlay = tmp_path / "mine.toml"
    overlay.write_text('[luna.rules.presets.mine]\ndraw_order = "majority_first"\n')
    table = compare_readings(load_game_data(overlay), [3], 4, 1, engine="reference")
    assert set(table.loc[table["reading"] == "preset=mine", "switch"]) == {"preset"}
    assert set(table.loc[table["reading"] == "draw_order=majority_first", "switch"]) == {"draw_order"}


@pytest.mark.parametrize(("argv", "problem"), [
    (["--games", "1"], "--games: at least 2"),
    (["--levels", "9"], "level"),
    (["--seats", "scripted:nobody"], "unknown scripted profile"),
    (["--seats", "luna:3"], "only scripted seats sit before Luna"),
    # regression: "a game has 1 to 4 seats, got 5", with no word that Luna was added
    (["--seats", "scripted:tank,scripted:tank,scripted:tank,scripted:tank"],
     "--seats: at most 3 scripted seats, got 4 (Luna is added as the last of a game's 4 seats)"),
])
def test_bad_input_is_one_line_and_exit_2_with_nothing_written(tmp_path, capsys, argv, problem):
    out = tmp_path / "readings"
    assert main(["readings", "--engine", "reference", "--out", str(out), "--quiet", *argv]) == 2
    error = capsys.readouterr().err
    assert problem in error and error.count("\n") == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_an_unknown_reading_in_an_overlay_is_one_line_and_exit_2(tmp_path, capsys):
    overlay = tmp_path / "bad.toml"
    overlay.write_text('[luna.rules]\nrebuild = "sometimes"\n')
    assert main(["readings", "--games", "10", "--overlay", str(overlay), "--out", str(tmp_path / "r"), "--quiet"]) == 2
    assert capsys.readouterr().err == (f"luna-balance: {overlay}: luna.rules.rebuild: Input should be 'lazy' or "
                                       "'immediate'\n")
    assert not (tmp_path / "r").exists()
