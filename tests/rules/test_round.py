"""The round procedure (SPEC 2, "Each of the 7 rounds"): planning a/b, action phase with the
end-of-actions shuffle and majority discard, preparation; plus a whole level-2 round traced by hand."""

from __future__ import annotations

import pytest

from sim import reference as ref
from sim.invariants import assert_invariants

from .helpers import ASTROGO, MINERVA, NO, SKYMINE, TAWAC, assign_sides, card, cards, clone, ids, new_game, set_board


def test_full_level2_round_hand_traced(engine):
    rules, state, rngs = new_game("luna:2", seed=11, game=0)
    luna, seat = state.seats[0].luna, state.seats[0]
    # ---- position before round 1 (overwritten after setup_game)
    # tracks: astrogo A1 (barrier after 3 costs 3; threshold after 5 pays 2), tawac B1, skymine C1,
    #         minerva D1 (threshold after 3 pays 2); Luna's markers astrogo 3, minerva 2, others 0
    # board:  astrogo 1, 2, 7 (station [3,0,0]: coins 0+1+1 = 2), tawac 6 ([1,0,0]: 0),
    #         skymine 13, 19 ([2,0,0]: 1), minerva 18 ([1,0,0]: 0)
    #         -> by value: astrogo 2, skymine 1, tawac 0 / minerva 0 (tie: 1 vacant each; B1 < D1)
    # Luna:   cash 1, helium 4, research 0, slots B C D ON
    # deck (top last): I-1 I-4 I-6 I-7 I-8 I-9 I-11 | I-5 I-12 I-2 I-10 I-3
    # display spaces 1-12: action cards #25-#36 (no shares); action deck top: #44
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_board(rules, state, {1: ASTROGO, 2: ASTROGO, 7: ASTROGO, 6: TAWAC, 13: SKYMINE, 19: SKYMINE, 18: MINERVA})
    assert state.station_vacant == [[3, 0, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0]]
    state.track_position[0] = [3, 0, 0, 2]
    seat.cash, luna.helium, luna.research = 1, 4, 0
    luna.deck = cards(rules, "I-1", "I-4", "I-6", "I-7", "I-8", "I-9", "I-11", "I-5", "I-12", "I-2", "I-10", "I-3")
    state.display = list(range(24, 36))
    state.action_deck = list(range(24)) + list(range(36, 44))
    stack_before = list(luna.grade2_stack)
    # the end-of-actions shuffle is the seat stream's first use after setup (no reshuffle this round):
    # Fisher-Yates over [I-3, I-10, I-2] (slot order) draws below(3) = 2 (no swap), below(2) = 0 (swap
    # the first two) -> [I-10, I-3, I-2], top card I-2. Checked against a copy of the stream:
    expected_shuffle = cards(rules, "I-3", "I-10", "I-2")
    clone(rngs[0]).shuffle(expected_shuffle)
    assert ids(rules, expected_shuffle) == ["I-10", "I-3", "I-2"]
    records = {0: []}

    engine.play_round(rules, state, rngs, records)

    # ---- planning a: B <- I-3, C <- I-10, D <- I-2 (A and E OFF)
    record = records[0][0]
    assert ids(rules, record.cards) == ["-", "I-3", "I-10", "I-2", "-"]
    assert record.deck_size_start == 12
    # ---- planning b: left <- I-12 (3/0, 1 scientist), right <- I-5 (3/3, 1 scientist)
    # reveals left then right: helium 4 -> 6 -> 8; reaching 8 switches slot A ON (used from round 2)
    assert record.majority_values == [3, 0, 3, 3, 2]
    assert luna.helium == 8 and luna.slot_on == [True, True, True, True, False]
    assert luna.slot_first_round == [0, 1, 1, 1, 0] and luna.cards_played == [0, 1, 1, 1, 0]
    # ---- action phase
    # B, I-3: +2 coin (cash 3); most valuable = astrogo, 3 -> 4 pays the barrier 3 (cash 0), 4 -> 5;
    #         bonus marker on the space lettered B (row 2, column 4): reserve 4
    # C, I-10: +3 coin (cash 3); least valuable = minerva (value 0, ties tawac on vacancies, D1 > B1),
    #         2 -> 3, 3 -> 4 passes the threshold after 3 (+2, cash 5), 4 -> 5;
    #         expand minerva 3 MAX: reachable from its station (18, 24) and sector 18 (11 12 17 23 24):
    #         vacant max 24; then 23 (24 adds nothing new); then 22 (23 adds 17 22); station [4,0,0]
    # D, I-2: values now minerva 3 (0+1+1+1), astrogo 2, skymine 1, tawac 0; second = astrogo,
    #         5 -> 6 passes the threshold after 5 (+2, cash 7), 6 -> 7; gain the card on the space
    #         lettered D: space 12 = action card #36 (index 35)
    assert state.track_position[0] == [7, 0, 0, 5]
    assert [s for s in (22, 23, 24) if state.sector_owner[s] == MINERVA] == [22, 23, 24]
    assert state.station_vacant[MINERVA] == [4, 0, 0]
    assert luna.outposts_placed == 3 and luna.ousted == 0
    assert seat.cash == 7 and record.cash == 7
    assert seat.cards == [35]
    assert luna.bonus_markers_placed == 1
    # ---- end of actions: [I-10, I-3, I-2] face up on the discard pile, top I-2 (4 > 0): the LEFT
    # majority card I-12 goes to the discard pile at once; preparation then adds the right one, I-5.
    # ---- preparation: marker home, display space 12 refilled from the deck top (#44, index 43),
    # first special plan face up. Deck and grade-2 stack untouched (no reshuffle, no tokens at level 2).
    assert ids(rules, luna.discard) == ["I-10", "I-3", "I-2", "I-12", "I-5"]
    assert luna.majority == [NO, NO] and luna.slots == [NO] * 5
    assert ids(rules, luna.deck) == ["I-1", "I-4", "I-6", "I-7", "I-8", "I-9", "I-11"]
    assert luna.grade2_stack == stack_before and luna.reshuffles == 0
    assert luna.markers_in_reserve == 5 and all(o == ref.NOBODY for row in state.bonus_space_owner for o in row)
    assert state.display == [*range(24, 35), 43] and state.action_deck == list(range(24)) + list(range(36, 43))
    assert state.special_plans == [1, 0, 0, 0, 0, 0] and state.specials_flipped == 1
    assert luna.passed and state.round == 1


