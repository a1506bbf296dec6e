"""Reproducibility: a game is a function of (seed, game index); each game and each seat owns its stream."""

from __future__ import annotations

from sim import reference as ref
from sim.rng import BOARD_STREAM, Stream, seat_stream

from .helpers import make_rules


def test_same_seed_and_game_give_the_same_game():
    rules = make_rules("scripted:passive,luna:3,luna:7", start_bonus="random")
    first = ref.play_game(rules, 42, 17, detail=True)
    again = ref.play_game(rules, 42, 17, detail=True)
    assert first.seats == again.seats
    assert first.rounds == again.rounds
    assert first.state == again.state


def test_rules_objects_do_not_carry_state_between_games():
    rules = make_rules("luna:5", start_bonus="random")
    fresh = ref.play_game(make_rules("luna:5", start_bonus="random"), 3, 9)
    for game in range(5):
        ref.play_game(rules, 3, game)
    assert ref.play_game(rules, 3, 9).seats == fresh.seats


def test_different_game_index_gives_a_different_stream():
    rules = make_rules("luna:4", start_bonus="random")
    decks = {tuple(ref.setup_game(rules, 42, game)[0].seats[0].luna.deck) for game in range(20)}
    assert len(decks) > 15  # 12! orders: equal decks would mean shared streams
    results = [ref.play_game(rules, 42, game).seats for game in range(10)]
    assert all(results[0] != other for other in results[1:])
    assert Stream(42, 0, seat_stream(0)).next_u64() != Stream(42, 1, seat_stream(0)).next_u64()
    assert Stream(42, 0, BOARD_STREAM).next_u64() != Stream(43, 0, BOARD_STREAM).next_u64()


def test_a_seat_stream_does_not_depend_on_the_other_seats():
    # the Luna in seat 1 shuffles her deck from stream 2 of (seed, game) whoever sits in seat 0
    alone = ref.setup_game(make_rules("scripted:passive,luna:2"), 5, 3)[0].seats[1].luna
    beside = ref.setup_game(make_rules("luna:8,luna:2"), 5, 3)[0].seats[1].luna
    assert alone.deck == beside.deck and alone.grade2_stack == beside.grade2_stack
