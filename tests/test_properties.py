"""Property-based tests (hypothesis) of overlays: every valid one plays, every invalid one is refused.

Valid overlays are generated within the schema bounds (``sim/gamedata.py``, ``sim/playerdata.py``):
Luna's token and start positions, card majority values, her start CrypCoin; the profiles' weights,
steps, resources and start cash, a new profile; the Moon's action cards, track-side prices, starting
tokens and station coin icons; and seat mixes with any strength. Each must load, be playable by the
numba engine, give identical rows with both engines and keep every invariant after every round.
Invalid overlays (a value out of range, a wrong type, an unknown key, a duplicated id, broken TOML)
must end the command line with one ``file: field: problem`` line and exit 2, writing nothing.

The number of examples comes from the hypothesis profile (``tests/conftest.py``): ``ci`` by default,
``HYPOTHESIS_PROFILE=thorough`` for a long local run.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sim import reference as ref
from sim.cli import main
from sim.config import GameConfig, parse_seats
from sim.constants import LEVELS, MAX_SEATS
from sim.engines import engine_function, engine_problems
from sim.gamedata import load_game_data
from sim.invariants import assert_invariants

GAMES = 3  # per example: enough to reach reshuffles and scoring, few enough for many examples
BASE = load_game_data()
TANK, RESEARCH = BASE.luna.board.tank_max, BASE.luna.board.research_max
CARD_IDS = [card.id for card in BASE.luna.cards]
ACTION_CARD_IDS = [card.id for card in BASE.moon.action_cards.cards]
SIDES = {side.id: side for side in BASE.moon.tracks.sides}
PROFILES = sorted(BASE.players.profiles)
COMPANIES = list(BASE.moon.companies)
WEIGHT_KINDS = list(BASE.players.profiles["balanced"].weights.model_dump())
RESOURCES = list(BASE.players.profiles["balanced"].resources_by_round.model_dump())
ROUNDS_OF_PROFILE = len(BASE.players.profiles["balanced"].steps_by_round)
COIN_ICONS = len(BASE.moon.stations.coin_icons)


# ---------------------------------------------------------------- writing TOML


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name) else json.dumps(name)


def toml_value(value: Any) -> str:
    """``value`` as a TOML value (inline tables and arrays); JSON strings are valid TOML basic strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(key)} = {toml_value(item)}" for key, item in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def toml_document(overlay: dict[str, Any]) -> str:
    return "".join(f"{_key(key)} = {toml_value(value)}\n" for key, value in overlay.items())


# ---------------------------------------------------------------- valid overlays

small = st.integers(0, 9)


def _optional(**fields: st.SearchStrategy) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


levels = st.dictionaries(st.sampled_from([str(level) for level in LEVELS]), _optional(
    grade2=st.booleans(), slot_switches=st.booleans(),
    helium_tokens=st.lists(st.integers(1, TANK), max_size=4, unique=True),
    research_tokens=st.lists(st.integers(1, RESEARCH), max_size=4, unique=True),
    start_helium=st.integers(0, TANK), start_research=st.integers(0, RESEARCH)), max_size=3)
luna_cards = st.lists(st.fixed_dictionaries({
    "id": st.sampled_from(CARD_IDS),
    "majority": st.fixed_dictionaries({"left": small, "right": small, "scientists": small})}),
    min_size=1, max_size=4, unique_by=lambda card: card["id"])  # an empty list would replace all of them
luna = _optional(levels=levels, cards=luna_cards,
                 board=_optional(start_crypcoin=st.integers(0, 30), past_end_crypcoin_per_step=st.integers(0, 5)))

weights = st.fixed_dictionaries({kind: st.integers(0, 5) for kind in WEIGHT_KINDS})
per_round = st.lists(st.integers(0, 8), min_size=ROUNDS_OF_PROFILE, max_size=ROUNDS_OF_PROFILE)
resources = st.fixed_dictionaries({name: per_round for name in RESOURCES})
profile_edits = _optional(weights=weights, steps_by_round=per_round, resources_by_round=resources,
                          start_cash=st.integers(0, 20))
