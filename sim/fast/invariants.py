"""Invariants of a numba game state, checked inside the kernel (``simulate --check-invariants``).

The checks mirror ``sim/invariants.py`` (the reference engine's checker) on the state record, and add
the end-of-game one: each seat's total is the sum of its seven scoring categories. They only read the
record, so a game played with them is the same game, number for number. A check never raises: the
first broken invariant comes back as ``(check, seat, round)``, ``check`` an index into
:data:`CHECK_NAMES` (``NONE`` when all hold), ``seat`` -1 for a board-wide check, ``round`` the
state's round (0 after setup); the driver in ``sim/fast/kernel.py`` turns it into
``sim.violation.InvariantError``.

What the record cannot show is not checked: Luna's unfired tokens are not state in this engine (a
level table flag per space, fired when the marker steps on it), so the reference's token check has no
counterpart here; the company order and value caches are the board module's business, and the
reference has no such caches to compare with — so they get a check of their own, last: each cached
mask, value, vacant count and the value order is recomputed from scratch and compared (a stale cache
plays wrong games that the exactness tests would only catch on the configurations they play).

On the Belt side (``--board belt``, SPEC section 7) the outposts on asteroids count among each
company's, and the reference's Belt checks follow the board's: no Moon sector used, no target over its
capacity, placers only with a piece, shuttles conserved. In a Moon game the Belt fields are never set
up (they stay zero), so they are not checked there.

Fields are read through the small readers below, so a change of representation elsewhere (the board's
sector masks, Luna's piles) is adapted in one place.
"""

from __future__ import annotations

import numpy as np

from sim.constants import (
    BELT_MAX_OUTPOST_SPACES,
    BONUS_COLUMNS,
    BONUS_SPACES,
    DISPLAY_SPACES,
    N_COMPANIES,
    N_SLOTS,
    SPECIAL_FACE_DOWN,
    SPECIAL_REMOVED,
)
from sim.fast._jit import jit
from sim.fast.board import reach_of, sorts_before, station_totals
from sim.fast.state import (
    C_SCORE_CASH,
    C_SCORE_COMPANY,
    C_SCORE_HELIUM,
    C_SCORE_RESEARCH,
    C_SCORE_TOTAL,
    DECK,
    DISCARD,
    N_ROWS,
    N_SIDES,
    NO_CARD,
    NOBODY,
    STACK,
)
from sim.tables import MAX_BELT_TARGETS, MAX_CARDS, MAX_COLUMN_SIZE

# What each check requires, by index; a report names the check by this text.
CHECK_NAMES = (
    "none",
    "cash never negative",
    "company track markers within 0..track spaces",
    "helium marker within 0..tank_max",
    "research marker within 0..research_max",
    "Luna's cards conserved (each card of her level once in deck, grade-2 stack, slots, majority slots, discard)",
    "no grade-1 card in the grade-2 stack",
    "a card only in an ON slot",
    "slots A and E stay OFF at a level without switches",
    "a slot's first round is a round played with the slot ON",
    "grade-2 counters add up to the cards that left the stack",
    "bonus markers conserved (reserve + board = allowance)",
    "no Luna marker on a majority bonus space",
    "a bonus space holds a marker of a seat at the table or none",
    "station vacancies within 0..column size",
    "outposts conserved (station + board = columns x column size per company; on the Belt, its asteroids' outposts)",
    "no sector over capacity (one outpost, of a known company, on a sector of the board; owner masks agree)",
    "an outpost's placer is a seat and only recorded with an outpost",
    "action cards conserved (each once among display, deck and the seats' cards)",
    "research row decks within 0..row deck",
    "special plans flipped in order",
    "score total = sum of the 7 categories (cash, helium, research, 4 companies)",
    # the Belt side (SPEC section 7), checked in Belt games only: the reference's _check_belt
    "no Moon sector used in a Belt game",
    "no Belt target over capacity (pieces of known companies, only on the targets' slots)",
    "a Belt piece's placer is a seat and only recorded with a piece",
    "shuttles conserved (Belt + shuttle column = shuttles per company)",
    # the numba engine's own caches, which the reference recomputes every time and so cannot disagree
    "engine caches agree with the board (occupied and reach masks, company values, value order)",
)
(NONE, CASH, TRACK, HELIUM, RESEARCH, LUNA_CARDS, GRADE1_IN_STACK, CARD_IN_OFF_SLOT, SWITCHED_SLOT_ON,
 SLOT_FIRST_ROUND, GRADE2_COUNTERS, BONUS_MARKERS, LUNA_ON_MAJORITY_SPACE, BONUS_OWNER, STATION_VACANCY,
 OUTPOSTS, SECTOR, PLACER, ACTION_CARDS, PLAN_DECKS, SPECIAL_PLANS, SCORE,
 BELT_MOON_SECTOR, BELT_TARGET, BELT_PLACER, BELT_SHUTTLES, CACHES) = range(len(CHECK_NAMES))

