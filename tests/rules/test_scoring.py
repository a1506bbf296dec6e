"""Final scoring (SPEC 2, "Final scoring"): tables, shares x company value (extra shares from
collected cards), cash, rank and shared wins; the Singularity option (6 rounds)."""

from __future__ import annotations

import pytest

from sim import reference as ref
from sim.columns import SEAT_INTERACTIONS, SEAT_NUMERIC

from .helpers import make_rules, new_game, set_values

CATEGORIES = ("score_cash", "score_helium", "score_research", "score_astrogo", "score_tawac", "score_skymine",
              "score_minerva")


@pytest.mark.parametrize(("helium", "coins"), [(0, 0), (5, 0), (6, 10), (8, 10), (9, 15), (12, 15), (13, 25),
                                               (16, 30), (20, 40), (23, 45), (25, 50), (27, 50), (28, 60)])
def test_helium_tank_table(helium, coins, engine):
    rules, state, _ = new_game("luna:2")
    assert ref.table_score(rules.helium_table, helium) == coins
    state.seats[0].luna.helium = helium
    assert engine.final_scores(rules, state)[0]["score_helium"] == coins


@pytest.mark.parametrize(("research", "coins"), [(0, 0), (2, 0), (3, 10), (4, 10), (5, 15), (7, 20), (9, 30),
                                                 (11, 40), (13, 50), (14, 50), (15, 60)])
def test_research_table(research, coins, engine):
    rules, state, _ = new_game("luna:2")
    assert ref.table_score(rules.research_table, research) == coins
    state.seats[0].luna.research = research
    assert engine.final_scores(rules, state)[0]["score_research"] == coins


def _scored_table():
    """Three seats: a scripted one and two Lunas, tied at 79 (hand-computed below)."""
    rules, state, _ = new_game("scripted:passive,luna:2,luna:5")
    # values: astrogo [5,2,0] = 5 + 1 = 6, tawac [3,0,0] = 2, skymine [1,0,0] = 0, minerva [5,5,5] = 15
    set_values(rules, state, [[5, 2, 0], [3, 0, 0], [1, 0, 0], [5, 5, 5]])
    scripted, first, second = state.seats
    # seat 0: astrogo 2 shares (12), minerva 1 extra share from card #4 (15), cash 10 -> 37
    state.track_position[0] = [2, 0, 0, 0]
    scripted.cards, scripted.cash = [3], 10
    # seat 1: shares astrogo 3 + 2 cards = 5 (30), tawac 0 + 1 card = 1 (2), skymine 5 (0),
    # minerva 1 (15); cash 7; helium 9 -> 15; research 3 -> 10 -> 79 (card #31 shows no share)
    state.track_position[1] = [3, 0, 5, 1]
    first.cards, first.cash = [0, 4, 1, 30], 7
    first.luna.helium, first.luna.research = 9, 3
    # seat 2: minerva 4 shares (60), cash 4, helium 9 (15), research 2 (0) -> 79
    state.track_position[2] = [0, 0, 0, 4]
    second.cash = 4
    second.luna.helium, second.luna.research = 9, 2
    return rules, state


def test_final_scores_categories_shares_and_values(engine):
    rules, state = _scored_table()
    rows = engine.final_scores(rules, state)
    first = rows[1]
    assert [first[c] for c in CATEGORIES] == [7, 15, 10, 30, 2, 0, 15]
    assert [first[f"shares_{c}"] for c in ("astrogo", "tawac", "skymine", "minerva")] == [5, 1, 5, 1]
    assert [first[f"value_{c}"] for c in ("astrogo", "tawac", "skymine", "minerva")] == [6, 2, 0, 15]
    assert first["cards_gained"] == 4 and first["cash"] == 7
    assert (first["helium"], first["research"]) == (9, 3)
    for row in rows:
        assert row["score_total"] == sum(row[c] for c in CATEGORIES)
    assert [row["score_total"] for row in rows] == [37, 79, 79]


def _counters(engine, rules, state) -> list[dict]:
    """Each seat's per-game counters: ``seat_counters`` of the reference, the kernel's result row of numba."""
    if engine.id == "reference":
        return [ref.seat_counters(state, seat) for seat in range(len(state.seats))]
    return engine.final_scores(rules, state)


LUNA_ONLY = ("plans_discarded", "ousted", "reshuffles", "grade2_entered", "grade2_by_reshuffle",
             "grade2_by_token", "slot_a_first_round", "slot_e_first_round")


