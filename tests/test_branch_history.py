"""``sim.fast.branch_history.mark_branch_history``: a jump per value that changes nothing but the path taken."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sim.constants import N_SLOTS
from sim.fast._jit import X86_64
from sim.fast.branch_history import TARGETS, card_mark, mark_branch_history
from sim.tables import MAX_CARDS


@numba.njit
def _marked_sums(values):
    """A value-dependent loop with a mark before each step: what it computes must not depend on the marks."""
    total = 0
    running = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        value = values[i]
        mark_branch_history(value)
        total = (total * 31 + value) % 1_000_003 if value % 3 else total - value
        running[i] = total
    return running


def _sums_in_python(values):
    total, running = 0, []
    for value in values.tolist():
        total = (total * 31 + value) % 1_000_003 if value % 3 else total - value
        running.append(total)
    return running


def test_marks_change_no_result_for_any_value():
    # every entry of the table, values past it and negative ones (they share an entry: a mask of the low bits)
    values = np.array([*range(TARGETS), TARGETS, TARGETS + 1, 3 * TARGETS - 1, -1, -TARGETS, 2**40 + 5], np.int64)
    rng = np.random.default_rng(9)
    values = np.concatenate([values, rng.integers(-1000, 1000, 10_000)])
    assert _marked_sums(values).tolist() == _sums_in_python(values)


@pytest.mark.skipif(not X86_64, reason="the mark compiles to a jump table on x86-64 only")
def test_the_mark_is_an_indirect_jump_through_its_own_table():
    assembly = next(iter(_marked_sums.inspect_asm().values()))
    assert "notrack jmp" in " ".join(assembly.split())
    assert assembly.count(".Lentry") >= TARGETS  # one entry per target, each a jump to the end


def test_every_card_in_every_slot_has_an_entry_of_its_own():
    """Luna's card loop marks the card in its slot: a mark that ignored the slot, or let two pairs share an
    entry of the table, would leave the predictor guessing which of the card's matrix cells come."""
    marks = {card_mark(card, slot) for card in range(MAX_CARDS) for slot in range(N_SLOTS)}
    assert len(marks) == MAX_CARDS * N_SLOTS
    assert min(marks) >= 0 and max(marks) < TARGETS and TARGETS & (TARGETS - 1) == 0
