"""The numba engine reproduces the reference engine exactly: same columns, dtypes, row order, numbers.

Each test plays the same games with both engines and compares column by column; a failure names the
first differing game, seat (and round) and every column that differs there.
"""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

from sim.columns import Chunk
from sim.config import SCRIPTED_PROFILES, GameConfig, Seat, parse_seats
from sim.constants import LEVELS, RULE_SWITCHES
from sim.engines import play_chunk_reference
from sim.fast import play_chunk_numba
from sim.gamedata import load_game_data

SEED = 20240611


@pytest.fixture(scope="module")
def data():
    return load_game_data()


def config(seats: str, rounds: int = 7, start_bonus: str = "random", profiles=SCRIPTED_PROFILES,
           board: str = "moon") -> GameConfig:
    return GameConfig(seats=parse_seats(seats, profiles), rounds=rounds, start_bonus=start_bonus, board=board)


def first_mismatch(expected: dict[str, np.ndarray], actual: dict[str, np.ndarray], keys: tuple[str, ...]) -> str | None:
    """Describe the first row where the two column sets differ (``None`` when they are identical).

    ``keys`` are the columns that locate a row (game, seat, round), taken from ``expected``.
    """
    if list(expected) != list(actual):
        return f"column names or order differ: {list(expected)} != {list(actual)}"
    for name in expected:
        if expected[name].dtype != actual[name].dtype:
            return f"column {name}: dtype {actual[name].dtype}, expected {expected[name].dtype}"
        if expected[name].shape != actual[name].shape:
            return f"column {name}: {actual[name].shape[0]} rows, expected {expected[name].shape[0]}"
    differs = np.zeros(len(next(iter(expected.values()))), dtype=bool)
    for name in expected:
        differs |= expected[name] != actual[name]
    if not differs.any():
        return None
    row = int(np.argmax(differs))
    where = ", ".join(f"{key} {expected[key][row]}" for key in keys)
    columns = [f"{name}: numba {actual[name][row].item()!r}, reference {expected[name][row].item()!r}"
               for name in expected if expected[name][row] != actual[name][row]]
    return f"first difference at row {row} ({where}): " + "; ".join(columns)


def assert_same(expected: Chunk, actual: Chunk, seed: int, label: str) -> None:
    problem = first_mismatch(expected.seats, actual.seats, ("game", "seat"))
    if problem is None and (expected.rounds is None) != (actual.rounds is None):
        problem = f"rounds: numba {actual.rounds is not None}, reference {expected.rounds is not None}"
    if problem is None and expected.rounds is not None:
        problem = first_mismatch(expected.rounds, actual.rounds, ("game", "seat", "round"))
        problem = problem and f"luna_rounds: {problem}"
    assert problem is None, f"{label}, seed {seed}: {problem}"


def check(data, game_config: GameConfig, games: int, seed: int = SEED, first_game: int = 0,
          detail: bool = False) -> Chunk:
    expected = play_chunk_reference(data, game_config, seed, first_game, games, detail)
    actual = play_chunk_numba(data, game_config, seed, first_game, games, detail)
    label = (f"seats {game_config.seats_label}, rounds {game_config.rounds}, start_bonus {game_config.start_bonus}, "
             f"board {game_config.board}")
    assert_same(expected, actual, seed, label)
    return actual


# ---------------------------------------------------------------- the helper itself

def test_first_mismatch_names_game_seat_and_column():
    expected = {"game": np.array([0, 0, 1, 1]), "seat": np.array([0, 1, 0, 1]), "cash": np.array([1, 2, 3, 4])}
    actual = {**expected, "cash": np.array([1, 2, 3, 5])}
    assert first_mismatch(expected, expected, ("game", "seat")) is None
    message = first_mismatch(expected, actual, ("game", "seat"))
    assert "game 1, seat 1" in message and "cash: numba 5, reference 4" in message


# ---------------------------------------------------------------- Luna alone, every level

@pytest.mark.parametrize("level", LEVELS)
def test_solo_level(data, level):
    check(data, config(f"luna:{level}"), games=300)


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_solo_level_10000_games(data, level):
    check(data, config(f"luna:{level}"), games=10_000, seed=level + 1)


# ---------------------------------------------------------------- several seats

