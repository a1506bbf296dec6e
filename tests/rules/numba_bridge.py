"""The rules tests' bridge to the numba engine: a reference ``GameState`` to one numba state record and back.

This is the ONLY module of the rules tests that knows the numba engine's insides (the kernels of
``sim/fast/`` by module, ``STATE_DTYPE`` and its field names, the table encoding of a card action). When
the engine's modules move, merge or rename a kernel, re-point the imports below and the calls in
``_apply``; nothing else in the tests changes.

How a rule is run on the numba side (``run``): the reference state is written into a fresh state record
(``to_record``), the derived caches the kernels keep beside the facts (owner, occupied and reach masks,
company values, vacant counts, the value order) are rebuilt by the kernels' own helpers, one kernel
function runs on the record, and every field the record holds is written back into the same reference
objects (``from_record``), so a test asserts on the reference state exactly as it does for the
reference engine.

Facts only the reference keeps, and how they come back:

* Luna's unfired tokens: the numba engine reads them from the level's table (a marker never moves
  back in a game), so a reference state whose token list differs from the table ahead of her marker
  cannot be represented (``UnrepresentableError``); after a move, the tokens between the old and the new
  marker are the ones that fired.
* ``LunaState.cards_played``: counted from the slots the kernel resolved (``luna_turn``: the slot its
  turn pointer passed; ``play_round``: the round record's cards).
* the order of a seat's collected cards: cards still held keep their order, new ones follow in the
  order of the display spaces they were taken from (one card action takes them in that order; over
  several turns of a round the order is lost, and no rule reads it).
* ``Stream.draws``: recovered from the stream state's advance (the state moves by a fixed odd constant
  per draw).
* a scripted seat's ``plans_taken``: counted when a player's research action leaves the space it aimed
  at without the plan that lay there (``player_research_action``, ``player_turn``; not over a round).

Compilation: one jitted dispatcher (``_apply``) with a single signature calls every kernel function a
test needs, so the tests compile one function. It is defined with the engine's own decorator
(``sim.fast._jit.jit``), so it is cached on disk in the engine's cache folder, which is named after a
hash of the kernels' sources: numba itself checks a cached function only against the file that defines
it (this one), so before the folder was hashed a cached dispatcher kept running an old copy of the
kernels after a kernel changed, and a kernel broken on purpose left every numba clause test passing.
Now an edit of any kernel source gives a fresh folder and ``_apply`` is compiled anew with the kernels.
"""

from __future__ import annotations

import numpy as np

from sim import reference as ref
from sim.columns import ROUND_CARD_COLUMNS, ROUND_MAJORITY_CARD_COLUMNS, ROUND_NUMERIC
from sim.constants import ACTION_KINDS, MAJORITY_TYPES
from sim.fast._jit import jit
from sim.fast.board import (
    advance_track,
    column_coins,
    ensure_order,
    expand_company,
    flip_special_plan,
    lead_margins,
    reachable,
    return_column,
    select_companies,
    set_owner,
    station_totals,
    take_column,
)
from sim.fast.game import final_scores, play_round, preparation, setup_template
from sim.fast.game import setup as setup_game  # the bridge's own setup() below would shadow it
from sim.fast.invariants import CHECK_NAMES, check_scores, check_state
from sim.fast.luna import (
    TANK,
    UPLOAD,
    draw_luna_card,
    end_luna_actions,
    luna_turn,
    move_marker,
    plan_luna,
    resolve_card,
)
from sim.fast.players import (
    choose_aim,
    count_blocked_majorities,
    luna_majority_values,
    plan_player,
    player_bonus,
    player_buy,
    player_expand,
    player_invest,
    player_research_action,
    player_turn,
)
from sim.fast.state import DECK, DISCARD, SEAT_INT_COLUMNS, STACK, STATE_DTYPE
from sim.gamedata import GameData
from sim.rng import GOLDEN_GAMMA, MASK64, seat_stream
from sim.tables import _SELECTIONS, _encode_action, compile_tables

_INVERSE_GAMMA = pow(GOLDEN_GAMMA, -1, 1 << 64)


class UnrepresentableError(ValueError):
    """The reference state holds a fact the numba state cannot (see the module docstring)."""


# ---------------------------------------------------------------- the kernels, by operation number

