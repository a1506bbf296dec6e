"""Luna: her deck, her tank and upload markers, a card's actions, her majority values, her turns.

A round for one Luna: ``plan_luna`` (a card face down in each ON slot, two majority cards, their
reveals), then one ``luna_turn`` per action-phase turn (flip and resolve the leftmost face-down card),
and ``end_luna_actions`` after her rightmost card.
"""

from __future__ import annotations

from sim.constants import (
    DISPLAY_COLUMNS,
    DISPLAY_SPACES,
    MAJORITY_TYPES,
    N_RESOURCE_TYPES,
    N_SLOTS,
    RESEARCH_ROWS,
    SLOT_LETTERS,
    SPECIAL_FACE_UP,
    SPECIAL_REMOVED,
)
from sim.gamedata import (
    AdvanceCompany,
    AdvanceResearch,
    DiscardResearchPlan,
    ExpandCompany,
    GainCard,
    GainCoin,
    GainHelium,
    PlaceBonusMarker,
)
from sim.reference.belt import expand_company_belt
from sim.reference.board import (
    advance_track,
    companies_by_value,
    expand_company,
    refill_plan_row,
    select_companies,
    take_display_card,
)
from sim.reference.state import NO_CARD, NO_COMPANY, NOBODY, GameState, LunaState, Rules
from sim.rng import Stream

SCIENTISTS = MAJORITY_TYPES.index("scientists")  # the type both majority cards add up

# ---------------------------------------------------------------- Luna's deck


