"""Frames loaded with text as categoricals (analysis.load) give the tables plain text columns gave.

Each test pins a place where a categorical column raised, warned or changed a result that the same
column as text did not.
"""

from __future__ import annotations

import pytest

from analysis import stats
from analysis.load import load_run


def test_paired_differences_of_runs_loaded_apart_with_different_seat_kinds(make_run):
    # a solo run's kind column knows only "luna", a duel's "luna" and "scripted": comparing the two
    # categoricals raised TypeError instead of naming the different seat mixes
    solo = load_run(make_run("solo", ["luna:5"], games=3)).seats
    duel = load_run(make_run("duel", ["scripted:tank", "luna:5"], games=3)).seats
    with pytest.raises(ValueError, match="different seat mixes: game 0 seat 0 is luna:5 in base and scripted:-1"):
        stats.paired_differences(solo, duel)
