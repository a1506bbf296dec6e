"""Inputs a break-it audit (2026-11-25) found to end in a traceback, a hang or a silently wrong result.

Each case is now a one-line error naming the file, field or option and the problem, exit code 2, and nothing
written. The names say what each input used to do.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.render import GENERATOR_TAG
from sim.cli import main
from sim.constants import DATA_DIR
from sim.gamedata import load_game_data

ROOT = Path(__file__).resolve().parents[1]

HUGE = 99999999999999999999999999999


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("luna-balance: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(("content", "problem"), [
    # a traceback in the numba engine's tables (OverflowError) and a wrapped int64 in its games
    (f'[[luna.cards]]\nid = "I-6"\nmajority = {{ left = {HUGE}, right = 0, scientists = 0 }}\n',
     f"luna.cards.5.majority.left: {HUGE} is beyond the largest number data may give (1,000,000, either sign)"),
    ("[luna.board]\nstart_crypcoin = 9223372036854775807\n",
     "luna.board.start_crypcoin: 9223372036854775807 is beyond the largest number data may give"),
    # a traceback when the scores were written to the int32 columns of seats.parquet
    ("[players.model]\nstart_cash = 3000000000\n",
     "players.model.start_cash: 3000000000 is beyond the largest number data may give"),
    # a number in quotes or a boolean was read as the number: past the range check into a traceback, an
    # error naming no file, or a run that wrote its results with the value (a QA pass, 2026-11-26)
    ('[luna.board]\nstart_crypcoin = "99999999999999999999"\n',
     "luna.board.start_crypcoin: Input should be a valid integer, not '99999999999999999999'"),
    ('[[luna.cards]]\nid = "I-6"\nmajority = { left = "9999999999", right = 0, scientists = 0 }\n',
     "luna.cards.5.majority.left: Input should be a valid integer, not '9999999999'"),
    ("[luna.board]\nstart_crypcoin = true\n", "luna.board.start_crypcoin: Input should be a valid integer, not True"),
    ("[luna.levels.5]\ngrade2 = 1\n", "luna.levels.5.grade2: Input should be a valid boolean, not 1"),
    ('[luna.levels.5]\nhelium_tokens = ["9", 15]\n', "luna.levels.5.helium_tokens.0: Input should be a valid integer"),
    # TypeError: unhashable type
    ("[[luna.cards]]\nid = [1]\n", "luna.cards: id [1] is neither a name nor a number"),
    ("[[luna.cards]]\nid = { a = 1 }\n", "luna.cards: id {'a': 1} is neither a name nor a number"),
    # a message without the file's name; a RecursionError
    (b'name = "\xff\xfe"\n', "not valid TOML: 'utf-8' codec can't decode byte 0xff in position 8"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "not valid TOML: nested too deeply"),
    # a broken [campaign] table was read by `campaign` only: simulate and study ran without a word (a QA pass)
    ("[campaign]\nchapters = -3\n", "campaign.chapters: Input should be greater than or equal to 1"),
    ("[campaign]\nchapter = 3\n", "campaign.chapter: "),
    ("campaign = 3\n", "campaign: must be a table"),
])
def test_overlay_no_game_can_hold_is_one_line(tmp_path, capsys, content, problem):
    overlay = tmp_path / "bad.toml"
    overlay.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["simulate", "--seats", "scripted:balanced,luna:5", "--games", "5", "--engine", "reference",
                 "--overlay", str(overlay), "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert one_line(capsys).startswith(f"luna-balance: {overlay}: {problem}")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.toml"]


def test_campaign_sp_beyond_int64_is_one_line(tmp_path, capsys):
    # campaigns.csv held sp_total = -9223372036854775801, exit 0
    overlay = tmp_path / "sp.toml"
    overlay.write_text("[campaign]\nbonus_marker_sp = 9223372036854775807\n")
    assert main(["campaign", "--seats", "scripted:balanced@1,luna", "--campaigns", "5", "--chapters", "2",
                 "--overlay", str(overlay), "--out", str(tmp_path / "c"), "--engine", "reference", "--quiet"]) == 2
    assert "bonus_marker_sp: 9223372036854775807 is beyond the largest number data may give" in one_line(capsys)
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(("target", "problem"), [
    ("nan", "Input should be a finite number"), ("inf", "Input should be a finite number"),  # ran to the end
    ("1.5", "a win rate is between 0 and 1, got 1.5"),  # searched to the end, "(outside)" (a QA pass, 2026-11-26)
    ("-0.1", "a win rate is between 0 and 1, got -0.1"),
])
def test_tune_target_no_search_can_reach_is_one_line(tmp_path, capsys, target, problem):
    # tune ran to the end and reported "target nan ± 0.01 (outside)"
    text = (Path(__file__).resolve().parents[1] / "examples" / "tune_level4.toml").read_text()
    target_file = tmp_path / "target.toml"
    target_file.write_text(text.replace("target = 0.654", f"target = {target}"))
    assert main(["tune", str(target_file), "--out", str(tmp_path / "t"), "--games", "50", "--quiet"]) == 2
    assert one_line(capsys).startswith(f"luna-balance: {target_file}: levels.4.target: {problem}")
    assert not (tmp_path / "t").exists()

@pytest.mark.parametrize("tolerance", ["0", "-1", "nan", "inf"])
def test_parity_tolerance_the_bisection_never_reaches_is_refused(capsys, tolerance):
    # 0 and below: the bisection never stopped; nan and inf: an answer from no bisection at all
    assert main(["parity", "--profile", "balanced", "--levels", "3", "--games", "10", "--tolerance", tolerance,
                 "--quiet"]) == 2
    assert one_line(capsys).startswith("luna-balance: --tolerance: must be a positive number")


@pytest.mark.parametrize(("strength", "problem"), [
    ("1e10", "must be a positive number up to 1000"), ("1000.5", "must be a positive number up to 1000"),
    ("-1", "must be a positive number up to 1000"), ("inf", "is not a number"), ("nan", "is not a number"),
    ("1_2", "is not a number"),  # float("1_2") is 12: the seat played and was recorded as @12 (a QA pass)
])
def test_strength_beyond_the_strongest_seat_is_refused_by_both_engines(tmp_path, capsys, strength, problem):
    # the reference engine hung at 1e10 and raised OverflowError at 1e308; the numba engine refused in 3 lines
    for engine in ("reference", "numba"):
        assert main(["simulate", "--seats", f"scripted:balanced@{strength},luna:5", "--games", "5", "--engine",
                     engine, "--out", str(tmp_path / "run"), "--quiet"]) == 2
        assert problem in one_line(capsys)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("seed", [str(-1), str(2**64), str(2**70)])
def test_seed_beyond_64_bits_is_refused(tmp_path, capsys, seed):
    # seeds 2**64 apart played the same games under different names in the manifest
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--seed", seed, "--out", str(tmp_path / "run"),
                 "--quiet"]) == 2
    assert one_line(capsys) == f"luna-balance: --seed: must be 0 to {2**64 - 1} (2**64 - 1), got {seed}\n"


TOO_MANY_GAMES = str(2**63 + 1)


@pytest.mark.parametrize("command", [
    ["simulate", "--seats", "luna:5", "--games", TOO_MANY_GAMES, "--out", "{out}"],
    ["levels", "--levels", "5", "--games", TOO_MANY_GAMES],
    ["parity", "--profile", "balanced", "--levels", "5", "--games", TOO_MANY_GAMES],
    ["readings", "--levels", "5", "--games", TOO_MANY_GAMES, "--out", "{out}"],
    ["sensitivity", "--level", "5", "--games", TOO_MANY_GAMES, "--out", "{out}"],
    ["tune", str(Path(__file__).resolve().parents[1] / "examples" / "tune_level4.toml"), "--games", TOO_MANY_GAMES,
     "--out", "{out}"],
    ["study", "--name", "s", "--games", TOO_MANY_GAMES, "--results-dir", "{out}"],
    ["study", "--name", "s", "--parity", "--parity-games", TOO_MANY_GAMES, "--results-dir", "{out}"],
    ["campaign", "--seats", "scripted:balanced,luna", "--policy", "toward:0.5", "--calibration-games", TOO_MANY_GAMES,
     "--out", "{out}"],
], ids=lambda command: f"{command[0]}{next(part for part in command if part.endswith('games'))}")
def test_more_games_than_there_are_game_numbers_is_one_line(tmp_path, capsys, command):
    # a QA pass: simulate played on for good; tune and sensitivity said "--engine: numba: first_game must be a
    # non-negative game number, got 0", readings and parity the same without the option
    out = tmp_path / "out"
    assert main([part.format(out=out) for part in command] + ["--quiet"]) == 2
    option = next(part for part in command if part.endswith("games"))
    assert one_line(capsys) == (f"luna-balance: {option}: must be at most 2**63 ({2**63}): games are numbered 0 to "
                                f"2**63 - 1, got {TOO_MANY_GAMES}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("policy", ["adjust", "keep", "levels:5,4"])
def test_calibration_games_with_a_policy_that_measures_nothing_was_ignored(tmp_path, capsys, policy):
    # the eighth QA pass's "left" item: the campaigns played as if the option had not been given, exit 0
    out = tmp_path / "c"
    assert main(["campaign", "--seats", "scripted:balanced,luna", "--policy", policy, "--chapters", "2",
                 "--calibration-games", "500", "--campaigns", "2", "--out", str(out), "--quiet"]) == 2
    assert one_line(capsys) == ("luna-balance: --calibration-games: only the toward:<p> policy measures levels, "
                                f"not {policy!r}\n")
    assert list(tmp_path.iterdir()) == []


def test_calibration_games_with_the_toward_policy_is_taken(tmp_path):
    out = tmp_path / "c"
    assert main(["campaign", "--seats", "scripted:balanced,luna", "--policy", "toward:0.5", "--chapters", "2",
                 "--calibration-games", "7", "--campaigns", "2", "--engine", "reference", "--out", str(out),
                 "--quiet"]) == 0
    assert json.loads((out / "manifest.json").read_text())["config"]["calibration_games"] == 7


@pytest.mark.parametrize("command", [
    ["tune", "{file}", "--out", "{out}"],
    ["tune", str(ROOT / "examples" / "tune_level4.toml"), "--overlay", "{file}", "--out", "{out}"],
    ["readings", "--levels", "3", "--games", "10", "--overlay", "{file}", "--out", "{out}"],
    ["study", "--name", "v", "--games", "10", "--levels", "3", "--variant", "{file}", "--results-dir", "{out}"],
], ids=["tune-target", "tune-overlay", "readings", "study-variant"])
def test_an_input_file_name_that_is_not_utf8_failed_after_every_game(tmp_path, capsys, command):
    # a QA pass: tune played its whole search, then "'utf-8' codec can't encode character '\\udcff' in position 36:
    # surrogates not allowed", naming no file, as it wrote the name into its report; readings and study the same
    file = tmp_path / os.fsdecode(b"ov\xff.toml")
    shutil.copy(ROOT / "examples" / "tune_level4.toml", file)
    out = tmp_path / "out"
    assert main([part.format(file=file, out=out) for part in command] + ["--quiet"]) == 2
    option = command[command.index("{file}") - 1] if command.index("{file}") > 1 else "TARGET.toml"
    assert one_line(capsys) == (f"luna-balance: {option}: {tmp_path}/ov\\xff.toml: the file name is not valid UTF-8, "
                                "which the outputs that record it are written in; rename it\n")
    assert not out.exists()


def test_simulate_records_an_overlay_whose_name_is_not_utf8(tmp_path):
    # the check above is for the commands that fail; simulate's manifest escapes the name, and its run is written
    overlay = tmp_path / os.fsdecode(b"ov\xff.toml")
    overlay.write_text('[luna.rules]\ndraw_order = "majority_first"\n')
    assert main(["simulate", "--seats", "luna:3", "--games", "10", "--overlay", str(overlay), "--out",
                 str(tmp_path / "run"), "--quiet"]) == 0
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["config"]["overlay"] == str(overlay)


@pytest.mark.parametrize(("command", "fewer"), [
    (["sensitivity", "--level", "5", "--games", str(10**15)], "fewer games (--games)"),
    # "ask for fewer games" named neither the option nor campaigns (a QA pass)
    (["campaign", "--seats", "scripted:balanced,luna", "--campaigns", str(10**14)], "fewer campaigns (--campaigns)"),
], ids=["sensitivity", "campaign"])
def test_games_that_do_not_fit_in_memory_are_one_line(tmp_path, capsys, command, fewer):
    # sensitivity, parity and tune hold every game's number at once: --games 1e10 printed numpy's "Unable to
    # allocate 74.5 GiB" at the end of a 50-line traceback (a QA pass). readings was one of them until it kept
    # running sums instead of every game's values: its memory no longer grows with --games
    assert main([*command, "--out", str(tmp_path / "s"), "--quiet"]) == 2
    line = one_line(capsys)
    assert line.startswith("luna-balance: out of memory (Unable to allocate ") and line.endswith(
        f"nothing half-written was left behind: ask for {fewer}\n"), line
    assert list(tmp_path.iterdir()) == []


def test_the_api_refuses_games_past_the_last_game_number(tmp_path):
    from analysis.readings import compare_readings
    from analysis.tuning.options import SensitivityOptions
    from sim.config import ConfigError, parse_seats
    from sim.engines import engine_function
    from sim.play import play
    from sim.run import RunOptions

    data = load_game_data()
    too_many = 2**63 + 1
    for make in (lambda: RunOptions(games=too_many, seed=1), lambda: SensitivityOptions(level=5, games=too_many),
                 lambda: play("luna:5", too_many), lambda: compare_readings(data, [5], too_many, 1)):
        with pytest.raises(ConfigError, match=r"^games: must be at most 2\*\*63"):
            make()
    with pytest.raises(ConfigError, match=r"^first_game: 9223372036854775800 and 9 games after it pass the last"):
        play("luna:5", 9, first_game=2**63 - 8)
    from sim.config import GameConfig
    config = GameConfig(seats=parse_seats("luna:5"))
    with pytest.raises(ValueError, match=r"^games 9223372036854775800 to 9223372036854775808 pass the last game"):
        engine_function("numba")(data, config, 1, 2**63 - 8, 9, False)


def test_study_readings_with_no_games_is_refused(tmp_path, capsys):
    # exit 0 with no readings played and none reported, while study.json recorded readings_games 0
    assert main(["study", "--name", "x", "--games", "30", "--levels", "3", "--results-dir", str(tmp_path),
                 "--readings", "--readings-games", "0", "--quiet"]) == 2
    assert one_line(capsys) == "luna-balance: --readings-games: must be at least 1, got 0\n"
    assert list(tmp_path.iterdir()) == []


def test_levels_checks_every_run_directory_before_playing_any(tmp_path, capsys):
    # level-3 was played and written, then level-5 was refused
    mine = tmp_path / "lv" / "level-5" / "mine.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("keep me\n")
    assert main(["levels", "--games", "20", "--levels", "3,5", "--out", str(tmp_path / "lv"), "--quiet"]) == 2
    assert "level-5: exists and is not a run directory" in one_line(capsys)
    assert sorted(path.name for path in (tmp_path / "lv").iterdir()) == ["level-5"]


def _a_study(tmp_path: Path) -> Path:
    assert main(["study", "--name", "s", "--games", "30", "--levels", "3", "--profiles", "balanced",
                 "--results-dir", str(tmp_path), "--engine", "reference", "--quiet"]) == 0
    return tmp_path / "s"


@pytest.mark.parametrize(("field", "value", "reported"), [
    ("study", [1], False), ("config", [1], False),
    ("data", 5, True),  # the report does not ask which data a part was played with; the study does
])
def test_part_manifest_of_the_wrong_shape_is_replayed(tmp_path, capsys, field, value, reported):
    # report and the study's rerun ended in AttributeError or TypeError
    study = _a_study(tmp_path)
    manifest_path = next((study / "runs").glob("*/manifest.json"))
    manifest = json.loads(manifest_path.read_text())
    manifest[field] = value
    manifest_path.write_text(json.dumps(manifest))
    capsys.readouterr()
    if reported:
        assert main(["report", str(study)]) == 0
    else:
        assert main(["report", str(study)]) == 2
        assert "not finished" in one_line(capsys)
    assert main(["study", "--name", "s", "--games", "30", "--levels", "3", "--profiles", "balanced",
                 "--results-dir", str(tmp_path), "--engine", "reference", "--quiet"]) == 0
    assert json.loads(manifest_path.read_text())[field] != value


@pytest.mark.parametrize(("change", "problem"), [
    (lambda plan: {**plan, "parts": [5]}, "malformed study file"),
    (lambda plan: {**plan, "games": float("inf")}, "malformed study file"),
    (lambda plan: [plan], "not a study file (a JSON object is expected, found list)"),
])
def test_study_json_of_the_wrong_shape_is_one_line(tmp_path, capsys, change, problem):
    # AttributeError and OverflowError tracebacks from report
    study = _a_study(tmp_path)
    plan_path = study / "study.json"
    plan_path.write_text(json.dumps(change(json.loads(plan_path.read_text()))))
    capsys.readouterr()
    assert main(["report", str(study)]) == 2
    assert one_line(capsys).startswith(f"luna-balance: {plan_path}: {problem}")


@pytest.mark.parametrize(("content", "problem"), [
    ('{"config": [1]}', "config must be a JSON object, got list"),
    (b'\xff{"config": {}}', "cannot read manifest: 'utf-8' codec can't decode"),
    ("[" * 100_000 + "]" * 100_000, "cannot read manifest: its JSON is nested too deeply"),
])
def test_runs_report_of_a_broken_manifest_names_it(tmp_path, capsys, content, problem):
    # AttributeError and RecursionError tracebacks; a decode error without the file's name
    run = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--out", str(run), "--quiet"]) == 0
    (run / "manifest.json").write_bytes(content if isinstance(content, bytes) else content.encode())
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(tmp_path / "report")]) == 2
    assert one_line(capsys).startswith(f"luna-balance: {run / 'manifest.json'}: {problem}")


@pytest.mark.parametrize("blocker", ["figures", "tables", "report.md"])
def test_report_whose_place_is_taken_writes_nothing(tmp_path, capsys, blocker):
    # runs-report and report wrote their tables (and figures) first, then failed with a raw errno line
    run = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--out", str(run), "--quiet"]) == 0
    out = tmp_path / "report"
    assert main(["runs-report", str(run), "--out", str(out)]) == 0  # an earlier report, to be replaced
    place = out / blocker
    if place.is_dir():
        shutil.rmtree(place)
        place.write_text("mine\n")
    else:
        place.unlink()
        place.mkdir()
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(out)]) == 2
    assert one_line(capsys).startswith(f"luna-balance: {place}: is a ")
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


def test_a_part_that_lost_its_manifest_is_played_again_as_report_advises(tmp_path, capsys):
    # report said "rerun: luna-balance study ...", and the rerun refused the part's folder as not a run directory
    study = _a_study(tmp_path)
    manifest_path = next((study / "runs").glob("*/manifest.json"))
    manifest_path.unlink()
    capsys.readouterr()
    assert main(["report", str(study)]) == 2
    assert "not finished" in one_line(capsys)
    assert main(["study", "--name", "s", "--games", "30", "--levels", "3", "--profiles", "balanced",
                 "--results-dir", str(tmp_path), "--engine", "reference", "--quiet"]) == 0
    assert manifest_path.is_file()



@pytest.mark.parametrize("lost", ["summary_seats.parquet", "pairs.parquet", "summary_rounds.parquet"])
def test_a_part_that_lost_a_summary_file_is_reported_and_played_again(tmp_path, capsys, lost):
    # summary_seats.parquet: KeyError traceback from report, and the rerun kept the part; summary_rounds.parquet:
    # a report without its majorities section, exit 0; pairs.parquet: the path alone (a QA pass, 2026-11-26)
    study = _a_study(tmp_path)
    path = study / "runs" / "solo-L3" / lost
    path.unlink()
    capsys.readouterr()
    assert main(["report", str(study)]) == 2
    assert f"(first: solo-L3, which has no {lost}); rerun: luna-balance study" in one_line(capsys)
    assert main(["study", "--name", "s", "--games", "30", "--levels", "3", "--profiles", "balanced",
                 "--results-dir", str(tmp_path), "--engine", "reference", "--quiet"]) == 0
    assert path.is_file() and "majorities" in (study / "report.md").read_text()


def test_an_unreadable_part_file_names_itself_and_the_way_out(tmp_path, capsys):
    # a corrupt pairs.parquet: arrow's message alone, and every rerun kept the part and failed alike
    study = _a_study(tmp_path)
    path = study / "runs" / "solo-L3" / "pairs.parquet"
    path.write_bytes(b"not parquet")
    capsys.readouterr()
    assert main(["report", str(study)]) == 2
    line = one_line(capsys)
    assert line.startswith(f"luna-balance: {path}: cannot be read (")
    assert f"remove its part's folder {path.parent} and rerun: luna-balance study" in line
    shutil.rmtree(path.parent)
    assert main(["study", "--name", "s", "--games", "30", "--levels", "3", "--profiles", "balanced",
                 "--results-dir", str(tmp_path), "--engine", "reference", "--quiet"]) == 0


def test_study_into_a_folder_that_is_no_study_is_refused(tmp_path, capsys):
    # it wrote its report.md over the user's, and its tables and parts beside the user's files (a QA pass)
    mine = tmp_path / "userdir"
    (mine / "tables").mkdir(parents=True)
    (mine / "report.md").write_text("my notes\n")
    (mine / "tables" / "mine.csv").write_text("a,b\n")
    before = {path: path.read_bytes() for path in mine.rglob("*") if path.is_file()}
    assert main(["study", "--name", "userdir", "--games", "30", "--levels", "3", "--profiles", "balanced",
                 "--results-dir", str(tmp_path), "--engine", "reference", "--quiet"]) == 2
    assert one_line(capsys) == (f"luna-balance: {mine}: exists and is not a study (no study.json); refusing to "
                                "write into it: use another --name or --results-dir\n")
    assert {path: path.read_bytes() for path in mine.rglob("*") if path.is_file()} == before
    killed_early = tmp_path / "s"
    killed_early.mkdir()
    (killed_early / ".lock").write_text("{}")  # a study killed before it wrote its plan
    assert _a_study(tmp_path) == killed_early and (killed_early / "report.md").is_file()


def test_runs_report_over_a_study_is_refused(tmp_path, capsys):
    # it replaced the study's report.html and tables, beside the study's stale findings.csv (a QA pass)
    study = _a_study(tmp_path)
    run = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--out", str(run), "--quiet"]) == 0
    before = {path: path.read_bytes() for path in study.rglob("*") if path.is_file()}
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(study)]) == 2
    assert one_line(capsys) == (f"luna-balance: --out: {study} is a study; `luna-balance report {study}` rebuilds "
                                "its report\n")
    assert {path: path.read_bytes() for path in study.rglob("*") if path.is_file()} == before

@pytest.mark.parametrize(("csv", "why"), [("afile/x.csv", "afile is a file"), ("", "no name"), ("adir", "a folder")])
def test_parity_csv_that_cannot_be_written_is_refused_before_the_search(tmp_path, capsys, monkeypatch, csv, why):
    # pandas' "Cannot save file into a non-existent directory: 'afile'" after the whole search; '' was ignored
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("mine\n")
    (tmp_path / "adir").mkdir()
    assert main(["parity", "--profile", "balanced", "--levels", "3", "--games", "10", "--csv", csv, "--quiet"]) == 2
    assert one_line(capsys) == f"luna-balance: --csv: {csv!r} is not a file that can be written ({why})\n"


def test_sensitivity_opponent_that_is_no_scripted_seat_names_only_what_it_takes(tmp_path, capsys):
    # the message offered luna:<level>, which --opponent refuses
    assert main(["sensitivity", "--level", "0", "--opponent", "nope", "--games", "10",
                 "--out", str(tmp_path / "s")]) == 2
    assert one_line(capsys) == ("luna-balance: --opponent: 'nope' is not a scripted seat "
                                "(scripted:<profile>[@strength] or none)\n")


def test_tune_opponents_that_fill_every_seat_name_the_target_file(tmp_path, capsys):
    # "--seats: a game has 1 to 4 seats, got 5": an option the user never gave
    text = (Path(__file__).resolve().parents[1] / "examples" / "tune_level4.toml").read_text()
    target_file = tmp_path / "target.toml"
    target_file.write_text(text.replace('opponent = "scripted:balanced@1"', 'opponent = "' + ",".join(
        ["scripted:balanced"] * 4) + '"'))
    assert main(["tune", str(target_file), "--out", str(tmp_path / "t"), "--games", "50", "--quiet"]) == 2
    assert one_line(capsys).startswith(f"luna-balance: {target_file}: levels.4.opponent: at most 3 scripted seats")


def test_what_the_numba_engine_cannot_hold_is_one_line_per_problem_naming_the_file_and_field(tmp_path, capsys):
    # "tank_max: 1000 (...)" then a second line without the luna-balance: prefix
    overlay = tmp_path / "long_tracks.toml"
    overlay.write_text("[luna.board]\ntank_max = 1000\nresearch_max = 1000\n")
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--engine", "numba", "--overlay", str(overlay),
                 "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert capsys.readouterr().err == "".join(
        f"luna-balance: {overlay}: luna.board.{field}: 1000 (the numba engine supports at most 63; --engine "
        "reference has no such limit)\n" for field in ("tank_max", "research_max"))
    assert not (tmp_path / "run").exists()


def test_a_data_field_s_file_is_the_overlay_only_where_the_overlay_sets_it(tmp_path):
    overlay = tmp_path / "edits.toml"
    overlay.write_text("[moon.research]\nrow_deck = 9\n[players.profiles.shares]\nstart_cash = 4\n")
    data = load_game_data(overlay)
    assert data.source_of("moon.research.row_deck") == str(overlay)
    assert data.source_of("moon.research") == str(overlay)  # the table holding an edit
    assert data.source_of("moon.research.special_plans") == str(DATA_DIR / "moon.toml")
    assert data.source_of("players.profiles.shares.start_cash") == str(overlay)
    assert data.source_of("players.profiles.shares.weights") == str(DATA_DIR / "players" / "shares.toml")
    assert data.source_of("players.model.start_cash") == str(DATA_DIR / "players" / "model.toml")
    assert data.source_of("luna.cards") == str(DATA_DIR / "luna.toml")
    assert data.source_of("belt.spaces") == str(DATA_DIR / "belt.toml")
    assert load_game_data({"luna": {"board": {"tank_max": 30}}}, label="<mine>").source_of("luna.board") == "<mine>"


@pytest.mark.parametrize(("content", "problem"), [
    # a second audit (degenerate data the schemas accepted): each played with exit 0 but broke an invariant or a
    # rule from setup on, or played a game the board cannot hold
    ("[moon.stations]\ntouches = { astrogo = [1, 7], tawac = [1, 12], skymine = [13, 19], minerva = [18, 24] }\n",
     "moon.stations.touches.tawac: sector 1 would get the setup outposts of astrogo and tawac"),
    ("[players.model]\nbonus_markers_by_humans = [-3, 0, 0, 0]\n",
     "players.model.bonus_markers_by_humans.0: Input should be greater than or equal to 0"),
    ("[players.profiles.balanced]\nsteps_by_round = [1, 1, -3, 1, 1, 1, 1]\n",
     "players.profiles.balanced.steps_by_round.2: Input should be greater than or equal to 0"),
    ("[luna.board]\ntank_switch_at = 100\n", "luna.board.tank_switch_at: 100 is off the tank track (1-28)"),
    ('[luna.board]\ninitial_slots = ["B", "B", "B"]\n', "luna.board.initial_slots: a slot appears twice"),
    ("[luna.final_scoring]\nhelium_tank = [[0, 0], [100, 5]]\n",
     "luna.final_scoring.helium_tank: positions must be on the track (0-28)"),
])
def test_data_no_board_can_hold_is_refused(tmp_path, capsys, content, problem):
    overlay = tmp_path / "degenerate.toml"
    overlay.write_text(content)
    assert main(["simulate", "--seats", "scripted:balanced,luna:5", "--games", "5", "--engine", "reference",
                 "--overlay", str(overlay), "--out", str(tmp_path / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"luna-balance: {overlay}: {problem}") and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


def test_runs_report_into_a_folder_of_other_things_is_refused_and_a_report_is_replaced(tmp_path, capsys):
    # runs-report wrote its tables, figures and report.html among the user's files (every other command refuses)
    run = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--out", str(run), "--quiet"]) == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine\n")
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(mine)]) == 2
    assert one_line(capsys) == (f"luna-balance: --out: {mine} holds other files and no luna-balance report; "
                                "refusing to write a report into it\n")
    assert [path.name for path in mine.iterdir()] == ["keep.txt"]
    (mine / "report.html").write_text("<html>my own page</html>\n")  # was taken for a report and replaced
    assert main(["runs-report", str(run), "--out", str(mine)]) == 2
    assert "no luna-balance report" in one_line(capsys)
    assert (mine / "report.html").read_text() == "<html>my own page</html>\n"
    report = tmp_path / "report"
    for _ in range(2):  # the second run replaces the first's report
        assert main(["runs-report", str(run), "--out", str(report)]) == 0
    page = report / "report.html"
    assert GENERATOR_TAG in page.read_text()
    page.write_text(page.read_text().replace(GENERATOR_TAG, ""))  # a report written before the tag
    assert main(["runs-report", str(run), "--out", str(report)]) == 0 and GENERATOR_TAG in page.read_text()


@pytest.mark.parametrize(("missing", "problem"), [
    ("moon.toml", "file not found; the shipped data is incomplete (reinstall luna-balance)"),  # read at import
    ("belt.toml", "file not found"),
    ("luna.toml", "file not found"),
])
def test_a_shipped_data_file_missing_is_one_line(tmp_path, missing, problem):
    # moon.toml: a FileNotFoundError traceback before any command started (a QA pass, 2026-11-26)
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    for package in ("sim", "analysis"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "sim" / "data" / missing).unlink()
    done = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--seats", "luna:5", "--games", "5",
                           "--engine", "reference", "--out", str(tmp_path / "run"), "--quiet"],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == f"luna-balance: {tmp_path / 'sim' / 'data' / missing}: {problem}\n"
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("seed", [-1, 2**64, "7", 1.0, True])
def test_every_api_entry_point_refuses_a_seed_the_command_line_refuses(tmp_path, seed):
    # only sim/cli.py checked: play(seed=2**64) played seed 0's games, run_study(seed="7") wrote study.json and
    # failed 18 frames deep in the engine (a QA pass of the Python API, 2026-11-26)
    from analysis.study import run_study
    from analysis.tuning.options import SensitivityOptions
    from analysis.tuning.output import run_tune
    from sim.config import ConfigError
    from sim.run import RunOptions

    with pytest.raises(ConfigError, match=r"^seed: must be"):
        RunOptions(games=10, seed=seed)
    with pytest.raises(ConfigError, match=r"^seed: must be"):
        SensitivityOptions(level=5, seed=seed)
    with pytest.raises(ConfigError, match=r"^seed: must be"):
        run_study(name="s", games=10, levels=[5], seed=seed, engine="reference", quiet=True, results_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"^seed: must be"):
        run_tune(Path(__file__).resolve().parents[1] / "examples" / "tune_level4.toml", tmp_path / "t", seed=seed)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("games", ["100", 2.5, None])
def test_api_game_counts_of_another_type_are_one_line(tmp_path, games):
    # '<' not supported between instances of 'str' and 'int' (a QA pass of the Python API, 2026-11-26)
    from analysis.study import run_study
    from analysis.tuning.output import run_tune
    from sim.config import ConfigError

    with pytest.raises(ConfigError, match=rf"^games: must be a whole number, got {re.escape(repr(games))}$"):
        run_study(name="s", games=games, levels=[5], engine="reference", quiet=True, results_dir=tmp_path)
    with pytest.raises(ConfigError, match=rf"^games: must be a whole number, got {re.escape(repr(games))}$"):
        run_tune(Path(__file__).resolve().parents[1] / "examples" / "tune_level4.toml", tmp_path / "t", games=games)
    assert list(tmp_path.iterdir()) == []


def test_api_messages_name_parameters_not_command_line_options(tmp_path, capsys):
    # play(games=-1) and run_study(games=0) said "--games: ...", an option a Python caller never wrote (a QA
    # pass of the Python API, 2026-11-26); the command line, running the same checks, still says "--games: ..."
    import pickle

    from analysis.study import run_study
    from sim.config import ConfigError, GameConfig, parse_seats
    from sim.play import play
    from sim.run import RunOptions

    with pytest.raises(ConfigError, match=r"^games: must be at least 1, got -1$"):
        play("luna:5", games=-1)
    with pytest.raises(ConfigError, match=r"^games: must be at least 1, got 0$"):
        run_study(name="s", games=0, levels=[5], engine="reference", quiet=True, results_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"^parity_games: must be at least 1, got 0$"):
        run_study(name="s", games=10, levels=[5], engine="reference", quiet=True, results_dir=tmp_path,
                  parity_games=0)
    with pytest.raises(ConfigError, match=r"^start_bonus: "):
        GameConfig(seats=parse_seats("luna:5"), start_bonus="maybe")
    with pytest.raises(ConfigError) as caught:
        RunOptions(games=10, seed=1, scheduler="tcp://h:1")
    assert str(caught.value) == "scheduler: only with backend dask"
    assert caught.value.message(command_line=True) == "--scheduler: only with --backend dask"
    # sent back from a worker process, an error still knows which parameter it names
    returned = pickle.loads(pickle.dumps(caught.value))
    assert returned.message(command_line=True) == "--scheduler: only with --backend dask"

    assert main(["simulate", "--seats", "luna:5", "--games", "0", "--out", str(tmp_path / "run")]) == 2
    assert one_line(capsys) == "luna-balance: --games: must be at least 1, got 0\n"
    assert main(["study", "--name", "s", "--games", "10", "--levels", "5", "--parity", "--parity-games", "0",
                 "--results-dir", str(tmp_path), "--quiet"]) == 2
    assert one_line(capsys) == "luna-balance: --parity-games: must be at least 1, got 0\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("seat", "problem"), [
    (dict(kind="luna", level=9), "unknown Luna level 9"),
    (dict(kind="luna", level=-1), "unknown Luna level -1"),
    (dict(kind="luna", level=5.0), "unknown Luna level 5.0"),
    (dict(kind="Luna", level=5), "unknown seat kind 'Luna'"),
    (dict(kind="scripted", profile=""), "a scripted seat needs a profile"),
    (dict(kind="scripted", profile="balanced", strength=0.0), "must be a positive number up to 1000"),
    (dict(kind="scripted", profile="balanced", strength=-1.0), "must be a positive number up to 1000"),
    (dict(kind="scripted", profile="balanced", strength=float("nan")), "must be a positive number up to 1000"),
    (dict(kind="scripted", profile="balanced", strength="2"), "must be a positive number up to 1000"),
])
def test_a_seat_built_in_python_is_checked_as_a_parsed_one(seat, problem):
    # Seat(kind="luna", level=9) played on the numba engine (level 100 the same games, -1 a constant score) and
    # was a KeyError on the reference engine; strength NaN blamed the engine (a QA pass of the Python API)
    from sim.config import ConfigError, Seat

    with pytest.raises(ConfigError, match=rf"^seats: .*{re.escape(problem)}"):
        Seat(**seat)


def test_numpy_integers_are_taken_as_the_numbers_they_are(tmp_path):
    # run_study(seed=np.int64(7)) failed writing study.json (int64 is not JSON serializable), RunOptions(seed=
    # np.int64(1)) overflowed in the RNG, levels=df.level.unique() likewise (a QA pass of the Python API)
    import numpy as np

    from analysis.study import run_study
    from analysis.tuning.options import SensitivityOptions
    from sim.config import Seat
    from sim.run import RunOptions

    assert type(Seat(kind="luna", level=np.int64(5)).level) is int
    options = RunOptions(games=np.int64(40), seed=np.uint64(2**63 + 1), chunk_size=np.int32(16), workers=np.int8(1))
    assert [type(value) for value in (options.games, options.seed, options.chunk_size, options.workers)] == [int] * 4
    sensitivity = SensitivityOptions(level=np.int64(5), games=np.int64(10), seed=np.int64(3))
    assert [type(value) for value in (sensitivity.level, sensitivity.games, sensitivity.seed)] == [int] * 3
    run_study(name="np", games=np.int64(20), levels=np.array([5, 4]), seed=np.int64(7), engine="reference",
              quiet=True, results_dir=tmp_path, rounds=np.int64(6), parity_games=np.int16(5), profiles=["balanced"],
              strengths=[1.0])
    plan = json.loads((tmp_path / "np" / "study.json").read_text())
    assert (plan["games"], plan["seed"], plan["levels"], plan["rounds"]) == (20, 7, [4, 5], 6)


@pytest.mark.parametrize(("call", "problem"), [
    (dict(overlay={"luna": {"levels": {5: {"helium_tokens": [9, 15]}}}}),
     "<overlay>: luna.levels.5: keys are text, as in a TOML file (write '5', not 5)"),
    (dict(overlay=[1, 2]), "<overlay>: an overlay is a TOML file's path or a mapping of its tables, got list"),
    (dict(data={"luna": 1}), "data: must be GameData (sim.gamedata.load_game_data), got dict"),
])
def test_play_s_data_and_overlay_of_the_wrong_shape_are_one_line(call, problem):
    # an integer level key gave six lines of schema errors, a list a TypeError from pathlib, a dict as data an
    # AttributeError (a QA pass of the Python API)
    from sim.config import ConfigError
    from sim.gamedata import DataError
    from sim.play import play

    with pytest.raises((ConfigError, DataError)) as caught:
        play("luna:5", 2, engine="reference", **call)
    assert str(caught.value) == problem


@pytest.mark.parametrize("key", ["05", "five", "9"])
def test_an_overlay_level_that_is_no_level_is_one_line(tmp_path, capsys, key):
    # [luna.levels.05] gave five "Field required" lines of its fields, never saying 05 is no level (a QA pass)
    overlay = tmp_path / "levels.toml"
    overlay.write_text(f"[luna.levels.{key}]\nhelium_tokens = [9, 15]\n")
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--overlay", str(overlay),
                 "--out", str(tmp_path / "run")]) == 2
    assert one_line(capsys) == (f"luna-balance: {overlay}: luna.levels.{key}: not a level (0-8, written as in "
                                "[luna.levels.5])\n")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("line", "problem"), [("name = ['a', 1]", "name: must be text, got list ['a', 1]"),
                                               ("description = 7", "description: must be text, got int 7")])
def test_an_overlay_name_or_description_that_is_no_text_is_one_line(tmp_path, capsys, line, problem):
    # name = ["a", 1] was accepted and became a variant's title "['a', 1]" in a study's report (a QA pass)
    overlay = tmp_path / "named.toml"
    overlay.write_text(f"{line}\n[luna.levels.5]\nhelium_tokens = [9, 15]\n")
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--overlay", str(overlay),
                 "--out", str(tmp_path / "run")]) == 2
    assert one_line(capsys) == f"luna-balance: {overlay}: {problem}\n"



@pytest.mark.parametrize("seats", ["scripted:balanced,scripted:shares", "scripted:passive"])
def test_luna_s_rounds_asked_of_games_without_luna_are_one_line(tmp_path, capsys, seats):
    # wrote a luna_rounds.parquet of 0 rows, which check_run.py failed and runs-report refused (a QA pass)
    assert main(["simulate", "--seats", seats, "--games", "5", "--detail", "rounds", "--engine", "reference",
                 "--out", str(tmp_path / "run")]) == 2
    assert one_line(capsys) == (f"luna-balance: --detail: rounds records Luna's rounds, and {seats} seats no Luna; "
                                "drop --detail or add a luna:N seat\n")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- a hostile machine (a QA pass, 2026-11-27)

SIMULATE_FEW = ["simulate", "--seats", "luna:5", "--games", "5", "--quiet"]


def test_numba_disable_jit_was_a_traceback_from_the_engine(tmp_path, capsys, monkeypatch):
    # NUMBA_DISABLE_JIT=1: "NotImplementedError: <intrinsic claim_next> is not usable in pure-python", exit 1
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert main([*SIMULATE_FEW, "--out", str(tmp_path / "run")]) == 2
    assert "NUMBA_DISABLE_JIT is set" in one_line(capsys) and not (tmp_path / "run").exists()
    assert main([*SIMULATE_FEW, "--engine", "reference", "--out", str(tmp_path / "run")]) == 0  # the way out it names


@pytest.mark.parametrize("place", ["overlay", "target"])
def test_a_named_pipe_as_an_input_file_hung_for_good(tmp_path, place):
    # a QA pass: the file was opened before its type was checked, and the open of a pipe waits for a writer
    pipe = tmp_path / "pipe.toml"
    os.mkfifo(pipe)
    command = (["simulate", "--seats", "luna:5", "--games", "5", "--overlay", str(pipe), "--out", "run"]
               if place == "overlay" else ["tune", str(pipe), "--out", "run"])
    done = subprocess.run([sys.executable, "-m", "sim.cli", *command, "--quiet"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stderr) == (2, f"luna-balance: {pipe}: not a regular file (a device, pipe or "
                                                 "folder): give a TOML file\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pipe.toml"]


def test_an_overlay_that_is_a_device_was_read_until_the_oom_killer_came(tmp_path, capsys):
    assert main([*SIMULATE_FEW, "--overlay", "/dev/zero", "--out", str(tmp_path / "run")]) == 2
    assert "/dev/zero: not a regular file" in one_line(capsys)
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as handle:
        handle.truncate(17 * 1024 * 1024)  # sparse: the size is checked before a byte is read
    assert main([*SIMULATE_FEW, "--overlay", str(huge), "--out", str(tmp_path / "run")]) == 2
    assert "bytes, more than the 16,777,216 a data or overlay file may have" in one_line(capsys)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["huge.toml"]


def test_an_out_that_is_a_mount_point_failed_after_every_game(tmp_path, capsys, monkeypatch):
    # a Docker volume's mount point: the games were played, then "Device or resource busy" when moved into place
    import sim.outputs

    out = tmp_path / "volume"
    out.mkdir()
    real = os.path.ismount
    monkeypatch.setattr(sim.outputs.os.path, "ismount", lambda path: Path(path) == out or real(path))
    assert main([*SIMULATE_FEW, "--out", str(out)]) == 2
    assert f"{out}: is a mount point" in one_line(capsys)
    assert main([*SIMULATE_FEW, "--out", str(out / "run")]) == 0  # the folder inside it that the message names


def test_pythonwarnings_error_made_the_drawing_helper_say_exception_ignored(tmp_path):
    # its replies stream was never closed: "Exception ignored ... ResourceWarning: unclosed file", after a report
    # that was written all the same
    import subprocess
    import sys

    assert main([*SIMULATE_FEW, "--engine", "reference", "--out", str(tmp_path / "run")]) == 0
    environment = {**os.environ, "PYTHONWARNINGS": "error"}
    done = subprocess.run([sys.executable, "-m", "sim", "runs-report", str(tmp_path / "run"), "--out",
                           str(tmp_path / "report")], env=environment, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "Exception ignored" not in done.stderr and "Warning" not in done.stderr, done.stderr
