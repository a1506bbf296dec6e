"""Load, validate and overlay the project's data files.

The shipped files live in ``sim/data/``: ``luna.toml`` (exact facts of Luna), ``moon.toml`` (the
modelled Moon board), ``players/*.toml`` (the modelled scripted-player profiles) and ``belt.toml``. Every
file is checked against its schema (pydantic: Luna's below, the others in ``sim/moondata.py``,
``sim/playerdata.py`` and ``sim/beltdata.py``); a problem is reported as ``file: field: problem``, one line
each, through :class:`DataError`.

An overlay is a designer's variant: one TOML file whose ``[luna]``, ``[moon]``, ``[players]`` and
``[belt]`` tables are merged over the shipped data without touching it. Tables merge key by key; a list
of tables whose entries carry an ``id`` (Luna's cards, track sides, action cards, Belt targets) merges
entry by entry, matched on ``id``; any other value replaces the shipped one. Example, new token positions for level 5::

    name = "level 5, later tokens"
    [luna.levels.5]
    helium_tokens = [9, 15]

``[players.model]`` edits the scripted-player model and ``[players.profiles.NAME]`` edits a profile or,
with a new NAME and every field given, adds one (then usable as ``scripted:NAME``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import stat
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from sim.beltdata import BeltData
from sim.campaigndata import CAMPAIGN_FILE, CampaignData
from sim.constants import (
    BELT_FILE,
    BONUS_COLUMNS,
    BONUS_ROWS,
    DATA_DIR,
    DISPLAY_COLUMNS,
    DISPLAY_ROWS,
    LEVELS,
    LUNA_FILE,
    MAX_LEVEL,
    MIN_LEVEL,
    MOON_FILE,
    PLAYER_MODEL_FILE,
    PLAYERS_DIR,
    RESEARCH_ROW_SPACES,
    RULE_SWITCHES,
    SLOT_LETTERS,
)
from sim.moondata import MoonData
from sim.playerdata import PlayerData, PlayerModel, Profile
from sim.strict import Count, NoFloat
from sim.strict import Strict as _Strict

COMPANY_SELECTIONS = ("most_valuable", "two_most_valuable", "second_most_valuable", "least_valuable",
                      "lead_biggest_margin", "two_biggest_leads", "all_four")
LEVEL_KEYS = tuple(str(level) for level in LEVELS)  # the levels as TOML table keys
#: The data tables an overlay may hold (besides ``name`` and ``description``); ``campaign`` is read by
#: sim.campaign.load_campaign_data (and checked here, :func:`campaign_with_overlay`), the others here. Whoever
#: copies an overlay's data copies all of them.
OVERLAY_TABLES = ("luna", "moon", "players", "campaign", "belt")


class DataError(Exception):
    """Invalid data: ``problems`` holds one ``file: field: problem`` line per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def _check_cells(cells: Iterable[str]) -> None:
    for cell in cells:
        if any(letter not in SLOT_LETTERS for letter in cell):
            raise ValueError(f"cell {cell!r} may only hold the slot letters A-E")


def _check_matrix(matrix: list[list[str]], rows: int, columns: int) -> list[list[str]]:
    if len(matrix) != rows or any(len(row) != columns for row in matrix):
        raise ValueError(f"must be {rows} rows of {columns} cells")
    _check_cells(cell for row in matrix for cell in row)
    return matrix


# ---------------------------------------------------------------- Luna's cards (exact)

class GainCoin(_Strict):
    type: Literal["gain_coin"]
    count: int = Field(ge=1)


class GainHelium(_Strict):
    type: Literal["gain_helium"]
    count: int = Field(ge=1)


class AdvanceResearch(_Strict):
    type: Literal["advance_research"]
    count: int = Field(ge=1)


class AdvanceCompany(_Strict):
    type: Literal["advance_company"]
    count: int = Field(ge=1)
    company: Literal[COMPANY_SELECTIONS]  # type: ignore[valid-type]


class ExpandCompany(_Strict):
    type: Literal["expand_company"]
    count: int = Field(ge=1)
    company: Literal[COMPANY_SELECTIONS]  # type: ignore[valid-type]
    sector: Literal["min", "max"]


