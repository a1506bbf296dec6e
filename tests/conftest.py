"""Hypothesis profiles for the property tests (tests/test_properties.py), and fixtures several test files use.

``ci`` (the default): few examples, a fixed derandomized sequence so a CI run is repeatable, no
example database written. ``thorough`` for a local run: many more examples, random, with the usual
database under ``.hypothesis/`` so a failure found once is tried first next time. Select one with
``HYPOTHESIS_PROFILE=thorough``. No deadline in either: the first example compiles the numba engine.
"""

from __future__ import annotations

import os

import numba
import pytest
from hypothesis import HealthCheck, settings

_SLOW_EXAMPLES = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_SLOW_EXAMPLES)
settings.register_profile("thorough", max_examples=400, deadline=None, suppress_health_check=_SLOW_EXAMPLES)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def restore_threads():
    """Give numba back the thread count it had, whatever the test set."""
    threads = numba.get_num_threads()
    yield
    numba.set_num_threads(threads)


@pytest.fixture
def stop_at_level(monkeypatch):
    """``stop_at_level(5)``: from then on the reference engine stops (a Ctrl-C) when asked to play Luna alone at
    level 5, and plays every other level; ``stop_at_level(None)`` lets it play them all again."""
    from sim import engines

    real = engines.play_chunk_reference

    def stop(level: int | None) -> None:
        def stopped(data, config, *args, **kwargs):
            if config.seats[0].level == level:
                raise KeyboardInterrupt
            return real(data, config, *args, **kwargs)

        monkeypatch.setattr(engines, "play_chunk_reference", real if level is None else stopped)

    return stop