def test_end_of_actions_right_card_when_top_is_right_larger(engine):
    # Same round as above with seed 13: the stream shuffles [I-3, I-10, I-2] to [I-3, I-2, I-10]; top
    # card I-10 (0 < 4) sends the RIGHT majority card (I-5) to the discard pile during the action
    # phase, and preparation adds the left one (I-12) after it.
    rules, state, rngs = new_game("luna:2", seed=13, game=0)
    luna = state.seats[0].luna
    luna.deck = cards(rules, "I-1", "I-4", "I-6", "I-7", "I-8", "I-9", "I-11", "I-5", "I-12", "I-2", "I-10", "I-3")
    expected = cards(rules, "I-3", "I-10", "I-2")
    clone(rngs[0]).shuffle(expected)
    assert ids(rules, expected) == ["I-3", "I-2", "I-10"]
    engine.plan_luna(rules, state, 0, rngs[0])
    for _ in range(3):
        engine.luna_turn(rules, state, 0, rngs[0])
    assert ids(rules, luna.discard) == ["I-3", "I-2", "I-10", "I-5"]
    assert ids(rules, luna.majority) == ["I-12", "-"]
    engine.preparation(rules, state)
    assert ids(rules, luna.discard) == ["I-3", "I-2", "I-10", "I-5", "I-12"]


def _one_slot_luna(majority_left: str, majority_right: str, played: str):
    """Luna with only slot B ON: the shuffle of one card is that card, so the top card is known."""
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    luna.slot_on = [False, True, False, False, False]
    rest = [c for c in luna.deck if rules.cards[c].id not in (majority_left, majority_right, played)]
    luna.deck = rest + cards(rules, majority_right, majority_left, played)
    return rules, state, rngs, luna


