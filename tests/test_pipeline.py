"""The run driver's pipeline: chunk consumers, the vectorised summary, compact on-disk types, the compile notice."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import engines
from sim.cli import main
from sim.columns import SEAT_NUMERIC, Chunk
from sim.config import GameConfig, parse_seats
from sim.dispatch import usable_cpus
from sim.gamedata import load_game_data
from sim.run import Int32Scratch, RunOptions, run_simulation
from sim.summary import StreamingSummary

ROOT = Path(__file__).resolve().parent.parent
DATA = load_game_data()
CONFIG = GameConfig(seats=parse_seats("scripted:passive,luna:4"))


class Recorder:
    def __init__(self) -> None:
        self.games: list[int] = []
        self.finished: list[Path] = []

    def consume(self, chunk: Chunk) -> None:
        self.games.extend(int(game) for game in np.unique(chunk.seats["game"]))

    def finish(self, directory: Path) -> None:
        self.finished.append(directory)


def test_extra_consumers_see_every_chunk_in_order_then_finish(tmp_path):
    recorder = Recorder()
    seen: list[int] = []
    run_simulation(DATA, CONFIG, RunOptions(games=50, seed=3, chunk_size=7), tmp_path / "run",
                   progress=seen.append, consumers=[recorder])
    assert recorder.games == list(range(50))
    assert len(recorder.finished) == 1 and seen == [7] * 7 + [1]


def test_a_huge_run_draws_its_chunk_bounds_as_it_plays(tmp_path, monkeypatch):
    # regression: run_simulation listed every chunk's bounds first; --games 2**63-1 took 2.5 GB in 7 s and ended
    # in a MemoryError traceback (a QA pass), and without a memory limit it grew until the kernel killed it
    from sim import run

    real = run.chunk_bounds
    drawn: list[tuple[int, int]] = []

    def counted(games: int, chunk_size: int):
        for bound in real(games, chunk_size):
            drawn.append(bound)
            if len(drawn) > 100:
                raise AssertionError("chunk bounds drawn far ahead of the games played")
            yield bound

    class EnoughError(Exception):
        pass

    def stop(games: int) -> None:
        raise EnoughError

    monkeypatch.setattr(run, "chunk_bounds", counted)
    with pytest.raises(EnoughError):
        run_simulation(DATA, CONFIG, RunOptions(games=2**63 - 1, seed=3, chunk_size=10, aggregate_only=True),
                       tmp_path / "run", progress=stop)
    assert drawn == [(0, 10), (10, 10)]  # the chunk being handed on and the next one, playing meanwhile
    assert list(tmp_path.iterdir()) == []


def test_a_failing_consumer_stops_the_run_and_leaves_nothing(tmp_path):
    class Broken(Recorder):
        def consume(self, chunk: Chunk) -> None:
            raise RuntimeError("consumer broke")

    with pytest.raises(RuntimeError, match="consumer broke"):
        run_simulation(DATA, CONFIG, RunOptions(games=20, seed=3, chunk_size=5), tmp_path / "run",
                       consumers=[Broken()])
    assert list(tmp_path.iterdir()) == []


def test_files_use_compact_integers_and_keep_every_value(tmp_path):
    out = run_simulation(DATA, CONFIG, RunOptions(games=30, seed=4, detail=True, chunk_size=11), tmp_path / "run")
    chunk = engines.play_chunk_reference(DATA, CONFIG, 4, 0, 30, True)
    seats = pq.read_table(out / "seats.parquet")
    rounds = pq.read_table(out / "luna_rounds.parquet")
    assert seats.schema.field("game").type == pa.int64() and seats.schema.field("score_total").type == pa.int32()
    assert rounds.schema.field("game").type == pa.int64() and rounds.schema.field("cash").type == pa.int32()
    for name in SEAT_NUMERIC:
        assert np.array_equal(seats[name].to_numpy(), chunk.seats[name]), name
    assert rounds["card_a"].type == pa.string()
    assert np.array_equal(rounds["round"].to_numpy(), chunk.rounds["round"])


def test_int32_scratch_reuses_one_buffer_and_never_overlaps_within_a_table():
    scratch = Int32Scratch()
    first = [scratch.take(size) for size in (5, 7, 3)]  # the first table: fresh arrays
    scratch.reset()
    second = [scratch.take(size) for size in (5, 7, 3)]  # now one buffer sized to the last table
    assert second[0].base is not None and all(taken.base is second[0].base for taken in second)
    for table in (first, second):
        for i, one in enumerate(table):
            for other in table[i + 1:]:
                assert not np.shares_memory(one, other)
    scratch.reset()
    larger = [scratch.take(size) for size in (10, 10)]  # beyond the buffer: the overflow is fresh memory
    assert larger[0].base is second[0].base and larger[1].base is not second[0].base


def test_package_versions_are_looked_up_once_and_each_caller_gets_its_own_copy(monkeypatch):
    from sim import run

    run._installed_versions.cache_clear()
    calls = []
    real = run.metadata.version
    monkeypatch.setattr(run.metadata, "version", lambda package: calls.append(package) or real(package))
    first = run.package_versions()
    first["numpy"] = "changed by a caller"
    second = run.package_versions()
    assert second["numpy"] == real("numpy") and len(calls) == len(second) - 1  # all but python, once
    run._installed_versions.cache_clear()


def _naive_summary(chunks: list[dict[str, np.ndarray]]) -> dict:
    stacked = {name: np.concatenate([chunk[name] for chunk in chunks]) for name in chunks[0]}
    result = {}
    for seat in np.unique(stacked["seat"]):
        for name in SEAT_NUMERIC:
            values = stacked[name][stacked["seat"] == seat]
            distinct, counts = np.unique(values, return_counts=True)
            result[(int(seat), name)] = (values.size, int(values.sum()) if name != "won" else None, values.min(),
                                         values.max(), dict(zip(distinct.tolist(), counts.tolist(), strict=True)))
    return result


def test_summary_histograms_survive_shifting_and_sparse_ranges():
    rng = np.random.default_rng(8)
    chunks = []
    for shift, spread in ((0, 5), (-40, 3), (100, 10), (0, 10**9)):  # the last is counted sparsely
        rows = 60
        chunk = {"seat": np.tile(np.arange(3), rows // 3)}
        for name in SEAT_NUMERIC:
            chunk[name] = (rng.choice([0.0, 0.5, 1.0], rows) if name == "won"
                           else rng.integers(shift - spread, shift + spread, rows))
        chunks.append(chunk)
    summary = StreamingSummary()
    for chunk in chunks:
        summary.update(chunk)
    config = GameConfig(seats=parse_seats("luna:1,luna:2,luna:3"))
    aggregate, histograms = (table.to_pandas() for table in summary.tables(config))
    for (seat, name), (count, total, low, high, counts) in _naive_summary(chunks).items():
        row = aggregate[(aggregate.seat == seat) & (aggregate.column == name)].iloc[0]
        assert (row["count"], row["min"], row["max"]) == (count, low, high)
        if total is not None:
            assert row["sum"] == total
        got = histograms[(histograms.seat == seat) & (histograms.column == name)]
        assert dict(zip(got.value, got["count"], strict=True)) == {float(k): v for k, v in counts.items()}


def test_summary_counts_the_same_whether_seats_come_in_turn_or_not():
    # The engines list seats in turn (row g * n_seats + seat), which the summary counts with strided views;
    # any other order takes the indexed path. Both must give the same tables to the last bit, also for the
    # float column when it holds one value only (counted without a sort) and when it holds several.
    rng = np.random.default_rng(11)
    chunks = []
    for won in ([1.0], [0.0, 0.5, 1.0 / 3, 1.0]):
        rows = 90
        chunk = {"seat": np.tile(np.arange(3), rows // 3)}
        for name in SEAT_NUMERIC:
            chunk[name] = rng.choice(won, rows) if name == "won" else rng.integers(-3, 40, rows)
        chunks.append(chunk)
    in_turn, shuffled = StreamingSummary(), StreamingSummary()
    for chunk in chunks:
        in_turn.update(chunk)
        order = rng.permutation(len(chunk["seat"]))
        shuffled.update({name: values[order] for name, values in chunk.items()})
    config = GameConfig(seats=parse_seats("luna:1,luna:2,luna:3"))
    for ours, theirs in zip(in_turn.tables(config), shuffled.tables(config), strict=True):
        assert ours.equals(theirs)
    aggregate, histograms = (table.to_pandas() for table in in_turn.tables(config))
    won = aggregate[aggregate.column == "won"].set_index("seat")
    for seat in range(3):
        values = np.concatenate([chunk["won"][chunk["seat"] == seat] for chunk in chunks])
        assert won.loc[seat, "count"] == values.size and won.loc[seat, "min"] == values.min()
        got = histograms[(histograms.seat == seat) & (histograms.column == "won")]
        assert dict(zip(got.value, got["count"], strict=True)) == dict(
            zip(*(array.tolist() for array in np.unique(values, return_counts=True)), strict=True))


def test_summary_tables_do_not_depend_on_the_chunk_size():
    """Regression: ``won``'s sum was added chunk by chunk in float64, so after a game's 1/3 share the last bits of
    its sum, mean and sd depended on ``--chunk-size`` (a QA pass: ``Table.equals`` false for two chunk sizes of the
    same games, which the README says compare equal)."""
    rng = np.random.default_rng(5)
    rows = 3 * 4000
    games = {"seat": np.tile(np.arange(3), rows // 3)}
    for name in SEAT_NUMERIC:
        games[name] = rng.choice([0.0, 1.0 / 3, 0.5, 1.0], rows) if name == "won" else rng.integers(0, 90, rows)
    config = GameConfig(seats=parse_seats("luna:1,luna:2,luna:3"))
    tables = []
    for games_a_chunk in (4000, 777, 1):
        summary = StreamingSummary()
        for first in range(0, rows, 3 * games_a_chunk):
            summary.update({name: values[first:first + 3 * games_a_chunk] for name, values in games.items()})
        tables.append(summary.tables(config))
    for aggregate, histograms in tables[1:]:
        assert aggregate.equals(tables[0][0]) and histograms.equals(tables[0][1])
    won = tables[0][0].to_pandas().set_index(["column", "seat"]).loc["won"]
    for seat in range(3):
        values = games["won"][seat::3]
        assert won.loc[seat, "sum"] == pytest.approx(values.sum(), rel=1e-15)
        assert won.loc[seat, "sd"] == pytest.approx(values.std(ddof=1), rel=1e-12)


def test_compile_notice_is_said_once_and_never_when_quiet(tmp_path, monkeypatch, capsys):
    pytest.importorskip("numba")
    import sim.fast._jit as jit_module

    monkeypatch.setattr(jit_module, "is_compiled", lambda dispatcher: False)  # pretend the cache is empty
    monkeypatch.setitem(engines._compile_notice, "said", False)
    monkeypatch.setitem(engines._compile_notice, "enabled", True)
    config = GameConfig(seats=parse_seats("luna:2"))
    for first in (0, 5):
        engines.engine_function("numba")(DATA, config, 1, first, 5, False)
    engines.listed_function("numba")(DATA, config, 1, [3, 9], False)  # a campaign's entry point too
    err = capsys.readouterr().err
    assert err.count("compiling the numba engine for this machine") == 1 and "compiled in" in err

    monkeypatch.setitem(engines._compile_notice, "said", False)
    engines.listed_function("numba")(DATA, config, 1, [3, 9], False)
    assert capsys.readouterr().err.count("compiling the numba engine for this machine") == 1

    monkeypatch.setitem(engines._compile_notice, "said", False)
    assert main(["simulate", "--seats", "luna:2", "--games", "5", "--quiet", "--out", str(tmp_path / "run")]) == 0
    assert "compiling" not in capsys.readouterr().err


@pytest.mark.parametrize(("board", "check", "version"), [
    ("moon", False, "machine; "), ("belt", False, "machine (its version for the Belt side and rule readings); "),
    ("moon", True, "machine (its version that checks invariants); "),
])
def test_compile_notice_names_the_version_it_compiles(monkeypatch, capsys, board, check, version):
    # a first Belt run after everyday ones said "this happens once" of a compile already done (a QA pass)
    pytest.importorskip("numba")
    import sim.fast._jit as jit_module

    monkeypatch.setattr(jit_module, "is_compiled", lambda dispatcher: False)  # pretend the cache is empty
    monkeypatch.setitem(engines._compile_notice, "said", False)
    monkeypatch.setitem(engines._compile_notice, "enabled", True)
    config = GameConfig(seats=parse_seats("luna:2"), board=board)
    engines.engine_function("numba")(DATA, config, 1, 0, 5, False, check_invariants=check)
    assert f"compiling the numba engine for this {version}this happens once" in capsys.readouterr().err


def test_compile_notice_is_not_said_when_the_engine_refuses_the_data(tmp_path, monkeypatch, capsys):
    # A cold cache and an overlay beyond a capacity: before, "compiling ... up to a minute" came first and the
    # error right after, for a compile that never ran.
    pytest.importorskip("numba")
    import sim.fast._jit as jit_module

    monkeypatch.setattr(jit_module, "is_compiled", lambda dispatcher: False)  # pretend the cache is empty
    monkeypatch.setitem(engines._compile_notice, "said", False)
    monkeypatch.setitem(engines._compile_notice, "enabled", True)
    overlay = tmp_path / "deep_rows.toml"
    overlay.write_text("[moon.research]\nrow_deck = 500\n")
    assert main(["simulate", "--seats", "luna:2", "--games", "5", "--overlay", str(overlay),
                 "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == (f"luna-balance: {overlay}: moon.research.row_deck: 500 (the numba engine "
                                       "supports at most 62; --engine reference has no such limit)\n")
    assert not engines._compile_notice["said"]


def test_compile_before_workers_plays_one_game_here_only_on_a_cold_usable_cache(tmp_path, monkeypatch):
    pytest.importorskip("numba")
    import sim.fast._jit as jit_module

    played = []
    monkeypatch.setattr(engines, "engine_function", lambda engine: lambda *call, **options: played.append(
        (engine, call, options)))
    monkeypatch.setattr(jit_module, "is_compiled", lambda dispatcher: False)  # pretend the cache is empty
    monkeypatch.setitem(jit_module.UNCACHED, "reason", "")
    config = GameConfig(seats=parse_seats("luna:2"))
    engines.compile_before_workers("numba", DATA, config, check_invariants=True)
    assert played == [("numba", (DATA, config, 0, 0, 1, False), {"check_invariants": True})]
    played.clear()
    engines.compile_before_workers("reference", DATA, config)  # nothing to compile
    overlay = tmp_path / "deep_rows.toml"
    overlay.write_text("[moon.research]\nrow_deck = 500\n")
    engines.compile_before_workers("numba", load_game_data(overlay), config)  # refused: the workers say why
    monkeypatch.setitem(jit_module.UNCACHED, "reason", "NUMBA_CACHE_DIR (x) is not a folder that can be written")
    engines.compile_before_workers("numba", DATA, config)  # every worker would compile all the same
    monkeypatch.setitem(jit_module.UNCACHED, "reason", "")
    monkeypatch.setattr(jit_module, "is_compiled", lambda dispatcher: True)
    engines.compile_before_workers("numba", DATA, config)  # a warm cache: the workers load it
    assert played == []


@pytest.mark.slow
def test_a_cold_cache_with_workers_compiled_in_each_worker_and_said_so_each_time(tmp_path):
    # --workers 2 on an empty cache: each worker compiled the engine and printed the notice, even under --quiet
    # (the workers never heard of it); now this process compiles it once and the workers load it from the cache
    if usable_cpus() < 2:
        pytest.skip("--workers 2 needs two usable CPUs (it is lowered to the CPUs there are)")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "sim", "simulate", "--seats", "luna:3", "--games", "4000", "--chunk-size",
               "1000", "--workers", "2"]
    quiet = subprocess.run([*command, "--quiet", "--out", str(tmp_path / "quiet")], env=env, capture_output=True,
                           text=True, timeout=600)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    shutil.rmtree(tmp_path / "cache")
    said = subprocess.run([*command, "--out", str(tmp_path / "said")], env=env, capture_output=True, text=True,
                          timeout=600)
    assert said.returncode == 0, said.stderr
    assert said.stderr.count("compiling the numba engine for this machine") == 1
    assert said.stderr.count("luna-balance: compiled in") == 1
    assert json.loads((tmp_path / "said" / "manifest.json").read_text())["config"]["workers"] == 2


_MODULE = """
from sim.fast._jit import jit, is_compiled


@jit
def add_one(x):
    return x + 1
"""


def test_is_compiled_tells_a_cold_cache_from_a_warm_one(tmp_path):
    pytest.importorskip("numba")
    (tmp_path / "cold_probe.py").write_text(textwrap.dedent(_MODULE))
    script = ("import json\nfrom cold_probe import add_one, is_compiled\nbefore = is_compiled(add_one)\n"
              "add_one(1)\nprint(json.dumps([before, is_compiled(add_one)]))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
            for _ in range(2)]
    assert [json.loads(run.stdout) for run in runs] == [[False, True], [True, True]]
