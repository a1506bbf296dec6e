"""Crash safety: a study killed (SIGKILL) anywhere resumes to the same files; a full disk, an unwritable
place and a second study on the same directory end in one line and exit 2, leaving nothing half-written.

The studies run as subprocesses of ``python -m sim.cli``; ``LUNA_BALANCE_TEST_KILL_AT`` makes one kill
itself at a named point (``sim/crashpoints.py``). Files are compared generically (every file under the
study directory, manifests without their timing fields), so the tests hold whatever a part stores.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.study.lock import LOCK_FILE, study_lock
from analysis.study.plan import StudyError
from sim.crashpoints import KILL_AT_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
# 100 games: each part then writes a file larger than study.json (3.4-5.5 KB against 3.0 KB), which the file-size
# limit test needs; at 30 games a solo part's largest file was 2.8 KB
STUDY = ["study", "--name", "s", "--results-dir", "results", "--games", "100", "--levels", "1-2", "--seed", "5",
         "--engine", "reference", "--quiet"]
TIMING_KEYS = {"seconds", "elapsed", "started", "finished", "games_per_second"}  # differ from run to run


def luna(cwd: Path, *arguments: str, kill_at: str | None = None, file_limit: int | None = None,
         wait: bool = True) -> subprocess.CompletedProcess | subprocess.Popen:
    """Run ``python -m sim.cli ARGUMENTS`` in ``cwd`` with this worktree's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "SOURCE_DATE_EPOCH": "0",
           "NUMBA_NUM_THREADS": "1"}
    env.pop(KILL_AT_VARIABLE, None)
    if kill_at:
        env[KILL_AT_VARIABLE] = kill_at

    def limit() -> None:  # in the child: writes past the limit fail with EFBIG instead of killing it
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    cwd.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "sim.cli", *arguments]
    preexec = limit if file_limit is not None else None
    if not wait:
        return subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, preexec_fn=preexec)
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, preexec_fn=preexec,
                          timeout=600)


def _without_timing(value: object) -> object:
    if isinstance(value, dict):
        return {key: _without_timing(item) for key, item in value.items() if key not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timing(item) for item in value]
    return value


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path; manifests without their timing fields."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            content = path.read_bytes()
            if path.name == "manifest.json":
                content = json.dumps(_without_timing(json.loads(content)), sort_keys=True).encode()
            files[str(path.relative_to(folder))] = content
    return files


def assert_same_files(actual: dict[str, bytes], expected: dict[str, bytes]) -> None:
    assert sorted(actual) == sorted(expected)
    different = [name for name in expected if actual[name] != expected[name]]
    assert not different, f"files differ from the uninterrupted study: {different}"


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("luna-balance: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def leftovers(folder: Path) -> list[str]:
    """Half-written things: temporary run directories and files, and lock files."""
    if not folder.exists():
        return []
    return sorted(str(path.relative_to(folder)) for path in folder.rglob(".*"))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, bytes]:
    cwd = tmp_path_factory.mktemp("uninterrupted")
    result = luna(cwd, *STUDY)
    assert result.returncode == 0, result.stderr
    return snapshot(cwd / "results" / "s")


KILL_POINTS = [
    pytest.param(["part-moved:3"], id="after-third-part-moved"),
    pytest.param(["chunk-written:1"], id="during-first-part", marks=pytest.mark.slow),
    pytest.param(["chunk-written:6"], id="during-sixth-part", marks=pytest.mark.slow),
    pytest.param(["part-moving:11"], id="last-part-being-moved", marks=pytest.mark.slow),
    pytest.param(["file-written:1"], id="writing-study-json", marks=pytest.mark.slow),
    pytest.param(["file-written:3"], id="writing-report-tables", marks=pytest.mark.slow),
    pytest.param(["file-written:last"], id="writing-report-html", marks=pytest.mark.slow),
    pytest.param(["chunk-written:2", "part-moved:4", "file-written:10"], id="three-crashes-in-a-row",
                 marks=pytest.mark.slow),
]


