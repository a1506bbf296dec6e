"""Check that a run directory's ``manifest.json`` is one ``simulate`` could have written and that its files agree.

The loader labels a run, and tells runs of the same games apart, from its manifest: a manifest of impossible
values (99 rounds, a board no game has) labelled the report with them, and a manifest that does not describe the
files beside it (four seats over a ``seats.parquet`` of two, a ``seats.parquet`` swapped in from another run, a
``luna_rounds.parquet`` promised and gone) put its games under another run's name (a QA pass). So the manifest's
``config`` goes through the checks the simulator makes of the same settings (:class:`sim.config.GameConfig`,
:class:`sim.run.RunOptions`), and the files must hold what it says: its seats in each game, its number of games,
and, for a file of another seed with the same seats and games, which nothing in it tells apart, the bytes whose
digest the manifest records (``files``; :func:`digest_problem`, which a study's report asks of its parts' files too).
Every problem is one line ``<file>: <field>: <problem>``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.schema import LUNA, MANIFEST_FILE, ROUNDS_FILE, SEATS_FILE
from sim.config import (
    DEFAULT_START_BONUS,
    SCRIPTED_PROFILES,
    ConfigError,
    GameConfig,
    check_choice,
    parse_seat,
    profile_label,
)
from sim.constants import BACKENDS, DEFAULT_BACKEND, DEFAULT_BOARD, DEFAULT_WORKERS, DETAIL_ROUNDS, ROUNDS
from sim.outputs import MANIFEST_FILES, file_digest

#: What every manifest ``simulate`` writes records, and what the loader cannot do without: which seats (the
#: labels), how many games (the agreement with seats.parquet), and the seed (which games: runs of the same games
#: are refused). The other settings default as the simulator's options do, for manifests older than them.
REQUIRED = ("seats", "games", "seed")


class ManifestError(ValueError):
    """A run's manifest or files are not what the simulator writes; the message is one line naming file and field."""


def _config_error(path: Path, error: ConfigError) -> ManifestError:
    """``error`` of a simulator check, as a problem of the manifest's ``config`` field it names."""
    return ManifestError(f"{path}: config.{error.message()}" if error.option else f"{path}: config: {error}")


def checked_config(directory: Path, config: dict[str, Any], profiles: set[str]) -> GameConfig:
    """The game ``config`` (a manifest's) describes, after the simulator's checks of every setting it records.

    ``profiles`` are the scripted profiles the run's data hold (an overlay may have added some, and the overlay
    may be gone): a manifest seat of another profile is refused as unknown.

    Raises
    ------
    ManifestError
        A setting is missing, of the wrong type or out of range; naming ``manifest.json`` and ``config.<key>``.
    """
    from sim.engines import ENGINES
    from sim.run import RunOptions  # the engines' registry: not for the import of every analysis module

    path = directory / MANIFEST_FILE
    for key in REQUIRED:
        if key not in config:
            raise ManifestError(f"{path}: config.{key}: missing (every run's manifest records it)")
    labels = config["seats"]
    if not isinstance(labels, list) or not labels or not all(isinstance(label, str) for label in labels):
        raise ManifestError(f"{path}: config.seats: must be a list of seats such as \"luna:5\", got {labels!r}")
    detail = config.get("detail")
    aggregate_only = config.get("aggregate_only", False)
    try:
        known = tuple(sorted({*SCRIPTED_PROFILES, *profiles}))
        game = GameConfig(seats=tuple(parse_seat(label, known) for label in labels),
                          rounds=config.get("rounds", ROUNDS), board=config.get("board", DEFAULT_BOARD),
                          start_bonus=config.get("start_bonus", DEFAULT_START_BONUS))
        if detail is not None:
            check_choice(detail, "detail", (DETAIL_ROUNDS,))
        if not isinstance(aggregate_only, bool):
            raise ConfigError(f"must be true or false, got {aggregate_only!r}", "aggregate_only")
        check_choice(config.get("engine", "reference"), "engine", ENGINES)
        check_choice(config.get("backend", DEFAULT_BACKEND), "backend", BACKENDS)
        # the engine and backend by name only: whether this machine could play them again is no question here
        RunOptions(games=config["games"], seed=config["seed"], detail=detail == DETAIL_ROUNDS,
                   chunk_size=config.get("chunk_size"), workers=config.get("workers", DEFAULT_WORKERS),
                   aggregate_only=aggregate_only)
    except ConfigError as error:
        raise _config_error(path, error) from None
    return game


def _seat_label(row: pd.Series) -> str:
    """A seat of ``seats.parquet`` as the manifest names it (:attr:`sim.config.Seat.label`)."""
    if row["kind"] == LUNA:
        return f"{LUNA}:{int(row['level'])}"
    return f"scripted:{profile_label(row['profile'], float(row['strength']))}"


