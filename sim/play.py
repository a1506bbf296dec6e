"""Play games in memory: the numbers of a run directory without writing one, for the tuner and notebooks.

:func:`play` plays games ``first_game .. first_game + games - 1`` with the streams of (seed, g), exactly
as ``simulate`` does (``sim/run.py``), so ``play(...).frame()`` equals the ``seats.parquet`` of a run
with the same seats, seed, data and options, whatever engine, chunk size or thread count either used.
It returns a :class:`Played`: the engine's columns (``sim.columns.Chunk``) with the data and
configuration that produced them, read per game (:meth:`Played.column`), summarised as ``simulate
--aggregate-only`` summarises (:meth:`Played.summary`) or as the run directory's per-game rows
(:meth:`Played.frame`; pandas is imported only there).

The data and the table compilation are the caller's to reuse: pass ``data`` (``sim.gamedata.GameData``)
to play many configurations of one variant without reading the files again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from sim.columns import SEAT_NUMERIC, Chunk
from sim.config import (
    DEFAULT_START_BONUS,
    GAME_NUMBERS,
    ConfigError,
    GameConfig,
    Seat,
    check_count,
    check_games,
    check_seed,
    parse_seats,
)
from sim.constants import DEFAULT_BOARD, DEFAULT_RUN_SEED, ROUNDS
from sim.engines import DEFAULT_ENGINE, engine_function
from sim.gamedata import GameData, load_game_data
from sim.run import plain_text, seats_table
from sim.summary import StreamingSummary

if TYPE_CHECKING:
    import pandas as pd

_PER_SEAT_COLUMNS = ("game", "seat", *SEAT_NUMERIC)  # what Played.column can read


@dataclass(frozen=True)
class Played:
    """Games played in memory: the engine's columns with the data and configuration that produced them."""

    data: GameData
    config: GameConfig
    seed: int
    first_game: int
    chunk: Chunk  # one row per game and seat, games in order, seats in order within a game

    @property
    def games(self) -> int:
        """The number of games played."""
        return int(self.chunk.seats["seat"].size) // len(self.config.seats)

    def column(self, name: str, seat: int | None = None) -> np.ndarray:
        """One value per game, in game order, of the per-seat column ``name`` for one seat.

        Parameters
        ----------
        name : str
            ``"game"``, ``"seat"`` or a name of ``sim.columns.SEAT_NUMERIC`` (e.g. ``"score_total"``,
            ``"won"``).
        seat : int, optional
            The seat index; by default Luna's seat (an error when the table has none or several).

        Returns
        -------
        numpy.ndarray
            A read-only view of the engine's column (int64, or float64 for ``won``).

        Raises
        ------
        ValueError
            An unknown column, a seat the table does not have, or no single Luna seat to default to.
        """
        if name not in _PER_SEAT_COLUMNS:
            raise ValueError(f"column: unknown per-seat column {name!r} (e.g. score_total, won, cash)")
        n_seats = len(self.config.seats)
        if seat is None:
            if len(self.config.luna_seats) != 1:
                raise ValueError(f"column: seat: {self.config.seats_label} has {len(self.config.luna_seats)} "
                                 "Luna seats; name the seat")
            seat = self.config.luna_seats[0]
        if not isinstance(seat, int | np.integer) or not 0 <= seat < n_seats:
            raise ValueError(f"column: seat: must be a seat index 0-{n_seats - 1}, got {seat!r}")
        values = self.chunk.seats[name][int(seat)::n_seats]
        values.flags.writeable = False  # a view of the engine's column, which summary() and frame() read too
        return values

    def summary(self) -> pa.Table:
        """Per seat and column: count, sum, mean, sd, min and max, as ``aggregate.parquet`` of ``--aggregate-only``.

        Returns
        -------
        pyarrow.Table
            The table ``sim.summary.StreamingSummary.tables`` builds (``.to_pandas()`` for a frame).
        """
        summary = StreamingSummary()
        summary.update(self.chunk.seats)
        aggregate, _ = summary.tables(self.config)
        return aggregate

    def frame(self) -> pd.DataFrame:
        """The per-game rows as ``seats.parquet`` holds them (same columns, dtypes and order), as a DataFrame."""
        return plain_text(seats_table(self.config, self.chunk)).to_pandas()


