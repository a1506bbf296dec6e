"""Output places a robustness pass (2026-11-26) found to lose a user's files or to refuse a rerun.

The names say what each case used to do.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
OVERLAY = "[luna.levels.5]\nhelium_tokens = [9, 15]\n"


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("luna-balance: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("command", [
    ["simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference"],
    ["campaign", "--seats", "scripted:balanced,luna", "--campaigns", "2", "--chapters", "1", "--engine", "reference"],
    ["readings", "--levels", "5", "--games", "2", "--engine", "reference"],
])
def test_rerun_whose_overlay_is_inside_its_earlier_output_deleted_the_overlay(tmp_path, capsys, command):
    out = tmp_path / "run"
    assert main([*command, "--out", str(out), "--quiet"]) == 0
    overlay = out / "mine.toml"  # kept beside the run it made, a natural place
    overlay.write_text(OVERLAY)
    before = sorted(path.name for path in out.iterdir())
    capsys.readouterr()
    assert main([*command, "--out", str(out), "--overlay", str(overlay), "--quiet"]) == 2
    assert f"{out}: holds {overlay}, which this command reads" in one_line(capsys)
    assert overlay.read_text() == OVERLAY and sorted(path.name for path in out.iterdir()) == before


def test_levels_whose_overlay_is_inside_a_level_directory_deleted_it(tmp_path, capsys):
    out = tmp_path / "levels"
    assert main(["levels", "--levels", "5", "--games", "20", "--engine", "reference", "--out", str(out),
                 "--quiet"]) == 0
    overlay = out / "level-5" / "mine.toml"
    overlay.write_text(OVERLAY)
    capsys.readouterr()
    assert main(["levels", "--levels", "5", "--games", "20", "--engine", "reference", "--out", str(out),
                 "--overlay", str(overlay), "--quiet"]) == 2
    assert "which this command reads" in one_line(capsys)
    assert overlay.read_text() == OVERLAY


def test_tune_whose_target_file_is_inside_its_earlier_output_deleted_the_target(tmp_path, capsys):
    out = tmp_path / "tuned"
    target = ROOT / "examples" / "tune_level4.toml"
    assert main(["tune", str(target), "--games", "40", "--engine", "reference", "--out", str(out), "--quiet"]) == 0
    moved = out / target.name
    shutil.copy(target, moved)
    capsys.readouterr()
    assert main(["tune", str(moved), "--games", "40", "--engine", "reference", "--out", str(out), "--quiet"]) == 2
    assert f"holds {moved}" in one_line(capsys)
    assert moved.read_bytes() == target.read_bytes()


def test_an_overlay_beside_the_output_is_fine(tmp_path):
    out = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference", "--out", str(out),
                 "--quiet"]) == 0
    overlay = tmp_path / "run.toml"  # a sibling whose name starts like the run's is not inside it
    overlay.write_text(OVERLAY)
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference", "--out", str(out),
                 "--overlay", str(overlay), "--quiet"]) == 0


@pytest.mark.parametrize("last", [False, True])  # at the first table, or at report.html (the last file moved)
def test_runs_report_stopped_part_way_refused_its_own_rerun(tmp_path, capsys, monkeypatch, last):
    # Stopped while its files were moved into place, after the earlier pages were removed: the folder holds tables
    # and figures and no page, which the next runs-report must still take for a report of its own.
    run, out = tmp_path / "run", tmp_path / "report"
    assert main(["simulate", "--seats", "scripted:balanced,luna:5", "--games", "30", "--engine", "reference",
                 "--detail", "rounds", "--out", str(run), "--quiet"]) == 0
    assert main(["runs-report", str(run), "--out", str(out)]) == 0  # an earlier report, replaced by the next
    writes = len(list(out.rglob("*.*")))
    moved = os.replace
    moves = []

    def failing_move(source: str | Path, destination: str | Path) -> None:
        if Path(destination).is_relative_to(out):
            moves.append(destination)
            if len(moves) == (writes if last else 1):
                raise OSError(5, "Input/output error")
        moved(source, destination)

    monkeypatch.setattr(os, "replace", failing_move)
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(out)]) == 2
    assert "Input/output error" in one_line(capsys)
    assert not (out / "report.html").exists()
    monkeypatch.setattr(os, "replace", moved)
    assert main(["runs-report", str(run), "--out", str(out)]) == 0, capsys.readouterr().err
    assert (out / "report.html").is_file() and len(list(out.rglob("*.*"))) == writes


def test_runs_report_into_a_full_disk_left_the_earlier_report_whole(tmp_path, capsys, monkeypatch):
    run, out = tmp_path / "run", tmp_path / "report"
    assert main(["simulate", "--seats", "luna:5", "--games", "30", "--engine", "reference", "--out", str(run),
                 "--quiet"]) == 0
    assert main(["runs-report", str(run), "--out", str(out)]) == 0
    earlier = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    synced = os.fsync

    def full_disk_at_the_page(descriptor: int) -> None:
        if os.readlink(f"/proc/self/fd/{descriptor}").startswith(str(out / ".report.html.")):
            raise OSError(28, "No space left on device")
        synced(descriptor)

    monkeypatch.setattr(os, "fsync", full_disk_at_the_page)
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(out)]) == 2
    assert one_line(capsys) == f"luna-balance: {out / 'report.html'}: No space left on device\n"
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == earlier


def test_a_folder_of_other_things_beside_tables_is_still_refused(tmp_path, capsys):
    out = tmp_path / "mine"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "prices.csv").write_text("a\n1\n")
    (out / "notes.txt").write_text("mine")
    assert main(["runs-report", str(tmp_path / "nothing"), "--out", str(out)]) == 2
    assert "holds other files and no luna-balance report" in one_line(capsys)


def test_an_out_path_that_is_not_utf8_named_no_file_and_left_a_folder(tmp_path, capsys):
    parent = tmp_path / os.fsdecode(b"r\xe9sultats")  # a Latin-1 name, as an old file system may hold
    assert main(["simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference", "--out",
                 str(parent / "run"), "--quiet"]) == 2
    assert "the path is not valid UTF-8" in one_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_named_the_temporary_directory_that_is_removed(tmp_path):
    """`sensitivity` or `tune` over a file-size limit said `.sens.partial-7814/figures/tornado.png: File too large`,
    a folder gone by the time the line was read; simulate named its --out."""
    from sim.run import output_directory

    out = tmp_path / "sens"
    with pytest.raises(OSError) as failed, output_directory(out, "sensitivity") as temporary:
        (temporary / "figures").mkdir()
        raise OSError(27, "File too large", str(temporary / "figures" / "tornado.png"))
    assert failed.value.filename == str(out / "figures" / "tornado.png") and failed.value.strerror == "File too large"
    assert list(tmp_path.iterdir()) == []


def _a_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    assert main(["simulate", "--seats", "scripted:balanced,luna:5", "--games", "30", "--engine", "reference",
                 "--out", str(run), "--quiet"]) == 0
    return run


def test_two_runs_reports_on_one_out_wrote_into_each_other(tmp_path, capsys):
    from analysis.folder_lock import LOCK_FILE, folder_lock

    run, out = _a_run(tmp_path), tmp_path / "report"
    out.mkdir()
    with folder_lock(out):  # another runs-report, writing this folder now
        capsys.readouterr()
        assert main(["runs-report", str(run), "--out", str(out)]) == 2
        line = one_line(capsys)
        assert f"{out}: another report is being written into this folder (pid {os.getpid()} on " in line
        assert sorted(path.name for path in out.iterdir()) == [LOCK_FILE]  # nothing of its own written
    assert main(["runs-report", str(run), "--out", str(out)]) == 0
    assert (out / "report.html").is_file() and not (out / LOCK_FILE).exists()


@pytest.mark.parametrize("written", [False, True])  # killed before its first file, or after its tables
def test_runs_report_killed_left_temporary_files_for_good(tmp_path, capsys, written):
    from analysis.folder_lock import LOCK_FILE

    run, out = _a_run(tmp_path), tmp_path / "report"
    if written:
        assert main(["runs-report", str(run), "--out", str(out)]) == 0
        (out / "report.html").unlink()  # killed (kill -9) between its tables and its pages
        (out / "report.md").unlink()
    # what kill -9 leaves: the lock file its dead holder held, atomic writes' temporaries
    out.mkdir(exist_ok=True)
    (out / LOCK_FILE).write_text('{"pid": 999999999, "host": "gone", "started": 0}')
    (out / ".report.html.x1.tmp").write_text("<html")
    if written:
        (out / "tables" / ".runs.csv.x2.tmp").write_text("run,")
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(out)]) == 0, capsys.readouterr().err
    assert (out / "report.html").is_file()
    assert [path.name for path in out.rglob(".*")] == []  # no temporary and no lock file left


def test_runs_report_out_that_is_a_file_was_named_by_mkdirs_errno(tmp_path, capsys):
    run, out = _a_run(tmp_path), tmp_path / "report"
    out.write_text("mine")
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(out)]) == 2
    assert one_line(capsys) == f"luna-balance: {out}: is a file, not a folder the report can write into\n"
    assert out.read_text() == "mine"
