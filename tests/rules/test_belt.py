"""The Belt side of the board (SPEC 7; sim/reference/belt.py): Luna's expansion clause by clause, the
scripted players' habit, setup, and the invariants. Each test writes out the Belt it builds.

Belt reminders (belt.toml, modelled): targets 1-20, k adjacent to k-1 and k+1; odd = asteroids with
outpost spaces 1:2 3:3 5:2 7:3 9:2 11:2 13:3 15:2 17:3 19:2, even = shuttle spaces (1 shuttle). Stations
touch astrogo 1 2 | tawac 6 7 | skymine 11 12 | minerva 16 17; 4 shuttles per station. Setup: one
outpost per company on the lowest asteroid its station touches: astrogo 1, tawac 7, skymine 11,
minerva 17. Within reach = touched by the station, holding a company piece, or next to one.
Notation below: ``3: [A, T, -]`` = asteroid 3 holds an astrogo and a tawac outpost, one space vacant;
``2: T`` = a tawac shuttle on shuttle space 2.
"""

from __future__ import annotations

import dataclasses

import pytest

from sim import reference as ref
from sim.config import GameConfig, parse_seats
from sim.gamedata import load_game_data
from sim.invariants import assert_invariants, check_invariants

from .helpers import ASTROGO, MINERVA, SKYMINE, TAWAC, assign_sides, card, game_data

A, T, S, M = ASTROGO, TAWAC, SKYMINE, MINERVA
SETUP = {1: [A], 7: [T], 11: [S], 17: [M]}


def _game(pieces, seats="luna:2", vacancies=None, engine=ref):
    """A Belt game after setup, its Belt overwritten: ``pieces`` maps target -> companies on it."""
    config = GameConfig(seats=parse_seats(seats), start_bonus="none", board="belt")
    rules = ref.Rules(game_data(), config)
    state, _ = engine.setup_game(rules, 11, 0)
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_belt(rules, state, pieces, vacancies)
    return rules, state, len(state.seats) - 1


def set_belt(rules, state, pieces, vacancies=None):
    """Every target vacant but ``pieces``; shuttle columns and station vacancies follow from the pieces
    (outposts taken one by one from the main column, unless ``vacancies`` gives a company's)."""
    belt = rules.belt
    state.belt = ref.BeltState.empty(belt)
    for target, companies in pieces.items():
        assert len(companies) <= belt.capacity[target]
        state.belt.owner[target][: len(companies)] = companies
    for company in range(4):
        shuttles = sum(pieces.get(t, []).count(company) for t in range(1, belt.count + 1) if not belt.asteroid[t])
        state.belt.shuttles_left[company] = belt.shuttles - shuttles
        outposts = sum(pieces.get(t, []).count(company) for t in range(1, belt.count + 1) if belt.asteroid[t])
        if vacancies and company in vacancies:
            assert sum(vacancies[company]) == outposts
            state.station_vacant[company] = list(vacancies[company])
            continue
        state.station_vacant[company] = [0] * rules.columns
        for _ in range(outposts):
            state.station_vacant[company][ref.take_column(rules, state, company)] += 1
    assert_invariants(rules, state)


def held(state, target):
    return [owner for owner in state.belt.owner[target] if owner != ref.NO_COMPANY]


def test_setup_places_one_outpost_on_the_lowest_touched_asteroid(engine):
    config = GameConfig(seats=parse_seats("luna:2"), start_bonus="none", board="belt")
    rules = ref.Rules(game_data(), config)
    state, _ = engine.setup_game(rules, 11, 0)
    assert {t: held(state, t) for t in range(1, 21) if held(state, t)} == SETUP
    assert state.station_vacant == [[1, 0, 0]] * 4 and state.belt.shuttles_left == [4] * 4
    assert state.sector_owner.count(ref.NO_COMPANY) == len(state.sector_owner)  # no Moon outpost
    assert_invariants(rules, state)


def _overlay_setup(engine, **stations):
    """A Belt game after the engine's setup, from the shipped data with these ``[stations]`` fields changed
    (setup clauses the shipped Belt, one setup outpost on an asteroid every station touches, never reaches)."""
    base = game_data()
    belt = base.belt.model_copy(update={"stations": base.belt.stations.model_copy(update=stations)})
    data = dataclasses.replace(base, belt=belt)
    rules = ref.Rules(data, GameConfig(seats=parse_seats("luna:2"), start_bonus="none", board="belt"))
    engine.use_data(rules, data)
    state, _ = engine.setup_game(rules, 11, 0)
    return rules, state


