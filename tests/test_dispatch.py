"""sim/dispatch.py: results in call order wherever the calls run, and an early stop that stays quiet."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import warnings
from pathlib import Path

import pytest

from sim.dispatch import ordered_results


def slow_square(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value * value


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_in_call_order(workers):
    calls = [(value, 0.05 if value % 2 == 0 else 0.0) for value in range(6)]
    assert list(ordered_results(slow_square, calls, workers, "local", None)) == [0, 1, 4, 9, 16, 25]


@pytest.mark.parametrize(("workers", "called"), [(1, 0), (2, 1)])
def test_before_workers_runs_once_here_and_only_when_worker_processes_start(workers, called):
    said = []
    results = ordered_results(slow_square, [(value, 0.0) for value in range(4)], workers, "local", None,
                              before_workers=lambda: said.append(os.getpid()))
    assert list(results) == [0, 1, 4, 9] and said == [os.getpid()] * called


def test_stopping_early_cancels_joblib_s_tasks_without_a_warning():
    """Regression (the joblib-worker invariant test failed on a cold numba cache): a run that stops at
    its first broken invariant closes the results while workers still play later chunks, and joblib
    warned about the cancelled tasks, an error under pytest's warnings-as-errors."""
    calls = [(0, 0.0)] + [(value, 1.0) for value in range(1, 8)]
    results = ordered_results(slow_square, calls, 2, "local", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert next(results) == 0
        results.close()  # tasks 1.. are still sleeping in the workers
    assert [str(warning.message) for warning in caught] == []


def test_loky_s_queue_thread_skips_the_tasks_an_early_stop_cancelled():
    """Regression (a ``.ci/run`` failed once): stopping early, joblib shuts its pool down, and loky's queue
    thread, having removed every pending task, took the id of one of them from its queue and died with a
    KeyError. The state it met is built here by hand: ids 5-7 queued, only task 6 still pending."""
    import queue
    from concurrent.futures import Future

    from joblib.externals.loky import process_executor

    from sim.dispatch import skip_cancelled_work_ids

    skip_cancelled_work_ids()
    skip_cancelled_work_ids()  # idempotent: one wrapper, not two
    manager = object.__new__(process_executor._ExecutorManagerThread)
    manager.call_queue = queue.Queue(maxsize=3)
    manager.work_ids_queue = queue.Queue()
    for work_id in (5, 6, 7):
        manager.work_ids_queue.put(work_id)
    live = Future()
    manager.pending_work_items = {6: process_executor._WorkItem(live, slow_square, (6, 0.0), {})}
    manager.running_work_items = []

    manager.add_call_item_to_queue()  # unpatched: KeyError at id 5

    assert manager.work_ids_queue.empty()
    handed = manager.call_queue.get_nowait()
    assert (handed.work_id, handed.fn, handed.args) == (6, slow_square, (6, 0.0))
    assert manager.call_queue.empty() and manager.running_work_items == [6] and live.running()
    wrapper = process_executor._ExecutorManagerThread.add_call_item_to_queue
    assert wrapper.skips_cancelled_work_ids and not getattr(wrapper.__wrapped__, "skips_cancelled_work_ids", False)


def test_a_dask_client_closed_under_its_gathers_logs_no_traceback(caplog):
    """Ctrl-C during a `--backend dask` run closed the client under distributed's gathers of finished tasks, and
    tornado logged each failed gather: 40-90 lines of traceback above the command's one line, three runs in four."""
    import logging

    from distributed.comm.core import CommClosedError

    from sim.dispatch import _closed_connections_unlogged

    logger = logging.getLogger("tornado.application")

    def callback_failed(error: Exception) -> None:  # as tornado's IOLoop logs a callback's exception
        try:
            raise error
        except Exception:
            logger.error("Exception in callback", exc_info=True)

    with caplog.at_level(logging.ERROR, logger="tornado.application"), _closed_connections_unlogged():
        callback_failed(CommClosedError("in <TCP (closed) ConnectionPool.gather>: Stream is closed"))
        callback_failed(ValueError("any other error is still logged"))
    callback_failed(CommClosedError("outside a run it is logged again"))
    assert [record.exc_info[1].args[0] for record in caplog.records] == [
        "any other error is still logged", "outside a run it is logged again"]


def test_a_callback_that_found_the_pool_shut_down_logged_its_traceback(caplog):
    """A QA pass: `study --workers 2` stopped by SIGTERM printed, 2 times in 18, two "exception calling callback for
    <Future ...>" tracebacks ending in loky's ShutdownExecutorError under the command's one line."""
    import logging

    from joblib.externals.loky._base import Future
    from joblib.externals.loky.process_executor import ShutdownExecutorError

    from sim.dispatch import _ShutdownCallbackFilter, unlog_callbacks_after_shutdown

    logger = logging.getLogger("concurrent.futures")
    for known in [known for known in logger.filters if isinstance(known, _ShutdownCallbackFilter)]:
        logger.removeFilter(known)  # as before any run with workers

    def finished(error: BaseException) -> None:  # as joblib's callback, handing a shut pool its next task
        def callback(_future: Future) -> None:
            raise error

        future = Future()
        future.add_done_callback(callback)
        future.set_result(None)

    with caplog.at_level(logging.ERROR, logger="concurrent.futures"):
        finished(ShutdownExecutorError("cannot schedule new futures after shutdown"))  # logged before the fix
        unlog_callbacks_after_shutdown()
        unlog_callbacks_after_shutdown()  # once is enough: a run with workers calls it each time
        finished(ShutdownExecutorError("cannot schedule new futures after shutdown"))
        finished(ValueError("any other error is still logged"))
    assert [str(record.exc_info[1]) for record in caplog.records] == [
        "cannot schedule new futures after shutdown", "any other error is still logged"]
    assert sum(isinstance(known, _ShutdownCallbackFilter) for known in logger.filters) == 1


# A child process whose worker for call 1 sends the start of its result, holding the result pipe's lock, and dies
# (SIGKILL) before the rest: as a SIGTERM sent to a run's whole process group can kill a worker. With "interrupt"
# the worker first sends the parent SIGINT, so the parent is stopping (joblib shutting its pool down and joining
# loky's manager thread) as the worker dies, which is how `kill -TERM -- -PGID` met it. Prints what the caller got.
_RESULT_CUT_OFF = """
import os, signal, struct, sys
from joblib.externals.loky.process_executor import BrokenProcessPool
from sim.dispatch import ordered_results

signal.signal(signal.SIGINT, signal.default_int_handler)
interrupt = sys.argv[1] == "interrupt"

def cut_off(value):
    if value == 1:
        frame = sys._getframe()
        while "result_queue" not in frame.f_locals:  # loky's worker loop, which sends the results
            frame = frame.f_back
        results = frame.f_locals["result_queue"]
        results._wlock.acquire()
        os.write(results._writer.fileno(), struct.pack("!i", 1 << 20) + b"the first bytes of 1 MiB")
        if interrupt:
            os.kill(os.getppid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGKILL)
    return value

try:
    list(ordered_results(cut_off, [(0,), (1,), (2,)], 2, "local", None))
except BrokenProcessPool:
    print("broken pool")
except KeyboardInterrupt:
    print("interrupted")
"""


@pytest.mark.parametrize(("how", "said"), [("run on", "broken pool"), ("interrupt", "interrupted")])
def test_a_worker_dying_with_its_result_half_sent_hangs_nobody(how, said):
    """Regression (a run stopped with `kill -TERM -- -PGID` waited forever, twice in 63 tries, until a second
    signal): loky's manager thread read a result whose worker had died half-way through sending it, and waited
    for the rest forever (the parent holds the pipe's other end, so no end of file came), and joblib, shutting
    the pool down, joined that thread. The timeout only detects a hang: the child ends at once when it passes."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-c", _RESULT_CUT_OFF, how], cwd=root, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(root)},
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # the child and its workers
        child.communicate()
        pytest.fail(f"{how}: the caller still waited for the dead worker's result after 120 s")
    assert (child.returncode, out) == (0, f"{said}\n"), err


# A child process whose workers each get a Ctrl-C of their own in the middle of a call, as a terminal's Ctrl-C
# reaches every process of a run's group; the parent's SIGINT is Python's. Prints what the caller got.
_CTRL_C_IN_THE_WORKERS = """
import os, signal
from sim.dispatch import ordered_results

def ctrl_c_here(value):
    os.kill(os.getpid(), signal.SIGINT)
    return value

signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    print(list(ordered_results(ctrl_c_here, [(value,) for value in range(4)], 2, "local", None)))
except BaseException as error:
    print(type(error).__name__)
print("blocked here" if signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []) else "not blocked here")
"""


def test_a_ctrl_c_reaching_the_workers_is_the_caller_s_alone():
    """Regression (a Ctrl-C to a `--workers 2` run's group printed a worker's KeyboardInterrupt traceback above
    the command's one line, 1 try in 10 stopped 1-3 s in): each worker raised its own interrupt, and one between
    two tasks or still starting printed it. The workers now never see SIGINT; the caller stops and kills them."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _CTRL_C_IN_THE_WORKERS], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)}, start_new_session=True, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[0, 1, 2, 3]\nnot blocked here\n", "")


