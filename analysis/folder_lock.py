"""One writer per output folder: a lock file held with ``flock``, naming its holder.

Two commands writing one folder at the same time (two studies, two ``runs-report``\\ s with one ``--out``)
would write the same files at once; the second refuses instead, naming the process that holds the folder
(pid, host, start time).

Why ``fcntl.flock`` rather than a pid file checked for liveness: the kernel releases the lock when its
holder dies in any way (SIGKILL, OOM killer, a crash), so a dead holder never blocks a later run and
no pid is ever guessed to be alive or dead (a pid file can name a pid the system has since reused for
an unrelated process, and a pid cannot be checked from another host). The pid, host and start time
written into the file only serve the message. A lock file left by a killed process holds no lock, so
the next writer simply takes it over, and deletes the temporary files of atomic writes the killed one
left (:func:`remove_dead_temporaries`): with the lock held, no writer of them is alive. Limits: POSIX only,
and ``flock`` is not reliable on every network file system.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".lock"  # inside the folder; deleted when its holder ends normally
TEMPORARY_SUFFIX = ".tmp"  # atomic_write's temporary files (analysis/render.py): ".<name>.<random>.tmp"


class FolderHeldError(Exception):
    """Another live process holds the folder; ``holder`` says who, in words."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def _holder(fd: int) -> str:
    """The holder named in an open lock file, in words."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        holder = json.loads(os.read(fd, 4096).decode())
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(holder["started"]))
        return f"pid {holder['pid']} on {holder['host']}, started {started}"
    except (OSError, ValueError, KeyError, TypeError):  # the holder is still writing it, or it is not ours
        return "a process that has not yet said who it is"


def _open_locked(path: Path) -> int:
    """Open ``path`` and hold its lock; the descriptor is returned.

    :class:`FolderHeldError` when another process holds it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise FolderHeldError(holder) from None
        # A holder that ended between our open and our flock has deleted the file we locked; a lock on a
        # file nobody else can open protects nothing, so start again on the file now at that path.
        try:
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def is_lock_or_temporary(name: str) -> bool:
    """The lock file, or an atomic write's temporary file: what a killed writer leaves in its folder."""
    return name == LOCK_FILE or (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX))


def remove_dead_temporaries(folder: Path) -> None:
    """Delete the temporary files of atomic writes a killed writer left under ``folder`` (the caller holds its lock)."""
    for path in list(folder.rglob(f".*{TEMPORARY_SUFFIX}")):
        if path.is_file():
            path.unlink(missing_ok=True)


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the lock of ``folder``, which must exist, for the ``with`` block; a killed holder's temporary files
    are deleted first.

    Raises
    ------
    FolderHeldError
        Another live process holds it.
    OSError
        The lock file cannot be written there.
    """
    path = folder / LOCK_FILE
    fd = _open_locked(path)
    try:
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)
        remove_dead_temporaries(folder)
        yield
    finally:
        path.unlink(missing_ok=True)  # before the lock is released: see _open_locked
        os.close(fd)
