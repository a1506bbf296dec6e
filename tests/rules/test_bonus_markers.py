"""place_bonus_marker (SPEC 2): one marker on the space lettered with the slot; nothing if that space
is occupied by anyone; free; markers return in preparation (see test_round)."""

from __future__ import annotations

import pytest

from sim import reference as ref
from sim.invariants import assert_invariants

from .helpers import card, new_game, slot

NOBODY = ref.NOBODY


def _place(engine, rules, state, seat, card_id, letter):
    action = next(a for a in rules.cards[card(rules, card_id)].actions if a.type == "place_bonus_marker")
    engine.place_bonus_marker(rules, state, seat, action, slot(letter))


@pytest.mark.parametrize(("letter", "space"), [("A", (1, 2)), ("B", (1, 3)), ("C", (2, 1)), ("D", (2, 2)),
                                                ("E", (2, 3))])
def test_marker_goes_on_the_space_lettered_with_the_slot(letter, space, engine):
    # I-3's bonus matrix: [["", "", "", ""], ["", "", "A", "B"], ["", "C", "D", "E"]]
    rules, state, _ = new_game("luna:2")
    _place(engine, rules, state, 0, "I-3", letter)
    owners = [(r, c) for r in range(3) for c in range(4) if state.bonus_space_owner[r][c] != NOBODY]
    assert owners == [space] and state.bonus_space_owner[space[0]][space[1]] == 0
    luna = state.seats[0].luna
    assert (luna.markers_in_reserve, luna.bonus_markers_placed, state.seats[0].cash) == (4, 1, 1)
    assert_invariants(rules, state)


def test_occupied_by_another_luna_means_not_placed(engine):
    rules, state, _ = new_game("luna:2,luna:4")
    _place(engine, rules, state, 0, "I-3", "B")  # seat 0 on (1, 3)
    _place(engine, rules, state, 1, "I-3", "B")
    assert state.bonus_space_owner[1][3] == 0
    luna = state.seats[1].luna
    assert (luna.markers_in_reserve, luna.bonus_markers_placed) == (5, 0)


def test_occupied_by_a_scripted_player_means_not_placed(engine):
    rules, state, _ = new_game("scripted:passive,luna:2")
    state.bonus_space_owner[2][1] = 0  # the scripted seat's marker
    state.seats[0].player.markers_in_reserve -= 1
    _place(engine, rules, state, 1, "I-3", "C")
    assert state.bonus_space_owner[2][1] == 0 and state.seats[1].luna.markers_in_reserve == 5


def test_occupied_by_herself_means_not_placed(engine):
    # I-3 from B and I-4 from E both designate row 2, column 4
    rules, state, _ = new_game("luna:2")
    _place(engine, rules, state, 0, "I-3", "B")
    _place(engine, rules, state, 0, "I-4", "E")
    luna = state.seats[0].luna
    assert (luna.markers_in_reserve, luna.bonus_markers_placed) == (4, 1)


def test_markers_block_and_return_over_a_round(engine):
    # a whole round with I-3 (B), I-4 (C), I-8 (D): spaces (1,3), (2,1), (2,0) -> 3 markers out during
    # the action phase, all back in reserve after preparation
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    order = [card(rules, c) for c in ("I-3", "I-4", "I-8", "I-1", "I-2")]
    luna.deck = [c for c in luna.deck if c not in order] + order[::-1]
    engine.plan_luna(rules, state, 0, rngs[0])
    for _ in range(3):
        engine.luna_turn(rules, state, 0, rngs[0])
    placed = sorted((r, c) for r in range(3) for c in range(4) if state.bonus_space_owner[r][c] == 0)
    assert placed == [(1, 3), (2, 0), (2, 1)] and luna.markers_in_reserve == 2
    engine.preparation(rules, state)
    assert luna.markers_in_reserve == 5 and luna.bonus_markers_placed == 3
    assert all(owner == NOBODY for row in state.bonus_space_owner for owner in row)


def test_her_last_marker_is_placed(engine):
    rules, state, _ = new_game("luna:2")
    luna = state.seats[0].luna
    luna.markers_in_reserve = 1
    _place(engine, rules, state, 0, "I-3", "B")
    assert state.bonus_space_owner[1][3] == 0
    assert (luna.markers_in_reserve, luna.bonus_markers_placed) == (0, 1)


def test_with_no_marker_in_reserve_nothing_is_placed(engine):
    rules, state, _ = new_game("luna:2")
    luna = state.seats[0].luna
    luna.markers_in_reserve = 0
    _place(engine, rules, state, 0, "I-3", "B")
    assert state.bonus_space_owner[1][3] == NOBODY
    assert (luna.markers_in_reserve, luna.bonus_markers_placed) == (0, 0)