def test_each_belt_setup_outpost_is_taken_from_the_station(engine):
    # setup_outposts = 2: both on the lowest asteroid each station touches, both from column 1
    rules, state = _overlay_setup(engine, setup_outposts=2)
    assert {t: held(state, t) for t in range(1, 21) if held(state, t)} == {1: [A, A], 7: [T, T], 11: [S, S], 17: [M, M]}
    assert state.station_vacant == [[2, 0, 0]] * 4
    assert_invariants(rules, state)


def test_setup_outposts_beyond_one_column_come_from_the_next_column(engine, tmp_path):
    # EN 253: an asteroid takes the top outpost of the main column (take_column: the most vacant column whose final
    # space is held, ties to the logo). One space a column (coin_icons = [1]) and setup_outposts = 2: the first
    # outpost empties column 1, so the second comes from column 2. (Taking both from column 1, the logo's, gives
    # the same state whenever a column holds them both, as in the shipped data and the test above.)
    overlay = tmp_path / "one_space_columns.toml"
    overlay.write_text("[moon.stations]\ncoin_icons = [1]\n\n[belt.stations]\nsetup_outposts = 2\n")
    data = load_game_data(overlay)
    rules = ref.Rules(data, GameConfig(seats=parse_seats("luna:2"), start_bonus="none", board="belt"))
    engine.use_data(rules, data)
    state, _ = engine.setup_game(rules, 11, 0)
    assert {t: held(state, t) for t in range(1, 21) if held(state, t)} == {1: [A, A], 7: [T, T], 11: [S, S], 17: [M, M]}
    assert state.station_vacant == [[1, 1, 0]] * 4
    assert_invariants(rules, state)


def test_a_station_touching_no_asteroid_places_no_setup_outpost(engine):
    # setup_outposts = 0 (the only setting the data allows when a station touches no asteroid), astrogo's
    # station touching shuttle space 2 alone: nothing is placed, for astrogo or any other company
    touches = {**game_data().belt.stations.touches, "astrogo": [2]}
    rules, state = _overlay_setup(engine, setup_outposts=0, touches=touches)
    assert all(held(state, t) == [] for t in range(1, 21))
    assert state.station_vacant == [[0, 0, 0]] * 4 and state.belt.shuttles_left == [4] * 4
    assert_invariants(rules, state)


def test_a_vacant_shuttle_space_and_a_new_asteroid_are_targets_a_held_asteroid_is_not(engine):
    # 1: [A, -], 2: A. Astrogo reaches 1 2 3. Targets: 3 (new asteroid); 1 is vacant but already
    # astrogo's, 2 is taken. MIN -> 3 (a broken clause 1 would take 1).
    rules, state, seat = _game({**SETUP, 2: [A]})
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    assert held(state, 3) == [A] and held(state, 1) == [A]
    assert state.station_vacant[A] == [2, 0, 0] and state.belt.shuttles_left[A] == 3
    assert state.seats[seat].luna.outposts_placed == 1 and state.seats[seat].cash == 1  # no reward
    assert_invariants(rules, state)


@pytest.mark.parametrize(("lowest", "target", "shuttles_left", "vacant"), [
    (True, 2, 2, [1, 0, 0]),   # MIN: the shuttle space 2, a shuttle from the column
    (False, 5, 3, [2, 0, 0]),  # MAX: the new asteroid 5, an outpost from the main column
])
def test_min_takes_the_lowest_target_max_the_highest(lowest, target, shuttles_left, vacant, engine):
    # 1: [A, -], 4: A. Astrogo reaches 1 2 (station) and 3 4 5 (next to its shuttle on 4).
    # Targets: 2 (vacant shuttle space), 3 and 5 (new asteroids); not 1 (held), not 4 (taken).
    rules, state, seat = _game({**SETUP, 4: [A]})
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=lowest)
    assert held(state, target) == [A]
    assert state.belt.shuttles_left[A] == shuttles_left and state.station_vacant[A] == vacant
    assert_invariants(rules, state)


