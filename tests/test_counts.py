"""``sim.fast.counts``, the compiled value counts of ``--aggregate-only`` and of a study, against numpy's."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sim.fast.counts import count_columns_from, count_strided, integer_counts

_VALUES = hnp.arrays(np.int64, st.integers(0, 40), elements=st.integers(-300, 300))


@given(_VALUES, st.integers(1, 3))
def test_counts_are_numpys_for_any_values_and_any_stride(values: np.ndarray, step: int) -> None:
    picked = values[::step]  # a seat's rows: a strided view, as seat_rows gives with several seats
    low, counts = integer_counts(picked)
    if picked.size == 0:
        assert counts.size == 0
        return
    distinct, expected = np.unique(picked, return_counts=True)
    assert low == picked.min()
    assert counts.size == picked.max() - picked.min() + 1  # dense from the smallest value to the largest
    assert np.array_equal(np.flatnonzero(counts) + low, distinct)
    assert np.array_equal(counts[counts > 0], expected)


def test_a_widely_spread_column_is_counted_as_a_narrow_one_is() -> None:
    values = np.array([0, 5000, 5000, 17, 0, 5000, 9], np.int64)  # more distinct values than the four lanes take
    low, counts = integer_counts(values)
    assert low == 0 and counts.size == 5001
    assert {int(v): int(counts[v]) for v in np.flatnonzero(counts)} == {0: 2, 9: 1, 17: 1, 5000: 3}


def test_known_bounds_are_used_and_a_single_value_is_counted_whole() -> None:
    low, counts = integer_counts(np.full(9, 7, np.int64), (7, 7))
    assert (low, counts.tolist()) == (7, [9])
    low, counts = integer_counts(np.array([2, 5, 5, 2, 5], np.int64), (2, 5))
    assert (low, counts.tolist()) == (2, [2, 0, 0, 3])


@given(hnp.arrays(np.int64, st.tuples(st.integers(0, 12), st.integers(1, 7)), elements=st.integers(-5, 20)))
def test_each_column_is_counted_on_its_own_row(values: np.ndarray) -> None:
    # a study's per-round values: rows are games, columns rounds; a (games, rounds) view of wider rows
    wide = np.repeat(values, 2, axis=1)[:, ::2]
    counts = np.zeros((values.shape[1], 26), np.int64)
    count_columns_from(wide, -5, counts)
    for column in range(values.shape[1]):
        assert np.array_equal(counts[column], np.bincount(values[:, column] + 5, minlength=26))


@given(_VALUES, st.integers(0, 3), st.integers(1, 3), st.integers(0, 700))
def test_strided_counts_over_the_column_s_bounds_are_numpy_s(values: np.ndarray, start: int, step: int,
                                                            wider: int) -> None:
    # a seat's every n-th value counted over a span that holds the whole column (and ``wider`` more above it)
    low = int(values.min()) if values.size else 0
    span = (int(values.max()) - low + 1 if values.size else 1) + wider
    counts = np.arange(span, dtype=np.int64)  # counts already there, to be added to
    count_strided(values, start, step, low, counts)
    picked = values[start::step]
    assert np.array_equal(counts, np.arange(span, dtype=np.int64) + np.bincount(picked - low, minlength=span))


def test_strided_counts_of_a_wide_span_go_straight_into_the_counts() -> None:
    values = np.array([3, 9, 1500, 9, 3, 2000, 3], np.int64)
    counts = np.zeros(2001, np.int64)
    count_strided(values, 0, 2, 0, counts)  # 3, 1500, 3, 3
    assert {int(v): int(counts[v]) for v in np.flatnonzero(counts)} == {3: 3, 1500: 1}