(SYNC, GAIN_HELIUM, ADVANCE_RESEARCH, ADVANCE_TRACK, DRAW_LUNA_CARD, ORDER, SELECT, LEAD_MARGINS, EXPAND,
 TAKE_COLUMN, RETURN_COLUMN, RESOLVE_CARD, PLAN_LUNA, LUNA_TURN, END_LUNA_ACTIONS, PREPARATION, PLAY_ROUND,
 FINAL_SCORES, FLIP_SPECIAL_PLAN, SETUP, COLUMN_COINS, REACHABLE, PLAYER_HELIUM, PLAYER_RESEARCH, PLAN_PLAYER,
 CHOOSE_AIM, COUNT_BLOCKED, LUNA_MAJORITY_VALUES, PLAYER_TURN, PLAYER_INVEST, PLAYER_EXPAND, PLAYER_RESEARCH_ACTION,
 PLAYER_BUY, PLAYER_BONUS) = range(34)


@jit
def _apply(tables, state, op, a, b, c, d, e):
    """Run kernel operation ``op`` on ``state[0]`` with the arguments it takes from ``a``-``e``.

    The records travel inside one-element arrays: numba passes an array by reference, so the kernel's
    changes land in the caller's record (a record scalar passed from Python would be a copy). The kernels run
    their general path (``general``: ``sim/fast/luna.py``'s module docstring), the one every board side and
    rule reading takes; the everyday engine is that path with the hand-overs to the Belt and the readings
    pruned, and plays the whole games of ``tests/test_engine_exactness.py``."""
    t = tables[0]
    st = state[0]
    general = True
    if op == SYNC:  # rebuild the caches the kernels keep beside the facts, with their own helpers
        st.owned[:] = 0
        st.occupied = 0
        st.reach[:] = t.touches_mask
        for sector in range(1, t.n_sectors + 1):
            owner = st.sector_owner[sector]
            st.sector_owner[sector] = -1
            set_owner(t, st, sector, owner)
        for company in range(4):
            st.value[company], st.vacant_sum[company] = station_totals(t, st, company)
        st.order_dirty = 1
        ensure_order(t, st)
        st.display_empty = 0
        for space in range(st.display.shape[0]):
            if st.display[space] == -1:
                st.display_empty |= np.uint64(1) << np.uint64(space)
        return 0
    if op == GAIN_HELIUM or op == PLAYER_HELIUM:  # one marker mover for Luna and scripted seats
        move_marker(t, st, a, TANK, b)
    elif op == ADVANCE_RESEARCH or op == PLAYER_RESEARCH:
        move_marker(t, st, a, UPLOAD, b)
    elif op == ADVANCE_TRACK:
        advance_track(t, st, a, b, c)
    elif op == DRAW_LUNA_CARD:
        return draw_luna_card(t, st, a)
    elif op == ORDER:
        ensure_order(t, st)
    elif op == SELECT:
        select_companies(t, st, a, b, c, d)
    elif op == LEAD_MARGINS:
        lead_margins(t, st, a)
    elif op == EXPAND:
        expand_company(t, st, a, b, c)
    elif op == TAKE_COLUMN:
        return take_column(t, st, a)
    elif op == RETURN_COLUMN:
        return return_column(t, st, a)
    elif op == RESOLVE_CARD:
        resolve_card(t, st, a, b, c, general)
    elif op == PLAN_LUNA:
        plan_luna(t, st, a, general)
    elif op == LUNA_TURN:
        luna_turn(t, st, a, general)
    elif op == END_LUNA_ACTIONS:
        end_luna_actions(t, st, a, general)
    elif op == PREPARATION:
        preparation(t, st)
    elif op == PLAY_ROUND:
        play_round(t, st, a != 0, general)
    elif op == FINAL_SCORES:
        final_scores(t, st, a)
    elif op == FLIP_SPECIAL_PLAN:
        flip_special_plan(t, st)
    elif op == SETUP:  # a game starts from the template record (sim/fast/state.py)
        setup_template(t, st, general)
        setup_game(t, st, np.uint64(a), b)
    elif op == COLUMN_COINS:
        return column_coins(t, a)
    elif op == REACHABLE:
        return np.int64(reachable(t, st, a))
    elif op == PLAN_PLAYER:
        plan_player(t, st, a)
    elif op == CHOOSE_AIM:
        choose_aim(t, st, a, b, c)
    elif op == COUNT_BLOCKED:
        count_blocked_majorities(t, st)
    elif op == LUNA_MAJORITY_VALUES:
        luna_majority_values(t, st)
    elif op == PLAYER_TURN:
        player_turn(t, st, a, general)
    elif op == PLAYER_INVEST:
        player_invest(t, st, a, b)
    elif op == PLAYER_EXPAND:
        player_expand(t, st, a, b, general)
    elif op == PLAYER_RESEARCH_ACTION:
        player_research_action(t, st, a, b, c, d, e)
    elif op == PLAYER_BUY:
        player_buy(t, st, a, b)
    elif op == PLAYER_BONUS:
        player_bonus(t, st, a)
    return 0


