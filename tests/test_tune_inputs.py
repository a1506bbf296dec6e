"""``luna-balance tune``: inputs refused before any game, in one line naming the file or option."""

from __future__ import annotations

import pytest

from sim.cli import main

SCORE = ("[levels.5]\nmetric = 'luna_mean_score'\ntarget = {target}\ntolerance = {tolerance}\n"
         "move = ['levels.5.grade2']\n")


def refused(tmp_path, capsys, target_text: str, *options: str) -> str:
    path = tmp_path / "target.toml"
    path.write_text(target_text)
    out = tmp_path / "out"
    assert main(["tune", str(path), "--out", str(out), "--quiet", *options]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and not out.exists(), error
    return error


def test_tune_one_game_is_refused(tmp_path, capsys):
    # bug: one game reported a mean score's interval as [-inf, inf] and played on
    error = refused(tmp_path, capsys, SCORE.format(target=360, tolerance=2), "--games", "1")
    assert error == "luna-balance: --games: must be at least 2, got 1\n"


@pytest.mark.parametrize(("text", "problem"), [
    # bug: accepted, and the report's plots printed overflow RuntimeWarnings
    (SCORE.format(target=1e308, tolerance=1), "levels.5.target: a mean score is between 0 and 10000, got 1e+308"),
    (SCORE.format(target=360, tolerance=1e308), "levels.5.tolerance: at most 10000"),
    ("[levels.5]\nmetric = 'luna_win_rate'\nopponent = 'scripted:balanced'\ntarget = 0.6\ntolerance = 2\n"
     "move = ['levels.5.grade2']\n", "levels.5.tolerance: at most 1 (a win rate is between 0 and 1), got 2"),
    ("[levels.5]\nmetric = 'parity_strength'\nprofile = 'balanced'\ntarget = 100\ntolerance = 0.02\n"
     "move = ['levels.5.grade2']\n", "levels.5.target: a strength at parity is above 0 and at most 64"),
    ("[ladder]\nmetric = 'luna_mean_score'\ntolerance = 1e308\n", "ladder.tolerance: at most 10000"),
])
def test_tune_target_or_tolerance_beyond_the_metric_is_refused(tmp_path, capsys, text, problem):
    error = refused(tmp_path, capsys, text, "--games", "10")
    assert error.startswith(f"luna-balance: {tmp_path / 'target.toml'}: ") and problem in error, error


def test_tune_overlay_short_of_starting_tokens_names_the_overlay(tmp_path, capsys):
    # bug: "--engine: numba: start_bonus 'random' ... (in <start>)": the wrong option, and no file
    overlay = tmp_path / "tok2.toml"
    overlay.write_text("[moon.starting_tokens]\ntokens = [{ helium = 1 }, { helium = 2 }]\n")
    text = ("[levels.4]\nmetric = 'luna_win_rate'\nopponent = 'scripted:balanced,scripted:tank'\ntarget = 0.6\n"
            "tolerance = 0.01\nmove = ['levels.4.helium_tokens.*']\n")
    error = refused(tmp_path, capsys, text, "--games", "10", "--overlay", str(overlay))
    assert "--engine" not in error and "<start>" not in error
    assert error.endswith("plays 3 seats; start_bonus 'random' draws one starting token per seat: 3 seats, 2 tokens "
                          f"in moon.starting_tokens.tokens (in {overlay})\n")
