"""The reference engine: Luna's rules, clause by clause, in plain readable Python.

Written for exactness, not speed: the numba engine must reproduce its results bit for bit, so every
random draw happens here in a documented order (see ``sim/rng.py`` and ``setup_game``). Each rule
is a function acting on the :class:`GameState` it is given; ``play_game`` strings them together.

Indices used throughout: companies 0-3 in ``moon.toml`` order (astrogo, tawac, skymine, minerva);
Luna cards 0-18 in ``luna.toml`` order; sectors 1-24 as numbered on the board; display spaces 0-11
(space number minus 1); action slots 0-4 for A-E; majority types 0-4 (titanium, carbon, energy,
minerals, scientists).

Scripted players (SPEC section 5, modelled; numbers in ``sim/data/players``) share the same table.
Each round, before Luna plans, a scripted player draws one action kind per ON slot from its profile's
weights (one ``below(sum of weights)`` per slot on its own stream; a passive seat draws nothing) and
notes what it aims at: the best display card for each ``buy_card`` and the first research plan for
each ``research``. Its per-round resource totals are the profile's totals for the round times its
strength (floored) plus the resources of cards it bought in earlier rounds; every majority type whose
total is lower than a Luna's value that round counts as blocked. In the action phase the seats take
turns in seat order (scripted seats first, Luna last), one action each per turn. An action's strength
is ``floor(steps_by_round[round] * strength + carry)``, the fraction carried to its next action.
- invest: that many steps on the most valuable company's track; thresholds pay; a money barrier it
  cannot pay stops it; past the end each step pays 2 CrypCoin.
- expand: ``max(1, floor(strength * expand_outposts_per_step))`` outposts of the company it holds
  most shares of (ties: more valuable), each in the lowest-numbered reachable vacant sector (it never
  ousts), paying ``sector_reward`` each.
- helium / research: the tank or upload marker forward (slot A at 8, E at 4, 2 CrypCoin past the end);
  research also takes the plan it aimed at; if Luna discarded that plan meanwhile it counts a lost
  plan and loses ``plan_lost_research_penalty`` steps.
- buy_card: the card it aimed at if still there and affordable; if Luna took it, a lost card; then the
  best affordable card instead. Best: a card with a share of the most valuable company, then other
  share cards by company value, then most resources, then the lowest space.
- bonus: a marker on the first majority space (titanium, carbon, energy, minerals, then scientists)
  that is free and that its totals allow, else on the first free standard space in its preference
  order; when the space it would have taken there holds a Luna marker, a lost bonus space.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sim.config import GameConfig
from sim.constants import ACTION_KINDS, MAJORITY_TYPES, SLOT_LETTERS
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
    Profile,
)
from sim.rng import BOARD_STREAM, Stream, seat_stream

SLOTS = SLOT_LETTERS
NO_CARD = -1
NO_COMPANY = -1
NOBODY = -1


# ---------------------------------------------------------------- state

@dataclass
class LunaState:
    """One Luna seat. Piles are lists with the top card LAST."""

    level: int
    deck: list[int]  # Luna deck, card indices, top last
    grade2_stack: list[int]  # grade-2 stack, top last (empty at levels 0-1)
    discard: list[int]  # face-up discard pile, top last
    slots: list[int]  # 5 entries (A-E): card index in that action slot, or NO_CARD
    slot_on: list[bool]  # 5 entries: slot switched ON
    majority: list[int]  # 2 entries (left, right): card in the majority slot, or NO_CARD
    helium_tokens: list[int]  # tank positions of Luna tokens not fired yet
    research_tokens: list[int]  # research positions of Luna tokens not fired yet
    markers_in_reserve: int  # bonus markers in her reserve
    helium: int = 0  # tank marker, 0-28
    research: int = 0  # upload marker, 0-15
    next_turn_slot: int = 0  # the slot whose card she flips next (5 = done for the round)
    passed: bool = False
    # counters, reported per game
    reshuffles: int = 0
    grade2_by_reshuffle: int = 0
    grade2_by_token: int = 0
    bonus_markers_placed: int = 0
    plans_discarded: int = 0
    outposts_placed: int = 0
    ousted: int = 0
    slot_first_round: list[int] = field(default_factory=lambda: [0] * 5)  # round a slot was first used, 0 = never
    cards_played: list[int] = field(default_factory=lambda: [0] * 5)  # cards flipped from each slot


@dataclass
class PlayerState:
    """One scripted seat."""

    profile: Profile
    strength: float  # the seat's multiplier of its profile's action strength and resource totals
    markers_in_reserve: int  # bonus markers in its reserve
    helium: int = 0  # tank marker, 0-28
    research: int = 0  # upload marker, 0-15
    slot_on: list[bool] = field(default_factory=list)  # 5 entries: slot switched ON
    plan: list[int] = field(default_factory=list)  # this round's actions, indices into ACTION_KINDS, in slot order
    aims: list[tuple[int, int, int]] = field(default_factory=list)  # per planned action: (card, -1, 0) for
    # buy_card, (row, space, plan generation of that space) for research, (-1, -1, 0) otherwise
    next_action: int = 0  # index into plan of its next action
    passed: bool = True
    carry: float = 0.0  # fraction of action strength carried to the next action
    totals: list[int] = field(default_factory=lambda: [0] * 5)  # this round's majority totals, by type
    card_resources: list[int] = field(default_factory=lambda: [0] * 5)  # from cards bought before this round
    pending_resources: list[int] = field(default_factory=lambda: [0] * 5)  # from cards bought this round
    # counters, reported per game
    bonus_markers_placed: int = 0
    outposts_placed: int = 0
    plans_taken: int = 0
    blocked: list[int] = field(default_factory=lambda: [0] * 5)  # rounds each majority type was blocked by Luna
    bonus_spaces_lost: int = 0  # bonus actions whose chosen standard space held a Luna marker
    cards_lost: int = 0  # buy actions whose card Luna had taken
    plans_lost: int = 0  # research actions whose plan Luna had discarded
    outposts_ousted_by_luna: int = 0  # outposts it placed that Luna ousted


@dataclass
class SeatState:
    """What every seat has, Luna or scripted: cash and collected action cards."""

    cash: int
    cards: list[int] = field(default_factory=list)  # action-card indices collected
    luna: LunaState | None = None
    player: PlayerState | None = None  # a scripted seat


@dataclass
class GameState:
    """The whole table."""

    track_side: list[int]  # 4 entries: index into moon.tracks.sides used by each company
    track_position: list[list[int]]  # [seat][company]: share marker position, 0-15
    sector_owner: list[int]  # 25 entries (index 0 unused): company with an outpost there, or NO_COMPANY
    station_vacant: list[list[int]]  # [company][column]: vacant home spaces, filled from the top, 0-5
    action_deck: list[int]  # action cards, top last
    display: list[int]  # 12 entries: action card on that display space, or NO_CARD
    plan_rows: list[list[bool]]  # [row A/B/C][space]: a research plan lies there
    plan_decks: list[int]  # 3 entries: plans left in each row's deck
    special_plans: list[int]  # per special plan: 0 face down, 1 face up, 2 removed; flipped in index order
    specials_flipped: int  # how many special plans have been flipped face up
    bonus_space_owner: list[list[int]]  # [3][4]: seat whose bonus marker is there, or NOBODY
    seats: list[SeatState]
    round: int = 0
    scientist_space_owner: int = NOBODY  # seat whose marker is on the scientist majority space
    sector_placer: list[int] = field(default_factory=lambda: [NOBODY] * 25)  # seat that placed each outpost
    plan_generation: list[list[int]] = field(default_factory=lambda: [[0] * 4 for _ in range(3)])  # refills
    luna_discarded: list[list[set[int]]] = field(default_factory=lambda: [[set() for _ in range(4)] for _ in range(3)])
    # per research space, the generations (refill counts) of the plans a Luna discarded from it


@dataclass
class RoundRecord:
    """One Luna seat in one round (the optional ``luna_rounds`` detail)."""

    round: int
    cards: list[int]
    majority_values: list[int]  # titanium, carbon, energy, minerals, scientists
    reshuffles: int
    grade2_by_reshuffle: int
    grade2_by_token: int
    deck_size_start: int
    helium: int = 0
    research: int = 0
    cash: int = 0


class Rules:
    """The data one game needs, unpacked once into plain lists (read-only during play)."""

    def __init__(self, data: GameData, config: GameConfig) -> None:
        luna, moon = data.luna, data.moon
        self.config = config
        self.board = luna.board
        self.levels = {int(name): level for name, level in luna.levels.items()}
        self.cards = luna.cards
        self.grade1 = [i for i, card in enumerate(luna.cards) if card.grade == 1]
        self.grade2 = [i for i, card in enumerate(luna.cards) if card.grade == 2]
        self.helium_table = luna.final_scoring.helium_tank
        self.research_table = luna.final_scoring.research_track
        self.companies = moon.companies
        self.sector_count = moon.sectors.rows * moon.sectors.columns
        self.adjacent = [[]] + [list(neighbours) for neighbours in moon.sectors.adjacent]
        self.station_touches = [sorted(moon.stations.touches[c]) for c in moon.companies]
        self.coin_icons = list(moon.stations.coin_icons)
        self.column_size = len(self.coin_icons)
        self.columns = moon.stations.columns
        self.setup_outposts = moon.stations.setup_outposts
        self.track_spaces = moon.tracks.spaces
        self.sides = moon.tracks.sides
        self.track_letters = sorted({side.id[0] for side in self.sides})
        self.side_index = {side.id: i for i, side in enumerate(self.sides)}
        self.barrier_price = [{b.after: b.price for b in side.barriers} for side in self.sides]
        self.threshold_reward = [{t.after: t.reward for t in side.thresholds} for side in self.sides]
        self.action_cards = moon.action_cards.cards
        self.card_share = [moon.companies.index(card.share) if card.share else NO_COMPANY
                           for card in self.action_cards]
        self.research = moon.research
        self.tokens = moon.starting_tokens.tokens
        self.card_resources = [[card.titanium, card.carbon, card.energy, card.minerals, card.scientists]
                               for card in self.action_cards]
        self.player_model = data.players.model
        self.profiles = [data.players.profiles[seat.profile] if seat.kind == "scripted" else None
                         for seat in config.seats]
        humans = sum(seat.kind == "scripted" for seat in config.seats)
        self.player_markers = self.player_model.bonus_markers_by_humans[max(humans, 1) - 1]


# ---------------------------------------------------------------- setup

def setup_game(rules: Rules, seed: int, game: int) -> tuple[GameState, list[Stream]]:
    """Lay out the board and every seat. Random draws, in this order:

    board stream: shuffle the track letters (A-E, sorted) and give the first four to the companies
    in order; then one ``below(2)`` per company for its side (0 = side 1); shuffle the action-card
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
    for company in range(4):
        side = board_rng.below(2)
        track_side.append(rules.side_index[f"{letters[company]}{side + 1}"])

    action_deck = list(range(len(rules.action_cards)))
    board_rng.shuffle(action_deck)

    state = GameState(
        track_side=track_side,
        track_position=[[0] * 4 for _ in config.seats],
        sector_owner=[NO_COMPANY] * (rules.sector_count + 1),
        sector_placer=[NOBODY] * (rules.sector_count + 1),
        station_vacant=[[0] * rules.columns for _ in range(4)],
        action_deck=action_deck,
        display=[NO_CARD] * 12,
        plan_rows=[[False] * rules.research.row_spaces for _ in range(3)],
        plan_decks=[rules.research.row_deck] * 3,
        special_plans=[0] * rules.research.special_plans,
        specials_flipped=0,
        bonus_space_owner=[[NOBODY] * 4 for _ in range(3)],
        seats=[],
    )
    refill_display(state)
    for row in range(3):
        refill_plan_row(state, row)
    for _ in range(min(rules.research.special_face_up_at_start, len(state.special_plans))):
        flip_special_plan(state)
    for company in range(4):
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
            slot_on = [letter in rules.board.initial_slots for letter in SLOTS]
            state.seats.append(SeatState(cash=cash, player=PlayerState(
                profile=profile, strength=seat.strength, markers_in_reserve=rules.player_markers, slot_on=slot_on)))

    if config.start_bonus == "random":
        pool = list(range(len(rules.tokens)))
        for seat_index in range(len(config.seats)):
            pick = board_rng.below(len(pool))
            token = rules.tokens[pool[pick]]
            pool[pick] = pool[-1]
            pool.pop()
            holder = state.seats[seat_index]
            if holder.luna is not None or not holder.player.profile.passive:
                apply_starting_token(rules, state, seat_index, token)
    return state, seat_rngs


