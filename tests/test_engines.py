"""The engines' common ground: the registry, the reference adapter's columns, and what each engine can play."""

from __future__ import annotations

import subprocess
import sys

import numba
import numpy as np
import pytest

from sim.columns import ROUND_NUMERIC, SEAT_NUMERIC
from sim.config import GameConfig, Seat, parse_seats
from sim.engines import ENGINES, can_play, engine_function, engine_problems, play_chunk_reference
from sim.gamedata import load_game_data

DATA = load_game_data()


def test_registry_names_both_engines_and_refuses_others():
    assert set(ENGINES) == {"reference", "numba"}
    assert engine_function("reference") is play_chunk_reference
    with pytest.raises(ValueError, match="unknown engine 'turbo'"):
        engine_function("turbo")
    with pytest.raises(ValueError, match="unknown engine 'turbo'"):
        can_play("turbo", DATA, GameConfig(seats=parse_seats("luna:5")))


def test_reference_chunk_has_the_contract_columns():
    config = GameConfig(seats=parse_seats("scripted:passive,luna:3"))
    chunk = play_chunk_reference(DATA, config, 4, 10, 3, True)
    assert list(chunk.seats) == ["game", "seat", *SEAT_NUMERIC] and list(chunk.rounds) == list(ROUND_NUMERIC)
    assert chunk.seats["won"].dtype == np.float64 and chunk.seats["score_total"].dtype == np.int64
    assert chunk.seats["game"].tolist() == [10, 10, 11, 11, 12, 12]
    assert len(chunk.rounds["round"]) == 3 * config.rounds
    assert (chunk.rounds["grade2_entered"]
            == chunk.rounds["grade2_by_reshuffle"] + chunk.rounds["grade2_by_token"]).all()


def test_can_play_checks_the_numba_capacities(tmp_path):
    config = GameConfig(seats=parse_seats("luna:1,luna:2"))
    assert can_play("numba", DATA, config) and can_play("reference", DATA, config)
    overlay = tmp_path / "few_tokens.toml"
    overlay.write_text('[moon.starting_tokens]\ntokens = [{ helium = 1 }]\n')
    few_tokens = load_game_data(overlay)
    assert not can_play("numba", few_tokens, config)
    assert "starting token" in engine_problems("numba", few_tokens, config)
    # the strongest seat (MAX_STRENGTH) times data at the schema's bound: more outposts than int64 loops hold
    model = tmp_path / "outposts.toml"
    model.write_text("[players.model]\nexpand_outposts_per_step = 1000000\n")
    huge = GameConfig(seats=(Seat(kind="scripted", profile="shares", strength=1000.0), Seat(kind="luna", level=3)))
    assert not can_play("numba", load_game_data(model), huge) and can_play("reference", load_game_data(model), huge)
    assert engine_problems("reference", load_game_data(model), huge) == ""


def test_the_registry_and_can_play_do_not_load_numba():
    code = ("import sys; from sim.config import GameConfig, parse_seats; from sim.gamedata import load_game_data; "
            "import sim.cli, sim.run; from sim.engines import can_play, engine_function; engine_function('reference'); "
            "assert can_play('numba', load_game_data(), GameConfig(seats=parse_seats('luna:5'))); "
            "print(sorted(name for name in ('numba', 'sim.fast') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("board", ["moon", "belt"])
def test_the_general_engine_is_asked_for_exactly_when_the_tables_need_it(tmp_path, board):
    from sim.constants import RULE_SWITCHES
    from sim.tables import compile_tables, needs_general_engine

    datas = [load_game_data()]
    for switch, readings in RULE_SWITCHES.items():
        for reading in readings:
            path = tmp_path / f"{switch}-{reading}.toml"
            path.write_text(f'[luna.rules]\n{switch} = "{reading}"\n')
            datas.append(load_game_data(path))
    config = GameConfig(seats=parse_seats("luna:3"), board=board)
    asked = [needs_general_engine(data, config) for data in datas]
    record = [bool(compile_tables(data, config)[0]["board_belt"] or compile_tables(data, config)[0]["rules_any"])
              for data in datas]
    assert asked == record and (all(asked) if board == "belt" else asked[0] is False and any(asked))


def test_the_numba_engine_compiles_a_runs_tables_once_and_anew_for_other_data_or_config(monkeypatch):
    pytest.importorskip("numba")
    from sim.fast import kernel
    from sim.tables import compile_tables

    compiled = []

    def counting(data, config):
        compiled.append(config)
        return compile_tables(data, config)

    monkeypatch.setattr(kernel, "compile_tables", counting)
    monkeypatch.setattr(kernel, "_last_tables", None)
    level2, level8 = GameConfig(seats=parse_seats("luna:2")), GameConfig(seats=parse_seats("luna:8"))
    chunks = [kernel.play_chunk_numba(DATA, level2, 3, first, 5, False) for first in (0, 5, 10)]
    assert compiled == [level2]  # one compile for the run's three chunks
    again = kernel.play_chunk_numba(DATA, level8, 3, 0, 5, False)
    assert compiled == [level2, level8]
    equal = GameConfig(seats=parse_seats("luna:2"))  # equal but another object: compiled anew, never assumed
    kernel.play_chunk_numba(DATA, equal, 3, 0, 5, False)
    assert compiled == [level2, level8, equal] and compiled[2] is equal
    # each run got the tables of its own configuration: the levels' games differ, the reused tables match
    assert not np.array_equal(again.seats["score_total"], chunks[0].seats["score_total"])
    monkeypatch.setattr(kernel, "_last_tables", None)
    fresh = kernel.play_chunk_numba(DATA, level2, 3, 5, 5, False)
    assert all(np.array_equal(fresh.seats[name], chunks[1].seats[name]) for name in fresh.seats)


@pytest.mark.parametrize(("count", "threads", "blocks"), [
    (0, 2, 0), (100, 2, 1), (255, 2, 1), (256, 2, 2), (300, 1, 1), (1_250, 2, 2), (2_048, 2, 2), (2_049, 2, 3),
    (1_000, 4, 4), (97_541, 2, 96),
])
def test_a_chunk_is_cut_into_blocks_of_about_1024_games_and_one_a_thread_while_each_keeps_128(count, threads, blocks):
    from sim.fast import kernel

    assert kernel.chunk_blocks(count, threads) == blocks


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has a single thread here")
def test_a_few_hundred_games_played_on_one_core_of_two(monkeypatch):
    # a tuner's first brackets and a campaign's chapter at one level (a few hundred games a call) were one block of
    # 1,024 games, so one thread played them while the other core idled: 901 of a tuning ladder's 2,144 engine calls
    from sim.fast import kernel

    config = GameConfig(seats=parse_seats("scripted:balanced,luna:4"))
    recorded = []
    play_on_threads = kernel._play_on_threads

    def recording(driver, arguments, threads):
        played = play_on_threads(driver, arguments, threads)
        recorded.append((threads, int(arguments[-1].shape[0]), sum(played), len(played)))
        return played

    monkeypatch.setattr(kernel, "_play_on_threads", recording)
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = kernel.play_chunk_numba(DATA, config, 8, 40, 300, False)
        numba.set_num_threads(2)
        shared = kernel.play_chunk_numba(DATA, config, 8, 40, 300, False)
    finally:
        numba.set_num_threads(previous)
    # one block for one thread; for two, two blocks of 150 games and two calls at once, which claim them as they come
    # (which call plays which is the threads' race: a call may find both claimed)
    assert recorded == [(1, 1, 1, 1), (2, 2, 2, 2)]
    assert all(np.array_equal(alone.seats[name], shared.seats[name]) for name in alone.seats)
