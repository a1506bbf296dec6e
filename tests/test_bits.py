"""The sector-mask bit scans of ``sim/fast/bits.py`` against Python's integers, on every single bit and on
random masks (the kernels ask only about non-empty masks)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sim.fast.bits import highest_sector, lowest_sector, sector_bit


def test_each_single_sector_is_its_own_lowest_and_highest() -> None:
    for sector in range(1, 65):
        mask = np.uint64(sector_bit(sector))
        assert int(mask) == 1 << (sector - 1)
        assert lowest_sector(mask) == sector
        assert highest_sector(mask) == sector


@given(st.integers(min_value=1, max_value=2**64 - 1))
def test_lowest_and_highest_sector_of_a_mask_are_its_lowest_and_highest_set_bits(mask: int) -> None:
    assert lowest_sector(np.uint64(mask)) == (mask & -mask).bit_length()
    assert highest_sector(np.uint64(mask)) == mask.bit_length()
