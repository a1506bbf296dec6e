"""Rule readings as switches (SPEC section 8): the data that selects them, and each non-default reading
on a hand-traced round, on both engines, next to the default it differs from."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from sim import reference as ref
from sim.config import GameConfig, parse_seats
from sim.constants import RULE_SWITCHES
from sim.gamedata import (
    DATA_DIR,
    AdvanceCompany,
    DataError,
    GainCoin,
    GameData,
    load_game_data,
)
from sim.invariants import assert_invariants
from sim.moondata import StartingToken
from sim.tables import compile_tables, reading_code

from .helpers import (
    ASTROGO,
    MINERVA,
    NO,
    SKYMINE,
    TAWAC,
    assign_sides,
    card,
    cards,
    clone,
    game,
    game_data,
    ids,
    owned,
    set_board,
    set_majority,
)

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
    config = GameConfig(seats=parse_seats("luna:5"), rounds=7, start_bonus="random")
    other = RULE_SWITCHES[switch][1]
    data = load_game_data(overlay(tmp_path, f'[luna.rules]\n{switch} = "{other}"\n'))
    codes = compile_tables(data, config)["rules"][0].tolist()
    assert codes == [reading_code(name, data.luna.rules.readings()[name]) for name in RULE_SWITCHES]
    assert codes == [int(name == switch) for name in RULE_SWITCHES]
    assert compile_tables(data, config)["rules_any"][0] == 1  # the kernels leave their default path
    shipped = compile_tables(game_data(), config)
    assert shipped["rules"][0].tolist() == [0] * len(RULE_SWITCHES) and shipped["rules_any"][0] == 0


# ---------------------------------------------------------------- hand-traced rounds, both engines


def with_readings(base: GameData, **changes) -> GameData:
    """``base`` with the named switches set (and, under the key ``cards``/``tokens``, other Luna cards or
    starting tokens)."""
    cards = changes.pop("cards", base.luna.cards)
    luna = base.luna.model_copy(update={"cards": cards, "rules": base.luna.rules.model_copy(update=changes)})
    return dataclasses.replace(base, luna=luna)


def stack_deck(rules, luna, *top_first: str) -> None:
    """Her deck with these cards on top (the first named on the very top), the rest of it below."""
    chosen = cards(rules, *top_first)
    luna.deck = [c for c in luna.deck if c not in chosen] + chosen[::-1]


@pytest.mark.parametrize(("level", "reading", "helium"), [(6, "add", 3), (6, "place", 1), (5, "place", 2)])
def test_start_position(engine, level, reading, helium):
    # Every starting token gives 2 helium steps here. Level 6 places her markers on tank 1 and upload 1
    # (its white numbers). add: the token's steps go on top, 1 + 2 = 3. place: the level's placement
    # overrides them, she stays on 1. Level 5 places nothing: the token applies under either reading (2).
    # Level 6's Luna tokens lie on tank 6 and 13: none is reached, nothing fires.
    base = game_data()
    moon = base.moon.model_copy(update={"starting_tokens": base.moon.starting_tokens.model_copy(
        update={"tokens": [StartingToken(helium=2)] * 10})})
    data = with_readings(dataclasses.replace(base, moon=moon), start_position=reading)
    _, state, _ = game(f"luna:{level}", engine, data, start_bonus="random")
    luna = state.seats[0].luna
    assert (luna.helium, luna.research, luna.grade2_by_token) == (helium, 1 if level == 6 else 0, 0)


@pytest.mark.parametrize(("start_helium", "start_research", "reading", "helium"),
                         [(0, 1, "add", 2), (0, 1, "place", 0), (1, 0, "add", 3), (1, 0, "place", 1)])
def test_start_position_of_a_level_that_places_one_marker(engine, start_helium, start_research, reading, helium):
    """A level whose white numbers place only one of her markers (no shipped level does: levels 6-8 place both)
    still places her markers (``places_markers``: either start position above 0). Every starting token gives 2
    helium steps: add, they go on top of the level's tank position; place, the level's placement overrides them.
    Level 6's Luna tokens lie on tank 6 and 13: none is reached. Pins ``drops_token_helium`` asking for both start
    positions: a mutation asking for the tank's alone survived every other test (mutation pass on ``sim/fast``)."""
    base = game_data()
    moon = base.moon.model_copy(update={"starting_tokens": base.moon.starting_tokens.model_copy(
        update={"tokens": [StartingToken(helium=2)] * 10})})
    level = base.luna.levels["6"].model_copy(update={"start_helium": start_helium, "start_research": start_research})
    data = with_readings(dataclasses.replace(base, moon=moon, luna=base.luna.model_copy(
        update={"levels": {**base.luna.levels, "6": level}})), start_position=reading)
    _, state, _ = game("luna:6", engine, data, start_bonus="random")
    luna = state.seats[0].luna
    assert (luna.helium, luna.research, luna.grade2_by_token) == (helium, start_research, 0)


