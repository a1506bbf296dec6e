"""Where independent calls run: here, on joblib's processes, or on a Dask cluster — results in call order.

The run driver's chunks and the study's parity searches are both lists of independent calls of a
module-level function with plain arguments; this is the one place that decides how they are spread.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import os
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any


def dask_problem() -> str:
    """Why ``--backend dask`` cannot run in this environment ("" when it can): dask.distributed is an optional
    dependency (``pip install 'luna-balance[dask]'``), so a missing one is a usage error, not a traceback."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError as error:
        return f"dask.distributed cannot be imported ({error}); install it with pip install 'luna-balance[dask]'"
    return ""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def ordered_results(function: Callable[..., Any], calls: Iterable[tuple[Any, ...]], workers: int, backend: str,
                    scheduler: str | None, before_workers: Callable[[], None] | None = None) -> Iterator[Any]:
    """Yield ``function(*call)`` for each call, in the order of ``calls``, as each becomes available.

    Parameters
    ----------
    function
        A module-level function (joblib and Dask pickle it by reference).
    calls
        Argument tuples; consumed lazily, so a long list of chunks is never materialised as tasks.
    workers
        joblib processes for the ``"local"`` backend (1: run here, in this process); Dask workers to use
        for ``"dask"`` (1: all the cluster's threads).
    backend, scheduler
        ``"local"`` or ``"dask"`` (see :data:`sim.constants.BACKENDS`), and the Dask scheduler address.
    before_workers
        Called here once before local worker processes start (and not otherwise): what they would each do
        alike, done once (:func:`sim.engines.compile_before_workers`).
    """
    if backend == "local" and workers <= 1:
        yield from (function(*call) for call in calls)
        return
    from joblib import Parallel, delayed, parallel_config

    tasks = (delayed(function)(*call) for call in calls)
    if backend == "dask":
        with _closed_connections_unlogged(), connect(scheduler) as client, parallel_config(backend="dask"):
            jobs = workers if workers > 1 else max(1, sum(client.nthreads().values()))
            yield from _closed_quietly(Parallel(n_jobs=jobs, return_as="generator")(tasks))
        return
    if before_workers is not None:
        before_workers()
    skip_cancelled_work_ids()
    read_results_watching_workers()
    start_workers_deaf_to_ctrl_c()
    unlog_callbacks_after_shutdown()
    with parallel_config(backend="loky", initializer=end_with_the_parent, initargs=(os.getpid(),)):
        results = Parallel(n_jobs=workers, return_as="generator")(tasks)
    yield from _closed_quietly(results)


#: Seconds to wait for a Dask scheduler to answer: without a limit a port that accepts and says nothing (not a Dask
#: scheduler) held the run for good. As the study's cluster check (analysis/study/runner.py).
SCHEDULER_TIMEOUT = 10


def connect(scheduler: str | None) -> Any:
    """A Dask client of the scheduler at ``scheduler``, given :data:`SCHEDULER_TIMEOUT` seconds to answer.

    Raises
    ------
    ConfigError
        Nothing there answers as a Dask scheduler: refused, silent, or another service (an HTTP server's reply read
        as Dask's frame lengths made distributed allocate terabytes: a numpy memory error's traceback).
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from dask.distributed import Client
    from distributed.comm import connect as open_comm

    from sim.config import ConfigError

    async def handshake() -> None:
        comm = await open_comm(scheduler, timeout=SCHEDULER_TIMEOUT)
        await comm.close()

    try:
        # Shaken hands with first, under a limit of ours: distributed's connect reads the other side's handshake
        # with no time limit (2026.8), so a Client, whatever its timeout, waits for good on a silent port. On a
        # thread of its own: the caller's may run an event loop already (Jupyter's), where asyncio.run refuses.
        with ThreadPoolExecutor(max_workers=1) as thread:
            thread.submit(asyncio.run, asyncio.wait_for(handshake(), SCHEDULER_TIMEOUT)).result()
        return Client(scheduler, timeout=f"{SCHEDULER_TIMEOUT}s")
    except Exception as error:  # distributed raises OSError, TimeoutError, ValueError or MemoryError by what answers
        reason = str(error).splitlines()[0] if str(error) else ""
        raise ConfigError(f"no Dask scheduler answers at {scheduler!r} within {SCHEDULER_TIMEOUT} s "
                          f"({type(error).__name__}{': ' + reason if reason else ''})", "scheduler") from None


class _ClosedConnectionFilter(logging.Filter):
    """Drops the log records of a Dask client's connection closed under a gather (see below)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from distributed.comm.core import CommClosedError

        return not (record.exc_info and isinstance(record.exc_info[1], CommClosedError))


@contextlib.contextmanager
def _closed_connections_unlogged() -> Iterator[None]:
    """While a Dask client is open and closing, drop tornado's log of a ``CommClosedError`` in a callback.

    joblib collects a run's results with distributed's ``as_completed``, which gathers each finished task from
    the scheduler in a task of the client's event loop. When the caller stops early (Ctrl-C, a broken invariant, a
    failed write) the client closes under the gathers still running, and tornado logs each failed one: 40-90
    lines of traceback above the command's one line, three runs in four. Those results were no longer wanted;
    any other error is logged as before.
    """
    logger = logging.getLogger("tornado.application")
    quiet = _ClosedConnectionFilter()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


