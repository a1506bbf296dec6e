"""The state of one table as one numpy record, and the output row positions the kernels write.

A game's state is one record of :data:`STATE_DTYPE` (structure of arrays: each field a typed,
fixed-shape array, listed with its meaning below). Records rather than separate arrays because numba
passes a record by reference, while it reference-counts every array at every call it is passed to
(that cost more than the game itself).

The record has two parts. :data:`STATE_FIELDS` come first and are reset for each game by copying the
first :data:`RESET_BYTES` bytes of a template record (``game.setup_template`` fills it once per
block of games: zeros, the "nobody"/"no card" markers, each seat's starting values and the board's
fixed setup). :data:`SCRATCH_FIELDS` follow: every game writes them before it reads them, so they are
never reset.

Output rows: ``result`` holds one row of :data:`SEAT_INT_COLUMNS` per seat and ``round_rows`` one row
of ``sim.columns.ROUND_NUMERIC`` per Luna seat and round. The ``C_*`` and ``R_*`` positions below are
computed from ``sim/columns.py`` (numba freezes module-level integers at compile time; the cache folder
changes with that file, see ``sim/fast/_jit.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sim.columns import (
    BLOCKED_COLUMNS,
    COMPANY_SCORE_COLUMNS,
    ROUND_CARD_COLUMNS,
    ROUND_MAJORITY_CARD_COLUMNS,
    ROUND_MAJORITY_COLUMNS,
    ROUND_NUMERIC,
    SEAT_NUMERIC,
    SHARES_COLUMNS,
    SLOT_FIRST_ROUND_COLUMNS,
    VALUE_COLUMNS,
)
from sim.constants import (
    BELT_MAX_OUTPOST_SPACES,
    BONUS_SPACES,
    DISPLAY_SPACES,
    MAJORITY_SIDES,
    MAX_SEATS,
    N_COMPANIES,
    N_RESOURCE_TYPES,
    N_SLOTS,
    RESEARCH_ROW_SPACES,
    RESEARCH_ROWS,
)
from sim.rng import BOARD_STREAM, seat_stream
from sim.tables import (
    MAX_ACTION_CARDS,
    MAX_BELT_TARGETS,
    MAX_CARDS,
    MAX_COLUMNS,
    MAX_LETTERS,
    MAX_ROUNDS,
    MAX_SECTORS,
    MAX_SPECIAL_PLANS,
    MAX_TOKENS,
)

NO_CARD = -1
NOBODY = -1
DECK, STACK, DISCARD = 0, 1, 2  # Luna's piles (GameState.piles)
N_PILES = 3
N_STREAMS = 1 + max(BOARD_STREAM, *(seat_stream(seat) for seat in range(MAX_SEATS)))
N_SIDES = len(MAJORITY_SIDES)
N_ROWS = len(RESEARCH_ROWS)

# ---------------------------------------------------------------- output rows

# The per-seat integer columns: every numeric column but the float win share, which has its own array.
SEAT_INT_COLUMNS = ("game", "seat", *(name for name in SEAT_NUMERIC if name != "won"))


def _first_of(columns: tuple[str, ...], names: Sequence[str]) -> int:
    """Position of ``names[0]`` in ``columns``; the kernels index the rest from it, so they must follow."""
    first = columns.index(names[0])
    if list(columns[first:first + len(names)]) != list(names):
        raise ImportError(f"sim/columns.py: the kernels need the columns {names} side by side, in this order")
    return first


_C = {name: index for index, name in enumerate(SEAT_INT_COLUMNS)}
C_GAME, C_SEAT, C_RANK = _C["game"], _C["seat"], _C["rank"]
C_SCORE_TOTAL, C_SCORE_CASH = _C["score_total"], _C["score_cash"]
C_SCORE_HELIUM, C_SCORE_RESEARCH = _C["score_helium"], _C["score_research"]
C_SCORE_COMPANY = _first_of(SEAT_INT_COLUMNS, COMPANY_SCORE_COLUMNS)  # one per company
C_SHARES = _first_of(SEAT_INT_COLUMNS, SHARES_COLUMNS)
C_VALUE = _first_of(SEAT_INT_COLUMNS, VALUE_COLUMNS)
C_HELIUM, C_RESEARCH, C_CASH = _C["helium"], _C["research"], _C["cash"]
C_CARDS, C_MARKERS, C_PLANS = _C["cards_gained"], _C["bonus_markers_placed"], _C["plans_discarded"]
C_OUTPOSTS, C_OUSTED, C_RESHUFFLES = _C["outposts_placed"], _C["ousted"], _C["reshuffles"]
C_GRADE2, C_GRADE2_RESHUFFLE, C_GRADE2_TOKEN = _C["grade2_entered"], _C["grade2_by_reshuffle"], _C["grade2_by_token"]
C_SLOT_A, C_SLOT_E = (_C[column] for column in SLOT_FIRST_ROUND_COLUMNS.values())  # SWITCHED_SLOTS' order
C_BLOCKED = _first_of(SEAT_INT_COLUMNS, BLOCKED_COLUMNS)  # one per majority type
C_BONUS_LOST, C_CARDS_LOST, C_PLANS_LOST = _C["bonus_spaces_lost"], _C["cards_lost"], _C["plans_lost"]
C_OUSTED_BY_LUNA = _C["outposts_ousted_by_luna"]

_R = {name: index for index, name in enumerate(ROUND_NUMERIC)}
R_GAME, R_SEAT, R_ROUND = _R["game"], _R["seat"], _R["round"]
R_CARDS = _first_of(ROUND_NUMERIC, ROUND_CARD_COLUMNS)  # one per slot
R_MAJORITY_CARDS = _first_of(ROUND_NUMERIC, ROUND_MAJORITY_CARD_COLUMNS)  # left, right
R_MAJORITY = _first_of(ROUND_NUMERIC, ROUND_MAJORITY_COLUMNS)  # one per majority type
R_RESHUFFLES, R_GRADE2 = _R["reshuffles"], _R["grade2_entered"]
R_GRADE2_RESHUFFLE, R_GRADE2_TOKEN = _R["grade2_by_reshuffle"], _R["grade2_by_token"]
R_DECK_SIZE, R_HELIUM, R_RESEARCH, R_CASH = _R["deck_size_start"], _R["helium"], _R["research"], _R["cash"]

# ---------------------------------------------------------------- the record

# (name, dtype, shape, meaning). Luna-only fields are indexed by seat and unused for a scripted seat,
# scripted-only fields likewise for a Luna seat; fields both kinds of seat use (cash, markers, helium,
# research, slot_on, passed, the shared counters) mean the same for both. Capacities (MAX_*) are those
# of sim/tables.py.
STATE_FIELDS = [
    ("rng", np.uint64, (N_STREAMS,), "stream states, indexed by stream id (sim.rng: board, then each seat)"),
    ("round", np.int64, (), "current round, 1-based"),
    ("track_side", np.int64, (N_COMPANIES,), "side index (tables side_of_letter) of each company's track"),
    ("track_pos", np.int64, (MAX_SEATS, N_COMPANIES), "share marker of each seat on each company track"),
    ("sector_owner", np.int64, (MAX_SECTORS + 1,), "company with an outpost in the sector, or -1 (0 unused)"),
    ("owned", np.uint64, (N_COMPANIES,), "sector mask of each company's outposts (the same facts as sector_owner)"),
    ("occupied", np.uint64, (), "sector mask of every outpost (the union of owned)"),
    ("reach", np.uint64, (N_COMPANIES,), "sector mask each company reaches: touches_mask, its outposts' neighbours"),
    ("vacant", np.int64, (N_COMPANIES, MAX_COLUMNS), "vacant home spaces of each station column"),
    ("value", np.int64, (N_COMPANIES,), "company value (visible coin icons)"),
    ("vacant_sum", np.int64, (N_COMPANIES,), "vacant home spaces of each company"),
    ("order_dirty", np.int64, (), "1 until order/rank are sorted (ensure_order); then station_add keeps them sorted"),
    ("order", np.int64, (N_COMPANIES,), "companies, most valuable first (companies_by_value)"),
    ("rank", np.int64, (N_COMPANIES,), "position of each company in order"),
    ("action_deck_len", np.int64, (), "cards in the action-card deck"),
    ("display", np.int64, (DISPLAY_SPACES,), "action card on each display space, or -1"),
    ("display_empty", np.uint64, (), "bit s set: display space s is empty (the same facts as display)"),
    ("plan_rows", np.int8, (N_ROWS, RESEARCH_ROW_SPACES), "a research plan lies on row A/B/C, space 0-3"),
    ("plan_decks", np.int64, (N_ROWS,), "plans left in each row's deck"),
    ("plan_generation", np.int64, (N_ROWS, RESEARCH_ROW_SPACES),
     "refills of each research space (tells a player its aimed plan went)"),
    ("luna_discarded", np.int64, (N_ROWS, RESEARCH_ROW_SPACES),
     "bit g set: a Luna discarded the plan of generation g from that space"),
    ("special", np.int8, (MAX_SPECIAL_PLANS,), "each special plan's status (sim.constants SPECIAL_*)"),
    ("specials_flipped", np.int64, (), "special plans flipped so far (in index order)"),
    ("bonus_owner", np.int64, (BONUS_SPACES,), "seat whose marker is on bonus space row * 4 + column, or -1"),
    ("scientist_owner", np.int64, (), "seat whose marker is on the scientist majority space, or -1"),
    ("card_holder", np.int64, (MAX_ACTION_CARDS,), "seat that took each action card, or -1"),
    ("placer", np.int64, (MAX_SECTORS + 1,), "seat that placed the outpost in each sector, or -1 (0 unused)"),
    ("cash", np.int64, (MAX_SEATS,), "CrypCoin"),
    ("cards_gained", np.int64, (MAX_SEATS,), "action cards collected"),
    ("card_shares", np.int64, (MAX_SEATS, N_COMPANIES), "extra shares on collected action cards, per company"),
    ("pile_len", np.int64, (MAX_SEATS, N_PILES), "cards in each of Luna's piles (DECK, STACK, DISCARD)"),
    ("slots", np.int64, (MAX_SEATS, N_SLOTS), "card in action slot A-E, or -1"),
    ("slot_on", np.int8, (MAX_SEATS, N_SLOTS), "slot A-E switched ON"),
    ("majority", np.int64, (MAX_SEATS, N_SIDES), "card in the left/right majority slot, or -1"),
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
    ("slot_first_round", np.int64, (MAX_SEATS, N_SLOTS), "round each slot was first used, 0 = never"),
    # scripted seats (reference.PlayerState)
    ("carry", np.float64, (MAX_SEATS,), "fraction of action strength carried to the next action (whole game)"),
    ("totals", np.int64, (MAX_SEATS, N_RESOURCE_TYPES), "this round's majority totals, by type"),
    ("card_resources", np.int64, (MAX_SEATS, N_RESOURCE_TYPES), "resources of cards bought before this round"),
    ("pending_resources", np.int64, (MAX_SEATS, N_RESOURCE_TYPES), "resources of cards bought this round"),
    ("plan_len", np.int64, (MAX_SEATS,), "entries of plan in use"),
    ("next_action", np.int64, (MAX_SEATS,), "index into plan of its next action"),
    ("blocked", np.int64, (MAX_SEATS, N_RESOURCE_TYPES), "rounds each majority type was blocked by Luna"),
    ("bonus_spaces_lost", np.int64, (MAX_SEATS,), "counters reported per game, as in reference.PlayerState"),
    ("cards_lost", np.int64, (MAX_SEATS,), ""),
    ("plans_lost", np.int64, (MAX_SEATS,), ""),
    ("outposts_ousted_by_luna", np.int64, (MAX_SEATS,), ""),
    # the Belt side (reference.BeltState; unused on the Moon): slots of each target, filled lowest first
    # int8 (companies and seats fit): every game resets these bytes, Moon games too
    ("belt_owner", np.int8, (MAX_BELT_TARGETS + 1, BELT_MAX_OUTPOST_SPACES),
     "company of the piece on each slot of each Belt target, or -1 (0 unused)"),
    ("belt_placer", np.int8, (MAX_BELT_TARGETS + 1, BELT_MAX_OUTPOST_SPACES), "seat that placed it, or -1"),
    ("shuttles_left", np.int64, (N_COMPANIES,), "shuttles in each company's shuttle column"),
]
# Written before read in every game (a pile beyond its length, this round's plan, the output rows).
SCRATCH_FIELDS = [
    ("margin", np.int64, (N_COMPANIES,), "lead margins of the seat acting"),
    ("chosen", np.int64, (N_COMPANIES,), "companies chosen by the current card's last advance_company"),
    ("n_chosen", np.int64, (), "entries of chosen in use (reset by each card)"),
    ("expand_order", np.int64, (N_COMPANIES,), "chosen, less valuable first"),
    ("luna_values", np.int64, (N_RESOURCE_TYPES,), "luna_majority_values, titanium..scientists"),
    ("pool", np.int64, (MAX_TOKENS,), "starting-token pool"),
    ("letters", np.int64, (MAX_LETTERS,), "track letters (sorted) in shuffled order"),
    ("action_deck", np.int64, (MAX_ACTION_CARDS,), "action-card deck, top last (action_deck_len cards)"),
    ("piles", np.int64, (MAX_SEATS, N_PILES, MAX_CARDS), "Luna's DECK, grade-2 STACK and DISCARD pile, top last"),
    ("plan", np.int64, (MAX_SEATS, N_SLOTS), "this round's action kinds (ACTION_KINDS), in slot order"),
    ("aims", np.int64, (MAX_SEATS, N_SLOTS, 3),
     "per planned action: (card, -1, 0), (row, space, generation) or (-1, -1, 0)"),
    ("round_start", np.int64, (MAX_SEATS, 4),
     "detail: deck size, reshuffles, grade-2 counters at round start (the counters 0 in round 1: from setup on)"),
    ("round_rows", np.int64, (MAX_SEATS, MAX_ROUNDS, len(ROUND_NUMERIC)), "detail: k-th Luna seat, round, column"),
    ("result", np.int64, (MAX_SEATS, len(SEAT_INT_COLUMNS)), "the game's per-seat output row"),
    ("won", np.float64, (MAX_SEATS,), "the game's win shares"),
]
STATE_DTYPE = np.dtype([(name, dtype, shape) for name, dtype, shape, _ in STATE_FIELDS + SCRATCH_FIELDS],
                       align=True)
RESET_BYTES = STATE_DTYPE.fields[SCRATCH_FIELDS[0][0]][1]  # the reset fields' bytes: all before the scratch
