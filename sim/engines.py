"""What the two engines share: the chunk they return, their registry, and what each can play.

An engine is a *play-chunk function* ``play(data, config, seed, first_game, count, detail) -> Chunk``
that plays games ``first_game .. first_game + count - 1`` of ``config`` with the streams of (seed, g),
and a *play-listed function* ``play(data, config, seed, games, detail) -> Chunk`` that plays the game
numbers ``games`` in the order listed (the campaign's scattered game numbers, ``sim/campaign.py``).
Both engines' functions also take ``check_invariants=True`` (``simulate --check-invariants``): every game
is checked after setup, every round and final scoring, and the first broken invariant raises
``sim.violation.InvariantError``; the numbers are the same either way.
Both engines return the same columns, dtypes, row order and numbers, so the run driver, the study and
the parity search never care which one played.

The numba engine is imported only when it is asked for: importing it loads numba and may compile
its kernels, which the reference engine, the command line's parser and ``can_play`` must not pay.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from sim import reference
from sim.columns import (
    ROUND_CARD_COLUMNS,
    ROUND_MAJORITY_CARD_COLUMNS,
    ROUND_MAJORITY_COLUMNS,
    ROUND_NUMERIC,
    SEAT_NUMERIC,
    Chunk,
)
from sim.config import ConfigError, GameConfig, check_choice
from sim.environment import jit_switched_off, thread_count_problem
from sim.gamedata import GameData
from sim.invariants import check_final_rows, round_checker

PlayChunk = Callable[[GameData, GameConfig, int, int, int, bool], Chunk]
PlayListed = Callable[[GameData, GameConfig, int, np.ndarray, bool], Chunk]


# ---------------------------------------------------------------- the reference engine's adapter

def _round_row(game: int, seat: int, record: reference.RoundRecord) -> dict[str, int]:
    """One ``luna_rounds`` row: a record field where its name is the column's, derived values otherwise."""
    row = {"game": game, "seat": seat,
           "grade2_entered": record.grade2_by_reshuffle + record.grade2_by_token,
           **dict(zip(ROUND_CARD_COLUMNS, record.cards, strict=True)),
           **dict(zip(ROUND_MAJORITY_CARD_COLUMNS, record.majority_cards, strict=True)),
           **dict(zip(ROUND_MAJORITY_COLUMNS, record.majority_values, strict=True))}
    return {name: row[name] if name in row else getattr(record, name) for name in ROUND_NUMERIC}


def play_chunk_reference(data: GameData, config: GameConfig, seed: int, first_game: int, count: int,
                         detail: bool, check_invariants: bool = False) -> Chunk:
    """Play a chunk of games with the reference engine."""
    # A range, not np.arange: game numbers near 2**63 would become float64 there.
    return play_listed_reference(data, config, seed, range(first_game, first_game + count), detail, check_invariants)


def play_listed_reference(data: GameData, config: GameConfig, seed: int, games: Iterable[int] | np.ndarray,
                          detail: bool, check_invariants: bool = False) -> Chunk:
    """Play the games numbered ``games`` (integers), in the order listed, with the reference engine.

    With ``check_invariants``, ``sim.invariants`` checks every game after setup, every round and final
    scoring, and the first broken invariant raises ``sim.violation.InvariantError``.
    """
    rules = reference.Rules(data, config)
    seat_rows: dict[str, list] = {name: [] for name in ("game", "seat", *SEAT_NUMERIC)}
    round_rows: dict[str, list] = {name: [] for name in ROUND_NUMERIC}
    for game in map(int, games):
        if check_invariants:
            result = reference.play_game(rules, seed, game, detail=detail, check=round_checker(rules, game))
            check_final_rows(game, config.rounds, result.seats)
        else:
            result = reference.play_game(rules, seed, game, detail=detail)
        for seat, row in enumerate(result.seats):
            seat_rows["game"].append(game)
            seat_rows["seat"].append(seat)
            for name in SEAT_NUMERIC:
                seat_rows[name].append(row[name])
        for seat, records in result.rounds.items():
            for record in records:
                for name, value in _round_row(game, seat, record).items():
                    round_rows[name].append(value)
    seats = {name: np.asarray(values, dtype=np.float64 if name == "won" else np.int64)
             for name, values in seat_rows.items()}
    rounds = {name: np.asarray(values, dtype=np.int64) for name, values in round_rows.items()} if detail else None
    return Chunk(seats=seats, rounds=rounds)


