"""Moon-side expansion (SPEC 2, expand_company; SPEC 4.1-4.2 board): MIN/MAX, reachability, less
valuable company first, the main outpost column, ousting and forfeits.

Board reminders (moon.toml): stations touch astrogo 1/7, tawac 6/12, skymine 13/19, minerva 18/24;
neighbours used below: 1: 2 7 | 2: 1 3 7 8 | 7: 1 2 8 13 14 | 13: 7 14 19 | 18: 11 12 17 23 24 |
22: 16 17 21 23. Setup leaves one outpost per company on 1, 6, 13, 18 (stations [1,0,0]).
"""

from __future__ import annotations

import pytest

from sim.invariants import assert_invariants

from .helpers import ASTROGO, MINERVA, SKYMINE, TAWAC, assign_sides, card, new_game, owned, set_board

SETUP = {1: ASTROGO, 6: TAWAC, 13: SKYMINE, 18: MINERVA}


def _game(owners, seats="luna:2", vacancies=None):
    rules, state, _ = new_game(seats)
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_board(rules, state, owners, vacancies)
    return rules, state, len(state.seats) - 1


def test_min_takes_the_lowest_reachable_vacant_sector(engine):
    # astrogo reaches 1 7 (station) and 2 7 (next to 1): MIN 2; then 2 adds 3 8: MIN 3
    rules, state, seat = _game(SETUP)
    engine.expand_company(rules, state, seat, [ASTROGO], 2, lowest=True)
    assert owned(state, ASTROGO) == [1, 2, 3] and state.station_vacant[ASTROGO] == [3, 0, 0]
    assert state.seats[seat].luna.outposts_placed == 2 and state.seats[seat].cash == 1
    assert_invariants(rules, state)


def test_max_takes_the_highest_reachable_vacant_sector(engine):
    # MAX 7; then 7 adds 8 13 14 (13 is skymine's): MAX 14
    rules, state, seat = _game(SETUP)
    engine.expand_company(rules, state, seat, [ASTROGO], 2, lowest=False)
    assert owned(state, ASTROGO) == [1, 7, 14] and state.station_vacant[ASTROGO] == [3, 0, 0]


def test_sectors_touching_the_station_are_reachable_without_an_outpost(engine):
    # astrogo has no outpost on the Moon and tawac holds sector 1: only 7 is reachable and vacant
    # (2 is next to sector 1, which is not astrogo's). Then 7 opens 2 8 14.
    rules, state, seat = _game({1: TAWAC, 6: TAWAC, 13: SKYMINE, 18: MINERVA})
    assert state.station_vacant[ASTROGO] == [0, 0, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=True)
    assert owned(state, ASTROGO) == [7]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=True)
    assert owned(state, ASTROGO) == [2, 7]


def test_neighbours_of_any_own_outpost_are_reachable(engine):
    # an astrogo outpost far away on 22 makes 16 17 21 23 reachable
    rules, state, seat = _game({**SETUP, 22: ASTROGO})
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=False)
    assert owned(state, ASTROGO) == [1, 22, 23]
    rules, state, seat = _game({**SETUP, 22: ASTROGO})
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=True)
    assert owned(state, ASTROGO) == [1, 2, 22]


def test_less_valuable_company_expands_first_skymine_first(engine):
    # astrogo 1 2 (2 outposts: [2,0,0], 1 coin) reaches 1 2 3 7 8 with 3 8 tawac's: only 7 is vacant.
    # skymine 13 ([1,0,0], 0 coins) reaches 7 14 19: MIN 7. Skymine is less valuable, so it goes first
    # and takes 7. Astrogo then finds nothing vacant: it ousts the reachable company on whose track Luna
    # is farthest behind -- solo, markers tawac 1, skymine 4: tawac (smallest lead) -- on its lowest
    # reachable sector, 3. Tawac's outpost goes home: [3,0,0] -> [2,0,0].
    owners = {1: ASTROGO, 2: ASTROGO, 3: TAWAC, 8: TAWAC, 6: TAWAC, 13: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners)
    state.track_position[seat] = [0, 1, 4, 0]
    engine.expand_company(rules, state, seat, [ASTROGO, SKYMINE], 1, lowest=True)
    assert state.sector_owner[7] == SKYMINE and state.sector_owner[3] == ASTROGO
    assert owned(state, TAWAC) == [6, 8] and state.station_vacant[TAWAC] == [2, 0, 0]
    assert state.station_vacant[ASTROGO] == [3, 0, 0] and state.station_vacant[SKYMINE] == [2, 0, 0]
    assert state.seats[seat].luna.ousted == 1 and state.seats[seat].luna.outposts_placed == 2
    assert_invariants(rules, state)


