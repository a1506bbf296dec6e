"""benchmarks/profile.py: samples are put down to the right function, and the tool runs end to end under perf."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from benchmarks import profile

PLAYS_OUT = "_ZN3sim4fast4luna14luna_plays_outB4v105B56c8tJTIeFIjxB2IKSgI4CrvSCKg1MMbCQQPKkLTj8gMFYBFOOlH7AIpoAE6Record"


def test_short_name_keeps_a_numba_function_s_module_and_name():
    assert profile.short_name(PLAYS_OUT) == "luna.luna_plays_out"
    assert profile.short_name("NRT_decref") == "NRT_decref"


def test_a_sample_counts_for_the_last_function_starting_before_it():
    functions = [(0x1000, PLAYS_OUT), (0x3000, "NRT_decref")]
    samples = [(0x1000, 5), (0x2FFF, 7), (0x3004, 11),  # in the two functions
               (0x0FFF, 100), (0x3000 + profile.MAX_FUNCTION_BYTES, 1000)]  # before the first, past the last
    assert profile.attribute(samples, functions) == {"luna.luna_plays_out": 12, "NRT_decref": 11}


def test_without_perf_it_says_so_and_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(profile.shutil, "which", lambda name: None)
    assert profile.main(["--games", "100"]) == 2
    assert "needs Linux perf" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("perf") is None, reason="Linux perf is not installed")
def test_the_profile_splits_a_level_s_games_by_function(capsys):
    pytest.importorskip("numba")
    assert profile.main(["--level", "0", "--games", "20000"]) == 0
    rows = {line.split("|")[1].strip(): line.split("|")[2:5] for line in capsys.readouterr().out.splitlines()
            if line.startswith("| ") and not line.startswith("| function")}
    distinct, replayed, _ = (float(cell.replace(",", "")) for cell in rows["luna.luna_plays_out"])
    assert distinct > 0 and replayed > 0  # her card loop is sampled in both children
    assert {"game.setup", "jitted code", "wall clock, the child's loop"} <= set(rows)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("perf") is None, reason="Linux perf is not installed")
def test_the_profile_plays_the_seats_it_is_given(capsys):
    pytest.importorskip("numba")
    assert profile.main(["--seats", "scripted:balanced,luna:0", "--games", "20000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scripted:balanced,luna:0, 20,000 games a child")
    rows = {line.split("|")[1].strip(): line.split("|")[2:5] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| function")}
    distinct, _, _ = (float(cell.replace(",", "")) for cell in rows["players.player_turn"])
    assert distinct > 0  # a scripted seat's turns are played, which Luna alone never has


def test_a_sample_counts_for_its_window_of_the_function_s_code():
    samples = [(0x1000, 5), (0x103F, 7), (0x1040, 11),  # the first window's two ends, the second's start
               (0x0FFF, 100), (0x1000 + profile.MAX_FUNCTION_BYTES, 1000)]  # before the function, past it
    assert profile.windows(samples, 0x1000, 64) == {0: 12, 64: 11}
    assert profile.windows(samples, 0x1000, 1) == {0: 5, 0x3F: 7, 0x40: 11}


def test_the_windows_with_the_largest_gap_come_first():
    spent = {"distinct": Counter({0: 300, 70: 900, 130: 50}), "replayed": Counter({0: 100, 64: 100, 130: 50})}
    text = profile.within_markdown("luna.luna_plays_out", 100, 64, 2, spent, None, None)
    rows = [line for line in text.splitlines() if line.startswith("| 0x")]
    # window 64: 9 - 1 = 8 ns a game; window 0: 3 - 1 = 2; window 128: no gap, and left out by --top 2
    assert rows == ["| 0x40 | 9.0 | 1.0 | 8.0 |", "| 0x0 | 3.0 | 1.0 | 2.0 |"]
    assert "its code was not kept" in text


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("perf") is None or shutil.which("objdump") is None,
                    reason="Linux perf or objdump is not installed")
def test_the_profile_looks_inside_her_card_loop(capsys):
    pytest.importorskip("numba")
    assert profile.main(["--level", "0", "--games", "20000", "--within", "luna.luna_plays_out", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n| 0x") == 3 and out.count("per instruction") == 3, out
    listed = [line for line in out.split("per instruction", 1)[1].splitlines() if line[:1] == " "]
    assert listed and all(len(line.split()) >= 4 for line in listed)  # ns, ns, offset, the instruction
