"""Flatten validated game data and a game configuration into the integer tables the numba kernels read.

Everything the kernels need is decided here, in plain Python, once per call: the kernels never see a
pydantic model, a string or a dict, and they do no validation. The encoding mirrors
``sim/reference/`` clause by clause; where the reference relies on a Python idiom (a list slice,
``dict.get``, a sort key on a track id string), the table stores the value that idiom produces.

Encodings
---------
Slot letters A-E are bits 0-4 of a *letter mask*. A card matrix (display 4x3, bonus spaces 3x4,
research row 4) is stored as one letter mask per cell, cells row-major.

A Luna card's action section is a run of *opcode rows* (``ops[card_op_start[c]:card_op_start[c+1]]``),
each ``OP_WIDTH`` int64 values: ``[opcode, count, a, b, c, cell 0 .. cell 11, slot A .. slot E]``, where
a *slot* column is the transposed matrix: bit k is set when cell k lists that slot's letter (so a
kernel visits only the designated cells, in cell order):

======================  =====  ==========================================================
opcode                  count  a, b, c / cells
======================  =====  ==========================================================
OP_GAIN_COIN            n      -
OP_GAIN_HELIUM          n      -
OP_ADVANCE_RESEARCH     n      -
OP_ADVANCE_COMPANY      n      a = 1 to rank companies by lead margin (else by value), then
                               take the ``c`` companies from position ``b`` of that ranking
OP_EXPAND_COMPANY       n      a = 1 for MIN (lowest sector), 0 for MAX
OP_GAIN_CARD_MATCH      -      cells 0-11: display spaces 1-12
OP_GAIN_CARD_SHARE      -      -
OP_DISCARD_PLAN_MATCH   -      a = row (0-2 for A-C); cells 0-3: the row's spaces
OP_DISCARD_SPECIAL      -      -
OP_PLACE_BONUS_MARKER   -      cells 0-11: bonus spaces, 3 rows x 4 columns
======================  =====  ==========================================================

Sectors 1..n are bits 0..n-1 of a ``uint64`` *sector mask* (neighbours, station contacts, a company's
outposts), so the engine supports boards of up to 64 sectors (the shipped board has 24).

Scripted seats (``reference.plan_player`` and the ``player_*`` functions) read their profile per seat:
weights in ``ACTION_KINDS`` order with their sum, ``steps_by_round``, the strength as a float64, and the
per-round base totals ``floor(resources_by_round * strength)`` computed here by the reference's own
expression; the player model's numbers (markers, rewards, bonus-space preference as cells ``row * 4 +
column``) and each action card's price and resources sit beside them.

The tables are one numpy record of ``TABLES_DTYPE``: fixed-capacity fields (``MAX_*``) plus counts of
what is used. A record is passed to the kernels by reference, without the reference counting numba
does for every array argument of every call, and one layout serves every configuration and
overlay, so the kernels compile once.
"""

from __future__ import annotations

import math

import numpy as np

from sim.config import GameConfig
from sim.constants import (
    ACTION_KINDS,
    ALLOWED_ROUNDS,
    BONUS_COLUMNS,
    BONUS_SPACES,
    DISPLAY_SPACES,
    LEVELS,
    MAX_SEATS,
    N_COMPANIES,
    N_RESOURCE_TYPES,
    N_SLOTS,
    RESEARCH_ROW_SPACES,
    RESEARCH_ROWS,
    RESOURCE_TYPES,
    RULE_SWITCHES,
    SLOT_LETTERS,
    STANDARD_BONUS_CELLS,
    TRACK_TILE_SIDES,
)
from sim.gamedata import (
    AdvanceCompany,
    AdvanceResearch,
    DiscardResearchPlan,
    ExpandCompany,
    GainCard,
    GainCoin,
    GainHelium,
    GameData,
    PlaceBonusMarker,
    starting_token_shortfall,
)

OP_GAIN_COIN = 0
OP_GAIN_HELIUM = 1
OP_ADVANCE_RESEARCH = 2
OP_ADVANCE_COMPANY = 3
OP_EXPAND_COMPANY = 4
OP_GAIN_CARD_MATCH = 5
OP_GAIN_CARD_SHARE = 6
OP_DISCARD_PLAN_MATCH = 7
OP_DISCARD_SPECIAL = 8
OP_PLACE_BONUS_MARKER = 9
OP_CELLS = 5  # column of cell 0 in an opcode row
OP_MAX_CELLS = max(DISPLAY_SPACES, BONUS_SPACES, RESEARCH_ROW_SPACES)  # the largest card matrix's cells
OP_SLOT_CELLS = OP_CELLS + OP_MAX_CELLS  # column of slot A's cell mask; slots B-E follow
OP_WIDTH = OP_SLOT_CELLS + N_SLOTS