def test_majority_discard_left_larger(engine):
    # slot B: I-3 (majority 3 / 0): left larger -> the LEFT majority card (I-4) goes now
    rules, state, rngs, luna = _one_slot_luna("I-4", "I-8", "I-3")
    engine.plan_luna(rules, state, 0, rngs[0])
    engine.luna_turn(rules, state, 0, rngs[0])
    assert luna.passed
    assert ids(rules, luna.discard) == ["I-3", "I-4"] and ids(rules, luna.majority) == ["-", "I-8"]


def test_majority_discard_right_larger(engine):
    # slot B: I-7 (majority 0 / 4): right larger -> the RIGHT majority card (I-8) goes now
    rules, state, rngs, luna = _one_slot_luna("I-4", "I-8", "I-7")
    engine.plan_luna(rules, state, 0, rngs[0])
    engine.luna_turn(rules, state, 0, rngs[0])
    assert ids(rules, luna.discard) == ["I-7", "I-8"] and ids(rules, luna.majority) == ["I-4", "-"]


def test_majority_discard_equal_keeps_both(engine):
    # slot B: I-5 (majority 3 / 3): equal -> both stay until preparation (left then right)
    rules, state, rngs, luna = _one_slot_luna("I-4", "I-8", "I-5")
    engine.plan_luna(rules, state, 0, rngs[0])
    engine.luna_turn(rules, state, 0, rngs[0])
    assert ids(rules, luna.discard) == ["I-5"] and ids(rules, luna.majority) == ["I-4", "I-8"]
    engine.preparation(rules, state)
    assert ids(rules, luna.discard) == ["I-5", "I-4", "I-8"]


def test_majority_discard_three_cards_same_sign_any_shuffle(engine):
    # B C D hold I-2 (4/0), I-3 (3/0), I-12 (3/0): whatever the shuffle, the top card has left > right.
    rules, state, rngs = new_game("luna:2", seed=5)
    luna = state.seats[0].luna
    luna.slots = [NO, *cards(rules, "I-2", "I-3", "I-12"), NO]
    luna.majority = cards(rules, "I-4", "I-8")
    luna.deck = [c for c in rules.grade1 if c not in luna.slots + luna.majority]
    engine.end_luna_actions(rules, state, 0, rngs[0])
    assert sorted(ids(rules, luna.discard[:3])) == ["I-12", "I-2", "I-3"]
    assert ids(rules, luna.discard[3:]) == ["I-4"] and ids(rules, luna.majority) == ["-", "I-8"]
    assert luna.slots == [NO] * 5 and luna.passed
    assert_invariants(rules, state)


@pytest.mark.parametrize("discard", [[], ["I-2"]])
def test_no_slot_card_at_the_end_of_her_actions_decides_no_early_discard(discard, engine):
    # Shipped readings. Every slot empty when her actions end (never so with the shipped board, whose B C D start ON
    # and always get a card; an overlay may start every slot OFF, initial_slots = [], at a level without switches),
    # majority I-4 (0/3) and I-8 (3/3), and on the discard pile nothing or I-2 (4/0). No slot card goes onto the
    # pile, so no new top card decides: both majority cards stay until preparation. (The old top card I-2
    # deciding would send I-4 now: with the default readings' own end of actions in the numba engine, that
    # change passed every test: a mutation pass.)
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    luna.slots = [NO] * 5
    luna.majority = cards(rules, "I-4", "I-8")
    luna.discard = cards(rules, *discard)
    luna.deck = [c for c in rules.grade1 if c not in luna.majority + luna.discard]
    engine.end_luna_actions(rules, state, 0, rngs[0])
    assert ids(rules, luna.majority) == ["I-4", "I-8"] and ids(rules, luna.discard) == discard
    assert luna.slots == [NO] * 5 and luna.passed
    assert_invariants(rules, state)


