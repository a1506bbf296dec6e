"""Sector masks: sectors 1..n are bits 0..n-1 of a ``uint64`` (``sim/tables.py``).

A De Bruijn bit scan gives the index of a single set bit in a 64-bit word from one multiply and a
table lookup.
"""

from __future__ import annotations

import numpy as np

from sim.fast._jit import jit
from sim.fast.rng import MASK64, U1

_DE_BRUIJN_WORD = 0x03F79D71B4CB0A89
_DE_BRUIJN = np.uint64(_DE_BRUIJN_WORD)
_DE_BRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _DE_BRUIJN_INDEX[((1 << _bit) * _DE_BRUIJN_WORD & MASK64) >> 58] = _bit
_U58 = np.uint64(58)


@jit
def sector_bit(sector):
    """The mask of one sector."""
    return U1 << np.uint64(sector - 1)


@jit
def lowest_sector(mask):
    """Lowest sector number in a non-empty sector mask."""
    return _DE_BRUIJN_INDEX[((mask & (~mask + U1)) * _DE_BRUIJN) >> _U58] + 1


@jit
def highest_sector(mask):
    """Highest sector number in a non-empty sector mask."""
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    return _DE_BRUIJN_INDEX[((mask ^ (mask >> U1)) * _DE_BRUIJN) >> _U58] + 1
