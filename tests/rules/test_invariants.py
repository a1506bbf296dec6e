"""The invariant checker: it holds over random games of every level and seat mix (after setup, after
every turn and every round), and it fails on corrupted states."""

from __future__ import annotations

import random

import pytest

from sim import reference as ref
from sim.config import SCRIPTED_PROFILES
from sim.invariants import assert_invariants, check_invariants

from .helpers import NO, make_rules, new_game


def _random_config(rng: random.Random, game: int) -> tuple[str, int, str]:
    seats = rng.randint(1, 4)
    lunas = rng.randint(1, seats)
    levels = [game % 9] + [rng.randint(0, 8) for _ in range(lunas - 1)]  # every level comes up
    text = [f"scripted:{rng.choice(SCRIPTED_PROFILES)}{rng.choice(['', '', '@0.5', '@2'])}"
            for _ in range(seats - lunas)]
    text += [f"luna:{level}" for level in levels]
    return ",".join(text), rng.choice([6, 7]), rng.choice(["random", "none"])


def _play_checked(games: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    totals = dict.fromkeys(("ousted", "grade2_by_token", "grade2_by_reshuffle", "slot_a", "slot_e", "forfeit_free"),
                           0)
    for game in range(games):
        seats, rounds, start_bonus = _random_config(rng, game)
        rules = make_rules(seats, rounds=rounds, start_bonus=start_bonus)
        state, rngs = ref.setup_game(rules, seed, game)
        assert_invariants(rules, state)
        for _ in range(rounds):
            ref.play_round(rules, state, rngs, None)
            assert_invariants(rules, state)
        for holder in state.seats:
            if holder.luna is not None:
                totals["ousted"] += holder.luna.ousted
                totals["grade2_by_token"] += holder.luna.grade2_by_token
                totals["grade2_by_reshuffle"] += holder.luna.grade2_by_reshuffle
                totals["slot_a"] += holder.luna.slot_first_round[0] > 0
                totals["slot_e"] += holder.luna.slot_first_round[4] > 0
    return totals


def test_invariants_hold_over_300_random_games():
    totals = _play_checked(300, seed=2024)
    # the games reach the rare paths too: ousting, tokens, reshuffles with grade-2 cards, slots A and E
    assert all(totals[key] > 0 for key in ("ousted", "grade2_by_token", "grade2_by_reshuffle", "slot_a", "slot_e"))


@pytest.mark.slow
def test_invariants_hold_over_3000_random_games():
    totals = _play_checked(3000, seed=77)
    assert all(totals[key] > 0 for key in ("ousted", "grade2_by_token", "grade2_by_reshuffle", "slot_a", "slot_e"))


def test_invariants_hold_after_every_single_turn():
    # play_round unrolled: the checker is usable at any point of a round
    rng = random.Random(5)
    for game in range(60):
        seats, rounds, start_bonus = _random_config(rng, game)
        rules = make_rules(seats, rounds=rounds, start_bonus=start_bonus)
        state, rngs = ref.setup_game(rules, 5, game)
        for _ in range(rounds):
            state.round += 1
            for seat in rules.config.luna_seats:
                ref.plan_luna(rules, state, seat, rngs[seat])
                assert_invariants(rules, state)
            while any(not state.seats[seat].luna.passed for seat in rules.config.luna_seats):
                for seat in rules.config.luna_seats:
                    if not state.seats[seat].luna.passed:
                        ref.luna_turn(rules, state, seat, rngs[seat])
                        assert_invariants(rules, state)
            if state.round < rounds:
                ref.preparation(rules, state)
                assert_invariants(rules, state)


# ---------------------------------------------------------------- the checker fails on corrupted states


@pytest.fixture
def midgame():
    """A scripted seat and two Lunas (levels 1 and 4) after three rounds, checked clean."""
    rules, state, rngs = new_game("scripted:balanced,luna:1,luna:4", seed=8, start_bonus="random")
    for _ in range(3):
        ref.play_round(rules, state, rngs, None)
    assert check_invariants(rules, state) == []
    return rules, state


def _corrupted(midgame, corrupt, keyword):
    rules, state = midgame
    corrupt(rules, state)
    problems = check_invariants(rules, state)
    assert problems and any(keyword in line for line in problems), problems
    with pytest.raises(AssertionError, match="invariants broken"):
        assert_invariants(rules, state)


def _duplicate_card(rules, state):
    luna = state.seats[1].luna
    luna.discard.append(luna.deck[0])


def _lose_card(rules, state):
    state.seats[2].luna.deck.pop()


def _grade2_at_level_1(rules, state):
    state.seats[1].luna.deck.append(rules.grade2[0])


def _remove_outpost(rules, state):
    sector = next(s for s in range(1, 25) if state.sector_owner[s] != ref.NO_COMPANY)
    state.sector_owner[sector] = ref.NO_COMPANY


def _add_outpost(rules, state):
    sector = next(s for s in range(1, 25) if state.sector_owner[s] == ref.NO_COMPANY)
    state.sector_owner[sector] = 2


def _station_overfull(rules, state):
    state.station_vacant[0][2] = -1


def _negative_cash(rules, state):
    state.seats[2].cash = -1


def _negative_cash_scripted(rules, state):
    state.seats[0].cash = -3


def _helium_too_high(rules, state):
    state.seats[1].luna.helium = 29


def _research_negative(rules, state):
    state.seats[2].luna.research = -1


def _track_past_end(rules, state):
    state.track_position[1][3] = 16


def _marker_lost(rules, state):
    state.seats[2].luna.markers_in_reserve -= 1


def _display_duplicate(rules, state):
    state.display[0] = state.display[1]


def _action_card_lost(rules, state):
    state.action_deck.pop()


def _card_in_off_slot(rules, state):
    luna = state.seats[1].luna
    luna.slot_on[4] = False
    luna.slots[4] = luna.deck.pop()


def _unfired_token(rules, state):
    luna = state.seats[2].luna  # level 4: helium tokens 9, 16
    luna.helium = 20
    luna.helium_tokens = [16]


def _grade2_counter(rules, state):
    state.seats[2].luna.grade2_by_token += 1


def _scripted_marker_lost(rules, state):
    state.seats[0].player.markers_in_reserve -= 1


def _scripted_helium(rules, state):
    state.seats[0].player.helium = 30


@pytest.mark.parametrize(("corrupt", "keyword"), [
    (_duplicate_card, "appears 2 times"),
    (_lose_card, "appears 0 times"),
    (_grade2_at_level_1, "(expected 0)"),
    (_remove_outpost, "outposts on the board"),
    (_add_outpost, "outposts on the board"),
    (_station_overfull, "station vacancies"),
    (_negative_cash, "negative cash"),
    (_negative_cash_scripted, "seat 0: negative cash"),
    (_helium_too_high, "helium 29"),
    (_research_negative, "research -1"),
    (_track_past_end, "track marker at 16"),
    (_marker_lost, "bonus markers"),
    (_display_duplicate, "in 2 places"),
    (_action_card_lost, "in 0 places"),
    (_card_in_off_slot, "is OFF"),
    (_unfired_token, "not fired"),
    (_grade2_counter, "grade-2 counters"),
    (_scripted_marker_lost, "seat 0 (scripted): bonus markers"),
    (_scripted_helium, "seat 0 (scripted): helium 30"),
])
def test_checker_fails_on_a_corrupted_state(midgame, corrupt, keyword):
    _corrupted(midgame, corrupt, keyword)


def test_checker_fails_when_level_0_switches_a_slot():
    rules, state, _ = new_game("luna:0")
    state.seats[0].luna.slot_on[0] = True
    assert any("without ON/OFF markers" in line for line in check_invariants(rules, state))


def test_checker_is_clean_on_a_fresh_game_and_leaves_it_untouched():
    rules, state, _ = new_game("scripted:passive,luna:0,luna:8", start_bonus="random")
    before = repr(state)
    assert check_invariants(rules, state) == []
    assert repr(state) == before
    assert state.seats[1].luna.slots == [NO] * 5


def test_every_round_played_in_these_tests_is_checked(check_every_round):
    # conftest wraps sim.reference.play_round; play_game goes through the wrapper too
    before = check_every_round.rounds_checked
    ref.play_game(make_rules("luna:3", rounds=6), 1, 0)
    assert check_every_round.rounds_checked - before == 6