def test_the_deciding_side_with_no_majority_card_sends_nothing(engine):
    # Shipped readings. Slot B: I-2 (4/0), so the left side decides; but her left majority slot holds no card (a
    # deck too small to fill it: an overlay may give her as few as one grade-1 card), the right one I-8. Only I-2
    # goes onto the pile; I-8 stays. (Discarding whatever the deciding side holds, "no card" included, passed
    # every test: a mutation pass on sim/fast.)
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    luna.slots = [NO, card(rules, "I-2"), NO, NO, NO]
    luna.majority = [NO, card(rules, "I-8")]
    luna.discard = []
    luna.deck = [c for c in rules.grade1 if c not in luna.slots + luna.majority]
    engine.end_luna_actions(rules, state, 0, rngs[0])
    assert ids(rules, luna.discard) == ["I-2"] and ids(rules, luna.majority) == ["-", "I-8"]
    assert luna.slots == [NO] * 5 and luna.passed
    assert_invariants(rules, state)


def test_planning_a_fills_every_on_slot_left_to_right_then_majority(engine):
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    luna.slot_on = [True] * 5
    # deck top last: A <- I-1, B <- I-2, C <- I-3, D <- I-6, E <- I-7, left <- I-9, right <- I-10
    luna.deck = cards(rules, "I-4", "I-5", "I-8", "I-11", "I-12", "I-10", "I-9", "I-7", "I-6", "I-3", "I-2", "I-1")
    state.round = 1
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots) == ["I-1", "I-2", "I-3", "I-6", "I-7"]
    assert ids(rules, luna.majority) == ["I-9", "I-10"]
    assert ids(rules, luna.deck) == ["I-4", "I-5", "I-8", "I-11", "I-12"]
    # only OFF slots stay empty
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    luna.deck = cards(rules, "I-4", "I-5", "I-8", "I-11", "I-12", "I-10", "I-9", "I-7", "I-6", "I-3", "I-2", "I-1")
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots) == ["-", "I-1", "I-2", "I-3", "-"]
    assert ids(rules, luna.majority) == ["I-6", "I-7"]


def test_planning_b_reveals_left_then_right_and_values(engine):
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    # deck (top last): B <- I-1, left <- II-4 (reveal research +1; majority 4/6, 1 scientist),
    # right <- II-6 (reveal helium +2; majority 6/4, 2 scientists); the two grade-2 cards come off the stack
    g2 = cards(rules, "II-4", "II-6")
    luna.grade2_stack = [c for c in luna.grade2_stack if c not in g2]
    luna.deck = [c for c in rules.grade1 if c != card(rules, "I-1")] + [g2[1], g2[0], card(rules, "I-1")]
    luna.grade2_by_token = 2  # counted as if tokens had put them there, so the counters stay consistent
    luna.slot_on = [False, True, False, False, False]
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.majority) == ["II-4", "II-6"]
    assert (luna.helium, luna.research) == (2, 1)
    # titanium, carbon = left card's left/right; energy, minerals = right card's; scientists summed
    assert ref.majority_values(rules, luna) == [4, 6, 6, 4, 3]
    assert_invariants(rules, state)


def test_majority_cards_are_drawn_before_the_reveals(engine):
    # Level 4 has a helium token at 9. Helium 7; left majority card I-4 reveals helium +2 -> 9 fires the
    # token: a grade-2 card goes on TOP of the deck -- after both majority cards were drawn, so the
    # right majority card is the deck's next grade-1 card (I-8), not the grade-2 card.
    rules, state, rngs = new_game("luna:4")
    luna = state.seats[0].luna
    luna.helium = 7
    luna.slot_on = [False, True, False, False, False]
    luna.deck = cards(rules, "I-1", "I-2", "I-3", "I-5", "I-6", "I-7", "I-9", "I-10", "I-11", "I-8", "I-4", "I-12")
    fired = luna.grade2_stack[-1]
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots) == ["-", "I-12", "-", "-", "-"]
    assert ids(rules, luna.majority) == ["I-4", "I-8"]
    # I-4 reveals helium +2 (7 -> 9: token), I-8 another +2 (9 -> 11)
    assert luna.helium == 11 and luna.helium_tokens == [16]
    assert luna.deck[-1] == fired and luna.grade2_by_token == 1


