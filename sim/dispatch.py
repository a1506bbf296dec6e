"""Where independent calls run: here, on joblib's processes, or on a Dask cluster — results in call order.

The run driver's chunks and the study's parity searches are both lists of independent calls of a
module-level function with plain arguments; this is the one place that decides how they are spread.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any


def ordered_results(function: Callable[..., Any], calls: Iterable[tuple[Any, ...]], workers: int, backend: str,
                    scheduler: str | None) -> Iterator[Any]:
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
    """
    if backend == "local" and workers <= 1:
        yield from (function(*call) for call in calls)
        return
    from joblib import Parallel, delayed, parallel_config

    tasks = (delayed(function)(*call) for call in calls)
    if backend == "dask":
        from dask.distributed import Client

        with Client(scheduler) as client, parallel_config(backend="dask"):
            jobs = workers if workers > 1 else max(1, sum(client.nthreads().values()))
            yield from _closed_quietly(Parallel(n_jobs=jobs, return_as="generator")(tasks))
        return
    yield from _closed_quietly(Parallel(n_jobs=workers, return_as="generator")(tasks))


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