# ---------------------------------------------------------------- tables


def use_data(rules: ref.Rules, data: GameData) -> None:
    """Tell the bridge which game data ``rules`` were built from (only needed for an overlay)."""
    rules._numba_data = data  # a test-side note on the rules object


def tables_for(rules: ref.Rules) -> np.ndarray:
    """The numba tables (``compile_tables``) of the data and configuration ``rules`` were built from."""
    tables = rules.__dict__.get("_numba_tables")
    if tables is None:
        data = rules.__dict__.get("_numba_data") or _shipped_data()
        if rules.cards is not data.luna.cards:
            raise ValueError("rules built from other game data: call numba_bridge.use_data(rules, data) first")
        tables = compile_tables(data, rules.config)
        rules._numba_tables = tables
    return tables


def _shipped_data() -> GameData:
    from .helpers import game_data  # the same cached object the helpers build their rules from

    return game_data()


def one_action_tables(rules: ref.Rules, action) -> tuple[np.ndarray, int]:
    """Tables with one extra Luna card whose only action is ``action``, and that card's index.

    The numba engine runs a card's actions as a whole (``resolve_card``); a clause test of one action
    (gain_card, discard_research_plan, place_bonus_marker) resolves this one-action card instead."""
    tables = tables_for(rules).copy()
    card = len(rules.cards)
    start = int(tables["card_op_start"][0, card])
    tables["ops"][0, start] = _encode_action(action)
    tables["card_op_start"][0, card + 1] = start + 1
    return tables, card


def selection(name: str) -> tuple[int, int, int]:
    """A company selection's encoding: (rank by lead, first position, count)."""
    return _SELECTIONS[name]


# ---------------------------------------------------------------- reference state -> record


def _streams(rngs) -> list:
    """(seat, stream) pairs of a list of every seat's stream or a dict of some seats' streams."""
    return list(rngs.items()) if isinstance(rngs, dict) else list(enumerate(rngs))


def _luna_tokens_ahead(tables: np.ndarray, luna: ref.LunaState) -> None:
    """Refuse a state whose unfired tokens ahead of a marker differ from the level's table."""
    for marker, tokens, field in ((luna.helium, luna.helium_tokens, "level_helium_token"),
                                  (luna.research, luna.research_tokens, "level_research_token")):
        table = tables[field][0, luna.level]
        in_table = {p for p in range(marker + 1, len(table)) if table[p]}
        if in_table != {p for p in tokens if p > marker}:
            raise UnrepresentableError(
                f"Luna tokens ahead of marker {marker}: {sorted(tokens)}, the level's table: {sorted(in_table)}")