REVEAL_NONE, REVEAL_HELIUM, REVEAL_RESEARCH = 0, 1, 2

# Rule readings (SPEC section 8): ``rules[RULE_<SWITCH>]`` holds the code of the reading in force, its
# position in sim.constants.RULE_SWITCHES; the kernels compare it with the code of a non-default reading.
RULE_INDEX = {switch: index for index, switch in enumerate(RULE_SWITCHES)}


def reading_code(switch: str, reading: str) -> int:
    """The small integer the kernels know ``reading`` of ``switch`` by."""
    return RULE_SWITCHES[switch].index(reading)


def needs_general_engine(data: GameData, config: GameConfig) -> bool:
    """Whether games of ``data`` and ``config`` need the numba engine's general path: the Belt side, or a rule
    reading other than its switch's first (the tables' ``board_belt`` and ``rules_any``; ``sim/fast/luna.py``).
    Cheap: the engine and its compile notice ask it before every chunk."""
    return config.board == "belt" or any(reading_code(switch, reading)
                                         for switch, reading in data.luna.rules.readings().items())


RULE_START_POSITION, START_PLACE = RULE_INDEX["start_position"], reading_code("start_position", "place")
RULE_DRAW_ORDER, MAJORITY_FIRST = RULE_INDEX["draw_order"], reading_code("draw_order", "majority_first")
RULE_REVEAL_TIMING, REVEAL_FIRST_TURN = RULE_INDEX["reveal_timing"], reading_code("reveal_timing", "first_turn")
RULE_STEP_ORDER, HELIUM_THEN_RESEARCH = RULE_INDEX["step_order"], reading_code("step_order", "helium_then_research")
RULE_EARLY_DISCARD, DECIDES_DISCARD_PILE = (RULE_INDEX["early_discard_card"],
                                           reading_code("early_discard_card", "discard_pile"))
RULE_REBUILD, REBUILD_IMMEDIATE = RULE_INDEX["rebuild"], reading_code("rebuild", "immediate")
RULE_MULTI_EXPAND, MORE_VALUABLE_FIRST = (RULE_INDEX["multi_expand_order"],
                                          reading_code("multi_expand_order", "more_valuable_first"))

# How each advance_company selection picks its companies: (rank by lead?, first position, how many).
_SELECTIONS = {
    "most_valuable": (0, 0, 1),
    "two_most_valuable": (0, 0, 2),
    "second_most_valuable": (0, 1, 1),
    "least_valuable": (0, N_COMPANIES - 1, 1),
    "all_four": (0, 0, N_COMPANIES),
    "lead_biggest_margin": (1, 0, 1),
    "two_biggest_leads": (1, 0, 2),
}

MAX_ROUNDS = max(ALLOWED_ROUNDS)

# Capacities of the fixed-shape records below. One record layout serves every configuration and
# overlay, so the kernels compile once; compile_tables rejects data beyond these with a clear message.
MAX_CARDS = 64  # Luna cards
MAX_OPS = 512  # card actions, all cards together
MAX_POSITION = 63  # last space of Luna's tank and research tracks
MAX_TRACK_SPACES = 63  # spaces of a company track
MAX_LETTERS = 26  # company tracks (A-Z)
MAX_SIDES = TRACK_TILE_SIDES * MAX_LETTERS  # company track sides
MAX_COLUMNS = 16  # station columns
MAX_COLUMN_SIZE = 16  # home spaces per station column
MAX_ACTION_CARDS = 256
MAX_SPECIAL_PLANS = 64
MAX_TOKENS = 64  # starting research tokens
MAX_SETUP = 8  # setup outposts per company
MAX_SECTORS = 64  # sector masks are uint64
MAX_DRAW = 2**32  # Stream.below(n) is exact in uint64 arithmetic only for n < 2**32
MAX_ROW_DECK = 62  # a research space's plan generations (at most 1 + row deck) are bits of one int64
MAX_STRENGTH_PRODUCT = 2**31  # steps or resources times strength: int64 arithmetic and loops stay sane
MAX_BELT_TARGETS = 64  # Belt target masks are uint64 (targets 1..n are bits 0..n-1, like sectors)
N_KINDS = len(ACTION_KINDS)

