"""The engines' speed, measured side by side in one run: ``python -m benchmarks.run [--games N]``.

One table, one row per Luna level (Luna alone unless said otherwise):

* ``numba/s``: numba engine, warm (compiled code loaded before timing), all numba threads;
* ``1 thread/s``: the same on one thread, and ``x ref``: that divided by the reference engine's rate
  (``ref/s``, one core), i.e. the speed-up per core;
* ``x floor``: how many times the floor kernel's time a game takes (``benchmarks/floor.py``: Luna's
  deck shuffled and drawn for 7 rounds with the same RNG, nothing else), both on one thread;
* ``4 seats/s``: numba, all threads, three passive scripted seats and Luna;
* ``balanced/s``: numba, all threads, one scripted ``balanced`` player and Luna (``scripted:balanced,luna:L``).

Below it: the time 9 levels x 1,000,000 single-Luna games take at the measured rates; the cold
compile (a subprocess with an empty ``NUMBA_CACHE_DIR``) and the warm start (the same subprocess
with that cache filled), each from process start to the first result of a chunk; and the peak
resident memory of ``luna-balance simulate --aggregate-only`` over 10,000,000 games (a subprocess,
read from the kernel's accounting of finished children).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

from benchmarks.floor import play_floor
from sim.config import GameConfig, parse_seats
from sim.engines import play_chunk_reference
from sim.fast import play_chunk_numba
from sim.gamedata import load_game_data

ROOT = Path(__file__).resolve().parent.parent
SEED = 1
FIRST_RESULT_GAMES = 1000
_FIRST_RESULT = f"""
import time
started = time.perf_counter()
from sim.config import GameConfig, parse_seats
from sim.fast import play_chunk_numba
from sim.gamedata import load_game_data
imported = time.perf_counter()
play_chunk_numba(load_game_data(), GameConfig(seats=parse_seats("luna:5")), 1, 0, {FIRST_RESULT_GAMES}, False)
print(imported - started, time.perf_counter() - imported)
"""


def processor() -> str:
    name = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return name or platform.machine()


def games_per_second(play: Callable[[int], object], games: int, repeats: int) -> float:
    """Best rate of ``repeats`` timed calls of ``play(first_game)`` (each playing ``games`` games)."""
    best = float("inf")
    for repeat in range(repeats):
        started = time.perf_counter()
        play(repeat * games)
        best = min(best, time.perf_counter() - started)
    return games / best


def numba_rate(data, config: GameConfig, games: int, threads: int, repeats: int) -> float:
    numba.set_num_threads(threads)
    play_chunk_numba(data, config, SEED, 0, 1000, False)  # load or compile outside the timing
    return games_per_second(lambda first: play_chunk_numba(data, config, SEED, first, games, False), games, repeats)


def floor_rate(deck_size: int, games: int, repeats: int) -> float:
    out = np.zeros(games, dtype=np.int64)
    play_floor(np.uint64(SEED), 0, deck_size, out[:10])
    return games_per_second(lambda first: play_floor(np.uint64(SEED), first, deck_size, out), games, repeats)


def first_result(cache_dir: str) -> tuple[float, float, float]:
    """Wall time from process start to the first chunk's result; the import and play parts inside it."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _FIRST_RESULT], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    imported, played = (float(x) for x in done.stdout.split())
    return wall, imported, played


def aggregate_only_peak(games: int) -> tuple[float, float]:
    """Peak RSS (MiB) and wall seconds of one ``simulate --aggregate-only`` run in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="luna-aggregate-") as out:
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "sim.cli", "simulate", "--seats", "luna:5", "--games",
                                  str(games), "--aggregate-only", "--quiet", "--out", str(Path(out) / "run")],
                                 cwd=ROOT, stdout=subprocess.DEVNULL)
        # wait4 returns this child's own resource usage; ru_maxrss is its peak, in KiB on Linux.
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
    if child.returncode != 0:
        raise RuntimeError(f"the --aggregate-only run failed with exit code {child.returncode}")
    return usage.ru_maxrss / 1024, wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200_000,
                        help="numba games per measurement (default 200000; the reference plays 1/200 of it)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats per numba measurement (best kept)")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold/warm start subprocesses")
    parser.add_argument("--memory-games", type=int, default=10_000_000,
                        help="games of the --aggregate-only peak-memory run (default 10000000; 0 skips it)")
    args = parser.parse_args(argv)
    games = max(1000, args.games)
    reference_games = max(100, games // 200)
    threads = numba.config.NUMBA_NUM_THREADS

    print(f"machine: {os.cpu_count()} CPUs, {processor()}; numba {numba.__version__} ({threads} threads), "
          f"numpy {np.__version__}, Python {platform.python_version()}")
    print(f"games per measurement: numba {games}, reference {reference_games}; seed {SEED}\n")

    data = load_game_data()
    deck_size = sum(card.grade == 1 for card in data.luna.cards)
    floor = floor_rate(deck_size, games, args.repeats)
    header = (f"{'level':>5}  {'numba/s':>10}  {'1 thread/s':>10}  {'ref/s':>7}  {'x ref':>6}  "
              f"{'x floor':>7}  {'4 seats/s':>10}  {'balanced/s':>10}")
    print(header)
    print("-" * len(header))
    seconds_for_million = 0.0
    for level in range(9):
        solo = GameConfig(seats=parse_seats(f"luna:{level}"))
        four = GameConfig(seats=parse_seats(f"{'scripted:passive,' * 3}luna:{level}"))
        balanced = GameConfig(seats=parse_seats(f"scripted:balanced,luna:{level}"))
        all_threads = numba_rate(data, solo, games, threads, args.repeats)
        seconds_for_million += 1_000_000 / all_threads
        one_thread = numba_rate(data, solo, games, 1, args.repeats)
        four_seats = numba_rate(data, four, games, threads, args.repeats)
        with_player = numba_rate(data, balanced, games, threads, args.repeats)
        reference = games_per_second(
            lambda first, config=solo: play_chunk_reference(data, config, SEED, first, reference_games, False),
            reference_games, 1)
        print(f"{level:>5}  {all_threads:>10,.0f}  {one_thread:>10,.0f}  {reference:>7,.0f}  "
              f"{one_thread / reference:>6.0f}  {floor / one_thread:>7.1f}  {four_seats:>10,.0f}  "
              f"{with_player:>10,.0f}")
    numba.set_num_threads(threads)
    print(f"\nfloor kernel (shuffle and draw only, 1 thread): {floor:,.0f} games/s")
    print(f"9 levels x 1,000,000 single-Luna games at these rates: {seconds_for_million:.1f} s")

    if not args.no_compile:
        with tempfile.TemporaryDirectory(prefix="luna-numba-cache-") as cache_dir:
            cold = first_result(cache_dir)
            warm = first_result(cache_dir)
        for label, (wall, imported, played) in (("cold compile (empty cache)", cold),
                                                ("warm start (cache filled)", warm)):
            print(f"{label:<28} {wall:6.2f} s from process start to the first {FIRST_RESULT_GAMES}-game result "
                  f"(imports {imported:.2f} s, compile/load and play {played:.2f} s)")
    if args.memory_games > 0:
        peak, wall = aggregate_only_peak(args.memory_games)
        print(f"simulate --aggregate-only, {args.memory_games:,} games of luna:5: peak RSS {peak:,.0f} MiB, "
              f"{wall:.1f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
