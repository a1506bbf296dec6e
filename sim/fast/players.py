"""Scripted players (modelled): their plan, the majorities Luna blocks, and each kind of action.

Each kernel mirrors the ``sim/reference/players.py`` function named in its docstring. A scripted seat's only
float arithmetic, its action strength and an expand's outpost count, is done in float64 with the
reference's operations in the reference's order (no fastmath), which rounds exactly as Python does.
"""

from __future__ import annotations

import math

import numpy as np

from sim.constants import (
    ACTION_KINDS,
    DISPLAY_SPACES,
    N_COMPANIES,
    N_RESOURCE_TYPES,
    N_SLOTS,
    RESEARCH_ROW_SPACES,
    STANDARD_BONUS_CELLS,
)
from sim.fast._jit import jit
from sim.fast.belt import player_expand_belt
from sim.fast.bits import lowest_sector
from sim.fast.board import (
    advance_track,
    occupied,
    place_outpost,
    reachable,
    refill_plan_row,
    take_column,
    take_display_card,
)
from sim.fast.luna import TANK, UPLOAD, majority_value, move_marker
from sim.fast.rng import below, seat_stream
from sim.fast.state import N_ROWS, NO_CARD, NOBODY

INVEST, EXPAND, HELIUM, RESEARCH, BUY_CARD, BONUS = (ACTION_KINDS.index(kind) for kind in (
    "invest", "expand", "helium", "research", "buy_card", "bonus"))
SCIENTISTS = N_RESOURCE_TYPES - 1  # the last majority type; the others have a bonus space each in row 0
N_STANDARD_BONUS = len(STANDARD_BONUS_CELLS)  # tables.bonus_preference holds them, best first


@jit
def is_luna(t, seat):
    """The seat is a Luna seat (``NOBODY`` is not): ``state.seats[seat].luna is not None``."""
    return seat >= 0 and t.seat_level[seat] >= 0


@jit
def luna_majority_values(t, st):
    """``luna_majority_values`` into ``st.luna_values``: per type, the highest value any Luna shows now."""
    for index in range(N_RESOURCE_TYPES):
        best = 0
        for k in range(t.n_luna):
            best = max(best, majority_value(t, st, t.luna_seats[k], index))
        st.luna_values[index] = best


@jit(inline="always")
def display_key(t, st, card):
    """``ranked_display_spaces``' key of a shown ``card`` without the space, as two numbers: ``(place, resources)``.

    Share cards first, by the company's value rank (``place`` = that rank), others after them (``place`` =
    ``N_COMPANIES``); then the larger resource sum. ``card`` sorts before ``other`` when its place is smaller,
    or equal with more resources (:func:`sorts_before`). ``st.order`` must be current; ``card`` may be
    ``NO_CARD`` (a key the caller leaves out)."""
    card = max(card, 0)
    share = t.action_share[card]
    shown = np.int64(share >= 0)
    # arithmetic, not a select of a load, which LLVM would turn back into a branch (board.gain_most_valuable_share)
    place = shown * st.rank[max(share, 0)] + (1 - shown) * N_COMPANIES
    return place, t.action_resource_sum[card]


@jit(inline="always")
def sorts_before(place, resources, best_place, best_resources):
    """A card of key ``(place, resources)`` sorts strictly before one of the other key (:func:`display_key`).

    Callers scan the spaces upward and replace their best only on a strict win, which is the key's last part
    (lower space first). Bitwise ``|`` and ``&``, not ``or`` and ``and``, which would branch on which cards the
    game shows."""
    return (place < best_place) | ((place == best_place) & (resources > best_resources))


@jit
def choose_aim(t, st, seat, n, kind):
    """``choose_aim`` for the seat's ``n``-th planned action, excluding what its earlier actions aim at."""
    st.aims[seat, n, 0] = NO_CARD
    st.aims[seat, n, 1] = -1
    st.aims[seat, n, 2] = 0
    if kind == BUY_CARD:
        # selects, not branches: which cards the display shows is the game's chance (board.select_companies)
        best = -1
        best_place, best_resources = N_COMPANIES + 1, 0  # behind every card: the first one shown wins
        for space in range(DISPLAY_SPACES):
            card = st.display[space]
            aimed = False
            for i in range(n):
                aimed |= (st.plan[seat, i] == BUY_CARD) & (st.aims[seat, i, 0] == card)
            place, resources = display_key(t, st, card)
            wins = (card != NO_CARD) & (not aimed) & sorts_before(place, resources, best_place, best_resources)
            best = space if wins else best
            best_place = place if wins else best_place
            best_resources = resources if wins else best_resources
        if best >= 0:
            st.aims[seat, n, 0] = st.display[best]
    elif kind == RESEARCH:
        for row in range(N_ROWS):
            for space in range(RESEARCH_ROW_SPACES):
                if not st.plan_rows[row, space]:
                    continue
                aimed = False
                for i in range(n):
                    if st.plan[seat, i] == RESEARCH and st.aims[seat, i, 0] == row and st.aims[seat, i, 1] == space:
                        aimed = True
                if not aimed:
                    st.aims[seat, n, 0] = row
                    st.aims[seat, n, 1] = space
                    st.aims[seat, n, 2] = st.plan_generation[row, space]
                    return