# The tables record: (name, dtype, shape, meaning). Counts (n_*) say how much of each capacity is used.
TABLE_FIELDS = [
    # configuration
    ("n_seats", np.int64, (), "seats at the table, 1-4"),
    ("n_luna", np.int64, (), "Luna seats (the last n_luna seats)"),
    ("rounds", np.int64, (), "rounds per game, 7 or 6"),
    ("start_bonus_random", np.int64, (), "1: one starting research token per seat; 0: none"),
    ("seat_level", np.int64, (MAX_SEATS,), "Luna level 0-8 of each seat, -1 for a scripted seat"),
    ("seat_start_cash", np.int64, (MAX_SEATS,), "CrypCoin of each seat at setup"),
    ("luna_seats", np.int64, (MAX_SEATS,), "seat index of the k-th Luna seat"),
    # scripted seats (zero for a Luna seat)
    ("seat_passive", np.int64, (MAX_SEATS,), "1 for a scripted seat whose profile is passive"),
    ("seat_strength", np.float64, (MAX_SEATS,), "strength multiplier of a scripted seat (the reference's float)"),
    ("seat_weights", np.int64, (MAX_SEATS, N_KINDS), "profile weight of each action kind, ACTION_KINDS order"),
    ("seat_weight_total", np.int64, (MAX_SEATS,), "sum of the weights: the n of each planning draw below(n)"),
    ("seat_steps", np.int64, (MAX_SEATS, MAX_ROUNDS), "steps_by_round of the profile (before strength)"),
    ("seat_base_totals", np.int64, (MAX_SEATS, MAX_ROUNDS, N_RESOURCE_TYPES),
     "floor(resources_by_round * strength) per round and majority type, as plan_player computes it"),
    # the scripted-player model
    ("player_markers", np.int64, (), "bonus markers of each scripted seat (bonus_markers_by_humans)"),
    ("majority_bonus_reward", np.int64, (), "CrypCoin for a titanium..minerals majority bonus space"),
    ("scientist_bonus_reward", np.int64, (), "CrypCoin for the scientist majority bonus space"),
    ("standard_bonus_reward", np.int64, (BONUS_SPACES,), "CrypCoin of standard space row * 4 + column"),
    ("bonus_preference", np.int64, (len(STANDARD_BONUS_CELLS),), "standard spaces, best first"),
    ("sector_reward", np.int64, (), "CrypCoin per outpost a scripted seat places"),
    ("expand_outposts_per_step", np.float64, (), "an expand of steps > 0: max(1, floor(steps * this)) outposts"),
    ("plan_lost_research_penalty", np.int64, (), "research steps lost with a plan Luna discarded"),
    # Luna's board
    ("bonus_markers", np.int64, (), "Luna's bonus markers"),
    ("tank_max", np.int64, (), "last tank space"),
    ("tank_switch_at", np.int64, (), "tank space switching slot A ON"),
    ("research_max", np.int64, (), "last research space"),
    ("research_switch_at", np.int64, (), "research space switching slot E ON"),
    ("past_end", np.int64, (), "CrypCoin per step past the end of any track"),
    ("initial_slot_on", np.int64, (N_SLOTS,), "slot A-E is ON at setup"),
    ("helium_score", np.int64, (MAX_POSITION + 1,), "final-scoring CrypCoin of each tank position"),
    ("research_score", np.int64, (MAX_POSITION + 1,), "final-scoring CrypCoin of each research position"),
    # levels 0-8
    ("level_grade2", np.int64, (len(LEVELS),), "the level uses the grade-2 stack"),
    ("level_switches", np.int64, (len(LEVELS),), "the level has the A/E switches"),
    ("level_start_helium", np.int64, (len(LEVELS),), "starting tank position"),
    ("level_start_research", np.int64, (len(LEVELS),), "starting research position"),
    ("level_helium_token", np.int8, (len(LEVELS), MAX_POSITION + 1), "a Luna token lies on that tank space"),
    ("level_research_token", np.int8, (len(LEVELS), MAX_POSITION + 1), "a Luna token lies on that research space"),
    ("level_helium_tokens_upto", np.int64, (len(LEVELS), MAX_POSITION + 1),
     "tokens on tank spaces 0..p (a move from p to q fires upto[q] - upto[p])"),
    ("level_research_tokens_upto", np.int64, (len(LEVELS), MAX_POSITION + 1), "likewise on the research track"),
    # Luna's cards
    ("n_grade1", np.int64, (), "grade-1 cards"),
    ("n_grade2", np.int64, (), "grade-2 cards"),
    ("grade1", np.int64, (MAX_CARDS,), "grade-1 card indices in data order (the order shuffled at setup)"),
    ("grade2", np.int64, (MAX_CARDS,), "grade-2 card indices in data order"),
    ("card_majority", np.int64, (MAX_CARDS, 3), "left value, right value, scientist icons"),
    ("card_reveal", np.int64, (MAX_CARDS, 2), "REVEAL_* kind and count"),
    ("card_op_start", np.int64, (MAX_CARDS + 1,), "card c's actions are ops[card_op_start[c]:card_op_start[c + 1]]"),
    ("ops", np.int64, (MAX_OPS, OP_WIDTH), "opcode rows (module docstring)"),
    # company tracks
    ("track_spaces", np.int64, (), "spaces after the start space"),
    ("n_letters", np.int64, (), "track letters"),
    ("side_of_letter", np.int64, (MAX_LETTERS, TRACK_TILE_SIDES), "side index of each track letter (sorted), side 1/2"),
    ("side_rank", np.int64, (MAX_SIDES,), "position of the side's id in sorted order (value-tie break)"),
    ("barrier_price", np.int64, (MAX_SIDES, MAX_TRACK_SPACES), "price of passing from space p to p + 1"),
    ("threshold_reward", np.int64, (MAX_SIDES, MAX_TRACK_SPACES), "reward for passing from p to p + 1"),
    ("track_cost", np.int64, (MAX_SIDES, MAX_TRACK_SPACES + 1, MAX_TRACK_SPACES + 1),
     "Luna's passage from space p to e > p in one: CrypCoin c becomes max(c - cost, 0) + gain (track_passages)"),
    ("track_gain", np.int64, (MAX_SIDES, MAX_TRACK_SPACES + 1, MAX_TRACK_SPACES + 1), "(see track_cost)"),
    # stations and sectors
    ("n_columns", np.int64, (), "station columns"),
    ("column_size", np.int64, (), "home spaces per column"),
    ("coin_prefix", np.int64, (MAX_COLUMN_SIZE + 1,), "coin icons of a column's top k home spaces"),
    ("n_sectors", np.int64, (), "sectors on the board"),
    ("touches_mask", np.uint64, (N_COMPANIES,), "sector mask of the sectors each station touches"),
    ("adjacent_mask", np.uint64, (MAX_SECTORS + 1,), "sector mask of each sector's neighbours (index 0 unused)"),
    ("setup_count", np.int64, (N_COMPANIES,), "setup outposts of each company"),
    ("setup_sectors", np.int64, (N_COMPANIES, MAX_SETUP), "their sectors, in placing order"),
    # display, research, starting tokens
    ("n_action_cards", np.int64, (), "action cards"),
    ("action_share", np.int64, (MAX_ACTION_CARDS,), "company of the card's extra share, or -1"),
    ("action_price", np.int64, (MAX_ACTION_CARDS,), "CrypCoin a scripted seat pays for the card"),
    ("action_resources", np.int64, (MAX_ACTION_CARDS, N_RESOURCE_TYPES), "RESOURCE_TYPES order"),
    ("action_resource_sum", np.int64, (MAX_ACTION_CARDS,), "sum of the card's resources (a buyer's sort key)"),
    ("row_deck", np.int64, (), "plans in each research row's deck"),
    ("n_special", np.int64, (), "special research plans"),
    ("special_face_up_at_start", np.int64, (), "special plans face up at setup"),
    ("n_tokens", np.int64, (), "starting research tokens"),
    ("token_helium", np.int64, (MAX_TOKENS,), "helium steps of a token (0 for a track token)"),
    ("token_company", np.int64, (MAX_TOKENS,), "company of a track token, or -1"),
    ("token_steps", np.int64, (MAX_TOKENS,), "steps of a track token"),
    # the Belt side (sim/data/belt.toml; zero unless the game is played on the Belt)
    ("board_belt", np.int64, (), "1: the game is played on the Belt side (then setup_count is 0: no sector used)"),
    ("belt_count", np.int64, (), "Belt targets"),
    ("belt_asteroid", np.uint64, (), "target mask of the asteroids (the rest are shuttle spaces)"),
    ("belt_capacity", np.int64, (MAX_BELT_TARGETS + 1,), "outpost spaces of an asteroid, 1 for a shuttle space"),
    ("belt_adjacent", np.uint64, (MAX_BELT_TARGETS + 1,), "target mask of each target's neighbours (0 unused)"),
    ("belt_touches", np.uint64, (N_COMPANIES,), "target mask of the targets each station touches"),
    ("belt_shuttles", np.int64, (), "shuttles in each station's shuttle column"),
    ("belt_setup_count", np.int64, (N_COMPANIES,), "setup outposts of each company on the Belt"),
    ("belt_setup_target", np.int64, (N_COMPANIES,), "the asteroid they go on (the lowest its station touches)"),
    ("belt_outpost_reward", np.int64, (), "CrypCoin for a scripted seat per outpost placed on an asteroid"),
    ("belt_shuttle_reward", np.int64, (), "CrypCoin for a scripted seat per shuttle placed"),
    # rule readings
    ("rules", np.int64, (len(RULE_SWITCHES),), "code of the reading in force of each switch (RULE_INDEX order)"),
    ("rules_any", np.int64, (), "1 when any reading is not its switch's first (the kernels then leave their "
     "default path)"),
]
TABLES_DTYPE = np.dtype([(name, dtype, shape) for name, dtype, shape, _ in TABLE_FIELDS], align=True)


