"""The Belt side of the board (SPEC section 7) in the numba engine.

Each kernel mirrors the ``sim/reference/belt.py`` function named in its docstring, clause by clause
(the clauses and this project's readings are listed there). Belt targets 1..n are bits 0..n-1 of a
``uint64`` target mask, as sectors are on the Moon (``sim/fast/bits.py``); a target's slots are its
outpost spaces (one for a shuttle space), filled lowest first.
"""

from __future__ import annotations

import numpy as np

from sim.constants import N_COMPANIES
from sim.fast._jit import jit
from sim.fast.bits import highest_sector, lowest_sector, sector_bit
from sim.fast.board import (
    ensure_order,
    lead_margins,
    order_chosen_for_expansion,
    return_column,
    station_add,
    take_column,
)
from sim.fast.state import NOBODY

_NONE = np.uint64(0)


@jit
def first_vacant(t, st, target):
    """The target's lowest vacant slot, or -1 (``has_vacancy`` is ``>= 0``)."""
    for slot in range(t.belt_capacity[target]):
        if st.belt_owner[target, slot] < 0:
            return slot
    return -1


@jit
def holds(t, st, target, company):
    """Whether a piece of ``company`` is on the target."""
    for slot in range(t.belt_capacity[target]):
        if st.belt_owner[target, slot] == company:
            return True
    return False


@jit
def setup_belt(t, st):
    """``setup_belt``, into the template: every slot vacant, full shuttle columns, the setup outposts."""
    st.belt_owner[:] = -1
    st.belt_placer[:] = NOBODY
    for company in range(N_COMPANIES):
        st.shuttles_left[company] = t.belt_shuttles
        target = t.belt_setup_target[company]
        for _ in range(t.belt_setup_count[company]):
            column = take_column(t, st, company)
            station_add(t, st, company, column if column >= 0 else t.n_columns - 1, -1)  # -1: the last column
            st.belt_owner[target, first_vacant(t, st, target)] = company


@jit
def within_reach(t, st, company):
    """``within_reach`` as a target mask: the station's targets, the company's targets and their neighbours."""
    mask = t.belt_touches[company]
    for target in range(1, t.belt_count + 1):
        if holds(t, st, target, company):
            mask |= sector_bit(target) | t.belt_adjacent[target]
    return mask


@jit
def place_piece(t, st, seat, company, target, column):
    """``place_piece``: a shuttle (shuttle space) or the top outpost of ``column`` (asteroid) on the target."""
    if t.belt_asteroid & sector_bit(target):
        station_add(t, st, company, column, -1)
    else:
        st.shuttles_left[company] -= 1
    slot = first_vacant(t, st, target)
    st.belt_owner[target, slot] = company
    st.belt_placer[target, slot] = seat


@jit
def oust_piece(t, st, target, victim):
    """``oust_piece``: the victim's piece on its lowest slot of the target goes home; returns who placed it."""
    slot = 0
    while st.belt_owner[target, slot] != victim:
        slot += 1
    if t.belt_asteroid & sector_bit(target):
        station_add(t, st, victim, return_column(t, st, victim), 1)
    else:
        st.shuttles_left[victim] += 1
    placer = st.belt_placer[target, slot]
    st.belt_owner[target, slot] = -1
    st.belt_placer[target, slot] = NOBODY
    return placer


@jit
def _pick(mask, lowest):
    return lowest_sector(mask) if lowest else highest_sector(mask)


@jit
def luna_belt_point(t, st, seat, company, lowest):
    """``luna_belt_point``: one of Luna's expansion points on the Belt; False when it is forfeited."""
    column = take_column(t, st, company)
    has_outpost = column >= 0
    has_shuttle = st.shuttles_left[company] > 0
    if not has_outpost and not has_shuttle:
        return False
    placeable = _NONE
    if has_outpost:
        placeable |= t.belt_asteroid
    if has_shuttle:
        placeable |= ~t.belt_asteroid
    within = within_reach(t, st, company)
    targets = _NONE
    held = _NONE
    vacant_any = False
    for target in range(1, t.belt_count + 1):
        bit = sector_bit(target)
        if within & bit == 0 or first_vacant(t, st, target) < 0:
            continue
        vacant_any = True
        mine = holds(t, st, target, company)
        asteroid = t.belt_asteroid & bit != 0
        if placeable & bit != 0 and (not asteroid or not mine):
            targets |= bit  # clauses 1 and 3
        if asteroid and has_outpost and mine:
            held |= bit  # clause 5
    if targets != 0:
        target = _pick(targets, lowest)
    elif held != 0:
        target = _pick(held, lowest)
    elif vacant_any:
        return False
    else:  # clause 6: the reachable rival she is farthest behind on (smallest margin, ties to more valuable)
        lead_margins(t, st, seat)
        ensure_order(t, st)
        victim = -1
        for rival in range(N_COMPANIES):
            if rival == company:
                continue
            present = False
            for target in range(1, t.belt_count + 1):
                if within & sector_bit(target) != 0 and holds(t, st, target, rival):
                    present = True
                    break
            if not present:
                continue
            if victim < 0 or st.margin[rival] < st.margin[victim] or (
                    st.margin[rival] == st.margin[victim] and st.rank[rival] < st.rank[victim]):
                victim = rival
        if victim < 0:
            return False
        theirs = _NONE
        for target in range(1, t.belt_count + 1):
            bit = sector_bit(target)
            if within & placeable & bit != 0 and holds(t, st, target, victim):
                theirs |= bit
        if theirs == 0:
            return False
        target = _pick(theirs, lowest)
        placer = oust_piece(t, st, target, victim)
        st.ousted[seat] += 1
        if placer != NOBODY and t.seat_level[placer] < 0:
            st.outposts_ousted_by_luna[placer] += 1
    place_piece(t, st, seat, company, target, column)
    st.outposts_placed[seat] += 1
    return True


@jit
def expand_company_belt(t, st, seat, points, lowest):
    """``expand_company_belt`` for the companies in ``chosen``: less valuable first, ``points`` each."""
    ensure_order(t, st)
    n = order_chosen_for_expansion(st)
    for i in range(n):
        company = st.expand_order[i]
        for _ in range(points):
            if not luna_belt_point(t, st, seat, company, lowest):
                break


@jit
def player_expand_belt(t, st, seat, company, pieces):
    """``player_belt_piece`` ``pieces`` times (``player_expand``'s loop on the Belt), stopping at the first miss."""
    for _ in range(pieces):
        column = take_column(t, st, company)
        has_outpost = column >= 0
        has_shuttle = st.shuttles_left[company] > 0
        within = within_reach(t, st, company)
        target = -1
        for candidate in range(1, t.belt_count + 1):
            bit = sector_bit(candidate)
            if within & bit == 0 or first_vacant(t, st, candidate) < 0:
                continue
            if (has_outpost if t.belt_asteroid & bit != 0 else has_shuttle):
                target = candidate
                break
        if target < 0:
            return
        place_piece(t, st, seat, company, target, column)
        st.cash[seat] += t.belt_outpost_reward if t.belt_asteroid & sector_bit(target) != 0 else t.belt_shuttle_reward
        st.outposts_placed[seat] += 1
