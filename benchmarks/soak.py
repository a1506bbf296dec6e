"""A soak with every invariant checked: ``python -m benchmarks.soak --games 10000000``.

Plays ``--games`` games spread evenly over a fixed set of seat mixes (:func:`soak_mixes`: every Luna
level 0-8 alone, in 7 rounds and in the Singularity's 6; each scripted profile against her; 3- and
4-seat mixes with one to four Lunas, strengths 0.5 to 2 and both starting bonuses; and on the Belt side
of the board, every level alone, each profile against her and a 4-seat mix), with the engine's
invariant checks on (``simulate --check-invariants``: after setup, every round and final scoring).
Only counters are kept, chunk by chunk, so memory stays flat however many games run. A progress line
goes to stderr every ``--progress-seconds``; the last line on stdout is the one-line summary::

    soak: 10,000,000 games, 171 mixes, levels 0-8, 0 violations, 612 s (16,339 games/s), engine numba, seed 1

A violation is printed (game, seat, round, check) and counted, and the soak goes on with the next chunk
of games; the exit code is 1 when any game broke an invariant, 2 for bad options, else 0. Threads: the
numba engine uses ``NUMBA_NUM_THREADS`` (all cores by default).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sim.config import GameConfig, parse_seats
from sim.constants import BOARDS, DEFAULT_BOARD, DEFAULT_RUN_SEED, LEVELS, ROUNDS, SINGULARITY_ROUNDS, builtin_profiles
from sim.engines import DEFAULT_ENGINE, ENGINES, engine_function
from sim.gamedata import GameData, load_game_data
from sim.run import default_chunk_size
from sim.shutdown import EXIT_ENGINE, EXIT_USAGE
from sim.violation import InvariantError

EXIT_VIOLATION = EXIT_ENGINE  # a game broke an invariant: the code simulate --check-invariants exits with


@dataclass(frozen=True)
class Mix:
    """One soak configuration: the seats (``--seats`` text), rounds, starting bonus and board side."""

    seats: str
    rounds: int = ROUNDS
    start_bonus: str = "random"
    board: str = DEFAULT_BOARD

    def label(self) -> str:
        """The mix as a report names it: seats, rounds, starting bonus (and the board, off the Moon)."""
        board = "" if self.board == DEFAULT_BOARD else f", board {self.board}"
        return f"{self.seats} ({self.rounds} rounds, start bonus {self.start_bonus}{board})"


def soak_mixes(profiles: Sequence[str] = builtin_profiles()) -> list[Mix]:
    """The seat mixes of the soak, level by level: every level in each kind of mix.

    Per level ``L``: Luna alone (7 rounds, and 6 without a starting bonus: the Singularity); each
    scripted profile against her; two 3-seat mixes (two scripted seats; one scripted seat and a second
    Luna); three 4-seat mixes (three scripted seats; four Lunas; two scripted seats at strengths 0.5 and
    2 with a second Luna, in 6 rounds). The profiles rotate with the level, so each meets every other.
    Then the same levels on the Belt (SPEC section 7): Luna alone, each profile against her, and two
    scripted seats with a second Luna in 6 rounds without a starting bonus.
    """
    mixes = []
    n = len(profiles)
    for level in LEVELS:
        other = (level + 4) % len(LEVELS)
        first, second, third = (profiles[(level + k) % n] for k in range(3))
        mixes += [Mix(f"luna:{level}"), Mix(f"luna:{level}", SINGULARITY_ROUNDS, "none")]
        mixes += [Mix(f"scripted:{profile},luna:{level}") for profile in profiles]
        mixes += [
            Mix(f"scripted:{first},scripted:{second},luna:{level}", ROUNDS, "none"),
            Mix(f"scripted:{third},luna:{level},luna:{other}"),
            Mix(f"scripted:{first},scripted:{second},scripted:{third},luna:{level}"),
            Mix(",".join(f"luna:{(level + 2 * k) % len(LEVELS)}" for k in range(4)), SINGULARITY_ROUNDS),
            Mix(f"scripted:{second}@0.5,scripted:{third}@2,luna:{level},luna:{other}", SINGULARITY_ROUNDS, "none"),
        ]
    belt = BOARDS[1]
    for level in LEVELS:
        other = (level + 4) % len(LEVELS)
        first, second = (profiles[(level + k) % n] for k in range(2))
        mixes += [Mix(f"luna:{level}", board=belt)]
        mixes += [Mix(f"scripted:{profile},luna:{level}", board=belt) for profile in profiles]
        mixes += [Mix(f"scripted:{first},scripted:{second}@2,luna:{level},luna:{other}", SINGULARITY_ROUNDS, "none",
                      belt)]
    return mixes


@dataclass
class SoakResult:
    """What a soak found: games played and checked, mixes, and each violation's one-line report."""

    games: int
    mixes: int
    violations: list[str]
    seconds: float


