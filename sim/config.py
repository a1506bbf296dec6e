"""Game configuration shared by both engines (seats, rounds, starting bonus), and the parsers of its options."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from numbers import Integral, Real

from sim.constants import (
    ALLOWED_ROUNDS,
    BOARDS,
    DEFAULT_BOARD,
    LEVELS,
    MAX_LEVEL,
    MAX_SEATS,
    MIN_LEVEL,
    ROUNDS,
    SINGULARITY_ROUNDS,
    START_BONUS_CHOICES,
    builtin_profiles,
)
from sim.rng import MASK64

# The built-in profiles: one file each in sim/data/players (an overlay may add more).
SCRIPTED_PROFILES = builtin_profiles()
#: "random": one starting research token per seat, drawn at random; "none": no token.
DEFAULT_START_BONUS = "random"
_LEVELS_ITEM = re.compile(r"^(?P<first>[0-9]+)(?:-(?P<last>[0-9]+))?$")
_SEAT_PATTERN = re.compile(r"^(?:luna:(?P<level>[^,@]+)|scripted:(?P<profile>[a-z_]+)(?:@(?P<strength>[^,]+))?)$")


# A number as a designer writes one: digits with an optional point and exponent; not Python's float() spellings
# "1_2" (twelve), "nan" or "infinity"
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def plain_number(text: str) -> float | None:
    """``text`` (surrounding spaces aside) as a number written in plain digits, else ``None``."""
    text = text.strip()
    return float(text) if _PLAIN_NUMBER.fullmatch(text) else None


#: The strongest scripted seat: far above any strength a study or a parity search tries (parity widens its
#: bracket up to 128), and low enough that a profile's steps and resources times it stay small integers.
MAX_STRENGTH = 1000.0
DEFAULT_STRENGTH = 1.0  # a scripted seat's strength when none is written; labels leave it out


#: Python parameters whose command-line option is not their name with dashes.
_OPTION_FLAGS = {"variants": "--variant"}


def option_flag(name: str) -> str:
    """The command-line option of the Python parameter ``name`` (``parity_games`` is ``--parity-games``)."""
    return _OPTION_FLAGS.get(name, "--" + name.replace("_", "-"))


class ConfigError(ValueError):
    """A bad configuration value; the message is one line meant for the user.

    One check serves the Python API and the command line, whose users call the same value by different
    names (``games=0`` and ``--games 0``). So an error about a parameter keeps its name, ``option``, apart from
    ``problem``, and other parameters the problem mentions are written ``{name}`` in it and listed in
    ``mentions``: the message names them as Python does (``games: must be ...``), and the command line prints
    :meth:`message` with ``command_line=True`` (``--games: must be ...``). Without ``option`` the problem is
    the whole message (a file's problem, or a check only the command line makes).
    """

    def __init__(self, problem: str, option: str | None = None, mentions: Iterable[str] = ()) -> None:
        super().__init__(problem)
        self.problem = problem
        self.option = option
        self.mentions = tuple(mentions)

    def message(self, command_line: bool = False) -> str:
        """The one-line message, naming parameters as Python does or, with ``command_line``, as options."""
        spell = option_flag if command_line else str
        text = self.problem
        for name in self.mentions:  # replace, not str.format: the problem may quote a value with braces
            text = text.replace("{" + name + "}", spell(name))
        return f"{spell(self.option)}: {text}" if self.option else text

    def __str__(self) -> str:
        return self.message()

    def __reduce__(self) -> tuple:  # a worker process's error keeps its option when it is sent back
        return type(self), (self.problem, self.option, self.mentions)


def is_whole_number(value: object) -> bool:
    """An int or numpy integer, not a bool (``True`` is an int to Python, never a count or a seed)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def is_level(value: object) -> bool:
    """Whether ``value`` is one of Luna's levels: a whole number (not 4.0, which a level's table key never is) in
    ``LEVELS``."""
    return is_whole_number(value) and value in LEVELS


#: Game numbers run from 0 to GAME_NUMBERS - 1: a game's number names its random streams and is stored as int64.
GAME_NUMBERS = 2**63
#: The fewest games a mean's interval takes (its standard deviation needs two): readings, sensitivity and tune.
MIN_INTERVAL_GAMES = 2


def check_count(value: object, name: str, least: int) -> int:
    """``value`` as a whole number of at least ``least`` (games, workers, a chunk's size), or a one-line error naming
    the parameter ``name`` (Python's spelling; see :class:`ConfigError`): a string or float would otherwise fail
    later in a comparison or deep inside the engine."""
    if not is_whole_number(value):
        raise ConfigError(f"must be a whole number, got {value!r}", name)
    if value < least:
        raise ConfigError(f"must be at least {least}, got {value}", name)
    return int(value)


def check_games(value: object, name: str = "games", least: int = 1) -> int:
    """:func:`check_count` for a number of games, which also must not pass the game numbers (:data:`GAME_NUMBERS`):
    beyond them a run of simulate played on for good and the other commands failed naming another option."""
    games = check_count(value, name, least)
    if games > GAME_NUMBERS:
        raise ConfigError(f"must be at most 2**63 ({GAME_NUMBERS}): games are numbered 0 to 2**63 - 1, got {games}",
                          name)
    return games


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as a run seed: a whole number from 0 to 2**64 - 1, the 64 bits every stream is derived from (two
    seeds 2**64 apart would play the same games under different names); checked by every entry point."""
    if not is_whole_number(seed):
        raise ConfigError(f"must be a whole number from 0 to {MASK64} (2**64 - 1), got {seed!r}", name)
    if not 0 <= int(seed) <= MASK64:
        raise ConfigError(f"must be 0 to {MASK64} (2**64 - 1), got {seed}", name)
    return int(seed)


def check_rounds(rounds: object, name: str = "rounds") -> int:
    """``rounds`` as a game's rounds, or a one-line error naming ``name``: of another type (``"6"``, ``6.0``) the
    error says so, where a plain membership test said the value 6 was wrong."""
    if not is_whole_number(rounds):
        raise ConfigError(f"must be an integer, got {type(rounds).__name__} {rounds!r}", name)
    if rounds not in ALLOWED_ROUNDS:
        raise ConfigError(f"must be {ROUNDS}, or {SINGULARITY_ROUNDS} for the Singularity threat card; got {rounds}",
                          name)
    return int(rounds)


def check_choice(value: object, name: str, choices: Iterable[str]) -> str:
    """``value`` when it is one of ``choices`` (strings), else a one-line error naming ``name`` that says whether
    the type or the value is wrong."""
    words = " or ".join(map(repr, choices))
    if not isinstance(value, str):
        raise ConfigError(f"must be a string, {words}; got {type(value).__name__} {value!r}", name)
    if value not in choices:
        raise ConfigError(f"must be {words}, got {value!r}", name)
    return value


def check_table(rounds: object, start_bonus: object, board: object) -> int:
    """Check what a game is played with besides its seats (see :class:`GameConfig`); returns ``rounds`` as an int."""
    check_choice(start_bonus, "start_bonus", START_BONUS_CHOICES)
    check_choice(board, "board", BOARDS)
    return check_rounds(rounds)


@dataclass(frozen=True)
class Seat:
    """One seat at the table."""

    kind: str  # "luna" or "scripted"
    level: int = -1  # Luna's difficulty level 0-8; -1 for a scripted seat
    profile: str = ""  # scripted profile name; "" for Luna
    strength: float = DEFAULT_STRENGTH  # scripted-player strength multiplier

    def __post_init__(self) -> None:
        """The checks :func:`parse_seat` makes, for a seat built in Python: the engines take its numbers as given
        (the numba engine played "level 9" and "level 100" alike)."""
        if self.kind == "luna":
            if not is_level(self.level):
                raise ConfigError(f"unknown Luna level {self.level!r} (levels are {MIN_LEVEL}-{MAX_LEVEL})", "seats")
            object.__setattr__(self, "level", int(self.level))
        elif self.kind == "scripted":
            if not isinstance(self.profile, str) or not self.profile:
                raise ConfigError("a scripted seat needs a profile", "seats")
            if not _is_strength(self.strength):
                raise ConfigError(f"strength {self.strength!r} must be a positive number up to {MAX_STRENGTH:g}",
                                  "seats")
            object.__setattr__(self, "strength", float(self.strength))
        else:
            raise ConfigError(f"unknown seat kind {self.kind!r} (luna or scripted)", "seats")

    @property
    def label(self) -> str:
        if self.kind == "luna":
            return f"luna:{self.level}"
        return f"scripted:{profile_label(self.profile, self.strength)}"


@dataclass(frozen=True)
class GameConfig:
    """What one game is: who sits where, how many rounds, how Luna's starting bonus is drawn, which board side."""

    seats: tuple[Seat, ...]
    rounds: int = ROUNDS  # or SINGULARITY_ROUNDS with the threat card "Singularity"
    start_bonus: str = DEFAULT_START_BONUS  # or "none" (see START_BONUS_CHOICES)
    board: str = DEFAULT_BOARD  # the side of the board played: "moon" or "belt" (see BOARDS)
    luna_seats: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not 1 <= len(self.seats) <= MAX_SEATS:
            raise ConfigError(f"a game has 1 to {MAX_SEATS} seats, got {len(self.seats)}", "seats")
        # a numpy integer is a number of rounds too; kept as a Python int, as the tables and manifests expect
        object.__setattr__(self, "rounds", check_table(self.rounds, self.start_bonus, self.board))
        kinds = [seat.kind for seat in self.seats]
        if "luna" in kinds and "scripted" in kinds[kinds.index("luna"):]:
            raise ConfigError("Luna sits last in seat order; list scripted seats before Luna seats", "seats")
        object.__setattr__(self, "luna_seats", tuple(i for i, kind in enumerate(kinds) if kind == "luna"))

    @property
    def seats_label(self) -> str:
        return ",".join(seat.label for seat in self.seats)


def _is_strength(value: object) -> bool:
    """A scripted seat's strength: a real number in (0, MAX_STRENGTH] (NaN and infinity are not)."""
    return isinstance(value, Real) and not isinstance(value, bool) and 0 < value <= MAX_STRENGTH


def strength_label(strength: float) -> str:
    """A strength as part names and seat labels write it: ``0.8``, ``1``, ``1.25`` (``:g``)."""
    return f"{strength:g}"


def profile_label(profile: str, strength: float) -> str:
    """A scripted profile at a strength as seats, part names and tables write it: ``balanced``, ``balanced@0.8``."""
    return profile if strength == DEFAULT_STRENGTH else f"{profile}@{strength_label(strength)}"


def parse_seat(text: str, profiles: Iterable[str] = SCRIPTED_PROFILES) -> Seat:
    """Parse ``luna:<level>`` or ``scripted:<profile>[@strength]``; ``profiles`` are the known names."""
    match = _SEAT_PATTERN.match(text.strip())
    if not match:
        raise ConfigError(f"{text!r} is neither luna:<level> nor scripted:<profile>[@strength]", "seats")
    if match["level"] is not None:
        # digits only, read as --levels reads them (``05`` is level 5); ``+5`` or ``٥`` are no level
        level = match["level"]
        if not (level.isascii() and level.isdigit()) or int(level) not in LEVELS:
            raise ConfigError(f"unknown Luna level {level!r} in {text!r} "
                              f"(levels are {MIN_LEVEL}-{MAX_LEVEL})", "seats")
        return Seat(kind="luna", level=int(level))
    profiles = tuple(profiles)
    if match["profile"] not in profiles:
        raise ConfigError(f"unknown scripted profile {match['profile']!r} in {text!r} "
                          f"(known: {', '.join(profiles)})", "seats")
    strength = DEFAULT_STRENGTH
    if match["strength"] is not None:
        strength = plain_number(match["strength"])
        if strength is None:
            raise ConfigError(f"strength {match['strength']!r} in {text!r} is not a number", "seats")
        if not _is_strength(strength):
            raise ConfigError(f"strength in {text!r} must be a positive number up to {MAX_STRENGTH:g}", "seats")
    return Seat(kind="scripted", profile=match["profile"], strength=strength)


def parse_seats(text: str, profiles: Iterable[str] = SCRIPTED_PROFILES) -> tuple[Seat, ...]:
    """Parse a comma-separated seat list such as ``scripted:passive,luna:5``."""
    if not text.strip():
        raise ConfigError("no seat given", "seats")
    profiles = tuple(profiles)
    return tuple(parse_seat(part, profiles) for part in text.split(","))


def parse_levels(text: str) -> list[int]:
    """Parse a ``--levels`` value: levels and ascending ranges, comma-separated (``0-8``, ``2,5,8``, ``0,4-5``).

    Returns the levels sorted, each once. Anything else (``1-2-3``, ``3-1``, ``x``, ``1,,2``, a level
    outside 0-8) is a :class:`ConfigError` naming the offending item.
    """
    levels: set[int] = set()
    for item in text.split(","):
        match = _LEVELS_ITEM.match(item.strip())
        if not match:
            raise ConfigError(f"{item.strip()!r} in {text!r} is not a level or a range like "
                              f"{MIN_LEVEL}-{MAX_LEVEL}", "levels")
        first = int(match["first"])
        last = first if match["last"] is None else int(match["last"])
        if first > last:
            raise ConfigError(f"the range {item.strip()!r} runs downwards; write {last}-{first}", "levels")
        if first not in LEVELS or last not in LEVELS:
            raise ConfigError(f"{item.strip()!r} is outside the levels {MIN_LEVEL}-{MAX_LEVEL}", "levels")
        levels.update(range(first, last + 1))
    return sorted(levels)
