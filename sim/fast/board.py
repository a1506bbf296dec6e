"""The shared board: companies and their tracks, expansion, the display, research plans, bonus spaces.

Each kernel mirrors the ``sim/reference/board.py`` function named in its docstring; where the two read
differently the comment says why they agree.

Small kernels called for every card are ``@jit(inline="always")`` (here and in ``sim/fast/luna.py``):
numba calls one jitted function from another through a real call (status code, spilled registers),
which LLVM inlines only within its budget (``sim/fast/_jit.py``, "Inlining"); numba's own inlining
makes sure of these, for ~2 s more of the cold compile.
"""

from __future__ import annotations

import numpy as np

from sim.constants import DISPLAY_SPACES, N_COMPANIES, RESEARCH_ROW_SPACES, SPECIAL_FACE_UP, SPECIAL_REMOVED
from sim.fast._jit import jit
from sim.fast.bits import highest_sector, lowest_sector, sector_bit
from sim.fast.rng import U1
from sim.fast.state import NO_CARD, NOBODY

_NO_MARGIN = np.iinfo(np.int64).min  # below any lead margin or vacant count: the first candidate always wins

# ---------------------------------------------------------------- companies


@jit
def reach_of(t, st, company):
    """``reachable_sectors`` as a sector mask, from scratch: the station's contacts and the neighbours of
    its outposts (``st.reach`` keeps it; this recomputes it when an outpost leaves)."""
    mask = t.touches_mask[company]
    mine = st.owned[company]
    while mine != 0:
        mask |= t.adjacent_mask[lowest_sector(mine)]
        mine &= mine - U1
    return mask


@jit(inline="always")
def set_owner(t, st, sector, company):
    """``sector_owner[sector] = company`` (company -1 vacates), keeping the owner, occupied and reach
    masks in step: a new outpost adds its neighbours to its company's reach; an outpost that leaves
    has its company's reach recomputed (an ousting, a few times a game)."""
    bit = sector_bit(sector)
    previous = st.sector_owner[sector]
    st.sector_owner[sector] = company
    if previous >= 0:
        st.owned[previous] &= ~bit
        st.reach[previous] = reach_of(t, st, previous)
    if company >= 0:
        st.owned[company] |= bit
        st.reach[company] |= t.adjacent_mask[sector]
        st.occupied |= bit
    else:
        st.occupied &= ~bit


@jit
def occupied(st):
    """Sector mask of every outpost on the board."""
    return st.occupied


@jit
def column_coins(t, vacant):
    """``column_coins``: ``sum(coin_icons[:vacant])``, with Python's slice semantics for any ``vacant``."""
    size = t.column_size
    if vacant >= size:
        return t.coin_prefix[size]
    if vacant >= 0:
        return t.coin_prefix[vacant]
    if vacant >= -size:
        return t.coin_prefix[size + vacant]
    return 0


@jit
def station_totals(t, st, company):
    """The company's value and vacant-space count, recomputed from its station columns (``station_add``
    keeps ``st.value`` and ``st.vacant_sum`` current; this is what they must equal)."""
    value = 0
    total = 0
    for c in range(t.n_columns):
        vacant = st.vacant[company, c]
        value += column_coins(t, vacant)
        total += vacant
    return value, total


@jit(inline="always")
def station_add(t, st, company, column, delta):
    """Put ``delta`` outposts back into (negative: take them from) a station column, keeping the
    company's value, vacant-space count and place in the value order current."""
    old = st.vacant[company, column]
    new = old - delta
    st.vacant[company, column] = new
    st.value[company] += column_coins(t, new) - column_coins(t, old)
    st.vacant_sum[company] -= delta
    if st.order_dirty == 0:
        reorder(t, st, company)


@jit(inline="always")
def sorts_before(t, st, company, other):
    """``company`` comes strictly before ``other`` in ``companies_by_value``: the reference's key
    (-value, -vacant spaces, track id), a total order (companies use distinct track letters)."""
    if st.value[company] != st.value[other]:
        return st.value[company] > st.value[other]
    if st.vacant_sum[company] != st.vacant_sum[other]:
        return st.vacant_sum[company] > st.vacant_sum[other]
    return t.side_rank[st.track_side[company]] < t.side_rank[st.track_side[other]]