def setup_luna(rules: Rules, level: int, rng: Stream) -> LunaState:
    """Luna's deck, stack, slots, markers and tokens for a level (start positions trigger nothing)."""
    spec = rules.levels[level]
    deck = list(rules.grade1)
    rng.shuffle(deck)
    stack = list(rules.grade2) if spec.grade2 else []
    rng.shuffle(stack)
    slot_on = [letter in rules.board.initial_slots for letter in SLOTS]
    luna = LunaState(
        level=level, deck=deck, grade2_stack=stack, discard=[], slots=[NO_CARD] * 5, slot_on=slot_on,
        majority=[NO_CARD, NO_CARD], helium_tokens=list(spec.helium_tokens),
        research_tokens=list(spec.research_tokens), markers_in_reserve=rules.board.bonus_markers,
        helium=spec.start_helium, research=spec.start_research,
    )
    if spec.slot_switches:
        luna.slot_on[0] = luna.slot_on[0] or luna.helium >= rules.board.tank_switch_at
        luna.slot_on[4] = luna.slot_on[4] or luna.research >= rules.board.research_switch_at
    return luna


def apply_starting_token(rules: Rules, state: GameState, seat: int, token) -> None:
    """A starting research token's bonus, moved by the usual rules."""
    if token.helium is not None and state.seats[seat].player is not None:
        player_helium(rules, state, seat, token.helium)
    elif token.helium is not None:
        gain_helium(rules, state, seat, token.helium)
    else:
        advance_track(rules, state, seat, rules.companies.index(token.company), token.steps)


