"""A study's errors, and its options besides its parts, checked before a plan is made (no pandas, like the plan).

The counts, seed and levels come back as Python ints: ``study.json`` takes no numpy integer, and a caller in a
notebook passes ``frame.level.unique()`` or ``np.int64(7)`` as readily as a list of ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sim.config import ConfigError, check_games, check_seed, check_table, is_level
from sim.constants import BACKENDS, MAX_LEVEL, MIN_LEVEL


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
    if readings_games == 1:
        raise StudyError(f"at least 2 games give an interval, got {readings_games}", "readings_games")
    if backend not in BACKENDS:
        raise StudyError(f"unknown backend {backend!r} ({' or '.join(BACKENDS)})", "backend")
    if backend == "dask" and not scheduler:
        raise StudyError("{backend} dask needs {scheduler} ADDRESS", mentions=("backend", "scheduler"))
    if backend != "dask" and scheduler:
        raise StudyError("only with {backend} dask", "scheduler", ("backend",))
    return CheckedOptions(games, seed, [int(level) for level in levels], rounds, parity_games, readings_games)


def passive_profiles() -> frozenset[str]:
    """The shipped profiles marked ``passive`` in their data: they never win, so they have no strength at parity."""
    from sim.gamedata import load_game_data

    return frozenset(name for name, profile in load_game_data().players.profiles.items() if profile.passive)
