"""The rules tests' bridge to the numba engine's Belt side (``sim/fast/belt.py``), beside ``numba_bridge``.

``numba_bridge`` converts everything a Moon game holds; this module adds the Belt (``GameState.belt``:
each target's slots, who placed each piece, the shuttle columns) on the way in and out, and runs the
Belt's kernels through its own jitted dispatcher (compiled and cached like the main bridge's, see its
docstring). Only the clauses ``tests/rules/test_belt.py`` drives are here: setup, Luna's Belt
expansion, a card of hers (its expansion on the Belt), a scripted player's expand.
"""

from __future__ import annotations

import numpy as np

from sim import reference as ref
from sim.fast._jit import jit
from sim.fast.belt import expand_company_belt
from sim.fast.game import setup, setup_template
from sim.fast.luna import resolve_card
from sim.fast.players import player_expand
from sim.fast.state import STATE_DTYPE

from . import numba_bridge as nb

SETUP, EXPAND, PLAYER_EXPAND, RESOLVE_CARD = range(4)


@jit
def _apply_belt(tables, state, op, a, b, c):
    """Run Belt operation ``op`` on ``state[0]`` (records in one-element arrays, as in ``numba_bridge``)."""
    t = tables[0]
    st = state[0]
    general = True  # the Belt is on the kernels' general path (sim/fast/luna.py's module docstring)
    if op == SETUP:
        setup_template(t, st, general)
        setup(t, st, np.uint64(a), b)
    elif op == EXPAND:
        expand_company_belt(t, st, a, b, c)
    elif op == PLAYER_EXPAND:
        player_expand(t, st, a, b, general)
    elif op == RESOLVE_CARD:
        resolve_card(t, st, a, b, c, general)
    return 0


def _belt_to_record(state: ref.GameState, rec: np.ndarray) -> None:
    r = rec[0]
    r["belt_owner"][:] = -1
    r["belt_placer"][:] = ref.NOBODY
    for target, owners in enumerate(state.belt.owner):
        r["belt_owner"][target, : len(owners)] = owners
        r["belt_placer"][target, : len(owners)] = state.belt.placer[target]
    r["shuttles_left"][:] = state.belt.shuttles_left


def _belt_back(rules: ref.Rules, rec: np.ndarray, state: ref.GameState) -> None:
    r = rec[0]
    capacity = rules.belt.capacity
    state.belt = ref.BeltState(owner=[r["belt_owner"][t, : capacity[t]].tolist() for t in range(len(capacity))],
                               placer=[r["belt_placer"][t, : capacity[t]].tolist() for t in range(len(capacity))],
                               shuttles_left=r["shuttles_left"].tolist())


def setup_game(rules: ref.Rules, seed: int, game: int):
    """The kernel's setup of a Belt game over the reference's (which supplies what the record lacks)."""
    state, rngs = ref.setup_game(rules, seed, game)
    rec = np.zeros(1, STATE_DTYPE)
    _apply_belt(nb.tables_for(rules), rec, SETUP, seed, game, 0)
    nb.from_record(rules, rec, state, rngs)
    _belt_back(rules, rec, state)
    return state, rngs


def run(rules: ref.Rules, state: ref.GameState, op: int, a: int = 0, b: int = 0, c: int = 0,
        chosen: list[int] | None = None) -> None:
    """Run Belt operation ``op`` on ``state`` (converted) and write the result back into it."""
    tables = nb.tables_for(rules)
    rec = nb.to_record(rules, state, None, tables)
    _belt_to_record(state, rec)
    if chosen is not None:
        rec[0]["chosen"][: len(chosen)] = chosen
        rec["n_chosen"] = len(chosen)
    _apply_belt(tables, rec, op, a, b, c)
    nb.from_record(rules, rec, state)
    _belt_back(rules, rec, state)
