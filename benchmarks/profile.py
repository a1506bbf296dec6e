"""Where a game's time goes, per jitted function: ``python -m benchmarks.profile [--level 8 | --seats S] [--games N]``.

Linux ``perf`` samples two child processes on one thread: one plays distinct games (what a run plays), the
other games ``0 .. REPLAYED_GAMES - 1`` of ``benchmarks.run``, each over and over, so that the processor's
branch predictor learns them. Each child writes where numba loaded the machine code of every function of
its driver; each sample (``cpu-clock``, whose period is in nanoseconds) is put down to the function it fell
in, and the table gives nanoseconds a game per function in both children and their difference: the
branches the predictor cannot learn from one game to the next (``sim/fast/kernel.py`` has what it showed).
Functions LLVM inlined into their caller count as the caller. Samples outside the jitted code (Python,
compiling the engine) are left out, so the first run after a change, which compiles, is as good as a warm
one. A developer's tool: nothing here is a test, and the tests only check how samples are counted.

``--within luna.luna_plays_out`` looks inside one function: its samples by ``--window`` bytes of machine code
(offsets from the function's start, the same in both children, which load the same cached code), the windows
that distinct games spend most more time in first, and, with ``objdump`` on PATH, the instructions of the top
few with each one's nanoseconds a game. A mispredicted branch's cost lands on the first instructions of where
it went (docs/speed-history.md, "Where level 8's mispredictions fall, instruction by instruction", was read off
samples so, before this option made it one command).
"""

from __future__ import annotations

import argparse
import bisect
import ctypes
import itertools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.run import REPLAYED_GAMES, SEED, replayed_game_ids
from sim.constants import LEVELS, MAX_LEVEL

MODES = ("distinct", "replayed")
FREQUENCY = 9999  # samples a second: odd, so that they do not beat with a periodic timer
MAX_FUNCTION_BYTES = 1 << 16  # a sample further than this past a function's start is in none of them
_LENGTH = re.compile(r"\d+")


def short_name(symbol: str) -> str:
    """``module.function`` of a numba symbol (``_ZN3sim4fast4luna14luna_plays_outB4v105...``), else the symbol."""
    rest = symbol[3:] if symbol.startswith("_ZN") else ""
    parts = []
    while (match := _LENGTH.match(rest)) is not None:
        end = match.end() + int(match.group())
        parts.append(rest[match.end():end])
        rest = rest[end:]
    return ".".join(parts[-2:]) if parts else symbol


def attribute(addresses: Iterable[tuple[int, int]], functions: list[tuple[int, str]]) -> Counter[str]:
    """Nanoseconds per function: ``addresses`` are (instruction pointer, sample period in ns), ``functions``
    (start address, name) sorted by address; a sample belongs to the last function starting at or before it,
    within ``MAX_FUNCTION_BYTES``."""
    starts = [start for start, _ in functions]
    spent: Counter[str] = Counter()
    for address, period in addresses:
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address - starts[index] < MAX_FUNCTION_BYTES:
            spent[short_name(functions[index][1])] += period
    return spent


def windows(samples: Iterable[tuple[int, int]], start: int, width: int) -> Counter[int]:
    """Nanoseconds per window of ``width`` bytes of the function at ``start``: ``samples`` are (instruction pointer,
    period in ns); a window is keyed by its offset from ``start``; samples before it or ``MAX_FUNCTION_BYTES`` past
    it are left out."""
    spent: Counter[int] = Counter()
    for address, period in samples:
        offset = address - start
        if 0 <= offset < MAX_FUNCTION_BYTES:
            spent[offset - offset % width] += period
    return spent


def jitted_functions(dispatcher: Any) -> list[tuple[int, str]]:
    """(address, symbol) of every function numba compiled or loaded for ``dispatcher``, sorted by address.

    Reads numba's internals (the code library of each compiled signature and its execution engine): a
    numba that keeps them elsewhere raises ``AttributeError`` here, which :func:`main` reports.
    """
    found = {}
    for compiled in dispatcher.overloads.values():
        library = compiled.library
        engine = library._codegen._engine._ee
        # a library compiled in this process holds its functions in its final module; one loaded from the cache,
        # in its shared module
        modules = [module for module in (library._final_module, library._shared_module) if module is not None]
        for function in (function for module in modules for function in module.functions):
            if not function.is_declaration:
                address = engine.get_function_address(function.name)
                if address:
                    found[function.name] = address
    return sorted((address, name) for name, address in found.items())


def _dump_code(functions: list[tuple[int, str]], within: str, path: Path) -> None:
    """Write the machine code of the function named ``within`` (:func:`short_name`) to ``path``: from its start to
    the next function's, which is known to be mapped (the last one's end is not known, so it is not written)."""
    for (start, name), (following, _) in itertools.pairwise(functions):
        if short_name(name) == within and following - start <= MAX_FUNCTION_BYTES:
            path.write_bytes(ctypes.string_at(start, following - start))
            return


