"""The numba engine: the reference engine's rules compiled to machine code, bit for bit the same results.

``play_chunk_numba`` is the only public name. It validates and flattens the data once per call
(:func:`sim.tables.build_tables`), preallocates the output columns, and hands both to a jitted kernel
that plays the games. Each kernel function below mirrors the reference function of the same name
(``sim/reference.py``); where the two read differently the comment says why they agree.

Exactness rests on four things:

* every game draws from its own SplitMix64 streams, derived from (seed, game index, stream id) as in
  ``sim/rng.py``, with wrapping ``uint64`` arithmetic (every operand is cast to ``uint64``: numba
  promotes ``uint64 op int64`` to float64), so no result depends on chunking or thread count;
* the kernels draw in the reference's order and count (setup order in ``reference.setup_game``,
  Fisher-Yates from the last index, discard-pile rebuild order, swap-remove token pool);
* the reference's Python idioms are reproduced where they matter (slices, ``dict.get``, sort keys on
  track id strings, ``list[-1]`` indexing), as noted at each place;
* a scripted seat's only float arithmetic, its action strength (``steps * strength + carry``, floored,
  the fraction carried) and an expand's ``floor(steps * expand_outposts_per_step)``, is done in float64
  with the reference's operations in the reference's order and no fastmath, which rounds exactly as
  Python's floats do; its per-round totals ``floor(resources * strength)`` come precomputed from Python.

Game state is one numpy record of ``STATE_DTYPE`` (structure of arrays: each field a typed, fixed-shape
array documented in ``STATE_FIELDS``), allocated once per block of games inside the kernel and reset
by :func:`_setup` at the start of each game: no global state, no allocation in the per-game loop.
Records rather than separate arrays because numba passes a record by reference, while it
reference-counts every array at every call it is passed to (that cost more than the game itself).

Layers: ``play_chunk_numba`` (Python: validate, build tables, allocate columns) -> ``_play_games`` or
``_play_games_parallel`` (the prange over blocks of games) -> ``_play_block`` (one state record, games
in order, copies each game's rows into the columns) -> ``_play_one`` (one game) -> the rules.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numba
import numpy as np

from sim.columns import ROUND_NUMERIC, SEAT_NUMERIC
from sim.config import GameConfig
from sim.constants import ACTION_KINDS
from sim.gamedata import GameData
from sim.tables import (
    MAX_ACTION_CARDS,
    MAX_CARDS,
    MAX_COLUMNS,
    MAX_LETTERS,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_SECTORS,
    MAX_SPECIAL_PLANS,
    MAX_TOKENS,
    OP_ADVANCE_COMPANY,
    OP_ADVANCE_RESEARCH,
    OP_DISCARD_PLAN_MATCH,
    OP_DISCARD_SPECIAL,
    OP_EXPAND_COMPANY,
    OP_GAIN_CARD_MATCH,
    OP_GAIN_CARD_SHARE,
    OP_GAIN_COIN,
    OP_GAIN_HELIUM,
    OP_PLACE_BONUS_MARKER,
    OP_SLOT_CELLS,
    REVEAL_HELIUM,
    REVEAL_RESEARCH,
    build_tables,
)

if TYPE_CHECKING:
    from sim.run import Chunk

# Numba options, set here once for every kernel. cache: compiled code is reused across processes;
# nogil: callers may run chunks in threads; error_model="numpy" and no boundscheck: the tables are
# validated in Python, so the kernels need no Python-style checks. The parallel variant only adds
# ``parallel=True`` for the outer prange over blocks of games.
_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy", "boundscheck": False}
_jit = functools.partial(numba.njit, **_OPTIONS)
_jit_parallel = functools.partial(numba.njit, parallel=True, **_OPTIONS)

# Games played with one allocation of scratch state; also the unit of work of the parallel loop.
BLOCK_GAMES = 256

NO_CARD = -1
NOBODY = -1
DECK, STACK, DISCARD = 0, 1, 2  # Luna's piles (GameState.piles)

# Output layout. Kernels freeze these indices at compile time, and numba's cache only watches this
# file, so the column order is spelled out here and checked against sim/columns.py at import.
_INT_COLUMNS = (
    "game", "seat", "score_total", "score_cash", "score_helium", "score_research",
    "score_astrogo", "score_tawac", "score_skymine", "score_minerva",
    "shares_astrogo", "shares_tawac", "shares_skymine", "shares_minerva",
    "value_astrogo", "value_tawac", "value_skymine", "value_minerva",
    "helium", "research", "cash", "cards_gained", "bonus_markers_placed", "plans_discarded",
    "outposts_placed", "ousted", "reshuffles", "grade2_entered", "grade2_by_reshuffle", "grade2_by_token",
    "slot_a_first_round", "slot_e_first_round",
    "blocked_titanium", "blocked_carbon", "blocked_energy", "blocked_minerals", "blocked_scientists",
    "bonus_spaces_lost", "cards_lost", "plans_lost", "outposts_ousted_by_luna", "rank",
)
_ROUND_COLUMNS = (
    "game", "seat", "round", "card_a", "card_b", "card_c", "card_d", "card_e",
    "majority_titanium", "majority_carbon", "majority_energy", "majority_minerals", "majority_scientists",
    "reshuffles", "grade2_entered", "grade2_by_reshuffle", "grade2_by_token", "deck_size_start",
    "helium", "research", "cash",
)
if _INT_COLUMNS != ("game", "seat", *SEAT_NUMERIC[:-1]) or SEAT_NUMERIC[-1] != "won" or _ROUND_COLUMNS != ROUND_NUMERIC:
    raise ImportError("sim/fast.py: the output columns no longer match sim/columns.py; update this file's copy")
C_GAME, C_SEAT, C_SCORE_TOTAL, C_SCORE_CASH, C_SCORE_HELIUM, C_SCORE_RESEARCH = 0, 1, 2, 3, 4, 5
C_SCORE_COMPANY, C_SHARES, C_VALUE = 6, 10, 14  # first of four columns each
C_HELIUM, C_RESEARCH, C_CASH, C_CARDS, C_MARKERS, C_PLANS, C_OUTPOSTS, C_OUSTED = 18, 19, 20, 21, 22, 23, 24, 25
C_RESHUFFLES, C_GRADE2, C_GRADE2_RESHUFFLE, C_GRADE2_TOKEN, C_SLOT_A, C_SLOT_E = 26, 27, 28, 29, 30, 31
C_BLOCKED = 32  # first of five columns, titanium..scientists
C_BONUS_LOST, C_CARDS_LOST, C_PLANS_LOST, C_OUSTED_BY_LUNA, C_RANK = 37, 38, 39, 40, 41
R_GAME, R_SEAT, R_ROUND, R_CARDS, R_MAJORITY = 0, 1, 2, 3, 8  # cards and majorities: first of five columns
R_RESHUFFLES, R_GRADE2, R_GRADE2_RESHUFFLE, R_GRADE2_TOKEN, R_DECK_SIZE = 13, 14, 15, 16, 17
R_HELIUM, R_RESEARCH, R_CASH = 18, 19, 20

# Scripted players' action kinds, indices into gamedata.ACTION_KINDS (frozen at compile time like the rest).
INVEST, EXPAND, HELIUM, RESEARCH, BUY_CARD, BONUS = 0, 1, 2, 3, 4, 5
if ACTION_KINDS != ("invest", "expand", "helium", "research", "buy_card", "bonus"):
    raise ImportError("sim/fast.py: gamedata.ACTION_KINDS changed; update the action-kind constants")

# The kernels freeze the encoding constants imported from sim/tables.py at compile time, and numba's
# cache only watches this file: a change there must fail here rather than run stale cached code.
if (OP_GAIN_COIN, OP_GAIN_HELIUM, OP_ADVANCE_RESEARCH, OP_ADVANCE_COMPANY, OP_EXPAND_COMPANY, OP_GAIN_CARD_MATCH,
        OP_GAIN_CARD_SHARE, OP_DISCARD_PLAN_MATCH, OP_DISCARD_SPECIAL, OP_PLACE_BONUS_MARKER, OP_SLOT_CELLS,
        REVEAL_HELIUM, REVEAL_RESEARCH) != (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 1, 2):
    raise ImportError("sim/fast.py: the opcode encoding in sim/tables.py changed; update this check")

# ---------------------------------------------------------------- SplitMix64 (sim/rng.py)

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_U1, _U27, _U30, _U31, _U32 = np.uint64(1), np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)
MASK64 = (1 << 64) - 1


@_jit
def _mix64(z):
    z = (z ^ (z >> _U30)) * _MIX_1
    z = (z ^ (z >> _U27)) * _MIX_2
    return z ^ (z >> _U31)


@_jit
def _game_state(seed, game):
    """The part of ``rng.stream_state`` shared by all streams of one game (``seed``, ``game``: uint64)."""
    return _mix64((_mix64(seed + _GAMMA) ^ game) + _GAMMA)


@_jit
def _below(st, stream, n):
    """``Stream.below(n)`` on stream ``stream`` of the game state ``st``."""
    state = st.rng[stream] + _GAMMA
    st.rng[stream] = state
    return np.int64(((_mix64(state) >> _U32) * np.uint64(n)) >> _U32)


@_jit
def _shuffle_pile(st, seat, pile, start, n):
    """``Stream.shuffle`` of ``piles[seat, pile, start:start + n]`` with the seat's stream."""
    for i in range(n - 1, 0, -1):
        j = start + _below(st, 1 + seat, i + 1)
        card = st.piles[seat, pile, start + i]
        st.piles[seat, pile, start + i] = st.piles[seat, pile, j]
        st.piles[seat, pile, j] = card


