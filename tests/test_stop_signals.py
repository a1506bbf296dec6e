"""Stop signals besides Ctrl-C: `timeout`'s, a job scheduler's or `docker stop`'s SIGTERM and a closed terminal's
SIGHUP get Ctrl-C's clean-up: one line, exit code 128 + the signal, and no temporary directory left beside
``--out`` (Python's default for them ends the process at once, leaving ``.OUT.partial-PID`` for good)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _stoppable() -> None:
    """In the child: the signals' default dispositions, whatever the test runner ignores."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _stopped_while_playing(tmp_path: Path, stop: signal.Signals, *command: str,
                            group: bool = False) -> subprocess.CompletedProcess:
    """Run ``luna-balance COMMAND``, send ``stop`` once it has started building its output, and wait for it.

    With ``group`` the command runs in a session of its own and ``stop`` goes to its whole process group, workers
    included, as a terminal's Ctrl-C does; ``returncode`` is then None should a process of the group outlive it.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-m", "sim.cli", *command], cwd=tmp_path, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                           preexec_fn=_stoppable, start_new_session=group)
    try:
        deadline = time.monotonic() + 600  # a cold numba cache compiles first
        while time.monotonic() < deadline and run.poll() is None and not any(tmp_path.rglob(".*partial-*")):
            time.sleep(0.05)
        assert run.poll() is None, run.communicate()
        time.sleep(1)  # into the games
        if group:
            os.killpg(run.pid, stop)
        else:
            run.send_signal(stop)
        out, err = run.communicate(timeout=120)
        code = run.returncode if not group or _group_ends(run.pid) else None
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.pid, signal.SIGKILL)  # whatever outlived the command
    return subprocess.CompletedProcess(run.args, code, out, err)


def _group_ends(group: int) -> bool:
    """Whether every process of ``group`` ends within a minute (a zombie waiting for its reaper has ended)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        live = [pid for pid in Path("/proc").iterdir() if pid.name.isdigit() and _in_group(pid, group)]
        if not live:
            return True
        time.sleep(0.2)
    return False


