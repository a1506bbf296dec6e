"""Luna: her deck, her tank and upload tracks, a card's actions, her majority values, plan and turns.

Each kernel mirrors the ``sim/reference/luna.py`` function named in its docstring.

Rule readings (SPEC section 8) and the Belt side: ``plan_luna``, ``luna_turn``, ``resolve_card``,
``end_luna_actions`` and ``card_ops`` run the Moon under the shipped readings on a path of their own and hand
over to their general version (``*_readings``, :func:`expand_general`) when any reading differs
(``tables.rules_any``) or the board is the Belt. ``general`` is ``None`` or ``True``, like ``check`` in
``game.play_game``: with ``None`` numba prunes the hand-overs before typing them, so the everyday engine
neither compiles nor carries the Belt's and the readings' kernels (a cold compile of 24 s rather than 41 s,
issue 9); ``sim.fast.kernel`` plays a game with ``True`` when its tables need either.
"""

from __future__ import annotations

from sim.constants import N_COMPANIES, N_SLOTS
from sim.fast._jit import jit
from sim.fast.belt import expand_company_belt
from sim.fast.board import (
    advance_track,
    discard_latest_special,
    discard_plans,
    ensure_order,
    expand_company,
    gain_cards,
    gain_most_valuable_share,
    place_bonus_markers,
    select_companies,
)
from sim.fast.branch_history import card_mark, mark_branch_history
from sim.fast.rng import below, seat_stream, shuffle
from sim.fast.state import DECK, DISCARD, N_SIDES, NO_CARD, STACK
from sim.tables import (
    DECIDES_DISCARD_PILE,
    HELIUM_THEN_RESEARCH,
    MAJORITY_FIRST,
    MORE_VALUABLE_FIRST,
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
    REBUILD_IMMEDIATE,
    REVEAL_FIRST_TURN,
    REVEAL_HELIUM,
    REVEAL_RESEARCH,
    RULE_DRAW_ORDER,
    RULE_EARLY_DISCARD,
    RULE_MULTI_EXPAND,
    RULE_REBUILD,
    RULE_REVEAL_TIMING,
    RULE_STEP_ORDER,
)

TANK, UPLOAD = 0, 1  # the two marker tracks of move_marker: helium, research
SLOT_A, SLOT_E = 0, N_SLOTS - 1  # the slots the tank and upload switches turn ON

# ---------------------------------------------------------------- Luna's deck


@jit
def rebuild_deck(t, st, seat):
    """``rebuild_deck``: the discard pile plus one grade-2 card, shuffled, becomes her deck."""
    if st.pile_len[seat, DISCARD] == 0 and st.pile_len[seat, STACK] == 0:
        return
    n = st.pile_len[seat, DISCARD]
    for i in range(n):
        st.piles[seat, DECK, i] = st.piles[seat, DISCARD, i]
    st.pile_len[seat, DISCARD] = 0
    if t.level_grade2[t.seat_level[seat]] and st.pile_len[seat, STACK] > 0:
        st.pile_len[seat, STACK] -= 1
        st.piles[seat, DECK, n] = st.piles[seat, STACK, st.pile_len[seat, STACK]]
        n += 1
        st.grade2_by_reshuffle[seat] += 1
    shuffle(st, seat_stream(seat), st.piles[seat, DECK, :n])
    st.reshuffles[seat] += 1
    st.pile_len[seat, DECK] = n


@jit(inline="always")
def draw_luna_card(t, st, seat):
    """``draw_luna_card``: top card; an empty deck is rebuilt first (and, reading ``rebuild = immediate``,
    as soon as the last card is drawn)."""
    n = st.pile_len[seat, DECK]
    if n > 1 or (n == 1 and t.rules_any == 0):  # the common case, small enough to be inlined where she draws
        st.pile_len[seat, DECK] = n - 1
        return st.piles[seat, DECK, n - 1]
    return _rebuild_and_draw(t, st, seat)


@jit
def _rebuild_and_draw(t, st, seat):
    """:func:`draw_luna_card` from an empty deck, or its last card when a reading may rebuild it at once."""
    if st.pile_len[seat, DECK] == 0:
        rebuild_deck(t, st, seat)
    n = st.pile_len[seat, DECK]
    if n == 0:
        return NO_CARD
    st.pile_len[seat, DECK] = n - 1
    card = st.piles[seat, DECK, n - 1]
    if n == 1 and t.rules[RULE_REBUILD] == REBUILD_IMMEDIATE:
        rebuild_deck(t, st, seat)
    return card


