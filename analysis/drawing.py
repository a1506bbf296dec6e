"""A report's figures drawn as PNG and SVG bytes, on two cores when the machine has them.

Drawing is most of a report's time (the default study's ten figures: 2.2 s as PNG and 1.9 s as SVG on one
core, while the other idled), and matplotlib holds the GIL while it draws, so a thread would not help. A
:class:`DrawingHelper` is a second Python process (``python -m analysis.drawing``), started when a report
begins so that it has imported matplotlib by the time the figures are built. :func:`figure_files` then
shares the figures with it: a thread of this process hands the helper one figure at a time from the front
of the list, while this process draws from the back, until none is left. Each figure is drawn whole in one
process or the other, with this process's matplotlib settings, so the bytes are the same as drawing all of
them here (a test compares them).

A plain child process rather than ``multiprocessing``: a spawned ``multiprocessing`` child first runs the
caller's main script again, so a user's script without an ``if __name__ == "__main__"`` guard would fail
in it. Requests and replies are pickles on the child's standard input and output.

A helper that is not ready yet (a small report built in less time than the helper takes to start), one that
died, or a machine with one core: the figures are drawn here, as before.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, BinaryIO

import matplotlib as mpl
from matplotlib.figure import Figure

from analysis.style import plot_style
from sim.dispatch import usable_cpus
from sim.outputs import FIGURE_FORMATS

# Settings of the process itself, not of how a figure is drawn: never handed to the helper.
_PROCESS_SETTINGS = frozenset({"backend", "backend_fallback", "interactive"})

Drawn = tuple[bytes, bytes]  # a figure's PNG and SVG bytes


def figure_bytes(figure: Figure, image_format: str) -> bytes:
    """Render a figure to PNG or SVG bytes in the project's style, without dates in the file."""
    buffer = io.BytesIO()
    metadata = {"Date": None} if image_format == "svg" else {"Software": None}
    with plot_style():
        figure.savefig(buffer, format=image_format, metadata=metadata, bbox_inches="tight")
    return buffer.getvalue()


def both_formats(figure: Figure) -> Drawn:
    """A figure's PNG and SVG bytes (``sim.outputs.FIGURE_FORMATS`` order)."""
    png, svg = (figure_bytes(figure, image_format) for image_format in FIGURE_FORMATS)
    return png, svg


