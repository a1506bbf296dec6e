"""Game configuration shared by both engines: seats, rounds, starting bonus."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from sim.constants import builtin_profiles
from sim.gamedata import LEVEL_KEYS

# The built-in profiles: one file each in sim/data/players (an overlay may add more).
SCRIPTED_PROFILES = builtin_profiles()
_SEAT_PATTERN = re.compile(r"^(?:luna:(?P<level>[^,@]+)|scripted:(?P<profile>[a-z_]+)(?:@(?P<strength>[^,]+))?)$")


class ConfigError(ValueError):
    """A bad configuration value; the message is one line meant for the user."""


@dataclass(frozen=True)
class Seat:
    """One seat at the table."""

    kind: str  # "luna" or "scripted"
    level: int = -1  # Luna's difficulty level 0-8; -1 for a scripted seat
    profile: str = ""  # scripted profile name; "" for Luna
    strength: float = 1.0  # scripted-player strength multiplier

    @property
    def label(self) -> str:
        if self.kind == "luna":
            return f"luna:{self.level}"
        suffix = "" if self.strength == 1.0 else f"@{self.strength:g}"
        return f"scripted:{self.profile}{suffix}"


@dataclass(frozen=True)
class GameConfig:
    """What one game is: who sits where, how many rounds, how Luna's starting bonus is drawn."""

    seats: tuple[Seat, ...]
    rounds: int = 7  # 7, or 6 with the threat card "Singularity"
    start_bonus: str = "random"  # "random": one starting research token per seat; "none": no token
    luna_seats: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not 1 <= len(self.seats) <= 4:
            raise ConfigError(f"--seats: a game has 1 to 4 seats, got {len(self.seats)}")
        if self.rounds not in (6, 7):
            raise ConfigError(f"--rounds: must be 7, or 6 for the Singularity threat card; got {self.rounds}")
        if self.start_bonus not in ("random", "none"):
            raise ConfigError(f"--start-bonus: must be 'random' or 'none', got {self.start_bonus!r}")
        kinds = [seat.kind for seat in self.seats]
        if "luna" in kinds and "scripted" in kinds[kinds.index("luna"):]:
            raise ConfigError("--seats: Luna sits last in seat order; list scripted seats before Luna seats")
        object.__setattr__(self, "luna_seats", tuple(i for i, kind in enumerate(kinds) if kind == "luna"))

    @property
    def seats_label(self) -> str:
        return ",".join(seat.label for seat in self.seats)


def parse_seat(text: str, profiles: Iterable[str] = SCRIPTED_PROFILES) -> Seat:
    """Parse ``luna:<level>`` or ``scripted:<profile>[@strength]``; ``profiles`` are the known names."""
    match = _SEAT_PATTERN.match(text.strip())
    if not match:
        raise ConfigError(f"--seats: {text!r} is neither luna:<level> nor scripted:<profile>[@strength]")
    if match["level"] is not None:
        if match["level"] not in LEVEL_KEYS:
            raise ConfigError(f"--seats: unknown Luna level {match['level']!r} in {text!r} (levels are 0-8)")
        return Seat(kind="luna", level=int(match["level"]))
    profiles = tuple(profiles)
    if match["profile"] not in profiles:
        raise ConfigError(f"--seats: unknown scripted profile {match['profile']!r} in {text!r} "
                          f"(known: {', '.join(profiles)})")
    strength = 1.0
    if match["strength"] is not None:
        try:
            strength = float(match["strength"])
        except ValueError:
            raise ConfigError(f"--seats: strength {match['strength']!r} in {text!r} is not a number") from None
        if not strength > 0:
            raise ConfigError(f"--seats: strength in {text!r} must be positive")
    return Seat(kind="scripted", profile=match["profile"], strength=strength)


def parse_seats(text: str, profiles: Iterable[str] = SCRIPTED_PROFILES) -> tuple[Seat, ...]:
    """Parse a comma-separated seat list such as ``scripted:passive,luna:5``."""
    if not text.strip():
        raise ConfigError("--seats: no seat given")
    profiles = tuple(profiles)
    return tuple(parse_seat(part, profiles) for part in text.split(","))
