"""Replacing an earlier output: what a review (2026-11-27) found lost or left behind, and what may be replaced.

The names say what each case used to do. Every refusal is one line, exit 2, with nothing changed.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
SIMULATE = ["simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference", "--quiet"]


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("luna-balance: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` (hidden ones too), with a file's bytes: what "nothing changed" compares."""
    return {str(path.relative_to(root)): path.read_bytes() if path.is_file() and not path.is_symlink() else None
            for path in sorted(root.rglob("*"))}


def test_a_rerun_deleted_the_report_and_notes_put_into_its_run_folder(tmp_path, capsys):
    out = tmp_path / "l5"
    assert main([*SIMULATE, "--out", str(out)]) == 0
    assert main(["runs-report", str(out), "--out", str(tmp_path / "report")]) == 0
    (tmp_path / "report").rename(out / "report")  # moved in by hand: no command writes inside another's output
    (out / "notes.md").write_text("notes\n")
    before = tree(tmp_path)
    capsys.readouterr()
    assert main([*SIMULATE, "--games", "30", "--out", str(out)]) == 2
    assert f"{out}: holds notes.md, report, which no luna-balance output writes there" in one_line(capsys)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("command", [
    ["levels", "--levels", "5", "--games", "20", "--engine", "reference", "--quiet"],
    ["study", "--levels", "3", "--games", "30", "--profiles", "balanced", "--engine", "reference", "--quiet",
     "--name", "inside"],
    ["runs-report", "RUN"],
    [*SIMULATE],
], ids=["levels", "study", "runs-report", "simulate"])
def test_an_output_inside_another_output_is_refused(tmp_path, capsys, command):
    # written inside a run, an output made the run's next rerun refuse ("holds sub, which no luna-balance output
    # writes there") and was lost with the run when it was removed; a simulate inside a study's runs/ replaced one
    # of its parts (a QA pass)
    out = tmp_path / "run"
    assert main([*SIMULATE, "--out", str(out)]) == 0
    command = [str(out) if word == "RUN" else word for word in command]
    where = ["--results-dir", str(out)] if command[0] == "study" else ["--out", str(out / "inside")]
    before = tree(tmp_path)
    capsys.readouterr()
    assert main([*command, *where]) == 2
    assert f"is inside {out}, an output of luna-balance, whose next run replaces it whole" in one_line(capsys)
    assert tree(tmp_path) == before


def test_a_simulate_over_a_study_s_part_is_refused(tmp_path, capsys):
    study = ["study", "--levels", "3", "--games", "30", "--profiles", "balanced", "--engine", "reference", "--quiet",
             "--results-dir", str(tmp_path), "--name", "st"]
    assert main(study) == 0
    part = next(path for path in (tmp_path / "st" / "runs").iterdir() if path.is_dir())
    before = tree(tmp_path)
    capsys.readouterr()
    assert main([*SIMULATE, "--out", str(part)]) == 2
    assert f"is inside {tmp_path / 'st'}, an output of luna-balance" in one_line(capsys)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("kind", ["campaign", "tune"])
def test_runs_report_wrote_over_another_command_s_report(tmp_path, capsys, kind):
    # the campaign's report.html, figures and tables were replaced by a runs report, exit 0 (a QA pass)
    command = {"campaign": ["campaign", "--seats", "scripted:balanced,luna", "--campaigns", "2", "--chapters", "1"],
               "tune": ["tune", str(ROOT / "examples" / "tune_level4.toml"), "--games", "40"]}[kind]
    other, run = tmp_path / kind, tmp_path / "run"
    assert main([*command, "--engine", "reference", "--quiet", "--out", str(other)]) == 0
    assert main([*SIMULATE, "--out", str(run)]) == 0
    before = tree(tmp_path)
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(other)]) == 2
    assert f"{other} is the output of another luna-balance command" in one_line(capsys)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("command", [["runs-report", "RUN"], ["study", "--levels", "3", "--games", "30", "--profiles",
                                                                "balanced", "--engine", "reference", "--quiet"]],
                         ids=["runs-report", "study"])