def play(mode: str, seats: str, games: int, map_path: Path, within: str | None = None) -> float:
    """The child's work: write the function map to ``map_path`` (and the code of ``within`` beside it, as
    ``.bin``), play the games; nanoseconds a game."""
    import numba
    import numpy as np

    from sim.config import GameConfig, parse_seats
    from sim.fast.kernel import driver_for, play_games_numba
    from sim.gamedata import load_game_data
    from sim.run import chunk_bounds, default_chunk_size

    numba.set_num_threads(1)
    data, config = load_game_data(), GameConfig(seats=parse_seats(seats))
    ids = np.arange(games, dtype=np.int64) if mode == "distinct" else replayed_game_ids(games)
    play_games_numba(data, config, SEED, ids[:10], False)  # compiles or loads the driver outside the timing
    functions = jitted_functions(driver_for())
    map_path.write_text("".join(f"{address:x} {name}\n" for address, name in functions))
    if within is not None:
        _dump_code(functions, within, map_path.with_suffix(".bin"))
    started = time.perf_counter()
    for first, count in chunk_bounds(games, default_chunk_size(config, False)):
        play_games_numba(data, config, SEED, ids[first:first + count], False)
    return (time.perf_counter() - started) / games * 1e9


def _samples(perf: str, data: Path) -> list[tuple[int, int]]:
    """(instruction pointer, period) of every sample in a ``perf record`` file."""
    script = subprocess.run([perf, "script", "-i", str(data), "-F", "ip,period"], capture_output=True, text=True,
                            check=True).stdout
    samples = []
    for line in script.splitlines():
        fields = line.split()
        if len(fields) == 2:
            samples.append((int(fields[1], 16), int(fields[0])))  # perf prints the period first
    return samples


def markdown(seats: str, games: int, spent: dict[str, Counter[str]], wall: dict[str, float]) -> str:
    """The per-function table, most time in distinct games first, and the totals."""
    per_game = {mode: {name: ns / games for name, ns in spent[mode].items()} for mode in MODES}
    names = sorted(set(per_game["distinct"]) | set(per_game["replayed"]),
                   key=lambda name: -per_game["distinct"].get(name, 0.0))
    lines = [f"{seats}, {games:,} games a child, one thread; ns a game (perf cpu-clock samples)", "",
             "| function | distinct | replayed | distinct − replayed |", "|---|---:|---:|---:|"]
    for name in names:
        distinct, replayed = per_game["distinct"].get(name, 0.0), per_game["replayed"].get(name, 0.0)
        lines.append(f"| {name} | {distinct:,.0f} | {replayed:,.0f} | {distinct - replayed:,.0f} |")
    totals = {mode: sum(per_game[mode].values()) for mode in MODES}
    lines.append(f"| jitted code | {totals['distinct']:,.0f} | {totals['replayed']:,.0f} "
                 f"| {totals['distinct'] - totals['replayed']:,.0f} |")
    lines.append(f"| wall clock, the child's loop | {wall['distinct']:,.0f} | {wall['replayed']:,.0f} "
                 f"| {wall['distinct'] - wall['replayed']:,.0f} |")
    return "\n".join(lines)