def run_soak(data: GameData, games: int, seed: int, engine: str = DEFAULT_ENGINE, chunk_size: int | None = None,
             mixes: Sequence[Mix] | None = None, progress: Callable[[int, int, Mix, int], None] | None = None,
             ) -> SoakResult:
    """Play ``games`` games over ``mixes`` (default :func:`soak_mixes`) with every invariant checked.

    Parameters
    ----------
    data : GameData
        The game data (``sim.gamedata.load_game_data``).
    games : int
        Games in all, at least one per mix; mix ``k`` plays ``games // len(mixes)`` games (one more for
        the first ``games % len(mixes)`` mixes), numbered from 0 with ``seed``.
    seed : int
        The run seed of every mix.
    engine : str
        ``numba`` or ``reference``.
    chunk_size : int, optional
        Games per engine call: the memory of the soak (a few rows per game of one chunk); by default
        chosen from memory per mix, as ``simulate`` does (``sim.run.default_chunk_size``).
    mixes : sequence of Mix, optional
        The seat mixes.
    progress : callable, optional
        Called after every chunk with (games done, violations, current mix, its index).

    Returns
    -------
    SoakResult
        Games checked (a chunk with a violation counts its games up to the broken one), mixes, the
        violations' reports (game, seat, round, check, prefixed by the mix) and wall seconds.
    """
    mixes = soak_mixes() if mixes is None else list(mixes)
    if games < len(mixes):
        raise ValueError(f"--games: at least {len(mixes)} (one game per mix), got {games}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"--chunk-size: must be at least 1, got {chunk_size}")
    play = engine_function(engine)
    started = time.perf_counter()
    done, violations = 0, []
    for index, mix in enumerate(mixes):
        config = GameConfig(seats=parse_seats(mix.seats, data.players.profiles), rounds=mix.rounds,
                            start_bonus=mix.start_bonus, board=mix.board)
        mix_games = games // len(mixes) + (index < games % len(mixes))
        size = chunk_size or default_chunk_size(config, False)
        for first in range(0, mix_games, size):
            count = min(size, mix_games - first)
            try:
                play(data, config, seed, first, count, False, check_invariants=True)
                done += count
            except InvariantError as error:
                done += error.game - first + 1
                violations.append(f"{mix.label()}: {error}")
            if progress is not None:
                progress(done, len(violations), mix, index)
    return SoakResult(games=done, mixes=len(mixes), violations=violations, seconds=time.perf_counter() - started)


def summary_line(result: SoakResult, engine: str, seed: int) -> str:
    """The soak's one-line summary."""
    rate = result.games / result.seconds if result.seconds > 0 else 0.0
    return (f"soak: {result.games:,} games, {result.mixes} mixes, levels {LEVELS[0]}-{LEVELS[-1]}, "
            f"{len(result.violations)} violations, {result.seconds:.0f} s ({rate:,.0f} games/s), engine {engine}, "
            f"seed {seed}")


def _progress_printer(total: int, mixes: int, every: float) -> Callable[[int, int, Mix, int], None]:
    started = time.perf_counter()
    last = [started]

    def show(done: int, violations: int, mix: Mix, index: int) -> None:
        now = time.perf_counter()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        elapsed = now - started
        eta = elapsed / done * (total - done) if done else 0.0
        sys.stderr.write(f"soak: {done:,}/{total:,} games ({100 * done / total:.1f} %), mix {index + 1}/{mixes} "
                         f"{mix.seats}, {violations} violations, {elapsed:.0f} s, ETA {eta:.0f} s\n")
        sys.stderr.flush()

    return show


def main(argv: list[str] | None = None) -> int:
    """Run the soak from the command line; the exit code says whether every invariant held."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games in all (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_RUN_SEED, help="run seed (default %(default)s)")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, choices=ENGINES, help="default %(default)s")
    parser.add_argument("--chunk-size", type=int, default=None,
                        help="games per engine call (default: chosen from memory, as simulate does)")
    parser.add_argument("--progress-seconds", type=float, default=30.0,
                        help="seconds between progress lines on stderr (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    mixes = soak_mixes()
    progress = None if args.quiet else _progress_printer(args.games, len(mixes), args.progress_seconds)
    try:
        result = run_soak(load_game_data(), args.games, args.seed, args.engine, args.chunk_size, mixes, progress)
    except ValueError as error:
        sys.stderr.write(f"soak: {error}\n")
        return EXIT_USAGE
    for line in result.violations:
        print(f"soak: {line}")
    print(summary_line(result, args.engine, args.seed))
    return EXIT_VIOLATION if result.violations else 0


if __name__ == "__main__":
    sys.exit(main())
