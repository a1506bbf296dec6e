"""A compact load (integers narrowed, as ``runs-report`` loads) gives the same frames' values and the same report."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.load import load_runs, narrowest
from analysis.load_memory import runs_bytes
from analysis.report import report_tables
from sim.cli import main


@pytest.fixture(scope="module")
def every_kind_of_run(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Runs that between them make every table of the report: Luna alone with per-round rows at two levels, a
    duel in both seat orders, a scripted opponent, and a variant of the same games."""
    root = tmp_path_factory.mktemp("runs")
    overlay = root / "later_tokens.toml"
    overlay.write_text("[luna.levels.4]\nhelium_tokens = [12, 20]\n", encoding="utf-8")
    plays = {
        "l3": ["--seats", "luna:3", "--detail", "rounds"],
        "l4": ["--seats", "luna:4", "--detail", "rounds"],
        "d34": ["--seats", "luna:3,luna:4"],
        "d43": ["--seats", "luna:4,luna:3"],
        "vs4": ["--seats", "scripted:balanced,luna:4"],
        "l4-later": ["--seats", "luna:4", "--detail", "rounds", "--overlay", str(overlay)],
    }
    for name, seats in plays.items():
        assert main(["simulate", *seats, "--games", "400", "--seed", "11", "--out", str(root / name), "--quiet"]) == 0
    return [root / name for name in plays]


def test_compact_frames_hold_the_same_values_in_fewer_bytes(every_kind_of_run):
    wide, narrow = load_runs(every_kind_of_run), load_runs(every_kind_of_run, compact=True)
    for name in ("seats", "rounds"):
        full, compact = getattr(wide, name), getattr(narrow, name)
        pd.testing.assert_frame_equal(full, compact, check_dtype=False)
        integers = [column for column in full.columns if pd.api.types.is_integer_dtype(full[column].dtype)]
        assert integers and all(compact[column].dtype.itemsize < full[column].dtype.itemsize for column in integers)
        assert compact.memory_usage(deep=True).sum() < 0.5 * full.memory_usage(deep=True).sum()
    # the memory check's bound stays below what the compact frames take (stacked: twice, see load_memory)
    taken = sum(int(frame.memory_usage(deep=True).sum()) for frame in (narrow.seats, narrow.rounds))
    assert runs_bytes(every_kind_of_run, compact=True)[0] <= 2 * taken


def test_the_report_tables_are_the_same_from_a_compact_load(every_kind_of_run):
    wide = report_tables(load_runs(every_kind_of_run))
    narrow = report_tables(load_runs(every_kind_of_run, compact=True))
    # every table a report can have is here, so none is compared vacuously
    assert {"head_to_head", "variant_differences", "win_rates", "interactions", "blocking_probability",
            "card_play_counts", "reshuffle_timing"} <= set(wide)
    assert set(wide) == set(narrow)
    for name, table in wide.items():
        pd.testing.assert_frame_equal(table, narrow[name], check_dtype=False, obj=name)


def test_narrowest_takes_the_smallest_integer_type_and_leaves_the_rest():
    assert narrowest(np.array([0, 127], np.int64)).dtype == np.int8
    assert narrowest(np.array([-1, 128], np.int64)).dtype == np.int16
    assert narrowest(np.array([0, 2**31], np.int64)).dtype == np.int64
    assert narrowest(pd.Series([0.5, 1.0])).dtype == np.float64
