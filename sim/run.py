"""Run many games with either engine and write a run directory.

A run directory holds ``seats.parquet``, ``manifest.json`` and, with ``detail``,
``luna_rounds.parquet``; with ``aggregate_only`` it holds ``aggregate.parquet`` and
``histograms.parquet`` instead of per-game rows (see ``sim/summary.py``), so memory stays flat however
many games run. It is built in a temporary sibling directory and moved into place only when complete,
so an interrupted run never leaves a half-written result.

Every chunk goes to a list of chunk consumers (:class:`ChunkConsumer`): the writers of the run's own
files, then any the caller adds (e.g. a study's reducer). They run, in order, on one second thread
while the main thread plays the next chunk (the kernels, arrow and parquet release the GIL), so writing
costs little wall time; at most one played chunk waits for them.

Chunks of games go to joblib workers; ``backend="dask"`` hands them to a Dask cluster (joblib's
dask backend) at ``scheduler``. Game ``g`` always draws from the streams of (seed, g), so neither
the backend, the worker count nor the chunk size changes a single number. What the engines share
(the chunk, the registry, what each can play) is in ``sim/engines.py``.
"""

from __future__ import annotations

import functools
import itertools
import json
import platform
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim import arrow
from sim.columns import (
    ROUND_ID_COLUMNS,
    ROUND_NUMERIC,
    SEAT_COLUMNS,
    SEAT_NUMERIC,
    Chunk,
    Columns,
    chunk_bytes_per_game,
    chunk_games,
)
from sim.config import ConfigError, GameConfig, check_count, check_games, check_seed
from sim.constants import BACKENDS, CHUNK_MEMORY_BYTES, DEFAULT_BACKEND, DEFAULT_WORKERS, DETAIL_ROUNDS
from sim.crashpoints import crash_point
from sim.dispatch import dask_problem, ordered_results
from sim.engines import DEFAULT_ENGINE, PlayChunk, check_engine, compile_before_workers, engine_function
from sim.gamedata import GameData
from sim.outputs import (  # noqa: F401  (also imported from here by the output writers in analysis/)
    AGGREGATE_FILE,
    HISTOGRAMS_FILE,
    MANIFEST_FILE,
    MANIFEST_FILES,
    OWN_PACKAGE,
    ROUNDS_FILE,
    SEATS_FILE,
    OutputPathError,
    check_output,
    is_run_directory,
    os_error_naming,
    output_directory,
    written_files,
)
from sim.summary import StreamingSummary
from sim.violation import InvariantError


@dataclass(frozen=True)
class RunOptions:
    """How to play a run: how many games from which seed, with which engine, where, and what to keep.

    Nothing but ``games`` and ``seed`` changes a number: the engine, the chunk size, the workers and
    the backend only change how fast the same games are played.
    """

    games: int
    seed: int
    engine: str = DEFAULT_ENGINE
    detail: bool = False  # also write luna_rounds.parquet
    # games per chunk (a worker's unit of work and a parquet row group); None: chosen from memory
    chunk_size: int | None = None
    workers: int = DEFAULT_WORKERS  # processes (joblib), or Dask workers to use (default: all the cluster's threads)
    overlay: str | None = None  # the overlay file the data were loaded with, recorded in the manifest
    aggregate_only: bool = False  # streaming summaries instead of per-game rows
    backend: str = DEFAULT_BACKEND
    scheduler: str | None = None  # Dask scheduler address, with backend "dask"
    check_invariants: bool = False  # check every game's invariants; the first broken one stops the run

    def __post_init__(self) -> None:
        # stored as the Python ints the checks return: a numpy integer seed overflowed in the RNG
        object.__setattr__(self, "games", check_games(self.games))
        object.__setattr__(self, "seed", check_seed(self.seed))
        check_engine(self.engine)
        if self.chunk_size is not None:
            object.__setattr__(self, "chunk_size", check_count(self.chunk_size, "chunk_size", 1))
        object.__setattr__(self, "workers", check_count(self.workers, "workers", 1))
        if self.aggregate_only and self.detail:
            raise ConfigError("{aggregate_only} keeps no per-round rows; drop {detail}",
                              mentions=("aggregate_only", "detail"))
        if self.backend not in BACKENDS:
            raise ConfigError(f"unknown backend {self.backend!r} ({' or '.join(BACKENDS)})", "backend")
        if self.backend == "dask" and not self.scheduler:
            raise ConfigError("{backend} dask needs {scheduler} ADDRESS", mentions=("backend", "scheduler"))
        if self.backend != "dask" and self.scheduler:  # the run would be played here, not where it says
            raise ConfigError("only with {backend} dask", "scheduler", ("backend",))
        if self.backend == "dask" and (problem := dask_problem()):
            raise ConfigError("{backend} dask: " + problem, mentions=("backend",))