def _disassembly(objdump: str, code: Path) -> list[tuple[int, str]]:
    """(offset, instruction) of the machine code in ``code``, from its start (so that a window starting inside an
    instruction shows it from its first byte's successor on, not as bytes decoded out of step)."""
    listing = subprocess.run([objdump, "-D", "-b", "binary", "-m", "i386:x86-64", str(code)], capture_output=True,
                             text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        offset, colon, rest = line.partition(":")
        if colon and offset.strip() and all(c in "0123456789abcdef" for c in offset.strip()):
            fields = rest.split("\t")
            found.append((int(offset, 16), fields[-1].strip() if len(fields) > 1 else rest.strip()))
    return found


def within_markdown(name: str, games: int, width: int, top: int, spent: dict[str, Counter[int]],
                    code: Path | None, objdump: str | None) -> str:
    """The windows of function ``name`` that distinct games spend most more time in than replayed ones (``spent``:
    ns per byte offset, by mode), and with ``code`` and ``objdump`` the instructions of the first three."""
    per_window: dict[str, Counter[int]] = {mode: Counter() for mode in MODES}
    for mode in MODES:
        for offset, ns in spent[mode].items():
            per_window[mode][offset - offset % width] += ns / games
    gap = {window: per_window["distinct"][window] - per_window["replayed"][window]
           for window in set(per_window["distinct"]) | set(per_window["replayed"])}
    ranked = sorted(gap, key=lambda window: -gap[window])[:top]
    total = {mode: sum(per_window[mode].values()) for mode in MODES}
    lines = ["", f"Inside {name}: {total['distinct']:,.0f} ns a game distinct, {total['replayed']:,.0f} replayed; "
             f"the {len(ranked)} windows of {width} bytes with the largest gap", "",
             "| offset | distinct | replayed | distinct − replayed |", "|---|---:|---:|---:|"]
    for window in ranked:
        lines.append(f"| {window:#x} | {per_window['distinct'][window]:,.1f} | {per_window['replayed'][window]:,.1f} "
                     f"| {gap[window]:,.1f} |")
    if code is None or objdump is None:
        lines += ["", "(no instructions: " + ("objdump is not on PATH)" if code is not None else
                                              "the function's end is not known, its code was not kept)")]
        return "\n".join(lines)
    instructions = _disassembly(objdump, code)
    for window in ranked[:3]:
        lines += ["", f"{window:#x}: ns a game, distinct and replayed, per instruction", "```"]
        for offset, instruction in (found for found in instructions if window <= found[0] < window + width):
            lines.append(f"{spent['distinct'][offset] / games:7.1f} {spent['replayed'][offset] / games:7.1f}  "
                         f"{offset:#7x}  {instruction}")
        lines.append("```")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", type=int, default=MAX_LEVEL, choices=LEVELS,
                        help="Luna's level (default %(default)s)")
    parser.add_argument("--games", type=int, default=400_000, help="games a child plays (default %(default)s)")
    parser.add_argument("--seats", default=None,
                        help="the seats, as simulate's --seats (default: luna:<level> alone)")
    parser.add_argument("--within", default=None, metavar="FUNCTION",
                        help="also split one function's time by windows of its code, e.g. luna.luna_plays_out")
    parser.add_argument("--window", type=int, default=64,
                        help="bytes of code a window, with --within (default %(default)s)")
    parser.add_argument("--top", type=int, default=15, help="windows listed, with --within (default %(default)s)")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--map", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < REPLAYED_GAMES:
        parser.error(f"--games must be at least {REPLAYED_GAMES}")
    seats = args.seats or f"luna:{args.level}"
    if args.child:
        print(json.dumps({"ns_per_game": play(args.child, seats, args.games, args.map, args.within)}))
        return 0
    perf = shutil.which("perf")
    if perf is None:
        print("benchmarks.profile: needs Linux perf (`perf record`), which is not on PATH", file=sys.stderr)
        return 2
    if args.window < 1 or args.top < 1:
        parser.error("--window and --top must be at least 1")
    spent, wall, inside = {}, {}, {}
    code: Path | None = None
    with tempfile.TemporaryDirectory(prefix="luna-profile-") as scratch:
        for mode in MODES:
            data, map_path = Path(scratch) / f"{mode}.perf", Path(scratch) / f"{mode}.map"
            command = [perf, "record", "-q", "-e", "cpu-clock", "-F", str(FREQUENCY), "-o", str(data), "--",
                       sys.executable, "-m", "benchmarks.profile", "--child", mode, "--seats", seats,
                       "--games", str(args.games), "--map", str(map_path),
                       *(("--within", args.within) if args.within else ())]
            child = subprocess.run(command, capture_output=True, text=True)
            if child.returncode != 0:
                reason = (child.stderr.strip().splitlines() or ["no message"])[-1]
                print(f"benchmarks.profile: `perf record` of the {mode} games failed: {reason}", file=sys.stderr)
                return 2
            wall[mode] = json.loads(child.stdout.strip().splitlines()[-1])["ns_per_game"]
            functions = [(int(address, 16), name) for address, name in
                         (line.split() for line in map_path.read_text().splitlines())]
            try:
                samples = _samples(perf, data)
            except subprocess.CalledProcessError as error:
                reason = (error.stderr.strip().splitlines() or ["no message"])[-1]
                print(f"benchmarks.profile: `perf script` of the {mode} games failed: {reason}", file=sys.stderr)
                return 2
            spent[mode] = attribute(samples, functions)
            if args.within:
                starts = [start for start, name in functions if short_name(name) == args.within]
                if not starts:
                    known = ", ".join(sorted({short_name(name) for _, name in functions}))
                    print(f"benchmarks.profile: --within: no jitted function {args.within!r}; there are {known}",
                          file=sys.stderr)
                    return 2
                inside[mode] = windows(samples, starts[0], 1)
                if mode == "distinct" and map_path.with_suffix(".bin").is_file():
                    code = Path(scratch) / "code.bin"
                    map_path.with_suffix(".bin").rename(code)
        print(markdown(seats, args.games, spent, wall))
        if args.within:
            print(within_markdown(args.within, args.games, args.window, args.top, inside, code,
                                  shutil.which("objdump")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