def to_record(rules: ref.Rules, state: ref.GameState, rngs=None, tables: np.ndarray | None = None) -> np.ndarray:
    """A one-element ``STATE_DTYPE`` array holding ``state`` (and the seat streams ``rngs``, if given)."""
    tables = tables_for(rules) if tables is None else tables
    rec = np.zeros(1, STATE_DTYPE)
    r = rec[0]
    if rngs is not None:
        for seat, stream in _streams(rngs):
            r["rng"][seat_stream(seat)] = stream.state
    rec["round"] = state.round
    r["track_side"][:] = state.track_side
    for seat, positions in enumerate(state.track_position):
        r["track_pos"][seat] = positions
    sectors = len(state.sector_owner)
    r["sector_owner"][:sectors] = state.sector_owner
    r["placer"][:sectors] = state.sector_placer
    for company, vacant in enumerate(state.station_vacant):
        r["vacant"][company, : len(vacant)] = vacant
    r["action_deck"][: len(state.action_deck)] = state.action_deck
    rec["action_deck_len"] = len(state.action_deck)
    r["display"][:] = state.display
    r["plan_rows"][:] = state.plan_rows
    r["plan_decks"][:] = state.plan_decks
    r["plan_generation"][:] = state.plan_generation
    r["luna_discarded"][:] = [[sum(1 << g for g in gens) for gens in row] for row in state.luna_discarded]
    r["special"][: len(state.special_plans)] = state.special_plans
    rec["specials_flipped"] = state.specials_flipped
    r["bonus_owner"][:] = [owner for row in state.bonus_space_owner for owner in row]
    rec["scientist_owner"] = state.scientist_space_owner
    r["card_holder"][:] = ref.NOBODY
    r["slots"][:] = ref.NO_CARD
    r["majority"][:] = ref.NO_CARD
    for seat, holder in enumerate(state.seats):
        r["cash"][seat] = holder.cash
        r["cards_gained"][seat] = len(holder.cards)
        for card in holder.cards:
            r["card_holder"][card] = seat
            if rules.card_share[card] != ref.NO_COMPANY:
                r["card_shares"][seat, rules.card_share[card]] += 1
        if holder.luna is not None:
            _luna_to_record(tables, r, seat, holder.luna)
        else:
            _player_to_record(r, seat, holder.player)
    _apply(tables, rec, SYNC, 0, 0, 0, 0, 0)
    return rec


def _luna_to_record(tables: np.ndarray, r, seat: int, luna: ref.LunaState) -> None:
    _luna_tokens_ahead(tables, luna)
    for pile, cards in ((DECK, luna.deck), (STACK, luna.grade2_stack), (DISCARD, luna.discard)):
        r["piles"][seat, pile, : len(cards)] = cards
        r["pile_len"][seat, pile] = len(cards)
    r["slots"][seat] = luna.slots
    r["slot_on"][seat] = luna.slot_on
    r["majority"][seat] = luna.majority
    r["markers"][seat] = luna.markers_in_reserve
    r["helium"][seat], r["research"][seat] = luna.helium, luna.research
    r["next_slot"][seat] = luna.next_turn_slot
    r["passed"][seat] = luna.passed
    r["reshuffles"][seat] = luna.reshuffles
    r["grade2_by_reshuffle"][seat], r["grade2_by_token"][seat] = luna.grade2_by_reshuffle, luna.grade2_by_token
    r["markers_placed"][seat] = luna.bonus_markers_placed
    r["plans_discarded"][seat] = luna.plans_discarded
    r["outposts_placed"][seat], r["ousted"][seat] = luna.outposts_placed, luna.ousted
    r["slot_first_round"][seat] = luna.slot_first_round


def _player_to_record(r, seat: int, player: ref.PlayerState) -> None:
    r["markers"][seat] = player.markers_in_reserve
    r["helium"][seat], r["research"][seat] = player.helium, player.research
    r["slot_on"][seat] = player.slot_on
    r["passed"][seat] = player.passed
    r["carry"][seat] = player.carry
    r["totals"][seat] = player.totals
    r["card_resources"][seat] = player.card_resources
    r["pending_resources"][seat] = player.pending_resources
    r["plan"][seat, : len(player.plan)] = player.plan
    r["plan_len"][seat] = len(player.plan)
    r["next_action"][seat] = player.next_action
    for i, aim in enumerate(player.aims):
        r["aims"][seat, i] = aim
    r["blocked"][seat] = player.blocked
    r["bonus_spaces_lost"][seat] = player.bonus_spaces_lost
    r["cards_lost"][seat], r["plans_lost"][seat] = player.cards_lost, player.plans_lost
    r["outposts_ousted_by_luna"][seat] = player.outposts_ousted_by_luna
    r["markers_placed"][seat] = player.bonus_markers_placed
    r["outposts_placed"][seat] = player.outposts_placed


# ---------------------------------------------------------------- record -> the same reference objects