def test_two_points_follow_the_reach_they_open(engine):
    # Setup Belt: astrogo reaches 1 2. MIN: shuttle on 2; then 2 opens 3: outpost on 3.
    rules, state, seat = _game(SETUP)
    engine.expand_company_belt(rules, state, seat, [A], 2, lowest=True)
    assert held(state, 2) == [A] and held(state, 3) == [A] and state.belt.shuttles_left[A] == 3
    assert state.seats[seat].luna.outposts_placed == 2


@pytest.mark.parametrize(("pieces", "company", "lowest", "target"), [
    # 1: [A, T]: tawac reaches 6 7 (station), 8 (next to 7) and 1 2 (its outpost on the first target).
    # Targets 2 6 8 (1 and 7 are tawac's): MIN -> 2 (a reach that skipped target 1 would give 6).
    ({1: [A, T], 7: [T], 11: [S], 17: [M]}, T, True, 2),
    # 19: [M, -]: minerva reaches 16 17 (station), 18 (next to 17) and 19 20 (its outpost on 19).
    # Targets 16 18 20 (17 and 19 are minerva's): MAX -> 20 (a reach that skipped 19 would give 18).
    ({**SETUP, 19: [M]}, M, False, 20),
])
def test_reach_includes_the_neighbours_of_a_piece_at_either_end_of_the_belt(pieces, company, lowest, target, engine):
    rules, state, seat = _game(pieces)
    engine.expand_company_belt(rules, state, seat, [company], 1, lowest=lowest)
    assert held(state, target) == [company] and state.belt.shuttles_left[company] == 3
    assert_invariants(rules, state)


def test_with_no_outpost_left_a_shuttle_is_still_placed(engine):
    # Astrogo's 15 outposts are all out (station [5, 5, 5]): 1: [A, A], 5: [A, A], 7: [T, A, A],
    # 9: [A, A], 13: [A, A, A], 15: [A, A], 19: [A, A]; its 4 shuttles are home; 2: T. Astrogo reaches
    # 1 2 (station), its asteroids (all full) and their neighbours 4 6 8 10 12 14 16 18 20, all vacant
    # shuttle spaces (3, 11 and 17 are out of reach). No outpost, but shuttles: MIN -> a shuttle on 4.
    pieces = {1: [A, A], 2: [T], 5: [A, A], 7: [T, A, A], 9: [A, A], 11: [S], 13: [A, A, A], 15: [A, A],
              17: [M], 19: [A, A]}
    rules, state, seat = _game(pieces)
    assert state.station_vacant[A] == [5, 5, 5] and state.belt.shuttles_left[A] == 4
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    assert held(state, 4) == [A] and state.belt.shuttles_left[A] == 3 and state.station_vacant[A] == [5, 5, 5]
    assert state.seats[seat].luna.outposts_placed == 1
    assert_invariants(rules, state)


@pytest.mark.parametrize(("shuttles", "target"), [(True, 2), (False, 13)])
def test_with_no_shuttle_left_the_target_must_be_an_asteroid(shuttles, target, engine):
    # Astrogo's 4 shuttles on 14 16 18 20 (none left), 1: [A, -]. Reach: 1 2 (station), 13 15 17 19
    # (next to the shuttles). Shuttle space 2 is vacant, but with no shuttle the target must be an
    # asteroid: MIN -> 13. For contrast, with one shuttle back in the column (20 empty) MIN -> 2.
    pieces = {**SETUP, 14: [A], 16: [A], 18: [A], 20: [A]}
    if shuttles:
        del pieces[20]
    rules, state, seat = _game(pieces)
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    assert held(state, target) == [A]
    assert state.belt.shuttles_left[A] == 0
    assert state.station_vacant[A] == ([1, 0, 0] if shuttles else [2, 0, 0])
    assert_invariants(rules, state)


@pytest.mark.parametrize(("lowest", "target"), [(True, 1), (False, 3)])
def test_no_target_then_a_vacant_space_of_an_asteroid_already_held(lowest, target, engine):
    # 1: [A, -], 2: T, 3: [A, -, -], 4: T. Astrogo reaches 1 2 3 4: no vacant shuttle space, no new
    # asteroid. Clause 5: a vacant outpost space of a held asteroid, MIN 1 / MAX 3 (nobody is ousted).
    rules, state, seat = _game({**SETUP, 2: [T], 3: [A], 4: [T]})
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=lowest)
    assert held(state, target) == [A, A]
    assert state.seats[seat].luna.ousted == 0 and held(state, 2) == [T] and held(state, 4) == [T]
    assert state.station_vacant[A] == [3, 0, 0]
    assert_invariants(rules, state)