class GainCard(_Strict):
    type: Literal["gain_card"]
    select: Literal["match_slot", "most_valuable_share"]
    display: list[list[str]] | None = None  # 4 rows x 3 columns, display spaces 1-12 row-major

    @model_validator(mode="after")
    def _display_matches_select(self) -> GainCard:
        if self.select == "match_slot":
            if self.display is None:
                raise ValueError("match_slot needs a display matrix")
            _check_matrix(self.display, DISPLAY_ROWS, DISPLAY_COLUMNS)
        elif self.display is not None:
            raise ValueError("most_valuable_share takes no display matrix")
        return self


class DiscardResearchPlan(_Strict):
    type: Literal["discard_research_plan"]
    select: Literal["match_slot", "latest_special"]
    row: Literal["A", "B", "C"] | None = None
    spaces: list[str] | None = None  # 4 spaces of the named row

    @model_validator(mode="after")
    def _row_matches_select(self) -> DiscardResearchPlan:
        if self.select == "match_slot":
            if self.row is None or self.spaces is None:
                raise ValueError("match_slot needs a row and its 4 spaces")
            if len(self.spaces) != RESEARCH_ROW_SPACES:
                raise ValueError(f"spaces must list {RESEARCH_ROW_SPACES} cells")
            _check_cells(self.spaces)
        elif self.row is not None or self.spaces is not None:
            raise ValueError("latest_special takes no row or spaces")
        return self


class PlaceBonusMarker(_Strict):
    type: Literal["place_bonus_marker"]
    spaces: list[list[str]]  # 3 rows x 4 columns; the top row (majority spaces) is never designated

    @field_validator("spaces")
    @classmethod
    def _shape(cls, spaces: list[list[str]]) -> list[list[str]]:
        _check_matrix(spaces, BONUS_ROWS, BONUS_COLUMNS)
        if any(spaces[0]):
            raise ValueError("the top row holds the majority bonus spaces, which Luna never designates")
        return spaces


CardAction = Annotated[
    GainCoin | GainHelium | AdvanceResearch | AdvanceCompany | ExpandCompany | GainCard | DiscardResearchPlan
    | PlaceBonusMarker,
    Field(discriminator="type"),
]
RevealAction = Annotated[GainHelium | AdvanceResearch, Field(discriminator="type")]


class Majority(_Strict):
    left: Count
    right: Count
    scientists: Count


class LunaCard(_Strict):
    id: str
    grade: Annotated[Literal[1, 2], NoFloat]
    majority: Majority
    reveal: RevealAction | None = None
    actions: list[CardAction] = Field(min_length=1)

    @model_validator(mode="after")
    def _expansion_follows_its_advance(self) -> LunaCard:
        for index, action in enumerate(self.actions):
            if isinstance(action, ExpandCompany):
                before = [a for a in self.actions[:index] if isinstance(a, AdvanceCompany)]
                if not before or before[-1].company != action.company:
                    raise ValueError(
                        f"actions.{index}: expand_company must follow an advance_company with the same company")
        return self


class LunaBoard(_Strict):
    start_crypcoin: Count
    bonus_markers: Count
    initial_slots: list[Literal["A", "B", "C", "D", "E"]]
    tank_max: int = Field(ge=1)
    tank_switch_at: int = Field(ge=1)
    research_max: int = Field(ge=1)
    research_switch_at: int = Field(ge=1)
    past_end_crypcoin_per_step: Count


class FinalScoring(_Strict):
    helium_tank: list[tuple[int, int]]
    research_track: list[tuple[int, int]]

    @field_validator("helium_tank", "research_track")
    @classmethod
    def _increasing(cls, table: list[tuple[int, int]]) -> list[tuple[int, int]]:
        positions = [position for position, _ in table]
        if positions != sorted(set(positions)):
            raise ValueError("positions must be strictly increasing")
        return table


class Level(_Strict):
    grade2: bool
    slot_switches: bool
    helium_tokens: list[int]
    research_tokens: list[int]
    start_helium: Count
    start_research: Count


def _reading(switch: str) -> Any:
    return Literal[RULE_SWITCHES[switch]]  # type: ignore[valid-type]