@pytest.mark.parametrize("kill_points", KILL_POINTS)
def test_killed_study_resumes_to_identical_files(tmp_path, uninterrupted, kill_points):
    for point in kill_points:
        # Every file outside runs/ is written once by atomic_write, report.html last.
        point = point.replace("last", str(sum(not name.startswith("runs") for name in uninterrupted)))
        killed = luna(tmp_path, *STUDY, kill_at=point)
        assert killed.returncode == -signal.SIGKILL, f"{point} was never reached: {killed.stderr}"
    rerun = luna(tmp_path, *STUDY)
    assert rerun.returncode == 0, rerun.stderr
    study_dir = tmp_path / "results" / "s"
    assert leftovers(study_dir) == []
    assert_same_files(snapshot(study_dir), uninterrupted)


def test_file_size_limit_during_simulate_is_one_line_and_leaves_nothing(tmp_path):
    result = luna(tmp_path, "simulate", "--seats", "luna:2", "--games", "400", "--engine", "reference",
                  "--out", "run", "--quiet", file_limit=8 * 1024)  # seats.parquet is about 16 KB
    # arrow's writer says "Error writing bytes to file. Detail: [errno 27] File too large", naming no file
    assert one_line_error(result) == "luna-balance: run: File too large\n"
    assert list(tmp_path.iterdir()) == []  # neither the run nor its temporary directory


def test_file_size_limit_while_a_study_writes_study_json_names_it(tmp_path, uninterrupted):
    # the limit is below study.json, the first file a study writes (through a file descriptor: no name)
    study = luna(tmp_path, *STUDY, file_limit=len(uninterrupted["study.json"]) - 1)
    assert one_line_error(study) == "luna-balance: results/s/study.json: File too large\n"
    assert leftovers(tmp_path / "results" / "s") == []


@pytest.mark.slow
def test_file_size_limit_during_a_part_and_during_the_report(tmp_path, uninterrupted):
    # study.json fits; every part has a larger file (its summary_seats.parquet), so the first part fails
    study_json = len(uninterrupted["study.json"])
    largest = {}
    for name, content in uninterrupted.items():
        if name.startswith("runs/"):
            part_name = name.split("/")[1]
            largest[part_name] = max(largest.get(part_name, 0), len(content))
    assert largest and min(largest.values()) > study_json
    part = luna(tmp_path, *STUDY, file_limit=study_json)
    assert re.fullmatch(r"luna-balance: results/s/runs/[^/:]+: File too large\n", one_line_error(part))
    study_dir = tmp_path / "results" / "s"
    assert not (study_dir / "runs").exists() or not any((study_dir / "runs").iterdir())
    assert leftovers(study_dir) == []
    largest_part_file = max(len(content) for name, content in uninterrupted.items() if name.startswith("runs"))
    report = luna(tmp_path, *STUDY, file_limit=largest_part_file + 1024)  # parts fit, report.html does not
    assert re.fullmatch(r"luna-balance: results/s/\S+: File too large\n", one_line_error(report))
    assert not (study_dir / "report.html").exists() and leftovers(study_dir) == []
    rerun = luna(tmp_path, *STUDY)
    assert rerun.returncode == 0, rerun.stderr
    assert_same_files(snapshot(study_dir), uninterrupted)


def test_a_report_rebuilt_into_a_full_disk_left_the_finished_report_without_its_page(tmp_path, uninterrupted):
    # A finished study run again rebuilds its report. Past a file size limit at report.html, the earlier report's
    # pages were removed first and its new tables and figures moved in: no report.html, though nothing was wrong with
    # the one there. Now every file is written before the earlier report gives way.
    finished = luna(tmp_path, *STUDY)
    assert finished.returncode == 0, finished.stderr
    study_dir = tmp_path / "results" / "s"
    assert_same_files(snapshot(study_dir), uninterrupted)
    rebuilt = luna(tmp_path, *STUDY, file_limit=len(uninterrupted["report.html"]) - 1)
    assert one_line_error(rebuilt) == "luna-balance: results/s/report.html: File too large\n"
    assert leftovers(study_dir) == []
    assert_same_files(snapshot(study_dir), uninterrupted)