def _letter_mask(cell: str) -> int:
    return sum(1 << SLOT_LETTERS.index(letter) for letter in set(cell))


def _encode_action(action) -> list[int]:
    row = [0] * OP_WIDTH
    if isinstance(action, GainCoin):
        row[:2] = [OP_GAIN_COIN, action.count]
    elif isinstance(action, GainHelium):
        row[:2] = [OP_GAIN_HELIUM, action.count]
    elif isinstance(action, AdvanceResearch):
        row[:2] = [OP_ADVANCE_RESEARCH, action.count]
    elif isinstance(action, AdvanceCompany):
        row[:5] = [OP_ADVANCE_COMPANY, action.count, *_SELECTIONS[action.company]]
    elif isinstance(action, ExpandCompany):
        row[:3] = [OP_EXPAND_COMPANY, action.count, int(action.sector == "min")]
    elif isinstance(action, GainCard):
        if action.select == "match_slot":
            row[0] = OP_GAIN_CARD_MATCH
            cells = [cell for matrix_row in action.display for cell in matrix_row]
            row[OP_CELLS:OP_CELLS + len(cells)] = [_letter_mask(cell) for cell in cells]
        else:
            row[0] = OP_GAIN_CARD_SHARE
    elif isinstance(action, DiscardResearchPlan):
        if action.select == "match_slot":
            row[:3] = [OP_DISCARD_PLAN_MATCH, 0, RESEARCH_ROWS.index(action.row)]
            row[OP_CELLS:OP_CELLS + len(action.spaces)] = [_letter_mask(cell) for cell in action.spaces]
        else:
            row[0] = OP_DISCARD_SPECIAL
    elif isinstance(action, PlaceBonusMarker):
        row[0] = OP_PLACE_BONUS_MARKER
        cells = [cell for matrix_row in action.spaces for cell in matrix_row]
        row[OP_CELLS:OP_CELLS + len(cells)] = [_letter_mask(cell) for cell in cells]
    else:  # pragma: no cover - the schema admits no other action
        raise ValueError(f"the numba engine does not know the card action {action!r}")
    cells = [(k, mask) for k, mask in enumerate(row[OP_CELLS:OP_CELLS + OP_MAX_CELLS]) if mask]  # a matrix's only
    for slot in range(N_SLOTS):
        row[OP_SLOT_CELLS + slot] = sum(1 << k for k, mask in cells if mask >> slot & 1)
    return row


