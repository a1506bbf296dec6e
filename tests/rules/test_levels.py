"""Setup and difficulty levels (SPEC 2, "Setup" and "Levels"): decks per level, start positions,
the starting research token, Luna tokens at levels 3-8 (reach or pass, top of deck, once each,
nothing from an empty stack; setup fires none, and a slot whose switch a setup position reaches is ON)."""

from __future__ import annotations

import pytest

from sim import reference as ref
from sim.config import GameConfig, parse_seats
from sim.gamedata import load_game_data
from sim.invariants import assert_invariants
from sim.rng import BOARD_STREAM, Stream, seat_stream

from .helpers import game_data, make_rules, new_game

LEVEL_TOKENS = {  # luna.toml / luna_facts.json: helium tokens, research tokens, start helium, start research
    3: ([11, 19], [5, 10], 0, 0),
    4: ([9, 16], [4, 8], 0, 0),
    5: ([7, 13], [2, 7], 0, 0),
    6: ([6, 13], [4, 8], 1, 1),
    7: ([7, 10], [5, 7], 3, 2),
    8: ([8, 11], [5, 7], 5, 3),
}


# ---------------------------------------------------------------- setup


@pytest.mark.parametrize("level", range(9))
def test_setup_per_level(level, engine):
    rules, state, rngs = new_game(f"luna:{level}", seed=6, game=level, engine=engine)
    seat = state.seats[0]
    luna = seat.luna
    # decks: the seat stream shuffles the grade-1 cards (data order), then the grade-2 cards at levels 2-8
    stream = Stream(6, level, seat_stream(0))
    deck, stack = list(rules.grade1), list(rules.grade2)
    stream.shuffle(deck)
    assert luna.deck == deck and len(deck) == 12
    assert all(rules.cards[c].grade == 1 for c in deck)
    if level >= 2:
        stream.shuffle(stack)
        assert luna.grade2_stack == stack and len(stack) == 7
    else:
        assert luna.grade2_stack == []
    assert rngs[0].state == stream.state
    assert luna.discard == [] and luna.slots == [ref.NO_CARD] * 5 and luna.majority == [ref.NO_CARD] * 2
    assert luna.slot_on == [False, True, True, True, False]
    assert seat.cash == 1 and luna.markers_in_reserve == 5 and seat.cards == []
    helium_tokens, research_tokens, start_helium, start_research = LEVEL_TOKENS.get(level, ([], [], 0, 0))
    assert (luna.helium, luna.research) == (start_helium, start_research)
    assert (luna.helium_tokens, luna.research_tokens) == (helium_tokens, research_tokens)
    assert state.track_position == [[0, 0, 0, 0]]
    assert (luna.reshuffles, luna.grade2_by_token, luna.grade2_by_reshuffle) == (0, 0, 0)
    assert_invariants(rules, state)


def _overlay_game(tmp_path, toml: str, seats: str, engine, board: str = "moon", start_bonus: str = "none"):
    """``(rules, state)`` of game (11, 0) on the shipped data with ``toml`` overlaid, straight after setup."""
    overlay = tmp_path / "setup_edge.toml"
    overlay.write_text(f'name = "setup edge"\n{toml}')
    data = load_game_data(overlay)
    rules = ref.Rules(data, GameConfig(seats=parse_seats(seats), start_bonus=start_bonus, board=board))
    engine.use_data(rules, data)
    state, _ = engine.setup_game(rules, 11, 0)
    return rules, state


def test_start_positions_on_or_past_tokens_and_switches(tmp_path, engine):
    # Overlay: level 6 starts on helium 8 (the tank switch; past its token 6) and research 5 (past the
    # upload switch 4 and its token 4). The level places her markers there after nothing moved them:
    # no token fires, now or later, and both switches are reached, so A and E are ON from the start.
    rules, state = _overlay_game(tmp_path, "[luna.levels.6]\nstart_helium = 8\nstart_research = 5\n",
                                 "luna:6", engine)
    luna = state.seats[0].luna
    assert (luna.helium, luna.research) == (8, 5)
    assert luna.slot_on == [True, True, True, True, True]
    assert len(luna.deck) == 12 and len(luna.grade2_stack) == 7 and luna.grade2_by_token == 0
    assert (luna.helium_tokens, luna.research_tokens) == ([13], [8])  # 6 and 4 lie behind her for good
    engine.gain_helium(rules, state, 0, 4)  # 8 -> 12: passes no token
    engine.advance_research(rules, state, 0, 2)  # 5 -> 7: likewise
    assert luna.grade2_by_token == 0
    engine.gain_helium(rules, state, 0, 1)  # 12 -> 13: the token ahead fires as usual
    engine.advance_research(rules, state, 0, 1)  # 7 -> 8: likewise
    assert luna.grade2_by_token == 2 and len(luna.grade2_stack) == 5
    assert_invariants(rules, state)


