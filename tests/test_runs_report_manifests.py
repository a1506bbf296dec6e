"""runs-report checks each run's manifest and that the files beside it are the ones it describes (a QA pass)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sim.cli import main


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("luna-balance: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two simulate runs: Luna alone, and a duel that kept Luna's rounds."""
    root = tmp_path_factory.mktemp("played")
    common = ["--games", "30", "--engine", "reference", "--quiet"]
    assert main(["simulate", "--seats", "luna:5", *common, "--out", str(root / "solo")]) == 0
    assert main(["simulate", "--seats", "scripted:balanced,luna:4", "--detail", "rounds", *common,
                 "--out", str(root / "duel")]) == 0
    return root


@pytest.fixture
def runs(played: Path, tmp_path: Path) -> Path:
    """Copies of the two runs, for a test to break."""
    shutil.copytree(played, tmp_path / "runs")
    return tmp_path / "runs"


def report(runs: Path, *names: str) -> int:
    return main(["runs-report", *(str(runs / name) for name in names), "--out", str(runs.parent / "report")])


def test_runs_report_of_a_copy_without_its_manifest_is_refused(runs, capsys):
    # pooled with the run it is a copy of: "2 run(s), 60 seat-games", every game counted twice
    shutil.copytree(runs / "solo", runs / "copy")
    (runs / "copy" / "manifest.json").unlink()
    capsys.readouterr()
    assert report(runs, "solo", "copy") == 2
    assert one_line(capsys).startswith(f"luna-balance: {runs / 'copy' / 'manifest.json'}: file not found")
    assert not (runs.parent / "report").exists()


def edit(config: dict) -> Callable[[dict], None]:
    return lambda manifest: manifest["config"].update(config)


def _edit_duel_manifest(runs: Path, change: Callable[[dict], object]) -> Path:
    """Apply ``change`` to the duel run's manifest, in place; its path."""
    path = runs / "duel" / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))
    return path


@pytest.mark.parametrize(("change", "field", "problem"), [
    (edit({"board": "mars"}), "config.board", "must be 'moon' or 'belt', got 'mars'"),
    (edit({"rounds": 99}), "config.rounds", "must be 7, or 6"),
    (edit({"games": "x"}), "config.games", "must be a whole number, got 'x'"),
    (edit({"seed": -1}), "config.seed", "must be 0 to"),
    (edit({"engine": "warp"}), "config.engine", "must be 'reference' or 'numba'"),
    (edit({"detail": "cards"}), "config.detail", "must be 'rounds'"),
    (edit({"seats": ["luna:4", "scripted:balanced"]}), "config.seats", "Luna sits last"),
    (edit({"seats": "luna:4"}), "config.seats", "must be a list of seats"),
    (lambda manifest: manifest["config"].pop("seed"), "config.seed", "missing"),
])
def test_runs_report_of_a_manifest_of_impossible_values_is_refused(runs, capsys, change, field, problem):
    # the report showed "99 rounds, mars board" and 4 seats over a seats.parquet of 2
    path = _edit_duel_manifest(runs, change)
    capsys.readouterr()
    assert report(runs, "solo", "duel") == 2
    assert one_line(capsys).startswith(f"luna-balance: {path}: {field}: {problem}")


@pytest.mark.parametrize(("change", "file", "field"), [
    (edit({"seats": ["luna:1", "luna:2", "luna:3", "luna:4"]}), "seats.parquet", "seat"),
    (edit({"seats": ["scripted:balanced@2", "luna:4"]}), "seats.parquet", "seat"),
    (edit({"seats": ["scripted:balanced", "luna:5"]}), "seats.parquet", "seat"),
    (edit({"games": 29}), "seats.parquet", "game"),
    (edit({"aggregate_only": True, "detail": None}), "seats.parquet", "aggregate_only"),
])
def test_runs_report_of_a_manifest_that_does_not_describe_its_files_is_refused(runs, capsys, change, file, field):
    _edit_duel_manifest(runs, change)
    capsys.readouterr()
    assert report(runs, "solo", "duel") == 2
    assert one_line(capsys).startswith(f"luna-balance: {runs / 'duel' / file}: {field}: ")


def test_runs_report_of_a_seats_file_swapped_in_from_another_run_is_refused(runs, capsys):
    shutil.copy(runs / "solo" / "seats.parquet", runs / "duel" / "seats.parquet")
    capsys.readouterr()
    assert report(runs, "duel") == 2
    assert one_line(capsys).startswith(f"luna-balance: {runs / 'duel' / 'seats.parquet'}: seat: ")


def test_runs_report_of_a_seats_file_of_another_seed_was_reported_as_the_runs_own(runs, capsys):
    # bug (left by the seventh QA pass): the same seats and games, so every other check passed, and the report
    # gave the other seed's numbers under this run's name; the manifest's file digests tell them apart
    assert main(["simulate", "--seats", "luna:5", "--games", "30", "--seed", "7", "--engine", "reference", "--quiet",
                 "--out", str(runs / "other")]) == 0
    shutil.copy(runs / "other" / "seats.parquet", runs / "solo" / "seats.parquet")
    capsys.readouterr()
    assert report(runs, "solo") == 2
    assert one_line(capsys).startswith(f"luna-balance: {runs / 'solo' / 'seats.parquet'}: files.seats.parquet: its "
                                       "bytes are not those its run wrote")
    assert not (runs.parent / "report").exists()


@pytest.mark.parametrize(("files", "problem"), [
    ({"seats.parquet": 1}, "must map each file the run wrote to its digest"),
    ({}, "lists no such file of its run"),
    ("x", "must map each file the run wrote to its digest"),
])
def test_runs_report_of_a_manifest_whose_file_digests_are_not_a_runs_is_refused(runs, capsys, files, problem):
    _edit_duel_manifest(runs, lambda manifest: manifest.update(files=files))
    capsys.readouterr()
    assert report(runs, "duel") == 2
    line = one_line(capsys)
    assert line.startswith(f"luna-balance: {runs / 'duel' / 'seats.parquet'}: files: ") and problem in line, line


def test_runs_report_of_a_run_written_before_file_digests_still_works(runs, capsys):
    _edit_duel_manifest(runs, lambda manifest: manifest.pop("files", None))  # as written before it
    assert report(runs, "solo", "duel") == 0


def test_runs_report_of_a_run_that_lost_its_promised_rounds_is_refused(runs, capsys):
    (runs / "duel" / "luna_rounds.parquet").unlink()
    capsys.readouterr()
    assert report(runs, "duel") == 2
    assert one_line(capsys).startswith(f"luna-balance: {runs / 'duel' / 'luna_rounds.parquet'}: detail: file not "
                                       "found")


def test_runs_report_of_a_rounds_file_its_manifest_does_not_promise_is_refused(runs, capsys):
    shutil.copy(runs / "duel" / "luna_rounds.parquet", runs / "solo")  # another run's rounds, taken for this one's
    capsys.readouterr()
    assert report(runs, "solo") == 2
    assert one_line(capsys).startswith(f"luna-balance: {runs / 'solo' / 'luna_rounds.parquet'}: detail: ")


def test_runs_report_of_an_intact_run_still_works(runs, capsys):
    assert report(runs, "solo", "duel") == 0