def test_two_lunas_take_turns_alternately_in_seat_order(engine):
    # Two Lunas, slots B and C each. Seat 0: B = I-3, C = I-2 (from C takes display space 9).
    # Seat 1: B = I-12 (from B takes spaces 3 and 9). Turn order: seat 0 B, seat 1 B, seat 0 C, seat 1 C,
    # so seat 1 takes space 9 before seat 0's C card looks at it (empty -> nothing).
    rules, state, rngs = new_game("luna:2,luna:2")
    for holder in state.seats:
        holder.luna.slot_on = [False, True, True, False, False]
    first, second = state.seats[0].luna, state.seats[1].luna
    first.deck = cards(rules, "I-1", "I-4", "I-5", "I-6", "I-7", "I-9", "I-10", "I-11", "I-12", "I-8", "I-2", "I-3")
    second.deck = cards(rules, "I-1", "I-2", "I-3", "I-4", "I-6", "I-7", "I-9", "I-10", "I-11", "I-8", "I-5", "I-12")
    state.display = list(range(24, 36))  # no shares: only the lettered spaces are taken
    state.action_deck = list(range(24)) + list(range(36, 44))
    engine.play_round(rules, state, rngs, None)
    # seat 0 B I-3 (no cards); seat 1 B I-12: spaces 3 (#27, index 26) and 9 (#33, index 32);
    # seat 0 C I-2: space 9 is empty now -> nothing; seat 1 C I-5 (no cards)
    assert state.seats[0].cards == []
    assert state.seats[1].cards == [26, 32]


def test_preparation_returns_markers_discards_majority_refills_and_flips(engine):
    rules, state, _ = new_game("scripted:passive,luna:2,luna:3")
    a, b = state.seats[1].luna, state.seats[2].luna
    # Luna 1 has markers on two spaces, Luna 2 on one; majority cards left over on both boards
    state.bonus_space_owner[1][2] = 1
    state.bonus_space_owner[2][0] = 1
    state.bonus_space_owner[2][3] = 2
    a.markers_in_reserve, b.markers_in_reserve = 3, 4
    a.majority = [a.deck.pop(), a.deck.pop()]
    b.majority = [NO, b.deck.pop()]
    left, right, only = a.majority[0], a.majority[1], b.majority[1]
    taken = state.display[4]
    state.display[4] = NO
    state.seats[0].cards.append(taken)
    top = state.action_deck[-1]
    engine.preparation(rules, state)
    assert a.markers_in_reserve == 5 and b.markers_in_reserve == 5
    assert all(o == ref.NOBODY for row in state.bonus_space_owner for o in row)
    assert a.discard == [left, right] and b.discard == [only]
    assert a.majority == [NO, NO] and b.majority == [NO, NO]
    assert state.display[4] == top
    assert state.special_plans[:2] == [1, 0] and state.specials_flipped == 1
    assert_invariants(rules, state)


def test_no_preparation_after_the_last_round(engine):
    rules, state, rngs = new_game("luna:2")
    state.round = 6  # the next round is round 7, the last one
    luna = state.seats[0].luna
    luna.slot_on = [False, True, False, False, False]
    # slot B: I-5 places a bonus marker (space lettered B: row 3, column 2) and, being 3/3 on top of
    # the discard pile, leaves both majority cards (I-4, I-8) in place
    luna.deck = cards(rules, "I-1", "I-2", "I-3", "I-6", "I-7", "I-9", "I-10", "I-11", "I-12", "I-8", "I-4", "I-5")
    engine.play_round(rules, state, rngs, None)
    assert state.round == 7
    assert ids(rules, luna.majority) == ["I-4", "I-8"]  # not discarded: no preparation
    assert state.bonus_space_owner[2][1] == 0 and luna.markers_in_reserve == 4
    assert state.specials_flipped == 0