def test_start_positions_exactly_on_both_switches(tmp_path, engine):
    """A level starting exactly on both switch spaces (tank 8, upload 4; no shipped level starts on either) has
    slots A and E ON from the start: a start position that reaches a switch space switches it, on the upload track
    as on the tank. The test above starts her upload marker past its switch (5), so a mutation of the numba setup
    switching E only past the space (``>`` for ``>=``) survived every test (mutation pass on ``sim/fast``). Level
    6's tokens on tank 6 and upload 4 lie on or behind her markers and are left off."""
    rules, state = _overlay_game(tmp_path, "[luna.levels.6]\nstart_helium = 8\nstart_research = 4\n",
                                 "luna:6", engine)
    luna = state.seats[0].luna
    assert (luna.helium, luna.research) == (8, 4)
    assert luna.slot_on == [True, True, True, True, True]
    assert (luna.helium_tokens, luna.research_tokens) == ([13], [8])
    assert_invariants(rules, state)


def test_start_positions_past_the_switches_switch_nothing_at_level_0(tmp_path, engine):
    # Overlay: level 0 (no ON/OFF markers) starting on helium 9 and research 4: A and E stay OFF.
    _, state = _overlay_game(tmp_path, "[luna.levels.0]\nstart_helium = 9\nstart_research = 4\n",
                             "luna:0", engine)
    luna = state.seats[0].luna
    assert (luna.helium, luna.research) == (9, 4)
    assert luna.slot_on == [False, True, True, True, False]


@pytest.mark.parametrize("board", ["moon", "belt"])
def test_starting_bonus_onto_a_luna_token_fires_nothing(tmp_path, board, engine):
    # Regression: setup applied the starting token after her tokens were on the board, so a bonus that
    # reached one fired it. EN 35 applies the bonus; only then (EN 56-62) are the tokens placed.
    # Overlay: level 5 helium tokens [2, 13]. Game (11, 0) gives her a 2-helium starting token (0 -> 2).
    rules, state = _overlay_game(tmp_path, "[luna.levels.5]\nhelium_tokens = [2, 13]\n", "luna:5", engine,
                                 board=board, start_bonus="random")
    luna = state.seats[0].luna
    stack = list(luna.grade2_stack)
    assert luna.helium == 2 and luna.slot_on == [False, True, True, True, False]
    assert len(luna.deck) == 12 and len(stack) == 7 and luna.grade2_by_token == 0
    assert luna.helium_tokens == [13]
    engine.gain_helium(rules, state, 0, 3)  # 2 -> 5: the token on 2 lies behind her and never fires
    assert luna.grade2_by_token == 0 and len(luna.deck) == 12
    engine.gain_helium(rules, state, 0, 8)  # 5 -> 13: the one ahead does
    assert luna.grade2_by_token == 1 and luna.deck[-1] == stack[-1] and luna.helium_tokens == []
    assert_invariants(rules, state)


def test_starting_bonus_past_the_switch_and_a_token_switches_a_on_and_fires_nothing(tmp_path, engine):
    # Overlay: level 8 starts on helium 7 (tokens 8 and 11). Game (11, 0)'s 2-helium starting token takes
    # her to 9: the printed switch on 8 is reached (slot A ON before round 1); the token on 8, placed
    # after the bonus, lies behind her and never fires.
    rules, state = _overlay_game(tmp_path, "[luna.levels.8]\nstart_helium = 7\n", "luna:8", engine,
                                 start_bonus="random")
    luna = state.seats[0].luna
    assert luna.helium == 9 and luna.slot_on == [True, True, True, True, False]
    assert len(luna.deck) == 12 and len(luna.grade2_stack) == 7 and luna.grade2_by_token == 0
    assert luna.helium_tokens == [11]
    engine.gain_helium(rules, state, 0, 2)  # 9 -> 11: only the token on 11 fires
    assert luna.grade2_by_token == 1 and len(luna.grade2_stack) == 6
    assert_invariants(rules, state)


def test_a_token_on_the_start_space_never_fires(tmp_path, engine):
    # Overlay: level 6 with a helium token on its start space 1. Starting there triggers nothing, and
    # moving on from there does not "reach" it either.
    overlay = tmp_path / "start_token.toml"
    overlay.write_text('name = "token on the start space"\n[luna.levels.6]\nhelium_tokens = [1, 13]\n')
    data = load_game_data(overlay)
    rules = ref.Rules(data, GameConfig(seats=parse_seats("luna:6"), start_bonus="none"))
    engine.use_data(rules, data)
    state, _ = engine.setup_game(rules, 1, 0)
    luna = state.seats[0].luna
    engine.gain_helium(rules, state, 0, 3)
    assert luna.helium == 4 and luna.grade2_by_token == 0 and len(luna.grade2_stack) == 7


