"""A whole game: setup, the round (planning, action phase, preparation), final scoring, the per-seat row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim.columns import BLOCKED_COLUMNS, COMPANY_SCORE_COLUMNS, SEAT_NUMERIC, SHARES_COLUMNS, VALUE_COLUMNS
from sim.constants import (
    BONUS_COLUMNS,
    BONUS_ROWS,
    DISPLAY_SPACES,
    N_COMPANIES,
    N_SLOTS,
    RESEARCH_ROWS,
    SLOT_LETTERS,
    SPECIAL_FACE_DOWN,
    TRACK_TILE_SIDES,
)
from sim.moondata import StartingToken
from sim.reference.belt import setup_belt
from sim.reference.board import (
    advance_track,
    company_value,
    flip_special_plan,
    markers_home,
    refill_display,
    refill_plan_row,
    seat_shares,
    take_column,
)
from sim.reference.luna import luna_turn, majority_values, move_marker, plan_luna
from sim.reference.players import count_blocked_majorities, plan_player, player_turn
from sim.reference.state import (
    NO_CARD,
    NO_COMPANY,
    NOBODY,
    GameState,
    LunaState,
    PlayerState,
    RoundRecord,
    Rules,
    SeatState,
)
from sim.rng import BOARD_STREAM, Stream, seat_stream

# ---------------------------------------------------------------- setup


def setup_game(rules: Rules, seed: int, game: int) -> tuple[GameState, list[Stream]]:
    """Lay out the board and every seat. Random draws, in this order:

    board stream: shuffle the track letters (A-E, sorted) and give the first four to the companies
    in order; then one ``below(TRACK_TILE_SIDES)`` per company for its side (0 = side 1); shuffle the action-card
    deck (data order); then, with ``start_bonus = random``, one ``below(len(pool))`` per seat in
    seat order, taking a starting token from the pool (swap-remove). Seat stream of each Luna
    seat: shuffle her grade-1 cards (data order), then her grade-2 cards at levels 2-8.
    """
    config = rules.config
    board_rng = Stream(seed, game, BOARD_STREAM)
    seat_rngs = [Stream(seed, game, seat_stream(seat)) for seat in range(len(config.seats))]

    letters = list(rules.track_letters)
    board_rng.shuffle(letters)
    track_side = []
    for company in range(N_COMPANIES):
        side = board_rng.below(TRACK_TILE_SIDES)
        track_side.append(rules.side_index[f"{letters[company]}{side + 1}"])

    action_deck = list(range(len(rules.action_cards)))
    board_rng.shuffle(action_deck)

    state = GameState(
        track_side=track_side,
        track_position=[[0] * N_COMPANIES for _ in config.seats],
        sector_owner=[NO_COMPANY] * (rules.sector_count + 1),
        sector_placer=[NOBODY] * (rules.sector_count + 1),
        station_vacant=[[0] * rules.columns for _ in range(N_COMPANIES)],
        action_deck=action_deck,
        display=[NO_CARD] * DISPLAY_SPACES,
        plan_rows=[[False] * rules.research.row_spaces for _ in RESEARCH_ROWS],
        plan_decks=[rules.research.row_deck] * len(RESEARCH_ROWS),
        special_plans=[SPECIAL_FACE_DOWN] * rules.research.special_plans,
        specials_flipped=0,
        bonus_space_owner=[[NOBODY] * BONUS_COLUMNS for _ in range(BONUS_ROWS)],
        seats=[],
    )
    refill_display(state)
    for row in range(len(state.plan_rows)):
        refill_plan_row(state, row)
    for _ in range(min(rules.research.special_face_up_at_start, len(state.special_plans))):
        flip_special_plan(state)
    if rules.belt is not None:
        setup_belt(rules, state)
    else:
        for company in range(N_COMPANIES):
            for sector in rules.station_touches[company][: rules.setup_outposts]:
                column = take_column(rules, state, company)
                state.station_vacant[company][column] += 1
                state.sector_owner[sector] = company

    for seat_index, seat in enumerate(config.seats):
        if seat.kind == "luna":
            state.seats.append(SeatState(cash=rules.board.start_crypcoin,
                                         luna=setup_luna(rules, seat.level, seat_rngs[seat_index])))
        else:
            profile = rules.profiles[seat_index]
            cash = rules.player_model.start_cash if profile.start_cash is None else profile.start_cash
            slot_on = [letter in rules.board.initial_slots for letter in SLOT_LETTERS]
            state.seats.append(SeatState(cash=cash, player=PlayerState(
                profile=profile, strength=seat.strength, markers_in_reserve=rules.player_markers, slot_on=slot_on)))

    if config.start_bonus == "random":
        if rules.token_shortfall:  # the pool would run dry: one line, not an IndexError
            raise ValueError(rules.token_shortfall)
        pool = list(range(len(rules.tokens)))
        for seat_index in range(len(config.seats)):
            pick = board_rng.below(len(pool))
            token = rules.tokens[pool[pick]]
            pool[pick] = pool[-1]
            pool.pop()
            holder = state.seats[seat_index]
            if holder.luna is not None or not holder.player.profile.passive:
                apply_starting_token(rules, state, seat_index, token)
    for holder in state.seats:
        if holder.luna is not None:
            place_luna_tokens(rules, holder.luna)
    return state, seat_rngs


def setup_luna(rules: Rules, level: int, rng: Stream) -> LunaState:
    """Luna's deck, stack, slots and markers for a level; her Luna tokens come last (``place_luna_tokens``).

    A slot whose switch space the start position reaches or passes is ON from the start: the switch is
    printed on the board, and the ON/OFF marker shows whether her marker has reached it (a starting
    bonus that moves her marker onto it switches it by ``move_marker``'s own rule, so both agree).
    """
    spec = rules.levels[level]
    deck = list(rules.grade1)
    rng.shuffle(deck)
    stack = list(rules.grade2) if spec.grade2 else []
    rng.shuffle(stack)
    slot_on = [letter in rules.board.initial_slots for letter in SLOT_LETTERS]
    luna = LunaState(
        level=level, deck=deck, grade2_stack=stack, discard=[], slots=[NO_CARD] * N_SLOTS, slot_on=slot_on,
        majority=[NO_CARD, NO_CARD], helium_tokens=[], research_tokens=[],
        markers_in_reserve=rules.board.bonus_markers, helium=spec.start_helium, research=spec.start_research,
    )
    if spec.slot_switches:
        luna.slot_on[0] = luna.slot_on[0] or luna.helium >= rules.board.tank_switch_at
        luna.slot_on[-1] = luna.slot_on[-1] or luna.research >= rules.board.research_switch_at
    return luna


def place_luna_tokens(rules: Rules, luna: LunaState) -> None:
    """The level's Luna tokens, placed after the starting bonus moved her markers (EN 35, then 56-62).

    So the bonus fires none of them. A token on or below where her marker stands is never reached or
    passed later (markers only move forward), so it is left off: the lists hold the tokens that can fire.
    """
    spec = rules.levels[luna.level]
    luna.helium_tokens = [position for position in spec.helium_tokens if position > luna.helium]
    luna.research_tokens = [position for position in spec.research_tokens if position > luna.research]


def apply_starting_token(rules: Rules, state: GameState, seat: int, token: StartingToken) -> None:
    """A starting research token's bonus (tank marker or company track), moved by the usual rules.

    Reading ``start_position = place``: at a Luna level with start positions (levels 6-8) the level's
    placement overrides the token's helium steps, so they are not applied.
    """
    if token.helium is not None:
        luna = state.seats[seat].luna
        if luna is not None and rules.readings["start_position"] == "place" and places_markers(rules, luna.level):
            return
        move_marker(rules, state, seat, "helium", token.helium)
    else:
        advance_track(rules, state, seat, rules.companies.index(token.company), token.steps)


def places_markers(rules: Rules, level: int) -> bool:
    """Whether the level places her tank and upload markers at setup (a white number: levels 6-8)."""
    spec = rules.levels[level]
    return spec.start_helium > 0 or spec.start_research > 0


# ---------------------------------------------------------------- the round


def action_phase(rules: Rules, state: GameState, rngs: list[Stream]) -> None:
    """Turns go round the table in seat order (Luna last), one action a turn, until everyone has passed."""
    while True:
        acted = False
        for seat, holder in enumerate(state.seats):
            if holder.luna is not None and not holder.luna.passed:
                luna_turn(rules, state, seat, rngs[seat])
                acted = True
            elif holder.player is not None and not holder.player.passed:
                player_turn(rules, state, seat)
                acted = True
        if not acted:
            return


def preparation(rules: Rules, state: GameState) -> None:
    """Bonus markers home, majority cards to the discard pile, display refilled, next special plan."""
    for seat, holder in enumerate(state.seats):
        markers_home(state, seat)
        luna = holder.luna
        if luna is None:
            continue
        for side in range(len(luna.majority)):
            if luna.majority[side] != NO_CARD:
                luna.discard.append(luna.majority[side])
                luna.majority[side] = NO_CARD
    refill_display(state)
    flip_special_plan(state)


def play_round(rules: Rules, state: GameState, rngs: list[Stream],
               records: dict[int, list[RoundRecord]] | None) -> None:
    """One round: planning (every Luna in seat order), action phase, and preparation unless it was the last."""
    state.round += 1
    for seat, holder in enumerate(state.seats):
        if holder.player is not None:
            plan_player(rules, state, seat, rngs[seat])
    starts = {}
    for seat in rules.config.luna_seats:
        luna = state.seats[seat].luna
        # round 1's row counts from setup on, so it includes the grade-2 cards a starting research token brought in
        # and the rows add up to the game's totals (nothing enters between rounds: only draws and markers do)
        counted = (0, 0, 0) if state.round == 1 else (luna.reshuffles, luna.grade2_by_reshuffle, luna.grade2_by_token)
        starts[seat] = (len(luna.deck), *counted)
        plan_luna(rules, state, seat, rngs[seat])
    if records is not None:
        for seat in rules.config.luna_seats:
            luna = state.seats[seat].luna
            deck_size, reshuffles, by_reshuffle, by_token = starts[seat]
            records[seat].append(RoundRecord(
                round=state.round, cards=list(luna.slots), majority_cards=list(luna.majority),
                majority_values=majority_values(rules, luna),
                reshuffles=reshuffles, grade2_by_reshuffle=by_reshuffle, grade2_by_token=by_token,
                deck_size_start=deck_size))
    count_blocked_majorities(rules, state)
    action_phase(rules, state, rngs)
    if records is not None:
        for seat in rules.config.luna_seats:
            luna, record = state.seats[seat].luna, records[seat][-1]
            record.reshuffles = luna.reshuffles - record.reshuffles
            record.grade2_by_reshuffle = luna.grade2_by_reshuffle - record.grade2_by_reshuffle
            record.grade2_by_token = luna.grade2_by_token - record.grade2_by_token
            record.helium, record.research, record.cash = luna.helium, luna.research, state.seats[seat].cash
    if state.round < rules.config.rounds:
        preparation(rules, state)


# ---------------------------------------------------------------- scoring


def table_score(table: list[tuple[int, int]], position: int) -> int:
    """CrypCoin of the highest pair whose position the marker has reached; 0 below the first."""
    score = 0
    for threshold, coins in table:
        if position >= threshold:
            score = coins
    return score


def final_scores(rules: Rules, state: GameState) -> list[dict]:
    """Each seat's scoring categories (cash, helium, research, one per company) and total, its shares,
    the companies' values, its markers, cash and cards, its rank and win share (ties share the win)."""
    values = [company_value(rules, state, company) for company in range(N_COMPANIES)]
    rows = []
    for seat, holder in enumerate(state.seats):
        shares = seat_shares(rules, state, seat)
        acting = holder.luna or holder.player
        categories = {
            "score_cash": holder.cash,
            "score_helium": table_score(rules.helium_table, acting.helium),
            "score_research": table_score(rules.research_table, acting.research),
            **{column: shares[company] * values[company] for company, column in enumerate(COMPANY_SCORE_COLUMNS)},
        }
        row = {"score_total": sum(categories.values()), **categories}
        row.update(zip(SHARES_COLUMNS, shares, strict=True))
        row.update(zip(VALUE_COLUMNS, values, strict=True))
        row.update(helium=acting.helium, research=acting.research, cash=holder.cash, cards_gained=len(holder.cards))
        rows.append(row)
    totals = [row["score_total"] for row in rows]
    best = max(totals)
    winners = totals.count(best)
    for row in rows:
        row["rank"] = 1 + sum(total > row["score_total"] for total in totals)
        row["won"] = 1.0 / winners if row["score_total"] == best else 0.0
    return rows


def seat_counters(state: GameState, seat: int) -> dict[str, int]:
    """The seat's per-game counters (the columns besides ``final_scores``'); 0 where its kind has none."""
    luna, player = state.seats[seat].luna, state.seats[seat].player
    acting = luna or player
    counters = {
        "bonus_markers_placed": acting.bonus_markers_placed,
        "outposts_placed": acting.outposts_placed,
        # Luna's
        "plans_discarded": luna.plans_discarded if luna else 0,
        "ousted": luna.ousted if luna else 0,
        "reshuffles": luna.reshuffles if luna else 0,
        "grade2_entered": (luna.grade2_by_reshuffle + luna.grade2_by_token) if luna else 0,
        "grade2_by_reshuffle": luna.grade2_by_reshuffle if luna else 0,
        "grade2_by_token": luna.grade2_by_token if luna else 0,
        "slot_a_first_round": luna.slot_first_round[0] if luna else 0,
        "slot_e_first_round": luna.slot_first_round[-1] if luna else 0,
        # a scripted seat's
        "bonus_spaces_lost": player.bonus_spaces_lost if player else 0,
        "cards_lost": player.cards_lost if player else 0,
        "plans_lost": player.plans_lost if player else 0,
        "outposts_ousted_by_luna": player.outposts_ousted_by_luna if player else 0,
    }
    for index, column in enumerate(BLOCKED_COLUMNS):
        counters[column] = player.blocked[index] if player else 0
    return counters


# ---------------------------------------------------------------- one whole game


@dataclass
class GameResult:
    seats: list[dict]  # one dict per seat: the columns sim.columns.SEAT_NUMERIC, in that order
    rounds: dict[int, list[RoundRecord]]  # Luna seat -> one record per round (only with detail)
    state: GameState


def play_game(rules: Rules, seed: int, game: int, detail: bool = False,
              check: Callable[[GameState], None] | None = None) -> GameResult:
    """Play one complete game of ``rules.config`` with the streams of (seed, game).

    ``check``, if given, is called with the state after setup and after every round (it may raise to
    stop the game; ``sim.invariants.round_checker`` is the one ``--check-invariants`` uses).
    """
    state, rngs = setup_game(rules, seed, game)
    if check is not None:
        check(state)
    records = {seat: [] for seat in rules.config.luna_seats} if detail else None
    for _ in range(rules.config.rounds):
        play_round(rules, state, rngs, records)
        if check is not None:
            check(state)
    rows = []
    for seat, scores in enumerate(final_scores(rules, state)):
        fields = scores | seat_counters(state, seat)
        # The output contract (sim/columns.py) names the columns; a column no code fills fails here.
        rows.append({name: fields[name] for name in SEAT_NUMERIC})
    return GameResult(seats=rows, rounds=records or {}, state=state)