def rebuild_deck(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Her empty deck becomes the discard pile plus one grade-2 card (levels >= 2, if any left), shuffled.

    Rebuild order: the discard pile from bottom to top, then the grade-2 card on the end, then one
    Fisher-Yates shuffle of that list. Nothing happens (and nothing is counted) when the discard pile
    and the grade-2 stack are both empty.
    """
    luna = state.seats[seat].luna
    if not luna.discard and not luna.grade2_stack:
        return
    luna.deck = luna.discard
    luna.discard = []
    if rules.levels[luna.level].grade2 and luna.grade2_stack:
        luna.deck.append(luna.grade2_stack.pop())
        luna.grade2_by_reshuffle += 1
    rng.shuffle(luna.deck)
    luna.reshuffles += 1


def draw_luna_card(rules: Rules, state: GameState, seat: int, rng: Stream) -> int:
    """Top card of her deck; an empty deck is first rebuilt (``rebuild_deck``).

    Reading ``rebuild``: ``lazy`` rebuilds when a card must be drawn from the empty deck; ``immediate``
    also rebuilds as soon as a draw takes the last card.
    """
    luna = state.seats[seat].luna
    if not luna.deck:
        rebuild_deck(rules, state, seat, rng)
        if not luna.deck:
            return NO_CARD
    card = luna.deck.pop()
    if not luna.deck and rules.readings["rebuild"] == "immediate":
        rebuild_deck(rules, state, seat, rng)
    return card


def fire_token(state: GameState, seat: int) -> None:
    """A marker reached or passed a Luna token: one grade-2 card face down on top of her deck."""
    luna = state.seats[seat].luna
    if luna.grade2_stack:
        luna.deck.append(luna.grade2_stack.pop())
        luna.grade2_by_token += 1


# ---------------------------------------------------------------- tank and upload markers


def move_marker(rules: Rules, state: GameState, seat: int, track: str, steps: int) -> None:
    """Move a seat's tank (``track="helium"``) or upload (``"research"``) marker forward step by step.

    Reaching the switch space turns slot A (tank) or E (upload) ON, except at a Luna level without
    switches; reaching or passing a Luna token fires it; each step past the end pays
    ``past_end_crypcoin_per_step`` CrypCoin (luna.toml).
    Scripted seats move theirs with this same rule (they have no tokens).
    """
    holder = state.seats[seat]
    marker = holder.luna if holder.luna is not None else holder.player
    if track == "helium":
        end, switch_at, slot = rules.board.tank_max, rules.board.tank_switch_at, 0
    else:
        end, switch_at, slot = rules.board.research_max, rules.board.research_switch_at, N_SLOTS - 1
    luna = holder.luna
    switches = rules.levels[luna.level].slot_switches if luna is not None else True
    tokens = (luna.helium_tokens if track == "helium" else luna.research_tokens) if luna is not None else []
    for _ in range(steps):
        position = getattr(marker, track)
        if position >= end:
            holder.cash += rules.board.past_end_crypcoin_per_step
            continue
        position += 1
        setattr(marker, track, position)
        if switches and position == switch_at:
            marker.slot_on[slot] = True
        if position in tokens:
            tokens.remove(position)
            fire_token(state, seat)


def gain_helium(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    """Luna's tank marker forward (slot A switch, tokens, overflow)."""
    move_marker(rules, state, seat, "helium", steps)


def advance_research(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    """Luna's upload marker forward (slot E switch, tokens, overflow)."""
    move_marker(rules, state, seat, "research", steps)


# ---------------------------------------------------------------- a card's actions


def gain_card(rules: Rules, state: GameState, seat: int, action: GainCard, slot: int) -> None:
    """``match_slot``: every display card whose space shows the slot's letter. Otherwise one card with a
    share of the most valuable company shown (the lowest such space)."""
    if action.select == "match_slot":
        for space in range(DISPLAY_SPACES):
            row, column = divmod(space, DISPLAY_COLUMNS)
            if SLOT_LETTERS[slot] in action.display[row][column]:
                take_display_card(state, seat, space)
        return
    shown = {rules.card_share[card] for card in state.display if card != NO_CARD} - {NO_COMPANY}
    if not shown:
        return
    best = next(company for company in companies_by_value(rules, state) if company in shown)
    space = next(s for s in range(DISPLAY_SPACES)
                 if state.display[s] != NO_CARD and rules.card_share[state.display[s]] == best)
    take_display_card(state, seat, space)


def discard_research_plan(state: GameState, seat: int, action: DiscardResearchPlan, slot: int) -> None:
    """The latest face-up special plan, or the plans on the row's spaces showing the slot's letter (the
    row is refilled at once)."""
    luna = state.seats[seat].luna
    if action.select == "latest_special":
        face_up = [i for i, status in enumerate(state.special_plans) if status == SPECIAL_FACE_UP]
        if face_up:
            state.special_plans[face_up[-1]] = SPECIAL_REMOVED
            luna.plans_discarded += 1
        return
    row = RESEARCH_ROWS.index(action.row)
    for space, cell in enumerate(action.spaces):
        if SLOT_LETTERS[slot] in cell and state.plan_rows[row][space]:
            state.plan_rows[row][space] = False
            state.luna_discarded[row][space].add(state.plan_generation[row][space])
            luna.plans_discarded += 1
    refill_plan_row(state, row)


def place_bonus_marker(state: GameState, seat: int, action: PlaceBonusMarker, slot: int) -> None:
    """A marker from her reserve on every free bonus space showing the slot's letter, row by row."""
    luna = state.seats[seat].luna
    for row, letters in enumerate(action.spaces):
        for column, cell in enumerate(letters):
            if (SLOT_LETTERS[slot] in cell and state.bonus_space_owner[row][column] == NOBODY
                    and luna.markers_in_reserve > 0):
                state.bonus_space_owner[row][column] = seat
                luna.markers_in_reserve -= 1
                luna.bonus_markers_placed += 1


def resolve_card(rules: Rules, state: GameState, seat: int, card: int, slot: int,
                 reveals: tuple[int, ...] = ()) -> None:
    """Carry out a Luna card's action section top to bottom, as played from ``slot``.

    ``reveals``: majority cards whose reveal actions this turn carries (reading ``reveal_timing =
    first_turn``), before the card's actions; ``card`` may then be ``NO_CARD`` (no slot card to flip).
    Reading ``step_order = helium_then_research``: the turn's CrypCoin first, then its helium steps
    summed, then its research steps summed, then the other actions top to bottom.
    """
    actions = [rules.cards[c].reveal for c in reveals if rules.cards[c].reveal is not None]
    if card != NO_CARD:
        actions += rules.cards[card].actions
    if rules.readings["step_order"] == "helium_then_research":
        state.seats[seat].cash += sum(action.count for action in actions if isinstance(action, GainCoin))
        gain_helium(rules, state, seat, sum(action.count for action in actions if isinstance(action, GainHelium)))
        advance_research(rules, state, seat,
                         sum(action.count for action in actions if isinstance(action, AdvanceResearch)))
        actions = [action for action in actions if not isinstance(action, GainCoin | GainHelium | AdvanceResearch)]
    chosen: list[int] = []  # the companies of the last advance_company, which an expand_company reuses
    for action in actions:
        if isinstance(action, GainCoin):
            state.seats[seat].cash += action.count
        elif isinstance(action, GainHelium):
            gain_helium(rules, state, seat, action.count)
        elif isinstance(action, AdvanceResearch):
            advance_research(rules, state, seat, action.count)
        elif isinstance(action, AdvanceCompany):
            chosen = select_companies(rules, state, seat, action.company)
            for company in chosen:
                advance_track(rules, state, seat, company, action.count)
        elif isinstance(action, ExpandCompany):
            expand_chosen(rules, state, seat, chosen, action)
        elif isinstance(action, GainCard):
            gain_card(rules, state, seat, action, slot)
        elif isinstance(action, DiscardResearchPlan):
            discard_research_plan(state, seat, action, slot)
        elif isinstance(action, PlaceBonusMarker):
            place_bonus_marker(state, seat, action, slot)


def expand_chosen(rules: Rules, state: GameState, seat: int, chosen: list[int], action: ExpandCompany) -> None:
    """``expand_company`` on the chosen companies, in the order of reading ``multi_expand_order``.

    ``more_valuable_first`` expands them one at a time, most valuable first by the values taken now.
    """
    lowest = action.sector == "min"
    expand = expand_company if rules.belt is None else expand_company_belt
    if rules.readings["multi_expand_order"] == "more_valuable_first" and len(chosen) > 1:
        by_value = companies_by_value(rules, state)
        for company in sorted(chosen, key=by_value.index):
            expand(rules, state, seat, [company], action.count, lowest=lowest)
    else:
        expand(rules, state, seat, chosen, action.count, lowest=lowest)


def apply_reveal(rules: Rules, state: GameState, seat: int, card: int) -> None:
    """A majority card's reveal bonus (tank or upload marker), applied when it is drawn."""
    reveal = rules.cards[card].reveal
    if isinstance(reveal, GainHelium):
        gain_helium(rules, state, seat, reveal.count)
    elif isinstance(reveal, AdvanceResearch):
        advance_research(rules, state, seat, reveal.count)


# ---------------------------------------------------------------- majority values


def majority_values(rules: Rules, *lunas: LunaState) -> list[int]:
    """Per majority type, the highest value the given Lunas show this round (0 when none shows one).

    One Luna shows titanium and carbon on her left majority card, energy and minerals on her right one,
    and scientists as the sum of both cards.
    """
    values = [0] * N_RESOURCE_TYPES
    for luna in lunas:
        scientists = 0
        for side, card in enumerate(luna.majority):
            if card != NO_CARD:
                majority = rules.cards[card].majority
                values[2 * side] = max(values[2 * side], majority.left)
                values[2 * side + 1] = max(values[2 * side + 1], majority.right)
                scientists += majority.scientists
        values[SCIENTISTS] = max(values[SCIENTISTS], scientists)
    return values


def luna_majority_values(rules: Rules, state: GameState) -> list[int]:
    """Per majority type, the highest value any Luna at the table shows right now (0 without a Luna)."""
    return majority_values(rules, *(state.seats[seat].luna for seat in rules.config.luna_seats))


# ---------------------------------------------------------------- her round


def plan_luna(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Planning a (a card face down in each ON slot, left to right) and b (majority cards, reveals).

    Reading ``draw_order = majority_first``: b before a. The slots ON when planning starts get a card:
    one a reveal switches ON waits for the next round, as in the rulebook's order.
    """
    luna = state.seats[seat].luna
    slot_on = list(luna.slot_on)
    majority_first = rules.readings["draw_order"] == "majority_first"
    if majority_first:
        plan_majority(rules, state, seat, rng)
    for slot in range(N_SLOTS):
        luna.slots[slot] = NO_CARD
        if slot_on[slot]:
            luna.slots[slot] = draw_luna_card(rules, state, seat, rng)
            if luna.slots[slot] != NO_CARD and luna.slot_first_round[slot] == 0:
                luna.slot_first_round[slot] = state.round
    if not majority_first:
        plan_majority(rules, state, seat, rng)
    luna.next_turn_slot = 0
    luna.passed = False


def plan_majority(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Planning b: the two majority cards, and their reveals now unless ``reveal_timing = first_turn``."""
    luna = state.seats[seat].luna
    for side in range(len(luna.majority)):
        luna.majority[side] = draw_luna_card(rules, state, seat, rng)
    if rules.readings["reveal_timing"] == "planning":
        for card in luna.majority:
            if card != NO_CARD:
                apply_reveal(rules, state, seat, card)


def luna_turn(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Flip her leftmost face-down slot card and resolve it; after the rightmost, clean up and pass.

    With ``reveal_timing = first_turn`` her first turn of the round also carries both majority cards'
    reveal actions (``resolve_card``), even without a slot card to flip.
    """
    luna = state.seats[seat].luna
    reveals: tuple[int, ...] = ()
    if luna.next_turn_slot == 0 and rules.readings["reveal_timing"] == "first_turn":
        reveals = tuple(card for card in luna.majority if card != NO_CARD)
    while luna.next_turn_slot < N_SLOTS and luna.slots[luna.next_turn_slot] == NO_CARD:
        luna.next_turn_slot += 1
    if luna.next_turn_slot < N_SLOTS:
        slot = luna.next_turn_slot
        resolve_card(rules, state, seat, luna.slots[slot], slot, reveals)
        luna.cards_played[slot] += 1
        luna.next_turn_slot += 1
        while luna.next_turn_slot < N_SLOTS and luna.slots[luna.next_turn_slot] == NO_CARD:
            luna.next_turn_slot += 1
    elif reveals:
        resolve_card(rules, state, seat, NO_CARD, N_SLOTS, reveals)
    if luna.next_turn_slot >= N_SLOTS:
        end_luna_actions(rules, state, seat, rng)


def end_luna_actions(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Shuffle her slot cards (slot order A-E, then Fisher-Yates) onto the discard pile face up; the
    deciding card's larger majority value sends that side's majority card to the discard pile now.

    The deciding card: the new top card (reading ``early_discard_card = slot_cards``), or a uniformly
    random card of the whole discard pile (``discard_pile``: one ``below(pile size)`` after the shuffle).
    """
    luna = state.seats[seat].luna
    played = [card for card in luna.slots if card != NO_CARD]
    luna.slots = [NO_CARD] * N_SLOTS
    rng.shuffle(played)
    luna.discard.extend(played)
    decider = NO_CARD
    if rules.readings["early_discard_card"] == "discard_pile":
        if luna.discard:
            decider = luna.discard[rng.below(len(luna.discard))]
    elif played:
        decider = luna.discard[-1]
    if decider != NO_CARD:
        top = rules.cards[decider].majority
        side = 0 if top.left > top.right else 1 if top.right > top.left else -1
        if side >= 0 and luna.majority[side] != NO_CARD:
            luna.discard.append(luna.majority[side])
            luna.majority[side] = NO_CARD
    luna.passed = True