def _board_token_picks(seed: int, game: int, seats: int) -> list[int]:
    """Starting-token indices per seat, re-deriving setup_game's documented board-stream draws."""
    stream = Stream(seed, game, BOARD_STREAM)
    stream.shuffle(list("ABCDE"))
    for _ in range(4):
        stream.below(2)
    stream.shuffle(list(range(44)))
    pool, picks = list(range(10)), []
    for _ in range(seats):
        pick = stream.below(len(pool))
        picks.append(pool[pick])
        pool[pick] = pool[-1]
        pool.pop()
    return picks


@pytest.mark.parametrize(("seats", "seed", "game"), [("luna:2", 1, 0), ("luna:8", 4, 7),
                                                      ("scripted:passive,luna:3,luna:6", 2, 5),
                                                      ("luna:0,luna:1,luna:5,luna:7", 9, 3)])
def test_one_random_starting_token_is_applied_to_each_luna(seats, seed, game, engine):
    with_token = make_rules(seats, start_bonus="random")
    without = make_rules(seats, start_bonus="none")
    state, _ = engine.setup_game(with_token, seed, game)
    plain, _ = engine.setup_game(without, seed, game)
    picks = _board_token_picks(seed, game, len(with_token.config.seats))
    assert len(set(picks)) == len(picks)  # drawn without replacement
    for seat, holder in enumerate(state.seats):
        token = with_token.tokens[picks[seat]]
        if holder.luna is None:
            assert state.track_position[seat] == [0, 0, 0, 0]
            continue
        base = plain.seats[seat].luna
        if token.helium is not None:
            assert holder.luna.helium == base.helium + token.helium
            assert state.track_position[seat] == [0, 0, 0, 0]
        else:
            company = with_token.companies.index(token.company)
            expected = [0, 0, 0, 0]
            expected[company] = token.steps
            assert state.track_position[seat] == expected and holder.luna.helium == base.helium
        assert holder.luna.research == base.research
        assert holder.luna.deck == base.deck  # the token draw does not touch the seat streams
    assert_invariants(with_token, state)


# ---------------------------------------------------------------- Luna tokens


def test_token_reached_exactly_puts_a_grade2_card_on_top(engine):
    rules, state, _ = new_game("luna:4")  # helium tokens 9, 16
    luna = state.seats[0].luna
    luna.helium = 7
    top_of_stack, deck_before = luna.grade2_stack[-1], list(luna.deck)
    engine.gain_helium(rules, state, 0, 2)
    assert luna.helium == 9 and luna.helium_tokens == [16]
    assert luna.deck == [*deck_before, top_of_stack] and len(luna.grade2_stack) == 6
    assert luna.grade2_by_token == 1
    assert_invariants(rules, state)


def test_token_passed_fires_too(engine):
    rules, state, _ = new_game("luna:4")
    luna = state.seats[0].luna
    luna.helium = 7
    top_of_stack = luna.grade2_stack[-1]
    engine.gain_helium(rules, state, 0, 4)  # 7 -> 11 passes 9
    assert luna.helium == 11 and luna.helium_tokens == [16]
    assert luna.deck[-1] == top_of_stack and luna.grade2_by_token == 1


def test_one_move_passing_two_tokens_puts_two_cards_in_stack_order(engine):
    # Level 7 helium tokens 7 and 10: 6 -> 10 fires both. The first fired card (the stack's top) goes on
    # the deck, then the second (the next stack card) on top of it.
    rules, state, _ = new_game("luna:7")
    luna = state.seats[0].luna
    luna.helium = 6
    first, second = luna.grade2_stack[-1], luna.grade2_stack[-2]
    deck_before = list(luna.deck)
    engine.gain_helium(rules, state, 0, 4)
    assert luna.deck == [*deck_before, first, second]
    assert luna.helium_tokens == [] and luna.grade2_by_token == 2 and len(luna.grade2_stack) == 5


def test_research_tokens_fire_the_same_way(engine):
    rules, state, _ = new_game("luna:7")  # research tokens 5, 7; starts on 2
    luna = state.seats[0].luna
    first, second = luna.grade2_stack[-1], luna.grade2_stack[-2]
    engine.advance_research(rules, state, 0, 5)  # 2 -> 7: both
    assert luna.research == 7 and luna.research_tokens == [] and luna.deck[-2:] == [first, second]
    assert luna.slot_on[4]  # passed 4 on the way