@jit
def reorder(t, st, company):
    """Move one company whose key changed to its place in the otherwise sorted ``order`` (and ``rank``)."""
    i = st.rank[company]
    while i > 0 and sorts_before(t, st, company, st.order[i - 1]):
        other = st.order[i - 1]
        st.order[i] = other
        st.rank[other] = i
        i -= 1
    while i < N_COMPANIES - 1 and sorts_before(t, st, st.order[i + 1], company):
        other = st.order[i + 1]
        st.order[i] = other
        st.rank[other] = i
        i += 1
    st.order[i] = company
    st.rank[company] = i


@jit
def ensure_order(t, st):
    """Sort the companies by value from scratch if ``order_dirty`` (``companies_by_value``).

    Called once a game, when the tracks' sides are drawn (a state built from parts calls it too); from
    then on :func:`station_add` keeps the order sorted, so the rules read ``order`` and ``rank`` as they are.
    """
    if st.order_dirty == 0:
        return
    st.order_dirty = 0
    for company in range(N_COMPANIES):
        st.order[company] = company
    # any correct sort gives the same result: the key is a total order
    for i in range(1, N_COMPANIES):
        company = st.order[i]
        j = i
        while j > 0 and sorts_before(t, st, company, st.order[j - 1]):
            st.order[j] = st.order[j - 1]
            j -= 1
        st.order[j] = company
    for i in range(N_COMPANIES):
        st.rank[st.order[i]] = i


@jit(inline="always")
def lead_margins(t, st, seat):
    """``lead_margins``: her marker minus the best other marker (others stand on 0 or beyond)."""
    for company in range(N_COMPANIES):
        best = 0
        for other in range(t.n_seats):
            if other != seat and st.track_pos[other, company] > best:
                best = st.track_pos[other, company]
        st.margin[company] = st.track_pos[seat, company] - best


@jit
def select_companies(t, st, seat, by_lead, first, count):
    """``select_companies``: fill ``chosen`` with ``count`` companies from position ``first`` of a ranking."""
    if by_lead:
        lead_margins(t, st, seat)
        # the ranking is order stably sorted by largest margin (ties to the more valuable company); only its
        # first `first + count` places are needed, so they are picked one at a time, without a sorted copy
        # (selects, not branches: which company wins is what a game decides at random, so a branch on it is
        # mispredicted about as often as not)
        taken = 0
        n = 0
        for place in range(min(first + count, N_COMPANIES)):
            best = 0
            best_margin = _NO_MARGIN
            for i in range(N_COMPANIES):
                margin = st.margin[st.order[i]]
                wins = (((taken >> i) & 1) == 0) & (margin > best_margin)  # the first strictly larger: ties to i
                best = i if wins else best
                best_margin = margin if wins else best_margin
            taken |= 1 << best
            if place >= first:
                st.chosen[n] = st.order[best]
                n += 1
        st.n_chosen = n
        return
    n = 0
    for i in range(first, min(first + count, N_COMPANIES)):
        st.chosen[n] = st.order[i]
        n += 1
    st.n_chosen = n


# ---------------------------------------------------------------- company tracks

@jit(inline="always")
def advance_track(t, st, seat, company, steps):
    """``advance_track``: Luna pays what she can at a barrier, a scripted seat stops unless it pays in full.

    Luna moves in one step: the passage's pair of ``sim.tables.track_passages`` for the spaces on the track,
    then the steps past its end (a loop whose length is the card's count, left at a random place, cost a
    mispredicted branch about every other card)."""
    side = st.track_side[company]
    if t.seat_level[seat] < 0:
        for _ in range(steps):
            position = st.track_pos[seat, company]
            if position >= t.track_spaces:
                st.cash[seat] += t.past_end
                continue
            price = t.barrier_price[side, position]
            if price > st.cash[seat]:
                break
            st.cash[seat] += t.threshold_reward[side, position] - price
            st.track_pos[seat, company] = position + 1
        return
    steps = max(steps, 0)
    position = st.track_pos[seat, company]
    end = max(min(position + steps, t.track_spaces), position)
    cash = st.cash[seat]
    passed = max(cash - t.track_cost[side, position, end], 0) + t.track_gain[side, position, end]
    st.cash[seat] = (passed if end > position else cash) + t.past_end * (steps - (end - position))
    st.track_pos[seat, company] = end