# ---------------------------------------------------------------- state

# One table's state, as (name, dtype, shape, meaning). Luna-only fields are indexed by seat and unused
# for a scripted seat, scripted-only fields likewise for a Luna seat; fields both kinds of seat use
# (cash, markers, helium, research, slot_on, passed, the shared counters) mean the same for both.
# Capacities (MAX_*) are those of sim/tables.py.
STATE_FIELDS = [
    ("rng", np.uint64, (1 + MAX_SEATS,), "stream states: 0 = board, 1 + seat = that seat"),
    ("round", np.int64, (), "current round, 1-based"),
    ("track_side", np.int64, (4,), "side index (tables side_of_letter) of each company's track"),
    ("track_pos", np.int64, (MAX_SEATS, 4), "share marker of each seat on each company track"),
    ("sector_owner", np.int64, (MAX_SECTORS + 1,), "company with an outpost in the sector, or -1 (0 unused)"),
    ("owned", np.uint64, (4,), "sector mask of each company's outposts (the same facts as sector_owner)"),
    ("vacant", np.int64, (4, MAX_COLUMNS), "vacant home spaces of each station column"),
    ("value", np.int64, (4,), "company value (visible coin icons)"),
    ("vacant_sum", np.int64, (4,), "vacant home spaces of each company"),
    ("order_dirty", np.int64, (), "1 when a station changed since order/rank were sorted"),
    ("order", np.int64, (4,), "companies, most valuable first (companies_by_value)"),
    ("rank", np.int64, (4,), "position of each company in order"),
    ("margin", np.int64, (4,), "scratch: lead margins of the seat acting"),
    ("lead_order", np.int64, (4,), "scratch: companies by lead margin"),
    ("chosen", np.int64, (4,), "companies chosen by the current card's last advance_company"),
    ("n_chosen", np.int64, (), "entries of chosen in use"),
    ("expand_order", np.int64, (4,), "scratch: chosen, less valuable first"),
    ("action_deck", np.int64, (MAX_ACTION_CARDS,), "action-card deck, top last"),
    ("action_deck_len", np.int64, (), "cards in the action-card deck"),
    ("display", np.int64, (12,), "action card on each display space, or -1"),
    ("plan_rows", np.int8, (3, 4), "a research plan lies on row A/B/C, space 0-3"),
    ("plan_decks", np.int64, (3,), "plans left in each row's deck"),
    ("plan_generation", np.int64, (3, 4), "refills of each research space (tells a player its aimed plan went)"),
    ("luna_discarded", np.int64, (3, 4), "bit g set: a Luna discarded the plan of generation g from that space"),
    ("special", np.int8, (MAX_SPECIAL_PLANS,), "special plan 0 face down, 1 face up, 2 removed"),
    ("specials_flipped", np.int64, (), "special plans flipped so far (in index order)"),
    ("bonus_owner", np.int64, (12,), "seat whose marker is on bonus space row * 4 + column, or -1"),
    ("scientist_owner", np.int64, (), "seat whose marker is on the scientist majority space, or -1"),
    ("card_holder", np.int64, (MAX_ACTION_CARDS,), "seat that took each action card, or -1"),
    ("placer", np.int64, (MAX_SECTORS + 1,), "seat that placed the outpost in each sector, or -1 (0 unused)"),
    ("luna_values", np.int64, (5,), "scratch: luna_majority_values, titanium..scientists"),
    ("pool", np.int64, (MAX_TOKENS,), "scratch: starting-token pool"),
    ("letters", np.int64, (MAX_LETTERS,), "scratch: track letters (sorted) in shuffled order"),
    ("cash", np.int64, (MAX_SEATS,), "CrypCoin"),
    ("cards_gained", np.int64, (MAX_SEATS,), "action cards collected"),
    ("card_shares", np.int64, (MAX_SEATS, 4), "extra shares on collected action cards, per company"),
    ("piles", np.int64, (MAX_SEATS, 3, MAX_CARDS), "Luna's DECK, grade-2 STACK and DISCARD pile, top last"),
    ("pile_len", np.int64, (MAX_SEATS, 3), "cards in each pile"),
    ("slots", np.int64, (MAX_SEATS, 5), "card in action slot A-E, or -1"),
    ("slot_on", np.int8, (MAX_SEATS, 5), "slot A-E switched ON"),
    ("majority", np.int64, (MAX_SEATS, 2), "card in the left/right majority slot, or -1"),
    ("markers", np.int64, (MAX_SEATS,), "bonus markers in reserve"),
    ("helium", np.int64, (MAX_SEATS,), "tank marker"),
    ("research", np.int64, (MAX_SEATS,), "upload marker"),
    ("next_slot", np.int64, (MAX_SEATS,), "slot whose card she flips next (5 = done for the round)"),
    ("passed", np.int8, (MAX_SEATS,), "passed for the round (a scripted seat: plan done; a passive seat: always)"),
    ("reshuffles", np.int64, (MAX_SEATS,), "counters reported per game, as in the reference's LunaState"),
    ("grade2_by_reshuffle", np.int64, (MAX_SEATS,), ""),
    ("grade2_by_token", np.int64, (MAX_SEATS,), ""),
    ("markers_placed", np.int64, (MAX_SEATS,), ""),
    ("plans_discarded", np.int64, (MAX_SEATS,), ""),
    ("outposts_placed", np.int64, (MAX_SEATS,), ""),
    ("ousted", np.int64, (MAX_SEATS,), ""),
    ("slot_first_round", np.int64, (MAX_SEATS, 5), "round each slot was first used, 0 = never"),
    # scripted seats (reference.PlayerState)
    ("carry", np.float64, (MAX_SEATS,), "fraction of action strength carried to the next action (whole game)"),
    ("totals", np.int64, (MAX_SEATS, 5), "this round's majority totals, by type"),
    ("card_resources", np.int64, (MAX_SEATS, 5), "resources of cards bought before this round"),
    ("pending_resources", np.int64, (MAX_SEATS, 5), "resources of cards bought this round"),
    ("plan", np.int64, (MAX_SEATS, 5), "this round's action kinds (INVEST..BONUS), in slot order"),
    ("plan_len", np.int64, (MAX_SEATS,), "entries of plan in use"),
    ("next_action", np.int64, (MAX_SEATS,), "index into plan of its next action"),
    ("aims", np.int64, (MAX_SEATS, 5, 3), "per planned action: (card, -1, 0), (row, space, generation) or (-1, -1, 0)"),
    ("blocked", np.int64, (MAX_SEATS, 5), "rounds each majority type was blocked by Luna"),
    ("bonus_spaces_lost", np.int64, (MAX_SEATS,), "counters reported per game, as in reference.PlayerState"),
    ("cards_lost", np.int64, (MAX_SEATS,), ""),
    ("plans_lost", np.int64, (MAX_SEATS,), ""),
    ("outposts_ousted_by_luna", np.int64, (MAX_SEATS,), ""),
    ("round_start", np.int64, (MAX_SEATS, 4), "detail scratch: deck size, reshuffles, grade-2 counters"),
    ("round_rows", np.int64, (MAX_SEATS, MAX_ROUNDS, len(_ROUND_COLUMNS)), "detail: k-th Luna seat, round, column"),
    ("result", np.int64, (MAX_SEATS, len(_INT_COLUMNS)), "the game's per-seat output row"),
    ("won", np.float64, (MAX_SEATS,), "the game's win shares"),
]
STATE_DTYPE = np.dtype([(name, dtype, shape) for name, dtype, shape, _ in STATE_FIELDS], align=True)


