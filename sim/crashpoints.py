"""Named points at which a test can kill this process, to show that a crash there loses nothing.

The crash-safety tests set ``LUNA_BALANCE_TEST_KILL_AT=NAME:N`` in a subprocess: the N-th time the
code passes :func:`crash_point` ``(NAME)`` the process sends itself ``SIGKILL`` (no cleanup, no
``finally``, like a power cut or the OOM killer). Unset, a crash point costs one comparison with
``None``. The points:

``chunk-written``
    a chunk of games was written to a part's temporary run directory (during a part);
``part-moving``
    a part is complete in its temporary directory and about to be moved into place;
``part-moved``
    a part was moved into place (a replaced one's old copy not yet deleted);
``file-written``
    a report or study file was written to its temporary name, not yet renamed into place.
"""

from __future__ import annotations

import os
import signal

KILL_AT_VARIABLE = "LUNA_BALANCE_TEST_KILL_AT"


def _parse(value: str | None) -> tuple[str, int] | None:
    if not value:
        return None
    name, _, count = value.partition(":")
    return name, int(count or 1)


_TARGET = _parse(os.environ.get(KILL_AT_VARIABLE))  # read once: the tests set it before the process starts
_passed: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Kill this process with SIGKILL if ``LUNA_BALANCE_TEST_KILL_AT`` names this pass of point ``name``."""
    if _TARGET is None:
        return
    _passed[name] = _passed.get(name, 0) + 1
    if (name, _passed[name]) == _TARGET:
        os.kill(os.getpid(), signal.SIGKILL)