new_profile = st.fixed_dictionaries({"name": st.just("mine"), "note": st.just("generated"), "passive": st.just(False),
                                     "weights": weights, "steps_by_round": per_round,
                                     "resources_by_round": resources})
players = st.fixed_dictionaries({"profiles": st.dictionaries(st.sampled_from(PROFILES), profile_edits, max_size=2)},
                                optional={"new": new_profile})

action_cards = st.lists(st.fixed_dictionaries({"id": st.sampled_from(ACTION_CARD_IDS)}, optional={
    "price": small, **{name: st.integers(0, 5) for name in RESOURCES}}), min_size=1, max_size=5,
    unique_by=lambda card: card["id"])
token = st.one_of(st.fixed_dictionaries({"helium": st.integers(1, 3)}),
                  st.fixed_dictionaries({"company": st.sampled_from(COMPANIES), "steps": st.integers(1, 3)}))


@st.composite
def track_sides(draw: st.DrawFn) -> list[dict[str, Any]]:
    """New barrier prices and threshold rewards of some sides, at the shipped gaps (which must differ)."""
    chosen = draw(st.lists(st.sampled_from(sorted(SIDES)), min_size=1, max_size=3, unique=True))
    return [{"id": side,
             "barriers": [{"after": barrier.after, "price": draw(small)} for barrier in SIDES[side].barriers],
             "thresholds": [{"after": threshold.after, "reward": draw(small)}
                            for threshold in SIDES[side].thresholds]} for side in chosen]


moon = _optional(action_cards=st.fixed_dictionaries({"cards": action_cards}),
                 starting_tokens=st.fixed_dictionaries({"tokens": st.lists(token, min_size=MAX_SEATS, max_size=12)}),
                 tracks=st.fixed_dictionaries({"sides": track_sides()}),
                 stations=st.fixed_dictionaries({"coin_icons": st.lists(st.integers(0, 3), min_size=COIN_ICONS,
                                                                        max_size=COIN_ICONS)}))


@st.composite
def valid_overlays(draw: st.DrawFn) -> dict[str, Any]:
    overlay: dict[str, Any] = {"name": "generated"}
    for table, strategy in (("luna", luna), ("moon", moon)):
        content = draw(strategy)
        if content:
            overlay[table] = content
    player_content = draw(players)
    profiles = player_content["profiles"]
    if "new" in player_content:
        profiles["mine"] = player_content["new"]
    for name, edits in profiles.items():  # an active profile needs a positive weight
        passive = edits.get("passive", name in BASE.players.profiles and BASE.players.profiles[name].passive)
        if "weights" in edits and not passive and not any(edits["weights"].values()):
            edits["weights"]["invest"] = 1
    if profiles:
        overlay["players"] = {"profiles": profiles}
    return overlay


@st.composite
def seat_mixes(draw: st.DrawFn, profiles: list[str]) -> str:
    scripted = draw(st.integers(0, 3))
    lunas = draw(st.integers(1, 4 - scripted))
    seats = []
    for _ in range(scripted):
        strength = draw(st.sampled_from(["", "@0.5", "@2"]) | st.floats(0.05, 3.0).map(lambda value: f"@{value:.2f}"))
        seats.append(f"scripted:{draw(st.sampled_from(profiles))}{strength}")
    seats += [f"luna:{draw(st.sampled_from(list(LEVELS)))}" for _ in range(lunas)]
    return ",".join(seats)


def load_overlay(text: str) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.toml"
        path.write_text(text)
        return load_game_data(path)


@given(overlay=valid_overlays(), data=st.data(), seed=st.integers(0, 2**32 - 1), rounds=st.sampled_from([6, 7]),
       start_bonus=st.sampled_from(["random", "none"]))
