"""SplitMix64 in wrapping ``uint64`` arithmetic: ``sim/rng.py`` bit for bit.

Every operand is a ``uint64`` (numba promotes ``uint64 op int64`` to float64). The constants and the
stream ids are ``sim/rng.py``'s own: :func:`stream_id` of a seat is ``sim.rng.seat_stream`` compiled.
"""

from __future__ import annotations

import numpy as np

from sim import rng
from sim.fast._jit import jit

GAMMA = np.uint64(rng.GOLDEN_GAMMA)
_MIX_1 = np.uint64(rng.MIX_MULTIPLIER_1)
_MIX_2 = np.uint64(rng.MIX_MULTIPLIER_2)
U1, U32 = np.uint64(1), np.uint64(32)
_U27, _U30, _U31 = np.uint64(27), np.uint64(30), np.uint64(31)
MASK64 = rng.MASK64

BOARD_STREAM = rng.BOARD_STREAM
seat_stream = jit(rng.seat_stream)  # the stream id of a seat, as sim/rng.py defines it


@jit
def mix64(z):
    """``rng.mix64`` (``z``: uint64)."""
    z = (z ^ (z >> _U30)) * _MIX_1
    z = (z ^ (z >> _U27)) * _MIX_2
    return z ^ (z >> _U31)


@jit
def game_state(seed, game):
    """The part of ``rng.stream_state`` shared by all streams of one game (``seed``, ``game``: uint64)."""
    return mix64((mix64(seed + GAMMA) ^ game) + GAMMA)


@jit
def stream_state(shared, stream):
    """``rng.stream_state`` of stream ``stream`` from the game's ``game_state``."""
    return mix64((shared ^ np.uint64(stream)) + GAMMA)


@jit
def below(st, stream, n):
    """``Stream.below(n)`` on stream ``stream`` of the game state ``st``."""
    state = st.rng[stream] + GAMMA
    st.rng[stream] = state
    return np.int64(((mix64(state) >> U32) * np.uint64(n)) >> U32)


@jit
def shuffle(st, stream, items):
    """``Stream.shuffle`` of the 1-d array ``items`` (a view into ``st``) with stream ``stream``."""
    state = st.rng[stream]  # ``below`` inlined, the stream state kept in a register
    for i in range(items.shape[0] - 1, 0, -1):
        state += GAMMA
        j = np.int64(((mix64(state) >> U32) * np.uint64(i + 1)) >> U32)
        items[i], items[j] = items[j], items[i]
    st.rng[stream] = state