def test_two_lunas_mixed_levels(data):
    check(data, config("luna:2,luna:7"), games=300)


def test_four_lunas(data):
    check(data, config("luna:8,luna:3,luna:5,luna:0"), games=300)


def test_passive_and_luna(data):
    check(data, config("scripted:passive,luna:5"), games=300)


def test_three_passive_and_luna(data):
    check(data, config("scripted:passive,scripted:passive,scripted:passive,luna:6"), games=300)


# ---------------------------------------------------------------- scripted players

@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("profile", SCRIPTED_PROFILES)
def test_profile_against_luna(data, profile, level):
    check(data, config(f"scripted:{profile},luna:{level}"), games=300)


# 3,000 rather than 10,000 games per combination keeps these 45 under about two minutes of reference time.
@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("profile", SCRIPTED_PROFILES)
def test_profile_against_luna_3000_games(data, profile, level):
    check(data, config(f"scripted:{profile},luna:{level}"), games=3000,
          seed=1000 + 10 * SCRIPTED_PROFILES.index(profile) + level)


@pytest.mark.parametrize("strength", [0.5, 1.3, 2.0])
def test_strength(data, strength):
    check(data, config(f"scripted:balanced@{strength},luna:3"), games=300)
    check(data, config(f"scripted:tank@{strength},scripted:shares@{strength},luna:7"), games=200)


def test_strengths_that_are_not_binary_fractions(data):
    # the carried fraction of action strength then differs from its exact value: both engines must round alike
    check(data, config("scripted:balanced@0.37,scripted:random@3.1,scripted:shares@1.1,luna:1"), games=300)


def test_two_scripted_players_and_luna(data):
    check(data, config("scripted:shares,scripted:tank,luna:3"), games=300)


def test_scripted_player_and_several_lunas(data):
    check(data, config("scripted:balanced,luna:4,luna:6"), games=300)


def test_four_scripted_seats_without_luna(data):
    check(data, config("scripted:random,scripted:tank,scripted:shares,scripted:balanced"), games=300)


def test_scripted_and_passive_seats(data):
    check(data, config("scripted:passive,scripted:balanced,scripted:passive,luna:2"), games=300)


# ---------------------------------------------------------------- options

def test_six_rounds(data):
    check(data, config("luna:4", rounds=6), games=300)
    check(data, config("scripted:passive,luna:1,luna:8", rounds=6), games=200)
    check(data, config("scripted:balanced,scripted:tank,luna:5", rounds=6), games=300)


def test_start_bonus_none(data):
    check(data, config("luna:7", start_bonus="none"), games=300)
    check(data, config("luna:2,luna:2", start_bonus="none"), games=200)
    check(data, config("scripted:shares,scripted:random,luna:6", start_bonus="none"), games=300)


@pytest.mark.parametrize("seats", ["luna:0", "luna:5", "scripted:passive,luna:3,luna:8",
                                   "scripted:balanced,scripted:tank,luna:3,luna:8"])
def test_detail_rounds(data, seats):
    chunk = check(data, config(seats), games=200, detail=True)
    game_config = config(seats)
    assert len(chunk.rounds["game"]) == 200 * len(game_config.luna_seats) * game_config.rounds


def test_seed_and_game_numbers_beyond_the_usual(data):
    check(data, config("luna:5"), games=50, seed=-3, first_game=10**12)
    check(data, config("luna:5"), games=50, seed=2**64 + 11, first_game=7)


def test_empty_chunk(data):
    chunk = check(data, config("luna:5"), games=0, detail=True)
    assert len(chunk.seats["score_total"]) == 0


# ---------------------------------------------------------------- a designer's overlay

