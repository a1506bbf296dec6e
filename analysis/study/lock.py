"""One study process per study directory: a lock file held with ``flock``.

A second ``luna-balance study`` on a directory another one is playing would write the same parts and
report files at the same time; it refuses at once instead, naming the process that holds the study
(pid, host, start time), with exit code 2.

Why ``fcntl.flock`` rather than a pid file checked for liveness: the kernel releases the lock when its
holder dies in any way (SIGKILL, OOM killer, a crash), so a dead holder never blocks a later run and
no pid is ever guessed to be alive or dead (a pid file can name a pid the system has since reused for
an unrelated process, and a pid cannot be checked from another host). The pid, host and start time
written into the file only serve the message. A lock file left by a killed process holds no lock, so
the next study simply takes it over. Limits: POSIX only, and ``flock`` is not reliable on every
network file system.
"""

from __future__ import annotations

import fcntl
import functools
import inspect
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from analysis.render import TEMPORARY_SUFFIX
from analysis.study.plan import STUDY_FILE, StudyError

LOCK_FILE = ".lock"  # inside the study directory; deleted when the study ends normally

_Function = TypeVar("_Function", bound=Callable[..., Any])


class StudyLockedError(StudyError):
    """Another process is playing this study; the message names it."""


def _holder(fd: int) -> str:
    """The holder named in an open lock file, in words."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        holder = json.loads(os.read(fd, 4096).decode())
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(holder["started"]))
        return f"pid {holder['pid']} on {holder['host']}, started {started}"
    except (OSError, ValueError, KeyError, TypeError):  # the holder is still writing it, or it is not ours
        return "a process that has not yet said who it is"


def _open_locked(study_dir: Path, path: Path) -> int:
    """Open ``path`` and hold its lock; the descriptor is returned. Refuse when another process holds it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise StudyLockedError(f"{study_dir}: another study is running in this directory ({holder}); "
                              "wait for it to end or stop it, then run the command again") from None
        # A holder that ended between our open and our flock has deleted the file we locked; a lock on a
        # file nobody else can open protects nothing, so start again on the file now at that path.
        try:
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


@contextmanager
def study_lock(study_dir: str | Path) -> Iterator[None]:
    """Hold the lock of ``study_dir`` (created if needed) for the ``with`` block.

    Raises
    ------
    StudyLockedError
        Another live process holds it.
    analysis.study.plan.StudyError
        The directory cannot be created or the lock file not written there.
    """
    study_dir = Path(study_dir)
    path = study_dir / LOCK_FILE
    created = [folder for folder in (study_dir, *study_dir.parents) if not folder.exists()]  # innermost first
    _refuse_foreign(study_dir)
    try:
        study_dir.mkdir(parents=True, exist_ok=True)
        fd = _open_locked(study_dir, path)
    except OSError as error:
        raise StudyError(f"{study_dir}: cannot write a study there ({error.strerror or error})") from None
    try:
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)
        _remove_dead_temporaries(study_dir)
        yield
    finally:
        path.unlink(missing_ok=True)  # before the lock is released: see _open_locked
        os.close(fd)
        for folder in created:  # only those the study left empty (e.g. it refused its options)
            try:
                folder.rmdir()
            except OSError:
                break


def _left_by_a_killed_study(name: str) -> bool:
    """The lock file, or an atomic write's temporary file (:func:`_remove_dead_temporaries` deletes those)."""
    return name == LOCK_FILE or (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX))


def _refuse_foreign(study_dir: Path) -> None:
    """Refuse a directory that holds something but no ``study.json``: a study writes its report, tables and
    parts over whatever is there (a lock file and temporary files alone are a study killed before its plan)."""
    try:
        foreign = study_dir.is_dir() and not (study_dir / STUDY_FILE).exists() and any(
            not _left_by_a_killed_study(entry.name) for entry in study_dir.iterdir())
    except OSError:
        return  # not readable: creating the lock file says why
    if foreign:
        raise StudyError(f"{study_dir}: exists and is not a study (no {STUDY_FILE}); refusing to write into it: "
                         "use another --name or --results-dir")


def _remove_dead_temporaries(study_dir: Path) -> None:
    """Delete the temporary files of atomic writes a killed study left (with the lock, no writer is alive)."""
    for path in list(study_dir.rglob(f".*{TEMPORARY_SUFFIX}")):
        if path.is_file():
            path.unlink(missing_ok=True)


def _plain_name(name: object) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and Path(name).name == name


def holding_study_lock(function: _Function) -> _Function:
    """Run ``function`` (``run_study``) holding the lock of the study directory ``results_dir/name``.

    A ``name`` that is no single directory name is left for ``function`` itself to refuse.
    """
    signature = inspect.signature(function)

    @functools.wraps(function)
    def locked(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        name = bound.arguments["name"]
        if not _plain_name(name):
            return function(*args, **kwargs)
        with study_lock(Path(bound.arguments["results_dir"]) / name):
            return function(*args, **kwargs)

    return locked  # type: ignore[return-value]
