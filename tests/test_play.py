"""The in-memory API: ``play`` gives a run directory's numbers without writing one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.config import ConfigError, GameConfig, Seat, parse_seats
from sim.gamedata import DataError, load_game_data
from sim.play import Played, play
from sim.run import RunOptions, run_simulation

SEATS = "scripted:balanced@1.2,luna:5"
OVERLAY = {"name": "later tokens", "luna": {"levels": {"5": {"helium_tokens": [9, 15], "research_tokens": [3, 8]}}},
           "players": {"profiles": {"balanced": {"start_cash": 3}}}}
OVERLAY_TOML = """name = "later tokens"
[luna.levels.5]
helium_tokens = [9, 15]
research_tokens = [3, 8]
[players.profiles.balanced]
start_cash = 3
"""


def _run_seats(tmp_path, games, seed, overlay=None, board="moon", **options) -> pd.DataFrame:
    data = load_game_data(overlay)
    config = GameConfig(seats=parse_seats(SEATS, data.players.profiles), board=board)
    out = run_simulation(data, config, RunOptions(games=games, seed=seed, engine="numba", chunk_size=70, **options),
                         tmp_path / "run")
    return pd.read_parquet(out / "seats.parquet")


def test_the_frame_equals_a_run_directorys_seats_parquet(tmp_path):
    played = play(SEATS, 300, seed=11)
    pd.testing.assert_frame_equal(played.frame(), _run_seats(tmp_path, 300, 11))
    assert isinstance(played, Played) and played.games == 300 and played.seed == 11


def test_the_belt_frame_equals_a_belt_run(tmp_path):
    played = play(SEATS, 150, seed=5, board="belt")
    pd.testing.assert_frame_equal(played.frame(), _run_seats(tmp_path, 150, 5, board="belt"))
    assert not played.frame().equals(play(SEATS, 150, seed=5).frame())  # the board changes games


def test_first_game_continues_the_same_games(tmp_path):
    whole = play(SEATS, 200, seed=4)
    tail = play(SEATS, 80, seed=4, first_game=120)
    assert tail.column("game").tolist() == list(range(120, 200))
    np.testing.assert_array_equal(tail.column("score_total"), whole.column("score_total")[120:])
    np.testing.assert_array_equal(tail.column("won", seat=0), whole.column("won", seat=0)[120:])


def test_an_overlay_mapping_plays_as_the_same_overlay_file(tmp_path):
    path = tmp_path / "later.toml"
    path.write_text(OVERLAY_TOML)
    from_mapping = play(SEATS, 200, seed=2, overlay=OVERLAY).frame()
    pd.testing.assert_frame_equal(from_mapping, play(SEATS, 200, seed=2, overlay=path).frame())
    pd.testing.assert_frame_equal(from_mapping, _run_seats(tmp_path, 200, 2, overlay=path))
    assert not from_mapping.equals(play(SEATS, 200, seed=2).frame())  # the overlay changes games
    assert load_game_data(OVERLAY).digest == load_game_data(path).digest


def test_an_overlay_mapping_is_validated_as_a_file_and_named():
    bad = {"luna": {"levels": {"5": {"helium_tokens": [9, 99]}}}}
    with pytest.raises(DataError, match=r"^<overlay>: luna\.levels\.5\.helium_tokens: 99 is off the tank track"):
        load_game_data(bad)
    with pytest.raises(DataError, match=r"^variant 3: luna\.levels\.5\.helium_tokens"):
        load_game_data(bad, label="variant 3")
    with pytest.raises(DataError, match=r"^<overlay>: lunar: unknown table"):
        play("luna:5", 10, overlay={"lunar": {}})
    assert OVERLAY["luna"]["levels"]["5"]["helium_tokens"] == [9, 15]  # the caller's mapping is untouched
    load_game_data(OVERLAY)
    assert OVERLAY["luna"]["levels"]["5"]["helium_tokens"] == [9, 15]


def test_reference_equals_numba_with_detail():
    numba = play(SEATS, 40, seed=9, first_game=1000, detail=True)
    reference = play(SEATS, 40, seed=9, first_game=1000, detail=True, engine="reference")
    for name, values in numba.chunk.seats.items():
        np.testing.assert_array_equal(values, reference.chunk.seats[name], err_msg=name)
    for name, values in numba.chunk.rounds.items():
        np.testing.assert_array_equal(values, reference.chunk.rounds[name], err_msg=name)


def test_summary_is_the_aggregate_of_the_rows():
    played = play("scripted:balanced,scripted:tank,luna:3", 150, seed=1)
    summary = played.summary().to_pandas().set_index(["seat", "column"])
    for seat in range(3):
        for column in ("score_total", "won", "cash"):
            values = played.column(column, seat)
            assert summary.loc[(seat, column), "count"] == 150
            assert summary.loc[(seat, column), "mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert played.column("score_total").tolist() == played.column("score_total", 2).tolist()
    with pytest.raises(ValueError, match="read-only"):
        played.column("score_total")[0] = 0


def test_loaded_data_is_used_as_given():
    data = load_game_data(OVERLAY)
    played = play(parse_seats("luna:5"), 50, seed=3, data=data)
    assert played.data is data
    np.testing.assert_array_equal(played.column("score_total"),
                                  play("luna:5", 50, seed=3, overlay=OVERLAY).column("score_total"))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: play("luna:5", 0), r"^games: must be at least 1, got 0$"),
    (lambda: play("luna:5", "100"), r"^games: must be a whole number, got '100'$"),
    (lambda: play("luna:5", 10, first_game=-1), r"^first_game: must be at least 0"),
    (lambda: play("luna:5", 10, seed=1.5), r"^seed: must be a whole number from 0 to"),
    (lambda: play("luna:5", 10, seed=2**64), r"^seed: must be 0 to 18446744073709551615"),  # played seed 0
    (lambda: play("luna:5", 10, seed=-1), r"^seed: must be 0 to"),  # played seed 2**64 - 1
    (lambda: play("luna:9", 10), r"^seats: unknown Luna level '9'"),
    (lambda: play("scripted:nobody,luna:5", 10), r"unknown scripted profile 'nobody'"),
    (lambda: play("luna:5", 10, engine="turbo"), r"unknown engine 'turbo'"),
    (lambda: play("luna:5", 10, rounds=5), r"^rounds: must be 7"),
    (lambda: play("luna:5", 10, overlay=OVERLAY, data=load_game_data()), r"^overlay: give an overlay or loaded data"),
    (lambda: play("luna:5", 10).column("scores"), r"^column: unknown per-seat column 'scores'"),
    (lambda: play("luna:5", 10).column("won", seat=1), r"^column: seat: must be a seat index 0-0"),
    (lambda: play("luna:5,luna:3", 10).column("won"), r"^column: seat: luna:5,luna:3 has 2 Luna seats"),
    (lambda: play("scripted:tank", 10).column("won"), r"has 0 Luna seats"),
    (lambda: play([Seat("scripted", profile="nobody"), Seat("luna", 5)], 10), r"^seats: unknown scripted profile"),
    (lambda: play(["luna:5"], 10), r"^seats: 'luna:5' is not a Seat"),
])
def test_bad_arguments_are_one_line_value_errors(call, message):
    with pytest.raises(ValueError, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("keywords", "message"), [
    # "rounds: must be 7, or 6 ...; got 6": the value 6 is right, its type is not (a QA pass of the Python API)
    ({"rounds": "6"}, "rounds: must be an integer, got str '6'"),
    ({"rounds": 6.0}, "rounds: must be an integer, got float 6.0"),  # was played
    ({"rounds": True}, "rounds: must be an integer, got bool True"),
    ({"start_bonus": 3}, "start_bonus: must be a string, 'random' or 'none'; got int 3"),
    ({"board": b"moon"}, "board: must be a string, 'moon' or 'belt'; got bytes b'moon'"),
    ({"engine": ["numba"]}, "engine: must be a string, 'reference' or 'numba'; got list ['numba']"),  # unhashable
    ({"seats": 5}, "seats: must be text like 'luna:5' or a sequence of Seat, got int 5"),  # not iterable
    ({"detail": "no"}, "detail: must be True or False, got str 'no'"),  # kept the rows
])
def test_arguments_of_the_wrong_type_say_the_type_is_wrong(keywords, message):
    with pytest.raises(ConfigError) as caught:
        play(**{"seats": "luna:5", "games": 2, "engine": "reference", **keywords})
    assert str(caught.value) == message


def test_without_a_seed_play_gives_the_games_simulate_gives_without_one(tmp_path):
    # play's seed defaulted to 0 while simulate's --seed defaults to 1: "the numbers of simulate" were other games
    from sim.cli import main

    assert main(["simulate", "--seats", "luna:4", "--games", "25", "--engine", "reference", "--quiet",
                 "--out", str(tmp_path / "run")]) == 0
    simulated = pd.read_parquet(tmp_path / "run" / "seats.parquet")["score_total"].tolist()
    assert play("luna:4", 25, engine="reference").frame()["score_total"].tolist() == simulated