def play(seats: str | Sequence[Seat], games: int, seed: int = DEFAULT_RUN_SEED, *,
         overlay: str | Path | Mapping | None = None, data: GameData | None = None, engine: str = DEFAULT_ENGINE,
         rounds: int = ROUNDS, start_bonus: str = DEFAULT_START_BONUS, board: str = DEFAULT_BOARD, first_game: int = 0,
         detail: bool = False) -> Played:
    """Play games ``first_game .. first_game + games - 1`` in memory, as ``simulate`` plays them.

    Parameters
    ----------
    seats : str or sequence of Seat
        ``"scripted:balanced@1,luna:5"`` (as ``--seats``) or the parsed seats.
    games : int
        How many games, at least 1.
    seed : int
        The run seed; game ``g`` draws from the streams of (seed, g), as in a run directory. The default is
        ``simulate``'s, so ``play(seats, n)`` gives the games of ``simulate --seats ... --games n``.
    overlay : str, Path or mapping, optional
        An overlay file, or a mapping of the same shape (``{"luna": ..., "moon": ..., "players": ...}``).
    data : GameData, optional
        Already loaded data (e.g. a variant built once and played many times); not with ``overlay``.
    engine : str
        ``"numba"`` (threads as numba's settings say) or ``"reference"``; both give the same numbers.
    rounds, start_bonus, board : int, str, str
        As ``--rounds``, ``--start-bonus`` and ``--board``.
    first_game : int
        The number of the first game, so a caller can add games to ones played before.
    detail : bool
        Also keep Luna's per-round rows (``chunk.rounds``).

    Returns
    -------
    Played

    Raises
    ------
    ValueError
        A bad argument (one line); ``sim.gamedata.DataError`` for a bad overlay.
    """
    games = check_games(games)
    if not isinstance(seats, str | Sequence):  # a number failed as "not iterable"
        raise ConfigError(f"must be text like 'luna:5' or a sequence of Seat, got {type(seats).__name__} {seats!r}",
                          "seats")
    if not isinstance(detail, bool | np.bool_):  # "no" is true, and would have kept the rows
        raise ConfigError(f"must be True or False, got {type(detail).__name__} {detail!r}", "detail")
    first_game = check_count(first_game, "first_game", 0)
    if first_game + games > GAME_NUMBERS:
        raise ConfigError(f"{first_game} and {games} games after it pass the last game number, 2**63 - 1", "first_game")
    check_seed(seed, "seed")
    if overlay is not None and data is not None:
        raise ValueError("overlay: give an overlay or loaded data, not both")
    play_chunk = engine_function(engine)
    if data is None:
        data = load_game_data(overlay)
    elif not isinstance(data, GameData):  # a dict failed as "'dict' object has no attribute 'players'"
        raise ConfigError(f"must be GameData (sim.gamedata.load_game_data), got {type(data).__name__}", "data")
    if isinstance(seats, str):
        seats = parse_seats(seats, data.players.profiles)
    for seat in seats:
        if not isinstance(seat, Seat):
            raise ValueError(f"seats: {seat!r} is not a Seat (or give the seats as text, e.g. 'luna:5')")
        if seat.kind == "scripted" and seat.profile not in data.players.profiles:
            raise ValueError(f"seats: unknown scripted profile {seat.profile!r} "
                             f"(known: {', '.join(sorted(data.players.profiles))})")
    config = GameConfig(seats=tuple(seats), rounds=rounds, start_bonus=start_bonus, board=board)
    try:
        # The numba engine compiles and checks its tables in this call (once for all the games); what it
        # cannot play is a ValueError of one problem per line.
        chunk = play_chunk(data, config, int(seed), first_game, games, bool(detail))
    except ValueError as error:
        raise ConfigError(f"{engine}: " + "; ".join(str(error).splitlines()), "engine") from None
    return Played(data=data, config=config, seed=int(seed), first_game=first_game, chunk=chunk)