def test_each_seat_reports_its_own_kinds_counters_and_zero_for_the_others(engine):
    rules, state, _ = new_game("scripted:balanced,luna:5")
    player, luna = state.seats[0].player, state.seats[1].luna
    player.bonus_spaces_lost, player.cards_lost, player.plans_lost, player.outposts_ousted_by_luna = 1, 2, 3, 4
    player.blocked = [5, 6, 7, 1, 2]
    luna.plans_discarded, luna.ousted, luna.reshuffles = 2, 3, 4
    luna.grade2_by_reshuffle, luna.grade2_by_token = 1, 2
    luna.slot_first_round = [3, 0, 0, 0, 5]
    scripted, lunas = _counters(engine, rules, state)
    assert [lunas[name] for name in LUNA_ONLY] == [2, 3, 4, 3, 1, 2, 3, 5]  # grade2_entered = 1 + 2
    assert [scripted[name] for name in SEAT_INTERACTIONS] == [5, 6, 7, 1, 2, 1, 2, 3, 4]
    assert [scripted[name] for name in LUNA_ONLY] == [0] * len(LUNA_ONLY)
    assert [lunas[name] for name in SEAT_INTERACTIONS] == [0] * len(SEAT_INTERACTIONS)


def test_tie_is_a_shared_win(engine):
    rules, state = _scored_table()
    rows = engine.final_scores(rules, state)
    assert [row["rank"] for row in rows] == [3, 1, 1]
    assert [row["won"] for row in rows] == [0.0, 0.5, 0.5]


def test_single_winner_and_ranks(engine):
    rules, state = _scored_table()
    state.seats[2].cash = 5  # 80
    rows = engine.final_scores(rules, state)
    assert [row["score_total"] for row in rows] == [37, 79, 80]
    assert [row["rank"] for row in rows] == [3, 2, 1]
    assert [row["won"] for row in rows] == [0.0, 0.0, 1.0]


# Reference only: whole games (play_game); tests/test_engine_exactness.py compares the numba engine's
# whole games with the reference's, column by column (test_six_rounds for this option).
@pytest.mark.parametrize("seats", ["luna:2", "scripted:passive,luna:3,luna:8"])
def test_singularity_ends_after_round_6_without_a_last_preparation(seats):
    # 6 rounds: 6 plannings; preparation after rounds 1-5 only -> 5 special plans face up.
    # (7 rounds: preparation after rounds 1-6 -> 6.)
    for rounds in (6, 7):
        rules = make_rules(seats, rounds=rounds, start_bonus="random")
        for game in range(10):
            result = ref.play_game(rules, 17, game, detail=True)
            assert result.state.round == rounds
            assert all(len(records) == rounds for records in result.rounds.values())
            assert result.state.specials_flipped == rounds - 1
            assert sum(row["won"] for row in result.seats) == pytest.approx(1.0)


@pytest.mark.parametrize("rounds", [6, 7])
def test_no_preparation_follows_the_last_round(engine, rounds):
    # EN 174; DE 186, on both engines round by round: a preparation after rounds 1..rounds-1 only, each flipping
    # one special plan, so rounds - 1 are face up when final scoring starts. A preparation after the last round
    # changed no output column in tests/test_engine_exactness.py (markers home, majority cards discarded, the
    # display refilled, a plan flipped: final scoring reads none of them), so the engines' row-for-row comparison
    # missed one put into the numba engine on purpose (2026-11-27); this state does not.
    rules = make_rules("luna:2", rounds=rounds, start_bonus="random")
    state, rngs = engine.setup_game(rules, 17, 0)
    for _ in range(rounds):
        engine.play_round(rules, state, rngs, None)
    assert state.round == rounds and state.specials_flipped == rounds - 1


# Reference only: a whole game's row keys; the numba engine's columns are compared with these in
# tests/test_engine_exactness.py.
def test_each_seats_row_is_exactly_the_output_columns():
    # sim/columns.py is the one list of per-seat columns: play_game's rows carry exactly those keys, in
    # that order, and final_scores plus seat_counters fill each column once and nothing besides.
    rules = make_rules("scripted:balanced,scripted:passive,luna:3,luna:8", start_bonus="random")
    result = ref.play_game(rules, 5, 0)
    for seat, row in enumerate(result.seats):
        assert tuple(row) == SEAT_NUMERIC
        scores, counters = ref.final_scores(rules, result.state)[seat], ref.seat_counters(result.state, seat)
        assert scores.keys().isdisjoint(counters)
        assert scores.keys() | counters.keys() == set(SEAT_NUMERIC)