def test_valid_overlay_plays_identically_in_both_engines_and_keeps_every_invariant(overlay, data, seed, rounds,
                                                                                   start_bonus):
    game_data = load_overlay(toml_document(overlay))
    seats = data.draw(seat_mixes(sorted(game_data.players.profiles)), label="seats")
    config = GameConfig(seats=parse_seats(seats, game_data.players.profiles), rounds=rounds, start_bonus=start_bonus)
    assert engine_problems("numba", game_data, config) == ""  # within the schema bounds is within capacity
    expected = engine_function("reference")(game_data, config, seed, 0, GAMES, True)
    actual = engine_function("numba")(game_data, config, seed, 0, GAMES, True)
    for rows in ("seats", "rounds"):
        want, got = getattr(expected, rows), getattr(actual, rows)
        assert sorted(got) == sorted(want)
        for column in want:
            np.testing.assert_array_equal(got[column], want[column], err_msg=f"{rows}.{column}")
    rules = ref.Rules(game_data, config)
    for game in range(GAMES):
        state, streams = ref.setup_game(rules, seed, game)
        assert_invariants(rules, state)
        for _ in range(rounds):
            ref.play_round(rules, state, streams, None)
            assert_invariants(rules, state)


# ---------------------------------------------------------------- invalid overlays

letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
negative = st.integers(-50, -1)
level_key = st.sampled_from([str(level) for level in LEVELS])
profile = st.sampled_from(PROFILES)
not_an_int = st.one_of(letters.map(lambda text: f"x{text}"), st.just(2.5), st.just([1]), st.just({"a": 1}))


def _at(path: list[str], value: Any) -> dict[str, Any]:
    """The nested tables that put ``value`` at ``path``."""
    for key in reversed(path):
        value = {key: value}
    return value


out_of_range = st.one_of(
    st.tuples(level_key, st.integers(TANK + 1, 99) | st.integers(-9, 0)).map(
        lambda args: _at(["luna", "levels", args[0], "helium_tokens"], [args[1]])),
    st.tuples(level_key, st.integers(RESEARCH + 1, 99) | negative).map(
        lambda args: _at(["luna", "levels", args[0], "start_research"], args[1])),
    st.tuples(st.sampled_from(CARD_IDS), negative).map(
        lambda args: _at(["luna", "cards"], [{"id": args[0], "majority": {"left": args[1], "right": 0,
                                                                           "scientists": 0}}])),
    st.tuples(profile, st.sampled_from(WEIGHT_KINDS), negative).map(
        lambda args: _at(["players", "profiles", args[0], "weights", args[1]], args[2])),
    st.tuples(profile, st.sampled_from([ROUNDS_OF_PROFILE - 1, ROUNDS_OF_PROFILE + 1])).map(
        lambda args: _at(["players", "profiles", args[0], "steps_by_round"], [1] * args[1])),
    st.tuples(st.sampled_from(ACTION_CARD_IDS), negative).map(
        lambda args: _at(["moon", "action_cards", "cards"], [{"id": args[0], "price": args[1]}])),
    st.integers(-5, 0).map(lambda value: _at(["luna", "board", "tank_max"], value)),
)
wrong_type = st.one_of(
    st.tuples(level_key, not_an_int).map(lambda args: _at(["luna", "levels", args[0], "start_helium"], args[1])),
    st.tuples(profile, not_an_int).map(lambda args: _at(["players", "profiles", args[0], "start_cash"], args[1])),
    not_an_int.map(lambda value: _at(["luna", "board", "start_crypcoin"], value)),
    st.tuples(st.sampled_from(ACTION_CARD_IDS), not_an_int).map(
        lambda args: _at(["moon", "action_cards", "cards"], [{"id": args[0], "price": args[1]}])),
    letters.map(lambda text: _at(["moon", "research", "row_deck"], f"x{text}")),
)
unknown_key = st.one_of(
    st.tuples(st.sampled_from([["luna", "board"], ["moon", "research"], ["players", "model"]]), letters).map(
        lambda args: _at([*args[0], f"zz_{args[1]}"], 1)),
    st.tuples(level_key, letters).map(lambda args: _at(["luna", "levels", args[0], f"zz_{args[1]}"], 1)),
    st.tuples(profile, letters).map(lambda args: _at(["players", "profiles", args[0], f"zz_{args[1]}"], 1)),
    letters.map(lambda text: {f"zz_{text}": {"a": 1}}),
)
duplicated_id = st.one_of(
    st.tuples(level_key, st.sampled_from(["helium_tokens", "research_tokens"]), st.integers(1, RESEARCH)).map(
        lambda args: _at(["luna", "levels", args[0], args[1]], [args[2], args[2]])),  # two tokens on one space
    st.sampled_from(CARD_IDS).map(lambda card: _at(["luna", "cards"], [{"id": card}, {"id": card}])),
    st.sampled_from(ACTION_CARD_IDS).map(
        lambda card: _at(["moon", "action_cards", "cards"], [{"id": card, "price": 1}, {"id": card, "price": 2}])),
    st.sampled_from(sorted(SIDES)).map(lambda side: _at(["moon", "tracks", "sides"], [{"id": side}, {"id": side}])),
)
invalid_overlays = st.one_of(out_of_range, wrong_type, unknown_key, duplicated_id).map(toml_document)
broken_toml = st.one_of(
    st.sampled_from(["[luna.levels.5\n", "name = \n", "x = [1, 2\n", "a = 1\na = 2\n", "[luna]\nboard = {\n",
                     "name = 'unclosed\n", "= 3\n", "[[luna.cards]\n", "a.b = 1\na = 2\n"]),
    st.tuples(valid_overlays().map(toml_document), st.sampled_from(["]", "[", "{", "= =", "\"", "\n[\n"]),
              st.integers(0, 400)).map(lambda args: args[0][:args[2]] + args[1] + args[0][args[2]:]),
)


