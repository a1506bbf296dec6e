"""Stop signals besides Ctrl-C, raised as an interrupt while a command runs.

`timeout`'s, a job scheduler's or `docker stop`'s SIGTERM and a closed terminal's SIGHUP end Python at once by
default: no ``finally`` runs, so the temporary directory a run is built in (``.OUT.partial-PID``) stays beside
``--out`` for good, with no word said. Raised as :class:`Stopped` (a ``KeyboardInterrupt``), they get Ctrl-C's
clean-up and message, and the shell's exit code for the signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

#: The signals raised as :class:`Stopped` (see the module docstring).
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


class Stopped(KeyboardInterrupt):
    """A stop signal (:data:`STOP_SIGNALS`) received; ``signum`` is its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _stop(signum: int, _frame: object) -> None:
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once, should the clean-up hang
    raise Stopped(signum)


def interrupted_exit_code(error: BaseException) -> int:
    """The shell's code for a process a signal ended: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + getattr(error, "signum", signal.SIGINT)


@contextlib.contextmanager
def stop_signals_as_interrupts() -> Iterator[None]:
    """Raise :data:`STOP_SIGNALS` as :class:`Stopped` while the command runs; a signal the caller ignores (nohup)
    stays ignored, and the caller's handlers are restored after (``main`` is also called in a test's process)."""
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():  # only the main thread may set a handler
        for name in STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) == signal.SIG_DFL:
                saved[number] = signal.signal(number, _stop)
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