# ---------------------------------------------------------------- sector masks

# De Bruijn bit scan: the index of a single set bit in a 64-bit word from one multiply and a lookup.
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DE_BRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _DE_BRUIJN_INDEX[((1 << _bit) * 0x03F79D71B4CB0A89 & MASK64) >> 58] = _bit
_U58 = np.uint64(58)


@_jit
def _lowest_sector(mask):
    """Lowest sector number in a non-empty sector mask."""
    return _DE_BRUIJN_INDEX[((mask & (~mask + _U1)) * _DE_BRUIJN) >> _U58] + 1


@_jit
def _highest_sector(mask):
    """Highest sector number in a non-empty sector mask."""
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    return _DE_BRUIJN_INDEX[((mask ^ (mask >> _U1)) * _DE_BRUIJN) >> _U58] + 1


@_jit
def _set_owner(st, sector, company):
    """``sector_owner[sector] = company`` (company -1 vacates), keeping the owner masks in step."""
    bit = _U1 << np.uint64(sector - 1)
    previous = st.sector_owner[sector]
    if previous >= 0:
        st.owned[previous] &= ~bit
    st.sector_owner[sector] = company
    if company >= 0:
        st.owned[company] |= bit


# ---------------------------------------------------------------- companies

@_jit
def _column_coins(t, vacant):
    """``reference.column_coins``: ``sum(coin_icons[:vacant])``, with Python's slice semantics for any ``vacant``."""
    size = t.column_size
    if vacant >= size:
        return t.coin_prefix[size]
    if vacant >= 0:
        return t.coin_prefix[vacant]
    if vacant >= -size:
        return t.coin_prefix[size + vacant]
    return 0


@_jit
def _station_add(t, st, company, column, delta):
    """Put ``delta`` outposts back into (negative: take them from) a station column, keeping the
    company's value and vacant-space count current."""
    st.vacant[company, column] -= delta
    value = 0
    total = 0
    for c in range(t.n_columns):
        vacant = st.vacant[company, c]
        value += _column_coins(t, vacant)
        total += vacant
    st.value[company] = value
    st.vacant_sum[company] = total
    st.order_dirty = 1


@_jit
def _ensure_order(t, st):
    """Sort the companies by value again if a station changed (``companies_by_value``)."""
    if st.order_dirty == 0:
        return
    st.order_dirty = 0
    for company in range(4):
        st.order[company] = company
    # Insertion sort on the reference's key (-value, -vacant spaces, track id); the key is a total
    # order (companies use distinct track letters), so any correct sort gives the same result.
    for i in range(1, 4):
        company = st.order[i]
        key_side = t.side_rank[st.track_side[company]]
        j = i
        while j > 0:
            other = st.order[j - 1]
            if st.value[company] != st.value[other]:
                before = st.value[company] > st.value[other]
            elif st.vacant_sum[company] != st.vacant_sum[other]:
                before = st.vacant_sum[company] > st.vacant_sum[other]
            else:
                before = key_side < t.side_rank[st.track_side[other]]
            if not before:
                break
            st.order[j] = other
            j -= 1
        st.order[j] = company
    for i in range(4):
        st.rank[st.order[i]] = i


@_jit
def _lead_margins(t, st, seat):
    """``lead_margins``: her marker minus the best other marker (others stand on 0 or beyond)."""
    for company in range(4):
        best = 0
        for other in range(t.n_seats):
            if other != seat and st.track_pos[other, company] > best:
                best = st.track_pos[other, company]
        st.margin[company] = st.track_pos[seat, company] - best


@_jit
def _select_companies(t, st, seat, by_lead, first, count):
    """``select_companies``: fill ``chosen`` with ``count`` companies from position ``first`` of a ranking."""
    _ensure_order(t, st)
    if by_lead:
        _lead_margins(t, st, seat)
        # largest margin first, ties to the more valuable company
        for i in range(4):
            st.lead_order[i] = st.order[i]
        for i in range(1, 4):
            company = st.lead_order[i]
            j = i
            while j > 0 and st.margin[st.lead_order[j - 1]] < st.margin[company]:
                st.lead_order[j] = st.lead_order[j - 1]
                j -= 1
            st.lead_order[j] = company
        ranking = st.lead_order
    else:
        ranking = st.order
    n = 0
    for i in range(first, min(first + count, 4)):
        st.chosen[n] = ranking[i]
        n += 1
    st.n_chosen = n


@_jit
def _advance_track(t, st, seat, company, steps):
    """``advance_track``: Luna pays what she can at a barrier, a scripted seat stops unless it pays in full."""
    side = st.track_side[company]
    scripted = t.seat_level[seat] < 0
    for _ in range(steps):
        position = st.track_pos[seat, company]
        if position >= t.track_spaces:
            st.cash[seat] += t.past_end
            continue
        price = t.barrier_price[side, position]
        if scripted and price > st.cash[seat]:
            break
        st.cash[seat] -= min(price, st.cash[seat])
        st.cash[seat] += t.threshold_reward[side, position]
        st.track_pos[seat, company] = position + 1


@_jit
def _take_column(t, st, company):
    """``take_column``: most vacant column whose final space is occupied, ties to the logo; -1 if none."""
    best = -1
    for column in range(t.n_columns):
        vacant = st.vacant[company, column]
        if vacant < t.column_size and (best < 0 or vacant > st.vacant[company, best]):
            best = column
    return best


@_jit
def _return_column(t, st, company):
    """``return_column``: the take column if it has a vacant home space; otherwise, among all columns,
    most vacant, then fewest coin icons, then closest to the logo."""
    column = _take_column(t, st, company)
    if column >= 0 and st.vacant[company, column] > 0:
        return column
    best = 0
    for column in range(1, t.n_columns):
        vacant, held = st.vacant[company, column], st.vacant[company, best]
        if vacant > held or (vacant == held and _column_coins(t, vacant) < _column_coins(t, held)):
            best = column
    return best


@_jit
def _reachable(t, st, company):
    """``reachable_sectors`` as a sector mask: the station's contacts and the neighbours of its outposts."""
    reachable = t.touches_mask[company]
    mine = st.owned[company]
    while mine != 0:
        reachable |= t.adjacent_mask[_lowest_sector(mine)]
        mine &= mine - _U1
    return reachable