# ---------------------------------------------------------------- the registry

def _load_reference() -> PlayChunk:
    # Looked up when asked for (not bound at import), so a test may replace the module's function.
    return play_chunk_reference


def _load_numba() -> PlayChunk:
    from sim.fast import play_chunk_numba

    def play(data: GameData, config: GameConfig, seed: int, first_game: int, count: int, detail: bool,
             check_invariants: bool = False) -> Chunk:
        return _announced(data, config, count, check_invariants,
                          lambda: play_chunk_numba(data, config, seed, first_game, count, detail, check_invariants))

    return play


# ---------------------------------------------------------------- the first compile, said on the terminal

_compile_notice = {"enabled": True, "said": False}


def set_compile_notice(enabled: bool) -> None:
    """Say (on stderr, once per process) when the numba engine is compiled for this machine, or never.

    On by default, so a user meets no silent half-minute wait, whatever runs the engine (the command
    line, a notebook, a script); the command line's ``--quiet`` turns it off.
    """
    _compile_notice["enabled"] = enabled


def _announced(data: GameData, config: GameConfig, count: int, check_invariants: bool,
               play: Callable[[], Chunk]) -> Chunk:
    """Run ``play`` (a numba engine call of ``count`` games of ``data`` and ``config``, invariants checked or
    not), saying on stderr when it first compiles the engine it needs.

    Nothing is said when the compiled code is in numba's cache folder (a warm start), nor after the
    first notice of the process. Both numba entry points (a range of games, a list) come through here.
    """
    from sim.fast._jit import UNCACHED, UNSAVED, is_compiled
    from sim.fast.kernel import driver_for
    from sim.tables import needs_general_engine

    if _compile_notice["said"] or not _compile_notice["enabled"]:
        return play()
    general = needs_general_engine(data, config)
    if is_compiled(driver_for(check_invariants, general)):
        return play()
    if _numba_problems(data, config):
        return play()  # it refuses the data before anything compiles: no notice of a compile that never comes
    _compile_notice["said"] = True
    # each version is compiled on its own: a first Belt run after everyday runs compiles again, and says which
    version = (" (its version that checks invariants)" if check_invariants
               else " (its version for the Belt side and rule readings)" if general else "")
    uncached = UNCACHED["reason"]
    if uncached:
        sys.stderr.write(f"luna-balance: compiling the numba engine for this machine{version}, up to a minute; "
                         f"{uncached}, so every run compiles it: set NUMBA_CACHE_DIR to a folder you can write\n")
    else:
        sys.stderr.write(f"luna-balance: compiling the numba engine for this machine{version}; this happens once "
                         "and takes up to a minute ...\n")
    sys.stderr.flush()
    started = time.perf_counter()
    chunk = play()
    # the compile is most of the call: the first chunk's games take a fraction of a second more
    later = "" if uncached or UNSAVED["reason"] else "; later runs load it from the cache at once"
    games = f" (with the first {count:,} games)" if count > 1 else ""
    sys.stderr.write(f"luna-balance: compiled in {time.perf_counter() - started:.0f} s{games}{later}\n")
    sys.stderr.flush()
    return chunk


def compile_before_workers(engine: str, data: GameData, config: GameConfig, check_invariants: bool = False) -> None:
    """Compile the numba engine for ``data`` and ``config`` here, before worker processes start.

    On a cold cache each ``--workers`` process compiled the engine at once, and each said so (a QA pass); compiled
    here first (one game played, its notice said once), they load it from the cache. Nothing to do for the reference
    engine, an engine compiled or cached already, data the engine refuses (the workers say why), or a cache numba
    cannot write (each process compiles then, whatever this one does).
    """
    if engine != "numba":
        return
    from sim.fast._jit import UNCACHED, is_compiled
    from sim.fast.kernel import driver_for
    from sim.tables import needs_general_engine

    # the warm case first: every part of a study with --workers asks, and only a cold one needs the tables checked
    if UNCACHED["reason"] or is_compiled(driver_for(check_invariants, needs_general_engine(data, config))):
        return
    if not _numba_problems(data, config):
        engine_function(engine)(data, config, 0, 0, 1, False, check_invariants=check_invariants)