def default_chunk_size(config: GameConfig, detail: bool) -> int:
    """Games per chunk of ``config`` when the caller does not choose (see :func:`sim.columns.chunk_games`)."""
    return chunk_games(len(config.seats), len(config.luna_seats), config.rounds, detail)


#: A chunk's columns may take at most this many bytes: 64 default chunks (2 GiB). The chunk size changes no number,
#: and beyond a few default chunks a larger one only costs memory (the run holds two chunks, each worker one more),
#: while a mistyped size would otherwise fail only once numpy cannot allocate it, in a traceback.
MAX_CHUNK_BYTES = 64 * CHUNK_MEMORY_BYTES


def chunk_size_for(config: GameConfig, options: RunOptions) -> int:
    """The games per chunk of a run: the chosen size (no more than the run's games) or the default one.

    Raises
    ------
    ConfigError
        The chosen chunk's columns would take more than :data:`MAX_CHUNK_BYTES`.
    """
    if options.chunk_size is None:
        return default_chunk_size(config, options.detail)
    size = min(options.chunk_size, options.games)  # a larger chunk would only be the whole run
    per_game = chunk_bytes_per_game(len(config.seats), len(config.luna_seats), config.rounds, options.detail)
    if size * per_game > MAX_CHUNK_BYTES:
        raise ConfigError(f"{size} games of this table make a chunk of {size * per_game / 2**30:.3g} GiB, more than "
                          f"the {MAX_CHUNK_BYTES / 2**30:g} GiB a chunk may take; at most "
                          f"{MAX_CHUNK_BYTES // per_game} games per chunk (the chunk size changes no result)",
                          "chunk_size")
    return size


