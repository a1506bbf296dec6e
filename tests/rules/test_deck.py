"""Luna's deck (SPEC 2, setup and planning a): drawing, the reshuffle with one grade-2 card at
levels >= 2 (none at levels 0-1), and the reshuffle counters."""

from __future__ import annotations

import pytest

from sim.invariants import assert_invariants

from .helpers import NO, card, cards, clone, ids, new_game


def test_draw_takes_the_top_card(engine):
    rules, state, rngs = new_game("luna:2")
    luna = state.seats[0].luna
    top, below = luna.deck[-1], luna.deck[-2]
    assert engine.draw_luna_card(rules, state, 0, rngs[0]) == top
    assert luna.deck[-1] == below and len(luna.deck) == 11 and luna.reshuffles == 0


def test_reshuffle_adds_one_grade2_card_at_level_2(engine):
    # Deck empty, all 12 grade-1 cards on the discard pile, 7 grade-2 cards in the stack.
    # Drawing rebuilds the deck: discard pile (bottom to top) + the stack's top card, one shuffle of the
    # seat stream, then the top card is drawn. The expected order comes from a copy of the stream.
    rules, state, rngs = new_game("luna:2", seed=3)
    luna = state.seats[0].luna
    luna.discard, luna.deck = luna.deck, []
    added = luna.grade2_stack[-1]
    expected = [*luna.discard, added]
    clone(rngs[0]).shuffle(expected)
    drawn = engine.draw_luna_card(rules, state, 0, rngs[0])
    assert drawn == expected[-1] and luna.deck == expected[:-1]
    assert added in [*luna.deck, drawn] and len(luna.deck) == 12
    assert luna.discard == [] and len(luna.grade2_stack) == 6
    assert (luna.reshuffles, luna.grade2_by_reshuffle, luna.grade2_by_token) == (1, 1, 0)
    luna.slots[1] = drawn
    assert_invariants(rules, state)


@pytest.mark.parametrize("level", [0, 1])
def test_reshuffle_adds_nothing_at_levels_0_and_1(level, engine):
    rules, state, rngs = new_game(f"luna:{level}", seed=3)
    luna = state.seats[0].luna
    assert luna.grade2_stack == []
    luna.discard, luna.deck = luna.deck, []
    expected = list(luna.discard)
    clone(rngs[0]).shuffle(expected)
    drawn = engine.draw_luna_card(rules, state, 0, rngs[0])
    assert [*luna.deck, drawn] == expected and len(luna.deck) == 11
    assert all(rules.cards[c].grade == 1 for c in luna.deck)
    assert (luna.reshuffles, luna.grade2_by_reshuffle) == (1, 0)


def test_reshuffle_with_an_empty_grade2_stack_adds_nothing(engine):
    # Level 5 after all 7 grade-2 cards entered (by tokens, say): the reshuffle is the discard pile alone.
    rules, state, rngs = new_game("luna:5", seed=3)
    luna = state.seats[0].luna
    luna.discard, luna.deck = luna.deck + luna.grade2_stack, []
    luna.grade2_stack, luna.grade2_by_token = [], 7
    drawn = engine.draw_luna_card(rules, state, 0, rngs[0])
    assert len(luna.deck) == 18 and drawn != NO
    assert (luna.reshuffles, luna.grade2_by_reshuffle, luna.grade2_by_token) == (1, 0, 7)


def test_reshuffle_happens_in_the_middle_of_planning_a(engine):
    # Deck: 2 cards (B, C); the other 10 grade-1 cards on the discard pile. Slot D's draw meets the
    # empty deck: discard + 1 grade-2 card are shuffled (11 cards); D and the majority slots draw from it.
    rules, state, rngs = new_game("luna:2", seed=8)
    luna = state.seats[0].luna
    luna.deck = cards(rules, "I-7", "I-3")
    luna.discard = [c for c in rules.grade1 if c not in luna.deck]
    added = luna.grade2_stack[-1]
    rebuilt = [*luna.discard, added]
    clone(rngs[0]).shuffle(rebuilt)
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots[1:3]) == ["I-3", "I-7"]
    assert luna.slots[3] == rebuilt[-1] and luna.majority == [rebuilt[-2], rebuilt[-3]]
    assert luna.deck == rebuilt[:-3] and luna.discard == []
    assert (luna.reshuffles, luna.grade2_by_reshuffle) == (1, 1)


def test_reshuffle_happens_between_the_two_majority_draws(engine):
    # "Whenever my Luna deck runs out" holds for the majority cards too. Deck (top last): B <- I-2,
    # C <- I-3, D <- I-6, left majority <- I-7 (no reveal); the other 8 grade-1 cards on the discard
    # pile. The right majority card meets the empty deck: discard + 1 grade-2 card are shuffled (9
    # cards) and the right slot takes the new top card. (Only the immediate-rebuild reading's test
    # covered a rebuild in planning b before.)
    rules, state, rngs = new_game("luna:2", seed=8)
    luna = state.seats[0].luna
    luna.deck = cards(rules, "I-7", "I-6", "I-3", "I-2")
    luna.discard = [c for c in rules.grade1 if c not in luna.deck]
    rebuilt = [*luna.discard, luna.grade2_stack[-1]]
    clone(rngs[0]).shuffle(rebuilt)
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots) == ["-", "I-2", "I-3", "I-6", "-"]
    assert luna.majority == [card(rules, "I-7"), rebuilt[-1]]
    assert luna.deck == rebuilt[:-1] and luna.discard == []
    assert (luna.reshuffles, luna.grade2_by_reshuffle, len(luna.grade2_stack)) == (1, 1, 6)


