"""The load's memory check: a lower bound of what the frames take, and one line when even that does not fit."""

from __future__ import annotations

from pathlib import Path

import pytest

import analysis.load_memory as load_memory
from analysis.load import load_runs
from analysis.load_memory import available_memory, check_fits, runs_bytes
from sim.cli import main


def _run(tmp_path: Path, name: str, seats: str, games: int, *options: str) -> Path:
    out = tmp_path / name
    assert main(["simulate", "--seats", seats, "--games", str(games), "--seed", "3", "--out", str(out), "--quiet",
                 *options]) == 0
    return out


def _frame_bytes(run_dirs: list[Path]) -> int:
    data = load_runs(run_dirs)
    return int(data.seats.memory_usage(deep=True).sum() + data.rounds.memory_usage(deep=True).sum())


@pytest.mark.parametrize(("seats", "options"), [("luna:5", ()), ("scripted:balanced,luna:4", ()),
                                                 ("luna:3", ("--detail", "rounds"))],
                         ids=["solo", "scripted", "rounds"])
def test_the_bound_is_the_loaded_frames_less_their_category_names(tmp_path, seats, options):
    # never above what the frames take (a bound above would refuse a load that fits), and within 1 % of it (the
    # categories' text and the index are all it leaves out: a few KB), so that it tells a hopeless load
    run = _run(tmp_path, "run", seats, 3000, *options)
    bound, largest = runs_bytes([run])
    actual = _frame_bytes([run])
    assert largest == run
    assert 0.99 * actual <= bound <= actual


def test_several_runs_count_twice_for_their_stack(tmp_path):
    # load_runs holds the loaded runs and their stack at once while it builds the stack
    one, two = _run(tmp_path, "a", "luna:5", 1000), _run(tmp_path, "b", "luna:4,luna:5", 2000)
    alone = runs_bytes([one])[0] + runs_bytes([two])[0]
    together, largest = runs_bytes([one, two])
    assert together == 2 * alone and largest == two
    assert _frame_bytes([one, two]) <= together  # the stack alone is below it, as it should be


def test_runs_too_large_for_the_memory_available_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    run = _run(tmp_path, "big", "luna:5", 2000)
    needed, _ = runs_bytes([run])
    check_fits([run], available=needed)  # exactly enough: no refusal
    with pytest.raises(ValueError, match=r"big/seats\.parquet: too large to load whole: its rows take at least"):
        check_fits([run], available=needed - 1)
    # from the command line (a compact load, integers narrowed): refused before anything is read or written
    needed, _ = runs_bytes([run], compact=True)
    monkeypatch.setattr(load_memory, "available_memory", lambda: needed - 1)
    out = tmp_path / "report"
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"luna-balance: {run / 'seats.parquet'}: too large to load whole: its rows take at least 0.0 "
                          "GiB in memory and this machine has 0.0 GiB available; report on fewer runs or games, or "
                          "play them with `luna-balance study`"), err
    assert not out.exists()


def test_available_memory_reads_linux_memavailable(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:    2048 kB\n")
    assert available_memory(meminfo) == 2048 * 1024
    meminfo.write_text("MemTotal:       24000000 kB\n")  # a kernel older than 3.14: unknown, so no check
    assert available_memory(meminfo) is None
    assert available_memory(tmp_path / "missing") is None
    check_fits([tmp_path / "no-run"], available=0)  # nothing to load: nothing to refuse (load_runs says why)