def chunk_bounds(games: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    for first in range(0, games, chunk_size):
        yield first, min(chunk_size, games - first)


# On disk every integer column but ``game`` is int32: no count, score or position of a game comes near
# 2**31, and ``game`` may reach 2**63. Narrower types would save nothing: parquet stores int8 and int16 as
# 32-bit values too (same bytes, same encoder time, measured), and readers would get types whose arithmetic
# overflows quietly. The text columns (kind, profile, card ids) are dictionary arrays: a few distinct
# strings indexed by int8, which the parquet writer stores without hashing a single string.
DISK_INT = pa.int32()
WIDE_COLUMNS = frozenset({"game"})


class Int32Scratch:
    """One int32 buffer the integer columns of a table are narrowed into, reused from chunk to chunk.

    A fresh int32 array per column and chunk (a few hundred KiB each, below numpy's huge-page size) costs
    the writer thread a page fault per 4 KiB every chunk, as the allocator hands the freed memory back to
    the system in between: ``seats_table`` of 97,541 games of ``luna:1`` took 162-225 ns a game that way and
    67-83 with the memory kept (one chunk, best of 7, on this project's 2-core machine; the thread shares the
    cores with the kernel). The arrays :meth:`take` returns stay valid until the next :meth:`reset`, so a table built
    from them must be written before the next one is built (:class:`ParquetRows` does so).
    """

    def __init__(self) -> None:
        self._buffer = np.empty(0, np.int32)
        self._taken = 0  # values taken since the last reset

    def reset(self) -> None:
        """Start a new table: the arrays taken so far may be overwritten."""
        if self._taken > self._buffer.size:  # the last table did not fit: the next one of its size will
            self._buffer = np.empty(self._taken, np.int32)
        self._taken = 0

    def take(self, size: int) -> np.ndarray:
        """``size`` int32 values no other array taken since the last :meth:`reset` overlaps."""
        start, self._taken = self._taken, self._taken + size
        if self._taken > self._buffer.size:  # the first table, or a larger one: fresh memory this time
            return np.empty(size, np.int32)
        return self._buffer[start:self._taken]


def _disk_array(name: str, values: np.ndarray, scratch: Int32Scratch | None = None) -> pa.Array:
    """``values`` as the arrow array written to disk (integers narrowed to ``DISK_INT``, checked; into
    ``scratch`` when given)."""
    if values.dtype.kind not in "iu" or name in WIDE_COLUMNS:
        return arrow.numeric(values)
    from sim.fast.narrow import narrow_to_int32  # here: sim.run loads no numba until a run needs it

    narrow = np.empty(values.size, np.int32) if scratch is None else scratch.take(values.size)
    if not narrow_to_int32(values, narrow):
        raise OverflowError(f"{name}: a value beyond the int32 range of the output files (the data let a game's "
                            "sums grow this large; --aggregate-only keeps them in int64)")
    return arrow.numeric(narrow)


def _text_array(codes: np.ndarray, words: list[str], negative: int | None = None) -> pa.DictionaryArray:
    """``words[codes]`` as a dictionary array (``codes`` index ``words``; a negative code, when ``negative``
    is given, picks ``words[negative]``)."""
    narrow = codes.astype(np.int8 if len(words) <= np.iinfo(np.int8).max else np.int32)  # an overlay may add cards
    if negative is not None:
        narrow[codes < 0] = negative
    return arrow.dictionary(narrow, words)


def _rows(columns: dict[str, pa.Array], names: Sequence[str]) -> pa.Table:
    """A table of ``columns`` in the order of ``names``, every field marked non-null."""
    return arrow.table({name: columns[name] for name in names})


def seats_table(config: GameConfig, chunk: Chunk, scratch: Int32Scratch | None = None) -> pa.Table:
    """Add the configuration's text and level columns to a chunk's per-seat numbers (the integer columns
    narrowed into ``scratch`` when given: the table is then valid until its next reset)."""
    seat_index = chunk.seats["seat"]
    levels = np.array([seat.level for seat in config.seats], dtype=np.int64)[seat_index]
    columns = {
        "game": arrow.numeric(chunk.seats["game"]),
        "seat": _disk_array("seat", seat_index, scratch),
        "kind": _text_array(seat_index, [seat.kind for seat in config.seats]),
        "level": _disk_array("level", levels, scratch),
        "profile": _text_array(seat_index, [seat.profile for seat in config.seats]),
        "strength": arrow.numeric(np.array([seat.strength for seat in config.seats], dtype=np.float64)[seat_index]),
    }
    columns.update({name: _disk_array(name, chunk.seats[name], scratch) for name in SEAT_NUMERIC})
    return _rows(columns, SEAT_COLUMNS)


def plain_text(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary (text) columns as plain strings: what a reader of the files gets."""
    return table.cast(pa.schema([field.with_type(field.type.value_type) if pa.types.is_dictionary(field.type)
                                 else field for field in table.schema]))


def rounds_table(data: GameData, rounds: Columns, scratch: Int32Scratch | None = None) -> pa.Table:
    """Turn card indices into card ids ("" for an empty or OFF slot); ``scratch`` as for :func:`seats_table`."""
    ids = [card.id for card in data.luna.cards] + [""]
    columns = {}
    for name in ROUND_NUMERIC:
        values = rounds[name]
        if name in ROUND_ID_COLUMNS:  # index -1 picks ""
            columns[name] = _text_array(values, ids, negative=len(ids) - 1)
        else:
            columns[name] = _disk_array(name, values, scratch)
    return _rows(columns, ROUND_NUMERIC)


@functools.cache
def _installed_versions() -> tuple[tuple[str, str], ...]:
    versions = [("python", platform.python_version())]
    for package in (OWN_PACKAGE, "numpy", "pandas", "numba", "pyarrow", "pydantic", "joblib", "matplotlib"):
        try:
            versions.append((package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            versions.append((package, "not installed"))
    return tuple(versions)


def package_versions() -> dict[str, str]:
    """The versions a manifest records, looked up once per process: importlib.metadata searches the
    installed packages on every call (18 ms here; a default study writes 53 manifests)."""
    return dict(_installed_versions())


def _play_or_violation(play: PlayChunk, *arguments: object) -> Chunk | InvariantError:
    """``play(*arguments)``, or the broken invariant it raised, returned rather than raised.

    A worker's exception reaches joblib's caller as soon as joblib sees it, whichever chunk came first; as
    a value it waits its turn, so the run names the first broken game in row order however chunks are run.
    """
    try:
        return play(*arguments)
    except InvariantError as error:
        return error


def _chunks(play: PlayChunk, data: GameData, config: GameConfig, options: RunOptions,
            bounds: Iterable[tuple[int, int]]) -> Iterator[Chunk]:
    """Play the chunks in order, here or on joblib workers (loky processes, or a Dask cluster)."""
    calls = ((play, data, config, options.seed, first, count, options.detail) for first, count in bounds)
    compile_once = functools.partial(compile_before_workers, options.engine, data, config, options.check_invariants)
    for result in ordered_results(_play_or_violation, calls, options.workers, options.backend, options.scheduler,
                                  before_workers=compile_once):
        if isinstance(result, InvariantError):
            raise result
        yield result


# How per-game rows are compressed (see the README's Speed section for the measurements behind it).
ROWS_COMPRESSION = "lz4"
WRITE_BATCH = 1 << 20  # values the parquet writer encodes at a time (_parquet_writer)
WRITE_BUFFER = 1 << 20  # bytes of a rows file gathered before each write to it (ParquetRows)


def _is_constant(column: pa.ChunkedArray) -> bool:
    """A numeric column holds one value (or none)."""
    parts = [arrow.numeric_values(chunk) for chunk in column.chunks if len(chunk)]
    return all(bool((part == parts[0][0]).all()) for part in parts)


def _parquet_writer(sink: str | Path | pa.NativeFile, first: pa.Table) -> pq.ParquetWriter:
    """A writer of tables with ``first``'s schema, its numbers' encodings chosen from ``first``'s values."""
    # The parquet writer shares the machine's cores with the kernel, so every microsecond it spends per
    # game is one the kernel loses. Numbers are split into byte streams (BYTE_STREAM_SPLIT: the high bytes
    # of small integers become runs of zeros the codec squeezes out), which costs a fifth of dictionary
    # encoding (hashing every value) for files of the same size; the text columns arrive as dictionary
    # arrays and are written as such. A number that holds one value throughout the first chunk (a Luna
    # seat's counters of what scripted seats lose, her level, a solo run's seat and rank) is written PLAIN
    # instead: the codec takes its repeated bytes as one long match, with no splitting pass first (a
    # luna:0 chunk's write 13.3 -> 12.2 ms of CPU, median of 15; a later chunk where such a column varies is
    # written as correctly, only less tightly). No min/max statistics (nothing filters on them). No arrow
    # schema in the file, so readers see the text columns as plain strings, not as dictionaries
    # (categoricals). Each column is encoded in batches of WRITE_BATCH values rather than parquet's default
    # 1,024, which cut the encoder's CPU by 2-10 % (one chunk, best of 5: luna:0's seats 220 -> 198 ns a
    # game, a scripted seat and Luna 487 -> 450, luna:5's per-round rows 885 -> 866); the files came out
    # byte-identical.
    schema = first.schema
    text = [field.name for field in schema if pa.types.is_dictionary(field.type)]
    numbers = {field.name: "PLAIN" if _is_constant(first[field.name]) else "BYTE_STREAM_SPLIT"
               for field in schema if field.name not in text}
    return pq.ParquetWriter(sink, schema, compression=ROWS_COMPRESSION, use_dictionary=text,
                            column_encoding=numbers, write_statistics=False, store_schema=False,
                            write_batch_size=WRITE_BATCH)


class ChunkConsumer(Protocol):
    """What the run driver hands every chunk to, in game order, and tells when the run is complete."""

    def consume(self, chunk: Chunk) -> None:
        """Take one chunk's columns (called once per chunk, in game order)."""

    def finish(self, directory: Path) -> None:
        """Write what the consumer kept into the (temporary) run ``directory``; called once, after the last chunk."""


class ParquetRows:
    """Writes one parquet file of per-game rows, a row group per chunk (``seats.parquet``, ``luna_rounds.parquet``).

    ``rows`` builds a chunk's table, its integer columns in the consumer's :class:`Int32Scratch`, which the
    next chunk's table reuses: each table is written before the next is built, and no reference is kept.
    """

    def __init__(self, path: Path, rows: Callable[[Chunk, Int32Scratch], pa.Table | None]) -> None:
        self.path, self.rows = path, rows
        self.sink: pa.NativeFile | None = None
        self.writer: pq.ParquetWriter | None = None
        self.scratch = Int32Scratch()

    def consume(self, chunk: Chunk) -> None:
        self.scratch.reset()
        table = self.rows(chunk, self.scratch)
        if table is None:
            return
        if self.writer is None:
            # buffered: the writer writes each column's pages on their own, a system call each (a luna:0
            # chunk's write 13.3 -> 12.7 ms of CPU, and 12.2 -> 11.4 with the PLAIN numbers; median of 15)
            self.sink = pa.output_stream(str(self.path), buffer_size=WRITE_BUFFER)
            self.writer = _parquet_writer(self.sink, table)
        self.writer.write_table(table)

    def finish(self, directory: Path) -> None:
        if self.writer is not None and self.sink is not None:
            self.writer.close()
            self.sink.close()  # the writer leaves a stream it was given open


class Aggregates:
    """Writes ``aggregate.parquet`` and ``histograms.parquet`` from a :class:`StreamingSummary`."""

    def __init__(self, config: GameConfig) -> None:
        self.config, self.summary = config, StreamingSummary()

    def consume(self, chunk: Chunk) -> None:
        self.summary.update(chunk.seats)

    def finish(self, directory: Path) -> None:
        aggregate, histograms = self.summary.tables(self.config)
        pq.write_table(aggregate, directory / AGGREGATE_FILE)
        pq.write_table(histograms, directory / HISTOGRAMS_FILE)


def output_consumers(data: GameData, config: GameConfig, options: RunOptions, directory: Path) -> list[ChunkConsumer]:
    """The consumers that write the run directory's files ``options`` asks for."""
    if options.aggregate_only:
        return [Aggregates(config)]
    seats = ParquetRows(directory / SEATS_FILE, lambda chunk, scratch: seats_table(config, chunk, scratch))
    if not options.detail:
        return [seats]
    rounds = ParquetRows(directory / ROUNDS_FILE,
                         lambda chunk, scratch: None if chunk.rounds is None else rounds_table(data, chunk.rounds,
                                                                                               scratch))
    return [seats, rounds]


def _consume_all(chunks: Iterable[tuple[int, Chunk]], consumers: Sequence[ChunkConsumer],
                 progress: Callable[[int], None] | None) -> None:
    """Hand every chunk to every consumer, on a second thread while the next chunk is played.

    The kernels release the GIL, and so do arrow's conversions and parquet's encoder, so writing chunk k
    overlaps playing chunk k + 1. At most one chunk waits for its consumers: memory stays at two chunks.
    """
    def consume(chunk: Chunk) -> None:
        for consumer in consumers:
            consumer.consume(chunk)
        crash_point("chunk-written")

    def drain(pending: tuple[int, Future] | None) -> None:
        if pending is not None:
            pending[1].result()  # re-raises a consumer's error here, before more games are played
            if progress is not None:
                progress(pending[0])

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="luna-consumer") as pool:
        pending: tuple[int, Future] | None = None
        try:
            for count, chunk in chunks:
                drain(pending)
                pending = (count, pool.submit(consume, chunk))
            drain(pending)
        finally:
            if pending is not None:
                pending[1].cancel()


def run_simulation(data: GameData, config: GameConfig, options: RunOptions, out: str | Path,
                   progress: Callable[[int], None] | None = None, extra_manifest: dict | None = None,
                   consumers: Sequence[ChunkConsumer] = (), write_games: bool = True) -> Path:
    """Play ``options.games`` games of ``config`` and write the run directory ``out``.

    Games are numbered 0 .. games-1; game ``g`` always draws from the streams of (seed, g), so the
    result does not depend on the chunk size, the workers or the backend. ``progress`` is called with
    the number of games of each finished chunk; ``extra_manifest`` adds top-level keys to the manifest;
    ``consumers`` also receive every chunk, after the run's own files (see :class:`ChunkConsumer`; their
    ``finish`` gets the temporary run directory, which becomes ``out``, so their files are part of the
    atomic result); ``write_games=False`` skips the per-game parquet files (a study keeps summaries).

    Raises
    ------
    OutputPathError
        No run directory can be written at ``out`` (checked before any game is played).
    """
    out = Path(out)
    play = engine_function(options.engine)
    if options.check_invariants:  # only then: a play function need not know the keyword otherwise
        play = functools.partial(play, check_invariants=True)
    if options.detail and not config.luna_seats:  # a luna_rounds.parquet of no rows, which no reader takes
        raise ConfigError(f"rounds records Luna's rounds, and {config.seats_label} seats no Luna; drop {{detail}} or "
                          "add a luna:N seat", "detail", ("detail",))
    chunk_size = chunk_size_for(config, options)  # before the output is started: a refused size leaves nothing
    started = time.perf_counter()
    with output_directory(out, "run", inputs=(options.overlay,)) as temporary:
        # two lazy copies, never a list: 2**63 games made a list of a chunk's bounds each, 3.5 GB in 11 s (a QA pass);
        # tee holds only the bounds of the chunks the workers have been handed and not yet returned
        bounds, counted = itertools.tee(chunk_bounds(options.games, chunk_size))
        chunks = _chunks(play, data, config, options, bounds)
        own = output_consumers(data, config, options, temporary) if write_games or options.aggregate_only else []
        every_consumer = [*own, *consumers]
        _consume_all(((count, chunk) for (_, count), chunk in zip(counted, chunks, strict=True)), every_consumer,
                     progress)
        for consumer in every_consumer:
            consumer.finish(temporary)
        elapsed = time.perf_counter() - started
        manifest = {
            "config": {
                "seats": [seat.label for seat in config.seats],
                "games": options.games,
                "seed": options.seed,
                "rounds": config.rounds,
                "start_bonus": config.start_bonus,
                "board": config.board,
                "overlay": options.overlay,
                "engine": options.engine,
                "detail": DETAIL_ROUNDS if options.detail else None,
                "chunk_size": chunk_size,
                "workers": options.workers,
                "backend": options.backend,
                "aggregate_only": options.aggregate_only,
                **({"check_invariants": True} if options.check_invariants else {}),
            },
            "data": {"digest": data.digest, "sources": list(data.sources)},
            "versions": package_versions(),
            "seconds": round(elapsed, 3),
            **(extra_manifest or {}),
            MANIFEST_FILES: written_files(temporary),
        }
        (temporary / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    return out