@jit(inline="always")
def fire_token(st, seat):
    """``fire_token``: one grade-2 card face down on top of her deck, if the stack has one."""
    if st.pile_len[seat, STACK] > 0:
        st.pile_len[seat, STACK] -= 1
        st.piles[seat, DECK, st.pile_len[seat, DECK]] = st.piles[seat, STACK, st.pile_len[seat, STACK]]
        st.pile_len[seat, DECK] += 1
        st.grade2_by_token[seat] += 1


@jit(inline="always")
def discard(st, seat, card):
    """A card face up on top of her discard pile."""
    st.piles[seat, DISCARD, st.pile_len[seat, DISCARD]] = card
    st.pile_len[seat, DISCARD] += 1


# ---------------------------------------------------------------- the tank and upload tracks

@jit
def move_marker(t, st, seat, track, steps):
    """``move_marker``: a seat's tank (``TANK``) or upload (``UPLOAD``) marker forward ``steps`` spaces.

    Reaching the switch space turns slot A (tank) or E (upload) ON, except at a Luna level without
    switches; reaching a Luna token fires it (a marker only moves forward, so each token is reached at
    most once, as the reference's removal from its token list ensures); each step past the end pays.
    The reference moves step by step; the steps' effects are independent of each other (cash, a switch,
    tokens firing from the stack onto the deck), so they are applied at once: the switch when its space
    lies in the move, each token in it fired (``level_*_tokens_upto``), the steps past the end paid.
    """
    position, reached = step_marker(t, st, seat, track, steps)
    level = t.seat_level[seat]
    if level >= 0 and reached > position:
        if track == TANK:
            tokens = t.level_helium_tokens_upto[level, reached] - t.level_helium_tokens_upto[level, position]
        else:
            tokens = t.level_research_tokens_upto[level, reached] - t.level_research_tokens_upto[level, position]
        for _ in range(tokens):
            fire_token(st, seat)


@jit(inline="always")
def step_marker(t, st, seat, track, steps):
    """``move_marker`` without the Luna tokens: the marker, the switch, the steps past the end; the spaces
    moved from and to. Setup moves a starting bonus with it: the reference places her tokens only after
    the bonus (``place_luna_tokens``), and the tokens it passed lie behind her marker for good."""
    if track == TANK:
        end, switch_at, slot = t.tank_max, t.tank_switch_at, SLOT_A
        position = st.helium[seat]
    else:
        end, switch_at, slot = t.research_max, t.research_switch_at, SLOT_E
        position = st.research[seat]
    if steps <= 0:
        return position, position
    moved = min(steps, max(end - position, 0))
    if moved < steps:
        st.cash[seat] += t.past_end * (steps - moved)
    reached = position + moved
    if moved == 0:
        return position, reached
    if track == TANK:
        st.helium[seat] = reached
    else:
        st.research[seat] = reached
    level = t.seat_level[seat]
    if position < switch_at <= reached and (level < 0 or t.level_switches[level]):
        st.slot_on[seat, slot] = 1
    return position, reached


# ---------------------------------------------------------------- a card's actions

@jit(inline="always")
def resolve_card(t, st, seat, card, slot, general):
    """``resolve_card``: the card's opcode rows top to bottom, as played from ``slot`` (any reading other than
    the defaults: :func:`resolve_turn`)."""
    if general is not None:
        if t.rules_any:
            resolve_turn(t, st, seat, card, slot, False, general)
            return
    card_ops(t, st, seat, card, slot, False, general)


@jit
def resolve_turn(t, st, seat, card, slot, reveals, general):
    """``resolve_card``: the card's opcode rows top to bottom, as played from ``slot``; with ``reveals``,
    both majority cards' reveal actions first (``card`` may then be ``NO_CARD``). Reading ``step_order =
    helium_then_research``: the turn's CrypCoin, helium steps and research steps first, each summed."""
    grouped = t.rules[RULE_STEP_ORDER] == HELIUM_THEN_RESEARCH
    if grouped:
        coins, helium, research = 0, 0, 0
        if reveals:
            for side in range(N_SIDES):
                revealed = st.majority[seat, side]
                if revealed != NO_CARD:
                    if t.card_reveal[revealed, 0] == REVEAL_HELIUM:
                        helium += t.card_reveal[revealed, 1]
                    elif t.card_reveal[revealed, 0] == REVEAL_RESEARCH:
                        research += t.card_reveal[revealed, 1]
        if card != NO_CARD:
            for op in range(t.card_op_start[card], t.card_op_start[card + 1]):
                if t.ops[op, 0] == OP_GAIN_COIN:
                    coins += t.ops[op, 1]
                elif t.ops[op, 0] == OP_GAIN_HELIUM:
                    helium += t.ops[op, 1]
                elif t.ops[op, 0] == OP_ADVANCE_RESEARCH:
                    research += t.ops[op, 1]
        st.cash[seat] += coins
        move_marker(t, st, seat, TANK, helium)
        move_marker(t, st, seat, UPLOAD, research)
    elif reveals:
        for side in range(N_SIDES):
            if st.majority[seat, side] != NO_CARD:
                apply_reveal(t, st, seat, st.majority[seat, side])
    if card != NO_CARD:
        card_ops(t, st, seat, card, slot, grouped, general)


