"""The numba engine's in-kernel invariant checks (``sim/fast/invariants.py``): clean on real states, and each
check names exactly the seat and round of a state corrupted on purpose.

The corrupted states are the reference checker's (``test_invariants.py``), converted to a state record by
``numba_bridge``; what a reference state cannot express (owner masks, scratch rows) is corrupted on the
record itself.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim import reference as ref
from sim.invariants import check_invariants

from . import numba_bridge as nb
from .helpers import make_rules, new_game
from .test_invariants import (
    _action_card_lost,
    _add_outpost,
    _card_in_off_slot,
    _display_duplicate,
    _duplicate_card,
    _grade2_at_level_1,
    _grade2_counter,
    _helium_too_high,
    _lose_card,
    _marker_lost,
    _negative_cash,
    _negative_cash_scripted,
    _random_config,
    _remove_outpost,
    _research_negative,
    _scripted_helium,
    _scripted_marker_lost,
    _station_overfull,
    _track_past_end,
)

CLEAN = ("none", None, 3)


def named(prefix: str) -> str:
    """The one check name starting with ``prefix``."""
    (name,) = [name for name in nb.CHECK_NAMES if name.startswith(prefix)]
    return name


@pytest.fixture
def midgame():
    """A scripted seat and two Lunas (levels 1 and 4) after three rounds, clean for both checkers."""
    rules, state, rngs = new_game("scripted:balanced,luna:1,luna:4", seed=8, start_bonus="random")
    for _ in range(3):
        ref.play_round(rules, state, rngs, None)
    assert check_invariants(rules, state) == []
    assert nb.invariant_report(rules, nb.to_record(rules, state)) == CLEAN
    return rules, state


@pytest.mark.parametrize(("corrupt", "report"), [
    (_duplicate_card, ("Luna's cards conserved", 1)),
    (_lose_card, ("Luna's cards conserved", 2)),
    (_grade2_at_level_1, ("Luna's cards conserved", 1)),
    (_remove_outpost, ("outposts conserved", None)),
    (_add_outpost, ("outposts conserved", None)),
    (_station_overfull, ("station vacancies", None)),
    (_negative_cash, ("cash never negative", 2)),
    (_negative_cash_scripted, ("cash never negative", 0)),
    (_helium_too_high, ("helium marker", 1)),
    (_research_negative, ("research marker", 2)),
    (_track_past_end, ("company track markers", 1)),
    (_marker_lost, ("bonus markers conserved", 2)),
    (_display_duplicate, ("action cards conserved", None)),
    (_action_card_lost, ("action cards conserved", None)),
    (_card_in_off_slot, ("a card only in an ON slot", 1)),
    (_grade2_counter, ("grade-2 counters", 2)),
    (_scripted_marker_lost, ("bonus markers conserved", 0)),
    (_scripted_helium, ("helium marker", 0)),
])
def test_each_check_names_the_corrupted_seat_and_round(midgame, corrupt, report):
    rules, state = midgame
    corrupt(rules, state)
    assert nb.invariant_report(rules, nb.to_record(rules, state)) == (named(report[0]), report[1], 3)


def _grade1_in_stack(rules, r):
    # a grade-1 card moved from her deck onto her grade-2 stack: every card still lies once
    r["piles"][2, nb.STACK, r["pile_len"][2, nb.STACK]] = r["piles"][2, nb.DECK, r["pile_len"][2, nb.DECK] - 1]
    r["pile_len"][2, nb.STACK] += 1
    r["pile_len"][2, nb.DECK] -= 1


def _two_owners(rules, r):
    sector = int(np.flatnonzero(r["sector_owner"][1:] == 0)[0]) + 1
    r["owned"][1] |= np.uint64(1) << np.uint64(sector - 1)


def _outpost_off_the_board(rules, r):
    r["owned"][3] |= np.uint64(1) << np.uint64(40)


def _placer_without_outpost(rules, r):
    sector = int(np.flatnonzero(r["sector_owner"][1:] == -1)[0]) + 1
    r["placer"][sector] = 0


def _special_flipped_twice(rules, r):
    r["specials_flipped"] += 1


def _plan_deck_overdrawn(rules, r):
    r["plan_decks"][1] = -1


def _bonus_space_of_a_stranger(rules, r):
    r["scientist_owner"] = 3


def _luna_on_majority_space(rules, r):
    r["bonus_owner"][2] = 1
    r["markers"][1] -= 1


def _slot_first_round_ahead(rules, r):
    r["slot_first_round"][2, 2] = 5


@pytest.mark.parametrize(("corrupt", "report"), [
    (_grade1_in_stack, ("no grade-1 card", 2)),
    (_two_owners, ("no sector over capacity", None)),
    (_outpost_off_the_board, ("no sector over capacity", None)),
    (_placer_without_outpost, ("an outpost's placer", None)),
    (_special_flipped_twice, ("special plans", None)),
    (_plan_deck_overdrawn, ("research row decks", None)),
    (_bonus_space_of_a_stranger, ("a bonus space holds", None)),
    (_luna_on_majority_space, ("no Luna marker on a majority bonus space", 1)),
    (_slot_first_round_ahead, ("a slot's first round", 2)),
])
def test_record_only_corruptions_are_named_exactly(midgame, corrupt, report):
    rules, state = midgame
    rec = nb.to_record(rules, state)
    corrupt(rules, rec[0])
    assert nb.invariant_report(rules, rec) == (named(report[0]), report[1], 3)


def test_level_0_with_a_switched_slot_on():
    rules, state, _ = new_game("luna:0")
    state.seats[0].luna.slot_on[0] = True
    assert nb.invariant_report(rules, nb.to_record(rules, state)) == (named("slots A and E"), 0, 0)


def test_the_score_check_reads_the_final_rows(midgame):
    rules, state = midgame
    rec = nb.peek(rules, state, nb.FINAL_SCORES, 0)
    assert nb.invariant_report(rules, rec, final=True) == CLEAN
    rec[0]["result"][1, nb.SEAT_INT_COLUMNS.index("score_helium")] += 1
    assert nb.invariant_report(rules, rec, final=True) == (named("score total"), 1, 3)


def test_clean_after_setup_and_every_round_of_random_games():
    # the numba checks agree with the reference checker on real states: nothing is broken
    rng = random.Random(13)
    for game in range(40):
        seats, rounds, start_bonus = _random_config(rng, game)
        rules = make_rules(seats, rounds=rounds, start_bonus=start_bonus)
        state, rngs = ref.setup_game(rules, 13, game)
        assert nb.invariant_report(rules, nb.to_record(rules, state)) == ("none", None, 0)
        for rnd in range(1, rounds + 1):
            ref.play_round(rules, state, rngs, None)
            assert nb.invariant_report(rules, nb.to_record(rules, state)) == ("none", None, rnd)
