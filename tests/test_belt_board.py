"""The Belt side as a user meets it: belt.toml's checks, the [belt] overlay, --board on the commands, the
study's record of the board, and a Belt run directory under the shared output contract."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from contract_checker import CHECK_RUN, check_runs

from analysis.study.plan import StudyPlan, expected_config, part_files, part_is_finished, plan_study, summary_record
from sim.cli import main
from sim.config import ConfigError, GameConfig, parse_seats
from sim.constants import DATA_DIR
from sim.gamedata import DataError, load_game_data


def _problems(**kwargs) -> list[str]:
    with pytest.raises(DataError) as error:
        load_game_data(**kwargs)
    return error.value.problems


def test_shipped_belt_is_the_modelled_geometry():
    belt = load_game_data().belt
    assert [t.capacity for t in belt.spaces.targets if t.kind == "asteroid"] == [2, 3, 2, 3, 2, 2, 3, 2, 3, 2]
    assert [t.id for t in belt.spaces.targets if t.kind == "shuttle"] == list(range(2, 21, 2))
    assert belt.spaces.targets[9].adjacent == [9, 11] and belt.stations.shuttles == 4
    assert belt.stations.touches == {"astrogo": [1, 2], "tawac": [6, 7], "skymine": [11, 12], "minerva": [16, 17]}
    assert "modelled" in belt.spaces.note and "modelled" in belt.stations.note and "modelled" in belt.rewards.note


@pytest.mark.parametrize(("text", "problem"), [
    ("{ id = 2, kind = \"shuttle\", capacity = 2, adjacent = [1, 3] }",
     "spaces.targets.1.capacity: a shuttle space holds exactly 1 shuttle, got 2"),
    ("{ id = 2, kind = \"shuttle\", capacity = 1, adjacent = [1] }",
     "spaces.targets: 3 lists 2 as adjacent but not the other way round"),
    ("{ id = 2, kind = \"asteroid\", capacity = 9, adjacent = [1, 3] }",
     "spaces.targets.1.capacity: an asteroid has at most 4 outpost spaces, got 9"),
])
def test_a_broken_belt_file_is_one_line_per_problem(tmp_path, text, problem):
    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    path = data_dir / "belt.toml"
    lines = path.read_text().splitlines()
    lines = [text + "," if line.strip().startswith("{ id = 2,") else line for line in lines]
    path.write_text("\n".join(lines) + "\n")
    assert _problems(data_dir=data_dir) == [f"{path}: {problem}"]


def test_setup_over_an_asteroids_capacity_is_refused(tmp_path):
    overlay = tmp_path / "crowded.toml"
    overlay.write_text("[belt.stations]\nsetup_outposts = 3\n")  # asteroid 1 has 2 outpost spaces
    assert _problems(overlay=overlay) == [
        f"{overlay}: belt.spaces.targets.0.capacity: asteroid 1 gets 3 setup outposts but has 2 outpost spaces"]


def test_belt_overlay_merges_targets_by_id(tmp_path):
    overlay = tmp_path / "small.toml"
    overlay.write_text("[belt.spaces]\ntargets = [{ id = 3, capacity = 2 }]\n[belt.rewards]\nshuttle_space = 5\n")
    data = load_game_data(overlay)
    assert data.belt.spaces.targets[2].capacity == 2 and data.belt.spaces.targets[4].capacity == 2
    assert data.belt.rewards.shuttle_space == 5 and data.digest != load_game_data().digest


def test_unknown_board_is_a_config_error():
    with pytest.raises(ConfigError, match=r"^board: must be 'moon' or 'belt', got 'mars'"):
        GameConfig(seats=parse_seats("luna:2"), board="mars")


def test_simulate_on_the_belt_records_the_board_and_engines_agree(tmp_path):
    runs = {}
    for engine in ("reference", "numba"):
        out = tmp_path / engine
        assert main(["simulate", "--seats", "scripted:balanced,luna:5", "--games", "40", "--seed", "3",
                     "--board", "belt", "--engine", engine, "--out", str(out), "--quiet"]) == 0
        runs[engine] = pd.read_parquet(out / "seats.parquet")
        assert json.loads((out / "manifest.json").read_text())["config"]["board"] == "belt"
    pd.testing.assert_frame_equal(runs["reference"], runs["numba"])
    moon = tmp_path / "moon"
    assert main(["simulate", "--seats", "scripted:balanced,luna:5", "--games", "40", "--seed", "3",
                 "--engine", "reference", "--out", str(moon), "--quiet"]) == 0
    assert json.loads((moon / "manifest.json").read_text())["config"]["board"] == "moon"
    assert not pd.read_parquet(moon / "seats.parquet").equals(runs["reference"])  # another board, other games
    if CHECK_RUN.is_file():
        result = check_runs(tmp_path / "numba")
        assert result.returncode == 0, result.stdout + result.stderr


def test_unknown_board_on_the_command_line_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "--seats", "luna:5", "--games", "5", "--board", "mars", "--out", str(tmp_path / "x")])
    assert stop.value.code == 2 and "--board" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_the_study_records_the_board():
    plan = plan_study("b", 10, 1, [5], "reference", profiles=["balanced"], board="belt")
    assert plan.to_json()["board"] == "belt" and StudyPlan.from_json(plan.to_json()).board == "belt"
    assert expected_config(plan, plan.parts[0])["board"] == "belt"
    raw = plan_study("b", 10, 1, [5], "reference", profiles=["balanced"]).to_json()
    del raw["board"]  # a study.json written before the board existed was played on the Moon
    assert StudyPlan.from_json(raw).board == "moon"


def test_part_manifest_without_a_board_is_a_moon_part(tmp_path):
    moon = plan_study("b", 10, 1, [5], "reference", profiles=["balanced"])
    belt = plan_study("b", 10, 1, [5], "reference", profiles=["balanced"], board="belt")
    part = moon.parts[0]
    config = {key: value for key, value in expected_config(moon, part).items() if key != "board"}
    run = tmp_path / part.run
    run.mkdir(parents=True)
    manifest = {"config": config, "study": {"overlay_digest": part.overlay_digest, "summary": summary_record(False)}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    for name in part_files(part):  # only their presence is asked
        (run / name).write_bytes(b"")
    assert part_is_finished(tmp_path, moon, part) and not part_is_finished(tmp_path, belt, part)


def test_levels_and_campaign_play_the_belt(tmp_path, capsys):
    assert main(["levels", "--games", "10", "--levels", "3", "--board", "belt", "--engine", "reference",
                 "--quiet"]) == 0
    assert "board belt" in capsys.readouterr().out
    out = tmp_path / "campaign"
    assert main(["campaign", "--seats", "scripted:balanced,luna", "--campaigns", "3", "--board", "belt",
                 "--engine", "reference", "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "manifest.json").read_text())["config"]["board"] == "belt"