class DrawingHelper:
    """A second process that draws figures for :func:`figure_files` (module docstring)."""

    def __init__(self) -> None:
        # the child imports what this process can: its import path, not only the installed packages
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}
        # a session of its own: Ctrl-C on the terminal reaches the report, which closes the helper, and not the
        # helper, which would print a traceback if the key caught it importing matplotlib
        self._process = subprocess.Popen([sys.executable, "-m", "analysis.drawing"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, env=environment, start_new_session=True)
        self._started = threading.Event()
        self._alive = True
        self._waiter = threading.Thread(target=self._await_start, name="luna-drawing-start", daemon=True)
        self._waiter.start()
        self.drawn: list[str] = []  # the figures it drew, in order (what the tests check)

    def _await_start(self) -> None:
        try:
            pickle.load(self._process.stdout)  # its first reply: it has imported matplotlib
        except (EOFError, OSError, pickle.UnpicklingError):
            self._alive = False
        self._started.set()

    def ready(self) -> bool:
        """Whether the helper has started (it takes about a second: Python and matplotlib imported)."""
        return self._started.is_set() and self._alive

    def wait_until_ready(self) -> bool:
        """Block until the helper has started or died; whether it is ready (tests; a report never waits)."""
        self._started.wait()
        return self._alive

    def draw(self, figure: bytes, settings: dict[str, Any]) -> Drawn | None:
        """A pickled figure drawn in the helper, or ``None`` if the helper has died; its errors are raised here."""
        if not self._alive:
            return None
        try:
            pickle.dump((figure, settings), self._process.stdin)
            self._process.stdin.flush()
            status, reply = pickle.load(self._process.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            self._alive = False
            return None
        if status == "error":
            raise reply
        return reply

    def close(self) -> None:
        self._alive = False
        if self._process.stdin is not None:
            try:
                self._process.stdin.close()  # the helper's end of input: it exits
            except OSError:
                pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


@contextmanager
def drawing_helper() -> Iterator[DrawingHelper | None]:
    """A :class:`DrawingHelper` for the ``with`` block, started now; ``None`` on a machine with one core (or when
    no process can be started)."""
    if usable_cpus() < 2:
        yield None
        return
    try:
        helper = DrawingHelper()
    except OSError:  # no process to be had (out of memory, or of processes): every figure is drawn here
        yield None
        return
    try:
        yield helper
    finally:
        helper.close()


def figure_files(figures: Mapping[str, Figure], helper: DrawingHelper | None = None) -> dict[str, Drawn]:
    """Each figure's PNG and SVG bytes, drawn here and, when ``helper`` is ready, in its process too."""
    names = list(figures)
    if helper is None or len(names) < 2 or not helper.ready():
        return {name: both_formats(figures[name]) for name in names}
    active = helper
    settings = {key: value for key, value in mpl.rcParams.items() if key not in _PROCESS_SETTINGS}
    # The figures with most axes first: the helper takes them from the front, this process takes the smallest
    # from the back, and the two end on small figures, close together. Each is pickled now, on this thread, so
    # that the feeding thread never reads a figure while this one draws another.
    order = sorted(names, key=lambda name: -len(figures[name].axes))
    waiting: deque[tuple[str, bytes | None]] = deque()
    unpicklable = []
    for name in order:
        try:
            waiting.append((name, pickle.dumps(figures[name])))
        except Exception:  # a figure that does not pickle (a lambda tick formatter): this process draws it, first
            unpicklable.append((name, None))
    waiting.extend(unpicklable)
    lock = threading.Lock()
    drawn: dict[str, Drawn] = {}
    failure: list[BaseException] = []

    def feed() -> None:
        while True:
            with lock:
                if not waiting or waiting[0][1] is None:
                    return
                name, pickled = waiting.popleft()
            try:
                result = active.draw(pickled, settings)
            except BaseException as error:  # the figure's own error, raised below as drawing it here would
                failure.append(error)
                return
            if result is None:  # the helper died: this figure goes back to be drawn here
                with lock:
                    waiting.appendleft((name, pickled))
                return
            drawn[name] = result
            active.drawn.append(name)

    feeder = threading.Thread(target=feed, name="luna-drawing-feed", daemon=True)
    feeder.start()
    try:
        while not failure:
            with lock:
                if not waiting:
                    break
                name, _ = waiting.pop()
            drawn[name] = both_formats(figures[name])
    except BaseException:  # a figure of ours failed, or Ctrl-C: the helper gets no more
        with lock:
            waiting.clear()
        raise
    finally:
        feeder.join()
    if failure:
        raise failure[0]
    for name, _ in waiting:  # left by a helper that died
        drawn[name] = both_formats(figures[name])
    return {name: drawn[name] for name in names}


def _serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """The helper: draw each pickled figure it is sent, until its input ends."""
    try:
        pickle.dump(("ready", os.getpid()), replies)
        replies.flush()
    except OSError:
        return
    while True:
        try:
            pickled, settings = pickle.load(requests)
        except EOFError:
            return
        try:
            with mpl.rc_context(settings):
                reply: tuple[str, Any] = ("drawn", both_formats(pickle.loads(pickled)))
        except Exception as error:
            reply = ("error", error)
        try:
            pickled_reply = pickle.dumps(reply)
        except Exception:  # an error that does not pickle goes back as its text
            pickled_reply = pickle.dumps(("error", RuntimeError(f"{type(reply[1]).__name__}: {reply[1]}")))
        try:
            replies.write(pickled_reply)
            replies.flush()
        except OSError:  # the report's process has gone (killed): nobody to draw for
            return


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the report's: the helper ends when its input does
    # closed when served: left open, PYTHONWARNINGS=error made its ResourceWarning an "Exception ignored" (a QA pass)
    with os.fdopen(os.dup(1), "wb") as replies:
        os.dup2(2, 1)  # whatever else writes to standard output lands on standard error, not among the replies
        _serve(sys.stdin.buffer, replies)