def _load_reference_listed() -> PlayListed:
    return play_listed_reference


def _load_numba_listed() -> PlayListed:
    from sim.fast.kernel import play_listed_numba

    def play(data: GameData, config: GameConfig, seed: int, games: Iterable[int] | np.ndarray, detail: bool,
             check_invariants: bool = False) -> Chunk:
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        return _announced(data, config, games.size, check_invariants,
                          lambda: play_listed_numba(data, config, seed, games, detail, check_invariants))

    return play


def _numba_problems(data: GameData, config: GameConfig) -> str:
    # The table compiler checks everything the kernels' fixed capacities cannot hold; it is plain
    # Python and numpy, so this neither imports numba nor plays a game.
    from sim.tables import compile_tables

    try:
        compile_tables(data, config)
    except ValueError as error:
        return str(error)
    return ""


def _no_problems(data: GameData, config: GameConfig) -> str:
    return ""


@dataclass(frozen=True)
class Engine:
    """One engine: how to load its play-chunk function, and why it cannot play a configuration."""

    load: Callable[[], PlayChunk]
    load_listed: Callable[[], PlayListed]
    problems: Callable[[GameData, GameConfig], str]  # "" when it can play


_REGISTRY: dict[str, Engine] = {
    "reference": Engine(load=_load_reference, load_listed=_load_reference_listed, problems=_no_problems),
    "numba": Engine(load=_load_numba, load_listed=_load_numba_listed, problems=_numba_problems),
}
ENGINES: tuple[str, ...] = tuple(_REGISTRY)  # the names --engine accepts
DEFAULT_ENGINE = "numba"  # the compiled engine: --engine's default and the Python API's


def _engine(name: str) -> Engine:
    if not isinstance(name, str):  # a list failed as unhashable, a number as an unknown engine
        check_choice(name, "engine", ENGINES)
    try:
        engine = _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown engine {name!r} ({' or '.join(ENGINES)})", "engine") from None
    if name == "numba" and jit_switched_off():
        # numba then runs the kernels as Python, where the engine's own intrinsics (sim/fast/claim.py) cannot run:
        # a traceback ending "<intrinsic claim_next> is not usable in pure-python" (a QA pass)
        raise ConfigError("NUMBA_DISABLE_JIT is set, which turns numba's compiler off, and the numba engine needs it: "
                          "unset it, or use --engine reference (the same games, slower)", "engine")
    if name == "numba" and (problem := thread_count_problem()):
        raise ConfigError(problem, "engine")
    return engine


def check_engine(engine: str) -> None:
    """Raise the ValueError the command line shows when ``engine`` is not one of ``ENGINES``."""
    _engine(engine)


def engine_function(engine: str) -> PlayChunk:
    """The play-chunk function of ``engine``.

    Raises
    ------
    ValueError
        ``engine`` is not one of ``ENGINES``.
    ImportError
        The engine's module cannot be loaded (for the numba engine: numba is missing or broken).
    """
    return _engine(engine).load()


def listed_function(engine: str) -> PlayListed:
    """The play-listed function of ``engine`` (raises as :func:`engine_function` does)."""
    return _engine(engine).load_listed()


def engine_problems(engine: str, data: GameData, config: GameConfig) -> str:
    """Why ``engine`` cannot play ``config`` with ``data`` (one problem per line), or "" when it can."""
    return _engine(engine).problems(data, config)


def can_play(engine: str, data: GameData, config: GameConfig) -> bool:
    """Whether ``engine`` can play ``config`` with ``data``; checks only, plays no game.

    The reference engine plays everything the data loader accepts; the numba engine refuses data
    beyond its compiled capacities (see ``sim/tables.py``).
    """
    return not engine_problems(engine, data, config)
