"""Sector masks: sectors 1..n are bits 0..n-1 of a ``uint64`` (``sim/tables.py``).

The lowest and highest set bit are found with LLVM's ``cttz`` and ``ctlz`` intrinsics, which compile to one
instruction (``tzcnt``/``lzcnt``, or ``bsf``/``bsr`` on a processor without them). The masks they are asked
about are never empty.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

from sim.fast._jit import jit
from sim.fast.rng import U1

_U63 = np.uint64(63)


@intrinsic
def _trailing_zeros(typing_context, mask):
    """Zero bits below the lowest set bit of the ``uint64`` ``mask`` (64 for 0)."""
    def codegen(context, builder, signature, arguments):
        return builder.cttz(arguments[0], ir.Constant(ir.IntType(1), 0))
    return types.uint64(types.uint64), codegen


@intrinsic
def _leading_zeros(typing_context, mask):
    """Zero bits above the highest set bit of the ``uint64`` ``mask`` (64 for 0)."""
    def codegen(context, builder, signature, arguments):
        return builder.ctlz(arguments[0], ir.Constant(ir.IntType(1), 0))
    return types.uint64(types.uint64), codegen


@jit
def sector_bit(sector):
    """The mask of one sector."""
    return U1 << np.uint64(sector - 1)


@jit
def lowest_sector(mask):
    """Lowest sector number in a non-empty sector mask."""
    return np.int64(_trailing_zeros(np.uint64(mask))) + 1


@jit
def highest_sector(mask):
    """Highest sector number in a non-empty sector mask."""
    return np.int64(_U63 - _leading_zeros(np.uint64(mask))) + 1