class LunaRules(_Strict):
    """The rule readings in force (SPEC section 8; luna.toml ``[rules]`` says what each means)."""

    start_position: _reading("start_position")
    draw_order: _reading("draw_order")
    reveal_timing: _reading("reveal_timing")
    step_order: _reading("step_order")
    early_discard_card: _reading("early_discard_card")
    rebuild: _reading("rebuild")
    multi_expand_order: _reading("multi_expand_order")
    preset: str = ""  # "" or a name in presets, whose readings replace the switches they name
    presets: dict[str, dict[str, str]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known(self) -> LunaRules:
        for name, readings in self.presets.items():
            for switch, value in readings.items():
                if switch not in RULE_SWITCHES:
                    raise ValueError(f"presets.{name}.{switch}: unknown switch (known: {', '.join(RULE_SWITCHES)})")
                if value not in RULE_SWITCHES[switch]:
                    raise ValueError(f"presets.{name}.{switch}: {value!r} is not one of {RULE_SWITCHES[switch]}")
        if self.preset and self.preset not in self.presets:
            raise ValueError(f"preset: unknown preset {self.preset!r} (known: {', '.join(self.presets) or 'none'})")
        return self

    def readings(self) -> dict[str, str]:
        """Every switch's reading in force: the preset's where it names the switch, else the switch's own."""
        chosen = self.presets.get(self.preset, {}) if self.preset else {}
        return {switch: chosen.get(switch, getattr(self, switch)) for switch in RULE_SWITCHES}


def _level_order(name: str) -> tuple[int, int, str]:
    """Level names in numeric order, a name that is no number after them (for the message that refuses it)."""
    try:
        return (0, int(name), name)
    except ValueError:
        return (1, 0, name)


class LunaData(_Strict):
    board: LunaBoard
    final_scoring: FinalScoring
    rules: LunaRules
    levels: dict[str, Level]
    cards: list[LunaCard]

    @model_validator(mode="after")
    def _consistent(self) -> LunaData:
        if set(self.levels) != set(LEVEL_KEYS):
            raise ValueError(f"levels must be exactly 0-8, got {sorted(self.levels, key=_level_order)}")
        ids = [card.id for card in self.cards]
        if len(set(ids)) != len(ids):
            raise ValueError("card ids must be unique")
        if not any(card.grade == 1 for card in self.cards):
            raise ValueError("cards: at least one grade-1 card is needed")
        board = self.board
        for track, at, end in (("tank", board.tank_switch_at, board.tank_max),
                               ("research", board.research_switch_at, board.research_max)):
            if at > end:  # its slot would never switch ON
                raise ValueError(f"board.{track}_switch_at: {at} is off the {track} track (1-{end})")
        if len(set(board.initial_slots)) != len(board.initial_slots):
            raise ValueError(f"board.initial_slots: a slot appears twice in {board.initial_slots}")
        if {"A", "E"} & set(board.initial_slots):
            # only the tank and upload switches turn A and E ON, and the levels without switches never do
            raise ValueError(f"board.initial_slots: A and E start OFF (the tank and upload switches turn them ON), "
                             f"got {board.initial_slots}")
        for track, table, end in (("helium_tank", self.final_scoring.helium_tank, board.tank_max),
                                  ("research_track", self.final_scoring.research_track, board.research_max)):
            if any(not 0 <= position <= end for position, _ in table):
                raise ValueError(f"final_scoring.{track}: positions must be on the track (0-{end})")
        for name, level in self.levels.items():
            for token in level.helium_tokens:
                if not 1 <= token <= self.board.tank_max:
                    raise ValueError(
                        f"levels.{name}.helium_tokens: {token} is off the tank track (1-{self.board.tank_max})")
            for token in level.research_tokens:
                if not 1 <= token <= self.board.research_max:
                    raise ValueError(
                        f"levels.{name}.research_tokens: {token} is off the research track "
                        f"(1-{self.board.research_max})")
            for track, tokens in (("helium_tokens", level.helium_tokens), ("research_tokens", level.research_tokens)):
                if len(set(tokens)) != len(tokens):  # one space holds one token; the second would never fire
                    raise ValueError(f"levels.{name}.{track}: a position appears twice in {tokens}")
            if level.start_helium > self.board.tank_max or level.start_research > self.board.research_max:
                raise ValueError(f"levels.{name}: start position off the track")
        return self


# ---------------------------------------------------------------- loading

@dataclass(frozen=True)
class GameData:
    """Everything the engines read: Luna's exact data and the modelled board, validated."""

    luna: LunaData
    moon: MoonData
    players: PlayerData
    belt: BeltData  # the modelled Belt side (sim/beltdata.py), played with --board belt
    sources: tuple[str, ...]  # the files it was read from, overlay last
    # Dotted paths the overlay sets, each with every table above it ("moon", "moon.research",
    # "moon.research.row_deck"); empty without an overlay. ``source_of`` reads it.
    overlay_fields: frozenset[str] = frozenset()

    def source_of(self, field: str) -> str:
        """The file a dotted field (``"moon.research.row_deck"``) was read from, for error messages: the
        overlay when it sets the field or anything inside it, else the shipped file that holds it."""
        luna, moon, players, belt, *overlays = self.sources
        if field in self.overlay_fields:
            return overlays[0]  # the overlay read with the data; labels added later (a tuner's values) follow it
        parts = field.split(".")
        if parts[0] == "players" and len(parts) > 2:
            if parts[1] == "model":
                return str(Path(players) / PLAYER_MODEL_FILE)
            return str(Path(players) / f"{parts[2]}.toml")  # players.profiles.<name>
        return {"luna": luna, "moon": moon, "players": players, "belt": belt}[parts[0]]

    @property
    def digest(self) -> str:
        """A short fingerprint of the resolved data, for manifests."""
        text = json.dumps({"luna": self.luna.model_dump(), "moon": self.moon.model_dump(),
                           "players": self.players.model_dump(), "belt": self.belt.model_dump()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The largest TOML file read (the shipped data are a few kB; tuned.toml with every card restated 20 kB).
MAX_TOML_BYTES = 16 * 1024 * 1024


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as tomllib reads it; a file that is missing or is no TOML is a one-line DataError."""
    try:
        # Opened without blocking: the open of a named pipe waits for a writer, and the command hung there for good.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as handle:
            status = os.fstat(descriptor)
            if stat.S_ISDIR(status.st_mode):
                raise IsADirectoryError(path)
            if not stat.S_ISREG(status.st_mode):  # /dev/zero was read until the OOM killer came
                raise DataError([f"{path}: not a regular file (a device, pipe or folder): give a TOML file"])
            if status.st_size > MAX_TOML_BYTES:
                raise DataError([f"{path}: {status.st_size:,} bytes, more than the "
                                 f"{MAX_TOML_BYTES:,} a data or overlay file may have: is it the right file?"])
            return tomllib.load(handle)
    except FileNotFoundError:
        raise DataError([f"{path}: file not found"]) from None
    except IsADirectoryError:
        raise DataError([f"{path}: is a folder, not a TOML file"]) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as error:  # tomllib nests by recursion
        why = "nested too deeply" if isinstance(error, RecursionError) else error
        raise DataError([f"{path}: not valid TOML: {why}"]) from None


_FIELD_IN_MESSAGE = re.compile(r"^([A-Za-z_][\w.]*): (.+)$", re.DOTALL)


def _format_errors(path: Path | str, error: ValidationError, prefix: str = "") -> list[str]:
    lines = []
    for problem in error.errors():
        parts = [str(part) for part in problem["loc"]]
        message = problem["msg"].removeprefix("Value error, ")
        # A cross-field check names its field at the start of its message: move it into the field path.
        named = _FIELD_IN_MESSAGE.match(message)
        if named:
            parts.append(named[1])
            message = named[2]
        if problem["type"].endswith("_type"):  # a value of the wrong type: show it ("5" where a number belongs)
            shown = repr(problem["input"])
            message += f", not {shown if len(shown) <= 40 else shown[:37] + '...'}"
        location = ".".join(parts)
        field = prefix + location if location else prefix.rstrip(".") or "(top level)"
        lines.append(f"{path}: {field}: {message}")
    return lines


def validate_data(model: type[BaseModel], raw: dict[str, Any], path: Path | str, prefix: str = "") -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise DataError(_format_errors(path, error, prefix)) from None


def merge_overlay(base: Any, overlay: Any, where: str = "", new_ids: bool = False) -> Any:
    """Merge ``overlay`` over ``base`` (see the module docstring); neither argument is changed. ``new_ids``:
    an ``id`` entry ``base`` lacks is added, not refused (two overlays combined, each listing its edits)."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        merged = copy.deepcopy(base)
        for key, value in overlay.items():
            merged[key] = merge_overlay(base[key], value, f"{where}{key}.", new_ids) if key in base \
                else copy.deepcopy(value)
        return merged
    if (isinstance(base, list) and isinstance(overlay, list) and base and overlay
            and all(isinstance(item, dict) and "id" in item for item in base + overlay)):
        merged = copy.deepcopy(base)
        index = {item["id"]: position for position, item in enumerate(base)}
        given = [item["id"] for item in overlay]
        twice = next((item_id for position, item_id in enumerate(given) if item_id in given[:position]), None)
        if twice is not None:  # the second entry would silently undo part of the first
            raise DataError([f"{where.rstrip('.')}: id {twice!r} is given twice"])
        for item in overlay:
            if not isinstance(item["id"], str | int) or isinstance(item["id"], bool):
                raise DataError([f"{where.rstrip('.')}: id {item['id']!r} is neither a name nor a number"])
            if item["id"] in index:
                merged[index[item["id"]]] = merge_overlay(base[index[item["id"]]], item, where, new_ids)
            elif new_ids:
                merged.append(copy.deepcopy(item))
            else:
                raise DataError([f"{where.rstrip('.')}: no entry with id {item['id']!r} to replace"])
        return merged
    return copy.deepcopy(overlay)


def campaign_with_overlay(table: object, overlay_path: str | Path, path: Path = CAMPAIGN_FILE) -> CampaignData:
    """The shipped campaign rules with an overlay's ``[campaign]`` ``table`` merged over them, validated; every
    overlay load checks it this way, so a broken table is refused by ``simulate`` as by ``campaign``."""
    raw = read_toml(path)
    validate_data(CampaignData, raw, path)
    if not isinstance(table, dict):
        raise DataError([f"{overlay_path}: campaign: must be a table"])
    return validate_data(CampaignData, merge_overlay(raw, table, "campaign."), overlay_path, "campaign.")


def _check_belt_setup(moon: MoonData, belt: BeltData, path: Path | str, prefix: str) -> None:
    """The Belt's setup outposts come from the Moon's stations (the same outpost columns, ``sim/beltdata.py``):
    refuse more per company than a station holds, as ``MoonData`` refuses it for the Moon's own setup."""
    outposts = moon.stations.columns * len(moon.stations.coin_icons)
    if belt.stations.setup_outposts > outposts:
        raise DataError([f"{path}: {prefix}stations.setup_outposts: {belt.stations.setup_outposts} per company, but "
                         f"a station holds {outposts} outposts (moon.stations: columns x coin_icons)"])


def load_game_data(overlay: str | Path | Mapping[str, Any] | None = None, data_dir: Path = DATA_DIR,
                   label: str | None = None) -> GameData:
    """Read and validate the shipped data, then apply an overlay if one is given.

    ``overlay`` is a TOML file or a mapping of the same shape (``{"luna": ..., "moon": ..., "players": ...}``,
    as ``tomllib`` would read the file), validated exactly alike; a mapping's problems name ``label``
    (default ``"<overlay>"``), which is also recorded in ``sources``.

    Raises
    ------
    DataError
        One ``file: field: problem`` line per problem found.
    """
    luna_path, moon_path = data_dir / LUNA_FILE, data_dir / MOON_FILE
    luna_raw, moon_raw = read_toml(luna_path), read_toml(moon_path)
    luna = validate_data(LunaData, luna_raw, luna_path)
    moon = validate_data(MoonData, moon_raw, moon_path)
    players_dir = data_dir / PLAYERS_DIR.name
    model_path = players_dir / PLAYER_MODEL_FILE
    model_raw = read_toml(model_path)
    validate_data(PlayerModel, model_raw, model_path)
    profiles_raw = {}
    for path in sorted(players_dir.glob("*.toml")):
        if path != model_path:
            profiles_raw[path.stem] = read_toml(path)
            validate_data(Profile, profiles_raw[path.stem], path)
    players_raw = {"model": model_raw, "profiles": profiles_raw}
    players = validate_data(PlayerData, players_raw, players_dir)
    belt_path = data_dir / BELT_FILE
    belt_raw = read_toml(belt_path)
    belt = validate_data(BeltData, belt_raw, belt_path)
    _check_belt_setup(moon, belt, belt_path, "")
    sources = [str(luna_path), str(moon_path), str(players_dir), str(belt_path)]
    if overlay is not None:
        if isinstance(overlay, Mapping):
            overlay_path: Path | str = label or "<overlay>"
            _check_keys(overlay, overlay_path)
            raw = dict(overlay)  # merge_overlay copies what it takes, so the caller's mapping is never changed
        elif not isinstance(overlay, str | os.PathLike):
            raise DataError([f"{label or '<overlay>'}: an overlay is a TOML file's path or a mapping of its tables, "
                             f"got {type(overlay).__name__}"])
        else:
            overlay_path = Path(overlay)
            raw = read_toml(overlay_path)
        unknown = sorted(set(raw) - {"name", "description", *OVERLAY_TABLES})
        if unknown:
            raise DataError([f"{overlay_path}: {key}: unknown table (an overlay has name, description, "
                             f"{', '.join(OVERLAY_TABLES)})" for key in unknown])
        for key in ("name", "description"):  # name = 5 became a variant's title "5" in a study's report
            if key in raw and not isinstance(raw[key], str):
                raise DataError([f"{overlay_path}: {key}: must be text, got {type(raw[key]).__name__} {raw[key]!r}"])
        _check_level_keys(raw.get("luna"), overlay_path)
        try:
            luna_raw = merge_overlay(luna_raw, raw.get("luna", {}), "luna.")
            moon_raw = merge_overlay(moon_raw, raw.get("moon", {}), "moon.")
            players_raw = merge_overlay(players_raw, raw.get("players", {}), "players.")
            belt_raw = merge_overlay(belt_raw, raw.get("belt", {}), "belt.")
        except DataError as error:
            raise DataError([f"{overlay_path}: {line}" for line in error.problems]) from None
        luna = validate_data(LunaData, luna_raw, overlay_path, "luna.")
        moon = validate_data(MoonData, moon_raw, overlay_path, "moon.")
        players = validate_data(PlayerData, players_raw, overlay_path, "players.")
        belt = validate_data(BeltData, belt_raw, overlay_path, "belt.")
        _check_belt_setup(moon, belt, overlay_path, "belt.")
        if "campaign" in raw:  # played only by `campaign`, but a broken table is bad input to every command
            campaign_with_overlay(raw["campaign"], overlay_path)
        sources.append(str(overlay_path))
        fields = frozenset(_dotted_paths({key: raw[key] for key in ("luna", "moon", "players", "belt") if key in raw}))
        return GameData(luna=luna, moon=moon, players=players, belt=belt, sources=tuple(sources),
                        overlay_fields=fields)
    return GameData(luna=luna, moon=moon, players=players, belt=belt, sources=tuple(sources))


def starting_token_shortfall(data: GameData, start_bonus: str, seats: int) -> str:
    """The problem with ``start_bonus = "random"`` drawing one starting token for each of ``seats`` seats from
    fewer tokens (both engines refuse such a game with this line), or ``""``."""
    tokens = data.moon.starting_tokens.tokens
    if start_bonus != "random" or len(tokens) >= seats:
        return ""
    field = "moon.starting_tokens.tokens"
    return (f"start_bonus 'random' draws one starting token per seat: {seats} seats, {len(tokens)} tokens in "
            f"{field} (in {data.source_of(field)})")


def _check_level_keys(luna: object, source: Path | str) -> None:
    """An overlay's ``[luna.levels.K]`` names one of the levels: a new key (``05``, ``9``) was merged in as a level
    of its own, and the schema then said "Field required" of each of its fields, never that K is no level."""
    levels = luna.get("levels") if isinstance(luna, Mapping) else None
    if isinstance(levels, Mapping):
        wrong = [key for key in levels if key not in LEVEL_KEYS]
        if wrong:
            raise DataError([f"{source}: luna.levels.{key}: not a level ({MIN_LEVEL}-{MAX_LEVEL}, written as in "
                             f"[luna.levels.5])" for key in wrong])


def _check_keys(table: Mapping[Any, Any], source: Path | str, prefix: str = "") -> None:
    """Refuse a mapping overlay's keys that a TOML file cannot have: ``{5: ...}`` for level 5 gave six lines of
    schema errors, none saying that the key must be the text ``"5"``."""
    for key, value in table.items():
        if not isinstance(key, str):
            raise DataError([f"{source}: {prefix}{key!r}: keys are text, as in a TOML file (write {str(key)!r}, "
                             f"not {key!r})"])
        if isinstance(value, Mapping):
            _check_keys(value, source, f"{prefix}{key}.")
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                if isinstance(item, Mapping):
                    _check_keys(item, source, f"{prefix}{key}.{index}.")


def _dotted_paths(table: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Every key of a nested TOML table as a dotted path, tables included (lists are leaves)."""
    paths = []
    for key, value in table.items():
        path = f"{prefix}{key}"
        paths.append(path)
        if isinstance(value, Mapping):
            paths += _dotted_paths(value, f"{path}.")
    return paths