@jit
def card_ops(t, st, seat, card, slot, steps_done, general):
    """The card's opcode rows top to bottom, as played from ``slot``; with ``steps_done`` its CrypCoin, helium
    and research rows are skipped (``resolve_turn`` applied them already); ``general`` as in the module
    docstring."""
    card_ops_inline(t, st, seat, card, slot, steps_done, general)


@jit(inline="always")
def card_ops_inline(t, st, seat, card, slot, steps_done, general):
    """:func:`card_ops`, compiled into its caller (:func:`luna_plays_out`'s loop over her slots)."""
    st.n_chosen = 0
    mark_branch_history(card_mark(card, slot))  # the predictor learns the card's rows (sim/fast/branch_history.py)
    for op in range(t.card_op_start[card], t.card_op_start[card + 1]):
        code = t.ops[op, 0]
        count = t.ops[op, 1]
        if code == OP_GAIN_COIN:
            if not steps_done:
                st.cash[seat] += count
        elif code == OP_GAIN_HELIUM:
            if not steps_done:
                move_marker(t, st, seat, TANK, count)
        elif code == OP_ADVANCE_RESEARCH:
            if not steps_done:
                move_marker(t, st, seat, UPLOAD, count)
        elif code == OP_ADVANCE_COMPANY:
            select_companies(t, st, seat, t.ops[op, 2], t.ops[op, 3], t.ops[op, 4])
            for i in range(st.n_chosen):
                advance_track(t, st, seat, st.chosen[i], count)
        elif code == OP_EXPAND_COMPANY:
            if general is not None:
                expand_general(t, st, seat, count, t.ops[op, 2])
            else:
                expand_company(t, st, seat, count, t.ops[op, 2])
        elif code == OP_GAIN_CARD_MATCH:
            gain_cards(t, st, seat, t.ops[op, OP_SLOT_CELLS + slot])
        elif code == OP_GAIN_CARD_SHARE:
            gain_most_valuable_share(t, st, seat)
        elif code == OP_DISCARD_PLAN_MATCH:
            discard_plans(st, seat, t.ops[op, 2], t.ops[op, OP_SLOT_CELLS + slot])
        elif code == OP_DISCARD_SPECIAL:
            discard_latest_special(t, st, seat)
        elif code == OP_PLACE_BONUS_MARKER:
            place_bonus_markers(st, seat, t.ops[op, OP_SLOT_CELLS + slot])


@jit
def expand_general(t, st, seat, points, lowest):
    """``expand_chosen`` on either board side under any reading of ``multi_expand``."""
    if st.n_chosen > 1 and t.rules[RULE_MULTI_EXPAND] == MORE_VALUABLE_FIRST:
        expand_more_valuable_first(t, st, seat, points, lowest)
    elif t.board_belt:
        expand_company_belt(t, st, seat, points, lowest)
    else:
        expand_company(t, st, seat, points, lowest)


@jit
def expand_more_valuable_first(t, st, seat, points, lowest):
    """``expand_chosen`` with ``more_valuable_first``: the chosen companies one at a time, most valuable first
    by the values taken now; ``chosen`` is left as it was."""
    ensure_order(t, st)
    n = st.n_chosen
    saved = 0  # chosen[i] in 4 bits each: the kernels keep no spare array for it
    ordered = 0  # the chosen companies, most valuable first, likewise packed
    for i in range(n):
        saved |= st.chosen[i] << (4 * i)
    k = 0
    for position in range(N_COMPANIES):
        company = st.order[position]
        for i in range(n):
            if st.chosen[i] == company:
                ordered |= company << (4 * k)
                k += 1
    for i in range(n):
        st.n_chosen = 1
        st.chosen[0] = (ordered >> (4 * i)) & 15
        if t.board_belt:
            expand_company_belt(t, st, seat, points, lowest)
        else:
            expand_company(t, st, seat, points, lowest)
    st.n_chosen = n
    for i in range(n):
        st.chosen[i] = (saved >> (4 * i)) & 15