@_jit
def _expand_company(t, st, seat, points, lowest):
    """``expand_company`` for the companies in ``chosen``: less valuable first, ``points`` outposts each."""
    _ensure_order(t, st)
    n = st.n_chosen
    for i in range(n):
        company = st.chosen[i]
        j = i
        while j > 0 and st.rank[st.expand_order[j - 1]] < st.rank[company]:
            st.expand_order[j] = st.expand_order[j - 1]
            j -= 1
        st.expand_order[j] = company
    for i in range(n):
        company = st.expand_order[i]
        for _ in range(points):
            column = _take_column(t, st, company)
            if column < 0:
                break  # no outpost left to place: the remaining points are forfeited
            reachable = _reachable(t, st, company)
            occupied = st.owned[0] | st.owned[1] | st.owned[2] | st.owned[3]
            free = reachable & ~occupied
            if free != 0:
                target = _lowest_sector(free) if lowest else _highest_sector(free)
            else:
                # every reachable sector is held: oust the rival she is farthest behind (smallest margin,
                # ties to the more valuable company)
                _lead_margins(t, st, seat)
                _ensure_order(t, st)
                victim = -1
                for rival in range(4):
                    if rival == company or (st.owned[rival] & reachable) == 0:
                        continue
                    if victim < 0 or st.margin[rival] < st.margin[victim] or (
                            st.margin[rival] == st.margin[victim] and st.rank[rival] < st.rank[victim]):
                        victim = rival
                if victim < 0:
                    break
                held = reachable & st.owned[victim]
                target = _lowest_sector(held) if lowest else _highest_sector(held)
                _station_add(t, st, victim, _return_column(t, st, victim), 1)
                st.ousted[seat] += 1
                placer = st.placer[target]
                if placer != NOBODY and t.seat_level[placer] < 0:
                    st.outposts_ousted_by_luna[placer] += 1
            _station_add(t, st, company, column, -1)
            _set_owner(st, target, company)
            st.placer[target] = seat
            st.outposts_placed[seat] += 1


# ---------------------------------------------------------------- Luna's deck and tracks

@_jit
def _draw_luna_card(t, st, seat):
    """``draw_luna_card``: top card; an empty deck is rebuilt from the discard pile plus one grade-2 card."""
    if st.pile_len[seat, DECK] == 0:
        if st.pile_len[seat, DISCARD] == 0 and st.pile_len[seat, STACK] == 0:
            return NO_CARD
        n = st.pile_len[seat, DISCARD]
        for i in range(n):
            st.piles[seat, DECK, i] = st.piles[seat, DISCARD, i]
        st.pile_len[seat, DISCARD] = 0
        if t.level_grade2[t.seat_level[seat]] and st.pile_len[seat, STACK] > 0:
            st.pile_len[seat, STACK] -= 1
            st.piles[seat, DECK, n] = st.piles[seat, STACK, st.pile_len[seat, STACK]]
            n += 1
            st.grade2_by_reshuffle[seat] += 1
        _shuffle_pile(st, seat, DECK, 0, n)
        st.reshuffles[seat] += 1
        st.pile_len[seat, DECK] = n
        if n == 0:
            return NO_CARD
    st.pile_len[seat, DECK] -= 1
    return st.piles[seat, DECK, st.pile_len[seat, DECK]]


@_jit
def _fire_token(st, seat):
    """``fire_token``: one grade-2 card face down on top of her deck, if the stack has one."""
    if st.pile_len[seat, STACK] > 0:
        st.pile_len[seat, STACK] -= 1
        st.piles[seat, DECK, st.pile_len[seat, DECK]] = st.piles[seat, STACK, st.pile_len[seat, STACK]]
        st.pile_len[seat, DECK] += 1
        st.grade2_by_token[seat] += 1


@_jit
def _gain_helium(t, st, seat, steps):
    level = t.seat_level[seat]
    switches = t.level_switches[level]
    for _ in range(steps):
        if st.helium[seat] >= t.tank_max:
            st.cash[seat] += t.past_end
            continue
        st.helium[seat] += 1
        helium = st.helium[seat]
        if switches and helium == t.tank_switch_at:
            st.slot_on[seat, 0] = 1
        if t.level_helium_token[level, helium]:
            _fire_token(st, seat)


@_jit
def _advance_research(t, st, seat, steps):
    level = t.seat_level[seat]
    switches = t.level_switches[level]
    for _ in range(steps):
        if st.research[seat] >= t.research_max:
            st.cash[seat] += t.past_end
            continue
        st.research[seat] += 1
        research = st.research[seat]
        if switches and research == t.research_switch_at:
            st.slot_on[seat, 4] = 1
        if t.level_research_token[level, research]:
            _fire_token(st, seat)


# ---------------------------------------------------------------- display, research, bonus spaces

@_jit
def _refill_display(st):
    for space in range(12):
        if st.display[space] == NO_CARD and st.action_deck_len > 0:
            st.action_deck_len -= 1
            st.display[space] = st.action_deck[st.action_deck_len]


@_jit
def _refill_plan_row(st, row):
    for space in range(4):
        if st.plan_rows[row, space] == 0 and st.plan_decks[row] > 0:
            st.plan_rows[row, space] = 1
            st.plan_decks[row] -= 1
            st.plan_generation[row, space] += 1


@_jit
def _flip_special_plan(t, st):
    flipped = st.specials_flipped
    if flipped < t.n_special:
        st.special[flipped] = 1
        st.specials_flipped = flipped + 1


@_jit
def _take_display_card(t, st, seat, space):
    card = st.display[space]
    if card != NO_CARD:
        st.cards_gained[seat] += 1
        st.card_holder[card] = seat
        share = t.action_share[card]
        if share >= 0:
            st.card_shares[seat, share] += 1
        st.display[space] = NO_CARD


@_jit
def _gain_most_valuable_share(t, st, seat):
    """``gain_card`` with ``most_valuable_share``: lowest space showing a share of the best company shown."""
    shown = 0
    for space in range(12):
        card = st.display[space]
        if card != NO_CARD and t.action_share[card] >= 0:
            shown |= 1 << t.action_share[card]
    if shown == 0:
        return
    _ensure_order(t, st)
    best = -1
    for i in range(4):
        if shown & (1 << st.order[i]):
            best = st.order[i]
            break
    for space in range(12):
        card = st.display[space]
        if card != NO_CARD and t.action_share[card] == best:
            _take_display_card(t, st, seat, space)
            return


@_jit
def _discard_latest_special(t, st, seat):
    for i in range(t.n_special - 1, -1, -1):
        if st.special[i] == 1:
            st.special[i] = 2
            st.plans_discarded[seat] += 1
            return


# ---------------------------------------------------------------- a card's actions

@_jit
def _resolve_card(t, st, seat, card, slot):
    """``resolve_card``: the card's opcode rows top to bottom, as played from ``slot``."""
    st.n_chosen = 0
    for op in range(t.card_op_start[card], t.card_op_start[card + 1]):
        code = t.ops[op, 0]
        count = t.ops[op, 1]
        if code == OP_GAIN_COIN:
            st.cash[seat] += count
        elif code == OP_GAIN_HELIUM:
            _gain_helium(t, st, seat, count)
        elif code == OP_ADVANCE_RESEARCH:
            _advance_research(t, st, seat, count)
        elif code == OP_ADVANCE_COMPANY:
            _select_companies(t, st, seat, t.ops[op, 2], t.ops[op, 3], t.ops[op, 4])
            for i in range(st.n_chosen):
                _advance_track(t, st, seat, st.chosen[i], count)
        elif code == OP_EXPAND_COMPANY:
            _expand_company(t, st, seat, count, t.ops[op, 2])
        elif code == OP_GAIN_CARD_MATCH:
            cells = t.ops[op, OP_SLOT_CELLS + slot]
            space = 0
            while cells:
                if cells & 1:
                    _take_display_card(t, st, seat, space)
                cells >>= 1
                space += 1
        elif code == OP_GAIN_CARD_SHARE:
            _gain_most_valuable_share(t, st, seat)
        elif code == OP_DISCARD_PLAN_MATCH:
            row = t.ops[op, 2]
            cells = t.ops[op, OP_SLOT_CELLS + slot]
            space = 0
            while cells:
                if cells & 1 and st.plan_rows[row, space]:
                    st.plan_rows[row, space] = 0
                    st.luna_discarded[row, space] |= np.int64(1) << st.plan_generation[row, space]
                    st.plans_discarded[seat] += 1
                cells >>= 1
                space += 1
            _refill_plan_row(st, row)
        elif code == OP_DISCARD_SPECIAL:
            _discard_latest_special(t, st, seat)
        elif code == OP_PLACE_BONUS_MARKER:
            cells = t.ops[op, OP_SLOT_CELLS + slot]
            space = 0
            while cells:
                if cells & 1 and st.bonus_owner[space] == NOBODY and st.markers[seat] > 0:
                    st.bonus_owner[space] = seat
                    st.markers[seat] -= 1
                    st.markers_placed[seat] += 1
                cells >>= 1
                space += 1


