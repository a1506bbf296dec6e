"""The run driver: its options, streaming aggregates, and the Dask backend give the same numbers as a local run."""

from __future__ import annotations

import hashlib
import json
import re
import sys

import pandas as pd
import pytest

from sim.config import GameConfig, parse_seats
from sim.gamedata import load_game_data
from sim.run import OutputPathError, RunOptions, run_simulation

DATA = load_game_data()
CONFIG = GameConfig(seats=parse_seats("scripted:balanced,luna:5"))


def test_aggregate_only_matches_the_per_game_rows(tmp_path):
    full = run_simulation(DATA, CONFIG, RunOptions(games=300, seed=5), tmp_path / "full")
    summary = run_simulation(DATA, CONFIG, RunOptions(games=300, seed=5, aggregate_only=True, chunk_size=37),
                             tmp_path / "agg")
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


@pytest.mark.parametrize(("options", "message"), [
    ({"games": 0}, "^games: must be at least 1"),
    ({"games": "100"}, "^games: must be a whole number, got '100'"),  # '<' not supported (a QA pass)
    ({"games": 2.5}, "^games: must be a whole number, got 2.5"),
    ({"engine": "turbo"}, "unknown engine 'turbo'"),
    ({"chunk_size": 0}, "^chunk_size: must be at least 1"),
    ({"workers": 0}, "^workers: must be at least 1"),
    ({"aggregate_only": True, "detail": True}, "^aggregate_only keeps no per-round rows; drop detail"),
    ({"backend": "slurm"}, "unknown backend 'slurm'"),
    ({"backend": "dask"}, "^backend dask needs scheduler"),
    ({"scheduler": "tcp://127.0.0.1:1"}, "^scheduler: only with backend dask"),  # silently played here (a QA pass)
])
def test_options_refuse_what_cannot_run(options, message):
    with pytest.raises(ValueError, match=message) as caught:
        RunOptions(**{"games": 10, "seed": 5, **options})
    assert "\n" not in str(caught.value)


def test_options_refuse_a_dask_backend_without_dask(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if dask.distributed were not installed
    with pytest.raises(ValueError, match=r"^backend dask: dask.distributed cannot be imported .*luna-balance\[dask\]"):
        RunOptions(games=10, seed=5, backend="dask", scheduler="tcp://127.0.0.1:9")


def test_options_default_to_one_local_worker_of_the_compiled_engine():
    # the engine of simulate, play() and every command: RunOptions defaulted to the reference engine, far slower
    options = RunOptions(games=10, seed=5)
    assert (options.engine, options.workers, options.backend) == ("numba", 1, "local")
    assert options.chunk_size is None and not options.detail and not options.aggregate_only  # None: from memory


def test_manifest_records_the_options(tmp_path):
    options = RunOptions(games=7, seed=3, chunk_size=4, overlay=None, detail=True)
    out = run_simulation(DATA, CONFIG, options, tmp_path / "run", extra_manifest={"note": "x"})
    manifest = json.loads((out / "manifest.json").read_text())
    assert {key: manifest["config"][key] for key in ("games", "seed", "chunk_size", "engine", "detail", "workers")} \
        == {"games": 7, "seed": 3, "chunk_size": 4, "engine": "numba", "detail": "rounds", "workers": 1}
    assert manifest["note"] == "x"


def test_manifest_records_the_digest_of_every_file_the_run_wrote(tmp_path):
    out = run_simulation(DATA, CONFIG, RunOptions(games=7, seed=3, detail=True), tmp_path / "run")
    manifest = json.loads((out / "manifest.json").read_text())
    written = sorted(path.name for path in out.iterdir() if path.name != "manifest.json")
    assert sorted(manifest["files"]) == written == ["luna_rounds.parquet", "seats.parquet"]
    for name, digest in manifest["files"].items():
        assert digest == "sha256:" + hashlib.sha256((out / name).read_bytes()).hexdigest()


def test_an_impossible_out_is_refused_before_any_game(tmp_path, monkeypatch):
    import sim.engines

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sim.engines, "play_chunk_reference", no_games)
    afile = tmp_path / "afile"
    afile.write_text("not a directory\n")
    for out in (afile / "run", afile):
        with pytest.raises(OutputPathError, match=re.escape(str(afile))):
            run_simulation(DATA, CONFIG, RunOptions(games=5, seed=1), out)
    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("keep me\n")
    with pytest.raises(OutputPathError, match="is not a run directory"):
        run_simulation(DATA, CONFIG, RunOptions(games=5, seed=1), other)
    with pytest.raises(OutputPathError, match="name the run directory itself"):
        run_simulation(DATA, CONFIG, RunOptions(games=5, seed=1), tmp_path / "notes" / "..")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["afile", "notes"]
    assert afile.read_text() == "not a directory\n" and [p.name for p in other.iterdir()] == ["todo.txt"]



@pytest.mark.parametrize("manifest", ['{"name": "my web app"}', '{"versions": {"numpy": "2.0"}}', "[1]", "{not json",
                                      '{"versions": ["luna-balance"]}'])
def test_folder_with_a_manifest_not_ours_is_not_replaced(tmp_path, monkeypatch, manifest):
    # any folder holding a manifest.json was taken for a run directory and deleted whole (a QA pass, 2026-11-26)
    import sim.engines

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sim.engines, "play_chunk_reference", no_games)
    app = tmp_path / "webapp"
    (app / "src").mkdir(parents=True)
    (app / "manifest.json").write_text(manifest)
    (app / "src" / "app.js").write_text("code\n")
    with pytest.raises(OutputPathError, match="is not a run directory"):
        run_simulation(DATA, CONFIG, RunOptions(games=5, seed=1), app)
    assert sorted(str(path.relative_to(app)) for path in app.rglob("*")) == ["manifest.json", "src", "src/app.js"]
    assert [path.name for path in tmp_path.iterdir()] == ["webapp"]


def test_a_run_directory_of_ours_is_replaced(tmp_path):
    out = run_simulation(DATA, CONFIG, RunOptions(games=5, seed=1, engine="reference", detail=True), tmp_path / "run")
    run_simulation(DATA, CONFIG, RunOptions(games=5, seed=2, engine="reference"), out)
    assert sorted(path.name for path in out.iterdir()) == ["manifest.json", "seats.parquet"]  # its rounds went too
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 2


def test_a_run_directory_replaced_whole_took_a_file_put_into_it_along(tmp_path):
    # its stale.txt was deleted with it (a review, 2026-11-27): a file no run writes is the user's
    out = run_simulation(DATA, CONFIG, RunOptions(games=5, seed=1, engine="reference"), tmp_path / "run")
    (out / "stale.txt").write_text("from before\n")
    with pytest.raises(OutputPathError, match=r"holds stale\.txt, which no luna-balance output writes there"):
        run_simulation(DATA, CONFIG, RunOptions(games=5, seed=2, engine="reference"), out)
    assert (out / "stale.txt").read_text() == "from before\n"
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 1

@pytest.mark.slow
def test_dask_cluster_gives_the_local_numbers(tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run_simulation(DATA, CONFIG, RunOptions(games=120, seed=9), tmp_path / "local")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=":0",
                                  processes=True) as cluster:
        options = RunOptions(games=120, seed=9, chunk_size=25, backend="dask", scheduler=cluster.scheduler_address)
        remote = run_simulation(DATA, CONFIG, options, tmp_path / "dask")
    pd.testing.assert_frame_equal(pd.read_parquet(local / "seats.parquet"), pd.read_parquet(remote / "seats.parquet"))
