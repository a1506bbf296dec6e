"""``study --readings``: the "Rule readings" section, the ``readings`` command's computation inside a study."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.readings import compare_readings
from analysis.study import readings_step
from analysis.study.plan import DEFAULT_READINGS_GAMES, read_plan
from sim.cli import build_parser, main, study_options
from sim.gamedata import load_game_data

OPTIONS = ["--games", "20", "--levels", "5", "--engine", "reference", "--quiet", "--profiles", "tank", "--seed", "3"]


def run_cli(results: Path, *arguments: str, name: str = "rr") -> int:
    try:
        return main(["study", "--name", name, "--results-dir", str(results), *arguments])
    except SystemExit as leaving:
        return int(leaving.code)


def test_off_by_default_with_a_modest_default_when_asked():
    parse = build_parser().parse_args
    assert study_options(parse(["study"]))["readings_games"] == 0
    assert study_options(parse(["study", "--readings"]))["readings_games"] == DEFAULT_READINGS_GAMES == 20_000
    assert study_options(parse(["study", "--readings", "--readings-games", "500"]))["readings_games"] == 500


@pytest.mark.parametrize(("arguments", "message"), [
    (["--readings-games", "50"], "--readings-games: only with --readings"),
    (["--readings", "--readings-games", "1"], "--readings-games: at least 2"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, arguments, message):
    assert run_cli(tmp_path, *OPTIONS, *arguments) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_a_study_without_readings_plays_none(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("compare_readings played without --readings")

    monkeypatch.setattr(readings_step, "compare_readings", refuse)
    assert run_cli(tmp_path, *OPTIONS) == 0
    study = tmp_path / "rr"
    assert not (study / "readings").exists() and "Rule readings" not in (study / "report.html").read_text()
    assert read_plan(study).readings_games == 0


def test_the_section_is_the_readings_commands_table_and_is_kept_on_rerun(tmp_path, monkeypatch):
    assert run_cli(tmp_path, *OPTIONS, "--readings", "--readings-games", "12") == 0
    study = tmp_path / "rr"
    stored = pd.read_csv(study / "readings" / "readings.csv")
    expected = compare_readings(load_game_data(), [5], 12, 3, engine="reference")
    pd.testing.assert_frame_equal(stored, pd.read_csv(io.StringIO(expected.to_csv(index=False))))
    html = (study / "report.html").read_text()
    assert "Rule readings" in html and "preset=companion-app" in html
    assert (study / "tables" / "readings_score.csv").exists() and (study / "figures" / "readings.png").exists()
    settings = json.loads((study / "readings" / "settings.json").read_text())
    assert settings["games"] == 12 and settings["levels"] == [5]
    assert "--readings --readings-games 12" in read_plan(study).command

    def refuse(*args, **kwargs):
        raise AssertionError("a finished comparison was played again")

    monkeypatch.setattr(readings_step, "compare_readings", refuse)
    assert run_cli(tmp_path, *OPTIONS, "--readings", "--readings-games", "12") == 0
    assert main(["report", str(study)]) == 0
    assert "Rule readings" in (study / "report.html").read_text()


def test_a_readings_table_cut_short_after_it_was_written_was_kept_and_drawn_as_complete(tmp_path, capsys):
    assert run_cli(tmp_path, *OPTIONS, "--readings", "--readings-games", "12") == 0
    study = tmp_path / "rr"
    table = study / "readings" / "readings.csv"
    whole = table.read_bytes()
    table.write_bytes(whole[:300])  # a CSV has no footer: a cut row read back as a row of blanks
    capsys.readouterr()
    assert main(["report", str(study)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"luna-balance: {table}: changed since the study wrote it") and err.count("\n") == 1
    assert run_cli(tmp_path, *OPTIONS, "--readings", "--readings-games", "12") == 0  # plays it again
    assert table.read_bytes() == whole
