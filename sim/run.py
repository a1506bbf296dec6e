"""Run many games with either engine and write a run directory.

A run directory holds ``seats.parquet``, ``manifest.json`` and, with ``detail="rounds"``,
``luna_rounds.parquet``; with ``aggregate_only`` it holds ``aggregate.parquet`` and
``histograms.parquet`` instead of per-game rows, so memory stays flat however many games run. It is
built in a temporary sibling directory and moved into place only when complete, so an interrupted
run never leaves a half-written result.

Chunks of games go to joblib workers; ``backend="dask"`` hands them to a Dask cluster (joblib's
dask backend) at ``scheduler``. Game ``g`` always draws from the streams of (seed, g), so neither
the backend, the worker count nor the chunk size changes a single number.
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

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim import reference
from sim.columns import ROUND_CARD_COLUMNS, ROUND_NUMERIC, SEAT_COLUMNS, SEAT_NUMERIC
from sim.config import GameConfig
from sim.gamedata import GameData

Columns = dict[str, np.ndarray]
DEFAULT_CHUNK = 20_000


@dataclass(frozen=True)
class Chunk:
    """Games ``first_game .. first_game + count - 1`` of one run, as numeric columns."""

    seats: Columns  # SEAT_NUMERIC plus "game" and "seat"
    rounds: Columns | None  # ROUND_NUMERIC, or None without detail


def play_chunk_reference(data: GameData, config: GameConfig, seed: int, first_game: int, count: int,
                         detail: bool) -> Chunk:
    """Play a chunk of games with the reference engine."""
    rules = reference.Rules(data, config)
    seat_rows: dict[str, list] = {name: [] for name in ("game", "seat", *SEAT_NUMERIC)}
    round_rows: dict[str, list] = {name: [] for name in ROUND_NUMERIC}
    for game in range(first_game, first_game + count):
        result = reference.play_game(rules, seed, game, detail=detail)
        for seat, row in enumerate(result.seats):
            seat_rows["game"].append(game)
            seat_rows["seat"].append(seat)
            for name in SEAT_NUMERIC:
                seat_rows[name].append(row[name])
        for seat, records in result.rounds.items():
            for record in records:
                values = [game, seat, record.round, *record.cards, *record.majority_values, record.reshuffles,
                          record.grade2_by_reshuffle + record.grade2_by_token, record.grade2_by_reshuffle,
                          record.grade2_by_token, record.deck_size_start, record.helium, record.research,
                          record.cash]
                for name, value in zip(ROUND_NUMERIC, values, strict=True):
                    round_rows[name].append(value)
    seats = {name: np.asarray(values, dtype=np.float64 if name == "won" else np.int64)
             for name, values in seat_rows.items()}
    rounds = {name: np.asarray(values, dtype=np.int64) for name, values in round_rows.items()} if detail else None
    return Chunk(seats=seats, rounds=rounds)


def engine_function(engine: str) -> Callable[..., Chunk]:
    if engine == "reference":
        return play_chunk_reference
    if engine == "numba":
        from sim.fast import play_chunk_numba  # imported lazily: compiling is only paid when used

        return play_chunk_numba
    raise ValueError(f"--engine: unknown engine {engine!r} (reference or numba)")


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


class StreamingSummary:
    """Per seat and numeric column: count, sum, sum of squares, min, max, and a histogram of values.

    Integer columns sum exactly, so the totals do not depend on how games were chunked; ``won``
    (1/k for a k-way tie) is summed in float64, exact except for the last bits after 3-way ties.
    """

    def __init__(self) -> None:
        self.moments: dict[tuple[int, str], list[float]] = {}  # (seat, column) -> [count, sum, sumsq, min, max]
        self.histograms: dict[tuple[int, str], dict[float, int]] = {}

    def update(self, columns: Columns) -> None:
        seats = columns["seat"]
        for seat in np.unique(seats):
            mask = seats == seat
            for name in SEAT_NUMERIC:
                values = columns[name][mask]
                key = (int(seat), name)
                moments = self.moments.setdefault(key, [0, 0.0, 0.0, np.inf, -np.inf])
                moments[0] += values.size
                moments[1] += float(values.sum())
                moments[2] += float((values.astype(np.float64) ** 2).sum())
                moments[3] = min(moments[3], float(values.min()))
                moments[4] = max(moments[4], float(values.max()))
                histogram = self.histograms.setdefault(key, {})
                for value, count in zip(*np.unique(values, return_counts=True), strict=True):
                    histogram[float(value)] = histogram.get(float(value), 0) + int(count)

    def tables(self, config: GameConfig) -> tuple[pa.Table, pa.Table]:
        rows = []
        for (seat, name), (count, total, squares, low, high) in sorted(self.moments.items()):
            mean = total / count
            variance = max(squares / count - mean * mean, 0.0) * count / max(count - 1, 1)
            rows.append({"seat": seat, "kind": config.seats[seat].kind, "level": config.seats[seat].level,
                         "profile": config.seats[seat].profile, "column": name, "count": count, "sum": total,
                         "mean": mean, "sd": variance ** 0.5, "min": low, "max": high})
        histogram_rows = [{"seat": seat, "column": name, "value": value, "count": count}
                          for (seat, name), histogram in sorted(self.histograms.items())
                          for value, count in sorted(histogram.items())]
        return pa.Table.from_pylist(rows), pa.Table.from_pylist(histogram_rows)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("luna-balance", "numpy", "pandas", "numba", "pyarrow", "pydantic", "joblib", "matplotlib"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _replace_directory(temporary: Path, out: Path) -> None:
    """Move a finished run into place; an existing run directory at ``out`` is replaced whole."""
    if out.exists():
        if any(out.iterdir()) and not (out / "manifest.json").exists():
            raise FileExistsError(f"{out}: exists and is not a run directory; refusing to replace it")
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
        os.replace(temporary, out)
        shutil.rmtree(old)
    else:
        os.replace(temporary, out)


def _chunks(play: Callable[..., Chunk], arguments: tuple, bounds: list[tuple[int, int]], detail: bool,
            workers: int, backend: str, scheduler: str | None) -> Iterator[Chunk]:
    """Play the chunks in order, here or on joblib workers (loky processes, or a Dask cluster)."""
    data, config, seed = arguments
    if backend == "local" and workers <= 1:
        yield from (play(data, config, seed, first, count, detail) for first, count in bounds)
        return
    from joblib import Parallel, delayed, parallel_config

    tasks = (delayed(play)(data, config, seed, first, count, detail) for first, count in bounds)
    if backend == "dask":
        from dask.distributed import Client

        with Client(scheduler) as client, parallel_config(backend="dask"):
            workers = workers if workers > 1 else max(1, sum(client.nthreads().values()))
            yield from Parallel(n_jobs=workers, return_as="generator")(tasks)
        return
    yield from Parallel(n_jobs=workers, return_as="generator")(tasks)


def run_simulation(data: GameData, config: GameConfig, games: int, seed: int, out: str | Path,
                   engine: str = "reference", detail: bool = False, chunk_size: int = DEFAULT_CHUNK,
                   workers: int = 1, overlay: str | None = None, progress: Callable[[int], None] | None = None,
                   extra_manifest: dict | None = None, aggregate_only: bool = False, backend: str = "local",
                   scheduler: str | None = None) -> Path:
    """Play ``games`` games of ``config`` and write the run directory ``out``.

    Games are numbered 0 .. games-1; game ``g`` always draws from the streams of (seed, g), so the
    result does not depend on ``chunk_size``, ``workers`` or ``backend`` ("local" or "dask").
    """
    if games < 1:
        raise ValueError(f"--games: must be at least 1, got {games}")
    if chunk_size < 1:
        raise ValueError(f"--chunk-size: must be at least 1, got {chunk_size}")
    if aggregate_only and detail:
        raise ValueError("--aggregate-only keeps no per-round rows; drop --detail")
    if backend not in ("local", "dask"):
        raise ValueError(f"--backend: unknown backend {backend!r} (local or dask)")
    if backend == "dask" and not scheduler:
        raise ValueError("--backend dask needs --scheduler ADDRESS")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.name}.partial-{os.getpid()}")
    if temporary.exists():
        shutil.rmtree(temporary)
    temporary.mkdir()
    play = engine_function(engine)
    started = time.perf_counter()
    try:
        seat_writer = round_writer = None
        summary = StreamingSummary() if aggregate_only else None
        bounds = list(chunk_bounds(games, chunk_size))
        chunks = _chunks(play, (data, config, seed), bounds, detail, workers, backend, scheduler)
        for (_, count), chunk in zip(bounds, chunks, strict=True):
            if summary is not None:
                summary.update(chunk.seats)
                if progress is not None:
                    progress(count)
                continue
            table = seats_table(config, chunk)
            if seat_writer is None:
                seat_writer = pq.ParquetWriter(temporary / "seats.parquet", table.schema)
            seat_writer.write_table(table)
            if detail and chunk.rounds is not None:
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
        else:
            seat_writer.close()
        if round_writer is not None:
            round_writer.close()
        elapsed = time.perf_counter() - started
        manifest = {
            "config": {
                "seats": [seat.label for seat in config.seats],
                "games": games,
                "seed": seed,
                "rounds": config.rounds,
                "start_bonus": config.start_bonus,
                "overlay": overlay,
                "engine": engine,
                "detail": "rounds" if detail else None,
                "chunk_size": chunk_size,
                "workers": workers,
                "backend": backend,
                "aggregate_only": aggregate_only,
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
