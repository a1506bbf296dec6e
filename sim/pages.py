"""Output arrays backed by ordinary pages: a run's chunk is never held up while the system compacts memory.

Why. numpy asks Linux to back every array of 4 MB or more with 2 MB "huge" pages (``madvise(MADV_HUGEPAGE)``).
Where transparent huge pages are set to ``defrag = madvise`` (Linux's default), a page fault in memory so
advised may stop to compact memory until a free huge page exists. A run holds two chunks' output at once (one
played, one written), so its second chunk grows the heap by a chunk's output (33 MB for 97,541 games of Luna
alone), which the kernel's threads fault in while they play. Traced on the Intel host (``luna:3``, 500,000 games
``--aggregate-only``, eleven runs): that second kernel call took 166-190 ms against 126-156 ms for the others in
six of them, with 64-92 ms of system time where it was measured, for ~1,050 page faults; with this module's advice,
137-150 ms in six runs of six, with 19-32 ms of system time for ~8,200 ordinary page faults. Later chunks reuse
the heap and fault nothing.

The writer thread's int32 buffer (``sim.run.Int32Scratch``, 16 MB for such a chunk) is advised alike.

What. :func:`ordinary_pages` advises ``MADV_NOHUGEPAGE`` over the whole pages inside a fresh array's memory,
before anything touches it. It is advice for this array's memory only (not numpy's process-wide setting), it
changes no value, and where the system has no such advice (not Linux) it does nothing.
"""

from __future__ import annotations

import ctypes
import mmap
from collections.abc import Callable

import numpy as np

_NO_HUGE_PAGES = getattr(mmap, "MADV_NOHUGEPAGE", None)


def _madvise() -> Callable[[int, int, int], int] | None:
    """libc's ``madvise``, or ``None`` where the system has no huge-page advice."""
    if _NO_HUGE_PAGES is None:
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    function.restype = ctypes.c_int
    return function


_MADVISE = _madvise()


def ordinary_pages(array: np.ndarray) -> np.ndarray:
    """``array``, its memory's whole pages advised not to be huge pages; call it before the memory is touched.

    The partial pages at either end are left alone: they may hold another allocation's bytes.
    """
    if _MADVISE is not None and array.nbytes:
        page = mmap.PAGESIZE
        start = -(-array.ctypes.data // page) * page
        end = (array.ctypes.data + array.nbytes) // page * page
        if end > start:
            _MADVISE(start, end - start, _NO_HUGE_PAGES)  # advice: a refusal changes nothing but speed
    return array