def test_less_valuable_company_expands_first_astrogo_first(engine):
    # Same, but skymine holds 13 19 20 ([3,0,0], 2 coins): astrogo (1 coin) is less valuable and takes 7;
    # skymine then reaches 7 14 15 19 20 21 with 14 15 21 vacant: MIN 14. Nobody is ousted.
    owners = {1: ASTROGO, 2: ASTROGO, 3: TAWAC, 8: TAWAC, 6: TAWAC, 13: SKYMINE, 19: SKYMINE, 20: SKYMINE,
              18: MINERVA}
    rules, state, seat = _game(owners)
    engine.expand_company(rules, state, seat, [ASTROGO, SKYMINE], 1, lowest=True)
    assert state.sector_owner[7] == ASTROGO and state.sector_owner[14] == SKYMINE
    assert state.seats[seat].luna.ousted == 0


@pytest.mark.parametrize(("vacancies", "column"), [
    ([0, 0, 0], 0),   # all full: tie -> closest to the logo
    ([2, 2, 0], 0),   # tie on vacant spaces -> closest to the logo
    ([1, 3, 0], 1),   # most vacant spaces
    ([5, 1, 0], 1),   # column 1 is empty (final space vacant): not a main column
    ([4, 5, 0], 0),
    ([5, 5, 3], 2),
    ([5, 5, 5], -1),  # no outpost left
])
def test_main_outpost_column_for_taking(vacancies, column, engine):
    rules, state, _ = new_game("luna:2")
    state.station_vacant[ASTROGO] = list(vacancies)
    assert engine.take_column(rules, state, ASTROGO) == column


def test_outposts_come_from_the_next_column_after_one_empties(engine):
    owners = {1: ASTROGO, 2: ASTROGO, 3: ASTROGO, 4: ASTROGO, 5: ASTROGO, 6: TAWAC, 13: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners)
    assert state.station_vacant[ASTROGO] == [5, 0, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 2, lowest=True)
    assert owned(state, ASTROGO) == [1, 2, 3, 4, 5, 7, 8] and state.station_vacant[ASTROGO] == [5, 2, 0]


# Tawac holds 2 and 7, astrogo only 1: astrogo reaches 1 2 7, none vacant, so it ousts tawac:
# MIN from 2, MAX from 7. Tawac's outpost returns to the lowest vacant home space of its main column.
TAWAC_SECTORS = [2, 7, 6, 12, 11, 5, 4, 10, 3, 8, 9, 14, 15, 16, 17]


@pytest.mark.parametrize(("count", "before", "after"), [
    (8, [5, 3, 0], [5, 2, 0]),    # main column = column 2 (3 vacant, final space occupied)
    (5, [5, 0, 0], [4, 0, 0]),    # column 1 emptied, columns 2-3 full: back into column 1 (see report)
    (10, [5, 5, 0], [4, 5, 0]),   # two columns emptied: the one closer to the logo
    (15, [5, 5, 5], [4, 5, 5]),   # every final space vacant: most vacant, fewest coins, closest to logo
])
@pytest.mark.parametrize("lowest", [True, False])
def test_ousted_outpost_returns_to_its_main_column(count, before, after, lowest, engine):
    owners = {1: ASTROGO, 13: SKYMINE, 18: MINERVA}
    owners.update({sector: TAWAC for sector in TAWAC_SECTORS[:count]})
    rules, state, seat = _game(owners)
    assert state.station_vacant[TAWAC] == before
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=lowest)
    target = 2 if lowest else 7
    assert state.sector_owner[target] == ASTROGO and state.station_vacant[TAWAC] == after
    assert state.station_vacant[ASTROGO] == [2, 0, 0]
    assert state.seats[seat].luna.ousted == 1
    assert_invariants(rules, state)


