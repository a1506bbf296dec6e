"""The schema of the modelled Moon board (``sim/data/moon.toml``): its sectors, stations, company tracks,
display, research plans, bonus spaces, starting research tokens and action cards (``sim/gamedata.py`` loads
it with Luna's data and the players'; ``sim/beltdata.py`` is the Belt side's)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from sim.constants import (
    BONUS_COLUMNS,
    COMPANIES,
    DISPLAY_SPACES,
    MAJORITY_TYPES,
    N_COMPANIES,
    RESEARCH_ROW_SPACES,
    TRACK_TILE_SIDES,
)
from sim.strict import Count, NoFloat
from sim.strict import Strict as _Strict


class Sectors(_Strict):
    note: str
    rows: int = Field(ge=1)
    columns: int = Field(ge=1)
    adjacent: list[list[int]]

    @model_validator(mode="after")
    def _symmetric(self) -> Sectors:
        count = self.rows * self.columns
        if len(self.adjacent) != count:
            raise ValueError(f"adjacent must list the neighbours of all {count} sectors")
        for index, neighbours in enumerate(self.adjacent, start=1):
            for other in neighbours:
                if not 1 <= other <= count or other == index:
                    raise ValueError(f"adjacent.{index - 1}: {other} is not another sector")
                if index not in self.adjacent[other - 1]:
                    raise ValueError(f"adjacent: {index} lists {other} but not the other way round")
        return self


class Stations(_Strict):
    note: str
    columns: int = Field(ge=1)
    coin_icons: list[int] = Field(min_length=1)
    setup_outposts: Count
    touches: dict[str, list[int]]


class Barrier(_Strict):
    after: Count
    price: Count


class Threshold(_Strict):
    after: Count
    reward: Count


class TrackSide(_Strict):
    id: str = Field(pattern=rf"^[A-Z][1-{TRACK_TILE_SIDES}]$")  # a track letter and its side
    barriers: list[Barrier]
    thresholds: list[Threshold]

    @model_validator(mode="after")
    def _distinct_gaps(self) -> TrackSide:
        gaps = [b.after for b in self.barriers] + [t.after for t in self.thresholds]
        if len(set(gaps)) != len(gaps):
            raise ValueError("a barrier and a threshold (or two of either) share a gap")
        return self


class Tracks(_Strict):
    note: str
    spaces: int = Field(ge=1)
    sides: list[TrackSide]

    @model_validator(mode="after")
    def _sides(self) -> Tracks:
        ids = [side.id for side in self.sides]
        if len(set(ids)) != len(ids):
            raise ValueError("side ids must be unique")
        letters = sorted({side_id[0] for side_id in ids})
        if len(letters) < N_COMPANIES:
            raise ValueError(f"at least {N_COMPANIES} tracks (letters) are needed")
        for letter in letters:
            both = [f"{letter}{side}" for side in range(1, TRACK_TILE_SIDES + 1)]
            if sorted(side_id for side_id in ids if side_id[0] == letter) != both:
                raise ValueError(f"track {letter} needs both sides {' and '.join(both)}")
        for side in self.sides:
            for gap in [b.after for b in side.barriers] + [t.after for t in side.thresholds]:
                if gap >= self.spaces:
                    raise ValueError(f"side {side.id}: gap after {gap} is not before the last space {self.spaces}")
        return self


class Display(_Strict):
    note: str
    spaces: Annotated[Literal[DISPLAY_SPACES], NoFloat]  # type: ignore[valid-type]


class Research(_Strict):
    note: str
    row_spaces: Annotated[Literal[RESEARCH_ROW_SPACES], NoFloat]  # type: ignore[valid-type]
    row_deck: Count
    special_plans: Count
    special_face_up_at_start: Count


class BonusSpaces(_Strict):
    note: str
    majority_row: list[Literal["titanium", "carbon", "energy", "minerals"]]

    @model_validator(mode="after")
    def _fixed_order(self) -> BonusSpaces:
        # Both engines index the top row's spaces by majority type (sim/reference/players.py, player_bonus), so
        # another order or length would be accepted and silently played as this one.
        row = list(MAJORITY_TYPES[:BONUS_COLUMNS])
        if self.majority_row != row:
            raise ValueError(f"majority_row: must be {row} in this order (the engines place a majority bonus "
                             f"marker by type), got {self.majority_row}")
        return self


class StartingToken(_Strict):
    helium: int | None = Field(default=None, ge=1)
    company: str | None = None
    steps: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _one_kind(self) -> StartingToken:
        if (self.helium is None) == (self.company is None) or (self.company is None) != (self.steps is None):
            raise ValueError("a token gives either helium steps or steps on one company track")
        return self


class StartingTokens(_Strict):
    note: str
    tokens: list[StartingToken] = Field(min_length=1)


class ActionCard(_Strict):
    id: int
    share: str  # company key, or "" for no extra share
    price: Count
    titanium: Count
    carbon: Count
    energy: Count
    minerals: Count
    scientists: Count


class ActionCards(_Strict):
    note: str
    cards: list[ActionCard]


class MoonData(_Strict):
    companies: list[str]
    company_names: list[str] = Field(min_length=len(COMPANIES), max_length=len(COMPANIES))
    sectors: Sectors
    stations: Stations
    tracks: Tracks
    display: Display
    research: Research
    bonus_spaces: BonusSpaces
    starting_tokens: StartingTokens
    action_cards: ActionCards

    @model_validator(mode="after")
    def _consistent(self) -> MoonData:
        if tuple(self.companies) != COMPANIES:
            raise ValueError(f"companies: must be {list(COMPANIES)} in this order "
                             "(output columns are named after them)")
        companies = set(self.companies)
        count = self.sectors.rows * self.sectors.columns
        if set(self.stations.touches) != companies:
            raise ValueError(f"stations.touches must name exactly the companies {self.companies}")
        outposts = self.stations.columns * len(self.stations.coin_icons)
        if self.stations.setup_outposts > outposts:
            # a station cannot give more outposts than its home spaces hold (the engines would push a vacancy
            # count past its column and leave the company more than its outposts on the board)
            raise ValueError(f"stations.setup_outposts: {self.stations.setup_outposts} per company, but a station "
                             f"holds {outposts} outposts (columns x coin_icons)")
        setup: dict[int, str] = {}  # each company's setup outposts go on its lowest touched sectors
        for company, sectors in self.stations.touches.items():
            if not sectors or any(not 1 <= s <= count for s in sectors):
                raise ValueError(f"stations.touches.{company}: sectors must be within 1-{count}")
            if self.stations.setup_outposts > len(sectors):
                raise ValueError(f"stations.touches.{company}: fewer touched sectors than setup outposts")
            for sector in sorted(sectors)[: self.stations.setup_outposts]:
                if sector in setup:
                    raise ValueError(f"stations.touches.{company}: sector {sector} would get the setup outposts of "
                                     f"{setup[sector]} and {company} (a sector holds one outpost)")
                setup[sector] = company
        for index, token in enumerate(self.starting_tokens.tokens):
            if token.company is not None and token.company not in companies:
                raise ValueError(f"starting_tokens.tokens.{index}.company: unknown company {token.company!r}")
        ids = [card.id for card in self.action_cards.cards]
        if len(set(ids)) != len(ids):
            raise ValueError("action_cards.cards: ids must be unique")
        for index, card in enumerate(self.action_cards.cards):
            if card.share and card.share not in companies:
                raise ValueError(f"action_cards.cards.{index}.share: unknown company {card.share!r}")
        return self
