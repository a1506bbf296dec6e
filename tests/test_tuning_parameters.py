"""The tunable parameters of Luna's data: their ranges, the overlays they make, and what is refused."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from analysis.study.plan import read_variant
from analysis.tuning.parameters import (
    Parameter,
    all_parameters,
    card_parameters,
    invalid_reason,
    level_parameters,
    overlay_for,
    shipped_luna,
    variant_data,
    write_overlay,
)
from sim.config import GameConfig, parse_seats
from sim.gamedata import DataError, load_game_data
from sim.tables import compile_tables

EVERY = list(all_parameters().values())


def test_level_parameters_name_tokens_starts_and_grade2():
    names = {parameter.name: parameter for parameter in level_parameters(5)}
    assert list(names) == ["levels.5.helium_tokens.0", "levels.5.helium_tokens.1", "levels.5.research_tokens.0",
                           "levels.5.research_tokens.1", "levels.5.grade2"]
    # shipped level 5: helium [7, 13], research [2, 7] on a 28-space tank and a 15-space research track
    assert names["levels.5.helium_tokens.0"] == Parameter("levels.5.helium_tokens.0", "token", 1, 12)
    assert names["levels.5.helium_tokens.1"] == Parameter("levels.5.helium_tokens.1", "token", 8, 28)
    assert names["levels.5.research_tokens.1"].value() == 7
    assert names["levels.5.grade2"].value() == 1 and names["levels.5.grade2"].kind == "switch"
    level8 = {parameter.name: parameter for parameter in level_parameters(8)}
    # level 8 starts on tank space 5 with tokens [8, 11]: the first token lies after the start
    assert level8["levels.8.helium_tokens.0"].low == 6
    assert level8["levels.8.start_helium"] == Parameter("levels.8.start_helium", "start", 0, 7)
    assert [parameter.name for parameter in level_parameters(1)] == ["levels.1.grade2"]
    assert "levels.5.start_helium" not in names  # start positions are tuned at levels 6-8 only
    with pytest.raises(ValueError, match="level: must be one of 0-8"):
        level_parameters(9)


def test_card_parameters_are_every_number_on_every_card():
    cards = {parameter.name: parameter for parameter in card_parameters()}
    raw = shipped_luna()
    expected = sum(3 + bool(card.get("reveal")) + sum("count" in action for action in card["actions"])
                   for card in raw["cards"])
    assert len(cards) == expected
    assert cards["cards.I-6.majority.left"].value() == 4
    assert cards["cards.I-4.reveal.count"].value() == 2
    assert cards["cards.I-10.actions.2.count"].value() == 3  # the expansion's points
    assert (cards["cards.I-6.majority.left"].low, cards["cards.I-6.majority.left"].high) == (0, 12)
    assert (cards["cards.II-6.actions.1.count"].low, cards["cards.II-6.actions.1.count"].high) == (1, 8)
    assert {parameter.kind for parameter in cards.values()} == {"card"}


@pytest.mark.parametrize("parameter", EVERY, ids=[parameter.name for parameter in EVERY])
def test_every_parameter_one_step_within_range_loads_and_outside_is_refused(parameter):
    shipped = parameter.value()
    assert parameter.low <= shipped <= parameter.high
    config = GameConfig(seats=parse_seats("scripted:balanced,luna:5"))
    for value in (shipped - 1, shipped + 1):
        if parameter.low <= value <= parameter.high:
            assert invalid_reason({parameter.name: value}) is None
            data = load_game_data(overlay_for({parameter.name: value}), label=parameter.name)
            compile_tables(data, config)  # the numba engine can play it too
    for value in (parameter.low - 1, parameter.high + 1):
        reason = invalid_reason({parameter.name: value})
        assert reason and "\n" not in reason, value


def test_combined_values_and_their_order():
    overlay = overlay_for({"levels.5.helium_tokens.0": 8, "levels.5.helium_tokens.1": np.int64(14),
                           "levels.5.grade2": 0, "cards.I-3.actions.0.count": 3, "cards.I-3.majority.left": 2})
    assert overlay["luna"]["levels"] == {"5": {"helium_tokens": [8, 14], "grade2": False}}
    [card] = overlay["luna"]["cards"]
    assert card["id"] == "I-3" and card["majority"] == {"left": 2}
    assert [action.get("count") for action in card["actions"]] == [3, 2, None]  # the action list is whole
    data = load_game_data(overlay)
    assert data.luna.levels["5"].helium_tokens == [8, 14] and not data.luna.levels["5"].grade2
    # moving both tokens keeps them in order although 14 is past the first token's range alone
    assert invalid_reason({"levels.5.helium_tokens.0": 14, "levels.5.helium_tokens.1": 20}) is None
    assert "increasing order" in invalid_reason({"levels.5.helium_tokens.0": 14, "levels.5.helium_tokens.1": 10})
    assert "increasing order" in invalid_reason({"levels.7.start_research": 5})
    assert "a position appears twice" in invalid_reason({"levels.5.research_tokens.0": 7})
    assert "off the tank track" in invalid_reason({"levels.5.helium_tokens.1": 29})
    # named as the parameter is, as the order check names it (sensitivity's skipped table mixed the two forms)
    assert invalid_reason({"levels.5.helium_tokens.1": 29}).startswith("levels.5.helium_tokens")
    assert invalid_reason({"levels.5.helium_tokens.0": 14, "levels.5.helium_tokens.1": 10}).startswith("levels.5.")
    assert "not a tunable parameter" in invalid_reason({"levels.5.start_helium": 1})
    assert "must be an integer" in invalid_reason({"levels.5.helium_tokens.0": 7.5})
    with pytest.raises(ValueError, match=r"^board\.tank_max: not a tunable parameter"):
        overlay_for({"board.tank_max": 30})


def test_values_read_from_other_raw_data():
    raw = shipped_luna()
    raw["levels"]["4"]["helium_tokens"] = [10, 17]
    tokens = {parameter.name: parameter for parameter in level_parameters(4, raw)}
    assert tokens["levels.4.helium_tokens.0"].value(raw) == 10 and tokens["levels.4.helium_tokens.0"].high == 16
    assert overlay_for({"levels.4.helium_tokens.1": 18}, raw)["luna"]["levels"]["4"]["helium_tokens"] == [10, 18]
    assert set(all_parameters(raw)) == set(all_parameters())


def test_a_written_overlay_loads_as_overlay_fors_data(tmp_path):
    values = {"levels.5.helium_tokens.0": 9, "levels.5.research_tokens.1": 8, "cards.II-6.actions.1.count": 3,
              "cards.I-4.reveal.count": 1}
    overlay = overlay_for(values)
    path = tmp_path / "tuned.toml"
    write_overlay(path, overlay, "tuned level 5", "tokens moved by the tuner")
    written = tomllib.loads(path.read_text())
    assert written.pop("name") == "tuned level 5" and written.pop("description") == "tokens moved by the tuner"
    assert written == overlay
    assert load_game_data(path).digest == load_game_data(overlay).digest
    variant, _ = read_variant(path)  # study --variant accepts it as is
    assert variant.title == "tuned level 5"
    assert [p.name for p in tmp_path.iterdir()] == ["tuned.toml"]  # no temporary file left


def test_variant_data_equals_loading_the_overlay():
    base = load_game_data()
    values = {"levels.6.start_helium": 2, "cards.I-6.majority.left": 5, "levels.6.grade2": 0}
    variant = variant_data(values, base)
    assert variant.digest == load_game_data(overlay_for(values)).digest
    assert variant.moon is base.moon and variant.sources[-1] == "<values>"
    assert base.luna.levels["6"].start_helium == 1  # the base is untouched
    with pytest.raises(DataError, match=r"^try 2: luna\.levels\.6\.helium_tokens"):
        variant_data({"levels.6.helium_tokens.0": 29}, base, label="try 2")


_WRITE_IN_A_C_LOCALE = """
import os, sys
from analysis.tuning.parameters import write_overlay
os.umask(0o022)
write_overlay(sys.argv[1], {}, "tuned level 4", "moved", ["win rate 0.50 \\u00b1 0.01"])
"""


def test_tuned_toml_was_private_and_could_not_be_written_in_a_c_locale(tmp_path):
    # a QA pass: tune wrote tuned.toml through open()'s locale encoding, so under LC_ALL=C the "±" of its comment
    # failed the whole tuning at its end; and mkstemp's 0600 stayed, where every other output file is 0644
    path = tmp_path / "tuned.toml"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "LC_ALL": "C", "PYTHONUTF8": "0",
           "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run([sys.executable, "-c", _WRITE_IN_A_C_LOCALE, str(path)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "# win rate 0.50 ± 0.01\n" in path.read_text(encoding="utf-8")
    assert path.stat().st_mode & 0o777 == 0o644
    assert [item.name for item in tmp_path.iterdir()] == ["tuned.toml"]
