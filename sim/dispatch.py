"""Where independent calls run: here, on joblib's processes, or on a Dask cluster — results in call order.

The run driver's chunks and the study's parity searches are both lists of independent calls of a
module-level function with plain arguments; this is the one place that decides how they are spread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
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
            yield from Parallel(n_jobs=jobs, return_as="generator")(tasks)
        return
    yield from Parallel(n_jobs=workers, return_as="generator")(tasks)