def _invalid(text: str) -> bool:
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True
    return False


@given(text=st.one_of(invalid_overlays, broken_toml.filter(_invalid)))
def test_invalid_overlay_is_one_line_error_exit_2_and_writes_nothing(text):
    with tempfile.TemporaryDirectory() as folder:
        overlay, out = Path(folder) / "bad.toml", Path(folder) / "runs" / "run"
        overlay.write_text(text)
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            code = main(["simulate", "--seats", "luna:2", "--games", "2", "--engine", "reference", "--quiet",
                         "--overlay", str(overlay), "--out", str(out)])
        message = errors.getvalue()
        assert code == 2, message
        assert message.count("\n") == 1, message
        assert re.fullmatch(rf"luna-balance: {re.escape(str(overlay))}: [^:\n]+: [^\n]+\n", message), message
        assert sorted(path.name for path in Path(folder).iterdir()) == ["bad.toml"]


def test_the_toml_writer_round_trips():
    import tomllib

    overlay = {"name": "x", "luna": {"levels": {"5": {"helium_tokens": [1, 2]}}, "cards": [{"id": "I-1"}]},
               "players": {"profiles": {"a-b": {"passive": True, "strength": 1.5}}}}
    assert tomllib.loads(toml_document(overlay)) == overlay


def test_fewer_starting_tokens_than_seats_is_one_line_with_either_engine(tmp_path, capsys):
    overlay = tmp_path / "few_tokens.toml"
    overlay.write_text('[moon.starting_tokens]\ntokens = [{ helium = 1 }]\n')  # found by the property test above
    for engine in ("reference", "numba"):
        assert main(["simulate", "--seats", "luna:1,luna:2", "--games", "2", "--engine", engine, "--quiet",
                     "--overlay", str(overlay), "--out", str(tmp_path / "run")]) == 2
        assert capsys.readouterr().err == ("luna-balance: start_bonus 'random' draws one starting token per seat: "
                                           f"2 seats, 1 tokens in moon.starting_tokens.tokens (in {overlay})\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["few_tokens.toml"]
