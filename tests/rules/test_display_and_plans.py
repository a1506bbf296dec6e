"""gain_card (match_slot, most_valuable_share) and discard_research_plan (match_slot, latest_special),
SPEC 2 card actions and SPEC 4.4-4.5.

Action cards by index (id = index + 1): indices 0-23 show an extra share, company = index % 4
(0 astrogo, 1 tawac, 2 skymine, 3 minerva); indices 24-43 show none. Display space n is index n - 1.
"""

from __future__ import annotations

import pytest

from sim.invariants import assert_invariants

from .helpers import NO, assign_sides, card, new_game, set_values, slot

# ---------------------------------------------------------------- gain_card


def _display_game(display):
    rules, state, _ = new_game("luna:2")
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    state.display = list(display)
    shown = {c for c in display if c != NO}
    state.action_deck = [c for c in range(44) if c not in shown]
    return rules, state


def _gain(engine, rules, state, card_id, action_index, letter):
    engine.gain_card(rules, state, 0, rules.cards[card(rules, card_id)].actions[action_index], slot(letter))


NO_SHARES = list(range(24, 36))  # display spaces 1-12 hold #25-#36


@pytest.mark.parametrize(("letter", "spaces"), [("A", [3, 6]), ("B", [3, 9]), ("C", [3, 12]),
                                                ("D", [3, 5]), ("E", [3, 8])])
def test_match_slot_takes_the_lettered_spaces(letter, spaces, engine):
    # I-12's display matrix: [["", "", "ABCDE"], ["", "D", "A"], ["", "E", "B"], ["", "", "C"]]
    rules, state = _display_game(NO_SHARES)
    _gain(engine, rules, state, "I-12", 1, letter)
    assert state.seats[0].cards == [NO_SHARES[s - 1] for s in spaces]
    assert [state.display[s - 1] for s in spaces] == [NO, NO]
    assert state.seats[0].cash == 1  # free
    assert_invariants(rules, state)


def test_match_slot_empty_space_gives_nothing(engine):
    display = list(NO_SHARES)
    display[8] = NO  # space 9 already empty
    rules, state = _display_game(display)
    _gain(engine, rules, state, "I-12", 1, "B")  # spaces 3 and 9
    assert state.seats[0].cards == [NO_SHARES[2]]
    rules, state = _display_game([NO] * 12)
    _gain(engine, rules, state, "I-12", 1, "B")
    assert state.seats[0].cards == []


def test_match_slot_space_lettered_for_another_slot_is_not_taken(engine):
    # I-2's matrix letters row 2 "E E B": from slot A only spaces 8 and 11 ("A") are taken
    rules, state = _display_game(NO_SHARES)
    _gain(engine, rules, state, "I-2", 1, "A")
    assert state.seats[0].cards == [NO_SHARES[7], NO_SHARES[10]]


def test_most_valuable_share_takes_the_most_valuable_company_shown(engine):
    # shown shares: space 3 tawac (#2, index 1), space 5 skymine (index 2), space 7 tawac (index 5),
    # space 8 minerva (index 3). Values: astrogo 5 (not shown), tawac 2, skymine 3, minerva 0.
    # Most valuable among those shown: skymine -> space 5.
    display = [24, 25, 1, 26, 2, 27, 5, 3, 28, 29, 30, 31]
    rules, state = _display_game(display)
    set_values(rules, state, [[5, 1, 0], [3, 0, 0], [4, 0, 0], [1, 0, 0]])
    _gain(engine, rules, state, "I-1", 1, "B")
    assert state.seats[0].cards == [2] and state.display[4] == NO
    # next: tawac (2 coins) is the most valuable shown; it shows on spaces 3 and 7 -> the lowest, 3
    _gain(engine, rules, state, "I-1", 1, "B")
    assert state.seats[0].cards == [2, 1] and state.display[2] == NO and state.display[6] == 5


def test_most_valuable_share_tie_break_by_company_order(engine):
    # equal values and vacancies: astrogo (A1) is the most valuable; it shows on spaces 10 and 4
    display = [25, 26, 1, 8, 27, 28, 2, 29, 30, 0, 31, 32]
    rules, state = _display_game(display)
    _gain(engine, rules, state, "I-1", 1, "C")
    assert state.seats[0].cards == [8] and state.display[3] == NO


def test_most_valuable_share_none_shown_gives_nothing(engine):
    rules, state = _display_game(NO_SHARES)
    _gain(engine, rules, state, "I-1", 1, "B")
    assert state.seats[0].cards == [] and state.display == NO_SHARES


def test_card_i1_takes_space_3_then_the_most_valuable_share(engine):
    # I-1 from D: space 3 (a tawac share, index 1) first, then the most valuable share still shown:
    # astrogo (equal values; A1) on space 6 (index 4)
    display = [24, 25, 1, 26, 27, 4, 28, 29, 30, 31, 32, 33]
    rules, state = _display_game(display)
    engine.resolve_card(rules, state, 0, card(rules, "I-1"), slot("D"))
    assert state.seats[0].cards == [1, 4]


# ---------------------------------------------------------------- discard_research_plan