# ---------------------------------------------------------------- expansion

@jit(inline="always")
def take_column(t, st, company):
    """``take_column``: most vacant column whose final space is occupied, ties to the logo; -1 if none."""
    best = -1
    most = _NO_MARGIN
    for column in range(t.n_columns):
        vacant = st.vacant[company, column]
        wins = (vacant < t.column_size) & (vacant > most)  # selects, not branches (see select_companies)
        best = column if wins else best
        most = vacant if wins else most
    return best


@jit
def return_column(t, st, company):
    """``return_column``: the take column if it has a vacant home space; otherwise, among all columns,
    most vacant, then fewest coin icons, then closest to the logo."""
    column = take_column(t, st, company)
    if column >= 0 and st.vacant[company, column] > 0:
        return column
    best = 0
    for column in range(1, t.n_columns):
        vacant, held = st.vacant[company, column], st.vacant[company, best]
        if vacant > held or (vacant == held and column_coins(t, vacant) < column_coins(t, held)):
            best = column
    return best


@jit
def reachable(t, st, company):
    """``reachable_sectors`` as a sector mask: the station's contacts and the neighbours of its outposts."""
    return st.reach[company]


@jit
def place_outpost(t, st, seat, company, column, target):
    """An outpost of ``company`` from station ``column`` into sector ``target``, placed by ``seat``."""
    station_add(t, st, company, column, -1)
    set_owner(t, st, target, company)
    st.placer[target] = seat
    st.outposts_placed[seat] += 1


@jit
def order_chosen_for_expansion(st):
    """``expand_order[:n]`` = the ``n`` chosen companies, less valuable first (by ``rank``); returns ``n``."""
    n = st.n_chosen
    for i in range(n):
        company = st.chosen[i]
        j = i
        while j > 0 and st.rank[st.expand_order[j - 1]] < st.rank[company]:
            st.expand_order[j] = st.expand_order[j - 1]
            j -= 1
        st.expand_order[j] = company
    return n


@jit
def expand_company(t, st, seat, points, lowest):
    """``expand_company`` for the companies in ``chosen``: less valuable first, ``points`` outposts each."""
    n = order_chosen_for_expansion(st)
    for i in range(n):
        company = st.expand_order[i]
        for _ in range(points):
            column = take_column(t, st, company)
            if column < 0:
                break  # no outpost left to place: the remaining points are forfeited
            within = reachable(t, st, company)
            free = within & ~occupied(st)
            if free != 0:
                target = lowest_sector(free) if lowest else highest_sector(free)
            else:
                # every reachable sector is held: oust the rival she is farthest behind (smallest margin,
                # ties to the more valuable company)
                lead_margins(t, st, seat)
                victim = -1
                for rival in range(N_COMPANIES):
                    if rival == company or (st.owned[rival] & within) == 0:
                        continue
                    if victim < 0 or st.margin[rival] < st.margin[victim] or (
                            st.margin[rival] == st.margin[victim] and st.rank[rival] < st.rank[victim]):
                        victim = rival
                if victim < 0:
                    break
                held = within & st.owned[victim]
                target = lowest_sector(held) if lowest else highest_sector(held)
                station_add(t, st, victim, return_column(t, st, victim), 1)
                st.ousted[seat] += 1
                placer = st.placer[target]
                if placer != NOBODY and t.seat_level[placer] < 0:
                    st.outposts_ousted_by_luna[placer] += 1
            place_outpost(t, st, seat, company, column, target)


# ---------------------------------------------------------------- the display

@jit
def refill_display(st):
    """``refill_display``: each empty space, in order, from the top of the action-card deck."""
    # the empty spaces' mask (a few bits at most) rather than the twelve spaces: fewer steps, fewer branches
    empty = st.display_empty
    n = st.action_deck_len
    while empty != 0 and n > 0:
        n -= 1
        st.display[lowest_sector(empty) - 1] = st.action_deck[n]
        empty &= empty - U1
    st.action_deck_len = n
    st.display_empty = empty  # the spaces an empty deck left empty


