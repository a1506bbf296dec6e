"""Shared builders for the rules tests: a game set up by ``setup_game`` and then overwritten to a
known position. Names follow the rulebook: cards by id ("I-3"), track sides by id ("A1"),
sectors 1-24, display spaces 1-12 (stored at index space - 1), slots "A".."E".
"""

from __future__ import annotations

import shutil
from functools import lru_cache
from pathlib import Path

from sim import reference as ref
from sim.config import GameConfig, parse_seats
from sim.constants import ACTION_KINDS, DATA_DIR
from sim.gamedata import GameData, load_game_data
from sim.rng import Stream

ASTROGO, TAWAC, SKYMINE, MINERVA = range(4)
NO = ref.NO_CARD


@lru_cache(maxsize=1)
def game_data() -> GameData:
    return load_game_data()


def make_rules(seats: str, rounds: int = 7, start_bonus: str = "none") -> ref.Rules:
    return ref.Rules(game_data(), GameConfig(seats=parse_seats(seats), rounds=rounds, start_bonus=start_bonus))


def new_game(seats: str = "luna:2", seed: int = 11, game: int = 0, rounds: int = 7, start_bonus: str = "none",
             engine=ref):
    """``(rules, state, rngs)`` straight after ``setup_game`` (of ``engine``); no starting token by default."""
    rules = make_rules(seats, rounds, start_bonus)
    state, rngs = engine.setup_game(rules, seed, game)
    return rules, state, rngs


def game(seats: str, engine, data: GameData, start_bonus: str = "none", seed: int = 11):
    """``(rules, state, rngs)`` of ``data`` (an overlay's game data) straight after the engine's ``setup_game``."""
    rules = ref.Rules(data, GameConfig(seats=parse_seats(seats), rounds=7, start_bonus=start_bonus))
    engine.use_data(rules, data)
    state, rngs = engine.setup_game(rules, seed, 0)
    return rules, state, rngs


def card(rules: ref.Rules, card_id: str) -> int:
    """Index of a Luna card by its printed id."""
    return next(i for i, c in enumerate(rules.cards) if c.id == card_id)


def cards(rules: ref.Rules, *card_ids: str) -> list[int]:
    return [card(rules, card_id) for card_id in card_ids]


def ids(rules: ref.Rules, indices) -> list[str]:
    return [rules.cards[i].id if i != NO else "-" for i in indices]


def slot(letter: str) -> int:
    return ref.SLOTS.index(letter)


def clone(stream: Stream) -> Stream:
    """An independent copy of a stream, to compute what the engine's next shuffle will yield."""
    copy = Stream.__new__(Stream)
    copy.state, copy.draws = stream.state, stream.draws
    return copy


def assign_sides(rules: ref.Rules, state: ref.GameState, *side_ids: str) -> None:
    """Give the four companies (astrogo, tawac, skymine, minerva) these track sides."""
    state.track_side = [rules.side_index[side_id] for side_id in side_ids]


def set_board(rules: ref.Rules, state: ref.GameState, owners: dict[int, int],
              vacancies: dict[int, list[int]] | None = None) -> None:
    """Outposts on the board: ``owners`` maps sector -> company; every other sector is vacant.

    A company's station vacancies are taken from ``vacancies`` when given (checked to match the
    outposts on the board), else they are what taking its outposts one by one from its main column
    leaves: column 1 empties first (1 outpost -> [1, 0, 0], 6 -> [5, 1, 0]).
    """
    state.sector_owner = [ref.NO_COMPANY] * (rules.sector_count + 1)
    for sector, company in owners.items():
        state.sector_owner[sector] = company
    for company in range(4):
        placed = list(owners.values()).count(company)
        if vacancies and company in vacancies:
            assert sum(vacancies[company]) == placed, (company, vacancies[company], placed)
            state.station_vacant[company] = list(vacancies[company])
            continue
        state.station_vacant[company] = [0] * rules.columns
        for _ in range(placed):
            state.station_vacant[company][ref.take_column(rules, state, company)] += 1


def set_values(rules: ref.Rules, state: ref.GameState, vacancies: list[list[int]]) -> None:
    """Station vacancies only (company values for selection tests; the sectors are not consulted)."""
    state.station_vacant = [list(v) for v in vacancies]


def owned(state: ref.GameState, company: int) -> list[int]:
    return [sector for sector, owner in enumerate(state.sector_owner) if owner == company]


def set_majority(rules: ref.Rules, state: ref.GameState, seat: int, left_id: str, right_id: str) -> None:
    """Put two of a Luna's cards (by id) into her left and right majority slots, taking them out of her
    deck or discard pile so that every card still lies exactly once."""
    luna = state.seats[seat].luna
    chosen = cards(rules, left_id, right_id)
    luna.deck = [c for c in luna.deck if c not in chosen]
    luna.discard = [c for c in luna.discard if c not in chosen]
    luna.majority = chosen


def kinds(plan) -> list[str]:
    """A scripted player's plan (indices into ACTION_KINDS) as action-kind names."""
    return [ACTION_KINDS[kind] for kind in plan]


def copy_data_dir(tmp_path) -> Path:
    """A private copy of sim/data to break on purpose (pass it as ``data_dir``)."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target
