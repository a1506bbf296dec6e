"""sim/pages.py: a kernel output array's memory is advised against huge pages, and nothing else changes."""

from __future__ import annotations

import mmap
import sys

import numpy as np
import pytest

from sim.pages import ordinary_pages


def _vma_flags(address: int) -> list[str]:
    """The ``VmFlags`` of the mapping of this process that holds ``address`` (Linux ``/proc/self/smaps``)."""
    flags, inside = None, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                low, high = (int(bound, 16) for bound in head.split("-"))
                inside = low <= address < high
            elif inside and head == "VmFlags:":
                flags = line.split()[1:]
    assert flags is not None, f"no mapping holds {address:#x}"
    return flags


@pytest.mark.skipif(not sys.platform.startswith("linux") or not hasattr(mmap, "MADV_NOHUGEPAGE"),
                    reason="the advice exists on Linux only")
def test_an_output_array_is_advised_against_huge_pages():
    array = np.empty(8 << 20, dtype=np.uint8)  # 8 MB: numpy itself advises huge pages from 4 MB
    middle = array.ctypes.data + array.nbytes // 2
    assert "nh" not in _vma_flags(middle)
    assert ordinary_pages(array) is array
    assert "nh" in _vma_flags(middle)  # nh: "no huge pages", the advice MADV_NOHUGEPAGE leaves


def test_the_advice_changes_no_value_and_takes_any_size():
    values = np.arange(3 << 20, dtype=np.int64)
    assert np.array_equal(ordinary_pages(values), np.arange(3 << 20, dtype=np.int64))
    assert ordinary_pages(np.empty(0)).size == 0
    assert ordinary_pages(np.empty((3, 5), dtype=np.int64)).shape == (3, 5)  # less than a page: left alone