def _in_group(process: Path, group: int) -> bool:
    try:
        fields = (process / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # it has ended meanwhile
        return False
    return fields[0] != "Z" and int(fields[2]) == group  # state, ppid, pgrp


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_during_simulate_leaves_nothing(tmp_path, stop):
    done = _stopped_while_playing(tmp_path, stop, "simulate", "--seats", "luna:5", "--games", "1000000000",
                                  "--aggregate-only", "--quiet", "--out", "big")
    assert done.returncode == 128 + stop, done.stderr
    assert done.stderr == f"luna-balance: interrupted by {stop.name}; nothing half-written was left behind\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_sent_to_the_group_of_a_run_with_workers_is_one_line(tmp_path, stop):
    """A terminal's Ctrl-C reaches the `--workers` processes too; each raised its own KeyboardInterrupt, and one
    between two tasks or still starting printed its traceback above the command's line (2 tries in 20 stopped 1-3 s
    in; tests/test_dispatch.py pins the cause). SIGTERM ends the workers at once; either way none is left."""
    done = _stopped_while_playing(tmp_path, stop, "simulate", "--seats", "luna:5", "--games", "1000000000",
                                  "--workers", "2", "--quiet", "--out", "big", group=True)
    assert done.returncode == 128 + stop, done.stderr
    cause = "" if stop == signal.SIGINT else f" by {stop.name}"
    assert done.stderr == f"luna-balance: interrupted{cause}; nothing half-written was left behind\n"
    assert list(tmp_path.iterdir()) == []


def test_sigterm_during_a_study_says_what_was_kept(tmp_path):
    done = _stopped_while_playing(tmp_path, signal.SIGTERM, "study", "--name", "s", "--games", "100000000",
                                  "--levels", "5", "--profiles", "balanced", "--results-dir", ".", "--quiet")
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    # the signal named, as every other command's stop line names it (it said only "interrupted")
    assert done.stderr.startswith("luna-balance: interrupted by SIGTERM; 0 of ")
    assert "are finished and kept" in done.stderr
    assert not list((tmp_path / "s" / "runs").glob(".*partial-*"))


def test_a_killed_run_s_temporary_directory_is_removed_by_the_next_run_at_its_out(tmp_path):
    """kill -9 (or the OOM killer) leaves ``.OUT.partial-PID``; it stayed for good, as large as the run had grown."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LUNA_BALANCE_TEST_KILL_AT": "part-moving:1"}
    command = [sys.executable, "-m", "sim.cli", "simulate", "--seats", "luna:5", "--games", "50", "--engine",
               "reference", "--quiet"]
    for out in ("a", "b"):
        killed = subprocess.run([*command, "--out", out], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert sorted(path.name.split("-")[0] for path in tmp_path.iterdir()) == [".a.partial", ".b.partial"]
    del env["LUNA_BALANCE_TEST_KILL_AT"]
    done = subprocess.run([*command, "--out", "a"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # the other --out's leftover is the next run at b's to remove
    assert sorted(path.name.split("-")[0] for path in tmp_path.iterdir()) == [".b.partial", "a"]


def test_a_live_run_s_temporary_directory_is_never_taken_for_abandoned(tmp_path):
    from sim.temporaries import create_held, release, remove_abandoned

    live, dead = tmp_path / ".run.partial-1", tmp_path / ".run.partial-2"
    held = create_held(live)  # as a run in another process holds it while it plays
    dead.mkdir()  # as a killed run left it: nobody holds it
    try:
        remove_abandoned(tmp_path / "run")
        assert live.is_dir() and not dead.exists()
    finally:
        release(held)
    remove_abandoned(tmp_path / "run")
    assert not live.exists()


def test_the_remains_of_an_earlier_output_a_killed_run_was_deleting_are_removed_by_the_next(tmp_path):
    # kill -9 while an earlier --out was being deleted, after the new one had taken its place, left .OUT.old-PID for
    # good (a QA pass); a live command's, held while it deletes it, is left alone
    from sim.temporaries import hold, release, remove_abandoned

    live, dead = tmp_path / ".run.old-1", tmp_path / ".run.old-2"
    for folder in (live, dead):
        (folder / "tables").mkdir(parents=True)
        (folder / "seats.parquet").write_bytes(b"PAR1")
    held = hold(live)
    try:
        remove_abandoned(tmp_path / "run")
        assert live.is_dir() and not dead.exists()
    finally:
        release(held)
    remove_abandoned(tmp_path / "runs")  # another --out's
    assert live.is_dir()
    remove_abandoned(tmp_path / "run")
    assert not live.exists()


# A real `simulate` over an earlier run at its --out, with a signal landing while the earlier run is being deleted
# (after one of its files has gone).
_SIGNALLED_WHILE_THE_EARLIER_RUN_IS_DELETED = """
import shutil, signal, sys
from pathlib import Path
from sim.entry import main

deleted = shutil.rmtree

def signalled_part_way(path, *args, **kwargs):
    if ".old-" in str(path):
        next(Path(path).glob("*.parquet")).unlink()
        signal.raise_signal(signal.{stop})
    return deleted(path, *args, **kwargs)

shutil.rmtree = signalled_part_way
sys.argv = ["luna-balance", "simulate", "--seats", "luna:5", "--games", "20", "--engine", "reference", "--quiet",
            "--out", "x", "--seed", "{seed}"]
sys.exit(main())
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_while_the_earlier_output_was_deleted_left_its_remains_for_good(tmp_path, stop):
    # Regression (a QA pass): the deletion stopped half way and .x.old-PID stayed beside x, never removed by a later
    # run. Now the stop waits for the deletion, then stops the command as ever.
    def run(seed: int, signalled: signal.Signals) -> subprocess.CompletedProcess:
        script = _SIGNALLED_WHILE_THE_EARLIER_RUN_IS_DELETED.format(stop=signalled.name, seed=seed)
        return subprocess.run([sys.executable, "-c", script], cwd=tmp_path, text=True, capture_output=True,
                              timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_stoppable)

    first = run(1, stop)  # no earlier run to delete: no signal
    assert first.returncode == 0, first.stderr
    second = run(2, stop)
    assert second.returncode == 128 + stop, second.stderr
    cause = " by SIGTERM" if stop == signal.SIGTERM else ""
    assert second.stderr == f"luna-balance: interrupted{cause}; nothing half-written was left behind\n"
    assert [path.name for path in tmp_path.iterdir()] == ["x"]
    assert json.loads((tmp_path / "x" / "manifest.json").read_text())["config"]["seed"] == 2  # the new run, whole
    assert pq.read_table(tmp_path / "x" / "seats.parquet").num_rows == 20


def test_a_stop_signal_while_the_parser_is_built_is_a_stop_not_a_traceback(tmp_path, monkeypatch, capsys):
    """Regression (a SIGTERM 0.3-0.45 s after the start gave a traceback and exit 1, twice in 100 tries): building
    the parser imports the tuning modules, and that came before the command's handling of interrupts. Here the
    signal lands as the parser is built."""
    import sim.cli as cli
    from sim.stop_signals import Stopped

    def stopped_while_importing() -> None:
        raise Stopped(signal.SIGTERM)

    monkeypatch.setattr(cli, "build_parser", stopped_while_importing)
    try:
        code = cli.main(["simulate", "--seats", "luna:5", "--games", "5", "--out", str(tmp_path / "x")])
    except KeyboardInterrupt:  # caught here, or pytest would take it for its own Ctrl-C and stop the session
        pytest.fail("the stop signal escaped main as a traceback")
    assert code == 143
    assert capsys.readouterr().err == "luna-balance: interrupted by SIGTERM; nothing half-written was left behind\n"
    assert list(tmp_path.iterdir()) == []


def test_a_worker_killed_alone_is_one_line(tmp_path, monkeypatch, capsys):
    """A `--workers` process killed on its own (the OOM killer, kill -9; and, since the read of a half-sent result
    gives up, a worker killed while sending one) ended the command in joblib's 40-line traceback."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    import sim.run
    from sim.cli import main

    def worker_killed(*args: object, **kwargs: object) -> None:
        raise TerminatedWorkerError("A worker process managed by the executor was unexpectedly terminated.")

    monkeypatch.setattr(sim.run, "run_simulation", worker_killed)
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--workers", "2", "--out", str(tmp_path / "x")]) == 1
    assert capsys.readouterr().err == ("luna-balance: a worker process died (killed, or out of memory: try fewer "
                                       "--workers or a smaller --chunk-size); nothing half-written was left behind\n")


# A command whose stop lands where Python can only print an exception and carry on, then ends as if it had not.
_SWALLOWED_STOP = """
import ctypes, signal, sys, threading
from pathlib import Path
import sim.cli as cli

def stopped_in_a_callback():
    signal.raise_signal(signal.SIGTERM)  # its handler raises here, inside the callback

def command(args):
    {stop}
    {rest}
    Path(args.out).write_text("the whole output")
    print("wrote", args.out)
    return 0

cli.command_simulate = command
sys.exit(cli.main(["simulate", "--seats", "luna:5", "--games", "5", "--out", "x"]))
"""


def _swallowed_stop(tmp_path: Path, stop: str, rest: str = "") -> subprocess.CompletedProcess:
    script = _SWALLOWED_STOP.format(stop=stop, rest=rest)
    return subprocess.run([sys.executable, "-c", script], cwd=tmp_path, text=True, capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_stoppable)


def test_a_sigterm_dropped_in_a_ctypes_callback_still_stops_the_command(tmp_path):
    """Regression (a SIGTERM 0.6 s, and a Ctrl-C 1.15 s, after the start exited 0 and the run went on to the end):
    while numba loads or compiles the engine, LLVM calls llvmlite's object cache back through ctypes, which prints
    an exception raised in a callback ("Exception ignored on calling ctypes callback function") and goes on."""
    # the rest of the run waits (as the main thread waits for the engine's threads): the stop must wake it
    done = _swallowed_stop(tmp_path, "ctypes.CFUNCTYPE(None)(stopped_in_a_callback)()", "threading.Event().wait()")
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr == "luna-balance: interrupted by SIGTERM; nothing half-written was left behind\n"
    assert done.stdout == "" and list(tmp_path.iterdir()) == []  # stopped there, not at the end


def test_a_sigterm_a_library_swallows_is_still_the_exit_code(tmp_path):
    """A library's ``except BaseException`` around the place the stop lands lets the command finish; it exited 0,
    and a job scheduler took the stopped job for a success."""
    done = _swallowed_stop(tmp_path, "try:\n        stopped_in_a_callback()\n    except BaseException:\n        pass")
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stderr == "luna-balance: interrupted by SIGTERM; nothing half-written was left behind\n"


_STOPPED_HOLDING_A_LOCK = """
import signal, sys, threading
import sim.cli as cli

def stop():
    signal.raise_signal(signal.{stop})

# a library's lock code (by its file name): it takes a lock, calls a callback, and gives the lock back
library = {{"stop": stop, "threading": threading}}
exec(compile({code!r}, {path!r}, "exec"), library)
held = library["Held"]()

def command(args):
    with held:  # the stop lands between taking the lock and giving it back
        pass
    threading.Event().wait()  # the rest of the run
    return 0

cli.command_simulate = command
code = cli.main(["simulate", "--seats", "luna:5", "--games", "5", "--out", "x"])
print("held" if held.lock.locked() else "given back")
sys.exit(code)
"""
# the import system's own code: the signal lands in it (as in a module lock's release)
_IMPORT_SYSTEM = """
class Held:
    def __init__(self):
        self.lock = threading.Lock()
    def __enter__(self):
        self.lock.acquire()
    def __exit__(self, *exc):
        self.release()
    def release(self):
        signal_lands_here = stop()
        self.lock.release()
"""
# llvmlite's lock on LLVM: the signal lands in numba's callback, called with the lock taken
_LLVMLITE = """
class Held:
    def __init__(self):
        self.lock = threading.Lock()
    def __enter__(self):
        self.lock.acquire()
        stop()
    def __exit__(self, *exc):
        self.lock.release()
"""

# llvmlite's object cache callback, called by LLVM through ctypes: its work is numba's compiled code
_LLVMLITE_CALLBACK = """
class Held:
    def __init__(self):
        self.lock = threading.Lock()
    def __enter__(self):
        self.lock.acquire()
        self._raw_object_cache_notify()
    def _raw_object_cache_notify(self):
        stop()
        self.lock.release()
    def __exit__(self, *exc):
        pass
"""


@pytest.mark.parametrize(("path", "code", "stop"), [
    ("<frozen importlib._bootstrap>", _IMPORT_SYSTEM, signal.SIGTERM),
    ("/venv/site-packages/llvmlite/binding/ffi.py", _LLVMLITE, signal.SIGTERM),
    ("/venv/site-packages/llvmlite/binding/ffi.py", _LLVMLITE, signal.SIGINT),  # Ctrl-C hung there too
    # a SIGTERM 8 s into a cold run: "RuntimeError: no compiled object yet" as numba saved the kernel
    ("/venv/site-packages/llvmlite/binding/executionengine.py", _LLVMLITE_CALLBACK, signal.SIGTERM),
])
def test_a_stop_signal_in_a_library_s_lock_code_waits_until_the_lock_is_given_back(tmp_path, path, code, stop):
    """Regression (a stop at start-up now and then hung until killed): raised while the import system, numba's
    compiler lock or llvmlite held a lock in Python code, the interrupt left it held; an engine thread or the chunk
    writer importing that module, loading a kernel or calling LLVM then waited forever, and the stopped command
    waited for it."""
    script = _STOPPED_HOLDING_A_LOCK.format(code=code, path=path, stop=stop.name)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, text=True, capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_stoppable)
    assert done.stdout == "given back\n", done.stderr
    assert done.returncode == 128 + stop
    cause = "" if stop == signal.SIGINT else f" by {stop.name}"
    assert done.stderr == f"luna-balance: interrupted{cause}; nothing half-written was left behind\n"


# In the child: the script's entry (pyproject's [project.scripts]), or a module run as ``python -m`` runs it, with
# the import of numpy (the first of the command's heavy modules) made to signal the process itself first, as a
# Ctrl-C or `timeout` would while Python loads the command's modules.
_SIGNALLED_WHILE_IMPORTING = """
import os, signal, sys
from importlib.metadata import entry_points

class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            os.kill(os.getpid(), signal.{stop})
        return None

sys.argv = ["luna-balance", "simulate", "--seats", "luna:2", "--games", "5", "--out", "run", "--quiet"]
if {module!r}:  # python -m MODULE
    import runpy
    sys.meta_path.insert(0, SignalOnImport())
    runpy.run_module({module!r}, run_name="__main__", alter_sys=True)
(script,) = [point for point in entry_points(group="console_scripts") if point.name == "luna-balance"]
entry = script.load()
sys.meta_path.insert(0, SignalOnImport())
sys.exit(entry())
"""


@pytest.mark.parametrize("module", ["", "sim", "sim.cli"], ids=["luna-balance", "python -m sim", "python -m sim.cli"])
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_script_imports_its_modules_is_one_line(tmp_path, stop, module):
    # Before sim/entry.py the script was sim.cli:main, whose module imports numpy, numba and pyarrow before any
    # handler is set: a Ctrl-C then printed a KeyboardInterrupt traceback, a SIGTERM ended Python with no word.
    # `python -m sim` is the script too, and `python -m sim.cli` hands over to it before its own imports (it did
    # not: the same traceback, and the same silent end).
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = _SIGNALLED_WHILE_IMPORTING.format(stop=stop.name, module=module)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path,
                          capture_output=True, text=True, env=env, preexec_fn=_stoppable, timeout=300)
    assert done.returncode == 128 + stop, done.stderr
    cause = "" if stop == signal.SIGINT else f" by {stop.name}"
    assert done.stderr.splitlines() == [f"luna-balance: interrupted{cause}; nothing was written"]
    assert list(tmp_path.iterdir()) == []


# The script, with a Ctrl-C landing just after the command's own handling has caught everything it could: between
# the end of sim.cli.main's work and its return.
_CTRL_C_AS_THE_COMMAND_RETURNS = """
import sys
import sim.cli as cli
from sim.entry import main

def command_line(argv=None):
    raise KeyboardInterrupt

cli.main = command_line
sys.exit(main())
"""


def test_a_ctrl_c_as_the_command_returns_is_one_line(tmp_path):
    # the script ran the command outside any except: Python's KeyboardInterrupt traceback and its -SIGINT death
    done = subprocess.run([sys.executable, "-c", _CTRL_C_AS_THE_COMMAND_RETURNS], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_stoppable, timeout=300)
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    assert done.stderr == "luna-balance: interrupted; nothing half-written was left behind\n"


# The script running a real `simulate`, with a signal landing just after the command has said `wrote x`: its output
# is complete, and only the command's return is left.
_SIGNALLED_AFTER_WROTE = """
import signal, sys
import sim.cli as cli
from sim.entry import main

said = cli.announce_written

def signalled_after_it(*args):
    said(*args)
    {signalled}

cli.announce_written = signalled_after_it
sys.argv = ["luna-balance", "simulate", "--seats", "luna:5", "--games", "20", "--quiet", "--out", "x"]
sys.exit(main())
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("swallowed", [False, True], ids=["raised", "swallowed"])
def test_a_stop_after_wrote_out_leaves_the_command_s_success(tmp_path, stop, swallowed):
    """Regression: a Ctrl-C or SIGTERM that landed after `wrote x`, before the command returned, was reported as
    "interrupted; nothing half-written was left behind" with exit code 130 or 143, over an output that was complete.
    Now it is the command's success, as one in the process's shutdown is (sim/shutdown.py); and so is one a library
    swallows there (before the output is complete that one is still the exit code: the test above)."""
    signalled = f"signal.raise_signal(signal.{stop.name})"
    if swallowed:
        signalled = f"try:\n        {signalled}\n    except BaseException:\n        pass"
    script = _SIGNALLED_AFTER_WROTE.format(signalled=signalled)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, text=True, capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_stoppable)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "wrote x\n")
    assert pq.read_table(tmp_path / "x" / "seats.parquet").num_rows == 20  # the whole run, in place
    assert [path.name for path in tmp_path.iterdir()] == ["x"]


