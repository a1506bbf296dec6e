"""Company value and the company selections named by Luna's cards (SPEC 2, "Company order"):
most valuable (coin icons, then vacant home spaces, then track ID), biggest lead (biggest margin,
shared lead, fewest behind, ties to the more valuable, no other marker = space 0), farthest behind."""

from __future__ import annotations

import pytest

from sim import reference as ref

from .helpers import ASTROGO, MINERVA, SKYMINE, TAWAC, assign_sides, new_game, set_values


def _select(engine, rules, state, seat, selection):
    return engine.select_companies(rules, state, seat, selection)


# ---------------------------------------------------------------- value


@pytest.mark.parametrize(("vacant", "coins"), [(0, 0), (1, 0), (2, 1), (3, 2), (4, 3), (5, 5)])
def test_column_coins_top_down(vacant, coins, engine):
    # a column's home spaces show 0, 1, 1, 1, 2 coins from the top outpost down to the final space
    rules, _, _ = new_game("luna:2")
    assert engine.column_coins(rules, vacant) == coins


def test_company_value_is_the_visible_coin_icons(engine):
    rules, state, _ = new_game("luna:2")
    set_values(rules, state, [[5, 5, 5], [3, 4, 5], [1, 0, 0], [5, 1, 0]])
    assert [engine.company_value(rules, state, c) for c in range(4)] == [15, 2 + 3 + 5, 0, 5]


# ---------------------------------------------------------------- by value

SELECTIONS_BY_VALUE = {
    "most_valuable": lambda order: order[:1],
    "two_most_valuable": lambda order: order[:2],
    "second_most_valuable": lambda order: order[1:2],
    "least_valuable": lambda order: order[3:],
    "all_four": lambda order: order,
}


@pytest.mark.parametrize("selection", sorted(SELECTIONS_BY_VALUE))
def test_value_selections_by_coin_icons(selection, engine):
    # values: astrogo [4,0,0] 3, tawac [5,1,0] 5, skymine [2,0,0] 1, minerva [3,0,0] 2
    rules, state, _ = new_game("luna:2")
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_values(rules, state, [[4, 0, 0], [5, 1, 0], [2, 0, 0], [3, 0, 0]])
    order = [TAWAC, ASTROGO, MINERVA, SKYMINE]
    assert engine.companies_by_value(rules, state) == order
    assert _select(engine, rules, state, 0, selection) == SELECTIONS_BY_VALUE[selection](order)


def test_coin_icons_beat_vacant_spaces(engine):
    # skymine [5,0,0]: 5 coins, 5 vacant; minerva [4,1,1]: 3 coins, 6 vacant -> skymine is more valuable
    rules, state, _ = new_game("luna:2")
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_values(rules, state, [[1, 0, 0], [1, 0, 0], [5, 0, 0], [4, 1, 1]])
    assert engine.companies_by_value(rules, state)[:2] == [SKYMINE, MINERVA]


@pytest.mark.parametrize("selection", sorted(SELECTIONS_BY_VALUE))
def test_value_tie_goes_to_more_vacant_home_spaces(selection, engine):
    # astrogo [2,1,0] and skymine [2,0,0] both show 1 coin; astrogo has 3 vacant spaces to 2, so it is
    # more valuable although its track (E1) comes after skymine's (A1). tawac and minerva: 0 coins and
    # 1 vacant each -> track ID: minerva (B2) before tawac (D2).
    rules, state, _ = new_game("luna:2")
    assign_sides(rules, state, "E1", "D2", "A1", "B2")
    set_values(rules, state, [[2, 1, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0]])
    order = [ASTROGO, SKYMINE, MINERVA, TAWAC]
    assert engine.companies_by_value(rules, state) == order
    assert _select(engine, rules, state, 0, selection) == SELECTIONS_BY_VALUE[selection](order)