@pytest.mark.parametrize(("lowest", "target", "tawac_vacant", "tawac_shuttles"), [
    (True, 3, [2, 0, 0], 3),   # MIN: tawac's outpost on 3 goes home; astrogo's outpost takes its space
    (False, 4, [3, 0, 0], 4),  # MAX: tawac's shuttle on 4 goes back to its column; astrogo's shuttle
])
def test_nothing_vacant_within_reach_ousts_the_lowest_or_highest_piece(lowest, target, tawac_vacant,
                                                                       tawac_shuttles, engine):
    # 1: [A, A], 2: A, 3: [A, T, T], 4: T. Astrogo reaches 1 2 3 4, all full. The only reachable
    # rival is tawac (pieces on 3 and 4). Tawac before: outposts on 3 3 7 ([3, 0, 0]), 3 shuttles left.
    rules, state, seat = _game({1: [A, A], 2: [A], 3: [A, T, T], 4: [T], 7: [T], 11: [S], 17: [M]})
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=lowest)
    assert sorted(held(state, target)).count(A) == (2 if target == 3 else 1)
    assert state.station_vacant[T] == tawac_vacant and state.belt.shuttles_left[T] == tawac_shuttles
    assert state.seats[seat].luna.ousted == 1 and state.seats[seat].luna.outposts_placed == 1
    assert_invariants(rules, state)


@pytest.mark.parametrize(("positions", "victim"), [([0, 3, 1, 0], S), ([0, 1, 3, 0], T)])
def test_the_ousted_piece_is_of_the_company_she_is_farthest_behind_on(positions, victim, engine):
    # 1: [A, S], 2: T. Astrogo reaches 1 2, both full; rivals tawac (shuttle on 2) and skymine
    # (outpost on 1). Solo, her margin is her own marker: the smaller one is farthest behind.
    rules, state, seat = _game({1: [A, S], 2: [T], 7: [T], 11: [S], 17: [M]})
    state.track_position[seat] = positions
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    if victim == S:  # skymine's outpost on 1 home ([2, 0, 0] -> [1, 0, 0]), astrogo's outpost there
        assert held(state, 1) == [A, A] and held(state, 2) == [T] and state.station_vacant[S] == [1, 0, 0]
    else:  # tawac's shuttle back to its column, astrogo's shuttle on 2
        assert held(state, 1) == [A, S] and held(state, 2) == [A] and state.belt.shuttles_left[T] == 4
    assert_invariants(rules, state)


def test_an_ousted_outpost_goes_to_the_lowest_vacant_space_of_its_main_column(engine):
    # As above with skymine the victim, but skymine's station is [5, 1, 0] (6 outposts out: 1, 11 and
    # four on 13 15 19): the main column is column 2 (most vacant with its final space occupied), so the
    # ousted outpost fills column 2's vacant space: [5, 0, 0] (a broken rule would give [4, 1, 0]).
    pieces = {1: [A, S], 2: [T], 7: [T], 11: [S], 13: [S, S], 15: [S], 19: [S], 17: [M]}
    rules, state, seat = _game(pieces, vacancies={S: [5, 1, 0]})
    state.track_position[seat] = [0, 3, 1, 0]
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    assert held(state, 1) == [A, A] and state.station_vacant[S] == [5, 0, 0]
    assert_invariants(rules, state)


