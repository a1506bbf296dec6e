"""Rule readings as switches (SPEC section 8): the data that selects them, and each non-default reading
on a hand-traced round, on both engines, next to the default it differs from."""

from __future__ import annotations

import tomllib

import pytest

from sim.constants import RULE_SWITCHES
from sim.gamedata import DATA_DIR, DataError, load_game_data
from sim.tables import compile_tables, reading_code

from .helpers import game_data

DEFAULTS = {"start_position": "add", "draw_order": "slots_first", "reveal_timing": "planning",
            "step_order": "card_order", "early_discard_card": "slot_cards", "rebuild": "lazy",
            "multi_expand_order": "less_valuable_first"}
COMPANION_APP = {"draw_order": "majority_first", "reveal_timing": "first_turn", "step_order": "helium_then_research",
                 "early_discard_card": "discard_pile"}


def overlay(tmp_path, text: str, name: str = "overlay.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- the data


def test_shipped_readings_are_the_spec_section_2_defaults():
    rules = game_data().luna.rules
    assert rules.readings() == DEFAULTS and rules.preset == ""
    assert set(DEFAULTS) == set(RULE_SWITCHES)
    assert all(RULE_SWITCHES[switch][0] == reading for switch, reading in DEFAULTS.items())


def test_every_switch_is_commented_in_luna_toml():
    text = (DATA_DIR / "luna.toml").read_text()
    for switch, readings in RULE_SWITCHES.items():
        comment = text[text.index(f"# {switch}:"):text.index(f"\n{switch} = ")]
        assert all(f'"{reading}"' in comment for reading in readings), switch
        assert "rulebook" in comment or "companion app" in comment or "decided" in comment, switch


def test_the_companion_app_preset_is_defined_once_in_the_data():
    with open(DATA_DIR / "luna.toml", "rb") as handle:
        raw = tomllib.load(handle)
    assert raw["rules"]["presets"]["companion-app"] == COMPANION_APP


def test_an_overlay_sets_a_switch(tmp_path):
    data = load_game_data(overlay(tmp_path, '[luna.rules]\nrebuild = "immediate"\n'))
    assert data.luna.rules.readings() == DEFAULTS | {"rebuild": "immediate"}
    assert data.digest != game_data().digest


def test_an_overlay_selects_the_preset(tmp_path):
    data = load_game_data(overlay(tmp_path, '[luna.rules]\npreset = "companion-app"\n'))
    assert data.luna.rules.readings() == DEFAULTS | COMPANION_APP


def test_a_preset_replaces_the_switches_it_names_and_keeps_the_others(tmp_path):
    text = '[luna.rules]\npreset = "companion-app"\nstep_order = "card_order"\nrebuild = "immediate"\n'
    readings = load_game_data(overlay(tmp_path, text)).luna.rules.readings()
    assert readings == DEFAULTS | COMPANION_APP | {"rebuild": "immediate"}


def test_an_overlay_defines_its_own_preset(tmp_path):
    text = '[luna.rules]\npreset = "mine"\n[luna.rules.presets.mine]\nmulti_expand_order = "more_valuable_first"\n'
    readings = load_game_data(overlay(tmp_path, text)).luna.rules.readings()
    assert readings == DEFAULTS | {"multi_expand_order": "more_valuable_first"}


@pytest.mark.parametrize(("text", "field", "problem"), [
    ('draw_order = "sideways"', "luna.rules.draw_order", "Input should be 'slots_first' or 'majority_first'"),
    ('rebuild = 1', "luna.rules.rebuild", "Input should be 'lazy' or 'immediate'"),
    ('preset = "nope"', "luna.rules.preset", "unknown preset 'nope' (known: companion-app)"),
    ('shuffle = "twice"', "luna.rules.shuffle", "Extra inputs are not permitted"),
    ('presets = { mine = { rebuild = "never" } }', "luna.rules.presets.mine.rebuild",
     "'never' is not one of ('lazy', 'immediate')"),
    ('presets = { mine = { speed = "fast" } }', "luna.rules.presets.mine.speed", "unknown switch"),
])
def test_an_unknown_reading_is_a_one_line_error(tmp_path, text, field, problem):
    path = overlay(tmp_path, f"[luna.rules]\n{text}\n")
    with pytest.raises(DataError) as error:
        load_game_data(path)
    assert len(error.value.problems) == 1
    assert error.value.problems[0].startswith(f"{path}: {field}: {problem}")


@pytest.mark.parametrize("switch", list(RULE_SWITCHES))
def test_the_tables_carry_each_reading_as_its_code(tmp_path, switch):
    from sim.config import GameConfig, parse_seats

    config = GameConfig(seats=parse_seats("luna:5"), rounds=7, start_bonus="random")
    other = RULE_SWITCHES[switch][1]
    data = load_game_data(overlay(tmp_path, f'[luna.rules]\n{switch} = "{other}"\n'))
    codes = compile_tables(data, config)["rules"][0].tolist()
    assert codes == [reading_code(name, data.luna.rules.readings()[name]) for name in RULE_SWITCHES]
    assert codes == [int(name == switch) for name in RULE_SWITCHES]
    assert compile_tables(game_data(), config)["rules"][0].tolist() == [0] * len(RULE_SWITCHES)