_ONE = np.uint64(1)
_SLOT_A, _SLOT_E = 0, N_SLOTS - 1  # the switched slots (sim.constants.SWITCHED_SLOTS)

# ---------------------------------------------------------------- readers of the record


@jit
def _pile(st, seat, pile, index):
    """Card ``index`` (from the bottom) of Luna's pile ``pile``."""
    return st.piles[seat, pile, index]


@jit
def _pile_len(st, seat, pile):
    return st.pile_len[seat, pile]


@jit
def _sector_company(st, sector):
    """Company whose outpost is on ``sector`` (1-based), or -1."""
    return st.sector_owner[sector]


@jit
def _company_mask(st, company):
    """Sector mask (sector s is bit s - 1) of ``company``'s outposts."""
    return st.owned[company]


@jit
def _vacant(st, company, column):
    """Vacant home spaces of ``company``'s station column ``column``."""
    return st.vacant[company, column]


@jit
def _placer(st, sector):
    return st.placer[sector]


@jit
def _belt_piece(st, target, slot):
    """Company of the piece on slot ``slot`` of Belt target ``target`` (1-based), or -1."""
    return st.belt_owner[target, slot]


@jit
def _belt_placer(st, target, slot):
    return st.belt_placer[target, slot]


@jit
def _shuttles_left(st, company):
    """Shuttles in ``company``'s shuttle column."""
    return st.shuttles_left[company]


@jit
def _is_asteroid(t, target):
    """Whether Belt target ``target`` (1-based) is an asteroid (outposts) rather than a shuttle space."""
    return (t.belt_asteroid >> np.uint64(target - 1)) & _ONE != 0


@jit
def _belt_outposts(t, st, company):
    """``company``'s outposts on the Belt's asteroids (0 on the Moon), counted over every slot of the record
    as the reference counts whole slot lists: a piece beyond a target's capacity is its own check's."""
    if not t.board_belt:
        return 0
    count = 0
    for target in range(1, t.belt_count + 1):
        if _is_asteroid(t, target):
            for slot in range(BELT_MAX_OUTPOST_SPACES):
                if _belt_piece(st, target, slot) == company:
                    count += 1
    return count


@jit
def _bonus_markers_on_board(st, seat, scientist):
    """Markers of ``seat`` on the bonus spaces (and on the scientist space when ``scientist``)."""
    count = 0
    for cell in range(BONUS_SPACES):
        if st.bonus_owner[cell] == seat:
            count += 1
    if scientist and st.scientist_owner == seat:
        count += 1
    return count


# ---------------------------------------------------------------- one seat


@jit
def _card_bit(card):
    """Bit ``card`` of a card mask (MAX_CARDS = 64: one uint64), or 0 for no card index."""
    if card < 0 or card >= MAX_CARDS:
        return np.uint64(0)
    return _ONE << np.uint64(card)


@jit
def _card_mask(t, level):
    """Bit c set for each card c of ``level``: the grade-1 cards, plus the grade-2 ones if the level uses them."""
    mask = np.uint64(0)
    for k in range(t.n_grade1):
        mask |= _card_bit(t.grade1[k])
    if t.level_grade2[level]:
        for k in range(t.n_grade2):
            mask |= _card_bit(t.grade2[k])
    return mask