@_jit
def _apply_reveal(t, st, seat, card):
    kind = t.card_reveal[card, 0]
    if kind == REVEAL_HELIUM:
        _gain_helium(t, st, seat, t.card_reveal[card, 1])
    elif kind == REVEAL_RESEARCH:
        _advance_research(t, st, seat, t.card_reveal[card, 1])


# ---------------------------------------------------------------- scripted players (modelled)

@_jit
def _is_luna(t, seat):
    """The seat is a Luna seat (``NOBODY`` is not): ``state.seats[seat].luna is not None``."""
    return seat >= 0 and t.seat_level[seat] >= 0


@_jit
def _luna_majority_values(t, st):
    """``luna_majority_values`` into ``st.luna_values``: per type, the highest value any Luna shows now.

    A missing majority card counts 0, which the running maximum (from 0) may skip."""
    for index in range(5):
        st.luna_values[index] = 0
    for k in range(t.n_luna):
        seat = t.luna_seats[k]
        scientists = 0
        for side in range(2):
            card = st.majority[seat, side]
            if card != NO_CARD:
                st.luna_values[2 * side] = max(st.luna_values[2 * side], t.card_majority[card, 0])
                st.luna_values[2 * side + 1] = max(st.luna_values[2 * side + 1], t.card_majority[card, 1])
                scientists += t.card_majority[card, 2]
        st.luna_values[4] = max(st.luna_values[4], scientists)


@_jit
def _ranks_before(t, st, card, other):
    """``ranked_display_spaces``' key without the space: ``card`` sorts strictly before ``other``.

    Share cards first, by the company's value rank, then the larger resource sum. Callers scan the
    spaces upward and replace their best only on a strict win, which is the key's last part (lower
    space first). ``st.order`` must be current."""
    share, other_share = t.action_share[card], t.action_share[other]
    if (share < 0) != (other_share < 0):
        return share >= 0
    if share >= 0 and st.rank[share] != st.rank[other_share]:
        return st.rank[share] < st.rank[other_share]
    return t.action_resource_sum[card] > t.action_resource_sum[other]


@_jit
def _choose_aim(t, st, seat, n, kind):
    """``choose_aim`` for the seat's ``n``-th planned action, excluding what its earlier actions aim at."""
    st.aims[seat, n, 0] = NO_CARD
    st.aims[seat, n, 1] = -1
    st.aims[seat, n, 2] = 0
    if kind == BUY_CARD:
        _ensure_order(t, st)
        best = -1
        for space in range(12):
            card = st.display[space]
            if card == NO_CARD:
                continue
            aimed = False
            for i in range(n):
                if st.plan[seat, i] == BUY_CARD and st.aims[seat, i, 0] == card:
                    aimed = True
            if not aimed and (best < 0 or _ranks_before(t, st, card, st.display[best])):
                best = space
        if best >= 0:
            st.aims[seat, n, 0] = st.display[best]
    elif kind == RESEARCH:
        for row in range(3):
            for space in range(4):
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


@_jit
def _plan_player(t, st, seat):
    """``plan_player``: the round's totals, then one draw per ON slot on the seat's stream, and the aims."""
    rnd = st.round - 1
    for index in range(5):
        st.card_resources[seat, index] += st.pending_resources[seat, index]
        st.pending_resources[seat, index] = 0
        st.totals[seat, index] = t.seat_base_totals[seat, rnd, index] + st.card_resources[seat, index]
    n = 0
    st.next_action[seat] = 0
    if not t.seat_passive[seat]:
        total = t.seat_weight_total[seat]
        for slot in range(5):
            if not st.slot_on[seat, slot]:
                continue
            pick = _below(st, 1 + seat, total)
            kind = 0
            while pick >= t.seat_weights[seat, kind]:
                pick -= t.seat_weights[seat, kind]
                kind += 1
            # the reference appends the kind before choosing the aim, but its zip stops at the shorter
            # aims list: only the n earlier actions count
            st.plan[seat, n] = kind
            _choose_aim(t, st, seat, n, kind)
            n += 1
    st.plan_len[seat] = n
    st.passed[seat] = 1 if n == 0 else 0


@_jit
def _count_blocked_majorities(t, st):
    """``count_blocked_majorities``: after every Luna planned, each type a scripted total is below hers."""
    if t.n_luna == 0:
        return
    _luna_majority_values(t, st)
    for seat in range(t.n_seats):
        if t.seat_level[seat] < 0:
            for index in range(5):
                if st.totals[seat, index] < st.luna_values[index]:
                    st.blocked[seat, index] += 1


@_jit
def _player_invest(t, st, seat, steps):
    """``player_invest``: the most valuable company's track; a barrier it cannot pay in full stops it."""
    _ensure_order(t, st)
    _advance_track(t, st, seat, st.order[0], steps)


@_jit
def _player_expand(t, st, seat, steps):
    """``player_expand``: outposts of its biggest holding in the lowest vacant reachable sector, never ousting."""
    if steps <= 0:
        return
    _ensure_order(t, st)
    # scanning in value order and replacing only on strictly more shares keeps ties on the more valuable
    company = -1
    best = -1
    for i in range(4):
        candidate = st.order[i]
        shares = st.track_pos[seat, candidate] + st.card_shares[seat, candidate]
        if shares > best:
            company, best = candidate, shares
    # int * float in float64, then floor: Python's math.floor(steps * x) exactly
    outposts = max(1, math.floor(steps * t.expand_outposts_per_step))
    for _ in range(outposts):
        column = _take_column(t, st, company)
        free = _reachable(t, st, company) & ~(st.owned[0] | st.owned[1] | st.owned[2] | st.owned[3])
        if column < 0 or free == 0:
            return
        target = _lowest_sector(free)
        _station_add(t, st, company, column, -1)
        _set_owner(st, target, company)
        st.placer[target] = seat
        st.cash[seat] += t.sector_reward
        st.outposts_placed[seat] += 1


@_jit
def _player_helium(t, st, seat, steps):
    """``player_helium``: no Luna tokens; reaching the switch space turns slot A on (every level alike)."""
    for _ in range(steps):
        if st.helium[seat] >= t.tank_max:
            st.cash[seat] += t.past_end
            continue
        st.helium[seat] += 1
        if st.helium[seat] == t.tank_switch_at:
            st.slot_on[seat, 0] = 1


@_jit
def _player_research(t, st, seat, steps):
    for _ in range(steps):
        if st.research[seat] >= t.research_max:
            st.cash[seat] += t.past_end
            continue
        st.research[seat] += 1
        if st.research[seat] == t.research_switch_at:
            st.slot_on[seat, 4] = 1


@_jit
def _player_research_action(t, st, seat, steps, row, space, generation):
    """``player_research_action``: the aimed plan (a lost plan when a Luna removed it), then the track."""
    if row >= 0:
        if (st.luna_discarded[row, space] >> generation) & 1:
            st.plans_lost[seat] += 1
            steps = max(0, steps - t.plan_lost_research_penalty)
        if st.plan_rows[row, space]:
            st.plan_rows[row, space] = 0
            _refill_plan_row(st, row)
    _player_research(t, st, seat, steps)