def _discard(engine, rules, state, card_id, action_index, letter):
    engine.discard_research_plan(rules, state, 0, rules.cards[card(rules, card_id)].actions[action_index], slot(letter))


@pytest.mark.parametrize(("letter", "space"), [("A", 0), ("E", 0), ("B", 1), ("C", 2), ("D", 3)])
def test_match_slot_removes_the_lettered_plan_and_refills_it(letter, space, engine):
    # I-9's row A spaces: ["AE", "B", "C", "D"]
    rules, state, _ = new_game("luna:2")
    assert state.plan_rows[0] == [True] * 4 and state.plan_decks == [20, 20, 20]
    _discard(engine, rules, state, "I-9", 2, letter)
    assert state.plan_rows[0] == [True] * 4 and state.plan_decks == [19, 20, 20]
    assert state.seats[0].luna.plans_discarded == 1
    # with the row's deck empty the space stays empty -- exactly the lettered one
    rules, state, _ = new_game("luna:2")
    state.plan_decks[0] = 0
    _discard(engine, rules, state, "I-9", 2, letter)
    assert state.plan_rows[0] == [s != space for s in range(4)] and state.plan_decks[0] == 0


def test_the_last_plan_of_a_row_deck_is_still_dealt(engine):
    # I-9 from B discards row A's space 2 (index 1); the row's deck holds one plan: it refills that space
    # (a new generation of it) and the deck is empty.
    rules, state, _ = new_game("luna:2")
    state.plan_decks[0] = 1
    generation = state.plan_generation[0][1]
    _discard(engine, rules, state, "I-9", 2, "B")
    assert state.plan_rows[0] == [True] * 4 and state.plan_decks[0] == 0
    assert state.plan_generation[0][1] == generation + 1


def test_match_slot_names_its_row(engine):
    # I-11: row B then row C, both ["AE", "B", "C", "D"]; from C: space 3 of each; row A untouched
    rules, state, _ = new_game("luna:2")
    state.plan_decks = [0, 0, 0]
    engine.resolve_card(rules, state, 0, card(rules, "I-11"), slot("C"))
    assert state.plan_rows == [[True] * 4, [True, True, False, True], [True, True, False, True]]
    assert state.seats[0].luna.plans_discarded == 2


def test_match_slot_on_an_already_empty_space_discards_nothing(engine):
    rules, state, _ = new_game("luna:2")
    state.plan_decks[1] = 0
    state.plan_rows[1][1] = False
    _discard(engine, rules, state, "II-1", 2, "B")
    assert state.plan_rows[1] == [True, False, True, True] and state.seats[0].luna.plans_discarded == 0


def test_latest_special_removes_the_most_recently_flipped_face_up_plan(engine):
    rules, state, _ = new_game("luna:2")
    for _ in range(3):
        engine.flip_special_plan(rules, state)
    state.special_plans[0] = 2  # the first one was removed earlier
    assert state.special_plans == [2, 1, 1, 0, 0, 0]
    _discard(engine, rules, state, "I-9", 1, "B")
    assert state.special_plans == [2, 1, 2, 0, 0, 0]
    _discard(engine, rules, state, "II-2", 1, "B")
    assert state.special_plans == [2, 2, 2, 0, 0, 0]
    assert state.seats[0].luna.plans_discarded == 2
    # none face up -> nothing
    _discard(engine, rules, state, "I-9", 1, "B")
    assert state.special_plans == [2, 2, 2, 0, 0, 0] and state.seats[0].luna.plans_discarded == 2
    # the next flip is the 4th plan, and it is the latest one
    engine.flip_special_plan(rules, state)
    _discard(engine, rules, state, "I-9", 1, "B")
    assert state.special_plans == [2, 2, 2, 2, 0, 0]


def test_no_special_plan_left_to_flip_changes_nothing(engine):
    # all six flipped (a game flips one in each of its 6 preparations; an overlay that turns some up at
    # setup runs out before the last preparation): a further flip has nothing to turn
    rules, state, _ = new_game("luna:2")
    for _ in range(6):
        engine.flip_special_plan(rules, state)
    state.special_plans[2] = 2
    engine.flip_special_plan(rules, state)
    assert state.special_plans == [1, 1, 2, 1, 1, 1] and state.specials_flipped == 6


def test_latest_special_at_the_start_discards_nothing(engine):
    rules, state, _ = new_game("luna:2")
    assert state.special_plans == [0] * 6
    _discard(engine, rules, state, "I-9", 1, "A")
    assert state.special_plans == [0] * 6 and state.seats[0].luna.plans_discarded == 0


def test_preparation_refills_the_display_lowest_space_first(engine):
    rules, state, _ = new_game("luna:2")
    state.display[1] = state.display[7] = NO
    taken = [c for c in range(44) if c not in state.display and c not in state.action_deck]
    state.seats[0].cards = taken
    top, second = state.action_deck[-1], state.action_deck[-2]
    engine.preparation(rules, state)
    assert state.display[1] == top and state.display[7] == second
    # an empty deck leaves spaces empty
    state.seats[0].cards.append(state.display[0])
    state.display[0] = NO
    state.seats[0].cards += state.action_deck
    state.action_deck = []
    engine.preparation(rules, state)
    assert state.display[0] == NO
    assert_invariants(rules, state)
