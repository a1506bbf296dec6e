"""An engine's int64 output column narrowed to the output files' int32, compiled: one pass that copies and checks.

The per-game rows are written on the thread that shares the cores with the kernel while it plays the next
chunk, so each nanosecond the writer spends per value is taken from the kernel (issue 9: the per-game rows'
share of the kernel's throughput). numpy needs three passes over each column to narrow it safely (``min``,
``max``, then ``copyto``): 42 ns a game for the 42 integer columns of 97,541 games of ``luna:0``; this pass
took 20 ns (one chunk, best of 7, on the project's 2-core Intel machine).

The check: a value fits int32 exactly when truncating it to 32 bits and widening it back gives the value
again; the pass ORs the difference of every value, so a single misfit leaves it non-zero.
"""

from __future__ import annotations

import numpy as np

from sim.fast._jit import jit

# Below this many values a column is narrowed with numpy: a run of a few games then loads no compiled code
# for it (a warm start stays under a second; sim/fast/_jit.py), and three passes over a short column cost
# next to nothing.
COMPILED_FROM = 1 << 14


@jit
def _narrow_into(values, out):
    """Copy ``values`` (int64, shape (n,)) into ``out`` (int32, shape (n,)), truncated; whether all fitted."""
    misfit = np.int64(0)
    for i in range(values.shape[0]):
        value = values[i]
        narrow = np.int32(value)
        misfit |= np.int64(narrow) ^ value
        out[i] = narrow
    return misfit == 0


def narrow_to_int32(values: np.ndarray, out: np.ndarray) -> bool:
    """Copy the integer array ``values`` into the int32 array ``out`` of the same length; whether every value
    fitted (when one did not, ``out`` holds truncated values and must not be used)."""
    if values.shape != out.shape or values.ndim != 1 or out.dtype != np.int32:
        raise ValueError(f"narrow_to_int32: int32 output of shape {values.shape} expected, got {out.dtype} "
                         f"{out.shape}")
    if values.size >= COMPILED_FROM and values.dtype == np.int64:
        return bool(_narrow_into(values, out))
    info = np.iinfo(np.int32)
    if values.size and (values.min() < info.min or values.max() > info.max):
        return False
    np.copyto(out, values, casting="unsafe")
    return True
