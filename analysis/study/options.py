"""A study's errors, and its options besides its parts (profiles and strengths included), checked before a plan is
made or when ``study.json`` is read back (no pandas, like the plan).

The counts, seed and levels come back as Python ints: ``study.json`` takes no numpy integer, and a caller in a
notebook passes ``frame.level.unique()`` or ``np.int64(7)`` as readily as a list of ints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from sim.config import (
    MIN_INTERVAL_GAMES,
    ConfigError,
    check_games,
    check_seed,
    check_table,
    is_level,
    plain_number,
    strength_label,
)
from sim.constants import BACKENDS, MAX_LEVEL, MIN_LEVEL, builtin_profiles


class StudyError(ConfigError):
    """A problem with a study's arguments or stored files; the message is one line for the user (an argument's
    named as the caller wrote it, see :class:`sim.config.ConfigError`)."""


class CheckedOptions(NamedTuple):
    games: int
    seed: int
    levels: list[int]
    rounds: int
    parity_games: int
    readings_games: int


def check_options(games: int, seed: int, levels: Sequence[int], rounds: int, start_bonus: str, parity_games: int,
                  backend: str, scheduler: str | None, board: str, readings_games: int) -> CheckedOptions:
    """The study's options that are not parts, checked (a one-line :class:`StudyError` naming the option)."""
    try:  # the checks every game's configuration makes, so the study's parts can be played
        games, seed = check_games(games), check_seed(seed)
        rounds = check_table(rounds, start_bonus, board)
        parity_games = check_games(parity_games, "parity_games")
        readings_games = check_games(readings_games, "readings_games", 0)
    except ConfigError as error:  # a study's own error, as its callers expect
        raise StudyError(error.problem, error.option, error.mentions) from None
    if not len(levels) or not all(map(is_level, levels)):
        raise StudyError(f"need levels between {MIN_LEVEL} and {MAX_LEVEL}, got {list(levels)}", "levels")
    if 0 < readings_games < MIN_INTERVAL_GAMES:  # 0: no readings section
        raise StudyError(f"at least {MIN_INTERVAL_GAMES} games give an interval, got {readings_games}",
                         "readings_games")
    if backend not in BACKENDS:
        raise StudyError(f"unknown backend {backend!r} ({' or '.join(BACKENDS)})", "backend")
    if backend == "dask" and not scheduler:
        raise StudyError("{backend} dask needs {scheduler} ADDRESS", mentions=("backend", "scheduler"))
    if backend != "dask" and scheduler:
        raise StudyError("only with {backend} dask", "scheduler", ("backend",))
    return CheckedOptions(games, seed, [int(level) for level in levels], rounds, parity_games, readings_games)


def check_profiles(names: Sequence[str], known: Sequence[str] | None = None) -> tuple[str, ...]:
    """``names`` as a tuple when each is a scripted profile shipped in the data, given once.

    Raises
    ------
    StudyError
        An unknown name or a name given twice.
    """
    known = builtin_profiles() if known is None else tuple(known)
    for name in names:
        if name not in known:
            raise StudyError(f"unknown scripted profile {name!r} (known: {', '.join(known)}; a study's "
                             "profiles must be in the shipped data, since the base parts play them)", "profiles")
    repeated = sorted({name for name in names if list(names).count(name) > 1})
    if repeated:
        raise StudyError(f"{repeated[0]!r} is listed twice", "profiles")
    return tuple(names)


def parse_profiles(text: str, known: Sequence[str] | None = None) -> tuple[str, ...]:
    """``--profiles``: comma-separated names of scripted profiles shipped in the data, each once.

    Raises
    ------
    StudyError
        An empty list, an unknown name or a name given twice.
    """
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        known = builtin_profiles() if known is None else tuple(known)
        raise StudyError(f"need comma-separated profile names, got {text!r} (known: {', '.join(known)})", "profiles")
    return check_profiles(names, known)


def parse_strengths(text: str) -> tuple[float, ...]:
    """``--strengths``: comma-separated positive finite numbers, e.g. ``0.8,1,1.2``, sorted.

    Each is rounded to the digits its part name shows (:func:`strength_label`), so the strength
    played is the one the name says and two strengths never share a name. One number written twice
    (``1,1.0``) is played once, as ``--levels`` plays ``3,3`` once.

    Raises
    ------
    StudyError
        An empty list, a value that is no positive finite number, or two different values with the same name.
    """
    typed: dict[float, tuple[float, str]] = {}  # the strength played -> the number typed for it, and its text
    for word in text.split(","):
        value = plain_number(word)
        if value is None:
            raise StudyError(f"{word.strip()!r} is not a number (e.g. {{strengths}} 0.8,1,1.2)", "strengths",
                             ("strengths",))
        if not (math.isfinite(value) and value > 0):
            raise StudyError(f"{word.strip()!r} must be a positive finite number", "strengths")
        played = float(strength_label(value))
        if played in typed and typed[played][0] != value:
            raise StudyError(f"{typed[played][1]} and {word.strip()} both play as "
                             f"{strength_label(played)}; keep one", "strengths")
        typed[played] = (value, word.strip())
    return tuple(sorted(typed))


def passive_profiles() -> frozenset[str]:
    """The shipped profiles marked ``passive`` in their data: they never win, so they have no strength at parity."""
    from sim.gamedata import load_game_data

    return frozenset(name for name, profile in load_game_data().players.profiles.items() if profile.passive)
