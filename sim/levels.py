"""``levels``: Luna alone at each level, one run a level, and the per-level table.

Each level is reduced to its row before the next is played, so memory does not grow with the levels or the
games: without an output folder a level's run keeps only its summaries (``--aggregate-only``) and the row comes
from its ``aggregate.parquet``; with one, the runs keep their per-game rows (the folder's ``level-N``), the table
reads its seven columns back, and the runs move into place together once every level is played
(:func:`sim.outputs.staged_runs`), so a stop part way leaves an earlier folder's runs as they were.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from sim.config import GameConfig, parse_seats
from sim.gamedata import GameData
from sim.outputs import AGGREGATE_FILE, SEATS_FILE, staged_runs
from sim.run import RunOptions, check_output, run_simulation

# The per-level table: column -> (seat column, statistic); "games" counts the games.
LEVEL_TABLE = {"helium": ("helium", "mean"), "research": ("research", "mean"), "cash": ("cash", "mean"),
               "score_total": ("score_total", "mean"), "score_sd": ("score_total", "sd"),
               "reshuffles": ("reshuffles", "mean"), "grade2_entered": ("grade2_entered", "mean")}


def level_row(run: Path) -> dict[str, float]:
    """One level's row of the table from its run of Luna alone: from ``aggregate.parquet`` when the run kept only
    its summaries, else from the seats file, reading only the columns the table needs."""
    if (run / AGGREGATE_FILE).exists():
        aggregate = pq.read_table(run / AGGREGATE_FILE).to_pandas().set_index("column")
        games = int(aggregate.loc["score_total", "count"])
        row: dict[str, float] = {"games": games}
        for name, (column, statistic) in LEVEL_TABLE.items():
            # one game has no spread: NaN, as pandas' std of one value
            row[name] = float("nan") if statistic == "sd" and games < 2 else float(aggregate.loc[column, statistic])
        return row
    columns = sorted({column for column, _ in LEVEL_TABLE.values()})
    seats = pq.read_table(run / SEATS_FILE, columns=columns).to_pandas()
    row = {"games": len(seats)}
    for name, (column, statistic) in LEVEL_TABLE.items():
        row[name] = float(seats[column].std() if statistic == "sd" else seats[column].mean())
    return row


def play_levels(data: GameData, levels: Sequence[int], options: RunOptions, out: str | Path | None = None,
                rounds: int | None = None, start_bonus: str | None = None, board: str | None = None,
                progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Play Luna alone at each of ``levels`` with ``options`` and return the per-level table (index ``level``:
    ``games`` and the :data:`LEVEL_TABLE` columns); with ``out``, keep each level's run as ``out/level-N``.

    ``rounds``, ``start_bonus`` and ``board`` are :class:`sim.config.GameConfig`'s (its defaults when None).

    Raises
    ------
    sim.outputs.OutputPathError
        A ``level-N`` of ``out`` cannot be written (checked for every level before any is played).
    """
    settings = {key: value for key, value in (("rounds", rounds), ("start_bonus", start_bonus), ("board", board))
                if value is not None}
    # without a folder nobody keeps the runs: their summaries are all the table needs (flat memory, no rows written)
    options = dataclasses.replace(options, aggregate_only=out is None)
    rows: dict[int, dict[str, float]] = {}

    def play_into(base: Path) -> None:
        for level in levels:
            config = GameConfig(seats=parse_seats(f"luna:{level}"), **settings)
            rows[level] = level_row(run_simulation(data, config, options, base / f"level-{level}", progress=progress))

    if out is not None:
        for level in levels:  # every level's run directory, before any level is played
            check_output(Path(out) / f"level-{level}", "run", inputs=(options.overlay,))
        with staged_runs(Path(out), [f"level-{level}" for level in levels]) as staging:
            play_into(staging)
    else:
        base = Path(tempfile.mkdtemp(prefix="luna-levels-"))
        try:
            play_into(base)
        finally:  # the runs of a table nobody kept: gone however the command ends (a stop, a full disk)
            shutil.rmtree(base, ignore_errors=True)
    frame = pd.DataFrame.from_dict(rows, orient="index").rename_axis("level")
    frame["games"] = frame["games"].astype("int64")
    return frame