@_jit
def _player_buy(t, st, seat, aimed):
    """``player_buy``: the aimed card if still shown and affordable, else the best affordable card."""
    if aimed != NO_CARD:
        shown = False
        for space in range(12):
            if st.display[space] == aimed:
                shown = True
        if not shown and _is_luna(t, st.card_holder[aimed]):
            st.cards_lost[seat] += 1
    # The reference tries the aimed card's space, then every space best first; the first affordable one
    # wins. The aimed card is tried twice when unaffordable, which changes nothing, so: the aimed card
    # when affordable, else the best-ranked affordable card.
    _ensure_order(t, st)
    cash = st.cash[seat]
    best = -1
    for space in range(12):
        card = st.display[space]
        if card == NO_CARD or t.action_price[card] > cash:
            continue
        if card == aimed:
            best = space
            break
        if best < 0 or _ranks_before(t, st, card, st.display[best]):
            best = space
    if best < 0:
        return
    card = st.display[best]
    st.cash[seat] -= t.action_price[card]
    _take_display_card(t, st, seat, best)
    for index in range(5):
        st.pending_resources[seat, index] += t.action_resources[card, index]


@_jit
def _player_bonus(t, st, seat):
    """``player_bonus``: a majority space its totals allow, else the scientist space, else a standard space."""
    if st.markers[seat] == 0:
        return
    _luna_majority_values(t, st)
    placed = False
    for index in range(4):  # the top row of bonus spaces: titanium, carbon, energy, minerals
        if st.bonus_owner[index] == NOBODY and st.totals[seat, index] >= st.luna_values[index]:
            st.bonus_owner[index] = seat
            st.cash[seat] += t.majority_bonus_reward
            placed = True
            break
    if not placed:
        if st.scientist_owner == NOBODY and st.totals[seat, 4] >= st.luna_values[4]:
            st.scientist_owner = seat
            st.cash[seat] += t.scientist_bonus_reward
        else:
            # open_to_it: spaces free or held by a Luna, in preference order; its first one held by a Luna
            # is a lost space; the first free one is taken
            first_open = -1
            first_free = -1
            for k in range(8):
                cell = t.bonus_preference[k]
                owner = st.bonus_owner[cell]
                if owner == NOBODY:
                    if first_open < 0:
                        first_open = cell
                    first_free = cell
                    break
                if first_open < 0 and _is_luna(t, owner):
                    first_open = cell
            if first_open >= 0 and st.bonus_owner[first_open] != NOBODY:
                st.bonus_spaces_lost[seat] += 1
            if first_free < 0:
                return
            st.bonus_owner[first_free] = seat
            st.cash[seat] += t.standard_bonus_reward[first_free]
    st.markers[seat] -= 1
    st.markers_placed[seat] += 1


@_jit
def _player_turn(t, st, seat):
    """``player_turn``: its next planned action, with the action strength every action consumes."""
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
        _player_invest(t, st, seat, steps)
    elif kind == EXPAND:
        _player_expand(t, st, seat, steps)
    elif kind == HELIUM:
        _player_helium(t, st, seat, steps)
    elif kind == RESEARCH:
        _player_research_action(t, st, seat, steps, st.aims[seat, i, 0], st.aims[seat, i, 1], st.aims[seat, i, 2])
    elif kind == BUY_CARD:
        _player_buy(t, st, seat, st.aims[seat, i, 0])
    else:
        _player_bonus(t, st, seat)


# ---------------------------------------------------------------- the round

@_jit
def _plan_luna(t, st, seat):
    """``plan_luna``: a card face down in each ON slot, then the two majority cards and their reveals."""
    for slot in range(5):
        st.slots[seat, slot] = NO_CARD
        if st.slot_on[seat, slot]:
            card = _draw_luna_card(t, st, seat)
            st.slots[seat, slot] = card
            if card != NO_CARD and st.slot_first_round[seat, slot] == 0:
                st.slot_first_round[seat, slot] = st.round
    st.majority[seat, 0] = _draw_luna_card(t, st, seat)
    st.majority[seat, 1] = _draw_luna_card(t, st, seat)
    for side in range(2):
        if st.majority[seat, side] != NO_CARD:
            _apply_reveal(t, st, seat, st.majority[seat, side])
    st.next_slot[seat] = 0
    st.passed[seat] = 0


@_jit
def _end_luna_actions(t, st, seat):
    """``end_luna_actions``: slot cards (A-E order, then shuffled) onto the discard pile; the new top card's
    larger majority value sends that side's majority card to the discard pile."""
    start = st.pile_len[seat, DISCARD]
    n = 0
    for slot in range(5):
        if st.slots[seat, slot] != NO_CARD:
            st.piles[seat, DISCARD, start + n] = st.slots[seat, slot]
            n += 1
        st.slots[seat, slot] = NO_CARD
    # shuffling the cards where they land on the pile draws exactly what shuffling them first would
    _shuffle_pile(st, seat, DISCARD, start, n)
    st.pile_len[seat, DISCARD] = start + n
    if n > 0:
        top = st.piles[seat, DISCARD, start + n - 1]
        left, right = t.card_majority[top, 0], t.card_majority[top, 1]
        side = 0 if left > right else 1 if right > left else -1
        if side >= 0 and st.majority[seat, side] != NO_CARD:
            st.piles[seat, DISCARD, st.pile_len[seat, DISCARD]] = st.majority[seat, side]
            st.pile_len[seat, DISCARD] += 1
            st.majority[seat, side] = NO_CARD
    st.passed[seat] = 1


@_jit
def _luna_turn(t, st, seat):
    """``luna_turn``: flip the leftmost face-down slot card and resolve it; after the rightmost, clean up."""
    slot = st.next_slot[seat]
    while slot < 5 and st.slots[seat, slot] == NO_CARD:
        slot += 1
    if slot < 5:
        _resolve_card(t, st, seat, st.slots[seat, slot], slot)
        slot += 1
        while slot < 5 and st.slots[seat, slot] == NO_CARD:
            slot += 1
    st.next_slot[seat] = slot
    if slot >= 5:
        _end_luna_actions(t, st, seat)


@_jit
def _action_phase(t, st):
    """Turns round the table in seat order, one action a turn, until every seat has passed."""
    while True:
        acted = False
        for seat in range(t.n_seats):
            if not st.passed[seat]:
                if t.seat_level[seat] >= 0:
                    _luna_turn(t, st, seat)
                else:
                    _player_turn(t, st, seat)
                acted = True
        if not acted:
            return


@_jit
def _preparation(t, st):
    """Every seat's bonus markers home (each seat only touches its own), Luna's majority cards to her
    discard pile, display refilled, next special plan."""
    for seat in range(t.n_seats):
        for space in range(12):
            if st.bonus_owner[space] == seat:
                st.bonus_owner[space] = NOBODY
                st.markers[seat] += 1
        if t.seat_level[seat] < 0:
            if st.scientist_owner == seat:
                st.scientist_owner = NOBODY
                st.markers[seat] += 1
            continue
        for side in range(2):
            if st.majority[seat, side] != NO_CARD:
                st.piles[seat, DISCARD, st.pile_len[seat, DISCARD]] = st.majority[seat, side]
                st.pile_len[seat, DISCARD] += 1
                st.majority[seat, side] = NO_CARD
    _refill_display(st)
    _flip_special_plan(t, st)


