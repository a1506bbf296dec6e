"""One study process per study directory: :mod:`analysis.folder_lock`'s lock on the study folder.

A second ``luna-balance study`` on a directory another one is playing would write the same parts and
report files at the same time; it refuses at once instead, naming the process that holds the study
(pid, host, start time), with exit code 2.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from analysis.folder_lock import LOCK_FILE, FolderHeldError, folder_lock, is_lock_or_temporary
from analysis.study.plan import STUDY_FILE, StudyError
from sim.outputs import OutputPathError, refuse_other_writers

__all__ = ["LOCK_FILE", "StudyLockedError", "holding_study_lock", "study_lock"]

_Function = TypeVar("_Function", bound=Callable[..., Any])


class StudyLockedError(StudyError):
    """Another process is playing this study; the message names it."""


@contextmanager
def study_lock(study_dir: str | Path, reading: bool = False) -> Iterator[None]:
    """Hold the lock of ``study_dir`` (created if needed) for the ``with`` block; ``reading``: for a command that
    only reads the study and writes its report (``report``), whose refusals then speak of reading a study.

    Raises
    ------
    StudyLockedError
        Another live process holds it.
    analysis.study.plan.StudyError
        The directory cannot be created or the lock file not written there.
    """
    study_dir = Path(study_dir)
    if reading and study_dir.exists() and not study_dir.is_dir():
        raise StudyError(f"{study_dir}: not a study directory (a file)")
    created = [folder for folder in (study_dir, *study_dir.parents) if not folder.exists()]  # innermost first
    _refuse_foreign(study_dir, reading)
    try:
        with ExitStack() as held:
            try:
                study_dir.mkdir(parents=True, exist_ok=True)
                held.enter_context(folder_lock(study_dir))
            except FolderHeldError as other:
                raise StudyLockedError(f"{study_dir}: another study is running in this directory ({other.holder}); "
                                       "wait for it to end or stop it, then run the command again") from None
            except OSError as error:
                raise StudyError(f"{study_dir}: cannot write a study there ({error.strerror or error})") from None
            try:  # a simulate, campaign... building its output at study_dir would replace the study, or fail on it
                refuse_other_writers(study_dir)
            except OutputPathError as error:
                raise StudyLockedError(str(error)) from None
            yield
    finally:
        for folder in created:  # only those the study left empty (e.g. it refused its options)
            try:
                folder.rmdir()
            except OSError:
                break


def _refuse_foreign(study_dir: Path, reading: bool) -> None:
    """Refuse a directory that holds something but no ``study.json``: a study writes its report, tables and
    parts over whatever is there (a lock file and temporary files alone are a study killed before its plan); a
    report has nothing to read there (``reading``: the message says so, not a study's options it has not)."""
    try:
        foreign = study_dir.is_dir() and not (study_dir / STUDY_FILE).exists() and any(
            not is_lock_or_temporary(entry.name) for entry in study_dir.iterdir())
    except OSError:
        return  # not readable: creating the lock file says why
    if foreign and reading:
        raise StudyError(f"{study_dir}: not a study (no {STUDY_FILE}): nothing to report")
    if foreign:
        raise StudyError(f"{study_dir}: exists and is not a study (no {STUDY_FILE}); refusing to write into it: "
                         "use another --name or --results-dir")


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