@jit
def _check_luna_cards(t, st, seat, level):
    """Each card of her level exactly once across her piles and slots, and only grade-2 cards in the stack."""
    seen = np.uint64(0)
    for pile in (DECK, STACK, DISCARD):
        length = _pile_len(st, seat, pile)
        if length < 0 or length > MAX_CARDS:
            return LUNA_CARDS
        for index in range(length):
            bit = _card_bit(_pile(st, seat, pile, index))
            if bit == 0 or seen & bit:
                return LUNA_CARDS
            seen |= bit
    for slot in range(N_SLOTS):
        bit = _card_bit(st.slots[seat, slot])
        if st.slots[seat, slot] != NO_CARD and (bit == 0 or seen & bit):
            return LUNA_CARDS
        seen |= bit
    for side in range(N_SIDES):
        bit = _card_bit(st.majority[seat, side])
        if st.majority[seat, side] != NO_CARD and (bit == 0 or seen & bit):
            return LUNA_CARDS
        seen |= bit
    if seen != _card_mask(t, level):
        return LUNA_CARDS
    grade2 = np.uint64(0)
    for k in range(t.n_grade2):
        grade2 |= _card_bit(t.grade2[k])
    for index in range(_pile_len(st, seat, STACK)):
        if not grade2 & _card_bit(_pile(st, seat, STACK, index)):
            return GRADE1_IN_STACK
    return NONE


@jit
def _check_luna(t, st, seat, level):
    """The Luna seat's cards, slots, grade-2 counters, tracks and bonus markers."""
    check = _check_luna_cards(t, st, seat, level)
    if check != NONE:
        return check
    for slot in range(N_SLOTS):
        if st.slots[seat, slot] != NO_CARD and not st.slot_on[seat, slot]:
            return CARD_IN_OFF_SLOT
    if not t.level_switches[level] and (st.slot_on[seat, _SLOT_A] or st.slot_on[seat, _SLOT_E]):
        return SWITCHED_SLOT_ON
    for slot in range(N_SLOTS):
        first = st.slot_first_round[seat, slot]
        if first != 0 and (not st.slot_on[seat, slot] or first < 1 or first > st.round):
            return SLOT_FIRST_ROUND
    stack_size = t.n_grade2 if t.level_grade2[level] else 0
    if st.grade2_by_reshuffle[seat] + st.grade2_by_token[seat] != stack_size - _pile_len(st, seat, STACK):
        return GRADE2_COUNTERS
    if st.helium[seat] < 0 or st.helium[seat] > t.tank_max:
        return HELIUM
    if st.research[seat] < 0 or st.research[seat] > t.research_max:
        return RESEARCH
    markers = st.markers[seat]
    if markers < 0 or markers + _bonus_markers_on_board(st, seat, False) != t.bonus_markers:
        return BONUS_MARKERS
    for cell in range(BONUS_COLUMNS):  # the top row: the majority bonus spaces
        if st.bonus_owner[cell] == seat:
            return LUNA_ON_MAJORITY_SPACE
    return NONE


@jit
def _check_seat(t, st, seat):
    """Every check of one seat; its first broken one, or NONE."""
    if st.cash[seat] < 0:
        return CASH
    for company in range(N_COMPANIES):
        position = st.track_pos[seat, company]
        if position < 0 or position > t.track_spaces:
            return TRACK
    level = t.seat_level[seat]
    if level >= 0:
        return _check_luna(t, st, seat, level)
    if st.helium[seat] < 0 or st.helium[seat] > t.tank_max:
        return HELIUM
    if st.research[seat] < 0 or st.research[seat] > t.research_max:
        return RESEARCH
    markers = st.markers[seat]
    if markers < 0 or markers + _bonus_markers_on_board(st, seat, True) != t.player_markers:
        return BONUS_MARKERS
    return NONE


# ---------------------------------------------------------------- the board


