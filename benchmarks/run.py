"""What a user meets, measured side by side in one run: ``python -m benchmarks.run [--games N] [--no-study]``.

Everything runs in child processes that share one numba cache folder, empty at the start (a temporary
``NUMBA_CACHE_DIR``, unless ``--cache-dir`` names one), in the order a user meets it:

1. **cold start**: ``luna-balance simulate`` of a few games, the first command a user types; the engine
   compiles (from a small run, as a first test run or notebook cell would);
2. **warm start**: the same command again, now loaded from the cache, the median of ``WARM_STARTS`` runs
   (one run of a second is at the mercy of a passing load); both are wall seconds from process start to
   exit; another process times its imports and its first engine call (``engine load``) apart;
3. **per Luna level** (Luna alone), in one child: the kernel alone (``play_chunk_numba`` over the run's
   chunks) on 1 and on 2 threads, the scaling ratio and the 2-thread run's CPU/wall; end-to-end
   ``run_simulation`` (what ``simulate`` runs) with ``--aggregate-only``, with per-game rows, and with
   ``--detail rounds``, each on 2 threads and given as a share of the kernel on 2 threads (on a 1-core
   machine "2 threads" is one); the floor ratio (the engine's time per game on one thread over the floor
   kernel's, ``benchmarks/floor.py``), and the same ratio for games each played over and over (their
   branches learnt by the processor's predictor: the gap between the two ratios is what mispredicted
   branches cost, ``sim/fast/kernel.py``; games ``0 .. REPLAYED_GAMES - 1`` in turn, each repeated for an
   equal share of the run, since one game alone is as long or short as its cards make it), and the floor
   kernel's own time per game (the yardstick that
   tells a slow day from slow code). Every run is timed ``--repeats`` times, in rounds that run each once in
   turn: a rate (games/s, ns a game) is the best round's, a ratio or share the median of its rounds' ratios
   (:func:`paired_ratio`);
4. **memory of a large run**: peak resident memory and wall seconds of ``simulate --aggregate-only`` over
   ``--memory-games`` games of ``luna:5`` (0 skips it);
5. **the default study** (``luna-balance study``), end to end: wall seconds and peak resident memory of
   the child, unless ``--no-study``.

A peak is the child's own (``wait4``) or, when it runs a process beside itself (the study's report draws
figures in a helper, ``analysis/drawing.py``), its processes' memory together, sampled every 20 ms.

Prints a markdown table, then each of issue 9's targets (:data:`TARGETS`) with the range measured and where it
was missed, and writes everything to a JSON file (``--json``, the verdicts under ``targets``). No number here is a test:
the tests check that every column is produced and how verdicts are drawn from made-up numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SEED = 1
START_GAMES = 100  # the first command's size: small, as a user's first try
WARM_STARTS = 3
# Games of the replayed column, each played over and over in turn: replayed alone, game 0 of luna:8 took 1.34 us
# and game 7 1.74 us (one thread, 100,000 replays each), so one game says more about that game than about the engine.
REPLAYED_GAMES = 8
LEVEL_COLUMNS = ("kernel_1", "kernel_2", "scaling", "cpu_per_wall_2", "aggregate", "rows", "rounds", "floor_ratio",
                 "replayed_floor_ratio", "floor_ns")

# Issue 9's bars, the one list of them: (key, what it measures, bound, "min" when the measurement must reach the
# bound, "max" when it must stay at or below it, "below" when strictly below). A per-level key must hold at every
# level measured; "warm_start" is the start measurement.
TARGETS = (
    ("scaling", "1 → 2 threads", 1.8, "min"),
    ("aggregate", "`--aggregate-only`, share of the kernel", 0.85, "min"),
    ("rows", "per-game rows, share of the kernel", 0.85, "min"),
    ("rounds", "`--detail rounds`, share of the kernel", 0.50, "min"),
    ("floor_ratio", "kernel × the floor kernel", 15.0, "max"),
    ("warm_start", "warm start, seconds", 1.0, "below"),
)
SHARE_COLUMNS = ("aggregate", "rows", "rounds")  # end-to-end games/s as a share of the 2-thread kernel
_ENGINE_LOAD = """
import json, sys, time
started = time.perf_counter()
from sim.config import GameConfig, parse_seats
from sim.fast import play_chunk_numba
from sim.gamedata import load_game_data
data, config = load_game_data(), GameConfig(seats=parse_seats("luna:5"))
imported = time.perf_counter()
play_chunk_numba(data, config, 1, 0, 10, False)
print(json.dumps({"imports": imported - started, "engine_load": time.perf_counter() - imported}))
"""


def processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def _tree_rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` and all its descendants together, in KiB (Linux ``/proc``; 0 elsewhere)."""
    total, waiting = 0, [pid]
    while waiting:
        process = waiting.pop()
        try:
            with open(f"/proc/{process}/status") as status:
                total += next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
            for thread in os.listdir(f"/proc/{process}/task"):
                with open(f"/proc/{process}/task/{thread}/children") as children:
                    waiting += [int(child) for child in children.read().split()]
        except (OSError, ValueError):  # gone in the meantime, or no /proc
            continue
    return total