@pytest.mark.parametrize("reading", ["slots_first", "majority_first"])
def test_draw_order(engine, reading):
    # Level 5 (Luna tokens on tank 7 and 13), tank marker on 5, slots B C D ON. Deck, top first:
    # I-4 I-5 I-2 I-3 I-6; I-4 and I-5 reveal helium +2 each, the others reveal nothing.
    # slots_first: B C D = I-4 I-5 I-2, majority I-3 I-6: no reveal, tank stays on 5.
    # majority_first: majority I-4 I-5 first; reveals 5 -> 7 (token: the grade-2 stack's top card g goes
    # on top of the deck) -> 9 (8 switches slot A ON, first used next round); then B C D = g I-2 I-3.
    rules, state, rngs = game("luna:5", engine, with_readings(game_data(), draw_order=reading))
    luna = state.seats[0].luna
    luna.helium = 5
    stack_deck(rules, luna, "I-4", "I-5", "I-2", "I-3", "I-6")
    g = luna.grade2_stack[-1]
    engine.plan_luna(rules, state, 0, rngs[0])
    if reading == "slots_first":
        assert ids(rules, luna.slots) == ["-", "I-4", "I-5", "I-2", "-"] and ids(rules, luna.majority) == ["I-3", "I-6"]
        assert (luna.helium, luna.grade2_by_token, luna.slot_on[0]) == (5, 0, False)
    else:
        assert luna.slots == [NO, g, *cards(rules, "I-2", "I-3"), NO] and ids(rules, luna.majority) == ["I-4", "I-5"]
        assert (luna.helium, luna.grade2_by_token, luna.slot_on[0]) == (9, 1, True)
        assert ids(rules, luna.deck[-1:]) == ["I-6"]


@pytest.mark.parametrize("reading", ["planning", "first_turn"])
def test_reveal_timing(engine, reading):
    # Level 5, tank on 5. Deck, top first: I-2 I-3 I-6 (slots B C D), I-4 I-5 (majority, helium +2 each).
    # planning: the reveals move her at once, 5 -> 9: token 7 fires (grade-2 card g on top of the deck),
    # slot A ON. first_turn: after planning she is still on 5 with nothing fired; her first turn carries
    # both reveals before B's card (I-2: second most valuable company +2): 5 -> 9, g on top. After that
    # turn both readings stand alike.
    rules, state, rngs = game("luna:5", engine, with_readings(game_data(), reveal_timing=reading))
    luna = state.seats[0].luna
    luna.helium = 5
    stack_deck(rules, luna, "I-2", "I-3", "I-6", "I-4", "I-5")
    g = luna.grade2_stack[-1]
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots[1:4]) == ["I-2", "I-3", "I-6"] and ids(rules, luna.majority) == ["I-4", "I-5"]
    if reading == "planning":
        assert (luna.helium, luna.grade2_by_token, luna.slot_on[0], luna.deck[-1]) == (9, 1, True, g)
    else:
        assert (luna.helium, luna.grade2_by_token, luna.slot_on[0]) == (5, 0, False) and luna.deck[-1] != g
    engine.luna_turn(rules, state, 0, rngs[0])
    assert (luna.helium, luna.grade2_by_token, luna.slot_on[0], luna.deck[-1]) == (9, 1, True, g)
    assert luna.next_turn_slot == 2 and sum(state.track_position[0]) == 2
    # her second turn (C's I-3: 2 CrypCoin, most valuable company +2, a bonus marker) carries no reveal under either
    # reading: the first turn's only (reveals on every turn, 9 -> 13 here, passed every test: a QA pass)
    engine.luna_turn(rules, state, 0, rngs[0])
    assert (luna.helium, luna.grade2_by_token, luna.next_turn_slot) == (9, 1, 3)


