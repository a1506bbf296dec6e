"""The shared contract checker runs on .venv's own packages, whatever PYTHONPATH puts ahead of them."""

from __future__ import annotations

import pytest
from contract_checker import CHECK_RUN, MISSING, check_runs

from sim.cli import main


@pytest.mark.skipif(not CHECK_RUN.is_file(), reason=MISSING)
def test_checker_ignores_a_pandas_put_first_on_pythonpath(tmp_path, monkeypatch):
    # dev.py's pandas-2 pass puts a folder first on PYTHONPATH; one whose pandas cannot be imported shows
    # whether the checker (not the project's code, see contract_checker) still runs on .venv's own
    broken = tmp_path / "shadow" / "pandas"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('the shadowing pandas')\n")
    monkeypatch.setenv("PYTHONPATH", str(broken.parent))
    run = tmp_path / "run"
    assert main(["simulate", "--seats", "luna:2", "--games", "30", "--out", str(run), "--quiet"]) == 0
    result = check_runs(run)
    assert result.returncode == 0, result.stdout + result.stderr