def test_a_stop_before_the_output_is_complete_is_still_reported(capsys):
    """The exit code :class:`StopState` gives: an interrupt, or a swallowed stop signal, that came before
    :func:`announce_written` is one line and the shell's code; one after it leaves the command's code."""
    from sim.stop_signals import Stopped, StopState

    before = StopState()
    before.received(signal.SIGTERM)
    before.written = True  # the command went on to the end after a library swallowed the stop
    assert before.exit_code(0) == 143
    assert before.exit_code(2) == 2  # a failure is reported as the failure it is
    before.received(signal.SIGINT)  # and a Ctrl-C after it does not make that a success
    assert before.exit_code(0, KeyboardInterrupt()) == 143
    after = StopState()
    after.written = True
    after.received(signal.SIGTERM)
    assert after.exit_code(0) == 0 and after.exit_code(0, Stopped(signal.SIGTERM)) == 0
    assert StopState().exit_code(0, KeyboardInterrupt()) == 130
    stopped = "luna-balance: interrupted by SIGTERM; nothing half-written was left behind\n"
    assert capsys.readouterr().err == 2 * stopped + "luna-balance: interrupted; nothing half-written was left behind\n"


def test_a_signal_held_under_a_failed_block_was_raised_at_the_next_block_s_end():
    # found reading the change again: the held signal stayed in the list when the block itself failed, and the next
    # replacement of an output (a later command in a notebook, say) raised it out of nowhere
    from sim import stop_signals

    with pytest.raises(ValueError), stop_signals.not_cut_short():
        assert stop_signals._hold(signal.SIGINT)  # as the handler does for a Ctrl-C inside the block
        raise ValueError("the move failed")
    with stop_signals.not_cut_short():
        pass  # nothing held: nothing raised
    assert not stop_signals._hold(signal.SIGINT)  # outside a block nothing is held
