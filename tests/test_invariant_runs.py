"""``simulate --check-invariants`` with both engines, and the soak (``benchmarks/soak.py``).

A clean run passes and writes the same rows as without the checks; a game that breaks an invariant stops
the run with one line naming the game, seat, round and check, exit 1, and no run directory. The broken
games come from data no loader accepts (a standard bonus space paying -1000 CrypCoin, put in place
behind the loader's back), so a scripted seat that takes that space goes below zero cash; both engines
must name the same game, seat and round.
"""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pandas as pd
import pytest

from benchmarks import soak
from sim import cli
from sim.config import GameConfig, parse_seats
from sim.engines import engine_function
from sim.gamedata import DataError, load_game_data
from sim.violation import InvariantError

BROKEN_SEATS = "scripted:shares,scripted:tank,luna:2"
# The first game of seed 5 where a scripted seat takes the corrupted space (row 1, column 3: the
# first choice of standard_bonus_preference), and the check each engine names.
BROKEN_AT = "game 11, seat 1, round 3"
BROKEN_CHECK = {"numba": "cash never negative", "reference": "negative cash -986"}


def broken_data():
    data = load_game_data()
    model = data.players.model.model_copy(update={"standard_bonus_rewards": [[3, 2, 2, -1000], [2, 3, 3, 2]]})
    return dataclasses.replace(data, players=data.players.model_copy(update={"model": model}))


def simulate(tmp_path, engine: str, seats: str, *extra: str, out: str = "run") -> int:
    return cli.main(["simulate", "--seats", seats, "--games", "40", "--seed", "5", "--out", str(tmp_path / out),
                     "--quiet", "--engine", engine, *extra])


@pytest.mark.parametrize("engine", ["reference", "numba"])
def test_a_clean_run_passes_with_the_same_rows(tmp_path, engine):
    seats = "scripted:balanced,scripted:tank,luna:3,luna:7"
    assert simulate(tmp_path, engine, seats, "--detail", "rounds", out="plain") == 0
    assert simulate(tmp_path, engine, seats, "--detail", "rounds", "--check-invariants", out="checked") == 0
    for name in ("seats.parquet", "luna_rounds.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "plain" / name),
                                      pd.read_parquet(tmp_path / "checked" / name))
    manifest = (tmp_path / "checked" / "manifest.json").read_text()
    assert '"check_invariants": true' in manifest
    assert "check_invariants" not in (tmp_path / "plain" / "manifest.json").read_text()  # defaults unchanged


@pytest.mark.parametrize("engine", ["reference", "numba"])
def test_a_clean_belt_run_passes_with_the_same_files(tmp_path, engine):
    seats, belt = "scripted:balanced,scripted:shares,luna:2,luna:8", ("--board", "belt", "--detail", "rounds")
    assert simulate(tmp_path, engine, seats, *belt, out="plain") == 0
    assert simulate(tmp_path, engine, seats, *belt, "--check-invariants", out="checked") == 0
    files = sorted(path.name for path in (tmp_path / "plain").iterdir())
    assert files == sorted(path.name for path in (tmp_path / "checked").iterdir())
    for name in files:
        if name.endswith(".parquet"):
            pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "plain" / name),
                                          pd.read_parquet(tmp_path / "checked" / name))
    assert pd.read_parquet(tmp_path / "checked" / "seats.parquet")["outposts_placed"].sum() > 0  # the Belt was used


@pytest.mark.parametrize("engine", ["reference", "numba"])
def test_a_broken_game_stops_the_run_with_one_line_and_nothing_written(tmp_path, capsys, monkeypatch, engine):
    monkeypatch.setattr(cli, "load_game_data", lambda overlay=None: broken_data())
    assert simulate(tmp_path, engine, BROKEN_SEATS, "--check-invariants", "--chunk-size", "7") == cli.EXIT_ENGINE == 1
    err = capsys.readouterr().err
    assert err == f"luna-balance: invariant broken in {BROKEN_AT}: {BROKEN_CHECK[engine]}\n"
    assert list(tmp_path.iterdir()) == []  # no run directory, no temporary one
    # without the checks the same games play through: the checks are what stops them
    assert simulate(tmp_path, engine, BROKEN_SEATS) == 0


def test_a_broken_game_in_a_joblib_worker_stops_the_run_alike(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "load_game_data", lambda overlay=None: broken_data())  # the workers get the data
    assert simulate(tmp_path, "reference", BROKEN_SEATS, "--check-invariants", "--chunk-size", "5",
                    "--workers", "2") == 1
    assert capsys.readouterr().err.endswith(f"invariant broken in {BROKEN_AT}: {BROKEN_CHECK['reference']}\n")
    assert list(tmp_path.iterdir()) == []


def _breaks(data, config, game: int) -> bool:
    try:
        engine_function("numba")(data, config, 5, game, 1, False, check_invariants=True)
    except InvariantError:
        return True
    return False