@pytest.mark.parametrize(("tawac_on_13", "ousted_from"), [(False, None), (True, 13)])
def test_with_no_shuttle_left_the_oust_is_of_the_victims_asteroid_piece(tawac_on_13, ousted_from, engine):
    # Astrogo: 1: [A, A] (station [2, 0, 0]: outposts left), its 4 shuttles on 14 16 18 20 (none left). Its reach,
    # 1 2 and 13-20, is full: 2: T, 13: [S, S, S], 15: [M, M], 17: [M, M, M], 19: [M, M]. Markers [0, 0, 3, 3]: she
    # is farthest behind on tawac (margin 0; astrogo holds nothing in reach but its own), the victim of clause 6.
    # Tawac's only piece in reach is the shuttle on 2, and astrogo has no shuttle to put there: with nothing of
    # tawac's on an asteroid in reach the point is forfeited (nobody else is ousted: the victim is chosen among all
    # rivals in reach, then its pieces she can replace). With tawac's outpost on 13 ([T, S, S]), MIN ousts that one
    # (not the lower shuttle on 2) and astrogo's outpost takes its space. (Ousting from a target she has no piece
    # for, or choosing the victim among the rivals on such targets only, passed every clause test; only the whole
    # Belt games of tests/test_engine_exactness.py caught them: a mutation pass.)
    pieces = {1: [A, A], 2: [T], 7: [T], 11: [S], 13: [T, S, S] if tawac_on_13 else [S, S, S], 14: [A], 15: [M, M],
              16: [A], 17: [M, M, M], 18: [A], 19: [M, M], 20: [A]}
    rules, state, seat = _game(pieces)
    state.track_position[seat] = [0, 0, 3, 3]
    assert state.belt.shuttles_left[A] == 0 and state.station_vacant[A] == [2, 0, 0]
    before = [list(owners) for owners in state.belt.owner]
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    luna = state.seats[seat].luna
    assert held(state, 2) == [T] and state.belt.shuttles_left == [0, 3, 4, 4]
    if ousted_from is None:
        assert state.belt.owner == before and (luna.outposts_placed, luna.ousted) == (0, 0)
    else:
        assert held(state, 13) == [A, S, S] and state.station_vacant[A] == [3, 0, 0]
        assert state.station_vacant[T] == [1, 0, 0] and (luna.outposts_placed, luna.ousted) == (1, 1)
    assert_invariants(rules, state)


def test_a_scripted_players_ousted_piece_is_counted(engine):
    # Seat 0 (scripted) placed tawac's shuttle on 2; 1: [A, A]. Luna ousts it (the only rival).
    rules, state, seat = _game({1: [A, A], 2: [T], 7: [T], 11: [S], 17: [M]}, seats="scripted:passive,luna:2")
    state.belt.placer[2][0] = 0
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    assert state.seats[0].player.outposts_ousted_by_luna == 1 and state.belt.placer[2] == [seat]


def test_two_ousts_in_one_expansion_are_both_counted(engine):
    # 1: [A, A], 2: T, 3: [T, T, T], tawac's shuttle on 2 and its outpost on 3's first space placed by
    # the scripted seat 0. Astrogo, 2 points MIN: it reaches 1 2, both full, the only rival tawac: its
    # shuttle on 2 back to its column, astrogo's shuttle there; 2 adds 3, full: tawac's lowest outpost
    # on 3 goes home ([4, 0, 0] -> [3, 0, 0]), astrogo's outpost takes its space. Two ousts of seat 0's.
    rules, state, seat = _game({1: [A, A], 2: [T], 3: [T, T, T], 7: [T], 11: [S], 17: [M]},
                               seats="scripted:passive,luna:2")
    state.belt.placer[2][0] = state.belt.placer[3][0] = 0
    assert state.station_vacant[T] == [4, 0, 0]
    engine.expand_company_belt(rules, state, seat, [A], 2, lowest=True)
    assert held(state, 2) == [A] and held(state, 3) == [A, T, T]
    assert state.station_vacant[T] == [3, 0, 0] and state.belt.shuttles_left[T] == 4
    assert (state.seats[seat].luna.ousted, state.seats[0].player.outposts_ousted_by_luna) == (2, 2)
    assert state.seats[seat].luna.outposts_placed == 2
    assert_invariants(rules, state)


def test_a_company_with_nothing_to_place_forfeits(engine):
    # Vacant spaces within reach (2, 3) but astrogo has neither outposts nor shuttles left (station
    # [5, 5, 5], its 4 shuttles on 14 16 18 20): nothing happens.
    pieces = {1: [A, A], 3: [A, A, A], 5: [A, A], 9: [A, A], 13: [A, A, A], 15: [A, A], 19: [A],
              14: [A], 16: [A], 18: [A], 20: [A], 7: [T], 11: [S], 17: [M]}
    rules, state, seat = _game(pieces)
    assert state.station_vacant[A] == [5, 5, 5]
    before = [list(owners) for owners in state.belt.owner]
    engine.expand_company_belt(rules, state, seat, [A], 2, lowest=True)
    assert state.belt.owner == before and state.seats[seat].luna.outposts_placed == 0


