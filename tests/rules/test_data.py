"""The data files themselves: luna.toml against shared/data/luna_facts.json, moon.toml against the
board model of SPEC 4, and the loader's ``file: field: problem`` errors."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from contract_checker import SHARED_DIR

from sim.gamedata import DATA_DIR, DataError, load_game_data

from .helpers import game_data

FACTS = SHARED_DIR / "data" / "luna_facts.json"


@pytest.fixture(scope="module")
def facts():
    if not FACTS.exists():
        pytest.skip(f"{FACTS} not available")
    return json.loads(FACTS.read_text())


@pytest.fixture(scope="module")
def luna_raw():
    with open(DATA_DIR / "luna.toml", "rb") as handle:
        return tomllib.load(handle)


@pytest.fixture(scope="module")
def moon_raw():
    with open(DATA_DIR / "moon.toml", "rb") as handle:
        return tomllib.load(handle)


# ---------------------------------------------------------------- luna.toml == luna_facts.json


def _without_nulls(value):
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def test_luna_cards_match_the_facts_card_for_card(facts, luna_raw):
    assert [c["id"] for c in luna_raw["cards"]] == [c["id"] for c in facts["cards"]]
    for ours, theirs in zip(luna_raw["cards"], facts["cards"], strict=True):
        assert ours == _without_nulls(theirs), ours["id"]
    assert sum(c["grade"] == 1 for c in luna_raw["cards"]) == 12
    assert sum(c["grade"] == 2 for c in luna_raw["cards"]) == 7


def test_loaded_cards_match_the_facts(facts):
    # the validated models keep every field (nothing dropped or defaulted differently)
    loaded = [card.model_dump(exclude_none=True) for card in game_data().luna.cards]
    assert loaded == [_without_nulls(card) for card in facts["cards"]]


def test_luna_levels_match_the_facts_level_for_level(facts, luna_raw):
    assert luna_raw["levels"] == facts["levels"]
    assert {name: level.model_dump() for name, level in game_data().luna.levels.items()} == facts["levels"]


def test_luna_board_and_scoring_match_the_facts(facts, luna_raw):
    board, theirs = luna_raw["board"], facts["luna_board"]
    assert board["start_crypcoin"] == theirs["start_crypcoin"]
    assert board["bonus_markers"] == theirs["bonus_markers"]
    assert board["initial_slots"] == theirs["initial_action_slots"]
    assert (board["tank_max"], board["tank_switch_at"]) == (theirs["tank_track"]["max"],
                                                           theirs["tank_track"]["slot_switch_at"])
    assert (board["research_max"], board["research_switch_at"]) == (theirs["research_track"]["max"],
                                                                   theirs["research_track"]["slot_switch_at"])
    assert board["past_end_crypcoin_per_step"] == theirs["past_the_end_crypcoin_per_step"]
    scoring = facts["final_scoring_crypcoin"]
    assert luna_raw["final_scoring"]["helium_tank"] == scoring["helium_tank"]
    assert luna_raw["final_scoring"]["research_track"] == scoring["research_track"]


def test_each_bonus_matrix_letters_every_slot_once_and_never_the_majority_row(luna_raw):
    for card in luna_raw["cards"]:
        for action in card["actions"]:
            if action["type"] == "place_bonus_marker":
                cells = "".join(cell for row in action["spaces"] for cell in row)
                assert sorted(cells) == list("ABCDE"), card["id"]
                assert action["spaces"][0] == ["", "", "", ""]


# ---------------------------------------------------------------- moon.toml


def _odd_r_neighbours(rows: int, columns: int) -> list[list[int]]:
    """Hex neighbours on an odd-r offset grid (odd rows shifted right), sectors numbered row-major from 1."""
    result = []
    for row in range(rows):
        for column in range(columns):
            shift = row % 2  # an odd row's diagonal neighbours are at columns c and c + 1, an even row's c - 1 and c
            candidates = [(row, column - 1), (row, column + 1)]
            for other_row in (row - 1, row + 1):
                candidates += [(other_row, column - 1 + shift), (other_row, column + shift)]
            result.append(sorted(r * columns + c + 1 for r, c in candidates if 0 <= r < rows and 0 <= c < columns))
    return result


def test_moon_adjacency_is_the_odd_r_hex_grid(moon_raw):
    sectors = moon_raw["sectors"]
    assert (sectors["rows"], sectors["columns"]) == (4, 6)
    assert [sorted(n) for n in sectors["adjacent"]] == _odd_r_neighbours(4, 6)
    # spot checks by hand: 1 (corner) and 7 (first sector of a shifted row)
    assert sorted(sectors["adjacent"][0]) == [2, 7]
    assert sorted(sectors["adjacent"][6]) == [1, 2, 8, 13, 14]


def test_moon_model_matches_spec_section_4(moon_raw):
    moon = game_data().moon
    assert moon.companies == ["astrogo", "tawac", "skymine", "minerva"]
    assert moon.stations.touches == {"astrogo": [1, 7], "tawac": [6, 12], "skymine": [13, 19], "minerva": [18, 24]}
    assert moon.stations.columns == 3 and moon.stations.coin_icons == [0, 1, 1, 1, 2]
    assert moon.stations.columns * sum(moon.stations.coin_icons) == 15  # a fully vacant station shows 15
    assert moon.stations.columns * len(moon.stations.coin_icons) == 15  # 15 outposts per company
    assert moon.stations.setup_outposts == 1
    assert moon.tracks.spaces == 15
    assert sorted(side.id for side in moon.tracks.sides) == [f"{x}{n}" for x in "ABCDE" for n in (1, 2)]
    for side in moon.tracks.sides:
        assert len(side.barriers) == 2 and all(3 <= b.price <= 6 for b in side.barriers)
        assert len(side.thresholds) == 3 and all(2 <= t.reward <= 5 for t in side.thresholds)
    cards = moon.action_cards.cards
    assert len(cards) == 44
    assert {c: sum(card.share == c for card in cards) for c in moon.companies} == dict.fromkeys(moon.companies, 6)
    assert (moon.research.row_spaces, moon.research.row_deck, moon.research.special_plans) == (4, 24, 6)
    assert len(moon.starting_tokens.tokens) == 10


# ---------------------------------------------------------------- errors: file: field: problem


def _copy_data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def _problems(**kwargs) -> list[str]:
    with pytest.raises(DataError) as caught:
        load_game_data(**kwargs)
    assert caught.value.problems and str(caught.value) == "\n".join(caught.value.problems)
    return caught.value.problems


def test_bad_luna_file_names_file_field_and_problem(tmp_path):
    data_dir = _copy_data(tmp_path)
    path = data_dir / "luna.toml"
    path.write_text(path.read_text().replace("start_crypcoin = 1", "start_crypcoin = -1"))
    problems = _problems(data_dir=data_dir)
    assert len(problems) == 1
    file, field, problem = problems[0].split(": ", 2)
    assert (file, field) == (str(path), "board.start_crypcoin") and problem


def test_bad_card_action_is_located(tmp_path):
    data_dir = _copy_data(tmp_path)
    path = data_dir / "luna.toml"
    text = path.read_text().replace('{ type = "gain_coin", count = 2 },', '{ type = "gain_coin", count = 0 },', 1)
    path.write_text(text)
    problems = _problems(data_dir=data_dir)
    assert all(line.startswith(f"{path}: cards.2.actions.0") for line in problems)


def test_bad_moon_file_names_file_field_and_problem(tmp_path):
    data_dir = _copy_data(tmp_path)
    path = data_dir / "moon.toml"
    path.write_text(path.read_text().replace("  [2, 7],  # 1", "  [2, 8],  # 1"))
    problems = _problems(data_dir=data_dir)
    assert problems == [f"{path}: sectors.adjacent: 1 lists 8 but not the other way round"]


def test_invalid_toml_and_missing_file(tmp_path):
    data_dir = _copy_data(tmp_path)
    (data_dir / "luna.toml").write_text("this is = = not toml")
    (problem,) = _problems(data_dir=data_dir)
    assert problem.startswith(f"{data_dir / 'luna.toml'}: not valid TOML")
    (problem,) = _problems(overlay=tmp_path / "missing.toml")
    assert problem == f"{tmp_path / 'missing.toml'}: file not found"


def _overlay(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "overlay.toml"
    path.write_text(text)
    return path


def test_overlay_bad_value_is_reported_against_the_overlay(tmp_path):
    path = _overlay(tmp_path, 'name = "x"\n[luna.levels.5]\nhelium_tokens = [40]\n')
    (problem,) = _problems(overlay=path)
    file, field, message = problem.split(": ", 2)
    assert (file, field) == (str(path), "luna.levels.5.helium_tokens") and message.startswith("40 is off")


def test_overlay_bad_card_field(tmp_path):
    path = _overlay(tmp_path, '[[luna.cards]]\nid = "I-3"\nmajority = { left = 3, right = 0, scientists = -1 }\n')
    (problem,) = _problems(overlay=path)
    assert problem.startswith(f"{path}: luna.cards.2.majority.scientists: ")


def test_overlay_unknown_card_and_unknown_table(tmp_path):
    path = _overlay(tmp_path, '[[luna.cards]]\nid = "I-99"\ngrade = 1\n')
    (problem,) = _problems(overlay=path)
    assert problem.startswith(f"{path}: luna.cards: ") and "I-99" in problem
    path = _overlay(tmp_path, "bogus = 1\n")
    (problem,) = _problems(overlay=path)
    assert problem.startswith(f"{path}: bogus: ")


def test_valid_overlay_changes_only_what_it_names(tmp_path):
    path = _overlay(tmp_path, 'name = "later tokens"\n[luna.levels.5]\nhelium_tokens = [9, 15]\n')
    data = load_game_data(path)
    shipped = game_data()
    assert data.luna.levels["5"].helium_tokens == [9, 15]
    assert data.luna.levels["5"].research_tokens == shipped.luna.levels["5"].research_tokens
    assert data.luna.cards == shipped.luna.cards and data.digest != shipped.digest
    assert shipped.luna.levels["5"].helium_tokens == [7, 13]
