"""Every check of the data schemas, one case each: what it refuses (the one ``file: field: problem`` line a user
reads) and, at its edge, what it must still accept and the engines then play.

From a mutation audit of the validators (``sim/moondata.py``, ``sim/beltdata.py``, ``sim/playerdata.py``,
``sim/gamedata.py``, ``sim/config.py``; 2026-11-25): most checks had no test that gave them data they refuse, so
a check turned off (``or`` made ``and``), moved by one (``>`` made ``>=``) or worded as ``None`` passed every
test. Several of those broken checks let through data that ends in a traceback (an ``IndexError`` in a
validator) or that no engine can play (a starting token with a company and no steps).
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import pytest

from sim import reference as ref
from sim.config import SCRIPTED_PROFILES, ConfigError, GameConfig, parse_seat, parse_seats
from sim.constants import DATA_DIR
from sim.gamedata import DataError, load_game_data, merge_overlay
from sim.invariants import round_checker

SHIPPED = load_game_data()
ADJACENT = [list(neighbours) for neighbours in SHIPPED.moon.sectors.adjacent]
LEVEL = SHIPPED.luna.levels["5"].model_dump()
SWITCHES = "start_position, draw_order, reveal_timing, step_order, early_discard_card, rebuild, multi_expand_order"
COMPANIES = "['astrogo', 'tawac', 'skymine', 'minerva']"


def _problems(*args, **kwargs) -> list[str]:
    with pytest.raises(DataError) as caught:
        load_game_data(*args, **kwargs)
    assert str(caught.value) == "\n".join(caught.value.problems)
    return caught.value.problems


def _adjacent(sector: int, neighbours: list[int]) -> dict:
    adjacent = copy.deepcopy(ADJACENT)
    adjacent[sector - 1] = neighbours
    return {"moon": {"sectors": {"adjacent": adjacent}}}


def _card_action(action: dict) -> dict:
    return {"luna": {"cards": [{"id": "I-1", "actions": [action]}]}}


def _bonus_spaces(middle: list[str]) -> dict:
    return _card_action({"type": "place_bonus_marker", "spaces": [["", "", "", ""], middle, ["D", "E", "", ""]]})


REFUSED = [
    # ---- the overlay's shape (a merge that assumed a table where the data has a number ended in a traceback)
    pytest.param({"bogus": 1}, "bogus: unknown table (an overlay has name, description, luna, moon, players, "
                 "campaign, belt)", id="unknown-table"),
    pytest.param({"luna": {"board": 5}},
                 "luna.board: Input should be a valid dictionary or instance of LunaBoard, not 5",
                 id="number-for-a-table"),
    pytest.param({"luna": {"board": {"tank_max": {"a": 1}}}},
                 "luna.board.tank_max: Input should be a valid integer, not {'a': 1}", id="table-for-a-number"),
    # ---- moon.toml (sim/moondata.py)
    pytest.param({"moon": {"sectors": {"adjacent": ADJACENT[:23]}}},
                 "moon.sectors: adjacent must list the neighbours of all 24 sectors",
                 id="sectors-count"),
    # a sector next to itself, or to one off the board, passed a check turned to `and` (the latter as an IndexError)
    pytest.param(_adjacent(1, [1, 2, 7]), "moon.sectors.adjacent.0: 1 is not another sector", id="sector-itself"),
    pytest.param(_adjacent(1, [2, 7, 25]), "moon.sectors.adjacent.0: 25 is not another sector", id="sector-off-board"),
    pytest.param({"moon": {"companies": ["tawac", "astrogo", "skymine", "minerva"]}},
                 f"moon.companies: must be {COMPANIES} in this order (output columns are named after them)",
                 id="companies-order"),
    pytest.param({"moon": {"stations": {"touches": {"luna": [2]}}}},
                 f"moon: stations.touches must name exactly the companies {COMPANIES}", id="station-unknown"),
    pytest.param({"moon": {"stations": {"touches": {"astrogo": [1, 30]}}}},
                 "moon.stations.touches.astrogo: sectors must be within 1-24", id="station-off-board"),
    pytest.param({"moon": {"stations": {"setup_outposts": 3}}},
                 "moon.stations.touches.astrogo: fewer touched sectors than setup outposts", id="setup-too-many"),
    # more setup outposts than a station holds: both engines played on with a vacancy count past its column
    # (found by a differential soak; --check-invariants stopped game 0 at setup, a plain run exited 0)
    pytest.param({"moon": {"stations": {"columns": 1, "coin_icons": [2], "setup_outposts": 2}}},
                 "moon.stations.setup_outposts: 2 per company, but a station holds 1 outposts (columns x coin_icons)",
                 id="setup-more-than-a-station-holds"),
    pytest.param({"moon": {"stations": {"columns": 1, "coin_icons": [2]}}, "belt": {"stations": {"setup_outposts": 2}}},
                 "belt.stations.setup_outposts: 2 per company, but a station holds 1 outposts (moon.stations: "
                 "columns x coin_icons)", id="belt-setup-more-than-a-station-holds"),
    pytest.param({"moon": {"starting_tokens": {"tokens": [{"company": "luna", "steps": 1}]}}},
                 "moon.starting_tokens.tokens.0.company: unknown company 'luna'", id="token-company"),
    # helium and company at once, or a company without steps: the engines read a token as one or the other
    *[pytest.param({"moon": {"starting_tokens": {"tokens": [token]}}},
                   "moon.starting_tokens.tokens.0: a token gives either helium steps or steps on one company track",
                   id=f"token-{name}")
      for name, token in [("both", {"helium": 1, "company": "astrogo", "steps": 1}),
                          ("no-steps", {"company": "astrogo"}), ("nothing", {})]],
    # the engines place majority markers by type index and never read this row: another order (or length) was
    # accepted and played as the shipped one (found by a differential soak)
    pytest.param({"moon": {"bonus_spaces": {"majority_row": ["minerals", "energy", "carbon", "titanium"]}}},
                 "moon.bonus_spaces.majority_row: must be ['titanium', 'carbon', 'energy', 'minerals'] in this order "
                 "(the engines place a majority bonus marker by type), got ['minerals', 'energy', 'carbon', "
                 "'titanium']", id="majority-row-order"),
    pytest.param({"moon": {"bonus_spaces": {"majority_row": []}}},
                 "moon.bonus_spaces.majority_row: must be ['titanium', 'carbon', 'energy', 'minerals'] in this order "
                 "(the engines place a majority bonus marker by type), got []", id="majority-row-empty"),
    pytest.param({"moon": {"action_cards": {"cards": [{"id": 1, "share": "luna"}]}}},
                 "moon.action_cards.cards.0.share: unknown company 'luna'", id="action-card-share"),
    pytest.param({"moon": {"tracks": {"sides": [{"id": "A1", "thresholds": [
        {"after": 3, "reward": 2}, {"after": 11, "reward": 3}, {"after": 13, "reward": 5}]}]}}},
                 "moon.tracks.sides.0: a barrier and a threshold (or two of either) share a gap", id="shared-gap"),
    pytest.param({"moon": {"tracks": {"sides": [{"id": "A1", "barriers": [
        {"after": 3, "price": 3}, {"after": 15, "price": 5}]}]}}},
                 "moon.tracks: side A1: gap after 15 is not before the last space 15", id="gap-after-last-space"),
    pytest.param({"moon": {"action_cards": {"cards": [{"id": 1, "price": 1}, {"id": 1, "price": 2}]}}},
                 "moon.action_cards.cards: id 1 is given twice", id="id-twice"),
    # ---- belt.toml (sim/beltdata.py)
    pytest.param({"belt": {"stations": {"touches": {"luna": [2]}}}},
                 f"belt.stations.touches: must name exactly the companies {COMPANIES}", id="belt-station-unknown"),
    pytest.param({"belt": {"stations": {"touches": {"astrogo": [1, 21]}}}},
                 "belt.stations.touches.astrogo: targets must be within 1-20", id="belt-station-off-belt"),
    pytest.param({"belt": {"stations": {"touches": {"astrogo": [20]}}}},
                 "belt.stations.touches.astrogo: no asteroid to place the setup outposts on", id="belt-no-asteroid"),
    # two stations' setup outposts on one asteroid add up (4 on asteroid 1's 2 spaces)
    pytest.param({"belt": {"stations": {"setup_outposts": 2, "touches": {"tawac": [1, 6, 7]}}}},
                 "belt.spaces.targets.0.capacity: asteroid 1 gets 4 setup outposts but has 2 outpost spaces",
                 id="belt-shared-asteroid"),
    pytest.param({"belt": {"spaces": {"targets": [{"id": 1, "adjacent": [1, 2]}]}}},
                 "belt.spaces.targets: 1 lists 1 as adjacent, which is not another target", id="belt-target-itself"),
    pytest.param({"belt": {"spaces": {"targets": [{"id": 1, "adjacent": [2, 21]}]}}},
                 "belt.spaces.targets: 1 lists 21 as adjacent, which is not another target", id="belt-target-off"),
    pytest.param({"belt": {"spaces": {"targets": [{"id": 99}]}}},
                 "belt.spaces.targets: no entry with id 99 to replace", id="belt-unknown-target"),
    # ---- players (sim/playerdata.py)
    pytest.param({"players": {"profiles": {"balanced": {"name": "other"}}}},
                 "players.profiles.balanced.name: 'other' differs from the file name 'balanced'", id="profile-name"),
    *[pytest.param({"players": {"model": {"standard_bonus_rewards": rewards}}},
                   "players.model.standard_bonus_rewards: must be 2 rows of 4 (the lower rows of the bonus spaces)",
                   id=f"bonus-rewards-{name}")
      for name, rewards in [("short-row", [[1, 1, 1], [1, 1, 1, 1]]), ("one-row", [[1, 1, 1, 1]])]],
    pytest.param({"players": {"model": {"standard_bonus_rewards": [[1, 1, 1, -1], [1, 1, 1, 1]]}}},
                 "players.model.standard_bonus_rewards: must be at least 0", id="bonus-reward-negative"),
    # ---- luna.toml (sim/gamedata.py)
    pytest.param(_card_action({"type": "gain_card", "select": "match_slot"}),
                 "luna.cards.0.actions.0.gain_card: match_slot needs a display matrix", id="gain-card-no-display"),
    pytest.param(_card_action({"type": "gain_card", "select": "most_valuable_share", "display": [["A"] * 3] * 4}),
                 "luna.cards.0.actions.0.gain_card: most_valuable_share takes no display matrix",
                 id="gain-card-display"),
    # a row without its spaces ended in a TypeError once the check was turned to `and`
    pytest.param(_card_action({"type": "discard_research_plan", "select": "match_slot", "row": "A"}),
                 "luna.cards.0.actions.0.discard_research_plan: match_slot needs a row and its 4 spaces",
                 id="discard-no-spaces"),
    pytest.param(_card_action({"type": "discard_research_plan", "select": "match_slot", "row": "A",
                               "spaces": ["A", "B", "C"]}),
                 "luna.cards.0.actions.0.discard_research_plan: spaces must list 4 cells", id="discard-3-spaces"),
    pytest.param(_card_action({"type": "discard_research_plan", "select": "latest_special", "row": "A"}),
                 "luna.cards.0.actions.0.discard_research_plan: latest_special takes no row or spaces",
                 id="discard-latest-with-row"),
    pytest.param(_card_action({"type": "place_bonus_marker",
                               "spaces": [["A", "", "", ""], ["", "B", "C", ""], ["D", "E", "", ""]]}),
                 "luna.cards.0.actions.0.place_bonus_marker.spaces: the top row holds the majority bonus spaces, "
                 "which Luna never designates", id="bonus-top-row"),
    pytest.param(_bonus_spaces(["A", "B", "C"]), "luna.cards.0.actions.0.place_bonus_marker.spaces: must be 3 rows "
                 "of 4 cells", id="bonus-short-row"),
    pytest.param(_bonus_spaces(["A", "B", "Z", ""]),
                 "luna.cards.0.actions.0.place_bonus_marker.spaces: cell 'Z' may only hold the slot letters A-E",
                 id="bonus-cell"),
    # with no advance before it, a check turned to `and` read before[-1] of an empty list (IndexError)
    pytest.param(_card_action({"type": "expand_company", "count": 1, "company": "most_valuable", "sector": "min"}),
                 "luna.cards.0.actions.0: expand_company must follow an advance_company with the same company",
                 id="expand-alone"),
    pytest.param({"luna": {"final_scoring": {"helium_tank": [[0, 0], [5, 1], [3, 2]]}}},
                 "luna.final_scoring.helium_tank: positions must be strictly increasing", id="scoring-order"),
    pytest.param({"luna": {"final_scoring": {"research_track": [[0, 0], [40, 5]]}}},
                 "luna.final_scoring.research_track: positions must be on the track (0-15)", id="scoring-research"),
    pytest.param({"luna": {"rules": {"presets": {"x": {"bogus": "y"}}}}},
                 f"luna.rules.presets.x.bogus: unknown switch (known: {SWITCHES})", id="preset-switch"),
    pytest.param({"luna": {"rules": {"presets": {"x": {"rebuild": "y"}}}}},
                 "luna.rules.presets.x.rebuild: 'y' is not one of ('lazy', 'immediate')", id="preset-reading"),
    pytest.param({"luna": {"rules": {"preset": "nope", "presets": {"mine": {}}}}},
                 "luna.rules.preset: unknown preset 'nope' (known: companion-app, mine)", id="preset-unknown"),
    pytest.param({"luna": {"levels": {"10": LEVEL}}},
                 "luna.levels.10: not a level (0-8, written as in [luna.levels.5])", id="level-10"),
    pytest.param({"luna": {"cards": [{"id": f"I-{card}", "grade": 2} for card in range(1, 13)]}},
                 "luna.cards: at least one grade-1 card is needed", id="no-grade-1"),
    pytest.param({"luna": {"board": {"research_switch_at": 16}}},
                 "luna.board.research_switch_at: 16 is off the research track (1-15)", id="research-switch"),
    pytest.param({"luna": {"levels": {"5": {"helium_tokens": [29]}}}},
                 "luna.levels.5.helium_tokens: 29 is off the tank track (1-28)", id="helium-token"),
    pytest.param({"luna": {"levels": {"5": {"research_tokens": [16]}}}},
                 "luna.levels.5.research_tokens: 16 is off the research track (1-15)", id="research-token"),
    pytest.param({"luna": {"levels": {"5": {"helium_tokens": [4, 4]}}}},
                 "luna.levels.5.helium_tokens: a position appears twice in [4, 4]", id="helium-token-twice"),
    pytest.param({"luna": {"levels": {"5": {"research_tokens": [3, 3]}}}},
                 "luna.levels.5.research_tokens: a position appears twice in [3, 3]", id="research-token-twice"),
    # each track alone: a check turned to `and` refused only both off at once
    pytest.param({"luna": {"levels": {"5": {"start_helium": 29}}}}, "luna.levels.5: start position off the track",
                 id="start-helium"),
    pytest.param({"luna": {"levels": {"5": {"start_research": 16}}}}, "luna.levels.5: start position off the track",
                 id="start-research"),
]


@pytest.mark.parametrize(("overlay", "problem"), REFUSED)
def test_overlay_a_check_refuses_is_one_line_naming_the_field(overlay, problem):
    assert _problems(overlay) == [f"<overlay>: {problem}"]


@pytest.mark.parametrize(("overlay", "problem"), [
    ({"moon": {"display": {"spaces": 12.0}}}, "moon.display.spaces: Input should be a valid integer, not 12.0"),
    ({"moon": {"research": {"row_spaces": 4.0}}}, "moon.research.row_spaces: Input should be a valid integer, not 4.0"),
    ({"luna": {"cards": [{"id": "I-1", "grade": 1.0}]}},
     "luna.cards.0.grade: Input should be a valid integer, not 1.0"),
])
def test_float_for_a_fixed_whole_number_is_refused(overlay, problem):
    # a field allowing only certain whole numbers (Literal[12]) took 12.0 as 12, where every other whole-number
    # field refuses a float (README, "Data files and overlays": "2.0 where a whole number belongs")
    assert _problems(overlay) == [f"<overlay>: {problem}"]


# The edge of each check, just inside it: loaded as given, and played by the reference engine on both boards with
# every invariant checked after setup and every round (each was refused by a check moved by one).
ACCEPTED = [
    pytest.param({"moon": {"stations": {"setup_outposts": 2}}}, "moon.stations.setup_outposts", 2,
                 id="moon-setup-as-many-as-touched"),
    # every outpost of a station placed at setup, on both boards
    pytest.param({"moon": {"stations": {"columns": 1, "coin_icons": [1, 2], "setup_outposts": 2}},
                  "belt": {"stations": {"setup_outposts": 2}}}, "moon.stations.setup_outposts", 2,
                 id="setup-every-outpost-of-a-station"),
    pytest.param({"moon": {"tracks": {"sides": [{"id": "A1", "barriers": [
        {"after": 3, "price": 3}, {"after": 14, "price": 5}]}]}}}, "moon.tracks.sides.0.barriers.1.after", 14,
                 id="gap-before-the-last-space"),
    # target 20 is the last; two setup outposts fill asteroid 19's two spaces exactly
    pytest.param({"belt": {"stations": {"setup_outposts": 2, "touches": {"minerva": [19, 20]}}}},
                 "belt.stations.touches.minerva", [19, 20], id="belt-last-targets-full"),
    pytest.param({"belt": {"spaces": {"targets": [{"id": 1, "capacity": 4}]}}}, "belt.spaces.targets.0.capacity",
                 4, id="belt-largest-asteroid"),
    pytest.param({"players": {"model": {"standard_bonus_rewards": [[0, 0, 0, 0], [0, 0, 0, 0]]}}},
                 "players.model.standard_bonus_rewards", [[0, 0, 0, 0], [0, 0, 0, 0]], id="bonus-rewards-0"),
    pytest.param({"luna": {"board": {"tank_switch_at": 28, "research_switch_at": 15}}}, "luna.board.tank_switch_at",
                 28, id="switch-on-the-last-space"),
    pytest.param({"luna": {"final_scoring": {"helium_tank": [[0, 1], [28, 60]], "research_track": [[0, 1], [15, 60]]}}},
                 "luna.final_scoring.research_track", [(0, 1), (15, 60)], id="scoring-from-0-to-the-end"),
    pytest.param({"luna": {"levels": {level: {"helium_tokens": [1, 28], "research_tokens": [1, 15]}
                                      for level in ("0", "8")}}},
                 "luna.levels.8.research_tokens", [1, 15], id="tokens-on-the-first-and-last-space"),
    pytest.param({"luna": {"levels": {level: {"start_helium": 28, "start_research": 15} for level in ("0", "8")}}},
                 "luna.levels.8.start_helium", 28, id="start-on-the-last-space"),
    # no grade-2 card at all: the levels that add one play without it
    pytest.param({"luna": {"cards": [{"id": f"II-{card}", "grade": 1} for card in range(1, 8)]}},
                 "luna.cards.18.grade", 1, id="no-grade-2-card"),
    pytest.param({"name": "n", "description": "an overlay may describe itself"}, "luna.board.tank_max", 28,
                 id="description"),
]


def _field(data, path: str):
    value = data
    for part in path.split("."):
        value = value[int(part)] if part.isdigit() and isinstance(value, list) else (
            value[part] if isinstance(value, dict) else getattr(value, part))
    return value


@pytest.mark.parametrize(("overlay", "field", "value"), ACCEPTED)
def test_overlay_at_the_edge_of_a_check_loads_and_plays(overlay, field, value):
    data = load_game_data(overlay)
    assert _field(data, field) == value
    for board in ("moon", "belt"):
        rules = ref.Rules(data, GameConfig(seats=parse_seats("scripted:balanced,scripted:tank,luna:0,luna:8"),
                                           board=board))
        for game in range(3):
            ref.play_game(rules, 5, game, check=round_checker(rules, game))


# ---------------------------------------------------------------- checks only a shipped file can fail

def _data_dir_with(tmp_path: Path, file: str, old: str, new: str) -> tuple[Path, Path]:
    """A private copy of sim/data with ``old`` replaced by ``new`` (each once) in ``file``."""
    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    path = data_dir / file
    text = path.read_text()
    assert text.count(old) == 1, (file, old)
    path.write_text(text.replace(old, new))
    return data_dir, path


# an overlay matches entries by id, so it cannot give one twice or take one away: only an edited file can
SHIPPED_FILE_EDITS = [
    pytest.param("luna.toml", 'id = "I-2"', 'id = "I-1"', "{path}: (top level): card ids must be unique",
                 id="card-id-twice"),
    pytest.param("moon.toml", "{ id = 2, ", "{ id = 1, ", "{path}: action_cards.cards: ids must be unique",
                 id="action-card-id-twice"),
    pytest.param("moon.toml", 'id = "E2"', 'id = "D2"', "{path}: tracks: side ids must be unique", id="side-twice"),
    pytest.param("moon.toml", 'id = "E2"', 'id = "F2"', "{path}: tracks: track E needs both sides E1 and E2",
                 id="side-missing"),
    pytest.param("belt.toml", "{ id = 2,", "{ id = 22,",
                 "{path}: spaces.targets: ids must be the target numbers 1-20 in order, got [1, 22, 3, 4, 5, 6, 7, 8, "
                 "9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]", id="belt-target-numbers"),
    # the check across profiles names the players folder (its path was once dropped for None)
    pytest.param("players/balanced.toml", 'name = "balanced"', 'name = "other"',
                 "{players}: profiles.balanced.name: 'other' differs from the file name 'balanced'",
                 id="profile-name"),
]


@pytest.mark.parametrize(("file", "old", "new", "problem"), SHIPPED_FILE_EDITS)
def test_shipped_file_a_check_refuses_is_one_line_naming_the_file(tmp_path, file, old, new, problem):
    data_dir, path = _data_dir_with(tmp_path, file, old, new)
    assert _problems(data_dir=data_dir) == [problem.format(path=path, players=data_dir / "players")]


def _without_track_e(tmp_path: Path, keep: str) -> Path:
    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    path = data_dir / "moon.toml"
    pattern = rf'\[\[tracks\.sides\]\]\nid = "[{keep}][12]"\n[^\n]*\n[^\n]*\n'
    text, removed = re.subn(pattern, "", path.read_text())
    assert removed == 2 * len(keep)
    path.write_text(text)
    return data_dir


def test_four_tracks_are_enough_and_three_are_not(tmp_path):
    data = load_game_data(data_dir=_without_track_e(tmp_path / "four", "E"))
    assert sorted(side.id for side in data.moon.tracks.sides) == [f"{x}{n}" for x in "ABCD" for n in (1, 2)]
    rules = ref.Rules(data, GameConfig(seats=parse_seats("scripted:balanced,luna:8")))
    ref.play_game(rules, 5, 0, check=round_checker(rules, 0))
    data_dir = _without_track_e(tmp_path / "three", "DE")
    assert _problems(data_dir=data_dir) == [f"{data_dir / 'moon.toml'}: tracks: at least 4 tracks (letters) are needed"]


# ---------------------------------------------------------------- the loader around the checks

def test_every_problem_is_its_own_line():
    problems = _problems({"luna": {"board": {"tank_max": 0, "research_max": 0}}}, label="<mine>")
    assert problems == [f"<mine>: luna.board.{field}: Input should be greater than or equal to 1"
                        for field in ("tank_max", "research_max")]


def test_a_belt_field_s_file_is_the_overlay_that_sets_it():
    data = load_game_data({"belt": {"rewards": {"shuttle_space": 5}}}, label="<mine>")
    assert data.source_of("belt.rewards.shuttle_space") == "<mine>"
    assert data.source_of("belt.spaces") == load_game_data().source_of("belt.spaces") == str(DATA_DIR / "belt.toml")


def test_merging_two_overlays_adds_the_second_one_s_new_entries():
    # sim's tuning merges its trial values over the user's overlay this way
    first = {"luna": {"cards": [{"id": "I-1", "majority": {"left": 1, "right": 0, "scientists": 0}}]}}
    second = {"luna": {"cards": [{"id": "I-3", "majority": {"left": 2, "right": 0, "scientists": 0}}]}}
    merged = merge_overlay(first, second, new_ids=True)
    assert merged == {"luna": {"cards": [first["luna"]["cards"][0], second["luna"]["cards"][0]]}}
    with pytest.raises(DataError, match=r"^luna\.cards: no entry with id 'I-3' to replace$"):
        merge_overlay(first, second, "")


# ---------------------------------------------------------------- options (sim/config.py)

def test_the_strongest_seat_is_allowed():
    assert parse_seat("scripted:balanced@1000").strength == 1000.0


@pytest.mark.parametrize(("make", "parameter", "option", "words"), [
    (lambda: parse_seats("scripted:nope,luna:2"), "seats", "--seats",
     ["'nope'", f"(known: {', '.join(SCRIPTED_PROFILES)})"]),
    (lambda: GameConfig(seats=parse_seats("luna:2"), start_bonus="maybe"), "start_bonus", "--start-bonus",
     ["'random' or 'none'", "'maybe'"]),
    (lambda: GameConfig(seats=parse_seats("luna:2,scripted:passive")), "seats", "--seats", ["Luna sits last"]),
])
def test_option_messages_name_the_option_and_what_it_takes(make, parameter, option, words):
    # named as the caller wrote it: the Python parameter, or on the command line the option
    with pytest.raises(ConfigError) as caught:
        make()
    assert str(caught.value).startswith(f"{parameter}: "), str(caught.value)
    assert caught.value.message(command_line=True).startswith(f"{option}: ")
    assert all(word in str(caught.value) for word in words), str(caught.value)


# ---------------------------------------------------------------- found by the audit, mended

def test_a_level_that_is_no_number_is_named(tmp_path):
    # before: "<overlay>: luna: invalid literal for int() with base 10: 'x'" (the check sorted with int())
    assert _problems({"luna": {"levels": {"x": LEVEL}}}) == [
        "<overlay>: luna.levels.x: not a level (0-8, written as in [luna.levels.5])"]
    # a data folder whose luna.toml itself lists another level reaches the schema's own check
    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    luna = data_dir / "luna.toml"
    luna.write_text(luna.read_text().replace("[levels.8]", "[levels.x]"))
    assert _problems(data_dir=data_dir) == [
        f"{luna}: (top level): levels must be exactly 0-8, got ['0', '1', '2', '3', '4', '5', '6', '7', 'x']"]


@pytest.mark.parametrize("slots", [["A", "C", "D"], ["B", "C", "E"]])
def test_initial_slots_a_or_e_are_refused(slots):
    # before: accepted, and a level without slot switches then started with slot A (or E) ON, which
    # --check-invariants refused in round 0 and a run without it played
    assert _problems({"luna": {"board": {"initial_slots": slots}}}) == [
        f"<overlay>: luna.board.initial_slots: A and E start OFF (the tank and upload switches turn them ON), "
        f"got {slots}"]


def test_too_large_integers_are_found_at_every_depth_once_walked_from_the_top():
    # sim/strict.py walks a model's values once, at the outermost model, and the models inside skip the walk while
    # their outer model validates them: after any validation, and for an inner model validated alone, a too large
    # number must still be refused with its path
    from sim.gamedata import Level, LunaData

    load_game_data({"luna": {"levels": {"5": {"start_helium": 1}}}})  # a validation that passed, first
    with pytest.raises(DataError, match=r"luna\.levels\.5\.start_helium: 1000001 is beyond the largest number"):
        load_game_data({"luna": {"levels": {"5": {"start_helium": 1_000_001}}}})
    with pytest.raises(ValueError, match=r"helium_tokens\.1: 1000001 is beyond the largest number"):
        Level.model_validate({**LEVEL, "helium_tokens": [3, 1_000_001]})
    luna = SHIPPED.luna.model_dump()
    luna["cards"][2]["majority"]["scientists"] = -2_000_000
    with pytest.raises(ValueError, match=r"cards\.2\.majority\.scientists: -2000000 is beyond the largest number"):
        LunaData.model_validate(luna)
    assert LunaData.model_validate(SHIPPED.luna.model_dump(mode="json")) == SHIPPED.luna  # JSON lists made tuples
