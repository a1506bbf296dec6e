"""``sim.fast.claim.claim_next``, the counter the engine's threads claim blocks from: every number once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from sim.fast.claim import claim_next


@numba.njit(nogil=True)
def _claim_all(counter, numbers, times):
    """As a driver does: claim numbers from ``counter`` until none of ``numbers`` is left, adding one to
    ``times[number]`` for each; returns how many claims this call made."""
    claims = 1
    number = claim_next(counter)
    while number < numbers:
        times[number] += 1
        number = claim_next(counter)
        claims += 1
    return claims


def test_every_number_is_claimed_once_by_threads_claiming_at_once():
    # Each thread counts into its own array, so only the counter is shared, as the drivers' output rows are
    # each block's own. Without the GIL (nogil) the calls run at once on as many cores as there are.
    numbers, threads = 400_000, 4
    counter = np.zeros(1, np.int64)
    times = np.zeros((threads, numbers), np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        claims = list(pool.map(lambda k: _claim_all(counter, numbers, times[k]), range(threads)))
    assert (times.sum(axis=0) == 1).all()
    assert sum(claims) == numbers + threads  # each call's last claim found the numbers used up
    assert counter[0] == numbers + threads


def test_a_counter_counts_from_where_it_stands():
    @numba.njit
    def three(counter):
        return claim_next(counter), claim_next(counter), claim_next(counter)

    counter = np.array([7], np.int64)
    assert three(counter) == (7, 8, 9) and counter[0] == 10
