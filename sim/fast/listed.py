"""Play a list of game numbers, not a contiguous range: the campaign's driver for the numba engine.

A campaign plays, in each chapter, the games of every campaign whose Luna sits at one level; their game
numbers are fixed per (campaign, chapter) so that two policies replay the same shuffles, and so they are
scattered, not a range. :func:`play_listed_numba` plays them in one kernel call (the tables compiled once),
where one :func:`sim.fast.kernel.play_chunk_numba` call per game would spend most of its time compiling
tables. The loop mirrors ``kernel._play_block`` row for row; the engine-exactness tests of the campaign
compare it with the reference engine.
"""

from __future__ import annotations

import numpy as np

from sim.columns import ROUND_NUMERIC, SEAT_NUMERIC, Chunk
from sim.config import GameConfig
from sim.fast._jit import jit
from sim.fast.game import play_game, setup_template
from sim.fast.kernel import N_INT_COLUMNS, N_ROUND_COLUMNS
from sim.fast.rng import MASK64
from sim.fast.state import R_GAME, RESET_BYTES, SEAT_INT_COLUMNS, STATE_DTYPE
from sim.gamedata import GameData
from sim.tables import compile_tables

_STATE_BYTES = STATE_DTYPE.itemsize


@jit
def _play_listed(tables, seed, games, detail, out_int, out_won, out_rounds):
    """Play game ``games[i]`` into the chunk's rows of index ``i``, with one state record for all."""
    t = tables[0]
    memory = np.zeros((2, _STATE_BYTES), np.uint8)
    st = memory[0].view(STATE_DTYPE)[0]
    setup_template(t, memory[1].view(STATE_DTYPE)[0])
    for index in range(games.shape[0]):
        game = games[index]
        memory[0, :RESET_BYTES] = memory[1, :RESET_BYTES]
        play_game(t, st, seed, game, detail)
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


def play_listed_numba(data: GameData, config: GameConfig, seed: int, games: np.ndarray, detail: bool) -> Chunk:
    """Play the games numbered ``games`` (in that order) with the numba engine.

    Parameters
    ----------
    data, config, seed, detail
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
    tables = compile_tables(data, config)
    count = games.size
    rows = count * len(config.seats)
    round_rows = count * len(config.luna_seats) * config.rounds if detail else 0
    out_int = np.empty((N_INT_COLUMNS, rows), dtype=np.int64)
    out_won = np.empty(rows, dtype=np.float64)
    out_rounds = np.empty((N_ROUND_COLUMNS, round_rows), dtype=np.int64)
    _play_listed(tables, np.uint64(seed & MASK64), games, bool(detail), out_int, out_won, out_rounds)
    ints = dict(zip(SEAT_INT_COLUMNS, out_int, strict=True))
    seats = {name: out_won if name == "won" else ints[name] for name in ("game", "seat", *SEAT_NUMERIC)}
    rounds = dict(zip(ROUND_NUMERIC, out_rounds, strict=True)) if detail else None
    return Chunk(seats=seats, rounds=rounds)