def test_a_report_or_study_into_a_folder_a_run_is_building_is_refused(tmp_path, capsys, command):
    # a simulate still playing at --out: the study or report went in, and the simulate failed after all its games
    # (3 million lost in a QA pass) on a folder that was no longer a run's
    run = tmp_path / "run"
    assert main([*SIMULATE, "--out", str(run)]) == 0
    target = tmp_path / "busy"
    other = tmp_path / ".busy.partial-999999"  # another process's output at target, under way
    other.mkdir()
    handle = os.open(other, os.O_RDONLY | os.O_DIRECTORY)
    command = [str(run) if word == "RUN" else word for word in command]
    where = ["--results-dir", str(tmp_path), "--name", "busy"] if command[0] == "study" else ["--out", str(target)]
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # flock: held per open, so this process counts as another
        capsys.readouterr()
        assert main([*command, *where]) == 2
        assert one_line(capsys) == (f"luna-balance: {target}: another luna-balance process (pid 999999) is writing it "
                                    "now; wait for it to finish or choose another --out\n")
        assert sorted(path.name for path in tmp_path.iterdir()) == [".busy.partial-999999", "run"]
    finally:
        os.close(handle)


def test_a_file_of_another_kind_of_output_is_not_a_runs_own(tmp_path, capsys):
    # a tuning's tuned.toml copied into a run folder is the user's there, though tune writes one of that name
    out = tmp_path / "run"
    assert main([*SIMULATE, "--out", str(out)]) == 0
    (out / "tuned.toml").write_text("[luna]\n")
    capsys.readouterr()
    assert main([*SIMULATE, "--out", str(out)]) == 2
    assert "holds tuned.toml," in one_line(capsys)
    assert (out / "tuned.toml").read_text() == "[luna]\n"