def test_equal_coins_more_vacant_wins_even_with_fewer_coins_per_column(engine):
    # astrogo [3,0,0]: 2 coins, 3 vacant; tawac [2,2,0]: 1 + 1 = 2 coins, 4 vacant -> tawac first
    rules, state, _ = new_game("luna:2")
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_values(rules, state, [[3, 0, 0], [2, 2, 0], [1, 0, 0], [1, 0, 0]])
    assert engine.companies_by_value(rules, state)[:2] == [TAWAC, ASTROGO]


@pytest.mark.parametrize("selection", sorted(SELECTIONS_BY_VALUE))
def test_value_and_vacancy_tie_goes_to_the_track_id_alphabetically(selection, engine):
    rules, state, _ = new_game("luna:2")
    assign_sides(rules, state, "C1", "A2", "E1", "B1")
    set_values(rules, state, [[1, 0, 0]] * 4)
    order = [TAWAC, MINERVA, ASTROGO, SKYMINE]  # A2, B1, C1, E1
    assert engine.companies_by_value(rules, state) == order
    assert _select(engine, rules, state, 0, selection) == SELECTIONS_BY_VALUE[selection](order)


# ---------------------------------------------------------------- leads


def _lead_game(luna_positions, other_positions=None, seats="scripted:passive,luna:2", values=None):
    """Luna in the last seat; the other seat(s) hold ``other_positions`` (one list per other seat)."""
    rules, state, _ = new_game(seats)
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_values(rules, state, values or [[1, 0, 0]] * 4)  # equal values: astrogo > tawac > skymine > minerva
    for seat, positions in enumerate(other_positions or []):
        state.track_position[seat] = list(positions)
    luna_seat = len(state.seats) - 1
    state.track_position[luna_seat] = list(luna_positions)
    return rules, state, luna_seat


def test_lead_biggest_margin(engine):
    # margins [5-2, 3-3, 7-6, 2-4] = [3, 0, 1, -2]
    rules, state, seat = _lead_game([5, 3, 7, 2], [[2, 3, 6, 4]])
    assert engine.lead_margins(rules, state, seat) == [3, 0, 1, -2]
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [ASTROGO]
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [ASTROGO, SKYMINE]


def test_lead_nowhere_takes_the_shared_lead(engine):
    # margins [-3, 0, -2, -3]: she leads nowhere and shares the lead on tawac
    rules, state, seat = _lead_game([2, 3, 4, 1], [[5, 3, 6, 4]])
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [TAWAC]
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [TAWAC, SKYMINE]


def test_behind_everywhere_takes_the_fewest_spaces_behind(engine):
    # margins [-4, -2, -3, -1]
    rules, state, seat = _lead_game([1, 2, 3, 4], [[5, 4, 6, 5]])
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [MINERVA]
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [MINERVA, TAWAC]


def test_lead_tie_goes_to_the_more_valuable_company(engine):
    # margins [2, 2, 0, 0]; tawac [3,0,0] (2 coins) is more valuable than astrogo [1,0,0]
    rules, state, seat = _lead_game([4, 4, 0, 0], [[2, 2, 0, 0]],
                                    values=[[1, 0, 0], [3, 0, 0], [1, 0, 0], [1, 0, 0]])
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [TAWAC]
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [TAWAC, ASTROGO]
    # shared-lead tie (margins 0 on skymine and minerva) likewise goes to the more valuable one
    rules, state, seat = _lead_game([0, 0, 3, 3], [[2, 2, 3, 3]],
                                    values=[[1, 0, 0], [1, 0, 0], [1, 0, 0], [4, 0, 0]])
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [MINERVA]
    # behind-everywhere tie ([-1, -1, -3, -3]) too
    rules, state, seat = _lead_game([1, 1, 0, 0], [[2, 2, 3, 3]],
                                    values=[[1, 0, 0], [2, 0, 0], [1, 0, 0], [1, 0, 0]])
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [TAWAC, ASTROGO]


def test_the_next_marker_behind_is_the_closest_one(engine):
    # three seats: astrogo markers 2 and 4 behind her 5 -> margin 1 (to 4), not 3
    rules, state, seat = _lead_game([5, 3, 0, 0], [[2, 0, 0, 0], [4, 0, 0, 0]],
                                    seats="scripted:passive,scripted:passive,luna:2")
    assert engine.lead_margins(rules, state, seat) == [1, 3, 0, 0]
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [TAWAC]


