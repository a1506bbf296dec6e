"""Run many games with either engine and write a run directory.

A run directory holds ``seats.parquet``, ``manifest.json`` and, with ``detail``,
``luna_rounds.parquet``; with ``aggregate_only`` it holds ``aggregate.parquet`` and
``histograms.parquet`` instead of per-game rows (see ``sim/summary.py``), so memory stays flat however
many games run. It is built in a temporary sibling directory and moved into place only when complete,
so an interrupted run never leaves a half-written result.

Chunks of games go to joblib workers; ``backend="dask"`` hands them to a Dask cluster (joblib's
dask backend) at ``scheduler``. Game ``g`` always draws from the streams of (seed, g), so neither
the backend, the worker count nor the chunk size changes a single number. What the engines share
(the chunk, the registry, what each can play) is in ``sim/engines.py``.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.columns import ROUND_CARD_COLUMNS, ROUND_NUMERIC, SEAT_COLUMNS, SEAT_NUMERIC, Chunk, Columns
from sim.config import GameConfig
from sim.constants import BACKENDS, DEFAULT_CHUNK_GAMES
from sim.engines import PlayChunk, check_engine, engine_function
from sim.gamedata import GameData
from sim.summary import StreamingSummary


@dataclass(frozen=True)
class RunOptions:
    """How to play a run: how many games from which seed, with which engine, where, and what to keep.

    Nothing but ``games`` and ``seed`` changes a number: the engine, the chunk size, the workers and
    the backend only change how fast the same games are played.
    """

    games: int
    seed: int
    engine: str = "reference"
    detail: bool = False  # also write luna_rounds.parquet
    chunk_size: int = DEFAULT_CHUNK_GAMES  # games per chunk (a worker's unit of work and a parquet row group)
    workers: int = 1  # processes (joblib), or Dask workers to use (default: all the cluster's threads)
    overlay: str | None = None  # the overlay file the data were loaded with, recorded in the manifest
    aggregate_only: bool = False  # streaming summaries instead of per-game rows
    backend: str = "local"
    scheduler: str | None = None  # Dask scheduler address, with backend "dask"

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ValueError(f"--games: must be at least 1, got {self.games}")
        check_engine(self.engine)
        if self.chunk_size < 1:
            raise ValueError(f"--chunk-size: must be at least 1, got {self.chunk_size}")
        if self.workers < 1:
            raise ValueError(f"--workers: must be at least 1, got {self.workers}")
        if self.aggregate_only and self.detail:
            raise ValueError("--aggregate-only keeps no per-round rows; drop --detail")
        if self.backend not in BACKENDS:
            raise ValueError(f"--backend: unknown backend {self.backend!r} ({' or '.join(BACKENDS)})")
        if self.backend == "dask" and not self.scheduler:
            raise ValueError("--backend dask needs --scheduler ADDRESS")


class ChunkReducer(Protocol):
    """Something that sees every chunk of a run and writes its own files beside the run's (a study's summary)."""

    def update(self, chunk: Chunk) -> None: ...

    def write(self, directory: Path) -> None: ...


class OutputPathError(ValueError):
    """``out`` names a place where no run directory can be written; the message says where and why."""


def chunk_bounds(games: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    for first in range(0, games, chunk_size):
        yield first, min(chunk_size, games - first)


def seats_table(config: GameConfig, chunk: Chunk) -> pa.Table:
    """Add the configuration's text and level columns to a chunk's per-seat numbers."""
    seat_index = chunk.seats["seat"]
    kinds = np.array([seat.kind for seat in config.seats])
    columns = {
        "game": chunk.seats["game"],
        "seat": seat_index,
        "kind": kinds[seat_index],
        "level": np.array([seat.level for seat in config.seats], dtype=np.int64)[seat_index],
        "profile": np.array([seat.profile for seat in config.seats])[seat_index],
        "strength": np.array([seat.strength for seat in config.seats], dtype=np.float64)[seat_index],
    }
    columns.update({name: chunk.seats[name] for name in SEAT_NUMERIC})
    return pa.table({name: columns[name] for name in SEAT_COLUMNS})


def rounds_table(data: GameData, rounds: Columns) -> pa.Table:
    """Turn card indices into card ids ("" for an empty or OFF slot)."""
    ids = np.array([card.id for card in data.luna.cards] + [""])
    columns = {}
    for name in ROUND_NUMERIC:
        values = rounds[name]
        columns[name] = ids[values] if name in ROUND_CARD_COLUMNS else values  # index -1 picks ""
    return pa.table(columns)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("luna-balance", "numpy", "pandas", "numba", "pyarrow", "pydantic", "joblib", "matplotlib"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _start_output(out: Path) -> Path:
    """Check that a run directory can be written at ``out`` and create the temporary one beside it.

    Runs before any game is played, so a bad ``out`` costs nothing and leaves nothing behind.
    """
    if out.name in ("", ".."):  # "." or "/" or "..": the temporary sibling would have no name
        raise OutputPathError(f"{out}: name the run directory itself, e.g. {out / 'run'}")
    temporary = out.with_name(f".{out.name}.partial-{os.getpid()}")
    try:
        if out.is_dir():
            if any(out.iterdir()) and not (out / "manifest.json").exists():
                raise OutputPathError(f"{out}: exists and is not a run directory; refusing to replace it")
        elif out.exists():
            raise OutputPathError(f"{out}: is a file, not a run directory; refusing to replace it")
        out.parent.mkdir(parents=True, exist_ok=True)
        if temporary.exists():
            shutil.rmtree(temporary)
        temporary.mkdir()
    except OSError as error:
        raise OutputPathError(f"{out}: cannot write a run directory there ({_why(error, out)})") from None
    return temporary


def _why(error: OSError, out: Path) -> str:
    """The reason behind ``error`` in words, naming the path it concerns."""
    existing = next((parent for parent in out.parents if parent.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is a file, not a directory"  # mkdir would only say "File exists" or "Not a directory"
    path = error.filename or out
    return f"{path}: {error.strerror or error}"


def _replace_directory(temporary: Path, out: Path) -> None:
    """Move a finished run into place; an existing run directory at ``out`` is replaced whole."""
    if out.exists():
        if any(out.iterdir()) and not (out / "manifest.json").exists():  # appeared while the games were played
            raise OutputPathError(f"{out}: exists and is not a run directory; refusing to replace it")
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
        os.replace(temporary, out)
        shutil.rmtree(old)
    else:
        os.replace(temporary, out)


def _chunks(play: PlayChunk, data: GameData, config: GameConfig, options: RunOptions,
            bounds: list[tuple[int, int]]) -> Iterator[Chunk]:
    """Play the chunks in order, here or on joblib workers (loky processes, or a Dask cluster)."""
    seed, detail, workers = options.seed, options.detail, options.workers
    if options.backend == "local" and workers <= 1:
        yield from (play(data, config, seed, first, count, detail) for first, count in bounds)
        return
    from joblib import Parallel, delayed, parallel_config

    tasks = (delayed(play)(data, config, seed, first, count, detail) for first, count in bounds)
    if options.backend == "dask":
        from dask.distributed import Client

        with Client(options.scheduler) as client, parallel_config(backend="dask"):
            workers = workers if workers > 1 else max(1, sum(client.nthreads().values()))
            yield from Parallel(n_jobs=workers, return_as="generator")(tasks)
        return
    yield from Parallel(n_jobs=workers, return_as="generator")(tasks)


def run_simulation(data: GameData, config: GameConfig, options: RunOptions, out: str | Path,
                   progress: Callable[[int], None] | None = None, extra_manifest: dict | None = None,
                   reducer: ChunkReducer | None = None, write_games: bool = True) -> Path:
    """Play ``options.games`` games of ``config`` and write the run directory ``out``.

    Games are numbered 0 .. games-1; game ``g`` always draws from the streams of (seed, g), so the
    result does not depend on the chunk size, the workers or the backend. ``progress`` is called with
    the number of games of each finished chunk; ``extra_manifest`` adds top-level keys to the manifest.
    ``reducer`` gets every chunk in game order and writes its files into the run directory before the
    manifest (so they are part of the atomic result); ``write_games=False`` skips the per-game parquet files.

    Raises
    ------
    OutputPathError
        No run directory can be written at ``out`` (checked before any game is played).
    """
    out = Path(out)
    play = engine_function(options.engine)
    temporary = _start_output(out)
    started = time.perf_counter()
    try:
        seat_writer = round_writer = None
        summary = StreamingSummary() if options.aggregate_only else None
        bounds = list(chunk_bounds(options.games, options.chunk_size))
        chunks = _chunks(play, data, config, options, bounds)
        for (_, count), chunk in zip(bounds, chunks, strict=True):
            if reducer is not None:
                reducer.update(chunk)
            if summary is not None or not write_games:
                if summary is not None:
                    summary.update(chunk.seats)
                if progress is not None:
                    progress(count)
                continue
            table = seats_table(config, chunk)
            if seat_writer is None:
                seat_writer = pq.ParquetWriter(temporary / "seats.parquet", table.schema)
            seat_writer.write_table(table)
            if options.detail and chunk.rounds is not None:
                rounds = rounds_table(data, chunk.rounds)
                if round_writer is None:
                    round_writer = pq.ParquetWriter(temporary / "luna_rounds.parquet", rounds.schema)
                round_writer.write_table(rounds)
            if progress is not None:
                progress(count)
        if summary is not None:
            aggregate, histograms = summary.tables(config)
            pq.write_table(aggregate, temporary / "aggregate.parquet")
            pq.write_table(histograms, temporary / "histograms.parquet")
        if seat_writer is not None:
            seat_writer.close()
        if round_writer is not None:
            round_writer.close()
        if reducer is not None:
            reducer.write(temporary)
        elapsed = time.perf_counter() - started
        manifest = {
            "config": {
                "seats": [seat.label for seat in config.seats],
                "games": options.games,
                "seed": options.seed,
                "rounds": config.rounds,
                "start_bonus": config.start_bonus,
                "overlay": options.overlay,
                "engine": options.engine,
                "detail": "rounds" if options.detail else None,
                "chunk_size": options.chunk_size,
                "workers": options.workers,
                "backend": options.backend,
                "aggregate_only": options.aggregate_only,
            },
            "data": {"digest": data.digest, "sources": list(data.sources)},
            "versions": package_versions(),
            "seconds": round(elapsed, 3),
            **(extra_manifest or {}),
        }
        (temporary / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        _replace_directory(temporary, out)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)
    return out
