"""Rules tests: every whole round played by any test here is followed by the invariant checker.

``check_every_round`` wraps ``sim.reference.play_round`` under both its names: the package's (which
tests call) and ``sim.reference.game``'s (which ``play_game`` calls). So a test that plays rounds,
directly or through ``play_game``, fails as soon as a round leaves the state inconsistent (cards lost
or duplicated, outposts not conserved, negative cash ...).
"""

from __future__ import annotations

import pytest

from sim import reference as ref
from sim.invariants import assert_invariants

_original_play_round = ref.play_round


def _checked_play_round(rules, state, rngs, records):
    _original_play_round(rules, state, rngs, records)
    assert_invariants(rules, state)
    _checked_play_round.rounds_checked += 1


_checked_play_round.rounds_checked = 0


@pytest.fixture(autouse=True)
def check_every_round(monkeypatch):
    monkeypatch.setattr(ref, "play_round", _checked_play_round)
    monkeypatch.setattr(ref.game, "play_round", _checked_play_round)
    yield _checked_play_round


@pytest.fixture(params=["reference", "numba"])
def engine(request):
    """The engine a clause test drives: the reference, or the numba kernels on the converted state."""
    from .engines import ENGINES

    return ENGINES[request.param]