class _TreePeak:
    """The largest :func:`_tree_rss_kib` of a process seen by a thread sampling it every ``PERIOD`` seconds.

    wait4's peak is one process's (its largest descendant's at most), so a command that runs a second process
    beside itself (the report's drawing helper, ``analysis/drawing.py``) would show less than it takes at once.
    """

    PERIOD = 0.02

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_kib = pid, 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(self.PERIOD):
            self.peak_kib = max(self.peak_kib, _tree_rss_kib(self.pid))

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return self.peak_kib


def _child(arguments: list[str], env: dict[str, str], out: Path | None = None) -> tuple[float, float, str]:
    """Run ``python ARGUMENTS``; return its wall seconds, its peak RSS in MiB (its processes' together when it runs
    more than one at once) and its stdout (kept in ``out``)."""
    started = time.perf_counter()
    with open(out or os.devnull, "w") as stdout, tempfile.TemporaryFile("w+") as stderr:
        child = subprocess.Popen([sys.executable, *arguments], cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
        tree = _TreePeak(child.pid)
        # wait4 returns this child's own resource usage; ru_maxrss is its peak, in KiB on Linux
        _, status, usage = os.wait4(child.pid, 0)
        tree_peak = tree.stop()
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        stderr.seek(0)
        if child.returncode != 0:
            raise RuntimeError(f"benchmark child {' '.join(arguments[:3])} failed ({child.returncode}): "
                               f"{stderr.read()[-2000:]}")
    return wall, max(usage.ru_maxrss, tree_peak) / 1024, Path(out).read_text() if out else ""


def start_times(env: dict[str, str], scratch: Path) -> dict[str, float]:
    """Cold and warm start of ``simulate --games START_GAMES`` in fresh processes, and the engine load inside."""
    command = ["-m", "sim.cli", "simulate", "--seats", "luna:5", "--games", str(START_GAMES), "--quiet",
               "--out", str(scratch / "start")]
    cold, _, _ = _child(command, env)
    warm = statistics.median(_child(command, env)[0] for _ in range(WARM_STARTS))
    _, _, loaded = _child(["-c", _ENGINE_LOAD], env, scratch / "load.json")
    return {"cold_start": cold, "warm_start": warm, **json.loads(loaded)}


# ---------------------------------------------------------------- the per-level measurement (a child)

def replayed_game_ids(games: int) -> np.ndarray:
    """``games`` game numbers: ``0 .. REPLAYED_GAMES - 1`` in turn, each repeated for an equal run (the last
    game's run cut to fit), so that the processor's branch predictor learns each game."""
    import numpy as np

    replays = -(-games // REPLAYED_GAMES)
    return np.repeat(np.arange(REPLAYED_GAMES, dtype=np.int64), replays)[:games]


def _timed_repeats(jobs: dict[str, Callable[[], None]], repeats: int) -> tuple[dict[str, list[float]],
                                                                              dict[str, list[float]]]:
    """Each job's wall seconds and CPU seconds in each of ``repeats`` rounds, the jobs one after the other (in
    the order given) within each round, so that the runs a ratio compares are neighbours in time."""
    walls: dict[str, list[float]] = {name: [] for name in jobs}
    cpus: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(repeats):
        for name, job in jobs.items():
            started, cpu = time.perf_counter(), time.process_time()
            job()
            walls[name].append(time.perf_counter() - started)
            cpus[name].append(time.process_time() - cpu)
    return walls, cpus


def paired_ratio(numerator: list[float], denominator: list[float]) -> float:
    """The median over the rounds of ``numerator[r] / denominator[r]``: a ratio of two runs of one round.

    The machine's speed moves with its host's load from one second to the next (this project's 2-core
    machine ran one kernel 1.5x apart within a minute), and a best-of-N of each side picks each side's
    quietest moment, not the same moment: one lucky fast run of one side moved a share or a scaling
    across its bar between benches of the same code. A ratio taken within a round compares runs seconds
    apart, and the median leaves out a round a burst of load fell in.
    """
    return statistics.median(a / b for a, b in zip(numerator, denominator, strict=True))


def measure_levels(levels: list[int], games: int, repeats: int, scratch: Path) -> dict[str, dict]:
    """Every per-level column (see the module docstring) under ``levels``, and each run's wall seconds under
    ``walls`` (level, then job: a list over the rounds); runs inside the measurement child."""
    import numba
    import numpy as np

    from benchmarks.floor import play_floor
    from sim.config import GameConfig, parse_seats
    from sim.fast import play_chunk_numba
    from sim.fast.kernel import play_games_numba
    from sim.gamedata import load_game_data
    from sim.run import RunOptions, chunk_bounds, default_chunk_size, run_simulation

    data = load_game_data()
    threads = min(2, numba.config.NUMBA_NUM_THREADS)  # the scaling asked about is 1 -> 2 threads
    numba.set_num_threads(threads)
    deck_size = sum(card.grade == 1 for card in data.luna.cards)
    floor_out = np.zeros(games, dtype=np.int64)
    replayed_games = replayed_game_ids(games)
    play_floor(np.uint64(SEED), 0, deck_size, floor_out[:10])
    results, raw = {}, {}
    for level in levels:
        config = GameConfig(seats=parse_seats(f"luna:{level}"))
        bounds = list(chunk_bounds(games, default_chunk_size(config, False)))  # what simulate plays

        def kernel(config: GameConfig = config, bounds: list = bounds) -> None:
            for first, count in bounds:
                play_chunk_numba(data, config, SEED, first, count, False)

        def simulate(config: GameConfig = config, **options: bool) -> None:
            run_simulation(data, config, RunOptions(games=games, seed=SEED, engine="numba", **options),
                           scratch / "run")

        def one_thread(job: Callable[[], None] = kernel) -> None:
            numba.set_num_threads(1)
            try:
                job()
            finally:
                numba.set_num_threads(threads)

        def replayed(config: GameConfig = config, bounds: list = bounds) -> None:
            for first, count in bounds:  # the kernel's chunks: one chunk of all the games would add page faults
                play_games_numba(data, config, SEED, replayed_games[first:first + count], False)

        # load (or compile) outside the timing every kernel a timed run calls: the drivers, and the counting
        # kernels of the aggregates (sim/fast/counts.py), which only an --aggregate-only run calls this early (in
        # a fresh cache their compile had made the first round's aggregate-only run of level 0 twice as long)
        simulate(detail=True)
        simulate(aggregate_only=True)
        one_thread()
        # the two runs of each ratio next to each other: the floor kernel between the replayed games and the
        # 1-thread kernel, which comes just before the 2-thread kernel (the scaling), which comes just before the
        # end-to-end runs it is the yardstick of
        walls, cpus = _timed_repeats({
            "replayed": lambda replayed=replayed: one_thread(replayed),
            "floor": lambda: play_floor(np.uint64(SEED), 0, deck_size, floor_out),
            "kernel_1": one_thread,
            "kernel_2": kernel,
            "aggregate": lambda simulate=simulate: simulate(aggregate_only=True),
            "rows": simulate, "rounds": lambda simulate=simulate: simulate(detail=True),
        }, repeats)
        fastest = walls["kernel_2"].index(min(walls["kernel_2"]))
        results[str(level)] = {
            "kernel_1": games / min(walls["kernel_1"]), "kernel_2": games / min(walls["kernel_2"]),
            "scaling": paired_ratio(walls["kernel_1"], walls["kernel_2"]),
            "cpu_per_wall_2": cpus["kernel_2"][fastest] / walls["kernel_2"][fastest],
            **{name: paired_ratio(walls["kernel_2"], walls[name]) for name in SHARE_COLUMNS},
            "floor_ratio": paired_ratio(walls["kernel_1"], walls["floor"]),
            "replayed_floor_ratio": paired_ratio(walls["replayed"], walls["floor"]),
            "floor_ns": 1e9 * min(walls["floor"]) / games,  # the day's yardstick: one machine ran it 2x apart
        }
        raw[str(level)] = walls
        print(f"level {level} measured", file=sys.stderr, flush=True)
    return {"levels": results, "walls": raw}


# ---------------------------------------------------------------- the report

def _holds(value: float, bound: float, kind: str) -> bool:
    return value >= bound if kind == "min" else value <= bound if kind == "max" else value < bound


def verdicts(report: dict) -> list[dict]:
    """Each of :data:`TARGETS` the report measured: its bound, the lowest and highest value measured, and the
    levels (or ``"start"``) where it missed; ``met`` when it missed nowhere."""
    out = []
    for key, label, bound, kind in TARGETS:
        if key in LEVEL_COLUMNS:
            values = {level: row[key] for level, row in report.get("levels", {}).items()}
        else:
            values = {"start": report["start"][key]} if key in report.get("start", {}) else {}
        if not values:
            continue
        missed = [where for where, value in values.items() if not _holds(value, bound, kind)]
        out.append({"target": key, "label": label, "bound": bound, "kind": kind, "low": min(values.values()),
                    "high": max(values.values()), "missed": missed, "met": not missed})
    return out


def _shown(target: str, value: float, bound: float | None = None) -> str:
    """``value`` as the verdicts print it (a share to 0.1 %, others to 0.01); a value other than ``bound`` that
    would print as the bound gets the digits that tell them apart (a scaling of 1.797 against 1.8: "1.797")."""
    def text(number: float, digits: int) -> str:
        return f"{number:.{digits}%}" if target in SHARE_COLUMNS else f"{number:.{digits + 1}f}"

    digits = 1
    while bound is not None and value != bound and text(value, digits) == text(bound, digits) and digits < 6:
        digits += 1
    return text(value, digits)


def _verdict_lines(report: dict) -> list[str]:
    """:func:`verdicts` as a markdown table."""
    lines = ["| target | bound | measured | verdict |", "|---|---:|---:|---|"]
    signs = {"min": "≥", "max": "≤", "below": "<"}
    for verdict in verdicts(report):
        target, missed = verdict["target"], verdict["missed"]
        low, high = _shown(target, verdict["low"], verdict["bound"]), _shown(target, verdict["high"], verdict["bound"])
        if verdict["met"]:
            outcome = "met"
        elif missed == ["start"]:
            outcome = "missed"
        elif len(missed) == len(report["levels"]) > 1:
            outcome = "missed at every level"
        else:
            outcome = f"missed at level{'s' if len(missed) > 1 else ''} {', '.join(missed)}"
        lines.append(f"| {verdict['label']} | {signs[verdict['kind']]} {_shown(target, verdict['bound'])} "
                     f"| {low if low == high else f'{low}–{high}'} | {outcome} |")
    return lines


def markdown(report: dict) -> str:
    """The report as a markdown table with the start and study lines below it."""
    lines = [f"machine: {report['machine']}; load average before {report['load_before']}, "
             f"after {report['load_after']}",
             f"{report['games']:,} games per measurement, {report['repeats']} rounds: rates the best round's, "
             "ratios and shares the median of the rounds' ratios", "",
             "| level | kernel 1 thread | kernel 2 threads | scaling | CPU/wall | aggregate-only | per-game rows "
             "| detail rounds | × floor | × floor, games replayed | floor ns/game |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for level, row in report["levels"].items():
        lines.append(f"| {level} | {row['kernel_1']:,.0f} | {row['kernel_2']:,.0f} | {row['scaling']:.2f}× "
                     f"| {row['cpu_per_wall_2']:.2f} | {row['aggregate']:.0%} | {row['rows']:.0%} "
                     f"| {row['rounds']:.0%} | {row['floor_ratio']:.1f} | {row['replayed_floor_ratio']:.1f} "
                     f"| {row['floor_ns']:.0f} |")
    lines.append("")
    lines.append("kernel columns in games/s; aggregate-only, per-game rows and detail rounds are end-to-end "
                 "`simulate` games/s as a share of the kernel on 2 threads; CPU/wall of the 2-thread kernel (below 2, "
                 "the machine did not give it two cores and the scaling is the load's); × floor, games replayed: "
                 f"the floor ratio of games 0-{REPLAYED_GAMES - 1}, each played over and over in turn, whose branches "
                 "the processor learns; "
                 "floor ns/game: the floor kernel's time per game on one thread, how fast the machine ran that day")
    start = report.get("start")
    if start:
        lines.append(f"- cold start (empty cache, `simulate --games {START_GAMES}`): {start['cold_start']:.1f} s; "
                     f"warm start (median of {WARM_STARTS}): {start['warm_start']:.2f} s "
                     f"(imports {start['imports']:.2f} s, engine load {start['engine_load']:.2f} s)")
    memory = report.get("memory")
    if memory:
        lines.append(f"- `simulate --aggregate-only` over {memory['games']:,} games of luna:5: peak RSS "
                     f"{memory['peak_mib']:,.0f} MiB, {memory['seconds']:.1f} s")
    study = report.get("study")
    if study:
        lines.append(f"- default study ({study['command']}): {study['seconds']:.1f} s, peak RSS "
                     f"{study['peak_mib']:,.0f} MiB")
    lines += ["", "Against issue 9's targets:", "", *_verdict_lines(report)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=500_000, help="games per measurement (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed rounds of every run: rates the best round's, ratios the median of the "
                             "rounds' (default %(default)s)")
    parser.add_argument("--levels", default="0,1,2,3,4,5,6,7,8", help="Luna levels (default %(default)s)")
    parser.add_argument("--memory-games", type=int, default=10_000_000,
                        help="games of the --aggregate-only peak-memory run (default %(default)s; 0 skips it)")
    parser.add_argument("--no-study", action="store_true", help="skip the default study (it takes minutes)")
    parser.add_argument("--study-games", type=int, default=None,
                        help="games per part of the study (default: the study's own default)")
    parser.add_argument("--cache-dir", default=None,
                        help="numba cache folder to use instead of an empty temporary one (then 'cold' may be warm)")
    parser.add_argument("--json", default="benchmark.json", help="where to write the results (default %(default)s)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)  # the measurement child's scratch folder
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.levels.split(",")]
    games = max(1000, args.games)
    if args.child:
        print(json.dumps(measure_levels(levels, games, args.repeats, Path(args.child))))
        return 0

    report: dict = {"machine": f"{os.cpu_count()} CPUs, {processor()}, Python {platform.python_version()}",
                    "load_before": load_average(), "games": games, "repeats": args.repeats}
    with tempfile.TemporaryDirectory(prefix="luna-bench-") as folder:
        scratch = Path(folder)
        env = {**os.environ, "NUMBA_CACHE_DIR": args.cache_dir or str(scratch / "numba-cache"),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        report["start"] = start_times(env, scratch)
        _, _, measured = _child(["-m", "benchmarks.run", "--child", str(scratch), "--games", str(games),
                                 "--repeats", str(args.repeats), "--levels", args.levels], env,
                                scratch / "levels.json")
        report.update(json.loads(measured))  # "levels" and "walls"
        if args.memory_games > 0:
            seconds, peak, _ = _child(["-m", "sim.cli", "simulate", "--seats", "luna:5", "--games",
                                       str(args.memory_games), "--aggregate-only", "--quiet",
                                       "--out", str(scratch / "memory")], env)
            report["memory"] = {"games": args.memory_games, "seconds": seconds, "peak_mib": peak}
        if not args.no_study:
            study = ["study", "--quiet", "--name", "bench"]
            study += ["--games", str(args.study_games)] if args.study_games else []
            seconds, peak, _ = _child(["-m", "sim.cli", *study, "--results-dir", str(scratch / "study")], env)
            report["study"] = {"command": "luna-balance " + " ".join(study), "seconds": seconds, "peak_mib": peak}
    report["load_after"] = load_average()
    report["targets"] = verdicts(report)
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