@pytest.mark.parametrize(("outpost_left", "placed_on"), [(False, None), (True, 1)])
def test_with_no_outpost_left_a_held_asteroid_takes_nothing(outpost_left, placed_on, engine):
    # Astrogo: 1: [A, -], 3: [A, A, A], 5: [A, A], 7: [T, A, A], 9: [A, A], 13: [A, A, A], 15: [A, A] (15
    # outposts out, station [5, 5, 5]), its 4 shuttles home. Its reach, 1-10 and 12-16, holds shuttles of the
    # others on every shuttle space (2 4 6 8: T; 10 12 14 16: S); the only vacant space is asteroid 1's, which
    # astrogo holds. Clause 5 wants an outpost, and shuttles go on shuttle spaces only: the point is forfeited.
    # With one outpost back in the station (15: [A, -]), clause 5 applies: MIN -> a second outpost on 1.
    pieces = {1: [A], 2: [T], 3: [A, A, A], 4: [T], 5: [A, A], 6: [T], 7: [T, A, A], 8: [T], 9: [A, A],
              10: [S], 11: [S], 12: [S], 13: [A, A, A], 14: [S], 15: [A] if outpost_left else [A, A], 16: [S],
              17: [M]}
    rules, state, seat = _game(pieces)
    assert (sum(state.station_vacant[A]) == 15) != outpost_left and state.belt.shuttles_left[A] == 4
    before = [list(owners) for owners in state.belt.owner]
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    if placed_on is None:
        assert state.belt.owner == before and state.seats[seat].luna.outposts_placed == 0
    else:
        assert held(state, placed_on) == [A, A] and state.seats[seat].luna.outposts_placed == 1
    assert state.belt.shuttles_left[A] == 4
    assert_invariants(rules, state)


def test_the_station_alone_puts_its_targets_within_reach(engine):
    # Astrogo has no piece on the Belt (no setup outpost: its station [0, 0, 0]); it still reaches what its
    # station touches, 1 and 2. Targets: 1 (a new asteroid) and 2 (a vacant shuttle space): MIN -> 1. (A reach
    # of its pieces' neighbours alone finds nothing and forfeits the point; every other test keeps a setup
    # outpost on the station's asteroid, which put the station's targets in reach anyway: a QA pass.)
    rules, state, seat = _game({7: [T], 11: [S], 17: [M]})
    engine.expand_company_belt(rules, state, seat, [A], 1, lowest=True)
    assert held(state, 1) == [A] and state.station_vacant[A] == [1, 0, 0]
    assert state.seats[seat].luna.outposts_placed == 1
    assert_invariants(rules, state)


@pytest.mark.parametrize("reading", ["less_valuable_first", "more_valuable_first"])
def test_multi_expand_order_on_the_belt(engine, reading):
    # II-7 (advance two_biggest_leads 2, expand them 2 MIN each), solo, markers [0, 3, 0, 2]: tawac and minerva.
    # 6: S (a skymine shuttle), 7: [T, -, -], 9: [M, -], 17: [M, -, -]: minerva ([2, 0, 0], 1 coin) is more
    # valuable than tawac ([1, 0, 0], 0 coins). Tawac reaches 6 7 8; minerva 8 9 10 16 17 18.
    # less_valuable_first: tawac: 8 (shuttle); 8 opens 9, minerva's, a new asteroid for tawac: 9: [M, T].
    #   minerva: 8 is taken: 10 (shuttle); 10 opens 11: [S, M].
    # more_valuable_first: minerva: 8 (shuttle); 8 opens 7, tawac's, new for minerva: 7: [T, M, -].
    #   tawac: no target (6 and 8 taken, 7 its own): a vacant space of its asteroid 7: [T, M, T]; then nothing
    #   vacant within reach: it ousts the rival it is farthest behind on, skymine (margin 0 against minerva's
    #   4), from its lowest piece in reach, the shuttle on 6: 6: T. (The same reading expanding on the Moon
    #   instead left the Belt as it was: a QA pass.)
    base = game_data()
    rules_data = base.luna.rules.model_copy(update={"multi_expand_order": reading})
    data = dataclasses.replace(base, luna=base.luna.model_copy(update={"rules": rules_data}))
    rules = ref.Rules(data, GameConfig(seats=parse_seats("luna:2"), start_bonus="none", board="belt"))
    engine.use_data(rules, data)
    state, _ = engine.setup_game(rules, 11, 0)
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_belt(rules, state, {1: [A], 6: [S], 7: [T], 9: [M], 11: [S], 17: [M]})
    state.track_position[0] = [0, 3, 0, 2]
    engine.resolve_card(rules, state, 0, card(rules, "II-7"), 1)
    pieces = {t: held(state, t) for t in range(1, 21) if held(state, t)}
    luna = state.seats[0].luna
    if reading == "less_valuable_first":
        assert pieces == {1: [A], 6: [S], 7: [T], 8: [T], 9: [M, T], 10: [M], 11: [S, M], 17: [M]}
        assert (luna.outposts_placed, luna.ousted) == (4, 0)
    else:
        assert pieces == {1: [A], 6: [T], 7: [T, M, T], 8: [M], 9: [M], 11: [S], 17: [M]}
        assert (luna.outposts_placed, luna.ousted) == (4, 1)
    assert state.sector_owner.count(ref.NO_COMPANY) == len(state.sector_owner)  # nothing on the Moon
    assert_invariants(rules, state)


