"""The end of a command's process: its exit code, without Python's last garbage collection, and no Ctrl-C traceback.

At exit Python collects garbage over every object still alive, and a command that loaded the engine leaves about
128,000 of them, numba's typing and lowering registries most: 0.22-0.26 s went there after a warm ``simulate`` of
100 games whose own work took 0.7 s (issue 9's warm start, under 1 s). :func:`gc.freeze` moves every object alive
into a generation the collector never visits; the operating system takes the memory back a moment later, whole.
``atexit`` handlers still run (loky's, multiprocessing's), and every output file is closed and renamed into place
by the time a command returns, so nothing waits on a finalizer (which Python does not promise at exit anyway).

A Ctrl-C in Python's own shutdown, after the command has written its output, was raised in whatever ran then:
loky's shutdown of a ``--workers`` pool, multiprocessing's or numba's ``atexit`` handlers. Python printed
"Exception ignored in threading._shutdown" (or "in atexit callback") with its traceback and exited 0, or 130 now
and then; and a pool whose shutdown it cut short was left with its workers (which do not take Ctrl-C, see
:func:`sim.dispatch.start_workers_deaf_to_ctrl_c`), so multiprocessing's last handler waited for them for good.
The command is done by then and its output complete, so the first Ctrl-C lets the shutdown finish and the exit
code stays the command's; a second one ends the process at once, should the shutdown hang. In the last instant,
once Python has run its last handler and set the signals back to their defaults, a Ctrl-C still ends the process
(the shell's 130, nothing said): 2 tries in 10 sent 10-20 ms after a 3,000-game run's last line.

Only for a process about to end (the script, ``python -m sim.cli``): frozen objects are never collected, so code
that goes on running, a test or a notebook calling :func:`sim.cli.main`, must not call it.
"""

from __future__ import annotations

import gc
import signal
from types import FrameType

EXIT_USAGE = 2  # bad options, data or settings, or a read or write that failed (sim.cli names which)
EXIT_ENGINE = 1  # the engine broke: a game broke an invariant under --check-invariants
EXIT_WORKER_DIED = 1  # a --workers process was killed (the OOM killer, kill -9): the code of the traceback it was


def exit_code_at_the_end(code: int) -> int:
    """Return ``code`` once the rest of the process skips the last collection and a first Ctrl-C (module docstring).

    Called as the command returns, inside or after its handling of stop signals (which leaves this handler in
    place as it ends); a SIGINT ignored by whoever started the process (a background job) stays ignored.
    """
    if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, None):
        signal.signal(signal.SIGINT, _second_ctrl_c_ends_it)
    gc.freeze()
    return code


def _second_ctrl_c_ends_it(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
