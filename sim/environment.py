"""Environment variables of numba's that luna-balance refuses in one line rather than let fail later.

Light on purpose (no numpy, no numba): the script checks these before it imports the command line, because
numba reads its settings when it is imported and answers a bad one with a multi-line warning of its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def thread_count_problem(environ: Mapping[str, str] | None = None) -> str:
    """What is wrong with ``NUMBA_NUM_THREADS`` (how many threads the numba engine plays on), or ``""``.

    numba takes any whole number at import and fails only when the engine first asks for its threads: with 0 or
    less, "Number of threads specified must be > 0." after the run's folder was checked (a QA pass); with text,
    it printed a warning with a traceback in it and used every core.
    """
    value = (os.environ if environ is None else environ).get("NUMBA_NUM_THREADS")
    if value is None or value.strip() == "":
        return ""
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads >= 1:
        return ""
    return (f"NUMBA_NUM_THREADS: must be a whole number of threads of at least 1, got {value!r}; "
            "unset it to use every core")


def jit_switched_off(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``NUMBA_DISABLE_JIT`` turns numba's compiler off (numba runs the kernels as Python then)."""
    return (os.environ if environ is None else environ).get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0")
