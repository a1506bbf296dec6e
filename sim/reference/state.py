"""The reference engine's state: the table as typed structs, and the rules data one game reads.

Every field says what it holds and its range. Piles are lists with the top card LAST. Indices are
those listed in the package docstring (companies 0-3, Luna cards 0-18, sectors 1-24, display spaces
0-11, slots 0-4 for A-E, majority types 0-4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.beltdata import BeltData
from sim.config import GameConfig
from sim.constants import COMPANIES, MAJORITY_TYPES, N_RESOURCE_TYPES, N_SLOTS, RESEARCH_ROW_SPACES, RESEARCH_ROWS
from sim.gamedata import GameData, Profile, starting_token_shortfall

NO_CARD = -1
NO_COMPANY = -1
NOBODY = -1


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
    helium: int = 0  # tank marker, 0 to luna.board.tank_max
    research: int = 0  # upload marker, 0 to luna.board.research_max
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
    slot_first_round: list[int] = field(default_factory=lambda: [0] * N_SLOTS)  # round first used, 0 = never
    cards_played: list[int] = field(default_factory=lambda: [0] * N_SLOTS)  # cards flipped from each slot


@dataclass
class PlayerState:
    """One scripted seat."""

    profile: Profile
    strength: float  # the seat's multiplier of its profile's action strength and resource totals
    markers_in_reserve: int  # bonus markers in its reserve
    helium: int = 0  # tank marker, 0 to luna.board.tank_max
    research: int = 0  # upload marker, 0 to luna.board.research_max
    slot_on: list[bool] = field(default_factory=list)  # 5 entries: slot switched ON
    plan: list[int] = field(default_factory=list)  # this round's actions, indices into ACTION_KINDS, in slot order
    aims: list[tuple[int, int, int]] = field(default_factory=list)  # per planned action: (card, -1, 0) for
    # buy_card, (row, space, plan generation of that space) for research, (-1, -1, 0) otherwise
    next_action: int = 0  # index into plan of its next action
    passed: bool = True
    carry: float = 0.0  # fraction of action strength carried to the next action
    # per majority type: this round's totals; resources of cards bought before this round; of cards bought in it
    totals: list[int] = field(default_factory=lambda: [0] * N_RESOURCE_TYPES)
    card_resources: list[int] = field(default_factory=lambda: [0] * N_RESOURCE_TYPES)
    pending_resources: list[int] = field(default_factory=lambda: [0] * N_RESOURCE_TYPES)
    # counters, reported per game
    bonus_markers_placed: int = 0
    outposts_placed: int = 0
    plans_taken: int = 0
    blocked: list[int] = field(default_factory=lambda: [0] * N_RESOURCE_TYPES)  # rounds each type was blocked by Luna
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
    track_position: list[list[int]]  # [seat][company]: share marker position, 0 to moon.tracks.spaces
    sector_owner: list[int]  # 25 entries (index 0 unused): company with an outpost there, or NO_COMPANY
    station_vacant: list[list[int]]  # [company][column]: vacant home spaces, filled from the top, 0-5
    action_deck: list[int]  # action cards, top last
    display: list[int]  # 12 entries: action card on that display space, or NO_CARD
    plan_rows: list[list[bool]]  # [row A/B/C][space]: a research plan lies there
    plan_decks: list[int]  # 3 entries: plans left in each row's deck
    special_plans: list[int]  # per special plan: SPECIAL_FACE_DOWN, _UP or _REMOVED (sim.constants); flipped in order
    specials_flipped: int  # how many special plans have been flipped face up
    bonus_space_owner: list[list[int]]  # [3][4]: seat whose bonus marker is there, or NOBODY
    seats: list[SeatState]
    belt: BeltState | None = None  # the Belt, when the game is played on it (then no sector is used)
    round: int = 0
    scientist_space_owner: int = NOBODY  # seat whose marker is on the scientist majority space
    sector_placer: list[int] = field(default_factory=lambda: [NOBODY] * 25)  # seat that placed each outpost
    plan_generation: list[list[int]] = field(  # [row][space]: how often that space was refilled
        default_factory=lambda: [[0] * RESEARCH_ROW_SPACES for _ in RESEARCH_ROWS])
    luna_discarded: list[list[set[int]]] = field(
        default_factory=lambda: [[set() for _ in range(RESEARCH_ROW_SPACES)] for _ in RESEARCH_ROWS])
    # per research space, the generations (refill counts) of the plans a Luna discarded from it


@dataclass
class RoundRecord:
    """One Luna seat in one round (the optional ``luna_rounds`` detail)."""

    round: int
    cards: list[int]  # per slot A-E
    majority_cards: list[int]  # left, right (NO_CARD when her deck had none to draw)
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
        self.readings = luna.rules.readings()  # switch -> reading in force (SPEC section 8)
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
        self.token_shortfall = starting_token_shortfall(data, config.start_bonus, len(config.seats))  # "" if none
        self.card_resources = [[getattr(card, name) for name in MAJORITY_TYPES] for card in self.action_cards]
        self.player_model = data.players.model
        self.profiles = [data.players.profiles[seat.profile] if seat.kind == "scripted" else None
                         for seat in config.seats]
        humans = sum(seat.kind == "scripted" for seat in config.seats)
        self.player_markers = self.player_model.bonus_markers_by_humans[max(humans, 1) - 1]
        self.belt = BeltRules(data.belt) if config.board == "belt" else None  # None: the Moon side


# ---------------------------------------------------------------- the Belt side (SPEC section 7)
# Targets are numbered 1-20 as on the board (index 0 unused); an asteroid's outpost spaces are its slots
# 0..capacity-1, filled lowest first; a shuttle space has one slot.


class BeltRules:
    """The Belt data, unpacked into plain lists (read-only during play)."""

    def __init__(self, belt: BeltData) -> None:
        targets = belt.spaces.targets
        self.count = len(targets)
        self.asteroid = [False] + [target.kind == "asteroid" for target in targets]
        self.capacity = [0] + [target.capacity for target in targets]
        self.adjacent = [[]] + [sorted(target.adjacent) for target in targets]
        self.touches = [sorted(belt.stations.touches[company]) for company in COMPANIES]
        self.shuttles = belt.stations.shuttles
        self.setup_outposts = belt.stations.setup_outposts
        self.outpost_reward = belt.rewards.outpost_space
        self.shuttle_reward = belt.rewards.shuttle_space


@dataclass
class BeltState:
    """The Belt during a game: who holds each slot of each target, who placed it, the shuttle columns."""

    owner: list[list[int]]  # [target][slot]: company of the outpost/shuttle there, or NO_COMPANY
    placer: list[list[int]]  # [target][slot]: seat that placed it (NOBODY for setup pieces or vacant)
    shuttles_left: list[int]  # per company: shuttles still in its station's shuttle column

    @classmethod
    def empty(cls, rules: BeltRules) -> BeltState:
        """A Belt with no piece on it and full shuttle columns."""
        return cls(owner=[[NO_COMPANY] * size for size in rules.capacity],
                   placer=[[NOBODY] * size for size in rules.capacity],
                   shuttles_left=[rules.shuttles] * len(COMPANIES))