def check_agreement(directory: Path, config: dict[str, Any], seats: pd.DataFrame) -> None:
    """Refuse a run whose files are not the ones its manifest describes: ``seats.parquet`` must hold games 0 to
    ``games`` - 1, each with the manifest's seats in order, and ``luna_rounds.parquet`` must be there exactly when
    the manifest records ``detail`` rounds (a file of another run, or a file lost, would be taken for this run's).

    ``seats`` is ``seats.parquet`` as read, already checked for duplicate (game, seat) rows.

    Raises
    ------
    ManifestError
        Naming the file that disagrees and its field, after :func:`checked_config`'s checks of the manifest.
    """
    manifest_path, seats_path = directory / MANIFEST_FILE, directory / SEATS_FILE
    game = checked_config(directory, config, set(seats.loc[seats["kind"] != LUNA, "profile"].astype(str)))
    expected = [seat.label for seat in game.seats]
    seat_numbers = sorted(set(seats["seat"].astype(int)))
    if seat_numbers != list(range(len(expected))):
        raise ManifestError(f"{seats_path}: seat: holds {len(seat_numbers)} seat(s) a game (numbered "
                            f"{_numbers(seat_numbers)}), and {manifest_path} lists {len(expected)} seat(s) "
                            f"({','.join(expected)}): the files are not of one run")
    first = seats[seats["game"] == seats["game"].min()].sort_values("seat")
    held = [_seat_label(row) for _, row in first.iterrows()]
    if held != expected:
        raise ManifestError(f"{seats_path}: seat: holds the seats {','.join(held)}, and {manifest_path} lists "
                            f"{','.join(expected)}: the files are not of one run")
    games = int(config["games"])
    numbers = seats["game"]
    played = numbers.nunique()
    if played != games or int(numbers.min()) != 0 or int(numbers.max()) != games - 1:
        raise ManifestError(f"{seats_path}: game: holds {played} game(s) numbered {int(numbers.min())} to "
                            f"{int(numbers.max())}, and {manifest_path} records {games} (0 to {games - 1}): the "
                            "files are not of one run")
    if len(seats) != games * len(expected):
        raise ManifestError(f"{seats_path}: seat: holds {len(seats)} row(s), not {len(expected)} seat(s) in each of "
                            f"{games} game(s)")
    if config.get("aggregate_only"):
        raise ManifestError(f"{seats_path}: aggregate_only: {manifest_path} records an --aggregate-only run, which "
                            "keeps no per-game rows: the files are not of one run")
    rounds_path = directory / ROUNDS_FILE
    promised = config.get("detail") == DETAIL_ROUNDS
    if promised and not rounds_path.is_file():
        raise ManifestError(f"{rounds_path}: detail: file not found, and {manifest_path} records detail rounds "
                            "(the run wrote it)")
    if not promised and rounds_path.is_file():
        raise ManifestError(f"{rounds_path}: detail: {manifest_path} records no detail rounds, so this run did not "
                            "write it: it is another run's")


def digest_problem(directory: Path, manifest: dict[str, Any], name: str) -> str | None:
    """What is wrong with file ``name`` of the run in ``directory`` against the digests its ``manifest`` records of
    the files it wrote (``files``), or ``None`` when nothing is. A run written before manifests recorded them
    (2026-11-28) has none, and its files are taken as they are; a missing file is its reader's to report."""
    recorded = manifest.get(MANIFEST_FILES)
    path = directory / name
    if recorded is None or not path.is_file():
        return None
    if not isinstance(recorded, dict) or not all(isinstance(value, str) for value in recorded.values()):
        return f"{MANIFEST_FILES}: {directory / MANIFEST_FILE} must map each file the run wrote to its digest"
    if name not in recorded:
        return f"{MANIFEST_FILES}: {directory / MANIFEST_FILE} lists no such file of its run, so it is another run's"
    if file_digest(path) != recorded[name]:
        return (f"{MANIFEST_FILES}.{name}: its bytes are not those its run wrote (another digest than "
                f"{directory / MANIFEST_FILE} records): it was changed, or copied in from another run")
    return None


def check_digests(directory: Path, manifest: dict[str, Any], names: Iterable[str]) -> None:
    """Refuse a file of ``names`` that is not byte for byte the one the run wrote (:func:`digest_problem`).

    Raises
    ------
    ManifestError
        Naming the file and the manifest's ``files``.
    """
    for name in names:
        problem = digest_problem(directory, manifest, name)
        if problem is not None:
            raise ManifestError(f"{directory / name}: {problem}")


def _numbers(values: list[int]) -> str:
    """Seat numbers in a message, the first few of them."""
    shown = ", ".join(map(str, values[:5]))
    return shown + (f" and {len(values) - 5} more" if len(values) > 5 else "")