@pytest.mark.parametrize(("reading", "cash"), [("card_order", 2), ("helium_then_research", 0)])
def test_step_order(engine, reading, cash):
    # The shipped cards already list CrypCoin, helium and research first, so this test edits I-3 to
    # "advance the most valuable company 2, then gain 2 CrypCoin". Tracks A1 B1 C1 D1, every station
    # [1,0,0]: astrogo (A1) is the most valuable. Luna on astrogo space 3 with 1 CrypCoin; A1's barrier
    # after 3 costs 3. card_order: she pays what she has (1 -> 0), moves 3 -> 5, then +2: 2.
    # helium_then_research: CrypCoin first (1 -> 3), then the barrier takes 3: 0.
    base = game_data()
    actions = [AdvanceCompany(type="advance_company", count=2, company="most_valuable"),
               GainCoin(type="gain_coin", count=2)]
    edited = [c.model_copy(update={"actions": actions}) if c.id == "I-3" else c for c in base.luna.cards]
    rules, state, _ = game("luna:2", engine, with_readings(base, cards=edited, step_order=reading))
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    state.track_position[0] = [3, 0, 0, 0]
    engine.resolve_card(rules, state, 0, card(rules, "I-3"), 1)
    assert state.track_position[0] == [5, 0, 0, 0] and state.seats[0].cash == cash


@pytest.mark.parametrize("reading", ["card_order", "helium_then_research"])
def test_step_order_adds_the_turns_crypcoin_to_her_cash(engine, reading):
    # I-3 edited to "gain 2 CrypCoin" alone: with 4 CrypCoin she ends on 6 under either reading (the
    # grouped reading sums the turn's CrypCoin and adds it; it does not replace her cash).
    base = game_data()
    edited = [c.model_copy(update={"actions": [GainCoin(type="gain_coin", count=2)]}) if c.id == "I-3" else c
              for c in base.luna.cards]
    rules, state, _ = game("luna:2", engine, with_readings(base, cards=edited, step_order=reading))
    state.seats[0].cash = 4
    engine.resolve_card(rules, state, 0, card(rules, "I-3"), 1)
    assert state.seats[0].cash == 6


@pytest.mark.parametrize(("reading", "seed", "drawn", "kept", "gone"), [
    ("slot_cards", 7, 3, ["I-5", "-"], "I-8"),
    ("discard_pile", 7, 3, ["-", "I-8"], "I-5"),
    # seed 6: below(8) picks pile card 5, the first of this round's three shuffled slot cards (not the new top
    # card, 7), whose right value is larger. (Drawing among the old cards only passed every test: a QA pass.)
    ("discard_pile", 6, 5, ["I-5", "-"], "I-8"),
])
def test_early_discard_card(engine, reading, seed, drawn, kept, gone):
    # Slots B C D hold I-1 I-4 I-7 (their right value is larger); the discard pile holds I-2 I-3 I-6
    # I-11 I-12 (left larger); majority I-5 (left), I-8 (right).
    # slot_cards: the new top card is a slot card: the right majority card I-8 goes to the pile now.
    # discard_pile: after the shuffle of B C D one below(8) picks a card of the whole pile of 8; with seed 7 it is
    # pile card 3 (I-11, an old one, left larger): the left majority card I-5 goes instead.
    rules, state, rngs = game("luna:2", engine, with_readings(game_data(), early_discard_card=reading), seed=seed)
    luna = state.seats[0].luna
    luna.slots = [NO, *cards(rules, "I-1", "I-4", "I-7"), NO]
    luna.discard = cards(rules, "I-2", "I-3", "I-6", "I-11", "I-12")
    luna.majority = cards(rules, "I-5", "I-8")
    luna.deck = [c for c in luna.deck if c not in luna.slots + luna.discard + luna.majority]
    draws = clone(rngs[0])
    draws.shuffle([0, 1, 2])
    assert draws.below(8) == drawn
    engine.end_luna_actions(rules, state, 0, rngs[0])
    assert luna.discard[:5] == cards(rules, "I-2", "I-3", "I-6", "I-11", "I-12") and luna.passed
    assert ids(rules, luna.majority) == kept and ids(rules, luna.discard[-1:]) == [gone]


