"""Stop signals besides Ctrl-C, raised as an interrupt while a command runs.

`timeout`'s, a job scheduler's or `docker stop`'s SIGTERM and a closed terminal's SIGHUP end Python at once by
default: no ``finally`` runs, so the temporary directory a run is built in (``.OUT.partial-PID``) stays beside
``--out`` for good, with no word said. Raised as :class:`Stopped` (a ``KeyboardInterrupt``), they get Ctrl-C's
clean-up and message, and the shell's exit code for the signal.

A signal's exception is raised wherever the main thread runs Python code, and in a few places Python can only
print an exception and carry on: a ctypes callback (LLVM calls llvmlite's object cache back while numba loads or
compiles the engine, a good part of a run's first second), a ``__del__``, a weakref callback. There a stop (or
Ctrl-C) was dropped, and the command went on to the end and exited 0, as if nobody had asked it to stop. While a
command runs, such an interrupt is sent again (:func:`_interrupt_again`), to be raised in the next ordinary code;
one that a library's broad ``except`` swallows outright is still the command's exit code (:class:`StopState`).

Nor is a stop raised inside a library's code that takes a lock and gives it back in Python, or that hands numba
the machine code LLVM compiled (:data:`_NOT_HERE`): raised there, it left the lock taken, and the command hung
as it waited for its other threads, or numba failed later with a traceback. It is sent again once that code has
returned.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

#: The signals raised as :class:`Stopped` (see the module docstring).
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


class Stopped(KeyboardInterrupt):
    """A stop signal (:data:`STOP_SIGNALS`) received; ``signum`` is its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopState:
    """What :func:`stop_signals_as_interrupts` saw: ``signum``, the stop signal received (None: none); ``written``,
    whether the command's output was complete by then (:func:`announce_written`)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.written = False
        self.before_output: int | None = None  # a stop signal received while the output was not complete yet

    def received(self, signum: int) -> None:
        self.signum = signum
        if not self.written:
            self.before_output = signum

    def exit_code(self, code: int = 0, interrupt: KeyboardInterrupt | None = None) -> int:
        """The exit code of a command that returned ``code``, or was cut short by ``interrupt`` (``code`` unused).

        A stop before the output was complete, whether it cut the command short or a library swallowed it and the
        command went on (a job scheduler must not take that run for a success): one line saying so on stderr, and
        the shell's code for the signal. One after it (:func:`announce_written`) had nothing left to interrupt: the
        command's code (0 when it was cut short), and nothing said.
        """
        if interrupt is not None and not self.written:
            return report_interrupt(interrupt)
        if (interrupt is not None or code == 0) and self.before_output is not None:
            return report_interrupt(interrupt_for(self.before_output))
        return 0 if interrupt is not None else code


_state = StopState()  # the running command's (replaced at each command's start)


#: Code that must not be cut short, by file: the functions whose frame anywhere on the stack defers a signal until
#: it has returned, and whether the file's every function does when it is the innermost frame. The import system,
#: numba's compiler lock (taken to load or compile a kernel) and llvmlite's lock on LLVM (which calls numba's
#: Python callbacks after taking it and before giving it back) take a lock and give it back in Python: an
#: exception raised between the two left the lock taken for good, and another thread that then imported that
#: module, loaded a kernel or called LLVM (the engine's threads, the chunk writer) waited forever, and the stopped
#: command with it, as it waited for its threads. llvmlite's object cache callbacks, which LLVM calls through
#: ctypes, hand numba the machine code it has just compiled: cut short (ctypes only prints the exception), numba
#: later failed to save the kernel ("no compiled object yet"), a traceback instead of the stop.
_LOCK = frozenset({"__enter__", "__exit__", "acquire", "release"})
_NOT_HERE: dict[str, tuple[frozenset[str], bool]] = {
    "<frozen importlib._bootstrap": (_LOCK, True),
    "importlib/_bootstrap": (_LOCK, True),
    "numba/core/compiler_lock.py": (_LOCK, True),
    "llvmlite/binding/ffi.py": (_LOCK, True),
    "llvmlite/binding/executionengine.py": (frozenset({"_raw_object_cache_notify", "_raw_object_cache_getbuffer"}),
                                            False),
}


def _in_code_not_to_cut_short(frame: FrameType | None) -> bool:
    """Whether ``frame``, or a frame that called it, is in code of :data:`_NOT_HERE`'s that must not be cut short."""
    innermost = True
    while frame is not None:
        path = frame.f_code.co_filename.replace("\\", "/")
        for place, (functions, anywhere_innermost) in _NOT_HERE.items():
            if place in path and (frame.f_code.co_name in functions or (innermost and anywhere_innermost)):
                return True
        frame, innermost = frame.f_back, False
    return False


def stopping() -> bool:
    """Whether a stop signal came while the running command ran (its :class:`Stopped` raised, or still to be)."""
    return _state.signum is not None


def announce_written(path: object, *said: str) -> None:
    """Mark the running command's output complete, then print ``said`` and ``wrote PATH`` on stdout.

    From here on a stop no longer interrupts anything: a Ctrl-C (or SIGTERM) between this line and the command's
    return ends the command with its own exit code and nothing said, as one in the process's shutdown does
    (:mod:`sim.shutdown`), rather than "interrupted" over an output that is all there.
    """
    _state.written = True
    for line in (*said, f"wrote {path}"):
        print(line)


_held: list[int] = []  # signals received inside :func:`not_cut_short`, in order
_holding = [0]  # how many :func:`not_cut_short` blocks the main thread is in