# ---------------------------------------------------------------- Luna's deck

def draw_luna_card(rules: Rules, state: GameState, seat: int, rng: Stream) -> int:
    """Top card of her deck; an empty deck is first rebuilt from the discard pile plus one grade-2 card.

    Rebuild order: the discard pile from bottom to top, then the grade-2 card on the end, then one
    Fisher-Yates shuffle of that list.
    """
    luna = state.seats[seat].luna
    if not luna.deck:
        if not luna.discard and not luna.grade2_stack:
            return NO_CARD
        luna.deck = luna.discard
        luna.discard = []
        if rules.levels[luna.level].grade2 and luna.grade2_stack:
            luna.deck.append(luna.grade2_stack.pop())
            luna.grade2_by_reshuffle += 1
        rng.shuffle(luna.deck)
        luna.reshuffles += 1
        if not luna.deck:
            return NO_CARD
    return luna.deck.pop()


def fire_token(state: GameState, seat: int) -> None:
    """A marker reached or passed a Luna token: one grade-2 card face down on top of her deck."""
    luna = state.seats[seat].luna
    if luna.grade2_stack:
        luna.deck.append(luna.grade2_stack.pop())
        luna.grade2_by_token += 1


# ---------------------------------------------------------------- Luna's own tracks

def move_marker(rules: Rules, state: GameState, seat: int, track: str, steps: int) -> None:
    """Move a seat's tank (``track="helium"``) or upload (``"research"``) marker forward step by step.

    Reaching the switch space turns slot A (tank) or E (upload) ON, except at a Luna level without
    switches; reaching or passing a Luna token fires it; each step past the end pays 2 CrypCoin.
    """
    holder = state.seats[seat]
    marker = holder.luna if holder.luna is not None else holder.player
    if track == "helium":
        end, switch_at, slot = rules.board.tank_max, rules.board.tank_switch_at, 0
    else:
        end, switch_at, slot = rules.board.research_max, rules.board.research_switch_at, 4
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