@jit(inline="always")
def take_display_card(t, st, seat, space):
    """``take_display_card``: the card (if any) goes to the seat, with its extra share."""
    card = st.display[space]
    if card != NO_CARD:
        st.cards_gained[seat] += 1
        st.card_holder[card] = seat
        share = t.action_share[card]
        if share >= 0:
            st.card_shares[seat, share] += 1
        st.display[space] = NO_CARD
        st.display_empty |= U1 << np.uint64(space)


@jit
def gain_cards(t, st, seat, cells):
    """``gain_card`` with a matrix: the display spaces of the set bits of ``cells``, in space order."""
    bits = np.uint64(cells)  # visits the set bits only: a matrix has a few of its twelve cells
    while bits != 0:
        take_display_card(t, st, seat, lowest_sector(bits) - 1)
        bits &= bits - U1


@jit
def gain_most_valuable_share(t, st, seat):
    """``gain_card`` with ``most_valuable_share``: lowest space showing a share of the best company shown."""
    # one pass: the space whose share has the best rank, the lowest such space (a strict win replaces)
    # (selects, not branches: what the display shows is the game's chance)
    best_space = -1
    best_rank = N_COMPANIES
    for space in range(DISPLAY_SPACES):
        card = st.display[space]
        share = t.action_share[max(card, 0)]
        # a space without a share ranks N_COMPANIES behind every company: arithmetic, not a select of a load,
        # which LLVM would turn back into a branch
        shown = np.int64((card != NO_CARD) & (share >= 0))
        rank = st.rank[max(share, 0)] + (1 - shown) * 2 * N_COMPANIES
        wins = rank < best_rank
        best_space = space if wins else best_space
        best_rank = rank if wins else best_rank
    if best_space >= 0:
        take_display_card(t, st, seat, best_space)


# ---------------------------------------------------------------- research plans

@jit(inline="always")
def refill_plan_row(st, row):
    """``refill_plan_row``: each empty space of the row, in order, from the row's deck."""
    for space in range(RESEARCH_ROW_SPACES):
        if st.plan_rows[row, space] == 0 and st.plan_decks[row] > 0:
            st.plan_rows[row, space] = 1
            st.plan_decks[row] -= 1
            st.plan_generation[row, space] += 1


@jit
def discard_plans(st, seat, row, cells):
    """``discard_research_plan`` with a matrix: the plans on the set bits of ``cells``, then the refill."""
    bits = np.uint64(cells)
    while bits != 0:
        space = lowest_sector(bits) - 1
        bits &= bits - U1
        if st.plan_rows[row, space]:
            st.plan_rows[row, space] = 0
            st.luna_discarded[row, space] |= np.int64(1) << st.plan_generation[row, space]
            st.plans_discarded[seat] += 1
    refill_plan_row(st, row)


@jit
def flip_special_plan(t, st):
    """``flip_special_plan``: the next special plan face up, if any is left."""
    flipped = st.specials_flipped
    if flipped < t.n_special:
        st.special[flipped] = SPECIAL_FACE_UP
        st.specials_flipped = flipped + 1


@jit
def discard_latest_special(t, st, seat):
    """``discard_research_plan`` of the special plans: the latest face-up one is removed."""
    for i in range(t.n_special - 1, -1, -1):
        if st.special[i] == SPECIAL_FACE_UP:
            st.special[i] = SPECIAL_REMOVED
            st.plans_discarded[seat] += 1
            return


# ---------------------------------------------------------------- bonus spaces

@jit
def place_bonus_markers(st, seat, cells):
    """``place_bonus_marker``: a marker on each free space of the set bits of ``cells`` while she has one."""
    bits = np.uint64(cells)
    while bits != 0 and st.markers[seat] > 0:
        space = lowest_sector(bits) - 1
        bits &= bits - U1
        if st.bonus_owner[space] == NOBODY:
            st.bonus_owner[space] = seat
            st.markers[seat] -= 1
            st.markers_placed[seat] += 1