def _score_by_position(table: list[tuple[int, int]], last: int) -> list[int]:
    """``reference.table_score`` for every marker position 0..last."""
    scores = []
    for position in range(last + 1):
        score = 0
        for threshold, coins in table:
            if position >= threshold:
                score = coins
        scores.append(score)
    return scores


def _sector_mask(sectors) -> int:
    mask = 0
    for sector in sectors:
        mask |= 1 << (sector - 1)
    return mask


def _capacity(problems: list[str], what: str, used: int, capacity: int, source: str = "") -> None:
    """Note ``what`` (a dotted data field, its file ``source``; or a setting) when it exceeds ``capacity``."""
    if used > capacity:
        where = f"{source}: " if source else ""
        problems.append(f"{where}{what}: {used} (the numba engine supports at most {capacity}; --engine reference "
                        "has no such limit)")


def track_passages(price: np.ndarray, reward: np.ndarray, spaces: int, cost: np.ndarray, gain: np.ndarray) -> None:
    """Fill ``cost[side, p, e]`` and ``gain[side, p, e]`` (zeros) for every passage ``0 <= p < e <= spaces``.

    Luna pays what she has at a barrier and moves on, so one step from space ``q`` maps her CrypCoin ``c`` to
    ``max(c - price[q], 0) + reward[q]``. Maps of the form ``c -> max(c - a, 0) + b`` (``a >= 0``) are closed
    under composition: ``(c, d)`` after ``(a, b)`` is ``(a, b - c + d)`` when ``b >= c``, else
    ``(a + c - b, d)``. So a passage of any length is one pair, and ``sim.fast.board.advance_track`` moves her
    marker in one step, with neither a loop nor a branch per space (both engines agree: the tests compare
    each passage with the steps taken one at a time). ``(0, 0)`` starts each composition: for prices >= 0
    it composes like the identity.
    """
    for end in range(1, spaces + 1):
        step_price = price[:, end - 1][:, None]
        step_reward = reward[:, end - 1][:, None]
        before_cost, before_gain = cost[:, :end, end - 1], gain[:, :end, end - 1]  # start p = end - 1: (0, 0)
        keeps = before_gain >= step_price
        cost[:, :end, end] = np.where(keeps, before_cost, before_cost + step_price - before_gain)
        gain[:, :end, end] = np.where(keeps, before_gain - step_price + step_reward, step_reward)