class _ShutdownCallbackFilter(logging.Filter):
    """Drops the log record of a pool's future callback that failed because the pool had been shut down."""

    def filter(self, record: logging.LogRecord) -> bool:
        from joblib.externals.loky.process_executor import ShutdownExecutorError

        return not (record.exc_info and isinstance(record.exc_info[1], ShutdownExecutorError))


def unlog_callbacks_after_shutdown() -> None:
    """Drop ``concurrent.futures``' log of a joblib callback that found loky's pool shut down (idempotent).

    When a command with ``--workers`` is stopped (SIGTERM, Ctrl-C), joblib shuts the pool down; a task that finishes
    in that instant runs joblib's callback, which hands the pool the next task, and the pool refuses
    (``ShutdownExecutorError: cannot schedule new futures after shutdown``). ``concurrent.futures`` logs it with its
    traceback: 2 stops in 18 of a ``study --workers 2`` printed two of them under the command's one line (a QA pass).
    No more tasks were wanted; any other error of a callback is logged as before. Left in place: the callback may run
    after the generator of results has been closed.
    """
    logger = logging.getLogger("concurrent.futures")
    if not any(isinstance(known, _ShutdownCallbackFilter) for known in logger.filters):
        logger.addFilter(_ShutdownCallbackFilter())


# The start of joblib's two warnings when a generator of results is closed early (joblib/parallel.py).
JOBLIB_CANCELLED = r"\d+ tasks (have been successfully executed|which were still being processed)"


def _closed_quietly(results: Generator[Any, None, None]) -> Iterator[Any]:
    """``results``, closed without joblib's warning about the tasks it cancels.

    A caller stops early on purpose (a broken invariant, a failed write, an interrupt), and then joblib
    warns that finished or running tasks went unused; the warning would only repeat the caller's own
    reason, so it is silenced for that close alone. A plain loop rather than ``yield from``: closing this
    generator then leaves ``results`` to the ``finally`` below instead of closing it unguarded.
    """
    try:
        for result in results:  # noqa: UP028 (see the docstring)
            yield result
    finally:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=JOBLIB_CANCELLED, category=UserWarning)
            results.close()


def skip_cancelled_work_ids() -> None:
    """Make loky's queue thread skip the tasks an early stop has cancelled (idempotent).

    joblib's process pool (loky, vendored in joblib) hands its tasks to the workers from a queue of task ids
    and a dict of the tasks. When a caller stops early, joblib shuts the pool down and kills its workers:
    the pool's queue thread empties the dict and then fills the workers' queue once more, from ids whose
    tasks it has just removed. If one is left (a task submitted as the previous result came in, while the
    caller was closing), that thread dies with a ``KeyError`` and Python prints its traceback: a stray
    traceback under a run that stopped for a good reason, and an error under pytest (it happened once in a run of
    ``.ci/run``). So before loky's step runs, the ids of removed tasks are dropped from the queue. Only loky's
    queue thread removes tasks from the dict and takes ids from the queue, and a task enters the dict before
    its id enters the queue, so the drop cannot remove a live task. A joblib whose loky is laid out
    differently is left alone.
    """
    from joblib.externals.loky import process_executor

    manager = getattr(process_executor, "_ExecutorManagerThread", None)
    fill = getattr(manager, "add_call_item_to_queue", None)
    if fill is None or getattr(fill, "skips_cancelled_work_ids", False):
        return

    @functools.wraps(fill)
    def add_call_item_to_queue(self: Any) -> None:
        ids = self.work_ids_queue
        with ids.mutex:
            live = [work_id for work_id in ids.queue if work_id in self.pending_work_items]
            ids.queue.clear()
            ids.queue.extend(live)
        fill(self)

    add_call_item_to_queue.skips_cancelled_work_ids = True  # type: ignore[attr-defined]
    manager.add_call_item_to_queue = add_call_item_to_queue