def test_less_valuable_company_expands_first(engine):
    # Astrogo 1: [A, -], 4: A, 5: [A, A] reaches 1-6; tawac 7: [T, -, -] reaches 6 7 8, with 8: S.
    # Astrogo has 3 outposts out ([3, 0, 0], 2 coins), tawac 1 ([1, 0, 0], 0 coins): tawac is less
    # valuable and goes first, MAX: 6. Astrogo then MAX: 3. (Astrogo first would take 6 and leave tawac
    # its own asteroid 7.)
    rules, state, seat = _game({**SETUP, 4: [A], 5: [A, A], 8: [S]})
    engine.expand_company_belt(rules, state, seat, [A, T], 1, lowest=False)
    assert held(state, 6) == [T] and held(state, 3) == [A] and held(state, 7) == [T]


def test_less_valuable_first_is_by_value_not_by_company_order(engine):
    # Astrogo 5: [A, -] (1 outpost out, [1, 0, 0]: 0 coins) reaches 1 2 (station) and 4 5 6; tawac
    # 7: [T, T, -] ([2, 0, 0]: 1 coin) reaches 6 7 8, with 8: S. Astrogo, the less valuable though
    # listed first by company, goes first, MAX: 6. Tawac then finds only its own asteroid: 7. (Tawac
    # first would take 6 and leave astrogo 4.)
    rules, state, seat = _game({5: [A], 7: [T, T], 8: [S], 11: [S], 17: [M]})
    assert engine.companies_by_value(rules, state)[:2] == [T, A]
    engine.expand_company_belt(rules, state, seat, [A, T], 1, lowest=False)
    assert held(state, 6) == [A] and held(state, 7) == [T, T, T] and held(state, 4) == []


def test_a_company_that_forfeits_does_not_stop_the_next(engine):
    # Astrogo 1: [A, A] ([2, 0, 0]: 1 coin), its 4 shuttles on 14 16 18 20 (none left); 13: [S, S, S],
    # 15: [M, M], 17: [M, M, M], 19: [M, M]. Astrogo reaches 1 2 and 13-20: the only vacant space is
    # shuttle space 2, and it has no shuttle: its point is forfeited. Skymine (11, 13: [4, 0, 0]: 3
    # coins) goes next and still expands, MIN: reaching 10-14, the shuttle space 10.
    pieces = {1: [A, A], 7: [T], 11: [S], 13: [S, S, S], 14: [A], 15: [M, M], 16: [A], 17: [M, M, M],
              18: [A], 19: [M, M], 20: [A]}
    rules, state, seat = _game(pieces)
    assert engine.companies_by_value(rules, state).index(A) > engine.companies_by_value(rules, state).index(S)
    engine.expand_company_belt(rules, state, seat, [A, S], 1, lowest=True)
    assert held(state, 2) == [] and held(state, 10) == [S] and state.belt.shuttles_left[S] == 3
    assert state.seats[seat].luna.outposts_placed == 1
    assert_invariants(rules, state)