def compile_tables(data: GameData, config: GameConfig) -> np.ndarray:
    """Compile ``data`` and ``config`` into a one-element ``TABLES_DTYPE`` array.

    Raises
    ------
    ValueError
        What the numba engine cannot play (an unknown scripted profile, data beyond the capacities
        above), one problem per line.
    """
    luna, moon = data.luna, data.moon
    board = luna.board
    seats = config.seats
    companies = list(moon.companies)
    sides = moon.tracks.sides
    stations = moon.stations
    tokens = moon.starting_tokens.tokens
    action_cards = moon.action_cards.cards
    sector_count = moon.sectors.rows * moon.sectors.columns
    ops = [_encode_action(action) for card in luna.cards for action in card.actions]
    touches = [sorted(stations.touches[c]) for c in companies]
    setup = [sectors[: stations.setup_outposts] for sectors in touches]

    profiles = data.players.profiles
    model = data.players.model
    problems = [f"seat {seat.label}: unknown scripted profile" for seat in seats
                if seat.kind == "scripted" and seat.profile not in profiles]

    def named(field: str) -> str:  # a data field in a product with a seat's strength (a setting)
        return f"{field} (in {data.source_of(field)})"

    for seat in seats:
        if seat.kind != "scripted" or seat.profile not in profiles:
            continue
        profile = profiles[seat.profile]
        resources = profile.resources_by_round.model_dump()
        base = f"players.profiles.{seat.profile}"
        # The kernels hold these products in int64 (and loop over steps): beyond the bounds the reference's
        # Python ints and the kernels' machine integers would part ways.
        _capacity(problems, f"seat {seat.label}: strength x {named(f'{base}.resources_by_round')}",
                  max(max(values) for values in resources.values()) * seat.strength, MAX_STRENGTH_PRODUCT)
        if not profile.passive:
            steps = max(profile.steps_by_round) * seat.strength + 1  # + 1: the carried fraction
            _capacity(problems, f"{base}.weights (sum)", sum(profile.weights.model_dump().values()),
                      MAX_DRAW - 1, data.source_of(f"{base}.weights"))
            _capacity(problems, f"seat {seat.label}: strength x {named(f'{base}.steps_by_round')}", steps,
                      MAX_STRENGTH_PRODUCT)
            _capacity(problems, f"seat {seat.label}: action strength x "
                      f"{named('players.model.expand_outposts_per_step')}",
                      steps * model.expand_outposts_per_step, MAX_STRENGTH_PRODUCT)
    shortfall = starting_token_shortfall(data, config.start_bonus, len(seats))
    if shortfall:
        problems.append(shortfall)
    _capacity(problems, "seats", len(seats), MAX_SEATS)
    _capacity(problems, "rounds", config.rounds, MAX_ROUNDS)
    for field, what, used, capacity in [
        ("luna.cards", "luna.cards (count)", len(luna.cards), MAX_CARDS),
        ("luna.cards", "luna.cards (actions of all cards)", len(ops), MAX_OPS),
        ("luna.board.tank_max", "luna.board.tank_max", board.tank_max, MAX_POSITION),
        ("luna.board.research_max", "luna.board.research_max", board.research_max, MAX_POSITION),
        ("moon.tracks.spaces", "moon.tracks.spaces", moon.tracks.spaces, MAX_TRACK_SPACES),
        ("moon.tracks.sides", "moon.tracks.sides (company tracks)", len({side.id[0] for side in sides}),
         MAX_LETTERS),
        ("moon.stations.columns", "moon.stations.columns", stations.columns, MAX_COLUMNS),
        ("moon.stations.coin_icons", "moon.stations.coin_icons (home spaces per column)", len(stations.coin_icons),
         MAX_COLUMN_SIZE),
        ("moon.sectors", "moon.sectors (rows x columns)", sector_count, MAX_SECTORS),
        ("moon.stations", "moon.stations.setup_outposts (placed at setup)", max(len(s) for s in setup), MAX_SETUP),
        ("moon.action_cards.cards", "moon.action_cards.cards (count)", len(action_cards), MAX_ACTION_CARDS),
        ("moon.research.special_plans", "moon.research.special_plans", moon.research.special_plans,
         MAX_SPECIAL_PLANS),
        ("moon.research.row_deck", "moon.research.row_deck", moon.research.row_deck, MAX_ROW_DECK),
        ("moon.starting_tokens.tokens", "moon.starting_tokens.tokens (count)", len(tokens), MAX_TOKENS),
        ("belt.spaces.targets", "belt.spaces.targets (count)", len(data.belt.spaces.targets), MAX_BELT_TARGETS),
    ]:
        _capacity(problems, what, used, capacity, data.source_of(field))
    if problems:
        raise ValueError("\n".join(problems))

    record = np.zeros(1, dtype=TABLES_DTYPE)
    t = record[0]
    t["n_seats"] = len(seats)
    t["n_luna"] = len(config.luna_seats)
    t["rounds"] = config.rounds
    t["start_bonus_random"] = int(config.start_bonus == "random")
    t["seat_level"][: len(seats)] = [seat.level if seat.kind == "luna" else -1 for seat in seats]
    model_cash = data.players.model.start_cash
    t["seat_start_cash"][: len(seats)] = [
        board.start_crypcoin if seat.kind == "luna"
        else model_cash if profiles[seat.profile].start_cash is None else profiles[seat.profile].start_cash
        for seat in seats]
    t["luna_seats"][: len(config.luna_seats)] = config.luna_seats

    # Scripted seats. Only the carried action strength stays a float in the kernels (reference.action_strength,
    # same float64 operations in the same order); the per-round base totals are computed here with the
    # reference's own expression.
    for index, seat in enumerate(seats):
        if seat.kind != "scripted":
            continue
        profile = profiles[seat.profile]
        weights = [getattr(profile.weights, kind) for kind in ACTION_KINDS]
        t["seat_passive"][index] = int(profile.passive)
        t["seat_strength"][index] = seat.strength
        t["seat_weights"][index] = weights
        t["seat_weight_total"][index] = sum(weights)
        t["seat_steps"][index, : len(profile.steps_by_round)] = profile.steps_by_round
        for kind, name in enumerate(RESOURCE_TYPES):
            for round_index, base in enumerate(getattr(profile.resources_by_round, name)):
                t["seat_base_totals"][index, round_index, kind] = math.floor(base * seat.strength)
    humans = sum(seat.kind == "scripted" for seat in seats)
    t["player_markers"] = model.bonus_markers_by_humans[max(humans, 1) - 1]
    t["majority_bonus_reward"] = model.majority_bonus_reward
    t["scientist_bonus_reward"] = model.scientist_bonus_reward
    for row, rewards in enumerate(model.standard_bonus_rewards, start=1):
        t["standard_bonus_reward"][BONUS_COLUMNS * row: BONUS_COLUMNS * (row + 1)] = rewards
    t["bonus_preference"] = [BONUS_COLUMNS * row + column for row, column in model.standard_bonus_preference]
    t["sector_reward"] = model.sector_reward
    t["expand_outposts_per_step"] = model.expand_outposts_per_step
    t["plan_lost_research_penalty"] = model.plan_lost_research_penalty

    t["bonus_markers"] = board.bonus_markers
    t["tank_max"] = board.tank_max
    t["tank_switch_at"] = board.tank_switch_at
    t["research_max"] = board.research_max
    t["research_switch_at"] = board.research_switch_at
    t["past_end"] = board.past_end_crypcoin_per_step
    t["initial_slot_on"] = [letter in board.initial_slots for letter in SLOT_LETTERS]
    t["helium_score"][: board.tank_max + 1] = _score_by_position(luna.final_scoring.helium_tank, board.tank_max)
    t["research_score"][: board.research_max + 1] = _score_by_position(luna.final_scoring.research_track,
                                                                       board.research_max)

    for index in LEVELS:
        level = luna.levels[str(index)]
        t["level_grade2"][index] = level.grade2
        t["level_switches"][index] = level.slot_switches
        t["level_start_helium"][index] = level.start_helium
        t["level_start_research"][index] = level.start_research
        # A marker only moves forward one space at a time, so a token fires exactly when its space is
        # stepped onto: a flag per space is all the state a token needs (a duplicate fires once, as
        # with the reference's list.remove).
        for position in level.helium_tokens:
            t["level_helium_token"][index, position] = 1
        for position in level.research_tokens:
            t["level_research_token"][index, position] = 1
        t["level_helium_tokens_upto"][index] = np.cumsum(t["level_helium_token"][index])
        t["level_research_tokens_upto"][index] = np.cumsum(t["level_research_token"][index])

    grade1 = [i for i, card in enumerate(luna.cards) if card.grade == 1]
    grade2 = [i for i, card in enumerate(luna.cards) if card.grade == 2]
    t["n_grade1"], t["n_grade2"] = len(grade1), len(grade2)
    t["grade1"][: len(grade1)] = grade1
    t["grade2"][: len(grade2)] = grade2
    start = 0
    for index, card in enumerate(luna.cards):
        t["card_majority"][index] = (card.majority.left, card.majority.right, card.majority.scientists)
        if isinstance(card.reveal, GainHelium):
            t["card_reveal"][index] = (REVEAL_HELIUM, card.reveal.count)
        elif isinstance(card.reveal, AdvanceResearch):
            t["card_reveal"][index] = (REVEAL_RESEARCH, card.reveal.count)
        t["card_op_start"][index] = start
        start += len(card.actions)
    t["card_op_start"][len(luna.cards)] = start
    t["ops"][: len(ops)] = ops

    letters = sorted({side.id[0] for side in sides})
    side_index = {side.id: i for i, side in enumerate(sides)}
    # The reference breaks value ties on the track id string; an id's position in sorted order is
    # the same total order as an integer.
    ordered_ids = sorted(side.id for side in sides)
    t["track_spaces"] = moon.tracks.spaces
    t["n_letters"] = len(letters)
    for index, letter in enumerate(letters):
        t["side_of_letter"][index] = [side_index[f"{letter}{side}"] for side in range(1, TRACK_TILE_SIDES + 1)]
    for index, side in enumerate(sides):
        t["side_rank"][index] = ordered_ids.index(side.id)
        for barrier in side.barriers:
            t["barrier_price"][index, barrier.after] = barrier.price
        for threshold in side.thresholds:
            t["threshold_reward"][index, threshold.after] = threshold.reward
    track_passages(t["barrier_price"], t["threshold_reward"], moon.tracks.spaces, t["track_cost"], t["track_gain"])

    t["n_columns"] = stations.columns
    t["column_size"] = len(stations.coin_icons)
    t["coin_prefix"][: len(stations.coin_icons) + 1] = np.cumsum([0, *stations.coin_icons])
    t["n_sectors"] = sector_count
    t["touches_mask"] = [_sector_mask(sectors) for sectors in touches]
    for sector, neighbours in enumerate(moon.sectors.adjacent, start=1):
        t["adjacent_mask"][sector] = _sector_mask(neighbours)
    for company, sectors in enumerate(setup):
        t["setup_count"][company] = len(sectors)
        t["setup_sectors"][company, : len(sectors)] = sectors

    t["n_action_cards"] = len(action_cards)
    t["action_share"][: len(action_cards)] = [companies.index(c.share) if c.share else -1 for c in action_cards]
    resources = [[getattr(card, name) for name in RESOURCE_TYPES] for card in action_cards]
    t["action_price"][: len(action_cards)] = [card.price for card in action_cards]
    t["action_resources"][: len(action_cards)] = np.array(resources, dtype=np.int64).reshape(-1, N_RESOURCE_TYPES)
    t["action_resource_sum"][: len(action_cards)] = [sum(values) for values in resources]
    t["row_deck"] = moon.research.row_deck
    t["n_special"] = moon.research.special_plans
    t["special_face_up_at_start"] = moon.research.special_face_up_at_start
    t["n_tokens"] = len(tokens)
    t["token_helium"][: len(tokens)] = [token.helium or 0 for token in tokens]
    t["token_company"][: len(tokens)] = [companies.index(token.company) if token.company else -1 for token in tokens]
    t["token_steps"][: len(tokens)] = [token.steps or 0 for token in tokens]
    t["rules"] = [reading_code(switch, reading) for switch, reading in luna.rules.readings().items()]
    t["rules_any"] = int(any(t["rules"]))
    if config.board == "belt":
        _belt_tables(t, data)
    return record


def _belt_tables(t: np.void, data: GameData) -> None:
    """The Belt's tables (``reference.BeltRules`` and ``setup_belt``); the Moon's setup outposts go."""
    belt = data.belt
    targets = belt.spaces.targets
    t["board_belt"] = 1
    t["setup_count"] = 0
    t["belt_count"] = len(targets)
    t["belt_asteroid"] = _sector_mask(target.id for target in targets if target.kind == "asteroid")
    for target in targets:
        t["belt_capacity"][target.id] = target.capacity
        t["belt_adjacent"][target.id] = _sector_mask(target.adjacent)
    t["belt_shuttles"] = belt.stations.shuttles
    for company, name in enumerate(data.moon.companies):
        touched = sorted(belt.stations.touches[name])
        t["belt_touches"][company] = _sector_mask(touched)
        asteroids = [target for target in touched if targets[target - 1].kind == "asteroid"]
        if asteroids:
            t["belt_setup_count"][company] = belt.stations.setup_outposts
            t["belt_setup_target"][company] = asteroids[0]
    t["belt_outpost_reward"] = belt.rewards.outpost_space
    t["belt_shuttle_reward"] = belt.rewards.shuttle_space