@jit
def plan_player(t, st, seat):
    """``plan_player``: the round's totals, then one draw per ON slot on the seat's stream, and the aims."""
    rnd = st.round - 1
    for index in range(N_RESOURCE_TYPES):
        st.card_resources[seat, index] += st.pending_resources[seat, index]
        st.pending_resources[seat, index] = 0
        st.totals[seat, index] = t.seat_base_totals[seat, rnd, index] + st.card_resources[seat, index]
    n = 0
    st.next_action[seat] = 0
    if not t.seat_passive[seat]:
        total = t.seat_weight_total[seat]
        for slot in range(N_SLOTS):
            if not st.slot_on[seat, slot]:
                continue
            pick = below(st, seat_stream(seat), total)
            # the kind whose share of 0 .. total - 1 holds the pick: the number of kinds whose running weight
            # it reaches, summed without a branch on it (a loop that stops at the kind drawn is
            # mispredicted about as often as not)
            kind = 0
            reached = 0
            for k in range(len(ACTION_KINDS) - 1):  # the pick is below the total: it never reaches the last
                reached += t.seat_weights[seat, k]
                kind += np.int64(pick >= reached)
            # the reference appends the kind before choosing the aim, but its zip stops at the shorter
            # aims list: only the n earlier actions count
            st.plan[seat, n] = kind
            choose_aim(t, st, seat, n, kind)
            n += 1
    st.plan_len[seat] = n
    st.passed[seat] = 1 if n == 0 else 0


@jit
def count_blocked_majorities(t, st):
    """``count_blocked_majorities``: after every Luna planned, each type a scripted total is below hers."""
    if t.n_luna == 0 or t.n_luna == t.n_seats:  # no Luna to block, or no scripted seat to count
        return
    luna_majority_values(t, st)
    for seat in range(t.n_seats):
        if t.seat_level[seat] < 0:
            for index in range(N_RESOURCE_TYPES):
                if st.totals[seat, index] < st.luna_values[index]:
                    st.blocked[seat, index] += 1


# ---------------------------------------------------------------- its actions

@jit
def player_invest(t, st, seat, steps):
    """``player_invest``: the most valuable company's track; a barrier it cannot pay in full stops it."""
    advance_track(t, st, seat, st.order[0], steps)


@jit
def player_expand(t, st, seat, steps, general):
    """``player_expand``: outposts of its biggest holding in the lowest vacant reachable sector, never ousting."""
    if steps <= 0:
        return
    # scanning in value order and replacing only on strictly more shares keeps ties on the more valuable
    company = -1
    best = -1
    for i in range(N_COMPANIES):
        candidate = st.order[i]
        shares = st.track_pos[seat, candidate] + st.card_shares[seat, candidate]
        if shares > best:
            company, best = candidate, shares
    # int * float in float64, then floor: Python's math.floor(steps * x) exactly
    outposts = max(1, math.floor(steps * t.expand_outposts_per_step))
    if general is not None:  # None: the Moon only (luna.py's module docstring)
        if t.board_belt:
            player_expand_belt(t, st, seat, company, outposts)
            return
    for _ in range(outposts):
        column = take_column(t, st, company)
        free = reachable(t, st, company) & ~occupied(st)
        if column < 0 or free == 0:
            return
        place_outpost(t, st, seat, company, column, lowest_sector(free))
        st.cash[seat] += t.sector_reward


@jit
def player_research_action(t, st, seat, steps, row, space, generation):
    """``player_research_action``: the aimed plan (a lost plan when a Luna removed it), then the track."""
    if row >= 0:
        if (st.luna_discarded[row, space] >> generation) & 1:
            st.plans_lost[seat] += 1
            steps = max(0, steps - t.plan_lost_research_penalty)
        if st.plan_rows[row, space]:
            st.plan_rows[row, space] = 0
            refill_plan_row(st, row)
    move_marker(t, st, seat, UPLOAD, steps)


