"""The end of a command's process: its exit code, without Python's last garbage collection.

At exit Python collects garbage over every object still alive, and a command that loaded the engine leaves about
128,000 of them, numba's typing and lowering registries most: 0.22-0.26 s went there after a warm ``simulate`` of
100 games whose own work took 0.7 s (issue 9's warm start, under 1 s). :func:`gc.freeze` moves every object alive
into a generation the collector never visits; the operating system takes the memory back a moment later, whole.
``atexit`` handlers still run (loky's, multiprocessing's), and every output file is closed and renamed into place
by the time a command returns, so nothing waits on a finalizer (which Python does not promise at exit anyway).

Only for a process about to end (the script, ``python -m sim.cli``): frozen objects are never collected, so code
that goes on running, a test or a notebook calling :func:`sim.cli.main`, must not call it.
"""

from __future__ import annotations

import gc


def exit_code_skipping_final_collection(code: int) -> int:
    """Return ``code`` after freezing every object alive for the rest of the process (module docstring)."""
    gc.freeze()
    return code
