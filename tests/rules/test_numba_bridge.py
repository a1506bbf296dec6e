"""The bridge the clause tests use to run the numba kernels on a reference state (tests/rules/numba_bridge.py).

A conversion that lost or garbled a fact would let a numba clause test pass or fail for the wrong
reason, so: a reference state survives the trip to the record and back unchanged, mid-game states of
every kind of seat included; and one whole round played by the numba kernels from such a state leaves
exactly the state the reference's round leaves.
"""

from __future__ import annotations

import copy

import pytest

from sim import reference as ref

from . import numba_bridge as nb
from .engines import NUMBA
from .helpers import new_game

SEATINGS = ["luna:2", "luna:8", "luna:0,luna:5", "scripted:passive,luna:4,luna:6",
            "scripted:balanced,scripted:shares,luna:3", "scripted:tank,scripted:random,luna:7,luna:1",
            "scripted:balanced@1.3,scripted:shares@0.7,luna:5"]  # fractional strengths: the carried fraction


def _mid_game(seats: str, rounds_played: int, seed: int = 5):
    rules, state, rngs = new_game(seats, seed=seed, game=rounds_played, start_bonus="random")
    for _ in range(rounds_played):
        ref.play_round(rules, state, rngs, None)
    return rules, state, rngs


@pytest.mark.parametrize("rounds_played", [0, 1, 3, 6])
@pytest.mark.parametrize("seats", SEATINGS)
def test_a_state_survives_the_round_trip(seats, rounds_played):
    rules, state, rngs = _mid_game(seats, rounds_played)
    copied, copied_rngs = copy.deepcopy(state), copy.deepcopy(rngs)
    nb.from_record(rules, nb.to_record(rules, state, rngs), copied, copied_rngs)
    assert copied == state
    assert [(s.state, s.draws) for s in copied_rngs] == [(s.state, s.draws) for s in rngs]


@pytest.mark.parametrize("rounds_played", [0, 2, 5])
@pytest.mark.parametrize("seats", SEATINGS)
def test_a_numba_round_from_a_converted_state_is_the_reference_round(seats, rounds_played):
    rules, state, rngs = _mid_game(seats, rounds_played, seed=9)
    numba_state, numba_rngs = copy.deepcopy(state), copy.deepcopy(rngs)
    reference_records = {seat: [] for seat in rules.config.luna_seats}
    numba_records = {seat: [] for seat in rules.config.luna_seats}
    ref.play_round(rules, state, rngs, reference_records)
    NUMBA.play_round(rules, numba_state, numba_rngs, numba_records)
    for holder, numba_holder in zip(state.seats, numba_state.seats, strict=True):
        # what the numba state does not keep (bridge docstring): the order of cards taken over several
        # turns, and a scripted seat's plans_taken
        assert sorted(numba_holder.cards) == sorted(holder.cards)
        numba_holder.cards = holder.cards
        if holder.player is not None:
            numba_holder.player.plans_taken = holder.player.plans_taken
    assert numba_state == state
    assert numba_records == reference_records
    assert [(s.state, s.draws) for s in numba_rngs] == [(s.state, s.draws) for s in rngs]


def test_a_fired_token_ahead_of_the_marker_is_refused():
    # the numba engine reads Luna's tokens from the level's table: a token fired at 9 with the marker put
    # back on 8 is a state it cannot hold, and the bridge says so rather than run a different position
    rules, state, _ = new_game("luna:4")  # helium tokens 9, 16
    luna = state.seats[0].luna
    luna.helium, luna.helium_tokens = 8, [16]
    with pytest.raises(nb.UnrepresentableError, match="tokens ahead of marker 8"):
        nb.to_record(rules, state)


def test_one_action_tables_leave_the_rules_tables_alone():
    rules, _, _ = new_game("luna:2")
    before = nb.tables_for(rules).copy()
    action = rules.cards[0].actions[0]
    tables, card = nb.one_action_tables(rules, action)
    assert card == len(rules.cards)
    assert nb.tables_for(rules).tobytes() == before.tobytes() and tables.tobytes() != before.tobytes()
