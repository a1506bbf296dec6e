"""The command's process skips Python's last garbage collection (sim/shutdown.py); code that goes on does not.

Each case runs in a fresh interpreter: a frozen object is never collected, so freezing this test process would
change every later test's garbage collection.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("module", ["sim.cli", "sim"])
def test_python_m_sim_cli_freezes_too(tmp_path, module):
    # the freeze count read by an atexit handler, which runs after sys.exit and before the final collection
    frozen, = _after(tmp_path, f"import atexit, gc, runpy, sys; atexit.register(lambda: print(gc.get_freeze_count()));"
                               f" sys.argv = [{module!r}, *{SIMULATE!r}, '--out', 'run']; "
                               f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    assert int(frozen) > 10_000


def test_the_command_line_called_as_a_function_freezes_nothing(tmp_path):
    # a notebook or a test calling sim.cli.main goes on running: its garbage must stay collectable
    frozen, code = _after(tmp_path, f"import gc; from sim.cli import main; "
                                    f"code = main([*{SIMULATE!r}, '--out', 'run']); print(gc.get_freeze_count(), code)")
    assert (frozen, code) == ("0", "0")


# The script, whose command, once it has written its output, has Python send a Ctrl-C to the whole process group
# (workers too, as a terminal does) when it joins the threads at its end: after loky's shutdown of the pool has
# been set to run, before it runs (threading's exit functions run last registered first).
_CTRL_C_AS_PYTHON_ENDS = """
import os, signal, sys, threading, time
import sim.cli as cli

def ctrl_c():
    os.killpg(0, signal.SIGINT)
    time.sleep(0.5)  # it lands here, the main thread's

def command(args, simulate=cli.command_simulate):
    code = simulate(args)
    threading._register_atexit(ctrl_c)
    return code

cli.command_simulate = command
from sim.entry import main
sys.argv = ["luna-balance", *sys.argv[1:]]
sys.exit(main())
"""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_ctrl_c_as_python_ends_after_the_output_is_written_is_quiet(tmp_path, workers):
    """Regression: the interrupt was raised in Python's own shutdown: "Exception ignored in threading._shutdown"
    with a traceback, and exit 0 (or 130); with `--workers 2` the pool's shutdown was cut short and Python waited
    for its workers for good (2 tries in 10, since the workers no longer take Ctrl-C). The output is complete: the
    code stays the command's, and nothing is said."""
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_AS_PYTHON_ENDS, *SIMULATE, "--workers", workers,
                              "--out", "run"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True,
                             preexec_fn=_stoppable)
    try:
        out, err = child.communicate(timeout=180)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)  # whatever is left of the group (nothing, when it passes)
    assert (child.returncode, out, err) == (0, "wrote run\n", "")
    assert (tmp_path / "run" / "manifest.json").is_file()


def _stoppable() -> None:
    """In the child: Python's own Ctrl-C, whatever the test runner set."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