OVERLAY = """
name = "exactness test: moved level-5 tokens, an edited card, other tokens and a track side"

[luna.levels.5]
helium_tokens = [9, 15]
research_tokens = [3]

[[luna.cards]]
id = "I-6"
majority = { left = 2, right = 5, scientists = 2 }
reveal = { type = "advance_research", count = 1 }
actions = [
  { type = "gain_coin", count = 1 },
  { type = "advance_company", count = 1, company = "two_biggest_leads" },
  { type = "expand_company", count = 3, company = "two_biggest_leads", sector = "max" },
  { type = "gain_card", select = "most_valuable_share" },
  { type = "place_bonus_marker", spaces = [["", "", "", ""], ["ABCDE", "", "", ""], ["", "", "", "B"]] },
]

[[luna.cards]]
id = "II-3"
grade = 1

[[moon.tracks.sides]]
id = "A1"
barriers = [{ after = 0, price = 2 }, { after = 9, price = 5 }]

[moon.starting_tokens]
tokens = [{ helium = 3 }, { company = "tawac", steps = 2 }, { helium = 1 }, { company = "minerva", steps = 4 }]

[moon.stations]
coin_icons = [0, 1, 2, 3]

[players.profiles.passive]
start_cash = 4

[players.profiles.idle]
name = "idle"
note = "a second passive profile, with the model's start cash"
passive = true
weights = { invest = 0, expand = 0, helium = 0, research = 0, buy_card = 0, bonus = 0 }
steps_by_round = [0, 0, 0, 0, 0, 0, 0]

[players.profiles.idle.resources_by_round]
titanium = [0, 0, 0, 0, 0, 0, 0]
carbon = [0, 0, 0, 0, 0, 0, 0]
energy = [0, 0, 0, 0, 0, 0, 0]
minerals = [0, 0, 0, 0, 0, 0, 0]
scientists = [0, 0, 0, 0, 0, 0, 0]
"""


def test_overlay(data, tmp_path):
    path = tmp_path / "overlay.toml"
    path.write_text(OVERLAY)
    overlay = load_game_data(path)
    assert overlay.luna.levels["5"].helium_tokens == [9, 15]
    check(overlay, config("luna:5"), games=300, detail=True)
    check(overlay, config("scripted:passive,luna:2,luna:5,luna:8"), games=200)
    chunk = check(overlay, config("scripted:idle,scripted:passive,luna:5", profiles=overlay.players.profiles),
                  games=100)
    assert set(chunk.seats["cash"][0::3]) == {overlay.players.model.start_cash}
    assert set(chunk.seats["cash"][1::3]) == {4}


PLAYERS_OVERLAY = """
name = "exactness test: a new scripted profile, an edited one, and an edited player model"

[players.model]
start_cash = 7
bonus_markers_by_humans = [4, 3, 2, 1]
majority_bonus_reward = 6
scientist_bonus_reward = 1
standard_bonus_rewards = [[1, 2, 3, 4], [5, 6, 7, 8]]
standard_bonus_preference = [[2, 3], [1, 1], [2, 0], [1, 3], [2, 2], [1, 0], [2, 1], [1, 2]]
sector_reward = 3
expand_outposts_per_step = 0.3
plan_lost_research_penalty = 2

[players.profiles.shares]
steps_by_round = [2, 3, 3, 4, 4, 5, 9]

[players.profiles.mine]
name = "mine"
note = "every field given; a zero weight between positive ones"
passive = false
start_cash = 9
weights = { invest = 2, expand = 3, helium = 0, research = 4, buy_card = 3, bonus = 5 }
steps_by_round = [3, 5, 4, 6, 2, 7, 8]

[players.profiles.mine.resources_by_round]
titanium = [0, 1, 5, 2, 3, 0, 6]
carbon = [2, 2, 2, 2, 2, 2, 2]
energy = [1, 0, 3, 0, 5, 0, 7]
minerals = [4, 3, 2, 1, 0, 1, 2]
scientists = [0, 2, 0, 3, 0, 4, 1]
"""


def test_overlay_scripted_profile_and_model(tmp_path):
    path = tmp_path / "players.toml"
    path.write_text(PLAYERS_OVERLAY)
    overlay = load_game_data(path)
    profiles = overlay.players.profiles
    assert profiles["mine"].start_cash == 9 and overlay.players.model.expand_outposts_per_step == 0.3
    chunk = check(overlay, config("scripted:mine,luna:5", profiles=profiles), games=300, detail=True)
    assert chunk.seats["outposts_placed"][0::2].sum() > 0 and chunk.seats["cards_gained"][0::2].sum() > 0
    check(overlay, config("scripted:mine@1.7,scripted:balanced,luna:2,luna:8", profiles=profiles), games=200)
    check(overlay, config("scripted:mine,scripted:passive,scripted:shares@0.6,luna:4", rounds=6, start_bonus="none",
                          profiles=profiles), games=200)
    check(overlay, config("scripted:shares,scripted:mine", profiles=profiles), games=200)


