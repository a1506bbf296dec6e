"""Scripted players (SPEC section 5, modelled): planning, aims, and their six action kinds.

The model is summarised in the package docstring (``sim/reference/__init__.py``); its numbers are
in ``sim/data/players``.
"""

from __future__ import annotations

import math

from sim.constants import ACTION_KINDS, BONUS_COLUMNS, DISPLAY_SPACES, MAJORITY_TYPES, N_COMPANIES, N_RESOURCE_TYPES
from sim.reference.belt import player_belt_piece
from sim.reference.board import (
    advance_track,
    companies_by_value,
    reachable_sectors,
    refill_plan_row,
    seat_shares,
    take_column,
    take_display_card,
)
from sim.reference.luna import SCIENTISTS, luna_majority_values, move_marker
from sim.reference.state import NO_CARD, NO_COMPANY, NOBODY, GameState, PlayerState, Rules
from sim.rng import Stream

# ---------------------------------------------------------------- planning


def ranked_display_spaces(rules: Rules, state: GameState) -> list[int]:
    """Display spaces holding a card, best first for a buyer (see the package docstring)."""
    by_value = companies_by_value(rules, state)

    def key(space: int) -> tuple[int, int, int, int]:
        card = state.display[space]
        share = rules.card_share[card]
        return (share == NO_COMPANY, by_value.index(share) if share != NO_COMPANY else 0,
                -sum(rules.card_resources[card]), space)
    return sorted((space for space in range(DISPLAY_SPACES) if state.display[space] != NO_CARD), key=key)