def test_no_reshuffle_until_a_card_must_be_drawn_and_round_counters(engine):
    # Round 1 draws exactly the 5 cards of the deck (B, C, D, left, right): the deck is empty afterwards
    # but is not rebuilt. Round 2's first draw rebuilds it from the 12 discarded cards + 1 grade-2 card.
    rules, state, rngs = new_game("luna:2", seed=4)
    luna = state.seats[0].luna
    luna.deck = cards(rules, "I-7", "I-6", "I-3", "I-2", "I-1")  # no reveals, no helium/research
    luna.discard = [c for c in rules.grade1 if c not in luna.deck]
    records = {0: []}
    engine.play_round(rules, state, rngs, records)
    assert luna.deck == [] and luna.reshuffles == 0 and len(luna.discard) == 12
    assert (records[0][0].deck_size_start, records[0][0].reshuffles) == (5, 0)
    engine.play_round(rules, state, rngs, records)
    second = records[0][1]
    assert (second.deck_size_start, second.reshuffles, second.grade2_by_reshuffle, second.grade2_by_token) == \
        (0, 1, 1, 0)
    assert luna.reshuffles == 1 and luna.grade2_by_reshuffle == 1 and len(luna.grade2_stack) == 6
    assert len(luna.deck) == 13 - 5  # slots A and E are still OFF: B C D + 2 majority cards


@pytest.mark.parametrize("level", [0, 1, 2, 5, 8])
def test_reshuffle_counters_over_a_game(level, engine):
    rules, state, rngs = new_game(f"luna:{level}", seed=21, game=level, start_bonus="random")
    records = {0: []}
    for _ in range(7):
        engine.play_round(rules, state, rngs, records)
    luna = state.seats[0].luna
    # 7 rounds draw at least 35 cards from a deck of 12: at least two reshuffles
    assert luna.reshuffles >= 2
    assert luna.reshuffles == sum(r.reshuffles for r in records[0])
    assert luna.grade2_by_reshuffle == sum(r.grade2_by_reshuffle for r in records[0])
    assert luna.grade2_by_token == sum(r.grade2_by_token for r in records[0])
    if level < 2:
        assert luna.grade2_by_reshuffle == luna.grade2_by_token == 0
    elif luna.grade2_stack:
        # the stack never ran out: every reshuffle added exactly one grade-2 card
        assert luna.grade2_by_reshuffle == luna.reshuffles
    assert all(r.grade2_by_reshuffle <= r.reshuffles for r in records[0])


def test_reshuffle_of_an_empty_discard_pile_is_the_grade2_card_alone(engine):
    # Level 2, deck and discard pile empty, 7 grade-2 cards in the stack (a state the shipped 12-card deck
    # never reaches; the rebuild clause still defines it): the deck is rebuilt from the stack's top card
    # alone, which is drawn.
    rules, state, rngs = new_game("luna:2", seed=3)
    luna = state.seats[0].luna
    luna.deck, luna.discard = [], []
    added = luna.grade2_stack[-1]
    assert engine.draw_luna_card(rules, state, 0, rngs[0]) == added
    assert (luna.deck, luna.discard, len(luna.grade2_stack)) == ([], [], 6)
    assert (luna.reshuffles, luna.grade2_by_reshuffle) == (1, 1)


def test_nothing_to_rebuild_from_draws_nothing_and_counts_no_reshuffle(engine):
    # Level 1 (no grade-2 stack), deck and discard pile both empty: no card, and no reshuffle counted.
    rules, state, rngs = new_game("luna:1", seed=3)
    luna = state.seats[0].luna
    luna.deck, luna.discard = [], []
    assert engine.draw_luna_card(rules, state, 0, rngs[0]) == NO
    assert (luna.deck, luna.reshuffles, luna.grade2_by_reshuffle) == ([], 0, 0)


def test_a_slot_that_draws_no_card_is_not_noted_as_first_used(engine):
    # Level 1 (no grade-2 stack), round 2, slots A B C D ON, no slot used yet; deck and discard pile both empty
    # (the shipped 12 cards never run out: an overlay's small deck): planning puts no card in any slot, so no
    # slot notes round 2 as its first in use (slot_first_round stays 0, "never", the seat rows' slot_a_first_round).
    # (Noting it for an empty draw passed every test: a mutation pass on sim/fast.)
    rules, state, rngs = new_game("luna:1", seed=3)
    luna = state.seats[0].luna
    luna.deck, luna.discard = [], []
    luna.slot_on[0] = True
    state.round = 2
    engine.plan_luna(rules, state, 0, rngs[0])
    assert luna.slots == [NO] * 5 and luna.majority == [NO, NO]
    assert luna.slot_first_round == [0] * 5