@pytest.mark.parametrize("reading", ["lazy", "immediate"])
def test_rebuild(engine, reading):
    # Level 2. Deck: exactly the 5 cards planning draws (I-1 I-2 I-3 I-6 I-7, no reveals); the other
    # 7 grade-1 cards on the discard pile. lazy: the deck is empty after planning and stays so until a
    # card must be drawn (next round, from 12 discarded cards + 1 grade-2). immediate: the 5th draw
    # empties it, so the 7 discarded cards + the grade-2 stack's top card g become the deck at once
    # (one shuffle of her stream); this round's 5 cards miss that deck.
    rules, state, rngs = game("luna:2", engine, with_readings(game_data(), rebuild=reading), seed=4)
    luna = state.seats[0].luna
    luna.deck = cards(rules, "I-7", "I-6", "I-3", "I-2", "I-1")
    luna.discard = [c for c in rules.grade1 if c not in luna.deck]
    rebuilt = [*luna.discard, luna.grade2_stack[-1]]
    clone(rngs[0]).shuffle(rebuilt)
    engine.plan_luna(rules, state, 0, rngs[0])
    assert ids(rules, luna.slots[1:4]) == ["I-1", "I-2", "I-3"] and ids(rules, luna.majority) == ["I-6", "I-7"]
    if reading == "lazy":
        assert (luna.deck, len(luna.discard), luna.reshuffles, luna.grade2_by_reshuffle) == ([], 7, 0, 0)
    else:
        assert (luna.deck, luna.discard, luna.reshuffles, luna.grade2_by_reshuffle) == (rebuilt, [], 1, 1)


@pytest.mark.parametrize("reading", ["less_valuable_first", "more_valuable_first"])
def test_multi_expand_order(engine, reading):
    # II-7 (advance two_biggest_leads 2, expand them 2 MIN each), solo, markers [0, 3, 0, 2]: tawac and
    # minerva, each advanced 2 (tawac 3 -> 5, minerva 2 -> 4; thresholds pay 2 + 2: cash 5). Setup
    # stations all [1,0,0]: equal values, tawac's B1 sorts before minerva's D1, so tawac is more valuable.
    # less_valuable_first (tests/rules/test_expansion.py): minerva 11, 5; tawac 12, then nothing vacant:
    #   oust minerva from 5 -> tawac 5 6 12, minerva 11 18, one ousted.
    # more_valuable_first: tawac 6 reaches 5 11 12: MIN 5; 5 adds 4 10: MIN 4 -> tawac 4 5 6.
    #   minerva 18 reaches 11 12 17 23 24: MIN 11; 11 adds 10: MIN 10 -> minerva 10 11 18. Nobody ousted.
    rules, state, _ = game("luna:2", engine, with_readings(game_data(), multi_expand_order=reading))
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_board(rules, state, {1: ASTROGO, 6: TAWAC, 13: SKYMINE, 18: MINERVA})
    state.track_position[0] = [0, 3, 0, 2]
    engine.resolve_card(rules, state, 0, card(rules, "II-7"), 1)
    luna = state.seats[0].luna
    assert state.track_position[0] == [0, 5, 0, 4] and state.seats[0].cash == 5
    if reading == "less_valuable_first":
        assert owned(state, TAWAC) == [5, 6, 12] and owned(state, MINERVA) == [11, 18]
        assert (luna.outposts_placed, luna.ousted) == (4, 1)
    else:
        assert owned(state, TAWAC) == [4, 5, 6] and owned(state, MINERVA) == [10, 11, 18]
        assert (luna.outposts_placed, luna.ousted) == (4, 0)
    assert_invariants(rules, state)