@jit
def apply_reveal(t, st, seat, card):
    """``apply_reveal``: a majority card's reveal moves her tank or upload marker."""
    kind = t.card_reveal[card, 0]
    if kind == REVEAL_HELIUM:
        move_marker(t, st, seat, TANK, t.card_reveal[card, 1])
    elif kind == REVEAL_RESEARCH:
        move_marker(t, st, seat, UPLOAD, t.card_reveal[card, 1])


@jit
def majority_value(t, st, seat, index):
    """``majority_values(...)[index]``: titanium, carbon (left card), energy, minerals (right card),
    scientists (both cards) that Luna seat ``seat`` shows this round; a missing card counts 0."""
    if index < 2 * N_SIDES:
        card = st.majority[seat, index // 2]
        return t.card_majority[card, index % 2] if card != NO_CARD else 0
    scientists = 0
    for side in range(N_SIDES):
        card = st.majority[seat, side]
        if card != NO_CARD:
            scientists += t.card_majority[card, 2]
    return scientists


# ---------------------------------------------------------------- her round

@jit
def _draw_into_slot(t, st, seat, slot):
    """Her deck's top card face down into ``slot``, noting the slot's first round in use."""
    card = draw_luna_card(t, st, seat)
    st.slots[seat, slot] = card
    if card != NO_CARD and st.slot_first_round[seat, slot] == 0:
        st.slot_first_round[seat, slot] = st.round


@jit
def plan_luna(t, st, seat, general):
    """``plan_luna``: a card face down in each ON slot, then the two majority cards and their reveals
    (``draw_order = majority_first``: :func:`plan_luna_majority_first`)."""
    if general is not None:
        if t.rules[RULE_DRAW_ORDER] == MAJORITY_FIRST:
            plan_luna_majority_first(t, st, seat)
            return
    for slot in range(N_SLOTS):
        st.slots[seat, slot] = NO_CARD
        if st.slot_on[seat, slot]:
            _draw_into_slot(t, st, seat, slot)
    plan_majority(t, st, seat)
    st.next_slot[seat] = 0
    st.passed[seat] = 0


@jit
def plan_luna_majority_first(t, st, seat):
    """``plan_luna`` with ``draw_order = majority_first``: the majority cards and their reveals first, then a
    card in each slot that was ON when planning started."""
    on = 0
    for slot in range(N_SLOTS):
        if st.slot_on[seat, slot]:
            on |= 1 << slot
    plan_majority(t, st, seat)
    for slot in range(N_SLOTS):
        st.slots[seat, slot] = NO_CARD
        if on >> slot & 1:
            _draw_into_slot(t, st, seat, slot)
    st.next_slot[seat] = 0
    st.passed[seat] = 0


@jit
def plan_majority(t, st, seat):
    """``plan_majority``: the two majority cards, and their reveals unless ``reveal_timing = first_turn``."""
    for side in range(N_SIDES):
        st.majority[seat, side] = draw_luna_card(t, st, seat)
    if t.rules[RULE_REVEAL_TIMING] != REVEAL_FIRST_TURN:
        for side in range(N_SIDES):
            if st.majority[seat, side] != NO_CARD:
                apply_reveal(t, st, seat, st.majority[seat, side])


@jit
def end_luna_actions(t, st, seat, general):
    """``end_luna_actions``: slot cards (A-E order, then shuffled) onto the discard pile; the new top card's
    larger majority value sends that side's majority card to the discard pile (any reading other than the
    defaults: :func:`end_luna_actions_readings`)."""
    if general is not None:
        if t.rules_any:
            end_luna_actions_readings(t, st, seat)
            return
    start, n = _slot_cards_to_discard(st, seat)
    _early_discard(t, st, seat, st.piles[seat, DISCARD, start + n - 1] if n > 0 else NO_CARD)
    st.passed[seat] = 1


@jit
def _slot_cards_to_discard(st, seat):
    """Her slot cards (A-E order, then shuffled) onto her discard pile; their first position and count there."""
    start = st.pile_len[seat, DISCARD]
    n = 0
    for slot in range(N_SLOTS):
        if st.slots[seat, slot] != NO_CARD:
            st.piles[seat, DISCARD, start + n] = st.slots[seat, slot]
            n += 1
        st.slots[seat, slot] = NO_CARD
    # shuffling the cards where they land on the pile draws exactly what shuffling them first would
    shuffle(st, seat_stream(seat), st.piles[seat, DISCARD, start:start + n])
    st.pile_len[seat, DISCARD] = start + n
    return start, n


@jit
def _early_discard(t, st, seat, decider):
    """The ``decider`` card's larger majority value sends that side's majority card to the discard pile."""
    if decider == NO_CARD:
        return
    left, right = t.card_majority[decider, 0], t.card_majority[decider, 1]
    side = 0 if left > right else 1 if right > left else -1
    if side >= 0 and st.majority[seat, side] != NO_CARD:
        discard(st, seat, st.majority[seat, side])
        st.majority[seat, side] = NO_CARD


@jit
def end_luna_actions_readings(t, st, seat):
    """``end_luna_actions`` under any readings: the deciding card is the new top card, or with
    ``early_discard_card = discard_pile`` a uniformly random card of the whole pile."""
    start, n = _slot_cards_to_discard(st, seat)
    decider = NO_CARD
    if t.rules[RULE_EARLY_DISCARD] == DECIDES_DISCARD_PILE:
        if start + n > 0:
            decider = st.piles[seat, DISCARD, below(st, seat_stream(seat), start + n)]
    elif n > 0:
        decider = st.piles[seat, DISCARD, start + n - 1]
    _early_discard(t, st, seat, decider)
    st.passed[seat] = 1


@jit
def luna_turn(t, st, seat, general):
    """``luna_turn``: flip the leftmost face-down slot card and resolve it; after the rightmost, clean up (any
    reading other than the defaults: :func:`luna_turn_readings`)."""
    if general is not None:
        if t.rules_any:
            luna_turn_readings(t, st, seat, general)
            return
    slot = st.next_slot[seat]
    while slot < N_SLOTS and st.slots[seat, slot] == NO_CARD:
        slot += 1
    if slot < N_SLOTS:
        resolve_card(t, st, seat, st.slots[seat, slot], slot, general)
        slot += 1
        while slot < N_SLOTS and st.slots[seat, slot] == NO_CARD:
            slot += 1
    st.next_slot[seat] = slot
    if slot >= N_SLOTS:
        end_luna_actions(t, st, seat, general)


@jit
def luna_plays_out(t, st, seat, general):
    """Her turns until she passes, when no other seat has a turn left between them (the shipped readings only:
    ``action_phase`` asks :func:`plays_out`): each slot card left, in slot order, then her end of actions.

    The same as :func:`luna_turn` called until she passes (nothing she resolves changes her slots), in one
    call: LLVM works out the addresses her cards' opcodes need once for the round rather than once a card
    (``sim/fast/kernel.py``, "Instructions")."""
    for slot in range(st.next_slot[seat], N_SLOTS):
        card = st.slots[seat, slot]
        if card != NO_CARD:
            card_ops_inline(t, st, seat, card, slot, False, general)
    st.next_slot[seat] = N_SLOTS
    end_luna_actions(t, st, seat, general)


@jit(inline="always")
def plays_out(t, st, seat, general):
    """Whether :func:`luna_plays_out` may play Luna seat ``seat``'s turns: every other seat has passed, and the
    readings are the shipped ones (the others' turns go through :func:`luna_turn_readings`)."""
    if general is not None:
        if t.rules_any:
            return False
    for other in range(t.n_seats):
        if other != seat and not st.passed[other]:
            return False
    return True


@jit
def luna_turn_readings(t, st, seat, general):
    """``luna_turn`` under any readings: the first turn of the round also carries the reveals with
    ``reveal_timing = first_turn``; ``step_order`` applies."""
    slot = st.next_slot[seat]
    reveals = slot == 0 and t.rules[RULE_REVEAL_TIMING] == REVEAL_FIRST_TURN
    while slot < N_SLOTS and st.slots[seat, slot] == NO_CARD:
        slot += 1
    if slot < N_SLOTS:
        resolve_turn(t, st, seat, st.slots[seat, slot], slot, reveals, general)
        slot += 1
        while slot < N_SLOTS and st.slots[seat, slot] == NO_CARD:
            slot += 1
    elif reveals:
        resolve_turn(t, st, seat, NO_CARD, N_SLOTS, reveals, general)
    st.next_slot[seat] = slot
    if slot >= N_SLOTS:
        end_luna_actions_readings(t, st, seat)