def test_no_other_marker_counts_as_space_0(engine):
    # Solo: her markers [0, 2, 1, 0] lead by [0, 2, 1, 0] over an imaginary marker on space 0.
    rules, state, seat = _lead_game([0, 2, 1, 0], seats="luna:2")
    assert engine.lead_margins(rules, state, seat) == [0, 2, 1, 0]
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [TAWAC]
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [TAWAC, SKYMINE]
    # another seat whose markers all stand on 0 changes nothing
    rules, state, seat = _lead_game([0, 2, 1, 0], [[0, 0, 0, 0]])
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [TAWAC, SKYMINE]
    # another seat ahead on tawac does: margins [0, -1, 1, 0] -> skymine, then astrogo (tie with
    # minerva at 0, astrogo more valuable)
    rules, state, seat = _lead_game([0, 2, 1, 0], [[0, 3, 0, 0]])
    assert _select(engine, rules, state, seat, "two_biggest_leads") == [SKYMINE, ASTROGO]
    # solo at the start: a shared "lead" everywhere -> the most valuable company
    rules, state, seat = _lead_game([0, 0, 0, 0], seats="luna:2", values=[[1, 0, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0]])
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [SKYMINE]


def test_another_luna_counts_as_a_marker(engine):
    rules, state, seat = _lead_game([3, 1, 0, 0], [[4, 0, 0, 0]], seats="luna:2,luna:5")
    assert engine.lead_margins(rules, state, seat) == [-1, 1, 0, 0]
    assert engine.lead_margins(rules, state, 0) == [1, -1, 0, 0]
    assert _select(engine, rules, state, seat, "lead_biggest_margin") == [TAWAC]
    assert _select(engine, rules, state, 0, "lead_biggest_margin") == [ASTROGO]


# ---------------------------------------------------------------- farthest behind


# Reference only: the numba engine has no farthest_behind of its own (it is the oust-victim choice inside
# _expand_company, driven on both engines by test_expansion's oust tests).
def test_farthest_behind_is_the_most_spaces_behind_the_leader():
    rules, state, seat = _lead_game([1, 3, 5, 6], [[4, 3, 6, 4]])  # margins [-3, 0, -1, 2]
    assert ref.farthest_behind(rules, state, seat, [0, 1, 2, 3]) == ASTROGO
    assert ref.farthest_behind(rules, state, seat, [TAWAC, SKYMINE, MINERVA]) == SKYMINE


# Reference only: the numba engine has no farthest_behind of its own (it is the oust-victim choice inside
# _expand_company, driven on both engines by test_expansion's oust tests).
def test_behind_nowhere_takes_the_shared_lead_then_the_smallest_lead():
    rules, state, seat = _lead_game([3, 5, 4, 3], [[3, 3, 3, 3]])  # margins [0, 2, 1, 0]
    assert ref.farthest_behind(rules, state, seat, [0, 1, 2, 3]) == ASTROGO  # shared; astrogo more valuable
    assert ref.farthest_behind(rules, state, seat, [TAWAC, SKYMINE]) == SKYMINE  # smallest lead
    rules, state, seat = _lead_game([3, 1, 2, 4], seats="luna:2")  # solo: margins [3, 1, 2, 4]
    assert ref.farthest_behind(rules, state, seat, [0, 1, 2, 3]) == TAWAC


# Reference only: the numba engine has no farthest_behind of its own (it is the oust-victim choice inside
# _expand_company, driven on both engines by test_expansion's oust tests).
def test_farthest_behind_tie_goes_to_the_more_valuable_company():
    rules, state, seat = _lead_game([0, 0, 4, 4], [[2, 2, 0, 0]],
                                    values=[[1, 0, 0], [3, 0, 0], [1, 0, 0], [1, 0, 0]])  # margins [-2,-2,4,4]
    assert ref.farthest_behind(rules, state, seat, [0, 1, 2, 3]) == TAWAC