def test_an_earlier_run_with_other_files_of_its_own_is_still_replaced(tmp_path):
    out = tmp_path / "run"
    assert main([*SIMULATE, "--detail", "rounds", "--out", str(out)]) == 0
    assert main([*SIMULATE, "--aggregate-only", "--out", str(out)]) == 0  # luna_rounds and seats go
    assert sorted(path.name for path in out.iterdir()) == ["aggregate.parquet", "histograms.parquet", "manifest.json"]
    assert main([*SIMULATE, "--seed", "8", "--out", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["manifest.json", "seats.parquet"]
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 8
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]


@pytest.mark.parametrize("command", [
    [*SIMULATE, "--detail", "rounds"],
    [*SIMULATE, "--aggregate-only"],
    ["tune", str(ROOT / "examples" / "tune_level4.toml"), "--games", "40", "--engine", "reference", "--quiet"],
    ["campaign", "--seats", "scripted:balanced,luna", "--campaigns", "2", "--chapters", "1", "--engine", "reference",
     "--quiet"],
    ["readings", "--levels", "5", "--games", "2", "--engine", "reference", "--quiet"],
    ["sensitivity", "--level", "7", "--opponent", "none", "--games", "10", "--no-cards", "--quiet"],
], ids=["simulate-detail", "simulate-aggregate", "tune", "campaign", "readings", "sensitivity"])
def test_every_command_writes_only_names_its_kind_of_output_lists(tmp_path, command):
    """sim.outputs.output_kinds is checked against what each command really writes: a file a writer adds and the
    list lacks would make every rerun of that command refuse its own earlier output."""
    from sim.outputs import foreign_entries

    out = tmp_path / "out"
    assert main([*command, "--out", str(out)]) == 0
    assert foreign_entries(out) == []
    assert main([*command, "--out", str(out)]) == 0  # and so a rerun replaces it


def test_an_output_of_another_command_is_not_replaced(tmp_path, capsys):
    # a simulate whose --out named a tuning deleted its tuned.toml and report (a QA pass); a tune into a run
    # folder likewise. An output is replaced only by its own command.
    tuning = tmp_path / "tuning"
    assert main(["tune", str(ROOT / "examples" / "tune_level4.toml"), "--games", "40", "--engine", "reference",
                 "--quiet", "--out", str(tuning)]) == 0
    run = tmp_path / "run"
    assert main([*SIMULATE, "--out", str(run)]) == 0
    before = tree(tmp_path)
    capsys.readouterr()
    assert main([*SIMULATE, "--out", str(tuning)]) == 2
    assert one_line(capsys) == (f"luna-balance: {tuning}: holds a tuning (tuned.toml, tuning.csv), which this command "
                                "would delete in replacing it: choose another --out, or remove it first\n")
    assert main(["sensitivity", "--level", "7", "--opponent", "none", "--games", "10", "--no-cards", "--quiet",
                 "--out", str(run)]) == 2
    assert f"{run}: holds a run (seats.parquet), which this command would delete" in one_line(capsys)
    assert tree(tmp_path) == before


def test_the_writers_take_their_names_from_sim_outputs():
    # one place for each name: the writers import output_kinds' names rather than keep copies of their own
    from analysis import render
    from analysis.tuning import output
    from sim import outputs

    assert render.REPORT_FOLDERS is outputs.REPORT_FOLDERS
    assert (output.TUNED_FILE, output.TUNING_FILE) == outputs.TUNE_NAMES
    assert set(outputs.REPORT_NAMES) == {render.MARKDOWN_FILE, render.HTML_FILE, *render.REPORT_FOLDERS}


def test_out_as_a_symbolic_link_was_replaced_by_a_folder_and_left_debris(tmp_path, capsys):
    real = tmp_path / "real"
    assert main([*SIMULATE, "--out", str(real)]) == 0
    link = tmp_path / "link"
    link.symlink_to("real")
    before = tree(tmp_path)
    capsys.readouterr()
    assert main([*SIMULATE, "--seed", "2", "--out", str(link)]) == 2
    assert f"{link}: is a symbolic link; give the folder it points to ({real.resolve()})" in one_line(capsys)
    assert tree(tmp_path) == before and link.is_symlink()
    (tmp_path / "dangling").symlink_to("gone")  # a link to nothing would be replaced by the run as well
    assert main([*SIMULATE, "--out", str(tmp_path / "dangling")]) == 2
    assert "is a symbolic link" in one_line(capsys)
    assert (tmp_path / "dangling").is_symlink() and not (tmp_path / "gone").exists()


def test_runs_report_out_linking_to_nothing_was_file_exists(tmp_path, capsys):
    run = tmp_path / "run"
    assert main([*SIMULATE, "--out", str(run)]) == 0
    link = tmp_path / "link"
    link.symlink_to("reports/ok")
    capsys.readouterr()
    assert main(["runs-report", str(run), "--out", str(link)]) == 2
    assert one_line(capsys) == f"luna-balance: --out: {link} is a symbolic link to reports/ok, which does not exist\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link", "run"]


def test_two_simulates_on_one_out_both_said_written(tmp_path, capsys):
    out = tmp_path / "run"
    other = tmp_path / ".run.partial-999999"  # another process's run at out, under way
    other.mkdir()
    handle = os.open(other, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # flock: held per open, so this process counts as another
        assert main([*SIMULATE, "--out", str(out)]) == 2
        assert one_line(capsys) == (f"luna-balance: {out}: another luna-balance process (pid 999999) is writing it "
                                    "now; wait for it to finish or choose another --out\n")
        assert sorted(path.name for path in tmp_path.iterdir()) == [".run.partial-999999"]
    finally:
        os.close(handle)
    assert main([*SIMULATE, "--out", str(out)]) == 0  # its holder gone, its folder is removed as abandoned
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]