# Reference only: it puts the marker back below a fired token, which never happens in a game; the numba
# engine reads the tokens from the level's table, so its state cannot hold a fired token ahead of the marker.
def test_each_token_fires_once():
    rules, state, _ = new_game("luna:4")
    luna = state.seats[0].luna
    luna.helium = 8
    ref.gain_helium(rules, state, 0, 1)  # 9: fires
    ref.gain_helium(rules, state, 0, 1)  # 10: a marker beyond a fired token fires nothing more
    assert luna.grade2_by_token == 1 and len(luna.grade2_stack) == 6
    luna.helium = 8  # even standing on 9 again does not fire it a second time
    ref.gain_helium(rules, state, 0, 1)
    assert luna.grade2_by_token == 1
    luna.helium = 10
    ref.gain_helium(rules, state, 0, 6)  # 16: the second token
    assert luna.grade2_by_token == 2 and luna.helium_tokens == []


def test_token_with_an_empty_stack_gives_nothing(engine):
    rules, state, _ = new_game("luna:4")
    luna = state.seats[0].luna
    luna.discard, luna.grade2_stack, luna.grade2_by_reshuffle = list(luna.grade2_stack), [], 7
    deck_before = list(luna.deck)
    luna.helium = 8
    engine.gain_helium(rules, state, 0, 1)
    assert luna.deck == deck_before and luna.grade2_by_token == 0
    assert luna.helium_tokens == [16]  # the token is used up all the same
    assert_invariants(rules, state)


@pytest.mark.parametrize("level", sorted(LEVEL_TOKENS))
def test_every_token_of_levels_3_to_8(level, engine):
    # From the start, the whole tank then the whole research track: each of the level's 4 tokens fires
    # once, putting the stack's cards on the deck in stack order.
    rules, state, _ = new_game(f"luna:{level}")
    luna = state.seats[0].luna
    stack = list(luna.grade2_stack)
    deck_before = list(luna.deck)
    fired = []
    for position in range(luna.helium + 1, 29):
        engine.gain_helium(rules, state, 0, 1)
        if position in LEVEL_TOKENS[level][0]:
            fired.append(position)
            assert luna.deck[-1] == stack[-len(fired)]
    for position in range(luna.research + 1, 16):
        engine.advance_research(rules, state, 0, 1)
        if position in LEVEL_TOKENS[level][1]:
            fired.append(position)
            assert luna.deck[-1] == stack[-len(fired)]
    assert len(fired) == 4 and luna.grade2_by_token == 4
    assert luna.deck == deck_before + stack[::-1][:4] and luna.grade2_stack == stack[:3]


@pytest.mark.parametrize("level", [0, 1, 2])
def test_no_tokens_below_level_3(level, engine):
    rules, state, _ = new_game(f"luna:{level}")
    luna = state.seats[0].luna
    deck_before = list(luna.deck)
    engine.gain_helium(rules, state, 0, 28)
    engine.advance_research(rules, state, 0, 15)
    assert luna.deck == deck_before and luna.grade2_by_token == 0


# ---------------------------------------------------------------- whole games per level


# Reference only: whole games (play_game); tests/test_engine_exactness.py compares the numba engine's
# whole games with the reference's, column by column.
@pytest.mark.parametrize("level", range(9))
def test_grade2_cards_only_where_the_level_uses_them(level):
    rules = make_rules(f"luna:{level}", start_bonus="random")
    grade2 = set(rules.grade2)
    for game in range(15):
        result = ref.play_game(rules, 13, game, detail=True)
        luna = result.state.seats[0].luna
        played = {c for record in result.rounds[0] for c in record.cards if c != ref.NO_CARD}
        if level <= 1:
            assert not played & grade2 and luna.grade2_by_reshuffle == luna.grade2_by_token == 0
        if level == 2:  # one grade-2 card per rebuild (a game rebuilds fewer than 7 times); no tokens
            assert luna.grade2_by_reshuffle == luna.reshuffles > 0
        if level >= 3:
            assert luna.grade2_by_token <= 4


# Engine-independent: it reads the game data, which both engines load the same way.
def test_the_levels_in_the_data_are_the_rulebook_levels():
    levels = game_data().luna.levels
    for level in range(9):
        spec = levels[str(level)]
        assert spec.grade2 == (level >= 2) and spec.slot_switches == (level >= 1)
        tokens = LEVEL_TOKENS.get(level, ([], [], 0, 0))
        assert (spec.helium_tokens, spec.research_tokens, spec.start_helium, spec.start_research) == tokens
