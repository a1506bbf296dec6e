"""Settings of the environment a QA pass (2026-11-27) found ending a command in a line that did not name them.

The names say what each case used to do.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim import engines
from sim.cli import main
from sim.config import ConfigError, GameConfig, parse_seats
from sim.environment import jit_switched_off, thread_count_problem
from sim.gamedata import load_game_data

ROOT = Path(__file__).resolve().parents[1]
SIMULATE_FEW = ["simulate", "--seats", "luna:5", "--games", "5", "--quiet"]


def _script(arguments: list[str], cwd: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    """The ``luna-balance`` script (``python -m sim``) with ``environ`` added to this process's environment."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           **environ}
    return subprocess.run([sys.executable, "-m", "sim", *arguments], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.parametrize(("value", "problem"), [
    ("0", "got '0'"), ("-1", "got '-1'"), ("abc", "got 'abc'"), ("2.5", "got '2.5'"),
    ("1", ""), (" 2", ""), ("999", ""), ("", ""),
])
def test_thread_count_problem_accepts_whole_numbers_from_one(value, problem):
    found = thread_count_problem({"NUMBA_NUM_THREADS": value})
    assert (problem in found and found.startswith("NUMBA_NUM_THREADS: must be")) if problem else found == ""
    assert thread_count_problem({}) == ""


def test_numba_num_threads_0_was_numbas_words_after_the_output_checks(tmp_path, capsys, monkeypatch):
    # "luna-balance: Number of threads specified must be > 0.", which named no setting
    monkeypatch.setenv("NUMBA_NUM_THREADS", "0")
    assert main([*SIMULATE_FEW, "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == ("luna-balance: NUMBA_NUM_THREADS: must be a whole number of threads of at "
                                       "least 1, got '0'; unset it to use every core\n")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError, match="NUMBA_NUM_THREADS: must be"):  # the Python API, through the engine
        engines.engine_function("numba")(load_game_data(), GameConfig(seats=parse_seats("luna:5")), 1, 0, 5, False)
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    assert main([*SIMULATE_FEW, "--out", str(tmp_path / "run")]) == 0


def test_numba_num_threads_text_was_a_warning_with_a_traceback_in_it(tmp_path):
    # numba read it at import: "RuntimeWarning: Environment variable 'NUMBA_NUM_THREADS' is defined but its
    # associated value 'abc' could not be parsed. ... Traceback (most recent call last): ...", then played on
    done = _script([*SIMULATE_FEW, "--out", str(tmp_path / "run")], tmp_path, NUMBA_NUM_THREADS="abc")
    assert done.returncode == 2
    assert done.stderr == ("luna-balance: NUMBA_NUM_THREADS: must be a whole number of threads of at least 1, got "
                           "'abc'; unset it to use every core\n")
    assert list(tmp_path.iterdir()) == []


def test_an_out_the_terminal_cannot_spell_failed_the_run_after_writing_it(tmp_path):
    # PYTHONIOENCODING=ascii and --out rö: the run was written whole, then printing "wrote rö" raised
    # "'ascii' codec can't encode character '\xf6'", exit 2
    done = _script([*SIMULATE_FEW, "--engine", "reference", "--out", "rö"], tmp_path, PYTHONIOENCODING="ascii")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "wrote r\\xf6\n" and done.stderr == ""
    assert sorted(path.name for path in (tmp_path / "rö").iterdir()) == ["manifest.json", "seats.parquet"]


def test_jit_switched_off_reads_numbas_switch():
    assert jit_switched_off({"NUMBA_DISABLE_JIT": "1"}) and jit_switched_off({"NUMBA_DISABLE_JIT": " yes "})
    assert not jit_switched_off({}) and not jit_switched_off({"NUMBA_DISABLE_JIT": "0"})
    assert not jit_switched_off({"NUMBA_DISABLE_JIT": " "})
