"""The scripted-player data (sim/data/players): the shipped profiles and model as SPEC 5 describes them,
the loader's one-line ``file: field: problem`` errors for a broken profile or model (on a private copy
of sim/data), and an overlay adding a profile that ``scripted:NAME`` can then use."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim import reference as ref
from sim.config import SCRIPTED_PROFILES, ConfigError, GameConfig, parse_seats
from sim.gamedata import DataError, load_game_data

from .helpers import clone, copy_data_dir, game_data, kinds


def _problems(**kwargs) -> list[str]:
    with pytest.raises(DataError) as caught:
        load_game_data(**kwargs)
    return caught.value.problems


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))


def test_shipped_profiles_and_model():
    players = game_data().players
    assert set(players.profiles) == set(SCRIPTED_PROFILES)
    assert players.profiles["passive"].passive
    assert sum(players.profiles["passive"].weights.model_dump().values()) == 0
    assert not any(players.profiles[name].passive for name in ("shares", "tank", "balanced", "random"))
    model = players.model
    assert model.bonus_markers_by_humans[:2] == [3, 2]
    assert sorted(model.standard_bonus_preference) == [(row, column) for row in (1, 2) for column in range(4)]


BALANCED_WEIGHTS = "weights = { invest = 3, expand = 2, helium = 3, research = 3, buy_card = 2, bonus = 2 }"
BALANCED_STEPS = "steps_by_round = [4, 4, 5, 5, 6, 6, 7]"


@pytest.mark.parametrize(("old", "new", "field"), [
    # a negative weight
    (BALANCED_WEIGHTS, BALANCED_WEIGHTS.replace("invest = 3", "invest = -3"), "weights.invest"),
    # steps_by_round of 6 entries (one per round: 7 needed)
    (BALANCED_STEPS, "steps_by_round = [4, 4, 5, 5, 6, 6]", "steps_by_round"),
    # an action kind that does not exist
    (BALANCED_WEIGHTS, BALANCED_WEIGHTS.replace("bonus = 2", "bonus = 2, trade = 1"), "weights.trade"),
    # a resource list of the wrong length
    ("scientists = [0, 1, 1, 1, 2, 2, 2]", "scientists = [0, 1, 1, 1, 2, 2, 2, 2]", "resources_by_round.scientists"),
    # an active profile whose weights are all 0 (checked on the whole profile: the line names weights)
    (BALANCED_WEIGHTS, "weights = { invest = 0, expand = 0, helium = 0, research = 0, buy_card = 0, bonus = 0 }",
     "weights"),
])
def test_bad_profile_gives_one_line_naming_the_file(tmp_path, old, new, field):
    data_dir = copy_data_dir(tmp_path)
    path = data_dir / "players" / "balanced.toml"
    _edit(path, old, new)
    (problem,) = _problems(data_dir=data_dir)
    assert "\n" not in problem
    file, where, message = problem.split(": ", 2)
    assert file == str(path) and message
    # the field is named in the field part, or (a check on the whole profile) at the head of the message
    assert where == field or (where == "(top level)" and message.startswith(f"{field}: ")), problem


@pytest.mark.parametrize(("old", "new", "field"), [
    # the preference order misses cell (2, 0)
    ("[1, 1], [2, 3], [2, 0]]", "[1, 1], [2, 3]]", "standard_bonus_preference"),
    # a cell listed twice instead of (2, 0)
    ("[1, 1], [2, 3], [2, 0]]", "[1, 1], [2, 3], [2, 3]]", "standard_bonus_preference"),
    ("bonus_markers_by_humans = [3, 2, 2, 2]", "bonus_markers_by_humans = [3, 2, 2]", "bonus_markers_by_humans"),
    ("expand_outposts_per_step = 0.5", "expand_outposts_per_step = 0", "expand_outposts_per_step"),
])
def test_bad_model_gives_one_line_naming_the_file(tmp_path, old, new, field):
    data_dir = copy_data_dir(tmp_path)
    path = data_dir / "players" / "model.toml"
    _edit(path, old, new)
    (problem,) = _problems(data_dir=data_dir)
    file, where, message = problem.split(": ", 2)
    assert file == str(path) and message
    assert where == field or (where == "(top level)" and message.startswith(f"{field} ")), problem


def test_shipped_data_loads_from_a_copy(tmp_path):
    # the copy itself is valid: the errors above come from the edits alone
    data = load_game_data(data_dir=copy_data_dir(tmp_path))
    assert data.players == game_data().players


NEW_PROFILE = """name = "investor only"
[players.profiles.investor]
name = "investor"
note = "test: invests with every action"
passive = false
weights = { invest = 1, expand = 0, helium = 0, research = 0, buy_card = 0, bonus = 0 }
steps_by_round = [2, 2, 2, 2, 2, 2, 2]
resources_by_round = { titanium = [9, 9, 9, 9, 9, 9, 9], carbon = [0, 0, 0, 0, 0, 0, 0], energy = [0, 0, 0, 0, 0, 0, 0], minerals = [0, 0, 0, 0, 0, 0, 0], scientists = [0, 0, 0, 0, 0, 0, 0] }
"""  # noqa: E501


def test_overlay_adding_a_profile_makes_it_a_seat(tmp_path):
    path = tmp_path / "investor.toml"
    path.write_text(NEW_PROFILE)
    data = load_game_data(path)
    assert set(data.players.profiles) == {*SCRIPTED_PROFILES, "investor"}
    assert data.players.profiles["balanced"] == game_data().players.profiles["balanced"]
    # unknown to the shipped data, usable with the overlay's
    with pytest.raises(ConfigError, match="investor"):
        parse_seats("scripted:investor,luna:2", game_data().players.profiles)
    seats = parse_seats("scripted:investor@2,luna:2", data.players.profiles)
    assert seats[0].profile == "investor" and seats[0].strength == 2.0
    # a game with it: every planned action is invest (weights 1, 0, 0, 0, 0, 0: each draw below(1) = 0)
    rules = ref.Rules(data, GameConfig(seats=seats, start_bonus="none"))
    state, rngs = ref.setup_game(rules, 3, 0)
    player = state.seats[0].player
    assert player.profile.name == "investor" and state.seats[0].cash == 5 and player.markers_in_reserve == 3
    expected = clone(rngs[0])
    ref.play_round(rules, state, rngs, None)
    assert [expected.below(1) for _ in range(3)] == [0, 0, 0] and rngs[0].state == expected.state
    assert kinds(player.plan) == ["invest"] * 3
    # totals: floor(9 * 2) = 18 titanium, strength 2 -> 4 steps an action, 12 in all on the most
    # valuable company's track (or fewer if a barrier stops it)
    assert player.totals == [18, 0, 0, 0, 0]
    assert 0 < sum(state.track_position[0]) <= 12


def test_overlay_editing_a_profile_merges_key_by_key(tmp_path):
    path = tmp_path / "more_bonus.toml"
    path.write_text('name = "more bonus"\n[players.profiles.balanced.weights]\nbonus = 9\n')
    profile = load_game_data(path).players.profiles["balanced"]
    shipped = game_data().players.profiles["balanced"]
    assert profile.weights.bonus == 9 and profile.weights.invest == shipped.weights.invest == 3
    assert profile.steps_by_round == shipped.steps_by_round


def test_overlay_new_profile_missing_a_field_names_the_overlay(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(NEW_PROFILE.replace("steps_by_round = [2, 2, 2, 2, 2, 2, 2]\n", ""))
    (problem,) = _problems(overlay=path)
    file, where, message = problem.split(": ", 2)
    assert (file, where) == (str(path), "players.profiles.investor.steps_by_round") and message