def from_record(rules: ref.Rules, rec: np.ndarray, state: ref.GameState, rngs=None,
                played: dict[int, list[int]] | None = None) -> None:
    """Write every fact ``rec`` holds back into ``state`` (and ``rngs``), in place.

    ``played``: per Luna seat, the slots whose cards the kernel resolved (for ``cards_played``)."""
    r = rec[0]
    if rngs is not None:
        for seat, stream in _streams(rngs):
            new = int(r["rng"][seat_stream(seat)])
            stream.draws += ((new - stream.state) * _INVERSE_GAMMA) & MASK64
            stream.state = new
    state.round = int(r["round"])
    state.track_side = r["track_side"].tolist()
    state.track_position = [r["track_pos"][seat].tolist() for seat in range(len(state.seats))]
    sectors = len(state.sector_owner)
    state.sector_owner = r["sector_owner"][:sectors].tolist()
    state.sector_placer = r["placer"][:sectors].tolist()
    state.station_vacant = [r["vacant"][company, : rules.columns].tolist() for company in range(4)]
    display_before = list(state.display)
    state.action_deck = r["action_deck"][: int(r["action_deck_len"])].tolist()
    state.display = r["display"].tolist()
    state.plan_rows = [[bool(x) for x in row] for row in r["plan_rows"]]
    state.plan_decks = r["plan_decks"].tolist()
    state.plan_generation = r["plan_generation"].tolist()
    state.luna_discarded = [[{g for g in range(63) if bits >> g & 1} for bits in row.tolist()]
                            for row in r["luna_discarded"]]
    state.special_plans = r["special"][: len(state.special_plans)].tolist()
    state.specials_flipped = int(r["specials_flipped"])
    state.bonus_space_owner = r["bonus_owner"].reshape(3, 4).tolist()
    state.scientist_space_owner = int(r["scientist_owner"])
    for seat, holder in enumerate(state.seats):
        holder.cash = int(r["cash"][seat])
        _cards_back(rules, r, seat, holder, display_before)
        if holder.luna is not None:
            _luna_back(r, seat, holder.luna, (played or {}).get(seat, []))
        else:
            _player_back(r, seat, holder.player)


def _cards_back(rules: ref.Rules, r, seat: int, holder: ref.SeatState, display_before: list[int]) -> None:
    held = {int(card) for card in np.flatnonzero(r["card_holder"][: len(rules.action_cards)] == seat)}
    kept = [card for card in holder.cards if card in held]
    new = [card for card in display_before if card in held and card not in kept]
    if set(kept + new) != held:
        raise AssertionError(f"seat {seat} holds cards that were neither its own nor on the display: {sorted(held)}")
    holder.cards = kept + new
    shares = [0] * 4
    for card in holder.cards:
        if rules.card_share[card] != ref.NO_COMPANY:
            shares[rules.card_share[card]] += 1
    if int(r["cards_gained"][seat]) != len(holder.cards) or r["card_shares"][seat].tolist() != shares:
        raise AssertionError(f"seat {seat}: the kernel's card counters disagree with the cards it holds")


def _luna_back(r, seat: int, luna: ref.LunaState, played: list[int]) -> None:
    old_helium, old_research = luna.helium, luna.research
    luna.deck = r["piles"][seat, DECK, : r["pile_len"][seat, DECK]].tolist()
    luna.grade2_stack = r["piles"][seat, STACK, : r["pile_len"][seat, STACK]].tolist()
    luna.discard = r["piles"][seat, DISCARD, : r["pile_len"][seat, DISCARD]].tolist()
    luna.slots = r["slots"][seat].tolist()
    luna.slot_on = [bool(x) for x in r["slot_on"][seat]]
    luna.majority = r["majority"][seat].tolist()
    luna.markers_in_reserve = int(r["markers"][seat])
    luna.helium, luna.research = int(r["helium"][seat]), int(r["research"][seat])
    luna.helium_tokens = [p for p in luna.helium_tokens if not old_helium < p <= luna.helium]
    luna.research_tokens = [p for p in luna.research_tokens if not old_research < p <= luna.research]
    luna.next_turn_slot = int(r["next_slot"][seat])
    luna.passed = bool(r["passed"][seat])
    luna.reshuffles = int(r["reshuffles"][seat])
    luna.grade2_by_reshuffle = int(r["grade2_by_reshuffle"][seat])
    luna.grade2_by_token = int(r["grade2_by_token"][seat])
    luna.bonus_markers_placed = int(r["markers_placed"][seat])
    luna.plans_discarded = int(r["plans_discarded"][seat])
    luna.outposts_placed, luna.ousted = int(r["outposts_placed"][seat]), int(r["ousted"][seat])
    luna.slot_first_round = r["slot_first_round"][seat].tolist()
    for slot in played:
        luna.cards_played[slot] += 1


