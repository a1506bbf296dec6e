"""The run driver: streaming aggregates and the Dask backend give the same numbers as a local run."""

from __future__ import annotations

import pandas as pd
import pytest

from sim.config import GameConfig, parse_seats
from sim.gamedata import load_game_data
from sim.run import run_simulation

DATA = load_game_data()
CONFIG = GameConfig(seats=parse_seats("scripted:balanced,luna:5"))


def test_aggregate_only_matches_the_per_game_rows(tmp_path):
    full = run_simulation(DATA, CONFIG, 300, 5, tmp_path / "full")
    summary = run_simulation(DATA, CONFIG, 300, 5, tmp_path / "agg", aggregate_only=True, chunk_size=37)
    assert not (summary / "seats.parquet").exists()
    seats = pd.read_parquet(full / "seats.parquet")
    aggregate = pd.read_parquet(summary / "aggregate.parquet").set_index(["seat", "column"])
    histograms = pd.read_parquet(summary / "histograms.parquet")
    for seat, rows in seats.groupby("seat"):
        for column in ("score_total", "helium", "cash", "reshuffles", "won"):
            expected = rows[column]
            got = aggregate.loc[(seat, column)]
            assert got["count"] == len(expected)
            assert got["sum"] == pytest.approx(expected.sum(), abs=1e-9)
            assert got["sd"] == pytest.approx(expected.std(), rel=1e-9)
            assert (got["min"], got["max"]) == (expected.min(), expected.max())
            counts = histograms[(histograms.seat == seat) & (histograms.column == column)]
            assert dict(zip(counts.value, counts["count"], strict=True)) == expected.value_counts().to_dict()


def test_aggregate_only_refuses_round_detail(tmp_path):
    with pytest.raises(ValueError, match="aggregate-only"):
        run_simulation(DATA, CONFIG, 10, 5, tmp_path / "x", aggregate_only=True, detail=True)


@pytest.mark.slow
def test_dask_cluster_gives_the_local_numbers(tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run_simulation(DATA, CONFIG, 120, 9, tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as cluster:
        remote = run_simulation(DATA, CONFIG, 120, 9, tmp_path / "dask", chunk_size=25, backend="dask",
                                scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(pd.read_parquet(local / "seats.parquet"), pd.read_parquet(remote / "seats.parquet"))