@_jit
def _play_round(t, st, detail):
    """``play_round``; with ``detail``, the k-th Luna seat's record goes to ``round_rows[k, round - 1]``."""
    st.round += 1
    rnd = st.round
    for seat in range(t.n_seats):  # scripted seats plan first (each on its own stream)
        if t.seat_level[seat] < 0:
            _plan_player(t, st, seat)
    for k in range(t.n_luna):
        seat = t.luna_seats[k]
        if detail:
            st.round_start[seat, 0] = st.pile_len[seat, DECK]
            st.round_start[seat, 1] = st.reshuffles[seat]
            st.round_start[seat, 2] = st.grade2_by_reshuffle[seat]
            st.round_start[seat, 3] = st.grade2_by_token[seat]
        _plan_luna(t, st, seat)
    if detail:
        for k in range(t.n_luna):
            seat = t.luna_seats[k]
            row = st.round_rows[k, rnd - 1]
            row[R_SEAT] = seat
            row[R_ROUND] = rnd
            for slot in range(5):
                row[R_CARDS + slot] = st.slots[seat, slot]
            scientists = 0
            for side in range(2):
                card = st.majority[seat, side]
                if card != NO_CARD:
                    row[R_MAJORITY + 2 * side] = t.card_majority[card, 0]
                    row[R_MAJORITY + 2 * side + 1] = t.card_majority[card, 1]
                    scientists += t.card_majority[card, 2]
                else:
                    row[R_MAJORITY + 2 * side] = 0
                    row[R_MAJORITY + 2 * side + 1] = 0
            row[R_MAJORITY + 4] = scientists
            row[R_DECK_SIZE] = st.round_start[seat, 0]
    _count_blocked_majorities(t, st)
    _action_phase(t, st)
    if detail:
        for k in range(t.n_luna):
            seat = t.luna_seats[k]
            row = st.round_rows[k, rnd - 1]
            by_reshuffle = st.grade2_by_reshuffle[seat] - st.round_start[seat, 2]
            by_token = st.grade2_by_token[seat] - st.round_start[seat, 3]
            row[R_RESHUFFLES] = st.reshuffles[seat] - st.round_start[seat, 1]
            row[R_GRADE2] = by_reshuffle + by_token
            row[R_GRADE2_RESHUFFLE] = by_reshuffle
            row[R_GRADE2_TOKEN] = by_token
            row[R_HELIUM] = st.helium[seat]
            row[R_RESEARCH] = st.research[seat]
            row[R_CASH] = st.cash[seat]
    if rnd < t.rounds:
        _preparation(t, st)


# ---------------------------------------------------------------- setup

@_jit
def _setup(t, st, seed, game):
    """``setup_game`` into ``st`` (every field reset), drawing in the reference's documented order."""
    shared = _game_state(seed, np.uint64(game))
    st.rng[0] = _mix64(shared + _GAMMA)  # stream 0 (board): (shared ^ 0) + G
    for seat in range(t.n_seats):
        st.rng[1 + seat] = _mix64((shared ^ np.uint64(1 + seat)) + _GAMMA)

    # board stream: track letters, sides, action-card deck
    for i in range(t.n_letters):
        st.letters[i] = i
    for i in range(t.n_letters - 1, 0, -1):  # Stream.shuffle
        j = _below(st, 0, i + 1)
        st.letters[i], st.letters[j] = st.letters[j], st.letters[i]
    for company in range(4):
        st.track_side[company] = t.side_of_letter[st.letters[company], _below(st, 0, 2)]
    for i in range(t.n_action_cards):
        st.action_deck[i] = i
    for i in range(t.n_action_cards - 1, 0, -1):  # Stream.shuffle
        j = _below(st, 0, i + 1)
        st.action_deck[i], st.action_deck[j] = st.action_deck[j], st.action_deck[i]
    st.action_deck_len = t.n_action_cards

    st.round = 0
    st.sector_owner[: t.n_sectors + 1] = -1
    st.owned[:] = 0
    st.vacant[:, :] = 0
    st.value[:] = 0  # every coin_prefix[0] is 0
    st.vacant_sum[:] = 0
    st.order_dirty = 1
    st.display[:] = NO_CARD
    st.plan_rows[:, :] = 0
    st.plan_decks[:] = t.row_deck
    st.plan_generation[:, :] = 0
    st.luna_discarded[:, :] = 0
    st.special[: t.n_special] = 0
    st.specials_flipped = 0
    st.bonus_owner[:] = NOBODY
    st.scientist_owner = NOBODY
    st.card_holder[: t.n_action_cards] = NOBODY
    st.placer[: t.n_sectors + 1] = NOBODY
    _refill_display(st)
    for row in range(3):
        _refill_plan_row(st, row)
    for _ in range(t.special_face_up_at_start):
        _flip_special_plan(t, st)
    for company in range(4):
        for k in range(t.setup_count[company]):
            column = _take_column(t, st, company)
            _station_add(t, st, company, column if column >= 0 else t.n_columns - 1, -1)  # -1: the last column
            _set_owner(st, t.setup_sectors[company, k], company)

    for seat in range(t.n_seats):
        st.track_pos[seat, :] = 0
        st.cards_gained[seat] = 0
        st.card_shares[seat, :] = 0
        st.slots[seat, :] = NO_CARD
        st.majority[seat, :] = NO_CARD
        st.slot_first_round[seat, :] = 0
        st.pile_len[seat, DECK] = 0
        st.pile_len[seat, STACK] = 0
        st.pile_len[seat, DISCARD] = 0
        st.markers[seat] = 0
        st.helium[seat] = 0
        st.research[seat] = 0
        st.next_slot[seat] = 0
        st.passed[seat] = 1
        st.reshuffles[seat] = 0
        st.grade2_by_reshuffle[seat] = 0
        st.grade2_by_token[seat] = 0
        st.markers_placed[seat] = 0
        st.plans_discarded[seat] = 0
        st.outposts_placed[seat] = 0
        st.ousted[seat] = 0
        st.carry[seat] = 0.0
        st.totals[seat, :] = 0
        st.card_resources[seat, :] = 0
        st.pending_resources[seat, :] = 0
        st.plan_len[seat] = 0
        st.next_action[seat] = 0
        st.blocked[seat, :] = 0
        st.bonus_spaces_lost[seat] = 0
        st.cards_lost[seat] = 0
        st.plans_lost[seat] = 0
        st.outposts_ousted_by_luna[seat] = 0
        st.cash[seat] = t.seat_start_cash[seat]
        for slot in range(5):
            st.slot_on[seat, slot] = t.initial_slot_on[slot]
        level = t.seat_level[seat]
        if level < 0:
            # a scripted seat: its markers; it passes until its first plan (a passive seat for good)
            st.markers[seat] = t.player_markers
            continue
        n1 = t.n_grade1
        for i in range(n1):
            st.piles[seat, DECK, i] = t.grade1[i]
        _shuffle_pile(st, seat, DECK, 0, n1)
        st.pile_len[seat, DECK] = n1
        if t.level_grade2[level]:
            n2 = t.n_grade2
            for i in range(n2):
                st.piles[seat, STACK, i] = t.grade2[i]
            _shuffle_pile(st, seat, STACK, 0, n2)
            st.pile_len[seat, STACK] = n2
        st.markers[seat] = t.bonus_markers
        st.helium[seat] = t.level_start_helium[level]
        st.research[seat] = t.level_start_research[level]
        st.passed[seat] = 0
        if t.level_switches[level]:
            if st.helium[seat] >= t.tank_switch_at:
                st.slot_on[seat, 0] = 1
            if st.research[seat] >= t.research_switch_at:
                st.slot_on[seat, 4] = 1

    if t.start_bonus_random:
        pool = st.pool
        n_pool = t.n_tokens
        for i in range(n_pool):
            pool[i] = i
        for seat in range(t.n_seats):
            pick = _below(st, 0, n_pool)
            token = pool[pick]
            pool[pick] = pool[n_pool - 1]
            n_pool -= 1
            if t.seat_level[seat] < 0 and t.seat_passive[seat]:
                continue  # a passive seat draws its token but takes nothing
            if t.token_helium[token] > 0:
                if t.seat_level[seat] >= 0:
                    _gain_helium(t, st, seat, t.token_helium[token])
                else:
                    _player_helium(t, st, seat, t.token_helium[token])
            else:
                _advance_track(t, st, seat, t.token_company[token], t.token_steps[token])