# ---------------------------------------------------------------- companies

def column_coins(rules: Rules, vacant: int) -> int:
    """Coin icons showing in a column whose top ``vacant`` home spaces are vacant."""
    return sum(rules.coin_icons[:vacant])


def company_value(rules: Rules, state: GameState, company: int) -> int:
    """Visible coin icons in the company's station."""
    return sum(column_coins(rules, vacant) for vacant in state.station_vacant[company])


def companies_by_value(rules: Rules, state: GameState) -> list[int]:
    """Companies, most valuable first: coin icons, then vacant home spaces, then track ID alphabetically."""
    def key(company: int) -> tuple[int, int, str]:
        return (-company_value(rules, state, company), -sum(state.station_vacant[company]),
                rules.sides[state.track_side[company]].id)
    return sorted(range(4), key=key)


def lead_margins(state: GameState, seat: int) -> list[int]:
    """Per company: her marker minus the best other marker (0 when no other marker stands there).

    Positive: she leads by that many spaces; 0: she shares the lead; negative: she is that far behind.
    """
    margins = []
    for company in range(4):
        others = [state.track_position[other][company] for other in range(len(state.seats)) if other != seat]
        margins.append(state.track_position[seat][company] - max(others, default=0))
    return margins


def select_companies(rules: Rules, state: GameState, seat: int, selection: str) -> list[int]:
    """The companies a card's ``advance_company`` names, in the order they are advanced."""
    by_value = companies_by_value(rules, state)
    if selection == "most_valuable":
        return by_value[:1]
    if selection == "two_most_valuable":
        return by_value[:2]
    if selection == "second_most_valuable":
        return by_value[1:2]
    if selection == "least_valuable":
        return by_value[3:]
    if selection == "all_four":
        return by_value
    # Biggest lead first; when she leads nowhere the shared lead, then the smallest gap behind, all of
    # which is "largest margin first". Ties go to the more valuable company.
    margins = lead_margins(state, seat)
    by_lead = sorted(range(4), key=lambda company: (-margins[company], by_value.index(company)))
    if selection == "lead_biggest_margin":
        return by_lead[:1]
    if selection == "two_biggest_leads":
        return by_lead[:2]
    raise ValueError(f"unknown company selection {selection!r}")


def farthest_behind(rules: Rules, state: GameState, seat: int, candidates: list[int]) -> int:
    """Among ``candidates``, the company on whose track she is farthest behind (smallest margin first).

    Ties go to the more valuable company.
    """
    margins = lead_margins(state, seat)
    by_value = companies_by_value(rules, state)
    return min(candidates, key=lambda company: (margins[company], by_value.index(company)))


def advance_track(rules: Rules, state: GameState, seat: int, company: int, steps: int) -> None:
    """Share marker forward: thresholds pay, 2 CrypCoin per step past the end; at a money barrier Luna
    pays what she has and moves on anyway, while a scripted player stops unless it can pay in full."""
    side = state.track_side[company]
    holder = state.seats[seat]
    for _ in range(steps):
        position = state.track_position[seat][company]
        if position >= rules.track_spaces:
            holder.cash += rules.board.past_end_crypcoin_per_step
            continue
        price = rules.barrier_price[side].get(position, 0)
        if holder.luna is None and price > holder.cash:
            break
        holder.cash -= min(price, holder.cash)
        holder.cash += rules.threshold_reward[side].get(position, 0)
        state.track_position[seat][company] = position + 1