def test_two_ousts_in_one_expansion_are_both_counted(engine):
    # Tawac holds 2 3 4 5 6 7 8 10 11 12 ([5,5,0]), each placed by the scripted seat 0; astrogo holds 1.
    # Astrogo, 2 points MIN: it reaches 1 2 7, none vacant: oust tawac from 2 (home: column 1, the
    # fallback of a full main column -> [4,5,0]); 2 adds 3 8, none vacant: oust tawac from 3 (home: its
    # main column 1 again, which has a vacant space -> [3,5,0]). She ousted twice, both of the seat's outposts.
    owners = {1: ASTROGO, 13: SKYMINE, 18: MINERVA}
    owners.update({sector: TAWAC for sector in TAWAC_SECTORS[:10]})
    rules, state, seat = _game(owners, seats="scripted:passive,luna:2")
    for sector in TAWAC_SECTORS[:10]:
        state.sector_placer[sector] = 0
    assert state.station_vacant[TAWAC] == [5, 5, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 2, lowest=True)
    assert owned(state, ASTROGO) == [1, 2, 3] and state.station_vacant[TAWAC] == [3, 5, 0]
    assert (state.seats[seat].luna.ousted, state.seats[0].player.outposts_ousted_by_luna) == (2, 2)
    assert_invariants(rules, state)


def test_an_ousted_outpost_goes_home_to_column_1_when_it_is_the_main_column(engine):
    # [4,5,0]: column 1's final space is occupied and it has the most vacant spaces among such columns, so
    # it is the main column, and it has a vacant home space (column 2, all vacant, is not a candidate).
    rules, state, _ = new_game("luna:2")
    state.station_vacant[TAWAC] = [4, 5, 0]
    assert engine.return_column(rules, state, TAWAC) == 0


def test_oust_victim_is_the_company_she_is_farthest_behind_on(engine):
    # astrogo 1 reaches 2 (tawac) and 7 (skymine). Other seat ahead: margins tawac 3-5 = -2,
    # skymine 1-6 = -5 -> skymine is ousted, from 7, even with MIN.
    owners = {1: ASTROGO, 2: TAWAC, 6: TAWAC, 7: SKYMINE, 13: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners, seats="scripted:passive,luna:2")
    state.track_position[0] = [0, 5, 6, 0]
    state.track_position[seat] = [0, 3, 1, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=True)
    assert state.sector_owner[7] == ASTROGO and state.sector_owner[2] == TAWAC
    assert state.station_vacant[SKYMINE] == [1, 0, 0]
    # margins tawac -4, skymine -2 -> tawac, from 2, even with MAX
    rules, state, seat = _game(owners, seats="scripted:passive,luna:2")
    state.track_position[0] = [0, 5, 6, 0]
    state.track_position[seat] = [0, 1, 4, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=False)
    assert state.sector_owner[2] == ASTROGO and state.sector_owner[7] == SKYMINE
    assert state.station_vacant[TAWAC] == [1, 0, 0]


def test_oust_tie_on_farthest_behind_goes_to_the_more_valuable_company(engine):
    # margins equal (-2, -2); skymine has 3 outposts out ([3,0,0], 2 coins) vs tawac [2,0,0] (1 coin)
    owners = {1: ASTROGO, 2: TAWAC, 6: TAWAC, 7: SKYMINE, 13: SKYMINE, 19: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners, seats="scripted:passive,luna:2")
    state.track_position[0] = [0, 2, 2, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=True)
    assert state.sector_owner[7] == ASTROGO and state.station_vacant[SKYMINE] == [2, 0, 0]


def test_oust_victim_when_behind_nowhere_is_the_shared_lead_then_the_smallest_lead(engine):
    # German text, "größter Rückstand": "Falls ich auf keiner Leiste zurückliege, ist es diejenige, wo ich
    # mir die Führung teile bzw. den geringsten Vorsprung habe." Pinned on both engines here: the oust
    # tests above only have her behind, and test_companies' farthest_behind tests drive the reference alone.
    # Astrogo on 1 reaches 1, 2 (tawac) and 7 (skymine), none vacant: she ousts a rival.
    # (a) tawac [2,0,0] (1 coin), skymine on 7 13 19 [3,0,0] (2 coins, the more valuable).
    #     Tracks: scripted seat tawac 2, skymine 2; Luna tawac 2, skymine 4 -> margins tawac 0 (shared
    #     lead), skymine +2: tawac goes, from 2, even with MAX; its outpost returns home: [1,0,0].
    #     (Treating every lead as a shared lead would tie them and oust the more valuable skymine from 7.)
    owners = {1: ASTROGO, 2: TAWAC, 6: TAWAC, 7: SKYMINE, 13: SKYMINE, 19: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners, seats="scripted:passive,luna:2")
    state.track_position[0] = [0, 2, 2, 0]
    state.track_position[seat] = [0, 2, 4, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=False)
    assert state.sector_owner[2] == ASTROGO and state.sector_owner[7] == SKYMINE
    assert state.station_vacant[TAWAC] == [1, 0, 0] and state.station_vacant[SKYMINE] == [3, 0, 0]
    assert_invariants(rules, state)
    # (b) tawac on 2 6 12 [3,0,0] (2 coins, the more valuable), skymine on 7 13 [2,0,0] (1 coin).
    #     Scripted seat tawac 1, skymine 1; Luna tawac 4, skymine 3 -> margins +3, +2: she leads on both,
    #     so the smallest lead, skymine, goes, from 7, even with MIN; home: [1,0,0].
    owners = {1: ASTROGO, 2: TAWAC, 6: TAWAC, 12: TAWAC, 7: SKYMINE, 13: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners, seats="scripted:passive,luna:2")
    state.track_position[0] = [0, 1, 1, 0]
    state.track_position[seat] = [0, 4, 3, 0]
    engine.expand_company(rules, state, seat, [ASTROGO], 1, lowest=True)
    assert state.sector_owner[7] == ASTROGO and state.sector_owner[2] == TAWAC
    assert state.station_vacant[SKYMINE] == [1, 0, 0] and state.station_vacant[TAWAC] == [3, 0, 0]
    assert_invariants(rules, state)