def test_buyers_with_no_card_to_aim_at_pay_nothing_in_either_engine(tmp_path):
    """Regression (break-it audit, 2026-11-25): a buy planned with no card to aim at carries NO_CARD, which an
    empty display space also holds; the reference took that empty space for the aimed card and charged the
    last action card's price (and, with no action cards at all, raised IndexError). Three buy-only buyers
    empty the display; the engines disagreed on cash in 600 of 800 rows."""
    path = tmp_path / "buyers.toml"
    path.write_text("[players.profiles.shares]\nstart_cash = 40\n"
                    "weights = { invest = 0, expand = 0, helium = 0, research = 0, buy_card = 1, bonus = 0 }\n")
    buyers = load_game_data(path)
    chunk = check(buyers, config("scripted:shares,scripted:shares,scripted:shares,luna:5"), games=200)
    assert chunk.seats["cards_gained"].sum() > 0
    path.write_text("[moon.action_cards]\ncards = []\n")
    check(load_game_data(path), config("scripted:balanced,luna:5"), games=50)


# ---------------------------------------------------------------- chunking and threads

def _concatenate(chunks: list[Chunk]) -> Chunk:
    seats = {name: np.concatenate([c.seats[name] for c in chunks]) for name in chunks[0].seats}
    rounds = {name: np.concatenate([c.rounds[name] for c in chunks]) for name in chunks[0].rounds}
    return Chunk(seats=seats, rounds=rounds)


def test_chunking_invariance(data):
    game_config = config("scripted:balanced,luna:3,luna:6")
    whole = play_chunk_numba(data, game_config, SEED, 0, 1200, True)
    parts = [play_chunk_numba(data, game_config, SEED, first, count, True)
             for first, count in ((0, 1), (1, 299), (300, 600), (900, 300))]
    assert_same(whole, _concatenate(parts), SEED, "chunks 1 + 299 + 600 + 300 vs one chunk of 1200")
    assert_same(play_chunk_reference(data, game_config, SEED, 900, 40, True),
                play_chunk_numba(data, game_config, SEED, 900, 40, True), SEED, "games 900-939 alone")


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has a single thread here")
def test_thread_count_invariance(data, restore_threads):
    game_config = config("scripted:balanced,luna:5")
    games = 3000  # several blocks of games: one thread plays them all, two threads share them
    numba.set_num_threads(1)
    one = play_chunk_numba(data, game_config, SEED, 0, games, True)
    numba.set_num_threads(2)
    two = play_chunk_numba(data, game_config, SEED, 0, games, True)
    assert_same(one, two, SEED, "1 thread vs 2 threads")
    assert_same(play_chunk_reference(data, game_config, SEED, games - 100, 100, True),
                Chunk(seats={k: v[-200:] for k, v in two.seats.items()},
                      rounds={k: v[-700:] for k, v in two.rounds.items()}),
                SEED, "last games of the 2-thread chunk")


# ---------------------------------------------------------------- the Belt side (SPEC 7)

@pytest.mark.parametrize("level", LEVELS)
def test_belt_solo_level(data, level):
    chunk = check(data, config(f"luna:{level}", board="belt"), games=200)
    assert chunk.seats["outposts_placed"].sum() > 0


@pytest.mark.parametrize("profile", SCRIPTED_PROFILES)
def test_belt_profile_against_luna(data, profile):
    check(data, config(f"scripted:{profile},luna:5", board="belt"), games=200)


def test_belt_several_seats_with_detail(data):
    chunk = check(data, config("scripted:balanced@1.5,scripted:shares,luna:3,luna:8", board="belt"), games=200,
                  detail=True)
    assert chunk.seats["ousted"].sum() > 0 and chunk.seats["outposts_ousted_by_luna"].sum() > 0


BELT_OVERLAY = """
name = "exactness test: a cramped Belt (2 shuttles per station, small asteroids, other rewards)"

[belt.stations]
shuttles = 2
setup_outposts = 2

[belt.spaces]
targets = [{ id = 3, capacity = 1 }, { id = 5, capacity = 1 }, { id = 7, capacity = 2 }, { id = 9, capacity = 1 },
           { id = 13, capacity = 1 }, { id = 17, capacity = 2 }]

[belt.rewards]
outpost_space = 3
shuttle_space = 0
"""