def take_column(rules: Rules, state: GameState, company: int) -> int:
    """Main outpost column to take the top outpost from: most vacant spaces among columns whose final
    space is occupied, ties to the column closest to the logo; -1 when the station is empty."""
    best = -1
    for column, vacant in enumerate(state.station_vacant[company]):
        if vacant < rules.column_size and (best < 0 or vacant > state.station_vacant[company][best]):
            best = column
    return best


def return_column(rules: Rules, state: GameState, company: int) -> int:
    """Main outpost column an ousted outpost returns to (its lowest vacant home space).

    As for taking; when every final space is vacant: most vacant spaces, then fewest coin icons,
    then closest to the logo.
    """
    column = take_column(rules, state, company)
    # Fix (rules tests): the main column can be full, e.g. vacancies [5, 0, 0] (column 1 emptied,
    # columns 2-3 untouched): the main column is column 2, which has no vacant home space, and the
    # outpost used to be pushed to -1 vacancies. Then the columns with room are exactly the emptied
    # ones, and the "all final spaces vacant" rule below picks among them (most vacant, closest to logo).
    if column >= 0 and state.station_vacant[company][column] > 0:
        return column
    vacants = state.station_vacant[company]
    return min(range(len(vacants)), key=lambda c: (-vacants[c], column_coins(rules, vacants[c]), c))


def reachable_sectors(rules: Rules, state: GameState, company: int) -> list[int]:
    """Sectors touching the company's station or adjacent to a sector holding one of its outposts."""
    reachable = set(rules.station_touches[company])
    for sector in range(1, rules.sector_count + 1):
        if state.sector_owner[sector] == company:
            reachable.update(rules.adjacent[sector])
    return sorted(reachable)


def expand_company(rules: Rules, state: GameState, seat: int, companies: list[int], points: int,
                   lowest: bool) -> None:
    """Moon-side expansion, less valuable company first, ``points`` outposts each (MIN or MAX)."""
    by_value = companies_by_value(rules, state)
    luna = state.seats[seat].luna
    for company in sorted(companies, key=by_value.index, reverse=True):
        for _ in range(points):
            column = take_column(rules, state, company)
            if column < 0:
                break  # no outpost left to place: the remaining points are forfeited
            reachable = reachable_sectors(rules, state, company)
            vacant = [s for s in reachable if state.sector_owner[s] == NO_COMPANY]
            if vacant:
                target = min(vacant) if lowest else max(vacant)
            else:
                rivals = sorted({state.sector_owner[s] for s in reachable} - {company})
                if not rivals:
                    break
                victim = farthest_behind(rules, state, seat, rivals)
                held = [s for s in reachable if state.sector_owner[s] == victim]
                target = min(held) if lowest else max(held)
                state.station_vacant[victim][return_column(rules, state, victim)] -= 1
                luna.ousted += 1
                placer = state.sector_placer[target]
                if placer != NOBODY and state.seats[placer].player is not None:
                    state.seats[placer].player.outposts_ousted_by_luna += 1
            state.station_vacant[company][column] += 1
            state.sector_owner[target] = company
            state.sector_placer[target] = seat
            luna.outposts_placed += 1


# ---------------------------------------------------------------- display, research, bonus spaces

def refill_display(state: GameState) -> None:
    """Fill empty display spaces, lowest first, from the top of the action-card deck."""
    for space in range(12):
        if state.display[space] == NO_CARD and state.action_deck:
            state.display[space] = state.action_deck.pop()


def refill_plan_row(state: GameState, row: int) -> None:
    for space in range(len(state.plan_rows[row])):
        if not state.plan_rows[row][space] and state.plan_decks[row] > 0:
            state.plan_rows[row][space] = True
            state.plan_decks[row] -= 1
            state.plan_generation[row][space] += 1


def flip_special_plan(state: GameState) -> None:
    if state.specials_flipped < len(state.special_plans):
        state.special_plans[state.specials_flipped] = 1
        state.specials_flipped += 1


def take_display_card(state: GameState, seat: int, space: int) -> None:
    card = state.display[space]
    if card != NO_CARD:
        state.seats[seat].cards.append(card)
        state.display[space] = NO_CARD


