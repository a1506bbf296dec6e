"""Setup clauses that only an overlay of the Moon data reaches: the shipped board places one outpost per
company, turns no special plan up and has more starting tokens than any table has seats."""

from __future__ import annotations

import dataclasses

from sim.moondata import StartingToken

from .helpers import ASTROGO, MINERVA, SKYMINE, TAWAC, game, game_data, owned


def _moon(**parts):
    """The shipped game data with these parts of its Moon data changed (``stations={...}`` and so on)."""
    base = game_data()
    updates = {name: getattr(base.moon, name).model_copy(update=fields) for name, fields in parts.items()}
    return dataclasses.replace(base, moon=base.moon.model_copy(update=updates))


def test_each_setup_outpost_is_taken_from_the_station(engine):
    # setup_outposts = 2: both sectors each station touches (astrogo 1 7, tawac 6 12, skymine 13 19,
    # minerva 18 24), both outposts from column 1
    _, state, _ = game("luna:2", engine, _moon(stations={"setup_outposts": 2}))
    assert [owned(state, company) for company in (ASTROGO, TAWAC, SKYMINE, MINERVA)] == [
        [1, 7], [6, 12], [13, 19], [18, 24]]
    assert state.station_vacant == [[2, 0, 0]] * 4


def test_special_plans_face_up_at_setup(engine):
    _, state, _ = game("luna:2", engine, _moon(research={"special_face_up_at_start": 2}))
    assert state.special_plans == [1, 1, 0, 0, 0, 0] and state.specials_flipped == 2


def test_as_many_starting_tokens_as_seats_is_enough(engine):
    # one seat, one token (2 helium steps): the pool runs empty exactly at the last seat's draw
    tokens = {"tokens": [StartingToken(helium=2)]}
    _, state, _ = game("luna:2", engine, _moon(starting_tokens=tokens), start_bonus="random")
    assert state.seats[0].luna.helium == 2