def plan_player(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Its totals for the round, then one action kind per ON slot drawn from its weights, and its aims."""
    player = state.seats[seat].player
    profile = player.profile
    for index, name in enumerate(MAJORITY_TYPES):
        player.card_resources[index] += player.pending_resources[index]
        player.pending_resources[index] = 0
        base = getattr(profile.resources_by_round, name)[state.round - 1]
        player.totals[index] = math.floor(base * player.strength) + player.card_resources[index]
    player.plan, player.aims, player.next_action = [], [], 0
    if not profile.passive:
        weights = [getattr(profile.weights, kind) for kind in ACTION_KINDS]
        for slot_on in player.slot_on:
            if not slot_on:
                continue
            pick = rng.below(sum(weights))
            kind = 0
            while pick >= weights[kind]:
                pick -= weights[kind]
                kind += 1
            player.plan.append(kind)
            player.aims.append(choose_aim(rules, state, player, ACTION_KINDS[kind]))
    player.passed = not player.plan


def choose_aim(rules: Rules, state: GameState, player: PlayerState, kind: str) -> tuple[int, int, int]:
    """What a planned action aims at: (card, -1, 0) for buy_card, (row, space, generation) for research."""
    if kind == "buy_card":
        aimed = {aim[0] for planned, aim in zip(player.plan, player.aims, strict=False)
                 if ACTION_KINDS[planned] == "buy_card"}
        for space in ranked_display_spaces(rules, state):
            if state.display[space] not in aimed:
                return (state.display[space], -1, 0)
    elif kind == "research":
        aimed = {(aim[0], aim[1]) for planned, aim in zip(player.plan, player.aims, strict=False)
                 if ACTION_KINDS[planned] == "research"}
        for row in range(len(state.plan_rows)):
            for space in range(len(state.plan_rows[row])):
                if state.plan_rows[row][space] and (row, space) not in aimed:
                    return (row, space, state.plan_generation[row][space])
    return (NO_CARD, -1, 0)


def count_blocked_majorities(rules: Rules, state: GameState) -> None:
    """After Luna's majority cards are revealed: each type a scripted seat's total is lower than hers."""
    if not rules.config.luna_seats:
        return
    values = luna_majority_values(rules, state)
    for holder in state.seats:
        if holder.player is not None:
            for index in range(N_RESOURCE_TYPES):
                if holder.player.totals[index] < values[index]:
                    holder.player.blocked[index] += 1


# ---------------------------------------------------------------- its turn


def action_strength(player: PlayerState, round_number: int) -> int:
    """``floor(steps_by_round[round] * strength + carry)``; the fraction is carried to its next action."""
    raw = player.profile.steps_by_round[round_number - 1] * player.strength + player.carry
    steps = math.floor(raw)
    player.carry = raw - steps
    return steps


def player_turn(rules: Rules, state: GameState, seat: int) -> None:
    """Its next planned action."""
    player = state.seats[seat].player
    kind = ACTION_KINDS[player.plan[player.next_action]]
    aim = player.aims[player.next_action]
    player.next_action += 1
    player.passed = player.next_action >= len(player.plan)
    steps = action_strength(player, state.round)
    if kind == "invest":
        player_invest(rules, state, seat, steps)
    elif kind == "expand":
        player_expand(rules, state, seat, steps)
    elif kind == "helium":
        player_helium(rules, state, seat, steps)
    elif kind == "research":
        player_research_action(rules, state, seat, steps, aim)
    elif kind == "buy_card":
        player_buy(rules, state, seat, aim[0])
    else:
        player_bonus(rules, state, seat)


# ---------------------------------------------------------------- the six action kinds


def player_invest(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    """``steps`` on the most valuable company's track."""
    advance_track(rules, state, seat, companies_by_value(rules, state)[0], steps)


def player_expand(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    """Outposts of the company it holds most shares of, each in the lowest reachable vacant sector."""
    if steps <= 0:
        return
    shares = seat_shares(rules, state, seat)
    by_value = companies_by_value(rules, state)
    company = min(range(N_COMPANIES), key=lambda c: (-shares[c], by_value.index(c)))
    player = state.seats[seat].player
    for _ in range(max(1, math.floor(steps * rules.player_model.expand_outposts_per_step))):
        if rules.belt is not None:  # the Belt side (sim/reference/belt.py)
            if not player_belt_piece(rules, state, seat, company):
                return
            player.outposts_placed += 1
            continue
        column = take_column(rules, state, company)
        vacant = [s for s in reachable_sectors(rules, state, company) if state.sector_owner[s] == NO_COMPANY]
        if column < 0 or not vacant:
            return
        target = min(vacant)
        state.station_vacant[company][column] += 1
        state.sector_owner[target] = company
        state.sector_placer[target] = seat
        state.seats[seat].cash += rules.player_model.sector_reward
        player.outposts_placed += 1


def player_helium(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    """Its tank marker forward (slot A switch, CrypCoin a step past the end: :func:`move_marker`)."""
    move_marker(rules, state, seat, "helium", steps)


def player_research(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    """Its upload marker forward (slot E switch, CrypCoin a step past the end: :func:`move_marker`)."""
    move_marker(rules, state, seat, "research", steps)


def player_research_action(rules: Rules, state: GameState, seat: int, steps: int,
                           aim: tuple[int, int, int]) -> None:
    """Take the plan it aimed at (a lost plan and a penalty if Luna discarded it), then upload forward."""
    player = state.seats[seat].player
    row, space, generation = aim
    if row >= 0:
        if generation in state.luna_discarded[row][space]:  # Luna discarded the very plan it aimed at
            player.plans_lost += 1
            steps = max(0, steps - rules.player_model.plan_lost_research_penalty)
        if state.plan_rows[row][space]:
            state.plan_rows[row][space] = False
            player.plans_taken += 1
            refill_plan_row(state, row)
    player_research(rules, state, seat, steps)


def player_buy(rules: Rules, state: GameState, seat: int, aimed: int) -> None:
    """The card it aimed at if still there and affordable (a lost card if Luna took it), else the best
    affordable one."""
    holder = state.seats[seat]
    if aimed != NO_CARD and aimed not in state.display:
        if any(aimed in state.seats[luna].cards for luna in rules.config.luna_seats):
            holder.player.cards_lost += 1
    # (no aim is NO_CARD, which an empty display space also holds: it is no card to try)
    shown = aimed != NO_CARD and aimed in state.display
    choices = ([state.display.index(aimed)] if shown else []) + ranked_display_spaces(rules, state)
    for space in choices:
        card = state.display[space]
        if rules.action_cards[card].price <= holder.cash:
            holder.cash -= rules.action_cards[card].price
            take_display_card(state, seat, space)
            for index in range(N_RESOURCE_TYPES):
                holder.player.pending_resources[index] += rules.card_resources[card][index]
            return


def player_bonus(rules: Rules, state: GameState, seat: int) -> None:
    """A marker on the first free majority space its totals allow, else the scientist space, else the
    first free standard space in its preference order."""
    holder = state.seats[seat]
    player = holder.player
    if player.markers_in_reserve == 0:
        return
    values = luna_majority_values(rules, state)
    model = rules.player_model
    # The majority row's spaces are titanium, carbon, energy, minerals: space index = majority type index.
    for index in range(BONUS_COLUMNS):
        if state.bonus_space_owner[0][index] == NOBODY and player.totals[index] >= values[index]:
            state.bonus_space_owner[0][index] = seat
            holder.cash += model.majority_bonus_reward
            break
    else:
        if state.scientist_space_owner == NOBODY and player.totals[SCIENTISTS] >= values[SCIENTISTS]:
            state.scientist_space_owner = seat
            holder.cash += model.scientist_bonus_reward
        else:
            open_to_it = [(row, column) for row, column in model.standard_bonus_preference
                          if state.bonus_space_owner[row][column] == NOBODY
                          or state.seats[state.bonus_space_owner[row][column]].luna is not None]
            if open_to_it and state.bonus_space_owner[open_to_it[0][0]][open_to_it[0][1]] != NOBODY:
                player.bonus_spaces_lost += 1
            free = [(row, column) for row, column in open_to_it if state.bonus_space_owner[row][column] == NOBODY]
            if not free:
                return
            row, column = free[0]
            state.bonus_space_owner[row][column] = seat
            holder.cash += model.standard_bonus_rewards[row - 1][column]
    player.markers_in_reserve -= 1
    player.bonus_markers_placed += 1
