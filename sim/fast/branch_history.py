"""A value written into the processor's branch history: one indirect jump with a target per value.

Why. Each of Luna's cards runs its opcode rows through one dispatch (``luna.card_ops_inline``: a jump table
on the opcode), and which handler comes next, how many companies a row chooses, how many steps it takes,
which display spaces, plans and bonus spaces its matrices pick, is the card's and its slot's: known the moment
both are, but not to the branch predictor, which sees only the path of branches taken so far. After a jump
whose target is the card's own in that slot (:func:`card_mark`), that path names both, and the predictor learns
each card's sequence as played from each slot: :func:`mark_branch_history` is that jump. It costs one jump the
predictor mostly misses (the card is the game's chance) against several it then gets right. Marking the card
alone took 4-7 % off a game at levels 0-8 on an AMD EPYC host (1 thread, 200,000 games, three times alternating
with the code before) and made no difference on the Intel Xeon host of later rounds; marking the card in its slot
took a further 5-10 % off there (levels 0, 4 and 8, 1 and 2 threads, three alternations of a process each, issue
9). Marking other values was slower (a majority card before its reveal, the decider of her early discard, the
chosen company before its track steps): there a mark costs more misses than it saves.

What. Inline assembly: a table of ``TARGETS`` relative offsets, an indirect jump to entry ``value mod
TARGETS``, and at each entry a jump to the end. It reads only ``value`` and two scratch registers and
writes no memory, so it changes no result; a value of ``TARGETS`` or more shares an entry with another, which
only costs prediction. On a processor other than x86-64 it compiles to nothing.
"""

from __future__ import annotations

import llvmlite.binding
from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

from sim.constants import N_SLOTS
from sim.fast._jit import X86_64, jit
from sim.tables import MAX_CARDS

TARGETS = MAX_CARDS * (1 << (N_SLOTS - 1).bit_length())  # an entry per card and slot, a power of two
if MAX_CARDS & (MAX_CARDS - 1):
    raise ImportError("sim/tables.py: MAX_CARDS must be a power of two for the branch-history mark")


@jit(inline="always")
def card_mark(card, slot):
    """The mark of ``card`` played from ``slot``: a different table entry for every card in every slot."""
    return slot * MAX_CARDS + card


def _assembly(targets: int) -> str:
    """The jump table (AT&T syntax; ``${:uid}`` makes each inlined copy's labels its own)."""
    lines = [
        "leaq .Ltable${:uid}(%rip), %r11",
        "movslq (%r11,$0,4), %r10",
        "addq %r11, %r10",
        "notrack jmp *%r10",  # notrack: a jump-table jump, as LLVM's own, where indirect-branch tracking is on
        ".p2align 2",
        ".Ltable${:uid}:",
        *(f".long .Lentry${{:uid}}_{k} - .Ltable${{:uid}}" for k in range(targets)),
    ]
    for k in range(targets):
        lines += [f".Lentry${{:uid}}_{k}:", "jmp .Lend${:uid}"]
    lines.append(".Lend${:uid}:")
    return "\n".join(lines)


if X86_64:
    llvmlite.binding.initialize_native_asmparser()  # LLVM assembles inline assembly only once this is done
    _ASSEMBLY = _assembly(TARGETS)


@intrinsic
def mark_branch_history(typing_context, value):
    """Jump to the entry of ``value`` (an integer) and on: the branch predictor's path then names it."""
    if not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, signature, arguments):
        if X86_64:
            index = context.cast(builder, arguments[0], signature.args[0], types.int64)
            index = builder.and_(index, ir.Constant(ir.IntType(64), TARGETS - 1))
            jump = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [ir.IntType(64)]), _ASSEMBLY,
                                "r,~{r10},~{r11},~{flags}", side_effect=True)
            builder.call(jump, [index])
        return context.get_dummy_value()

    return types.void(value), codegen