def _player_back(r, seat: int, player: ref.PlayerState) -> None:
    player.markers_in_reserve = int(r["markers"][seat])
    player.helium, player.research = int(r["helium"][seat]), int(r["research"][seat])
    player.slot_on = [bool(x) for x in r["slot_on"][seat]]
    player.passed = bool(r["passed"][seat])
    player.carry = float(r["carry"][seat])
    player.totals = r["totals"][seat].tolist()
    player.card_resources = r["card_resources"][seat].tolist()
    player.pending_resources = r["pending_resources"][seat].tolist()
    n = int(r["plan_len"][seat])
    player.plan = r["plan"][seat, :n].tolist()
    player.aims = [tuple(aim) for aim in r["aims"][seat, :n].tolist()]
    player.next_action = int(r["next_action"][seat])
    player.blocked = r["blocked"][seat].tolist()
    player.bonus_spaces_lost = int(r["bonus_spaces_lost"][seat])
    player.cards_lost, player.plans_lost = int(r["cards_lost"][seat]), int(r["plans_lost"][seat])
    player.outposts_ousted_by_luna = int(r["outposts_ousted_by_luna"][seat])
    player.bonus_markers_placed = int(r["markers_placed"][seat])
    player.outposts_placed = int(r["outposts_placed"][seat])


# ---------------------------------------------------------------- one kernel call on a reference state


def kernel_value(rules: ref.Rules, op: int, a: int = 0) -> int:
    """A kernel operation that reads only the tables (``COLUMN_COINS``)."""
    return int(_apply(tables_for(rules), np.zeros(1, STATE_DTYPE), op, a, 0, 0, 0, 0))


def setup(rules: ref.Rules, seed: int, game: int, state: ref.GameState, rngs: list) -> None:
    """The kernel's setup of game (``seed``, ``game``), in a zeroed record, written over ``state`` and ``rngs``.

    ``state`` is the reference's setup of the same game: it supplies only what the record does not hold."""
    rec = np.zeros(1, STATE_DTYPE)
    _apply(tables_for(rules), rec, SETUP, seed, game, 0, 0, 0)
    from_record(rules, rec, state, rngs)


def peek(rules: ref.Rules, state: ref.GameState, op: int, *args: int) -> np.ndarray:
    """Run kernel operation ``op`` on a converted copy of ``state``, leaving ``state`` alone; the record."""
    tables = tables_for(rules)
    rec = to_record(rules, state, None, tables)
    _apply(tables, rec, op, *args, *[0] * (5 - len(args)))
    return rec


def run(rules: ref.Rules, state: ref.GameState, rngs, op: int, a: int = 0, b: int = 0, c: int = 0, d: int = 0,
        e: int = 0, *, tables: np.ndarray | None = None, chosen: list[int] | None = None) -> tuple[np.ndarray, int]:
    """Run kernel operation ``op`` on ``state`` (converted), write the result back; (record, return value).

    ``chosen``: the companies a card's last advance chose (the input of ``expand_company``)."""
    tables = tables_for(rules) if tables is None else tables
    rec = to_record(rules, state, rngs, tables)
    if chosen is not None:
        rec[0]["chosen"][: len(chosen)] = chosen
        rec["n_chosen"] = len(chosen)
    if op == PLAY_ROUND:
        a = 1  # always keep the round records: they tell which slots were played
    aimed_plan = _aimed_plan(state, op, a, c, d)
    value = int(_apply(tables, rec, op, a, b, c, d, e))
    if aimed_plan is not None:
        _count_plan_taken(state, rec, a, *aimed_plan)
    played: dict[int, list[int]] = {}
    if op == LUNA_TURN:
        luna, stop = state.seats[a].luna, int(rec[0]["next_slot"][a])
        played[a] = [slot for slot in range(luna.next_turn_slot, min(stop, 5)) if luna.slots[slot] != ref.NO_CARD]
    elif op == PLAY_ROUND:
        for seat, record in round_records(rules, rec).items():
            played[seat] = [slot for slot, card in enumerate(record.cards) if card != ref.NO_CARD]
    from_record(rules, rec, state, rngs, played)
    return rec, value