def test_scripted_player_takes_the_lowest_reachable_vacant_target_and_its_reward(engine):
    # Seat 0 holds astrogo shares; expand with 6 steps = 3 pieces. Astrogo reaches 1 2: 1 has a vacant
    # outpost space (its own asteroid counts for a player) -> outpost, 1 CrypCoin; then 2 -> shuttle,
    # 2 CrypCoin; then 3 -> outpost, 1 CrypCoin. Cash 5 + 4.
    rules, state, _ = _game(SETUP, seats="scripted:balanced,luna:2")
    state.track_position[0] = [3, 0, 0, 0]
    engine.player_expand(rules, state, 0, 6)
    assert held(state, 1) == [A, A] and held(state, 2) == [A] and held(state, 3) == [A]
    assert state.seats[0].cash == 9 and state.seats[0].player.outposts_placed == 3
    assert state.belt.placer[2] == [0]
    assert_invariants(rules, state)


@pytest.mark.parametrize(("shuttle_left", "target", "cash"), [(False, 13, 6), (True, 2, 7)])
def test_scripted_player_skips_a_target_its_company_has_no_piece_for(shuttle_left, target, cash, engine):
    # Seat 0 holds astrogo shares; expand with 2 steps = 1 piece. 1: [A, A] (full; station [2, 0, 0], outposts
    # left), astrogo's 4 shuttles on 14 16 18 20 (none left). It reaches 1 2 (station) and 13-20: the lowest
    # vacant target is shuttle space 2, but with no shuttle the piece must go on an asteroid: an outpost on 13,
    # 1 CrypCoin (cash 5 + 1). For contrast, with one shuttle back in the column (20 empty): a shuttle on 2,
    # 2 CrypCoin. (Taking the lowest vacant target whatever its kind passed every clause test; only the whole Belt
    # games of tests/test_engine_exactness.py caught it: a mutation pass.)
    pieces = {1: [A, A], 7: [T], 11: [S], 14: [A], 16: [A], 17: [M], 18: [A], 20: [A]}
    if shuttle_left:
        del pieces[20]
    rules, state, _ = _game(pieces, seats="scripted:balanced,luna:2")
    state.track_position[0] = [3, 0, 0, 0]
    engine.player_expand(rules, state, 0, 2)
    assert {t: held(state, t) for t in (2, 13)} == {2: [A] if target == 2 else [], 13: [A] if target == 13 else []}
    assert state.belt.shuttles_left[A] == 0
    assert state.station_vacant[A] == ([2, 0, 0] if shuttle_left else [3, 0, 0])
    assert state.seats[0].cash == cash and state.seats[0].player.outposts_placed == 1
    assert_invariants(rules, state)


def test_scripted_player_never_ousts(engine):
    # 1: [A, A], 2: T: astrogo reaches 1 2, all full: nothing placed, nothing paid.
    rules, state, _ = _game({1: [A, A], 2: [T], 7: [T], 11: [S], 17: [M]}, seats="scripted:balanced,luna:2")
    state.track_position[0] = [3, 0, 0, 0]
    engine.player_expand(rules, state, 0, 4)
    assert held(state, 2) == [T] and state.seats[0].cash == 5 and state.seats[0].player.outposts_placed == 0


def test_whole_belt_games_keep_the_invariants(check_every_round):
    # scripted seats and two Lunas over 7 rounds; the conftest checks the invariants after every round
    config = GameConfig(seats=parse_seats("scripted:balanced,scripted:shares,luna:5,luna:8"), board="belt")
    rules = ref.Rules(game_data(), config)
    before = check_every_round.rounds_checked
    placed = 0
    for game in range(6):
        result = ref.play_game(rules, 3, game)
        placed += sum(row["outposts_placed"] for row in result.seats)
    assert check_every_round.rounds_checked - before == 6 * 7 and placed > 0


def test_the_invariants_catch_a_belt_over_capacity_or_a_lost_shuttle():
    rules, state, _ = _game(SETUP)
    state.belt.owner[2], state.belt.placer[2] = [A, A], [-1, -1]  # two shuttles on one shuttle space
    state.belt.shuttles_left[A] = 2
    assert "Belt target 2: 2 slots, capacity 1" in check_invariants(rules, state)
    state.belt.owner[2], state.belt.placer[2] = [A], [-1]
    state.belt.shuttles_left[A] = 4  # 1 on the Belt + 4 in the column: one shuttle too many
    assert "astrogo: 1 shuttles on the Belt + 4 in the column != 4" in check_invariants(rules, state)