@jit
def _check_outposts(t, st):
    """Station vacancies, outposts per company, one outpost per sector of the board, placers."""
    per_company = t.n_columns * t.column_size
    for company in range(N_COMPANIES):
        in_station = per_company
        for column in range(t.n_columns):
            vacant = _vacant(st, company, column)
            if vacant < 0 or vacant > t.column_size or vacant > MAX_COLUMN_SIZE:
                return STATION_VACANCY
            in_station -= vacant
        on_board = _belt_outposts(t, st, company)
        for sector in range(1, t.n_sectors + 1):
            if _sector_company(st, sector) == company:
                on_board += 1
        if on_board + in_station != per_company:
            return OUTPOSTS
    if _sector_company(st, 0) != NOBODY:  # sectors are numbered from 1
        return SECTOR
    seen = np.uint64(0)
    for company in range(N_COMPANIES):
        mask = _company_mask(st, company)
        if mask & seen:  # two companies' outposts on one sector
            return SECTOR
        seen |= mask
    for sector in range(1, t.n_sectors + 1):
        company = _sector_company(st, sector)
        if company < NOBODY or company >= N_COMPANIES:
            return SECTOR
        bit = _ONE << np.uint64(sector - 1)
        for other in range(N_COMPANIES):
            if ((_company_mask(st, other) & bit) != 0) != (other == company):
                return SECTOR
        placer = _placer(st, sector)
        if placer != NOBODY and (company == NOBODY or placer < 0 or placer >= t.n_seats):
            return PLACER
    if t.n_sectors < 64 and seen >> np.uint64(t.n_sectors) != 0:  # an outpost beyond the last sector
        return SECTOR
    return NONE


@jit
def _check_belt(t, st):
    """A Belt game: no Moon sector used, pieces only on the targets' slots (at most capacity each, of known
    companies), placers only with a piece, shuttles conserved. Mirrors the reference's ``_check_belt``."""
    for sector in range(1, t.n_sectors + 1):
        if _sector_company(st, sector) != NOBODY:
            return BELT_MOON_SECTOR
    for target in range(MAX_BELT_TARGETS + 1):
        on_belt = 1 <= target <= t.belt_count
        for slot in range(BELT_MAX_OUTPOST_SPACES):
            company = _belt_piece(st, target, slot)
            placer = _belt_placer(st, target, slot)
            if not (on_belt and slot < t.belt_capacity[target]):
                if company != NOBODY or placer != NOBODY:  # target 0, beyond the Belt or beyond a capacity
                    return BELT_TARGET
            elif company < NOBODY or company >= N_COMPANIES:
                return BELT_TARGET
    for target in range(1, t.belt_count + 1):
        for slot in range(t.belt_capacity[target]):
            placer = _belt_placer(st, target, slot)
            if placer != NOBODY and (_belt_piece(st, target, slot) == NOBODY or placer < 0 or placer >= t.n_seats):
                return BELT_PLACER
    for company in range(N_COMPANIES):
        on_belt = 0
        for target in range(1, t.belt_count + 1):
            if not _is_asteroid(t, target):
                for slot in range(t.belt_capacity[target]):
                    if _belt_piece(st, target, slot) == company:
                        on_belt += 1
        left = _shuttles_left(st, company)
        if left < 0 or on_belt + left != t.belt_shuttles:
            return BELT_SHUTTLES
    return NONE


@jit
def _check_action_cards(t, st):
    """Each action card exactly once among the display, the deck and the seats' collected cards."""
    if st.action_deck_len < 0 or st.action_deck_len > t.n_action_cards:
        return ACTION_CARDS
    places = np.zeros(t.n_action_cards, np.int64)  # only with the checks on: a small allocation per check
    for space in range(DISPLAY_SPACES):
        card = st.display[space]
        if ((st.display_empty >> np.uint64(space)) & np.uint64(1) == 1) != (card == NO_CARD):
            return ACTION_CARDS  # the empty spaces' mask disagrees with the display
        if card != NO_CARD:
            if card < 0 or card >= t.n_action_cards:
                return ACTION_CARDS
            places[card] += 1
    for index in range(st.action_deck_len):
        card = st.action_deck[index]
        if card < 0 or card >= t.n_action_cards:
            return ACTION_CARDS
        places[card] += 1
    for card in range(t.n_action_cards):
        holder = st.card_holder[card]
        if holder != NOBODY:
            if holder < 0 or holder >= t.n_seats:
                return ACTION_CARDS
            places[card] += 1
        if places[card] != 1:
            return ACTION_CARDS
    return NONE