@contextlib.contextmanager
def not_cut_short() -> Iterator[None]:
    """Hold Ctrl-C and the stop signals back while the block runs, then raise the first one held.

    For steps that must all happen or none: an output moved into place over an earlier one, which is deleted after.
    A Ctrl-C while the earlier one was being deleted stopped the deletion and left its remains (``.OUT.old-PID``)
    beside ``--out`` for good; one between the two moves left no ``--out`` at all. Only where this module's
    handlers are in place (a command's run); a signal the block raises otherwise is raised as ever.
    """
    _holding[0] += 1
    try:
        yield
    finally:
        _holding[0] -= 1
        # taken whether or not the block failed: one held under a failure is that failure's (StopState keeps it
        # for the exit code), not the next block's
        held = [] if _holding[0] else _held[:]
        if not _holding[0]:
            _held.clear()
    if held:
        signum = held[0]
        if signal.getsignal(signum) is _stop:
            signal.signal(signum, signal.SIG_DFL)  # as _stop does: a second one ends the process at once
        raise interrupt_for(signum)


def _hold(signum: int) -> bool:
    """Whether ``signum`` is held back by :func:`not_cut_short` (then kept to be raised at the block's end)."""
    if _holding[0]:
        _held.append(signum)
        return True
    return False


def _stop(signum: int, frame: FrameType | None) -> None:
    _state.received(signum)
    if _hold(signum):
        return
    if _in_code_not_to_cut_short(frame):
        _send_again(signum)  # once that code has returned
        return
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once, should the clean-up hang
    raise Stopped(signum)


def _ctrl_c(signum: int, frame: FrameType | None) -> None:
    """Python's own Ctrl-C (``KeyboardInterrupt``), deferred where :func:`_stop` defers a stop."""
    _state.received(signum)
    if _hold(signum):
        return
    if _in_code_not_to_cut_short(frame):
        _send_again(signum)
        return
    signal.default_int_handler(signum, frame)


def interrupt_for(signum: int) -> KeyboardInterrupt:
    """The interrupt that ``signum``'s handler raises: Ctrl-C's own, or :class:`Stopped`."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Stopped(signum)


def _send_again(signum: int) -> None:
    """Send ``signum`` to the main thread (the caller) again, from a new thread and a moment later: sent from here, it
    would be handled here at once. A signal rather than just a mark (``_thread.interrupt_main``), so that a main
    thread waiting on a lock wakes up."""
    def send(main: int) -> None:
        time.sleep(_AGAIN_AFTER)
        if callable(signal.getsignal(signum)):  # not once the command has ended: the default would kill at once
            signal.pthread_kill(main, signum)

    _thread.start_new_thread(send, (threading.get_ident(),))


_AGAIN_AFTER = 0.01  # seconds: lets the main thread leave the code where the signal landed (ms at most)


def _interrupt_again(previous: Callable[[object], object]) -> Callable[[object], object]:
    """A ``sys.unraisablehook`` that sends an interrupt Python dropped (see the module docstring) to the main thread
    again, and hands anything else to ``previous``.

    The signal is sent to the main thread again a moment later (:func:`_send_again`), once it has left the hook and
    most likely the callback too; should it still land in a place that drops it, this hook sends it again. The
    handler is set again first, as ``_stop`` set the default (which would end the process with no clean-up).
    """
    def hook(unraisable: object) -> None:
        error = getattr(unraisable, "exc_value", None)
        if not isinstance(error, KeyboardInterrupt) or threading.current_thread() is not threading.main_thread():
            previous(unraisable)
            return
        signum = getattr(error, "signum", signal.SIGINT)
        if isinstance(error, Stopped):
            signal.signal(signum, _stop)
        _send_again(signum)  # last: see above

    return hook


def interrupted_exit_code(error: BaseException) -> int:
    """The shell's code for a process a signal ended: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + getattr(error, "signum", signal.SIGINT)


def stop_cause(error: BaseException) -> str:
    """What stopped the command, as the message says it: ``" by SIGTERM"`` for a stop signal, ``""`` for Ctrl-C."""
    return f" by {error.args[0]}" if isinstance(error, Stopped) else ""


def report_interrupt(error: KeyboardInterrupt, left: str = "nothing half-written was left behind") -> int:
    """Say in one line on stderr that ``error`` stopped the command and what it ``left``; the shell's code for it."""
    sys.stderr.write(f"luna-balance: interrupted{stop_cause(error)}; {left}\n")
    return interrupted_exit_code(error)


@contextlib.contextmanager
def stop_signals_as_interrupts() -> Iterator[StopState]:
    """Raise :data:`STOP_SIGNALS` as :class:`Stopped` while the command runs, and raise again an interrupt Python
    dropped (see the module docstring); a signal the caller ignores (nohup) stays ignored, and the caller's
    handlers and unraisable hook are restored after (``main`` is also called in a test's process), but for a
    handler set meanwhile (a stop's default for a second signal, :mod:`sim.shutdown`'s at the process's end).

    Yields the :class:`StopState`, whose ``signum`` tells a command that ended normally that a stop signal came
    all the same (its interrupt swallowed by a library's ``except BaseException``).
    """
    global _state
    _state = state = StopState()
    saved: dict[int, Any] = {}
    previous_hook = sys.unraisablehook
    if threading.current_thread() is threading.main_thread():  # only the main thread sets (and runs) a handler
        for name in STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) == signal.SIG_DFL:
                saved[number] = signal.signal(number, _stop)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # Ctrl-C as Python has it, lock code aside
            saved[signal.SIGINT] = signal.signal(signal.SIGINT, _ctrl_c)
        sys.unraisablehook = _interrupt_again(previous_hook)
    try:
        yield state
    finally:
        _state = StopState()  # stopping() is about a running command
        sys.unraisablehook = previous_hook
        for number, handler in saved.items():
            if signal.getsignal(number) in (_stop, _ctrl_c):  # one set meanwhile (sim.shutdown's) is its setter's
                signal.signal(number, handler)