@pytest.mark.parametrize("reading", ["less_valuable_first", "more_valuable_first"])
def test_multi_expand_order_goes_by_value_not_by_company(engine, reading):
    # As test_multi_expand_order, but minerva (the later company) is the more valuable: a second outpost
    # on 24 leaves its station at [2,0,0] against tawac's [1,0,0]. II-7 chooses tawac and minerva.
    # less_valuable_first: tawac 6 reaches 5 11 12: MIN 5; 5 adds 4 10: MIN 4 -> tawac 4 5 6.
    #   minerva 18 24 reach 11 12 17 23: MIN 11; 11 adds 10: MIN 10 -> minerva 10 11 18 24. Nobody ousted.
    # more_valuable_first: minerva first: MIN 11; 11 adds 5 10: MIN 5 -> minerva 5 11 18 24.
    #   tawac reaches 5 11 12: MIN 12; 12 adds 18, nothing vacant: oust minerva (the only rival) from MIN
    #   5 -> tawac 5 6 12, minerva 11 18 24, one ousted.
    rules, state, _ = game("luna:2", engine, with_readings(game_data(), multi_expand_order=reading))
    assign_sides(rules, state, "A1", "B1", "C1", "D1")
    set_board(rules, state, {1: ASTROGO, 6: TAWAC, 13: SKYMINE, 18: MINERVA, 24: MINERVA})
    state.track_position[0] = [0, 3, 0, 2]
    engine.resolve_card(rules, state, 0, card(rules, "II-7"), 1)
    luna = state.seats[0].luna
    if reading == "less_valuable_first":
        assert owned(state, TAWAC) == [4, 5, 6] and owned(state, MINERVA) == [10, 11, 18, 24]
        assert (luna.outposts_placed, luna.ousted) == (4, 0)
    else:
        assert owned(state, TAWAC) == [5, 6, 12] and owned(state, MINERVA) == [11, 18, 24]
        assert (luna.outposts_placed, luna.ousted) == (4, 1)
    assert_invariants(rules, state)


def test_first_turn_reveals_come_even_without_a_slot_card(engine):
    # reveal_timing = first_turn, every slot empty (a state the shipped deck never leaves at planning),
    # majority I-4 and I-5 (helium +2 each): her one turn carries both reveals (tank 0 -> 4), then she
    # cleans up and passes; with no slot card on the pile nothing decides an early discard.
    rules, state, rngs = game("luna:2", engine, with_readings(game_data(), reveal_timing="first_turn"))
    luna = state.seats[0].luna
    set_majority(rules, state, 0, "I-4", "I-5")
    luna.slots = [NO] * 5
    luna.next_turn_slot, luna.passed, luna.helium = 0, False, 0
    engine.luna_turn(rules, state, 0, rngs[0])
    assert (luna.helium, luna.passed) == (4, True)
    assert ids(rules, luna.majority) == ["I-4", "I-5"]


@pytest.mark.parametrize("switch", [*RULE_SWITCHES, "all"])
def test_whole_games_under_each_reading_keep_the_invariants(switch, check_every_round):
    # the rules tests' checker (conftest) runs the invariants after every round play_game plays
    others = {name: readings[1] for name, readings in RULE_SWITCHES.items() if switch in (name, "all")}
    data = with_readings(game_data(), **others)
    before = check_every_round.rounds_checked
    for seats in ("luna:3", "luna:8", "scripted:balanced,luna:2,luna:6"):
        rules = ref.Rules(data, GameConfig(seats=parse_seats(seats), rounds=7, start_bonus="random"))
        for number in range(8):
            ref.play_game(rules, 17, number)
    assert check_every_round.rounds_checked - before == 3 * 8 * 7