def _filler(clean: list[int], count: int) -> list[int]:
    """``count`` game numbers cycling through ``clean``: whole blocks of games that break nothing."""
    return (clean * (count // len(clean) + 1))[:count]


def test_the_engines_agree_on_the_first_broken_game_and_report_it_in_row_order():
    data, config = broken_data(), GameConfig(seats=parse_seats(BROKEN_SEATS), start_bonus="random")
    for engine in ("reference", "numba"):
        with pytest.raises(InvariantError) as raised:
            engine_function(engine)(data, config, 5, 0, 40, False, check_invariants=True)
        error = raised.value
        assert (error.game, error.seat, error.round, error.check) == (11, 1, 3, BROKEN_CHECK[engine])
    from sim.fast.kernel import BLOCK_GAMES, play_listed_numba

    # listed games: the first broken one in the order given (here in the second block), not the lowest number
    broken = [game for game in range(40) if _breaks(data, config, game)]
    clean = [game for game in range(40) if game not in broken]
    assert len(broken) >= 2 and broken[0] == 11
    # the later-numbered broken game in the second block, the earlier one in the third
    games = np.array([*_filler(clean, BLOCK_GAMES + 5), broken[-1], *_filler(clean, BLOCK_GAMES), broken[0]],
                     dtype=np.int64)
    with pytest.raises(InvariantError, match=f"in game {broken[-1]}, seat"):
        play_listed_numba(data, config, 5, games, False, check_invariants=True)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has a single thread here")
def test_the_parallel_driver_reports_the_same_first_violation():
    from sim.fast.kernel import BLOCK_GAMES, play_listed_numba

    data, config = broken_data(), GameConfig(seats=parse_seats(BROKEN_SEATS), start_bonus="random")
    broken = [game for game in range(40) if _breaks(data, config, game)]
    clean = [game for game in range(40) if game not in broken]
    # clean blocks first, then a block with the later broken game, then one with the earlier
    games = np.array([*_filler(clean, 2 * BLOCK_GAMES), broken[-1], *_filler(clean, BLOCK_GAMES), broken[0]],
                     dtype=np.int64)
    threads = numba.get_num_threads()
    try:
        for count in (1, 2):
            numba.set_num_threads(count)
            with pytest.raises(InvariantError, match=f"in game {broken[-1]}, seat"):
                play_listed_numba(data, config, 5, games, False, check_invariants=True)
            clean_games = np.array(clean * 20, dtype=np.int64)
            checked = play_listed_numba(data, config, 5, clean_games, False, check_invariants=True)
            plain = play_listed_numba(data, config, 5, clean_games, False)
            assert all(np.array_equal(checked.seats[name], plain.seats[name]) for name in plain.seats)
    finally:
        numba.set_num_threads(threads)


def test_the_loader_refuses_a_negative_bonus_reward(tmp_path):
    overlay = tmp_path / "negative.toml"
    overlay.write_text("[players.model]\nstandard_bonus_rewards = [[3, 2, 2, -1], [2, 3, 3, 2]]\n")
    with pytest.raises(DataError, match="standard_bonus_rewards: must be at least 0"):
        load_game_data(overlay)


def test_an_invariant_error_survives_pickling():
    import pickle

    error = pickle.loads(pickle.dumps(InvariantError(7, None, 2, "outposts conserved")))
    assert str(error) == "invariant broken in game 7, seat -, round 2: outposts conserved"


# ---------------------------------------------------------------- the soak


def test_the_soak_covers_every_level_and_kind_of_mix():
    mixes = soak.soak_mixes()
    seats = [parse_seats(mix.seats) for mix in mixes]
    assert {seat.level for mix in seats for seat in mix if seat.kind == "luna"} == set(range(9))
    assert {len(mix) for mix in seats} == {1, 2, 3, 4}
    assert {mix.rounds for mix in mixes} == {6, 7} and {mix.start_bonus for mix in mixes} == {"random", "none"}
    assert {seat.profile for mix in seats for seat in mix if seat.kind == "scripted"} == set(soak.builtin_profiles())
    assert len(set(mixes)) == len(mixes)
    # the Belt: every level alone and against each profile, and a 4-seat mix
    belt = [mix for mix in mixes if mix.board == "belt"]
    assert {mix.board for mix in mixes} == {"moon", "belt"} and "board belt" in belt[0].label()
    assert {f"luna:{level}" for level in range(9)} <= {mix.seats for mix in belt}
    assert {(seat.profile, mix.seats.rsplit(":", 1)[1]) for mix in belt for seat in parse_seats(mix.seats)
            if seat.kind == "scripted" and mix.seats.count(",") == 1} == {
        (profile, str(level)) for profile in soak.builtin_profiles() for level in range(9)}
    assert {len(parse_seats(mix.seats)) for mix in belt} == {1, 2, 4}


def test_a_short_soak_is_clean(capsys):
    assert soak.main(["--games", "20000", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"soak: 20,000 games, {len(soak.soak_mixes())} mixes, levels 0-8, 0 violations, ")


def test_the_soak_counts_and_reports_violations():
    mixes = [soak.Mix(BROKEN_SEATS), soak.Mix("luna:4")]
    result = soak.run_soak(broken_data(), 80, seed=5, chunk_size=20, mixes=mixes)
    assert result.violations[0] == (f"{mixes[0].label()}: invariant broken in {BROKEN_AT}: "
                                    f"{BROKEN_CHECK['numba']}")
    # each chunk of the broken mix counts its games up to its first broken one; luna:4 alone breaks nothing
    data, config = broken_data(), GameConfig(seats=parse_seats(BROKEN_SEATS), start_bonus="random")
    checked = 0
    for first in (0, 20):
        broken = [game for game in range(first, first + 20) if _breaks(data, config, game)]
        checked += broken[0] - first + 1 if broken else 20
    assert len(result.violations) == sum(
        any(_breaks(data, config, game) for game in range(first, first + 20)) for first in (0, 20))
    assert (result.mixes, result.games) == (2, checked + 40)
    with pytest.raises(ValueError, match="--games: at least 2"):
        soak.run_soak(broken_data(), 1, seed=5, mixes=mixes)
