"""sim/dispatch.py: results in call order wherever the calls run, and an early stop that stays quiet."""

from __future__ import annotations

import time
import warnings

import pytest

from sim.dispatch import ordered_results


def slow_square(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value * value


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_in_call_order(workers):
    calls = [(value, 0.05 if value % 2 == 0 else 0.0) for value in range(6)]
    assert list(ordered_results(slow_square, calls, workers, "local", None)) == [0, 1, 4, 9, 16, 25]


def test_stopping_early_cancels_joblib_s_tasks_without_a_warning():
    """Regression (the joblib-worker invariant test failed on a cold numba cache): a run that stops at
    its first broken invariant closes the results while workers still play later chunks, and joblib
    warned about the cancelled tasks, an error under pytest's warnings-as-errors."""
    calls = [(0, 0.0)] + [(value, 1.0) for value in range(1, 8)]
    results = ordered_results(slow_square, calls, 2, "local", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert next(results) == 0
        results.close()  # tasks 1.. are still sleeping in the workers
    assert [str(warning.message) for warning in caught] == []
