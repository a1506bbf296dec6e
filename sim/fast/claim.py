"""Blocks of a chunk handed out one at a time to whichever thread asks first: an atomic counter.

Every thread playing a chunk (``sim.fast.kernel``: the caller's and the engine's helper threads, each in a
driver call without the GIL) claims its next block from one counter, so the threads share the work as their
cores allow. Split up front in equal parts instead (as numba's ``prange``, which the drivers once were,
does), a thread whose core another thread takes for a while (the writer thread of ``simulate``, which
encodes the last chunk while the kernel plays the next; or another program) finishes its part late while
the other waits idle: the writer's CPU time came out of the wall time whole (issue 9: per-game rows at 82-86 %
of the kernel at level 0). Which thread plays a block changes nothing else: every game draws from its own
streams and writes its own rows.

numba does not know that :func:`claim_next` writes the counter, so a read of the counter in the same
function may be moved or folded: read it only through :func:`claim_next`.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic


@intrinsic
def claim_next(typing_context, counter):
    """Atomically add one to ``counter[0]`` (an int64 array) and return the value it had: each call, from any
    thread, gets a number no other call gets, in increasing order from the counter's start."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, signature, arguments):
        array = context.make_array(signature.args[0])(context, builder, arguments[0])
        # monotonic: the claimed number is all that is shared; each block's rows are its own
        return builder.atomic_rmw("add", array.data, ir.Constant(ir.IntType(64), 1), "monotonic")

    return types.int64(counter), codegen