def gain_card(rules: Rules, state: GameState, seat: int, action: GainCard, slot: int) -> None:
    if action.select == "match_slot":
        for space in range(12):
            if SLOTS[slot] in action.display[space // 3][space % 3]:
                take_display_card(state, seat, space)
        return
    shown = {rules.card_share[card] for card in state.display if card != NO_CARD} - {NO_COMPANY}
    if not shown:
        return
    best = next(company for company in companies_by_value(rules, state) if company in shown)
    space = next(s for s in range(12) if state.display[s] != NO_CARD and rules.card_share[state.display[s]] == best)
    take_display_card(state, seat, space)


def discard_research_plan(state: GameState, seat: int, action: DiscardResearchPlan, slot: int) -> None:
    luna = state.seats[seat].luna
    if action.select == "latest_special":
        face_up = [i for i, status in enumerate(state.special_plans) if status == 1]
        if face_up:
            state.special_plans[face_up[-1]] = 2
            luna.plans_discarded += 1
        return
    row = "ABC".index(action.row)
    for space, cell in enumerate(action.spaces):
        if SLOTS[slot] in cell and state.plan_rows[row][space]:
            state.plan_rows[row][space] = False
            state.luna_discarded[row][space].add(state.plan_generation[row][space])
            luna.plans_discarded += 1
    refill_plan_row(state, row)


def place_bonus_marker(state: GameState, seat: int, action: PlaceBonusMarker, slot: int) -> None:
    luna = state.seats[seat].luna
    for row in range(3):
        for column in range(4):
            if (SLOTS[slot] in action.spaces[row][column] and state.bonus_space_owner[row][column] == NOBODY
                    and luna.markers_in_reserve > 0):
                state.bonus_space_owner[row][column] = seat
                luna.markers_in_reserve -= 1
                luna.bonus_markers_placed += 1


# ---------------------------------------------------------------- a card's actions

def resolve_card(rules: Rules, state: GameState, seat: int, card: int, slot: int) -> None:
    """Carry out a Luna card's action section top to bottom, as played from ``slot``."""
    chosen: list[int] = []
    for action in rules.cards[card].actions:
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
            expand_company(rules, state, seat, chosen, action.count, lowest=action.sector == "min")
        elif isinstance(action, GainCard):
            gain_card(rules, state, seat, action, slot)
        elif isinstance(action, DiscardResearchPlan):
            discard_research_plan(state, seat, action, slot)
        elif isinstance(action, PlaceBonusMarker):
            place_bonus_marker(state, seat, action, slot)


def apply_reveal(rules: Rules, state: GameState, seat: int, card: int) -> None:
    reveal = rules.cards[card].reveal
    if isinstance(reveal, GainHelium):
        gain_helium(rules, state, seat, reveal.count)
    elif isinstance(reveal, AdvanceResearch):
        advance_research(rules, state, seat, reveal.count)


def majority_values(rules: Rules, luna: LunaState) -> list[int]:
    """Titanium, carbon (left card), energy, minerals (right card), scientists (both) this round."""
    left, right = luna.majority
    left_card = rules.cards[left].majority if left != NO_CARD else None
    right_card = rules.cards[right].majority if right != NO_CARD else None
    return [
        left_card.left if left_card else 0,
        left_card.right if left_card else 0,
        right_card.left if right_card else 0,
        right_card.right if right_card else 0,
        (left_card.scientists if left_card else 0) + (right_card.scientists if right_card else 0),
    ]


# ---------------------------------------------------------------- the round

def plan_luna(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Planning a (a card face down in each ON slot, left to right) and b (majority cards, reveals)."""
    luna = state.seats[seat].luna
    for slot in range(5):
        luna.slots[slot] = NO_CARD
        if luna.slot_on[slot]:
            luna.slots[slot] = draw_luna_card(rules, state, seat, rng)
            if luna.slots[slot] != NO_CARD and luna.slot_first_round[slot] == 0:
                luna.slot_first_round[slot] = state.round
    luna.majority[0] = draw_luna_card(rules, state, seat, rng)
    luna.majority[1] = draw_luna_card(rules, state, seat, rng)
    for card in luna.majority:
        if card != NO_CARD:
            apply_reveal(rules, state, seat, card)
    luna.next_turn_slot = 0
    luna.passed = False


def luna_turn(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Flip her leftmost face-down slot card and resolve it; after the rightmost, clean up and pass."""
    luna = state.seats[seat].luna
    while luna.next_turn_slot < 5 and luna.slots[luna.next_turn_slot] == NO_CARD:
        luna.next_turn_slot += 1
    if luna.next_turn_slot < 5:
        slot = luna.next_turn_slot
        resolve_card(rules, state, seat, luna.slots[slot], slot)
        luna.cards_played[slot] += 1
        luna.next_turn_slot += 1
        while luna.next_turn_slot < 5 and luna.slots[luna.next_turn_slot] == NO_CARD:
            luna.next_turn_slot += 1
    if luna.next_turn_slot >= 5:
        end_luna_actions(rules, state, seat, rng)


def end_luna_actions(rules: Rules, state: GameState, seat: int, rng: Stream) -> None:
    """Shuffle her slot cards (slot order A-E, then Fisher-Yates) onto the discard pile face up; the
    new top card's larger majority value sends that side's majority card to the discard pile now."""
    luna = state.seats[seat].luna
    played = [card for card in luna.slots if card != NO_CARD]
    luna.slots = [NO_CARD] * 5
    rng.shuffle(played)
    luna.discard.extend(played)
    if played:
        top = rules.cards[luna.discard[-1]].majority
        side = 0 if top.left > top.right else 1 if top.right > top.left else -1
        if side >= 0 and luna.majority[side] != NO_CARD:
            luna.discard.append(luna.majority[side])
            luna.majority[side] = NO_CARD
    luna.passed = True


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
        luna = holder.luna
        if holder.player is not None:
            player_markers_home(state, seat)
        if luna is None:
            continue
        for row in range(3):
            for column in range(4):
                if state.bonus_space_owner[row][column] == seat:
                    state.bonus_space_owner[row][column] = NOBODY
                    luna.markers_in_reserve += 1
        for side in range(2):
            if luna.majority[side] != NO_CARD:
                luna.discard.append(luna.majority[side])
                luna.majority[side] = NO_CARD
    refill_display(state)
    flip_special_plan(state)


def play_round(rules: Rules, state: GameState, rngs: list[Stream], records: list[list[RoundRecord]] | None) -> None:
    """One round: planning (every Luna in seat order), action phase, and preparation unless it was the last."""
    state.round += 1
    for seat, holder in enumerate(state.seats):
        if holder.player is not None:
            plan_player(rules, state, seat, rngs[seat])
    starts = {}
    for seat in rules.config.luna_seats:
        luna = state.seats[seat].luna
        starts[seat] = (len(luna.deck), luna.reshuffles, luna.grade2_by_reshuffle, luna.grade2_by_token)
        plan_luna(rules, state, seat, rngs[seat])
    if records is not None:
        for seat in rules.config.luna_seats:
            luna = state.seats[seat].luna
            deck_size, reshuffles, by_reshuffle, by_token = starts[seat]
            records[seat].append(RoundRecord(
                round=state.round, cards=list(luna.slots), majority_values=majority_values(rules, luna),
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


# ---------------------------------------------------------------- scripted players (modelled)

def luna_majority_values(rules: Rules, state: GameState) -> list[int]:
    """Per majority type, the highest value any Luna shows right now (0 without a Luna)."""
    values = [0] * 5
    for seat in rules.config.luna_seats:
        for index, value in enumerate(majority_values(rules, state.seats[seat].luna)):
            values[index] = max(values[index], value)
    return values


def ranked_display_spaces(rules: Rules, state: GameState) -> list[int]:
    """Display spaces holding a card, best first for a buyer (see the module docstring)."""
    by_value = companies_by_value(rules, state)

    def key(space: int) -> tuple[int, int, int, int]:
        card = state.display[space]
        share = rules.card_share[card]
        return (share == NO_COMPANY, by_value.index(share) if share != NO_COMPANY else 0,
                -sum(rules.card_resources[card]), space)
    return sorted((space for space in range(12) if state.display[space] != NO_CARD), key=key)


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
        for slot in range(5):
            if not player.slot_on[slot]:
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
        for row in range(3):
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
            for index in range(5):
                if holder.player.totals[index] < values[index]:
                    holder.player.blocked[index] += 1


def action_strength(player: PlayerState, round_number: int) -> int:
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


def player_invest(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    advance_track(rules, state, seat, companies_by_value(rules, state)[0], steps)


def seat_shares(rules: Rules, state: GameState, seat: int) -> list[int]:
    shares = list(state.track_position[seat])
    for card in state.seats[seat].cards:
        if rules.card_share[card] != NO_COMPANY:
            shares[rules.card_share[card]] += 1
    return shares


def player_expand(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    if steps <= 0:
        return
    shares = seat_shares(rules, state, seat)
    by_value = companies_by_value(rules, state)
    company = min(range(4), key=lambda c: (-shares[c], by_value.index(c)))
    player = state.seats[seat].player
    for _ in range(max(1, math.floor(steps * rules.player_model.expand_outposts_per_step))):
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
    move_marker(rules, state, seat, "helium", steps)


def player_research(rules: Rules, state: GameState, seat: int, steps: int) -> None:
    move_marker(rules, state, seat, "research", steps)


def player_research_action(rules: Rules, state: GameState, seat: int, steps: int,
                           aim: tuple[int, int, int]) -> None:
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
    holder = state.seats[seat]
    if aimed != NO_CARD and aimed not in state.display:
        if any(aimed in state.seats[luna].cards for luna in rules.config.luna_seats):
            holder.player.cards_lost += 1
    choices = ([state.display.index(aimed)] if aimed in state.display else []) + ranked_display_spaces(rules, state)
    for space in choices:
        card = state.display[space]
        if rules.action_cards[card].price <= holder.cash:
            holder.cash -= rules.action_cards[card].price
            take_display_card(state, seat, space)
            for index in range(5):
                holder.player.pending_resources[index] += rules.card_resources[card][index]
            return


def player_bonus(rules: Rules, state: GameState, seat: int) -> None:
    holder = state.seats[seat]
    player = holder.player
    if player.markers_in_reserve == 0:
        return
    values = luna_majority_values(rules, state)
    model = rules.player_model
    for index in range(4):
        if state.bonus_space_owner[0][index] == NOBODY and player.totals[index] >= values[index]:
            state.bonus_space_owner[0][index] = seat
            holder.cash += model.majority_bonus_reward
            break
    else:
        if state.scientist_space_owner == NOBODY and player.totals[4] >= values[4]:
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


def player_markers_home(state: GameState, seat: int) -> None:
    player = state.seats[seat].player
    for row in range(3):
        for column in range(4):
            if state.bonus_space_owner[row][column] == seat:
                state.bonus_space_owner[row][column] = NOBODY
                player.markers_in_reserve += 1
    if state.scientist_space_owner == seat:
        state.scientist_space_owner = NOBODY
        player.markers_in_reserve += 1


# ---------------------------------------------------------------- scoring

def table_score(table: list[tuple[int, int]], position: int) -> int:
    """CrypCoin of the highest pair whose position the marker has reached; 0 below the first."""
    score = 0
    for threshold, coins in table:
        if position >= threshold:
            score = coins
    return score


def final_scores(rules: Rules, state: GameState) -> list[dict]:
    """Each seat's 7 categories, shares, values, rank and win share."""
    values = [company_value(rules, state, company) for company in range(4)]
    rows = []
    for seat, holder in enumerate(state.seats):
        luna = holder.luna
        shares = list(state.track_position[seat])
        for card in holder.cards:
            if rules.card_share[card] != NO_COMPANY:
                shares[rules.card_share[card]] += 1
        marker_holder = luna or holder.player
        helium = marker_holder.helium
        research = marker_holder.research
        row = {
            "score_cash": holder.cash,
            "score_helium": table_score(rules.helium_table, helium),
            "score_research": table_score(rules.research_table, research),
        }
        for company, name in enumerate(rules.companies):
            row[f"score_{name}"] = shares[company] * values[company]
        row["score_total"] = sum(row.values())
        for company, name in enumerate(rules.companies):
            row[f"shares_{name}"] = shares[company]
            row[f"value_{name}"] = values[company]
        row.update(helium=helium, research=research, cash=holder.cash, cards_gained=len(holder.cards))
        rows.append(row)
    totals = [row["score_total"] for row in rows]
    best = max(totals)
    winners = totals.count(best)
    for row in rows:
        row["rank"] = 1 + sum(total > row["score_total"] for total in totals)
        row["won"] = 1.0 / winners if row["score_total"] == best else 0.0
    return rows


# ---------------------------------------------------------------- one whole game

@dataclass
class GameResult:
    seats: list[dict]  # one dict per seat: the seats.parquet columns except game/seat/kind/level/profile
    rounds: dict[int, list[RoundRecord]]  # Luna seat -> one record per round (only with detail)
    state: GameState


def play_game(rules: Rules, seed: int, game: int, detail: bool = False) -> GameResult:
    """Play one complete game of ``rules.config`` with the streams of (seed, game)."""
    state, rngs = setup_game(rules, seed, game)
    records = {seat: [] for seat in rules.config.luna_seats} if detail else None
    for _ in range(rules.config.rounds):
        play_round(rules, state, rngs, records)
    rows = final_scores(rules, state)
    for seat, row in enumerate(rows):
        luna, player = state.seats[seat].luna, state.seats[seat].player
        acting = luna or player
        row.update(
            bonus_markers_placed=acting.bonus_markers_placed,
            plans_discarded=luna.plans_discarded if luna else 0,
            outposts_placed=acting.outposts_placed,
            ousted=luna.ousted if luna else 0,
            reshuffles=luna.reshuffles if luna else 0,
            grade2_entered=(luna.grade2_by_reshuffle + luna.grade2_by_token) if luna else 0,
            grade2_by_reshuffle=luna.grade2_by_reshuffle if luna else 0,
            grade2_by_token=luna.grade2_by_token if luna else 0,
            slot_a_first_round=luna.slot_first_round[0] if luna else 0,
            slot_e_first_round=luna.slot_first_round[4] if luna else 0,
        )
        for index, name in enumerate(MAJORITY_TYPES):
            row[f"blocked_{name}"] = player.blocked[index] if player else 0
        row.update(
            bonus_spaces_lost=player.bonus_spaces_lost if player else 0,
            cards_lost=player.cards_lost if player else 0,
            plans_lost=player.plans_lost if player else 0,
            outposts_ousted_by_luna=player.outposts_ousted_by_luna if player else 0,
        )
    return GameResult(seats=rows, rounds=records or {}, state=state)
