"""``sim.fast.claim.claim_next``, the counter the parallel drivers' threads claim blocks from: every number once."""

from __future__ import annotations

import numba
import numpy as np

from sim.fast.claim import claim_next


@numba.njit(parallel=True)
def _claim_all(steps, numbers):
    """As a parallel driver does: every prange step claims numbers until none of ``numbers`` is left. Returns
    how often each number was claimed and how many claims each step made."""
    counter = np.zeros(1, np.int64)
    times = np.zeros(numbers, np.int64)
    claims = np.zeros(steps, np.int64)
    for step in numba.prange(steps):
        number = claim_next(counter)
        claims[step] += 1
        while number < numbers:
            times[number] += 1
            number = claim_next(counter)
            claims[step] += 1
    # (numba does not see claim_next write the counter: reading counter[0] here may give the 0 it started at)
    return times, claims


def test_every_number_is_claimed_once_whatever_the_threads(restore_threads):
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        numba.set_num_threads(threads)
        times, claims = _claim_all(64, 100_000)
        assert (times == 1).all()
        assert claims.sum() == 100_000 + 64  # each step's last claim found the numbers used up


def test_a_counter_counts_from_where_it_stands():
    @numba.njit
    def three(counter):
        return claim_next(counter), claim_next(counter), claim_next(counter)

    counter = np.array([7], np.int64)
    assert three(counter) == (7, 8, 9) and counter[0] == 10