def test_an_out_name_too_long_left_its_new_parent_folders(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "a" * 250  # fits; the temporary folder beside it, ".<name>.partial-<pid>", does not
    assert main([*SIMULATE, "--out", f"new1/new2/{name}"]) == 2
    assert "the name is too long" in one_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_huge_chunk_size_was_a_numpy_memory_traceback(tmp_path, capsys):
    out = tmp_path / "big" / "x"
    assert main(["simulate", "--seats", "luna:5", "--games", "1000000000000", "--chunk-size", "1000000000000",
                 "--out", str(out), "--aggregate-only", "--quiet"]) == 2
    line = one_line(capsys)
    assert line.startswith("luna-balance: --chunk-size: 1000000000000 games of this table make a chunk of ")
    assert "at most " in line and list(tmp_path.iterdir()) == []


def test_a_chunk_size_beyond_the_games_is_the_games(tmp_path):
    out = tmp_path / "run"
    assert main([*SIMULATE, "--chunk-size", "1000000000000", "--out", str(out)]) == 0
    assert json.loads((out / "manifest.json").read_text())["config"]["chunk_size"] == 20


@pytest.mark.parametrize(("name", "why"), [
    ("run/seats.parquet", "an existing file that is not CSV"),
    ("run/parity.csv", "inside run, an output of luna-balance"),
    ("notes.txt", "an existing file that is not CSV"),
    ("link.csv", "a symbolic link"),
])
def test_parity_csv_overwrote_a_runs_parquet_file(tmp_path, capsys, monkeypatch, name, why):
    import analysis.parity

    monkeypatch.chdir(tmp_path)
    assert main([*SIMULATE, "--out", "run"]) == 0
    Path("notes.txt").write_text("mine\n")
    Path("link.csv").symlink_to("notes.txt")
    before = tree(tmp_path)

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("the search ran")

    monkeypatch.setattr(analysis.parity, "parity_table", no_search)
    capsys.readouterr()
    assert main(["parity", "--profile", "balanced", "--levels", "3", "--games", "10", "--csv", name, "--quiet"]) == 2
    assert one_line(capsys) == f"luna-balance: --csv: {name!r} is not a file that can be written ({why})\n"
    assert tree(tmp_path) == before



def test_a_read_only_earlier_run_was_replaced_then_reported_as_a_failure(tmp_path, capsys, monkeypatch):
    # chmod -R a-w on a run, rerun by its owner: the new run was moved into place, removing the old one failed
    # ("manifest.json: Permission denied", exit 2) and a .run.old-PID folder stayed. Now refused before any game.
    import sim.outputs

    out = tmp_path / "run"
    assert main([*SIMULATE, "--out", str(out)]) == 0
    before = (out / "manifest.json").read_bytes()
    real = os.access
    monkeypatch.setattr(sim.outputs.os, "access", lambda path, mode: Path(path) != out and real(path, mode))
    assert main([*SIMULATE, "--seed", "2", "--out", str(out)]) == 2
    assert one_line(capsys) == (f"luna-balance: {out}: is read-only ({out} may not have files removed), so a new "
                                f"output cannot replace it: make it writable (chmod -R u+w {out}) or choose another "
                                "--out\n")
    assert (out / "manifest.json").read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def _as_the_owner(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as this user, whom a folder's permissions stop; root, whom they do not, without the capabilities
    that let it past them (``setpriv``): still the files' owner, as in the case this pins."""
    if os.geteuid() == 0:
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", *command]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_a_read_only_earlier_run_is_refused_for_real(tmp_path):
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root, and no setpriv to drop the capabilities that let root past permissions")
    out = tmp_path / "run"
    simulate = [sys.executable, "-m", "sim", *SIMULATE, "--out", str(out)]
    try:
        assert main([*SIMULATE, "--out", str(out)]) == 0
        out.chmod(0o555)
        again = _as_the_owner(simulate, tmp_path)
        assert again.returncode == 2 and f"{out}: is read-only" in again.stderr, again.stderr
        assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]
        out.chmod(0o755)
        assert _as_the_owner(simulate, tmp_path).returncode == 0  # writable again: replaced as before
    finally:
        out.chmod(0o755)


LEVELS = ["levels", "--levels", "3", "--games", "20", "--engine", "reference", "--quiet"]


@pytest.mark.parametrize(("kind", "command", "where"), [
    ("a run", [*SIMULATE], ""),
    ("a campaign", ["campaign", "--seats", "scripted:balanced,luna", "--campaigns", "2", "--chapters", "1",
                    "--engine", "reference", "--quiet"], ""),
    ("a study", ["study", "--levels", "3", "--games", "30", "--profiles", "balanced", "--engine", "reference",
                 "--quiet", "--name", "st"], "st"),
    ("a run", [*LEVELS[:2], "2", *LEVELS[3:]], "level-2"),  # one level's run of an earlier levels --out
], ids=["run", "campaign", "study", "level-run"])
def test_levels_out_into_another_output_broke_it(tmp_path, capsys, kind, command, where):
    # levels --out r5 (a run) wrote r5/level-3 and exit 0; the run's next simulate then refused r5 ("holds level-3,
    # which no luna-balance output writes there"); the same with a campaign, a study, or lv2/level-2 (a QA pass)
    made = tmp_path / "made"
    place = ["--results-dir", str(made)] if command[0] == "study" else ["--out", str(made)]
    assert main([*command, *place]) == 0
    out = made / where if where else made
    before = tree(tmp_path)
    capsys.readouterr()
    assert main([*LEVELS, "--out", str(out)]) == 2
    assert one_line(capsys) == (f"luna-balance: --out: {out} is {kind}, an output of luna-balance; levels writes its "
                                "level-N runs into a folder of their own: choose another --out\n")
    assert tree(tmp_path) == before


def test_levels_out_of_an_earlier_levels_is_still_replaced(tmp_path, capsys):
    out = tmp_path / "lv"
    assert main([*LEVELS, "--out", str(out)]) == 0
    assert main([*LEVELS, "--out", str(out)]) == 0  # its level-N runs replaced, as a rerun of simulate replaces its own
    assert sorted(path.name for path in out.iterdir()) == ["level-3"]


def test_a_stopped_levels_out_leaves_the_earlier_levels_whole(tmp_path, capsys, stop_at_level):
    """Regression: ``levels --out`` over an earlier one, stopped at its second level, left the first level replaced
    and the others not: two commands' runs mixed, looking complete (a QA pass). The levels' runs now move into place
    together once all are played."""
    out = tmp_path / "lv"
    levels = [*LEVELS[:2], "3,5", *LEVELS[3:], "--out", str(out)]
    assert main([*levels, "--seed", "1"]) == 0
    before = tree(tmp_path)
    stop_at_level(5)
    capsys.readouterr()
    assert main([*levels, "--seed", "2"]) == 130
    assert tree(tmp_path) == before  # level-3 of seed 1 still, and no staging folder left
    stop_at_level(None)
    assert main([*levels, "--seed", "2"]) == 0
    seeds = {json.loads((out / name / "manifest.json").read_text())["config"]["seed"]
             for name in ("level-3", "level-5")}
    assert seeds == {2} and sorted(path.name for path in out.iterdir()) == ["level-3", "level-5"]


def test_a_stopped_first_levels_out_leaves_no_folder(tmp_path, monkeypatch):
    from sim import engines

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(engines, "play_chunk_reference", stopped)
    assert main([*LEVELS, "--out", str(tmp_path / "new" / "lv")]) == 130
    assert list(tmp_path.iterdir()) == []  # the folders made for it too


def test_a_levels_staging_folder_whose_process_died_is_removed(tmp_path):
    # kill -9 while the levels were played leaves their held staging folder; nobody holds it once the process is gone
    from sim.outputs import STAGED

    out = tmp_path / "lv"
    out.mkdir()
    abandoned = out / f".{STAGED}.partial-999999"
    (abandoned / "level-3").mkdir(parents=True)
    assert main([*LEVELS, "--out", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["level-3"]


def test_an_earlier_run_that_cannot_be_held_is_still_replaced(tmp_path, monkeypatch):
    # the earlier run is held (flock, which needs it open) while it is moved aside and deleted; one this user may not
    # read (chmod 300) cannot be opened, and was replaced before the hold came: it still is, only not held
    import sim.outputs

    def unreadable(_folder: Path) -> int:
        raise PermissionError(13, "Permission denied", str(_folder))

    run = ["simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference", "--quiet", "--out",
           str(tmp_path / "run")]
    assert main([*run, "--seed", "1"]) == 0
    monkeypatch.setattr(sim.outputs, "hold", unreadable)
    assert main([*run, "--seed", "2"]) == 0
    assert [path.name for path in tmp_path.iterdir()] == ["run"]
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["config"]["seed"] == 2
