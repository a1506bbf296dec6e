"""The command's process skips Python's last garbage collection (sim/shutdown.py); code that goes on does not.

Each case runs in a fresh interpreter: a frozen object is never collected, so freezing this test process would
change every later test's garbage collection.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIMULATE = ["simulate", "--seats", "luna:2", "--games", "3", "--engine", "reference", "--quiet"]


def _after(tmp_path: Path, code: str) -> list[str]:
    """Run ``code`` in a fresh Python; its last stdout line, split (what it printed at exit)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1].split()


def test_the_script_freezes_what_is_alive_before_it_exits(tmp_path):
    frozen, code = _after(tmp_path, f"import gc, sys; from sim.entry import main; "
                                    f"sys.argv = ['luna-balance', *{SIMULATE!r}, '--out', 'run']; code = main(); "
                                    f"print(gc.get_freeze_count(), code)")
    assert int(frozen) > 10_000 and code == "0"  # the imports alone leave over 10,000 objects (numba: far more)
    assert (tmp_path / "run" / "manifest.json").is_file()


def test_python_m_sim_cli_freezes_too(tmp_path):
    # the freeze count read by an atexit handler, which runs after sys.exit and before the final collection
    frozen, = _after(tmp_path, f"import atexit, gc, runpy, sys; atexit.register(lambda: print(gc.get_freeze_count()));"
                               f" sys.argv = ['sim.cli', *{SIMULATE!r}, '--out', 'run']; "
                               f"runpy.run_module('sim.cli', run_name='__main__')")
    assert int(frozen) > 10_000


def test_the_command_line_called_as_a_function_freezes_nothing(tmp_path):
    # a notebook or a test calling sim.cli.main goes on running: its garbage must stay collectable
    frozen, code = _after(tmp_path, f"import gc; from sim.cli import main; "
                                    f"code = main([*{SIMULATE!r}, '--out', 'run']); print(gc.get_freeze_count(), code)")
    assert (frozen, code) == ("0", "0")