def _aimed_plan(state: ref.GameState, op: int, seat: int, row: int, space: int) -> tuple[int, int, int, bool] | None:
    """(row, space, generation, a plan lies there) of the research plan a player's action is about to take."""
    if op == PLAYER_TURN:
        player = state.seats[seat].player
        if ACTION_KINDS[player.plan[player.next_action]] != "research":
            return None
        row, space, _ = player.aims[player.next_action]
    elif op != PLAYER_RESEARCH_ACTION:
        return None
    if row < 0:
        return None
    return row, space, state.plan_generation[row][space], state.plan_rows[row][space]


def _count_plan_taken(state: ref.GameState, rec: np.ndarray, seat: int, row: int, space: int, generation: int,
                      present: bool) -> None:
    """``plans_taken``, which the numba state does not keep: the plan that lay there left the space."""
    r = rec[0]
    if present and (not r["plan_rows"][row, space] or r["plan_generation"][row, space] != generation):
        state.seats[seat].player.plans_taken += 1


# ---------------------------------------------------------------- reading results off a record


def luna_values(rec: np.ndarray) -> list[int]:
    return rec[0]["luna_values"].tolist()


def aim(rec: np.ndarray, seat: int, n: int) -> tuple[int, int, int]:
    return tuple(rec[0]["aims"][seat, n].tolist())


def chosen(rec: np.ndarray) -> list[int]:
    return rec[0]["chosen"][: int(rec[0]["n_chosen"])].tolist()


def order(rec: np.ndarray) -> list[int]:
    return rec[0]["order"].tolist()


def margins(rec: np.ndarray) -> list[int]:
    return rec[0]["margin"].tolist()


def values(rec: np.ndarray) -> list[int]:
    return rec[0]["value"].tolist()


def final_rows(rules: ref.Rules, rec: np.ndarray) -> list[dict]:
    """``final_scores``' rows from the record's result rows (every column the kernel fills)."""
    rows = []
    for seat in range(len(rules.config.seats)):
        values = rec[0]["result"][seat].tolist()
        row = {name: int(v) for name, v in zip(SEAT_INT_COLUMNS, values, strict=True) if name not in ("game", "seat")}
        row["won"] = float(rec[0]["won"][seat])
        rows.append(row)
    return rows


def round_records(rules: ref.Rules, rec: np.ndarray) -> dict[int, ref.RoundRecord]:
    """This round's record of each Luna seat, from the record's detail rows."""
    column = {name: k for k, name in enumerate(ROUND_NUMERIC)}
    records = {}
    for k, seat in enumerate(rules.config.luna_seats):
        row = rec[0]["round_rows"][k, int(rec[0]["round"]) - 1].tolist()
        records[seat] = ref.RoundRecord(
            round=row[column["round"]], cards=[row[column[name]] for name in ROUND_CARD_COLUMNS],
            majority_cards=[row[column[name]] for name in ROUND_MAJORITY_CARD_COLUMNS],
            majority_values=[row[column[f"majority_{name}"]] for name in MAJORITY_TYPES],
            reshuffles=row[column["reshuffles"]], grade2_by_reshuffle=row[column["grade2_by_reshuffle"]],
            grade2_by_token=row[column["grade2_by_token"]], deck_size_start=row[column["deck_size_start"]],
            helium=row[column["helium"]], research=row[column["research"]], cash=row[column["cash"]])
    return records


# ---------------------------------------------------------------- the engine's own invariant checks


def invariant_report(rules: ref.Rules, rec: np.ndarray, final: bool = False) -> tuple[str, int | None, int]:
    """The numba engine's first broken invariant of ``rec``: (check name, seat or None for the board, round).

    ``("none", None, round)`` when every invariant holds; ``final``: the end-of-game score check on the
    record's result rows instead of the state checks."""
    check, seat, rnd = (check_scores if final else check_state)(tables_for(rules)[0], rec[0])
    return CHECK_NAMES[check], None if seat < 0 else int(seat), int(rnd)