def test_belt_overlay(data, tmp_path):
    path = tmp_path / "belt.toml"
    path.write_text(BELT_OVERLAY)
    overlay = load_game_data(path)
    assert overlay.belt.stations.shuttles == 2
    chunk = check(overlay, config("scripted:balanced,luna:2,luna:7", board="belt"), games=200)
    assert chunk.seats["ousted"].sum() > 0
    check(overlay, config("luna:5,luna:5,luna:5,luna:5", board="belt", rounds=6, start_bonus="none"), games=100)


# ---------------------------------------------------------------- what the engine refuses

def test_refuses_what_it_cannot_play(data, tmp_path):
    path = tmp_path / "few_tokens.toml"
    path.write_text('[moon.starting_tokens]\ntokens = [{ helium = 1 }]\n')
    with pytest.raises(ValueError, match=r"starting token per seat: 2 seats, 1 tokens in moon\.starting_tokens\.tokens "
                                         rf"\(in {re.escape(str(path))}\)$"):
        play_chunk_numba(load_game_data(path), config("luna:1,luna:2"), SEED, 0, 5, False)
    # an action's outposts the kernels' int64 arithmetic would not hold as the reference does: the strongest seat
    # (a Seat refuses a strength beyond 1000, as --seats does) times data at the schema's bound
    model = tmp_path / "outposts.toml"
    model.write_text("[players.model]\nexpand_outposts_per_step = 1000000\n")
    with pytest.raises(ValueError, match=r"action strength x players\.model\.expand_outposts_per_step \(in "
                                         rf"{re.escape(str(model))}\)"):
        play_chunk_numba(load_game_data(model), GameConfig(seats=(Seat(kind="scripted", profile="shares",
                                                                       strength=1000.0),
                                                                  Seat(kind="luna", level=3))), SEED, 0, 5, False)


# ---------------------------------------------------------------- rule readings (SPEC section 8)

# each non-default reading alone, the companion-app preset, and every non-default reading at once
READINGS = {readings[1]: f'{switch} = "{readings[1]}"' for switch, readings in RULE_SWITCHES.items()}
READINGS |= {"companion-app": 'preset = "companion-app"', "all": "\n".join(READINGS.values())}


@pytest.mark.parametrize("reading", list(READINGS))
def test_rule_reading(tmp_path, reading):
    path = tmp_path / "reading.toml"
    path.write_text(f"[luna.rules]\n{READINGS[reading]}\n")
    data = load_game_data(path)
    for seats in ("luna:2", "luna:5", "luna:8"):
        check(data, config(seats), games=150, detail=True)
    check(data, config("scripted:balanced,luna:7"), games=100)
    check(data, config("scripted:passive,luna:1,luna:6"), games=100, detail=True)
    check(data, config("luna:6", board="belt"), games=100, detail=True)
    check(data, config("scripted:tank,luna:3", board="belt"), games=100)


@pytest.mark.parametrize("detail", [False, True])
def test_output_rows_are_padded_to_whole_cache_lines_regression_issue_9_scaling(data, detail):
    """Each integer column is a row of one 2-D array whose length in memory is a multiple of 64 bytes, and the
    column a caller gets holds exactly its own rows: with unpadded rows (97,541 games, Luna alone's default
    chunk) the 2-thread kernel ran 6-10 % slower (``sim.fast.kernel.ROW_ALIGN``)."""
    run = config("scripted:balanced,luna:4")
    count = 13  # 26 seat rows and 91 round rows: neither a multiple of 8
    chunk = play_chunk_numba(data, run, SEED, 5, count, detail)
    tables = [(chunk.seats, count * 2)] + ([(chunk.rounds, count * 7)] if detail else [])
    for columns, rows in tables:
        for name, column in columns.items():
            assert len(column) == rows and column.flags.c_contiguous, name
            if name != "won":  # the float column has an array of its own
                assert column.base.ndim == 2 and column.base.strides[0] % 64 == 0, name
    assert_same(play_chunk_reference(data, run, SEED, 5, count, detail), chunk, SEED, "padded rows")
