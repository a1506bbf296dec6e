"""The drivers: a block of games on one state record, the everyday, general and checked loops over blocks,
and the public :func:`play_chunk_numba` (validate in Python, then a jitted kernel fills preallocated arrays).

Where a game's time goes (perf samples of the jitted code with a perf map of every jitted function, 1
thread, ``luna:8``, issue 9): the opcode loop ``card_ops`` with what is inlined into it (track steps,
display cards, plan rows) ~29%, expansion with outpost placing and the value order ~19%, company choice ~7%,
the shuffles ~9%, the tank/upload markers ~4%, drawing into slots, majority cards, turns and the end of her
actions ~15%, research plans ~3%, preparation and the display ~3%, the state reset and output rows ~3%.

Most of it is mispredicted branches: the same game played over and over, which the branch predictor learns,
cost (before the selects below) 1.4 us at ``luna:8`` against 3.3 us for distinct games (1.06 against 2.03 us
at ``luna:0``), while the floor kernel is branch-free by construction. Which card comes, which company
leads, which display space shows a share is each game's chance, so a branch on it goes wrong about as often
as not; per function, the gap between distinct and repeated games puts ~60% of ``card_ops`` (mostly its
per-opcode dispatch), ~70% of expansion and the value order, ~70% of company choice there. Where a choice is
a min or max over a few candidates the kernels take it with selects (``a if c else b``, and LLVM told to
keep them: ``sim/fast/_jit.py``), which took 7-10% off levels 0, 5 and 8 (side by side); what remains
branches on a card's own steps. A larger LLVM inlining budget (``sim/fast/_jit.py``, "Inlining") took
4-10% off every level. How much mispredictions weigh depends on the host: on a later day (the floor kernel
twice as slow as on the day above) one game of ``luna:8`` replayed cost 6.0 us under perf against 7.1 us for
distinct games, so there most of the time was the work itself. Tried without a measurable gain: int8 sector
owners, placers and card holders (reset 7000 -> 4312 bytes), a lazily shuffled action-card deck, inlining
the round frame's kernels, the value order re-counted branch-free after every change, LLVM's looser
if-conversion thresholds, no loop vectorizer, opcode rows with the slot columns next to the arguments (fewer
cache lines read per row), a branch-free re-rank of the company order, an expansion's MIN/MAX sector taken
with a select (2-3 % slower than the branch: this host's predictor learns the card from the path; callgrind's
simple branch model had flagged it), a card's opcodes as calls of their own (LLVM inlined them back);
later (side by side, 1 thread, alternating twice): the value order's three-part key packed into one
integer, the tank/upload move without branches, a display card's share, the early discard and the
expansion order taken without branches, the track-passage tables cut to the spaces a track has (a
sixteenth of the bytes: so the look-up's samples were the branch before it, not the cache), and marking
other values than the card in the branch history (the majority cards, the early discard's decider, the
chosen company: slower, each mark a miss of its own); each shipped card compiled as straight-line
code (a switch on the card, its rows' calls with their counts as constants: the same results, no faster at
level 0 and 2-8 % slower at level 8, so the dispatch is not what is left); numba's negative-index wraparound
switched off (the engine 6-9 % faster, the floor kernel 15-18 %: the ratio worse); the research-plan
discard and refill and the bonus markers as fixed loops over every space with selects (the same results,
0-8 % slower: the loops over a matrix's set bits cost less than the branches they miss); LLVM told that the
kernels' array arguments do not alias (numba's internal ``noalias`` flag as a jit option: no change). Board
caches the kernels keep current rather than recompute: the company order (``board.reorder``), the occupied
and per-company reach sector masks, the display's empty spaces; and one table the tables compile: each
company-track passage's cost and gain (``sim.tables.track_passages``), so Luna crosses a track in one step.
When every other seat has passed (always, playing alone) Luna plays out her round in one call
(``luna.luna_plays_out``), her card loop compiled into it: the addresses her opcodes need are worked out
once a round instead of once a card (2-5 % at levels 0, 4 and 8). Each card she resolves first jumps
through a table on its own number and slot (``sim/fast/branch_history.py``): one jump the predictor misses,
after which the path it keys on names the card in its slot, so the opcode dispatch, the card's own counts and
its matrices' cells are predicted (4-7 % at levels 0-8 for the card alone on an AMD host, 5-10 % more for its
slot on an Intel one).

How a game's time splits (1 thread, 200,000 games, the card loop made to return at once, alternating with
the whole engine): without its cards' actions a game still costs 6.2-8.2x the floor (setup with its
44-card action-deck shuffle, drawing and planning, her end of actions, preparation, scoring, the reset and
output rows), so the actions are 9x (level 0) to 17x (level 8) of today's 15-25x; of these expansion is a
seventh (level 0) to a fifth (level 8). Replayed against distinct games under perf at level 8: of 1.16 us a
game that the predictor cannot learn, 0.66 us is in her card loop (the card marks included), 0.22 us in
expansion, 0.1 us each in planning, majority cards and the round.

Instructions (callgrind, ``luna:8``, 20,000 games, the code compiled for valgrind's processor model): about
24,800 a game: ``luna_plays_out`` (her card loop with every opcode compiled into it, and her end of actions)
11,300, about 355 for each of the 31.9 cards she resolves a game at level 8 (21.0 at level 0),
``expand_company`` 5,200, ``setup`` 2,300 (the action deck's shuffle 900), ``plan_luna`` 2,200, ``play_round``
2,050, the block loop (reset and output rows) 1,000, ``plan_majority`` 800; the reset's copy is a ``memcpy``
(at most 0.3 % of perf's samples). Distinct games took 2.7 us a game on one thread; each of games 0-7 replayed
alone, 1.3-1.7 us; a cycle of 64 games, 1.9 us: so on this host about half of a game's time is branches the
predictor cannot learn from one game to the next, and the other half is these instructions (issue 9's
15x floor needs both halved at level 8).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numba
import numpy as np

from sim.columns import ROUND_NUMERIC, SEAT_NUMERIC, Chunk
from sim.config import GAME_NUMBERS, GameConfig
from sim.fast._jit import jit
from sim.fast.claim import claim_next
from sim.fast.game import play_game, setup_template
from sim.fast.invariants import CHECK_NAMES
from sim.fast.rng import MASK64
from sim.fast.state import R_GAME, RESET_BYTES, SEAT_INT_COLUMNS, STATE_DTYPE
from sim.gamedata import GameData
from sim.tables import compile_tables, needs_general_engine
from sim.violation import InvariantError

# Games played with one allocation of scratch state; also the unit of work the threads claim. With blocks
# of 256 games the two threads of this project's 2-core machine played 1.83-1.88x the games of one at level 0
# and 1.87-1.89x at level 4; with 1,024, 1.92-1.94x and 1.99x (the kernel alone, 500,000 games in chunks of
# 97,541, alternating twice; 4,096: 1.93-1.95x and 1.93x), one thread as fast either way. Two one-thread
# processes each ran as fast as one alone, so the loss was the threads', not the machine's; the likely cause
# (not measured: no hardware counters here) is that at 256 games a block fills 2 KiB of each output column,
# so the two threads wrote into the same 4 KiB pages. A chunk is cut into blocks of about this size
# (:func:`chunk_blocks`), ...
BLOCK_GAMES = 1024
# ... but into one block a thread while a block keeps this many games: a tuner's first brackets and a campaign's
# chapter at one level (a few hundred games a call) played on one core. Below it a chunk plays on one thread:
# 100 games take about 0.4 ms, and handing half of them to another thread would save little of it.
MIN_BLOCK_GAMES = 128
N_INT_COLUMNS = len(SEAT_INT_COLUMNS)
N_ROUND_COLUMNS = len(ROUND_NUMERIC)
_STATE_BYTES = STATE_DTYPE.itemsize
# out_check columns: the chunk row of the game (its index in ``games``), seat, round, check (0: none)
N_CHECK_COLUMNS = 4

# Compile time. numba compiles each jitted function on its own, and a caller links in its callees' code and
# turns the whole into machine code again; so each function of the chain from a driver down to the rules is
# one more machine-code pass over the entire engine. Timed per function (numba's compile events, an empty
# cache, the everyday driver) the chain's wrappers took 2-3 s each of their own: the driver, then a numba
# parallel loop, 9.0 s, ``_play_claimed_blocks`` 2.1, ``_play_block`` 2.8, ``play_game`` 2.1. The three
# wrappers are therefore compiled into the driver (numba's ``inline="always"``), which took the first compile
# from 41 s to 31-33 s; 1 thread, 200,000 games of levels 0, 4 and 8, four alternations with the code before:
# the same time per game. Inlining ``play_round`` and ``action_phase`` as well saved 1 s more but made levels 4
# and 8 2-4 % slower. A parallel loop's body is compiled as a function of its own, with the engine linked in
# once more; plain drivers called on Python threads (below) took the everyday engine's first compile from
# 27.5-28.7 s to 22.1-22.8 s, the Belt's after it from 36.8-38.7 s to 29.8-31.0 s, the checked one's after
# both from 19.6-19.9 s to 8.9-9.7 s (empty cache, twice each in alternation), at the same speed.


@jit(inline="always")
def _play_block(tables, seed, games, detail, check, general, block, first, stop, out_int, out_won, out_rounds,
                out_check):
    """Play the chunk's games ``games[first:stop]`` (block ``block``) with one state record, into the output columns;
    with ``check``, stop at the first game that breaks an invariant and report it in the block's ``out_check`` row
    (``check`` and ``general`` as in ``game.play_game``)."""
    t = tables[0]
    # Row 0 is the game's state, row 1 the template each game starts from: a game is reset by copying
    # the template's reset fields (state.RESET_BYTES) over the state.
    memory = np.zeros((2, _STATE_BYTES), np.uint8)
    st = memory[0].view(STATE_DTYPE)[0]
    setup_template(t, memory[1].view(STATE_DTYPE)[0], general)
    for index in range(first, stop):
        game = games[index]
        # a loop, which LLVM turns into one block copy, rather than a slice copy: numba compiles the error message of a
        # slice copy's shape check, string formatting that was 1.8 s of the cold compile
        for i in range(RESET_BYTES):
            memory[0, i] = memory[1, i]
        found = play_game(t, st, seed, game, detail, check, general)
        if found[0] != 0:
            report = out_check[block]
            report[0], report[1], report[2], report[3] = index, found[1], found[2], found[0]
            return
        # Only this loop touches the output arrays: numba reference-counts an array at every call it
        # is passed to, so the per-game functions work on the state record alone.
        for seat in range(t.n_seats):
            row = index * t.n_seats + seat
            for column in range(N_INT_COLUMNS):
                out_int[column, row] = st.result[seat, column]
            out_won[row] = st.won[seat]
        if detail:
            for k in range(t.n_luna):
                for rnd in range(t.rounds):
                    row = (index * t.n_luna + k) * t.rounds + rnd
                    for column in range(N_ROUND_COLUMNS):
                        out_rounds[column, row] = st.round_rows[k, rnd, column]
                    out_rounds[R_GAME, row] = game


@jit(inline="always")
def _play_claimed_blocks(counter, tables, seed, games, detail, check, general, out_int, out_won, out_rounds,
                         out_check):
    """Play the chunk's blocks claimed from ``counter`` (int64, shape (1,), from 0; ``sim/fast/claim.py``) one
    at a time until none is left; returns how many this call played."""
    count, blocks = games.shape[0], out_check.shape[0]  # a row of out_check per block (play_games_numba)
    size = (count + blocks - 1) // max(blocks, 1)  # the games of a block, the last one's perhaps fewer
    played = 0
    block = claim_next(counter)
    while block < blocks:
        first = block * size
        _play_block(tables, seed, games, detail, check, general, block, first, min(count, first + size),
                    out_int, out_won, out_rounds, out_check)
        played += 1
        block = claim_next(counter)
    return played


# The drivers. Each thread of a chunk (:func:`_play_on_threads`) calls the same driver with the same arguments;
# each call plays the blocks it claims from their shared counter and returns when none is left, without the
# GIL (``nogil``). Threads of Python's own, not numba's ``prange``: a parallel loop is compiled twice over (the
# loop body becomes a function of its own with the whole engine linked in again: 9.9 s of the 31-33 s first
# compile), where a plain function is compiled once; the same speed on one thread and on two (measured side by
# side: docs/speed-history.md, edec701's round).
#
# Three Python functions on purpose: numba keys its on-disk cache by function (file, name, line) and argument
# types, not by options, so one function jitted twice would share one cache entry and whichever variant
# compiled first would be loaded for both (issue 9). Each driver is called with one type of ``check`` and
# ``general`` only (:func:`driver_for`), so each has one cache entry, and :func:`sim.fast._jit.is_compiled`
# tells whether it is on disk: the everyday engine (the Moon under the shipped readings), the general one (any
# board and readings) and the checked one. The same driver serves a chunk of any size and any thread count,
# so a first run of any size compiles what every later run loads.

@jit
def _play_games_everyday(counter, tables, seed, games, detail, check, general, out_int, out_won, out_rounds,
                         out_check):
    """Play the blocks of the games numbered ``games`` that this call claims from ``counter``, into the
    preallocated columns; returns the number of blocks it played.

    Parameters
    ----------
    counter : int64 array, shape (1,), from 0
        The blocks claimed so far, shared by every thread playing the chunk (``sim/fast/claim.py``).
    tables : TABLES_DTYPE array, shape (1,)
        The compiled data and configuration (:func:`sim.tables.compile_tables`).
    seed : uint64
        The run seed modulo 2**64.
    games : int64 array, shape (count,)
        The game number of each of the chunk's games, in row order (a range for a run; scattered for a
        campaign, whose chapters keep their game numbers).
    detail : bool
        Fill ``out_rounds``.
    check : None or True
        ``True``: check the invariants (``sim/fast/invariants.py``) after setup, every round and final
        scoring (only :func:`_play_games_checked` is called so). ``None`` compiles no check at all.
    general : None or True
        ``None``: the Moon under the shipped rule readings only, the everyday engine; ``True``: any board
        side and readings (:func:`_play_games_general` and :func:`_play_games_checked` are called so;
        ``sim/fast/luna.py``'s module docstring).
    out_int : int64 array, shape (len(SEAT_INT_COLUMNS), count * n_seats)
        Integer per-seat columns; row ``g * n_seats + seat`` is seat ``seat`` of the chunk's game ``g``.
    out_won : float64 array, shape (count * n_seats,)
        Win share of each row.
    out_rounds : int64 array, shape (len(ROUND_NUMERIC), count * n_luna * rounds), or (..., 0) without detail
        Row ``(g * n_luna + k) * rounds + round - 1`` is the k-th Luna seat in that round.
    out_check : int64 array, shape (blocks, N_CHECK_COLUMNS), zeros
        One row per block (:func:`chunk_blocks`): its row count is the chunk's block count. With ``check``,
        row ``b`` is block ``b``'s first broken invariant, ``(g, seat, round, check)`` (``check`` indexes
        ``invariants.CHECK_NAMES``, seat -1 for the board), or stays zero. A block stops at its first
        violation, leaving its later rows unwritten.

    Each block (``count`` games in ``blocks`` parts) goes to whichever call claims it first; every game draws only from
    its own streams and writes its own rows, so neither the blocks nor the threads change any result.
    """
    return _play_claimed_blocks(counter, tables, seed, games, detail, check, general, out_int, out_won,
                                out_rounds, out_check)


@jit
def _play_games_general(counter, tables, seed, games, detail, check, general, out_int, out_won, out_rounds,
                        out_check):
    """The driver with ``general=True``, compiled only when a run plays the Belt side or a rule reading other
    than the shipped one; arguments as :func:`_play_games_everyday`."""
    return _play_claimed_blocks(counter, tables, seed, games, detail, check, general, out_int, out_won,
                                out_rounds, out_check)


@jit
def _play_games_checked(counter, tables, seed, games, detail, check, general, out_int, out_won, out_rounds,
                        out_check):
    """The driver with ``check=True`` and ``general=True``, compiled only when a run asks for the invariant
    checks (on any board and readings: the checks are rare enough for one engine to serve all); arguments as
    :func:`_play_games_everyday`."""
    return _play_claimed_blocks(counter, tables, seed, games, detail, check, general, out_int, out_won,
                                out_rounds, out_check)


def driver_for(check_invariants: bool = False, general: bool = False) -> numba.core.registry.CPUDispatcher:
    """The driver :func:`play_chunk_numba` runs a chunk of games with: the checked one when asked for the
    invariant checks, the general one when the games need it (``sim.tables.needs_general_engine``), else the
    everyday engine. Each is called with one type of ``check`` and ``general`` only: :func:`driver_flags`."""
    if check_invariants:
        return _play_games_checked
    if general:
        return _play_games_general
    return _play_games_everyday


def driver_flags(check_invariants: bool, general: bool) -> tuple[bool | None, bool | None]:
    """The ``check`` and ``general`` arguments of the driver :func:`driver_for` picks (``True`` or ``None``)."""
    return (True if check_invariants else None), (True if check_invariants or general else None)


def play_chunk_numba(data: GameData, config: GameConfig, seed: int, first_game: int, count: int,
                     detail: bool, check_invariants: bool = False) -> Chunk:
    """Play games ``first_game .. first_game + count - 1`` with the numba engine.

    Parameters
    ----------
    data : GameData
        The validated game data (``sim.gamedata.load_game_data``).
    config : GameConfig
        The seats, rounds and starting bonus.
    seed : int
        The run seed; only its value modulo 2**64 matters.
    first_game : int
        Game number of the first game, ``0 <= first_game`` and ``first_game + count <= 2**63``
        (``sim.config.GAME_NUMBERS``).
    count : int
        Games to play, ``count >= 0``.
    detail : bool
        Also return the per-round rows of every Luna seat.
    check_invariants : bool
        Check the invariants of ``sim/fast/invariants.py`` after setup, every round and final scoring
        of every game (the same numbers either way).

    Returns
    -------
    Chunk
        The same :class:`sim.columns.Chunk` as ``play_chunk_reference`` with the same arguments: the same
        columns, dtypes, row order and numbers. ``seats`` maps ``"game"``, ``"seat"`` and each name of
        ``sim.columns.SEAT_NUMERIC`` to an array of shape ``(count * n_seats,)`` (row
        ``g * n_seats + seat``; int64, ``won`` float64); ``rounds`` is ``None`` without ``detail``,
        else maps each name of ``sim.columns.ROUND_NUMERIC`` to an int64 array of shape
        ``(count * n_luna * rounds,)`` (row ``(g * n_luna + k) * rounds + round - 1`` for the k-th
        Luna seat).

    Raises
    ------
    ValueError
        For a negative ``count`` or game number, or data beyond the kernels' capacities.
    sim.violation.InvariantError
        With ``check_invariants``: the first game, in row order, that broke an invariant.
    """
    if count < 0:
        raise ValueError(f"count must be at least 0, got {count}")
    if first_game < 0:
        raise ValueError(f"first_game must be a non-negative game number, got {first_game}")
    if first_game + count > GAME_NUMBERS:
        raise ValueError(f"games {first_game} to {first_game + count - 1} pass the last game number, 2**63 - 1")
    return play_games_numba(data, config, seed, np.int64(first_game) + np.arange(count, dtype=np.int64), detail,
                            check_invariants)


# The output columns are the rows of one 2-D array each (integer columns, round columns), every row padded to
# a whole number of ROW_ALIGN values, so that its length in memory is a multiple of 64 bytes. With the rows of a
# 97,541-game chunk (Luna alone's default chunk) unpadded, the 2-thread kernel played 6-10 % fewer games a second
# at level 0 than with the same rows padded to 97,544 (1.70-1.74x the 1-thread kernel against 1.90-1.91x; the
# data's start address, 0, 16 or 40 bytes past a cache line, made no difference; issue 9, on an Intel host).
ROW_ALIGN = 8


def padded_rows(rows: int) -> int:
    """``rows`` rounded up to a whole number of ``ROW_ALIGN``: the length of an output column's row in memory."""
    return -(-rows // ROW_ALIGN) * ROW_ALIGN


# The last tables compiled, with the data and configuration they were compiled from. A run calls the engine
# once per chunk with the same two (frozen) objects; compiling the tables again cost 2-4 ms a chunk, 3-5 % of
# the time a --detail rounds chunk (22,000 games of Luna alone) takes to play on two threads. The kernels never
# write to the tables. One (data, config, tables) tuple, replaced whole, so threads calling with different runs
# at once each get the tables of their own objects.
_last_tables: tuple[GameData, GameConfig, np.ndarray] | None = None


def _tables_for(data: GameData, config: GameConfig) -> np.ndarray:
    """``compile_tables(data, config)``, reused while the same ``data`` and ``config`` objects come back."""
    global _last_tables
    last = _last_tables
    if last is not None and last[0] is data and last[1] is config:
        return last[2]
    tables = compile_tables(data, config)
    _last_tables = (data, config, tables)
    return tables


# One chunk at a time per process: each chunk already uses every thread numba is set to, so two at once
# (Python threads calling the engine together, as a Dask worker running its tasks in threads does) would gain
# nothing and only share the cores.
_DRIVER_LOCK = threading.Lock()
_helpers: ThreadPoolExecutor | None = None  # the threads beside the caller's, started at the first 2-thread chunk


def _after_fork_in_child() -> None:
    """A forked process has none of its parent's threads: it starts its own helpers, and its own lock (which
    another of the parent's threads may have held at the fork)."""
    global _DRIVER_LOCK, _helpers
    _DRIVER_LOCK, _helpers = threading.Lock(), None


os.register_at_fork(after_in_child=_after_fork_in_child)


def chunk_blocks(count: int, threads: int) -> int:
    """How many blocks a chunk of ``count`` games is cut into for ``threads`` threads: about ``BLOCK_GAMES`` games
    each, yet one a thread while each keeps ``MIN_BLOCK_GAMES``. The blocks change no result (each game draws only
    from its own streams), only how the threads share the work."""
    return max(-(-count // BLOCK_GAMES), min(threads, count // MIN_BLOCK_GAMES))


def engine_threads(blocks: int) -> int:
    """How many threads play a chunk of ``blocks`` blocks: numba's thread count (``NUMBA_NUM_THREADS``, or
    ``numba.set_num_threads`` in the calling thread), and no more than there are blocks."""
    return max(1, min(numba.get_num_threads(), blocks))


def _play_on_threads(driver: numba.core.registry.CPUDispatcher, arguments: tuple, threads: int) -> list[int]:
    """Call ``driver(*arguments)`` on ``threads`` threads at once, the caller's among them, and wait for every
    call; returns the number of blocks each call played (the caller's first)."""
    global _helpers
    if threads <= 1:
        return [driver(*arguments)]
    if not driver.signatures:
        # Compiled (or loaded from the cache) here first, as a call would: left to the calls, an engine thread
        # could win numba's compiler lock and compile while this one waited, and then a Ctrl-C or stop signal here
        # waited for that compile (up to a minute) before the command could end
        driver.compile(tuple(driver.typeof_pyval(value) for value in arguments))
    if _helpers is None:  # numba's thread count never exceeds NUMBA_NUM_THREADS
        _helpers = ThreadPoolExecutor(max_workers=numba.config.NUMBA_NUM_THREADS - 1, thread_name_prefix="luna-engine")
    calls = [_helpers.submit(driver, *arguments) for _ in range(threads - 1)]
    try:
        played = [driver(*arguments)]
    finally:  # even when the caller's call fails, none of the others may outlive the chunk's arrays' use
        wait(calls)
    return played + [call.result() for call in calls]


def play_games_numba(data: GameData, config: GameConfig, seed: int, games: np.ndarray, detail: bool,
                     check_invariants: bool = False) -> Chunk:
    """Play the games numbered ``games`` (validated non-negative int64, in row order) with the numba engine.

    The rows are those of :func:`play_chunk_numba` for each game, in the order given; repeats play the
    same game again. ``check_invariants`` as for :func:`play_chunk_numba`.
    """
    tables = _tables_for(data, config)
    count = games.shape[0]
    rows = count * len(config.seats)
    round_rows = count * len(config.luna_seats) * config.rounds if detail else 0
    out_int = np.empty((N_INT_COLUMNS, padded_rows(rows)), dtype=np.int64)
    out_won = np.empty(rows, dtype=np.float64)
    out_rounds = np.empty((N_ROUND_COLUMNS, padded_rows(round_rows)), dtype=np.int64)
    blocks = chunk_blocks(count, numba.get_num_threads())
    out_check = np.zeros((blocks, N_CHECK_COLUMNS), dtype=np.int64)
    general = needs_general_engine(data, config)
    check, general_flag = driver_flags(check_invariants, general)
    arguments = (np.zeros(1, np.int64), tables, np.uint64(seed & MASK64), games, bool(detail), check, general_flag,
                 out_int, out_won, out_rounds, out_check)
    with _DRIVER_LOCK:
        _play_on_threads(driver_for(check_invariants, general), arguments, engine_threads(blocks))
    broken = np.flatnonzero(out_check[:, 3])
    if broken.size:  # blocks are in row order, and each reports its first broken game
        row, seat, rnd, check = (int(value) for value in out_check[broken[0]])
        raise InvariantError(int(games[row]), None if seat < 0 else seat, rnd, CHECK_NAMES[check])
    ints = dict(zip(SEAT_INT_COLUMNS, out_int[:, :rows], strict=True))
    seats = {name: out_won if name == "won" else ints[name] for name in ("game", "seat", *SEAT_NUMERIC)}
    rounds = dict(zip(ROUND_NUMERIC, out_rounds[:, :round_rows], strict=True)) if detail else None
    return Chunk(seats=seats, rounds=rounds)


def play_listed_numba(data: GameData, config: GameConfig, seed: int, games: np.ndarray, detail: bool,
                      check_invariants: bool = False) -> Chunk:
    """Play the games numbered ``games`` (in that order) with the numba engine: a campaign's chapters.

    Parameters
    ----------
    data, config, seed, detail, check_invariants
        As for :func:`sim.fast.kernel.play_chunk_numba`.
    games : array of int
        Game numbers, each in ``[0, 2**63)``; repeats are allowed and play the same game again.

    Returns
    -------
    Chunk
        The rows of ``play_chunk_numba`` for each listed game, in the order listed: the same columns,
        dtypes and numbers as ``play_chunk_numba(data, config, seed, g, 1, detail)`` for each ``g``.
    """
    games = np.asarray(games, dtype=np.int64).reshape(-1)
    if games.size and games.min() < 0:
        raise ValueError(f"games must be non-negative game numbers, got {int(games.min())}")
    return play_games_numba(data, config, seed, games, detail, check_invariants)