@pytest.mark.parametrize("results_dir", ["/proc/luna-balance-test", "FILE/below-a-file"])
def test_unwritable_results_directory_is_one_line(tmp_path, results_dir):
    (tmp_path / "FILE").write_text("a regular file\n")
    study = luna(tmp_path, *STUDY[:4], results_dir, *STUDY[5:])
    assert "cannot write a study there" in one_line_error(study)
    simulate = luna(tmp_path, "simulate", "--seats", "luna:2", "--games", "5", "--engine", "reference", "--out",
                    f"{results_dir}/run", "--quiet")
    assert "cannot write a run directory there" in one_line_error(simulate)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["FILE"]


# ---------------------------------------------------------------- two studies on one directory


def test_second_study_on_the_same_directory_refuses_naming_the_first(tmp_path, uninterrupted):
    first = luna(tmp_path, *STUDY, wait=False)
    lock = tmp_path / "results" / "s" / LOCK_FILE
    deadline = time.monotonic() + 120
    while not (lock.is_file() and lock.read_text()) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    second = luna(tmp_path, *STUDY)
    _, first_errors = first.communicate(timeout=600)  # also closes its pipes
    assert first.returncode == 0, first_errors
    error = one_line_error(second)
    assert f"pid {first.pid} on " in error and "started 20" in error and "another study is running" in error
    assert leftovers(tmp_path / "results" / "s") == []
    assert_same_files(snapshot(tmp_path / "results" / "s"), uninterrupted)  # the first was not disturbed


def test_lock_of_a_killed_study_is_taken_over(tmp_path, uninterrupted):
    killed = luna(tmp_path, *STUDY, kill_at="part-moved:1")
    assert killed.returncode == -signal.SIGKILL
    lock = tmp_path / "results" / "s" / LOCK_FILE
    assert isinstance(json.loads(lock.read_text())["pid"], int)  # the dead holder's lock file is still there
    rerun = luna(tmp_path, *STUDY)
    assert rerun.returncode == 0, rerun.stderr
    assert not lock.exists()
    assert_same_files(snapshot(tmp_path / "results" / "s"), uninterrupted)


def test_stale_lock_file_naming_a_dead_pid_is_taken_over(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    study_dir = tmp_path / "s"
    study_dir.mkdir()
    (study_dir / LOCK_FILE).write_text(json.dumps({"pid": int(dead.stdout), "host": "h", "started": 0}))
    with study_lock(study_dir):
        assert json.loads((study_dir / LOCK_FILE).read_text())["pid"] == os.getpid()
    assert not (study_dir / LOCK_FILE).exists()


def test_lock_held_in_this_process_refuses_a_second_holder(tmp_path):
    with study_lock(tmp_path / "new" / "s"):
        with pytest.raises(StudyError, match=r"another study is running in this directory \(pid \d+ on "):
            with study_lock(tmp_path / "new" / "s"):
                pass
    assert not (tmp_path / "new").exists()  # the directories the lock created and nobody used are gone


LEVELS_OUT = ["levels", "--levels", "3,5", "--games", "20", "--engine", "reference", "--quiet", "--out", "lv"]


@pytest.mark.parametrize("kill_at", ["chunk-written:2", "part-moved:2"], ids=["playing-level-5", "both-staged"])
def test_a_killed_levels_out_leaves_the_earlier_levels_whole(tmp_path, kill_at):
    """``levels --out`` over an earlier one, killed while its second level was played (or once both were, before
    they moved into place): the earlier levels are all as they were, not some replaced (a QA pass); the held staging
    folder it leaves is removed by the next run, which writes the same files as one never stopped."""
    assert luna(tmp_path, *LEVELS_OUT, "--seed", "1").returncode == 0
    earlier = snapshot(tmp_path / "lv")
    killed = luna(tmp_path, *LEVELS_OUT, "--seed", "2", kill_at=kill_at)
    assert killed.returncode == -signal.SIGKILL
    # the earlier levels as they were, only hidden leftovers beside them
    assert {name: content for name, content in snapshot(tmp_path / "lv").items() if not name.startswith(".")} \
        == earlier
    assert leftovers(tmp_path / "lv")  # the staging folder, held no more
    assert luna(tmp_path, *LEVELS_OUT, "--seed", "2").returncode == 0
    assert leftovers(tmp_path / "lv") == []
    fresh = tmp_path / "fresh"
    assert luna(fresh, *LEVELS_OUT, "--seed", "2").returncode == 0
    assert snapshot(tmp_path / "lv") == snapshot(fresh / "lv")
