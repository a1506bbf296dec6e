"""The temporary directory an output is built in, held while it is built, and those of processes that died.

A command builds its output in ``.OUT.partial-PID`` beside ``--out`` and moves it into place when it is complete
(:func:`sim.outputs.output_directory`), removing it on an error, Ctrl-C or a stop signal. A process killed outright
(``kill -9``, the OOM killer, a power cut) cannot, and the folder stayed for good, hidden by its dot, as large as
the run had grown. So a live temporary directory is held with ``flock`` while it is built: the kernel drops the
lock however its holder dies (as the study's lock, ``analysis/study/lock.py``), so no pid is guessed alive or dead,
and the next command writing the same ``--out`` removes every such directory nobody holds. The same lock tells a
command that another one is writing its ``--out`` right now (:func:`others_writing`): it refuses rather than both
replacing each other's result and saying "wrote". An earlier output a command replaces is held the same way while
it is moved aside (``.OUT.old-PID``) and deleted, so the remains of one whose deleter was killed go too. Limits:
POSIX only, and ``flock`` is not reliable on every network file system (there a left-over directory is only left,
as before).
"""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
from pathlib import Path

PARTIAL = "partial"  # the temporary directory of ``out`` is ``.<out name>.partial-<pid>``
OLD = "old"  # an earlier ``out`` being replaced is moved to ``.<out name>.old-<pid>``, then deleted


def temporary_for(out: Path) -> Path:
    """The temporary directory this process builds ``out`` in."""
    return out.with_name(f".{out.name}.{PARTIAL}-{os.getpid()}")


def create_held(temporary: Path) -> int:
    """Create ``temporary`` and hold it; returns the descriptor to :func:`release` once it is moved or removed.

    The directory is made and locked under another name and then renamed (the lock follows it): a command
    looking for abandoned directories at that moment never finds one that is new and not yet held.
    """
    starting = temporary.with_name(temporary.name.replace(f".{PARTIAL}-", ".starting-", 1))
    if starting.exists():
        shutil.rmtree(starting)
    starting.mkdir()
    handle = os.open(starting, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.replace(starting, temporary)
    except BaseException:
        os.close(handle)
        shutil.rmtree(starting, ignore_errors=True)
        raise
    return handle


def release(handle: int) -> None:
    """Let go of a temporary directory :func:`create_held` made (closing its descriptor drops the lock)."""
    os.close(handle)


def _temporaries(out: Path) -> list[Path]:
    return list(out.parent.glob(f".{glob.escape(out.name)}.{PARTIAL}-*"))


def old_for(out: Path) -> Path:
    """Where this process moves an earlier ``out`` it replaces, to delete it once the new one is in place."""
    return out.with_name(f".{out.name}.{OLD}-{os.getpid()}")


def hold(directory: Path) -> int:
    """Hold an existing ``directory`` (say, an earlier output about to be moved to :func:`old_for` and deleted): until
    :func:`release`, :func:`remove_abandoned` leaves it alone under any name. Held before it is renamed, so it is
    never seen under the new name unheld."""
    handle = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(handle)
        raise
    return handle


def remove_abandoned(out: Path) -> None:
    """Delete the temporary directories of ``out`` that no live process holds (their process died), and the remains
    of earlier outputs a process died deleting."""
    olds = out.parent.glob(f".{glob.escape(out.name)}.{OLD}-*")
    for path in [*_temporaries(out), *olds]:
        try:
            handle = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:  # gone meanwhile, or not a directory: not ours to remove
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: a run writing this --out right now
            continue
        else:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(handle)


def _is_held(path: Path) -> bool:
    """Whether a live process holds the temporary directory ``path`` (this one's own included: a lock taken
    through another open of the directory conflicts with it)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # gone meanwhile, or not a directory: nobody's
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(handle)  # also lets go of a lock just taken
    return False


def others_writing(out: Path) -> list[str]:
    """The process ids of the other live commands building ``out`` now (their temporary directories are held).

    Two commands writing one ``--out`` at once would each replace the other's result, both saying it was written.
    """
    own = temporary_for(out)
    return [path.name.rsplit("-", 1)[1] for path in _temporaries(out) if path != own and _is_held(path)]