ASTROGO_ALL = [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 14, 15, 16, 17, 20]


def test_no_outpost_left_forfeits_every_point(engine):
    owners = {**{s: ASTROGO for s in ASTROGO_ALL}, 6: TAWAC, 13: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners)
    assert state.station_vacant[ASTROGO] == [5, 5, 5]
    before = list(state.sector_owner)
    engine.expand_company(rules, state, seat, [ASTROGO], 2, lowest=True)
    assert state.sector_owner == before and state.seats[seat].luna.outposts_placed == 0


def test_last_outpost_placed_then_the_rest_forfeited(engine):
    # 14 out ([5,5,4]): 3 points place the last outpost (MIN: 12, next to 11) and forfeit 2
    owners = {**{s: ASTROGO for s in ASTROGO_ALL[:-1]}, 6: TAWAC, 13: SKYMINE, 18: MINERVA}
    rules, state, seat = _game(owners)
    assert state.station_vacant[ASTROGO] == [5, 5, 4]
    engine.expand_company(rules, state, seat, [ASTROGO], 3, lowest=True)
    assert state.sector_owner[12] == ASTROGO and state.station_vacant[ASTROGO] == [5, 5, 5]
    assert state.seats[seat].luna.outposts_placed == 1
    assert_invariants(rules, state)


def test_card_expands_the_companies_its_advance_chose(engine):
    # II-7: advance two_biggest_leads 2, expand them 2 MIN each. Solo, markers [0, 3, 0, 2] -> tawac
    # (3) and minerva (2). Advance: tawac 3 -> 5 passes B1's threshold after 4 (+2), minerva 2 -> 4
    # passes D1's after 3 (+2): cash 1 + 4 = 5. Expand, less valuable first (setup stations all
    # [1,0,0]; track IDs: minerva D1 is least valuable):
    #   minerva 18 reaches 11 12 17 23 24: MIN 11; then 11 adds 5 10: MIN 5 -> station [3,0,0]
    #   tawac 6 reaches 5 11 12: only 12 vacant -> 12; then 12 adds 18: 5 6 11 12 18 all taken ->
    #   oust minerva (the only rival) from its lowest reachable sector 5; minerva [3,0,0] -> [2,0,0]
    rules, state, seat = _game(SETUP)
    state.track_position[seat] = [0, 3, 0, 2]
    engine.resolve_card(rules, state, seat, card(rules, "II-7"), 1)
    assert state.track_position[seat] == [0, 5, 0, 4] and state.seats[seat].cash == 5
    assert owned(state, MINERVA) == [11, 18] and owned(state, TAWAC) == [5, 6, 12]
    assert state.station_vacant[MINERVA] == [2, 0, 0] and state.station_vacant[TAWAC] == [3, 0, 0]
    luna = state.seats[seat].luna
    assert (luna.outposts_placed, luna.ousted) == (4, 1)
    assert_invariants(rules, state)


def test_expansion_gives_no_sector_reward(engine):
    # I-6 from an all-zero start: lead everywhere shared -> the most valuable (astrogo, A1): 0 -> 2 costs
    # and pays nothing on A1; expanding 2 MIN (2, 3) leaves her cash untouched.
    rules, state, seat = _game(SETUP)
    engine.resolve_card(rules, state, seat, card(rules, "I-6"), 1)
    assert state.track_position[seat] == [2, 0, 0, 0] and owned(state, ASTROGO) == [1, 2, 3]
    assert state.seats[seat].cash == 1