# ---------------------------------------------------------------- one game, many games

@_jit
def _final_scores(t, st, game):
    """``final_scores`` and the per-game counters of ``play_game`` into ``result`` and ``won``."""
    best = np.iinfo(np.int64).min
    for seat in range(t.n_seats):
        row = st.result[seat]
        helium = st.helium[seat]  # Luna's or the scripted seat's marker (a passive seat's stays on 0)
        research = st.research[seat]
        total = st.cash[seat] + t.helium_score[helium] + t.research_score[research]
        row[C_GAME] = game
        row[C_SEAT] = seat
        row[C_SCORE_CASH] = st.cash[seat]
        row[C_SCORE_HELIUM] = t.helium_score[helium]
        row[C_SCORE_RESEARCH] = t.research_score[research]
        for company in range(4):
            shares = st.track_pos[seat, company] + st.card_shares[seat, company]
            value = st.value[company]
            row[C_SCORE_COMPANY + company] = shares * value
            row[C_SHARES + company] = shares
            row[C_VALUE + company] = value
            total += shares * value
        row[C_SCORE_TOTAL] = total
        best = max(best, total)
        row[C_HELIUM] = helium
        row[C_RESEARCH] = research
        row[C_CASH] = st.cash[seat]
        row[C_CARDS] = st.cards_gained[seat]
        row[C_MARKERS] = st.markers_placed[seat]
        row[C_PLANS] = st.plans_discarded[seat]
        row[C_OUTPOSTS] = st.outposts_placed[seat]
        row[C_OUSTED] = st.ousted[seat]
        row[C_RESHUFFLES] = st.reshuffles[seat]
        row[C_GRADE2] = st.grade2_by_reshuffle[seat] + st.grade2_by_token[seat]
        row[C_GRADE2_RESHUFFLE] = st.grade2_by_reshuffle[seat]
        row[C_GRADE2_TOKEN] = st.grade2_by_token[seat]
        row[C_SLOT_A] = st.slot_first_round[seat, 0]
        row[C_SLOT_E] = st.slot_first_round[seat, 4]
        for index in range(5):
            row[C_BLOCKED + index] = st.blocked[seat, index]
        row[C_BONUS_LOST] = st.bonus_spaces_lost[seat]
        row[C_CARDS_LOST] = st.cards_lost[seat]
        row[C_PLANS_LOST] = st.plans_lost[seat]
        row[C_OUSTED_BY_LUNA] = st.outposts_ousted_by_luna[seat]
    winners = 0
    for seat in range(t.n_seats):
        if st.result[seat, C_SCORE_TOTAL] == best:
            winners += 1
    for seat in range(t.n_seats):
        total = st.result[seat, C_SCORE_TOTAL]
        rank = 1
        for other in range(t.n_seats):
            if st.result[other, C_SCORE_TOTAL] > total:
                rank += 1
        st.result[seat, C_RANK] = rank
        st.won[seat] = 1.0 / winners if total == best else 0.0


@_jit
def _play_one(t, st, seed, game, detail):
    """Play game number ``game``; its rows are left in ``st.result``, ``st.won`` and ``st.round_rows``."""
    _setup(t, st, seed, game)
    for _ in range(t.rounds):
        _play_round(t, st, detail)
    _final_scores(t, st, game)


@_jit
def _play_block(tables, seed, first_game, detail, first, stop, out_int, out_won, out_rounds):
    """Play the chunk's games ``first .. stop - 1`` with one state record, into the output columns."""
    t = tables[0]
    state = np.zeros(1, STATE_DTYPE)
    st = state[0]
    for index in range(first, stop):
        game = first_game + index
        _play_one(t, st, seed, game, detail)
        # Only this loop touches the output arrays: numba reference-counts an array at every call it
        # is passed to, so the per-game functions work on the state record alone.
        for seat in range(t.n_seats):
            row = index * t.n_seats + seat
            for column in range(len(_INT_COLUMNS)):
                out_int[column, row] = st.result[seat, column]
            out_won[row] = st.won[seat]
        if detail:
            for k in range(t.n_luna):
                for rnd in range(t.rounds):
                    row = (index * t.n_luna + k) * t.rounds + rnd
                    for column in range(len(_ROUND_COLUMNS)):
                        out_rounds[column, row] = st.round_rows[k, rnd, column]
                    out_rounds[R_GAME, row] = game


def _play_games_body(tables, seed, first_game, detail, out_int, out_won, out_rounds):
    """Play games ``first_game .. first_game + count - 1`` into preallocated columns.

    Parameters
    ----------
    tables : TABLES_DTYPE array, shape (1,)
        The compiled data and configuration (:func:`sim.tables.build_tables`).
    seed : uint64
        The run seed modulo 2**64.
    first_game : int64
        Game number of the chunk's first game.
    detail : bool
        Fill ``out_rounds``.
    out_int : int64 array, shape (len(_INT_COLUMNS), count * n_seats)
        Integer per-seat columns; row ``g * n_seats + seat`` is seat ``seat`` of the chunk's game ``g``.
    out_won : float64 array, shape (count * n_seats,)
        Win share of each row.
    out_rounds : int64 array, shape (len(_ROUND_COLUMNS), count * n_luna * rounds), or (..., 0) without detail
        Row ``(g * n_luna + k) * rounds + round - 1`` is the k-th Luna seat in that round.

    Each block of ``BLOCK_GAMES`` games is one iteration of the (parallel) loop; every game draws only
    from its own streams, so neither the blocks nor the threads change any result.
    """
    count = out_won.shape[0] // tables[0].n_seats
    blocks = (count + BLOCK_GAMES - 1) // BLOCK_GAMES
    for block in numba.prange(blocks):
        first = block * BLOCK_GAMES
        _play_block(tables, seed, first_game, detail, first, min(count, first + BLOCK_GAMES), out_int, out_won,
                    out_rounds)


_play_games = _jit(_play_games_body)
_play_games_parallel = _jit_parallel(_play_games_body)


# ---------------------------------------------------------------- the public function

def play_chunk_numba(data: GameData, config: GameConfig, seed: int, first_game: int, count: int,
                     detail: bool) -> Chunk:
    """Play games ``first_game .. first_game + count - 1`` with the numba engine.

    Returns the same :class:`sim.run.Chunk` as ``play_chunk_reference`` with the same arguments:
    the same columns, dtypes and row order, and the same numbers.
    """
    from sim.run import Chunk  # sim.run imports this module lazily; importing it here keeps that one-way

    if count < 0:
        raise ValueError(f"count must be at least 0, got {count}")
    if first_game < 0 or first_game + count > 2**63:
        raise ValueError(f"first_game must be a non-negative game number, got {first_game}")
    tables = build_tables(data, config)
    rows = count * len(config.seats)
    round_rows = count * len(config.luna_seats) * config.rounds if detail else 0
    out_int = np.empty((len(_INT_COLUMNS), rows), dtype=np.int64)
    out_won = np.empty(rows, dtype=np.float64)
    out_rounds = np.empty((len(_ROUND_COLUMNS), round_rows), dtype=np.int64)
    kernel = _play_games_parallel if count > BLOCK_GAMES and numba.get_num_threads() > 1 else _play_games
    kernel(tables, np.uint64(seed & MASK64), np.int64(first_game), bool(detail), out_int, out_won, out_rounds)
    seats = {name: out_int[k] for k, name in enumerate(_INT_COLUMNS)}
    seats["won"] = out_won
    rounds = {name: out_rounds[k] for k, name in enumerate(_ROUND_COLUMNS)} if detail else None
    return Chunk(seats=seats, rounds=rounds)


__all__ = ["play_chunk_numba"]
