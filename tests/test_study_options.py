"""The study's options: --profiles, --strengths, --rounds, --start-bonus, --parity, --backend dask.

Plan-level tests play no game; one small study (reference engine, a few dozen games) checks the
options end to end, its resume, and that its parity table is the ``parity`` command's.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest

from analysis.parity import strength_decimals
from analysis.render import FIXED_DECIMALS
from analysis.study import parity_step
from analysis.study import runner as study_runner
from analysis.study.plan import (
    DEFAULT_PARITY_GAMES,
    PARITY_TOLERANCE,
    ParityTask,
    StudyError,
    StudyPlan,
    base_parts,
    parity_is_finished,
    parse_profiles,
    parse_strengths,
    part_is_finished,
    plan_study,
    read_plan,
    scripted_profiles,
)
from sim.cli import build_parser, main, study_command_line
from sim.config import ConfigError

GAMES = 40
PARITY_GAMES = 30
OPTIONS = ["--games", str(GAMES), "--levels", "4-5", "--engine", "reference", "--quiet", "--profiles", "balanced",
           "--strengths", "0.8,1", "--rounds", "6", "--start-bonus", "none", "--parity", "--parity-games",
           str(PARITY_GAMES)]


def run_cli(results: Path, *arguments: str, name: str = "opts") -> int:
    try:
        return main(["study", "--name", name, "--results-dir", str(results), *arguments])
    except SystemExit as leaving:  # argparse's own checks (choices) leave this way, with the same code 2
        return int(leaving.code)


def tables(study_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((study_dir / "tables").glob("*.csv"))}


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """One uninterrupted small study with every option but the backend."""
    results = tmp_path_factory.mktemp("results")
    assert run_cli(results, *OPTIONS) == 0
    return results / "opts"


# ----------------------------------------------------------------------------------------------
# The plan, without playing


def test_each_strength_is_a_part_and_strength_one_keeps_its_name():
    parts = base_parts([5], ["balanced", "tank"], [0.8, 1.0, 1.25])
    versus = {part.name: part.seats for part in parts if part.name.startswith("vs-")}
    assert versus == {
        "vs-balanced@0.8-L5": "scripted:balanced@0.8,luna:5", "vs-balanced-L5": "scripted:balanced,luna:5",
        "vs-balanced@1.25-L5": "scripted:balanced@1.25,luna:5", "vs-tank@0.8-L5": "scripted:tank@0.8,luna:5",
        "vs-tank-L5": "scripted:tank,luna:5", "vs-tank@1.25-L5": "scripted:tank@1.25,luna:5"}
    assert base_parts([5], ["balanced"]) == base_parts([5], ["balanced"], [1.0])  # today's parts: studies resume


def test_strengths_are_parsed_sorted_and_rounded_to_their_names():
    assert parse_strengths("1.2, 0.8,1") == (0.8, 1.0, 1.2)
    assert parse_strengths("1.23456789") == (1.23457,)  # the strength played is the one the part name shows
    # one number written twice plays once, as --levels 3,3 does (regression: "1,1.0" was refused as listed twice)
    assert parse_strengths("1,1.0,0.8,1e0") == (0.8, 1.0)
    import numpy as np

    assert plan_study("s", 10, 1, [5], "reference", strengths=np.array([1.2, 1.0])).strengths == (1.0, 1.2)


@pytest.mark.parametrize(("text", "message"), [
    ("", "is not a number"), ("x", "is not a number"), ("0", "positive"), ("-1", "positive"), ("1e999", "finite"),
    ("inf", "is not a number"), ("nan", "is not a number"), ("1_2", "is not a number"),
    ("1.0000001,1", r"^strengths: 1.0000001 and 1 both play as 1; keep one$"),
])
def test_bad_strengths_are_refused(text, message):
    with pytest.raises(StudyError, match=message):
        parse_strengths(text)


def test_profiles_come_from_the_data():
    assert parse_profiles("tank, balanced") == ("tank", "balanced")
    assert plan_study("s", 10, 1, [5], "reference").profiles == scripted_profiles()
    for text, message in (("nobody", "unknown scripted profile 'nobody'"), ("tank,tank", "listed twice"),
                          ("tank,", "comma-separated")):
        with pytest.raises(StudyError, match=message):
            parse_profiles(text)


def test_parity_searches_every_profile_that_can_win_in_base_and_variants():
    from analysis.study.plan import Variant

    variant = Variant(name="late", title="late", source="late.toml", file="variants/late.toml", digest="d")
    plan = plan_study("s", 10, 1, [4, 5], "reference", [variant], profiles=["passive", "balanced"], parity=True)
    assert plan.parity_profiles == ("balanced",)  # passive never wins: no strength at parity
    assert [task.file for task in plan.parity_tasks()] == [
        "parity/vs-balanced-L4.json", "parity/vs-balanced-L5.json",
        "parity/late/vs-balanced-L4.json", "parity/late/vs-balanced-L5.json"]
    assert plan.parity_tasks()[-1].overlay_digest == "d"
    assert plan_study("s", 10, 1, [5], "reference").parity_tasks() == ()


def test_every_option_is_recorded_and_read_back():
    plan = plan_study("s", 10, 1, [5], "reference", profiles=["tank"], strengths=[1.2, 1], rounds=6,
                      start_bonus="none", parity=True, parity_games=123, backend="dask", scheduler="tcp://h:1")
    stored = json.loads(json.dumps(plan.to_json()))
    assert StudyPlan.from_json(stored) == plan
    assert (stored["profiles"], stored["strengths"], stored["rounds"], stored["start_bonus"], stored["parity_games"],
            stored["backend"], stored["scheduler"]) == (["tank"], [1.0, 1.2], 6, "none", 123, "dask", "tcp://h:1")
    # A study.json written before these options existed reads as the defaults it was played with.
    old = {key: value for key, value in stored.items()
           if key not in ("profiles", "strengths", "parity", "parity_games", "parity_profiles", "backend", "scheduler")}
    plan = StudyPlan.from_json(old)
    assert (plan.strengths, plan.parity, plan.parity_games, plan.backend) == ((1.0,), False, DEFAULT_PARITY_GAMES,
                                                                              "local")


@pytest.mark.parametrize(("keywords", "message"), [
    ({"rounds": 5}, "^rounds: "), ({"start_bonus": "all"}, "^start_bonus: "), ({"parity_games": 0}, "^parity_games: "),
    ({"backend": "dask"}, "^backend dask needs scheduler"),
    ({"scheduler": "tcp://h:1"}, "^scheduler: only with backend dask"),
    ({"backend": "cloud"}, "^backend: "),
])
def test_plan_refuses_bad_options(keywords, message):
    with pytest.raises(StudyError, match=message):
        plan_study("s", 10, 1, [5], "reference", **keywords)


@pytest.mark.parametrize(("keywords", "message"), [
    # said "rounds: must be one of 7, 6, got 6" or ended in Python's "'<' not supported" (a QA pass of the API)
    ({"rounds": "6"}, "rounds: must be an integer, got str '6'"),
    ({"board": None}, "board: must be a string, 'moon' or 'belt'; got NoneType None"),
    ({"parity_games": "5"}, "parity_games: must be a whole number, got '5'"),
    ({"readings_games": "2"}, "readings_games: must be a whole number, got '2'"),
])
def test_plan_says_when_an_option_has_the_wrong_type(keywords, message):
    with pytest.raises(ConfigError) as caught:
        plan_study("s", 10, 1, [5], "reference", **keywords)
    assert str(caught.value) == message


def test_the_recorded_command_repeats_the_options():
    parser = build_parser()
    default = parser.parse_args(["study"])
    assert study_command_line(default) == ("luna-balance study --name default --games 200000 --levels 0-8 --seed 2026"
                                           " --results-dir results")  # unchanged for a default study
    args = parser.parse_args(["study", *OPTIONS, "--backend", "dask", "--scheduler", "tcp://h:1"])
    command = study_command_line(args)
    assert ("--profiles balanced --strengths 0.8,1 --rounds 6 --start-bonus none --parity --parity-games 30 "
            "--backend dask --scheduler tcp://h:1") in command
    again = parser.parse_args(shlex.split(command)[1:])
    assert study_command_line(again) == command


@pytest.mark.parametrize(("arguments", "message"), [
    (["--profiles", "nobody"], "--profiles: unknown scripted profile 'nobody'"),
    (["--profiles", "tank,tank"], "--profiles: 'tank' is listed twice"),
    (["--strengths", "0"], "--strengths:"),
    (["--strengths", "strong"], "--strengths:"),
    (["--rounds", "5"], "--rounds"),
    (["--start-bonus", "all"], "--start-bonus"),
    (["--parity", "--parity-games", "0"], "--parity-games: must be at least 1"),
    (["--parity-games", "10"], "--parity-games: only with --parity"),
    (["--backend", "dask"], "--backend dask needs --scheduler"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler: only with --backend dask"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, arguments, message):
    assert run_cli(tmp_path / "results", "--games", "5", "--engine", "reference", "--quiet", *arguments) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "results").exists()


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(study_runner, "SCHEDULER_TIMEOUT", "1s")
    assert run_cli(tmp_path / "results", "--games", "5", "--engine", "reference", "--quiet", "--backend", "dask",
                   "--scheduler", "tcp://127.0.0.1:9") == 2
    err = capsys.readouterr().err
    assert "--scheduler: cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'" in err and err.count("\n") == 1
    assert not (tmp_path / "results").exists()


# ----------------------------------------------------------------------------------------------
# A small study with the options


def test_the_options_reach_every_part_and_the_report(study):
    plan = read_plan(study)
    assert [part.name for part in plan.parts if part.name.startswith("vs-")] == [
        "vs-balanced@0.8-L4", "vs-balanced@0.8-L5", "vs-balanced-L4", "vs-balanced-L5"]
    for part in plan.parts:
        config = json.loads((study / part.run / "manifest.json").read_text())["config"]
        assert (config["rounds"], config["start_bonus"], config["games"]) == (6, "none", GAMES)
        assert config["seats"] == part.seats.split(",")
    markdown = (study / "report.md").read_text()
    assert "; 6 rounds; starting bonus none; " in markdown
    assert "scripted profiles balanced at strengths 0.8, 1" in markdown and "--strengths 0.8,1" in markdown
    assert "## Strength at parity" in markdown
    assert markdown.index("## Win rates") < markdown.index("## Strength at parity")
    # every row to the decimals the bisection settles: 1.10, not 1.1 beside 1.13 (a QA pass)
    decimals = strength_decimals(PARITY_TOLERANCE)
    table = parity_step.parity_frame(study, plan)
    assert table.attrs[FIXED_DECIMALS] == {"strength": decimals, "low": decimals, "high": decimals}
    assert "| base | balanced | 4 | " + f"{table['strength'].iloc[0]:.{decimals}f} |" in markdown

    import pandas as pd

    win_rates = pd.read_csv(study / "tables" / "win_rates.csv")
    assert {"balanced", "balanced@0.8"} <= set(win_rates["opponents"])


def test_slot_first_use_of_six_round_games_ends_at_round_six(study):
    # the table and its figure had a round-7 row, 0 games and a flat line, in a study of 6 rounds (a QA pass)
    import pandas as pd

    first_use = pd.read_csv(study / "tables" / "slot_first_use.csv")
    assert first_use["first_round"].max() == 6
    assert sorted(set(first_use["first_round"])) == list(range(7))  # 0: never used, then rounds 1-6


def test_the_parity_table_is_the_parity_commands(study):
    import pandas as pd

    from analysis.parity import parity_table
    from sim.gamedata import load_game_data

    stored = pd.read_csv(study / "tables" / "strength_at_parity.csv")
    direct = parity_table(load_game_data(), "balanced", [4, 5], PARITY_GAMES, read_plan(study).seed, "reference",
                          rounds=6, start_bonus="none")
    assert stored["variant"].tolist() == ["base", "base"]
    columns = ["profile", "level", "strength", "low", "high", "win_rate", "games", "evaluations"]
    pd.testing.assert_frame_equal(stored[columns], direct[columns], check_dtype=False)


def test_changed_options_make_parts_and_searches_stale(study):
    plan = read_plan(study)
    part, task = plan.parts[0], plan.parity_tasks()[0]
    assert part_is_finished(study, plan, part) and parity_is_finished(study, plan, task)
    for change in ({"rounds": 7}, {"start_bonus": "random"}):
        other = StudyPlan.from_json({**plan.to_json(), **change})
        assert not part_is_finished(study, other, part) and not parity_is_finished(study, other, task)
    other = StudyPlan.from_json({**plan.to_json(), "parity_games": PARITY_GAMES + 1})
    assert part_is_finished(study, other, part) and not parity_is_finished(study, other, task)
    assert not parity_is_finished(study, plan, task, data_digest="0" * 16)
    assert not parity_is_finished(study, plan, ParityTask("balanced", 4, "late", "variants/late.toml", "d"))


def test_an_interrupted_parity_step_resumes_to_the_same_tables(study, tmp_path, monkeypatch, capsys):
    real = parity_step.search
    searched: list[int] = []

    def interrupt_second(*arguments):
        searched.append(arguments[2])
        if len(searched) == 2:
            raise KeyboardInterrupt
        return real(*arguments)

    monkeypatch.setattr(parity_step, "search", interrupt_second)
    assert run_cli(tmp_path, *OPTIONS) == 130
    err = capsys.readouterr().err
    assert "and 1 of 2 parity searches are finished" in err and err.count("\n") == 1
    study_dir = tmp_path / "opts"
    assert sorted(path.name for path in (study_dir / "parity").iterdir()) == ["vs-balanced-L4.json"]
    assert main(["report", str(study_dir)]) == 2
    assert "vs-balanced-L5 is not finished" in capsys.readouterr().err

    searched.clear()
    played: list[str] = []
    monkeypatch.setattr(study_runner, "run_simulation", lambda *args, **kwargs: played.append(args[3]))
    assert run_cli(tmp_path, *[option for option in OPTIONS if option != "--quiet"]) == 0
    assert searched == [5] and played == []  # only the missing search; every part was kept
    # the resume said "keeping 8 finished part(s); 0 to simulate", not a word of the search left (a QA pass)
    assert (f"{study_dir}: keeping 8 finished part(s) and 1 of 2 parity searches; 0 parts to play, 1 search to run"
            in capsys.readouterr().err)
    assert tables(study_dir) == tables(study)


def test_resuming_with_other_rounds_replays_everything(study, tmp_path, monkeypatch):
    import shutil

    copy = tmp_path / "opts"
    shutil.copytree(study, copy)
    played: list[str] = []
    searched: list[int] = []
    monkeypatch.setattr(study_runner, "run_simulation", lambda *args, **kwargs: played.append(Path(args[3]).name))
    monkeypatch.setattr(study_runner, "render_study_dir", lambda study_dir: SimpleNamespace(html="report.html"))
    monkeypatch.setattr(parity_step, "search", lambda *arguments: searched.append(arguments[2]) or {})
    options = [word if word != "6" else "7" for word in OPTIONS]
    assert run_cli(tmp_path, *options) == 0
    plan = read_plan(copy)
    assert plan.rounds == 7 and len(played) == len(plan.parts) and searched == [4, 5]


@pytest.mark.slow
def test_a_study_on_a_dask_cluster_gives_the_local_tables(study, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=":0",
                                  processes=True) as cluster:
        address = cluster.scheduler_address
        assert run_cli(tmp_path, *OPTIONS, "--backend", "dask", "--scheduler", address) == 0
    study_dir = tmp_path / "opts"
    plan = read_plan(study_dir)
    assert (plan.backend, plan.scheduler) == ("dask", address) and f"--scheduler {address}" in plan.command
    manifest = json.loads((study_dir / plan.parts[0].run / "manifest.json").read_text())
    assert manifest["config"]["backend"] == "dask" and manifest["config"]["chunk_size"] < GAMES  # spread over 2 workers
    assert tables(study_dir) == tables(study)
    for task in plan.parity_tasks():
        assert json.loads((study_dir / task.file).read_text())["result"] == \
            json.loads((study / task.file).read_text())["result"]
    assert f"played on the dask backend at {address}" in (study_dir / "report.md").read_text()


def test_parity_searches_on_workers_compile_each_matchup_here_first(study, tmp_path, monkeypatch):
    # On a cold cache each worker compiled the engine and said so (a QA pass); the searches' workers now load what
    # this process compiled for each search's matchup, handed to ordered_results as its before_workers hook.
    import shutil

    import sim.engines

    copy = tmp_path / "opts"
    shutil.copytree(study, copy)
    for result in (copy / "parity").iterdir():
        result.unlink()
    compiled: list[tuple[str, str, int, str]] = []
    monkeypatch.setattr(sim.engines, "compile_before_workers", lambda engine, data, config: compiled.append(
        (engine, config.seats_label, config.rounds, config.start_bonus)))

    def on_workers(function, calls, workers, backend, scheduler, before_workers=None):
        assert workers == 2 and backend == "local"
        before_workers()
        return (function(*call) for call in calls)

    monkeypatch.setattr(parity_step, "ordered_results", on_workers)
    monkeypatch.setattr(study_runner, "render_study_dir", lambda study_dir: SimpleNamespace(html="report.html"))
    assert run_cli(tmp_path, *OPTIONS, "--workers", "2") == 0
    assert compiled == [("reference", "scripted:balanced,luna:4", 6, "none"),
                        ("reference", "scripted:balanced,luna:5", 6, "none")]
    assert sorted(path.name for path in (copy / "parity").iterdir()) == ["vs-balanced-L4.json", "vs-balanced-L5.json"]