@jit
def player_buy(t, st, seat, aimed):
    """``player_buy``: the aimed card if still shown and affordable, else the best affordable card."""
    if aimed != NO_CARD:
        shown = False
        for space in range(DISPLAY_SPACES):
            if st.display[space] == aimed:
                shown = True
        if not shown and is_luna(t, st.card_holder[aimed]):
            st.cards_lost[seat] += 1
    # The reference tries the aimed card's space, then every space best first; the first affordable one
    # wins. The aimed card is tried twice when unaffordable, which changes nothing, so: the aimed card
    # when affordable, else the best-ranked affordable card.
    cash = st.cash[seat]
    best = -1
    best_place, best_resources = N_COMPANIES + 1, 0
    aimed_space = -1
    for space in range(DISPLAY_SPACES):  # selects, not branches, as in choose_aim
        card = st.display[space]
        affordable = (card != NO_CARD) & (t.action_price[max(card, 0)] <= cash)
        aimed_space = space if affordable & (card == aimed) else aimed_space
        place, resources = display_key(t, st, card)
        wins = affordable & sorts_before(place, resources, best_place, best_resources)
        best = space if wins else best
        best_place = place if wins else best_place
        best_resources = resources if wins else best_resources
    if aimed_space >= 0:
        best = aimed_space
    if best < 0:
        return
    card = st.display[best]
    st.cash[seat] -= t.action_price[card]
    take_display_card(t, st, seat, best)
    for index in range(N_RESOURCE_TYPES):
        st.pending_resources[seat, index] += t.action_resources[card, index]


@jit
def player_bonus(t, st, seat):
    """``player_bonus``: a majority space its totals allow, else the scientist space, else a standard space."""
    if st.markers[seat] == 0:
        return
    luna_majority_values(t, st)
    placed = False
    for index in range(SCIENTISTS):  # titanium..minerals: their spaces are the top row of bonus spaces
        if st.bonus_owner[index] == NOBODY and st.totals[seat, index] >= st.luna_values[index]:
            st.bonus_owner[index] = seat
            st.cash[seat] += t.majority_bonus_reward
            placed = True
            break
    if not placed:
        if st.scientist_owner == NOBODY and st.totals[seat, SCIENTISTS] >= st.luna_values[SCIENTISTS]:
            st.scientist_owner = seat
            st.cash[seat] += t.scientist_bonus_reward
        else:
            # open_to_it: spaces free or held by a Luna, in preference order; its first one held by a Luna
            # is a lost space; the first free one is taken
            first_open = -1
            first_free = -1
            for k in range(N_STANDARD_BONUS):
                cell = t.bonus_preference[k]
                owner = st.bonus_owner[cell]
                if owner == NOBODY:
                    if first_open < 0:
                        first_open = cell
                    first_free = cell
                    break
                if first_open < 0 and is_luna(t, owner):
                    first_open = cell
            if first_open >= 0 and st.bonus_owner[first_open] != NOBODY:
                st.bonus_spaces_lost[seat] += 1
            if first_free < 0:
                return
            st.bonus_owner[first_free] = seat
            st.cash[seat] += t.standard_bonus_reward[first_free]
    st.markers[seat] -= 1
    st.markers_placed[seat] += 1


@jit
def player_turn(t, st, seat, general):
    """``player_turn``: its next planned action, with the action strength every action consumes (``general``:
    ``luna.py``'s module docstring)."""
    i = st.next_action[seat]
    kind = st.plan[seat, i]
    st.next_action[seat] = i + 1
    if i + 1 >= st.plan_len[seat]:
        st.passed[seat] = 1
    # reference.action_strength: int * float + float, floor, remainder, in the same float64 operations
    raw = t.seat_steps[seat, st.round - 1] * t.seat_strength[seat] + st.carry[seat]
    steps = math.floor(raw)
    st.carry[seat] = raw - steps
    if kind == INVEST:
        player_invest(t, st, seat, steps)
    elif kind == EXPAND:
        player_expand(t, st, seat, steps, general)
    elif kind == HELIUM:
        move_marker(t, st, seat, TANK, steps)
    elif kind == RESEARCH:
        player_research_action(t, st, seat, steps, st.aims[seat, i, 0], st.aims[seat, i, 1], st.aims[seat, i, 2])
    elif kind == BUY_CARD:
        player_buy(t, st, seat, st.aims[seat, i, 0])
    else:
        player_bonus(t, st, seat)