# A child process whose two workers each say who they are, then play a call far longer than the test waits.
_PARENT_KILLED = """
import os, time
from sim.dispatch import ordered_results

def play(seconds):
    if seconds == 0:  # the worker's pid on the parent's stdout, in one write: print's two writes (the number, then the
        os.write(1, f"{os.getpid()}\\n".encode())  # newline) of two workers at once interleaved, "1885118850\\n\\n"
    time.sleep(seconds)
    return seconds

for _ in ordered_results(play, [(0,), (0,), (600,), (600,)], 2, "local", None):
    pass
"""


def _ended(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"  # a zombie left to its reaper


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the workers' state in /proc")
def test_the_workers_end_when_their_parent_is_killed_alone():
    """Regression: a run killed on its own (kill -9, the OOM killer) left its `--workers` processes running for good,
    one blocked writing its result into a pipe nobody read. The deadline only detects that: they end in a second."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    # stderr: loky's resource tracker says what it cleaned up after the killed parent
    child = subprocess.Popen([sys.executable, "-c", _PARENT_KILLED], cwd=root, stdout=subprocess.PIPE, text=True,
                             stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(root)},
                             start_new_session=True)
    try:
        workers = {int(child.stdout.readline()) for _ in range(2)}  # both calls of 0 s, maybe on one worker
        child.kill()
        child.wait()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(_ended(pid) for pid in workers):
            time.sleep(0.2)
        assert all(_ended(pid) for pid in workers)
    finally:
        child.stdout.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)  # whatever is left of the group
        child.wait()  # reaped here: left running, its Popen warned in whichever test came next