def read_results_watching_workers() -> None:
    """Make loky's reads of a result give up once a worker dies with the result half sent (idempotent).

    A worker sends its result (a chunk's columns: up to 32 MiB) through a pipe in many writes, and loky's manager
    thread reads it in one blocking ``recv``. A worker that dies in between (a SIGTERM sent to the whole process
    group reaches the workers too; the OOM killer) never sends the rest, and the read gets no end of file either:
    the parent keeps the pipe's writing end open for the workers it may start later. The manager thread then waits
    forever, and the parent with it, since stopping shuts the pool down and joins that thread: a run stopped with
    ``kill -TERM -- -PGID`` hung until a second signal, 2 times in 63 tries. So the manager's reads of results wait
    for more bytes or for a worker's death before each piece (:func:`_read_while_workers_live`); loky takes the
    read's error for a broken pool, kills the workers left and lets go, and the caller gets its interrupt, or the
    pool's error, as when a worker dies while it plays. A loky or a Python laid out differently is left alone.
    """
    from multiprocessing.connection import Connection

    from joblib.externals.loky import process_executor

    manager = getattr(process_executor, "_ExecutorManagerThread", None)
    wait_for_result = getattr(manager, "wait_result_broken_or_wakeup", None)
    if (wait_for_result is None or getattr(wait_for_result, "watches_workers", False)
            or not hasattr(Connection, "_recv")):
        return

    @functools.wraps(wait_for_result)
    def wait_result_broken_or_wakeup(self: Any) -> Any:
        reader = getattr(getattr(self, "result_queue", None), "_reader", None)
        # ``_recv(size)`` is the one loop that reads a POSIX Connection's bytes (its framing and unpickling
        # stay Python's); set once per pool, on the parent's reader alone (a pickled Connection keeps no attributes)
        if type(reader) is Connection and "_recv" not in vars(reader):
            reader._recv = functools.partial(_read_while_workers_live, reader.fileno(), self.processes)
        return wait_for_result(self)

    wait_result_broken_or_wakeup.watches_workers = True  # type: ignore[attr-defined]
    manager.wait_result_broken_or_wakeup = wait_result_broken_or_wakeup


def start_workers_deaf_to_ctrl_c() -> None:
    """Make loky start its workers with Ctrl-C's SIGINT blocked for good (idempotent).

    A terminal's Ctrl-C, or ``kill -INT -- -PGID``, reaches every process of the group, the workers too. This
    process owns the stop: it cleans up, says so in one line and shuts the pool down, which kills the workers. But
    a worker raised its own ``KeyboardInterrupt`` as well, and one that was between two tasks (waiting for the next
    one, checking its memory) or still importing printed a traceback above the command's line: 1 try in 10 of a
    ``--workers 2`` run stopped 1-3 s in. loky starts a worker by fork and exec, and a signal mask survives both, so
    SIGINT is blocked in the starting thread around the start alone, as loky does for its resource tracker: the
    worker has it blocked from its first instruction, and this process loses nothing (a SIGINT that comes meanwhile
    goes to another of its threads, or waits until the mask is restored). SIGTERM and SIGHUP are left alone: they
    end a worker at once and silently, and a worker killed on its own is the pool's error, as before. A loky or a
    platform laid out differently is left alone.
    """
    import importlib
    import signal

    module = importlib.import_module("joblib.externals.loky.backend.fork_exec")

    start = getattr(module, "fork_exec", None)
    if start is None or getattr(start, "blocks_ctrl_c", False) or not hasattr(signal, "pthread_sigmask"):
        return

    @functools.wraps(start)
    def fork_exec(*args: Any, **kwargs: Any) -> Any:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return start(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    fork_exec.blocks_ctrl_c = True  # type: ignore[attr-defined]
    module.fork_exec = fork_exec


def end_with_the_parent(parent: int) -> None:
    """In a worker: end this process once ``parent``, the process whose pool it serves, is gone.

    A parent stopped by a signal it handles shuts its pool down, and a SIGTERM or Ctrl-C to the whole group reaches
    the workers too; but a parent killed alone (``kill -9``, the OOM killer) left its workers running for good: one
    blocked writing its result into a pipe nobody read, the other waiting for the pipe's lock (2 of 2 tries, still
    there minutes later). The worker is re-parented when its parent dies, which a thread checks every second.
    """
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK_SECONDS)
        os._exit(1)  # nobody is left to take a result or a clean exit

    threading.Thread(target=watch, name="end-with-the-parent", daemon=True).start()


_PARENT_CHECK_SECONDS = 1.0


class ResultCutOffError(OSError):
    """A pool's worker died while the result being read was incomplete (the pool is broken)."""


def _read_while_workers_live(handle: int, processes: dict[int, Any], size: int) -> io.BytesIO:
    """``size`` bytes from the pipe ``handle``, as ``Connection._recv`` reads them, unless a worker dies first.

    Before each read it waits for the pipe or for the death of one of ``processes`` (the pool's workers when the
    read starts: one that starts later cannot be sending this result, which holds the pipe's lock). A worker's
    writes are in the pipe before its death shows, so a death seen with the pipe empty means no more bytes will
    come from it; the read fails then rather than wait. Workers that leave on purpose say so through this pipe and
    are dropped from ``processes`` before any later result is read, so only a death nobody asked for ends a read.
    """
    import select

    ready = select.poll()  # one poll set per read: a selector per piece made reading 32 MiB ~15 % slower, this ~5 %
    for descriptor in (handle, *(process.sentinel for process in list(processes.values()))):
        ready.register(descriptor, select.POLLIN)
    received = io.BytesIO()
    remaining = size
    while remaining > 0:
        if handle not in {descriptor for descriptor, _ in ready.poll()}:
            raise ResultCutOffError(f"a worker process died with {remaining} of {size} bytes of a result unsent")
        piece = os.read(handle, remaining)
        if not piece:
            if remaining == size:
                raise EOFError
            raise OSError("got end of file during message")  # as Connection._recv
        received.write(piece)
        remaining -= len(piece)
    return received
