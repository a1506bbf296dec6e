"""The benchmark runs end to end with tiny sizes and reports every column (its numbers are not checked here)."""

from __future__ import annotations

import json

import pytest

from benchmarks.run import LEVEL_COLUMNS, main


def test_benchmark_reports_every_column(tmp_path, capsys):
    pytest.importorskip("numba")
    from sim.fast._jit import CACHE_DIR

    # the kernels' own cache folder, so the test loads instead of compiling ("cold" is then warm)
    report_path = tmp_path / "bench.json"
    assert main(["--games", "1000", "--repeats", "1", "--levels", "2", "--no-study",
                 "--memory-games", "2000", "--cache-dir", str(CACHE_DIR.parent), "--json", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert set(report["levels"]) == {"2"} and set(report["levels"]["2"]) == set(LEVEL_COLUMNS)
    assert all(value > 0 for value in report["levels"]["2"].values())
    assert set(report["start"]) == {"cold_start", "warm_start", "imports", "engine_load"}
    table = capsys.readouterr().out
    for header in ("kernel 1 thread", "kernel 2 threads", "scaling", "CPU/wall", "aggregate-only", "per-game rows",
                   "detail rounds", "× floor", "games replayed", "floor ns/game", "cold start", "warm start",
                   "peak RSS"):
        assert header in table