@jit
def _check_board(t, st):
    """Every board-wide check; the first broken one, or NONE."""
    for cell in range(BONUS_SPACES):
        owner = st.bonus_owner[cell]
        if owner != NOBODY and (owner < 0 or owner >= t.n_seats):
            return BONUS_OWNER
    owner = st.scientist_owner
    if owner != NOBODY and (owner < 0 or owner >= t.n_seats):
        return BONUS_OWNER
    check = _check_outposts(t, st)
    if check != NONE:
        return check
    if t.board_belt:
        check = _check_belt(t, st)
        if check != NONE:
            return check
    check = _check_action_cards(t, st)
    if check != NONE:
        return check
    for row in range(N_ROWS):
        if st.plan_decks[row] < 0 or st.plan_decks[row] > t.row_deck:
            return PLAN_DECKS
    flipped = st.specials_flipped
    if flipped < 0 or flipped > t.n_special:
        return SPECIAL_PLANS
    for plan in range(t.n_special):
        status = st.special[plan]
        if status < SPECIAL_FACE_DOWN or status > SPECIAL_REMOVED or (status == SPECIAL_FACE_DOWN) != (plan >= flipped):
            return SPECIAL_PLANS
    return _check_caches(t, st)


@jit
def _check_caches(t, st):
    """The board module's incremental caches against a recomputation from the state they summarise."""
    occupied = np.uint64(0)
    for company in range(N_COMPANIES):
        occupied |= _company_mask(st, company)
        if st.reach[company] != reach_of(t, st, company):
            return CACHES
        value, vacant = station_totals(t, st, company)
        if st.value[company] != value or st.vacant_sum[company] != vacant:
            return CACHES
    if st.occupied != occupied:
        return CACHES
    if st.order_dirty == 0:  # sorted since setup: every company at its rank, in the reference's order
        for i in range(N_COMPANIES):
            if st.rank[st.order[i]] != i or (i > 0 and sorts_before(t, st, st.order[i], st.order[i - 1])):
                return CACHES
    return NONE


# ---------------------------------------------------------------- the entry points


@jit
def check_state(t, st):
    """The first broken invariant of a game state, between rounds or after setup.

    Parameters
    ----------
    t : TABLES_DTYPE record
        The compiled data and configuration (``sim.tables.compile_tables``).
    st : STATE_DTYPE record
        The game state (``sim.fast.state``); only read.

    Returns
    -------
    (int64, int64, int64)
        ``(check, seat, round)``: ``check`` indexes :data:`CHECK_NAMES` (``NONE``: every invariant
        holds), ``seat`` is -1 for a board-wide check, ``round`` is ``st.round`` (0 after setup).
        Seats are checked in order before the board.
    """
    for seat in range(t.n_seats):
        check = _check_seat(t, st, seat)
        if check != NONE:
            return np.int64(check), np.int64(seat), np.int64(st.round)
    return np.int64(_check_board(t, st)), np.int64(NOBODY), np.int64(st.round)


@jit
def check_scores(t, st):
    """After ``final_scores``: each seat's total equals the sum of its seven scoring categories.

    Parameters and returns as :func:`check_state`; reads the record's ``result`` rows.
    """
    for seat in range(t.n_seats):
        row = st.result[seat]
        total = row[C_SCORE_CASH] + row[C_SCORE_HELIUM] + row[C_SCORE_RESEARCH]
        for company in range(N_COMPANIES):
            total += row[C_SCORE_COMPANY + company]
        if row[C_SCORE_TOTAL] != total:
            return np.int64(SCORE), np.int64(seat), np.int64(st.round)
    return np.int64(NONE), np.int64(NOBODY), np.int64(st.round)
