"""Whether run directories can be loaded whole on this machine, told before a byte of their rows is read.

:func:`analysis.load.load_runs` holds every seat row (and every per-round row) of its runs in memory at once.
A run too large for the machine used to be found out by the operating system: swapping until the laptop froze,
or the process killed with no word of why. :func:`check_fits` works out from the parquet files' schemas and row
counts (their footers: nothing else is read) the least memory the frames will take, and refuses with one line
naming the largest run when even that exceeds the memory the machine has available.

It is a lower bound, so it never refuses a load that would fit: each column at its in-memory width (a number at
the width the file stores it, or one byte for an integer a compact load narrows, text as a one-byte category
code), the run columns the loader adds, and twice that when several runs are stacked (the loaded runs and their
stack are both held while the stack is built).
A report needs more than its frames: ``runs-report`` (a compact load) peaked at 2.5-3.4 times its frames' size
above a 100-game run's peak (2,000,000 games of ``luna:5``, frames of 143 MiB, 2.5 times; of
``scripted:balanced,luna:5`` 2.8; 600,000 of ``luna:5`` with per-round rows 3.3; three runs stacked 3.4), so a
load near the bound may still run out of memory: the bound refuses the hopeless ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from analysis.schema import ROUNDS_FILE, RUN_COLUMNS, RUN_TEXT_COLUMNS, SEATS_FILE

#: Bytes a row of the run columns takes in a loaded frame: text as a one-byte category code, numbers as int64
#: (``analysis.load._with_labels``; a compact load narrows them to a byte).
_TEXT_CODE_BYTES = 1
_LABEL_NUMBER_BYTES = 8
#: The per-round frame gets each row's Luna level as int64 (a byte, compact) besides the file's columns.
_ROUND_LEVEL_BYTES = 8
_MEMINFO = Path("/proc/meminfo")
_GIB = 2**30


def is_text(field: pa.Field) -> bool:
    """Text, or text the file already keeps as a dictionary (a frame with categoricals written by pandas): loaded as
    a categorical, a byte a row."""
    kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _row_bytes(schema: pa.Schema, compact: bool) -> int:
    """Bytes one row of a file with ``schema`` takes once loaded (``compact``: integers narrowed), at the least."""
    total = 0
    for field in schema:
        kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if is_text(field):
            total += _TEXT_CODE_BYTES
        elif pa.types.is_boolean(kind) or (compact and pa.types.is_integer(kind)):
            total += 1
        else:
            total += max(kind.bit_width // 8, 1)
    for name in RUN_COLUMNS:
        if name not in schema.names:
            total += _TEXT_CODE_BYTES if name in RUN_TEXT_COLUMNS else 1 if compact else _LABEL_NUMBER_BYTES
    return total


def file_bytes(path: Path, compact: bool = False) -> int:
    """The least memory ``path`` (a run's ``seats.parquet`` or ``luna_rounds.parquet``) takes loaded; 0 when it
    is missing or unreadable (the loader then says what is wrong with it)."""
    try:
        metadata = pq.read_metadata(path)
        schema = metadata.schema.to_arrow_schema()
    except (OSError, pa.ArrowException):
        return 0
    level = 1 if compact else _ROUND_LEVEL_BYTES
    extra = level if path.name == ROUNDS_FILE and "level" not in schema.names else 0
    return metadata.num_rows * (_row_bytes(schema, compact) + extra)


def runs_bytes(run_dirs: Sequence[Path], compact: bool = False) -> tuple[int, Path | None]:
    """The least memory loading ``run_dirs`` together takes (``compact`` as in :func:`analysis.load.load_runs`),
    and the run that takes the most."""
    sizes = {directory: sum(file_bytes(directory / name, compact) for name in (SEATS_FILE, ROUNDS_FILE))
             for directory in run_dirs}
    if not sizes:
        return 0, None
    largest = max(sizes, key=lambda directory: sizes[directory])
    stacking = 2 if len(sizes) > 1 else 1
    return stacking * sum(sizes.values()), largest


def available_memory(meminfo: Path = _MEMINFO) -> int | None:
    """Bytes the machine can give a process without swapping (Linux's ``MemAvailable``); None where unknown."""
    try:
        for line in meminfo.read_text(encoding="ascii").splitlines():
            name, _, value = line.partition(":")
            if name == "MemAvailable":
                number, _, unit = value.strip().partition(" ")
                return int(number) * (1024 if unit.strip() == "kB" else 1)
    except (OSError, ValueError):
        return None
    return None


def check_fits(run_dirs: Sequence[Path], compact: bool = False, available: int | None = None) -> None:
    """Refuse, before any row is read, runs whose frames cannot fit in the memory available (module docstring).

    Parameters
    ----------
    run_dirs
        The run directories to be loaded together.
    compact
        Whether they are loaded with their integers narrowed (:func:`analysis.load.load_runs`).
    available
        Bytes available; by default :func:`available_memory` (no check where it is unknown).

    Raises
    ------
    ValueError
        Naming the largest run's ``seats.parquet``, the least memory the load takes and what is available.
    """
    available = available_memory() if available is None else available
    if available is None:
        return
    needed, largest = runs_bytes(run_dirs, compact)
    if largest is None or needed <= available:
        return
    several = f" ({len(run_dirs)} runs, the largest this one)" if len(run_dirs) > 1 else ""
    raise ValueError(
        f"{largest / SEATS_FILE}: too large to load whole{several}: its rows take at least "
        f"{needed / _GIB:.1f} GiB in memory and this machine has {available / _GIB:.1f} GiB available; report on "
        "fewer runs or games, or play them with `luna-balance study`, which reduces its games as it plays")
