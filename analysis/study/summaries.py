"""Each study part reduced to a compact, mergeable summary while it is simulated.

A study's report needs distributions, sums and a few paired per-game values, never whole game
rows. So every chunk a part plays goes through a :class:`PartReducer`, and the part's run directory
gets, instead of (or, with ``--keep-games``, besides) ``seats.parquet`` and ``luna_rounds.parquet``:

``summary_seats.parquet``
    per seat, column and value of ``seats.parquet``: the number of seat-games with that value
    (``seat, column, value, count``). Counts per integer value are exact and add up across chunks,
    so means, standard deviations, quantiles, ECDFs and win sums all follow from them;
``summary_rounds.parquet``
    the same per round for the per-round columns of detail parts (``seat, round, column, value,
    count``);
``summary_cards.parquet``
    card plays per seat, slot and card id (``seat, slot, card, plays``);
``summary_timing.parquet``
    the round of each seat-game's k-th reshuffle (``seat, reshuffle, round, count``);
``pairs.parquet``
    the per-game values pairing needs, for Luna's seats only: ``game, seat, score_total``, the seven
    ``score_*`` categories (for variant differences) and ``won_twelfths`` (``won`` × 12: 1/k for a
    k-way tie is a whole number of twelfths for k ≤ 4, so it is stored exactly in one byte).

The files are written into the run's temporary directory before its manifest, so a part whose
manifest exists has its summary too (the run directory is moved into place whole).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analysis.run_manifest import digest_problem
from analysis.schema import LUNA
from analysis.study.plan import (
    PAIR_COLUMNS,
    StudyError,
    StudyPlan,
    missing_part_files,
    part_is_finished,
    read_json,
    read_plan,
    rerun_command,
)
from sim.columns import ROUND_CARD_COLUMNS, ROUND_ID_COLUMNS, ROUND_NUMERIC, SEAT_NUMERIC, Chunk
from sim.config import GameConfig, profile_label
from sim.constants import SLOT_LETTERS
from sim.fast.counts import count_columns_from, count_strided, integer_counts, value_bounds
from sim.gamedata import GameData
from sim.outputs import (
    CARD_SUMMARY_FILE,
    MANIFEST_FILE,
    PAIRS_FILE,
    ROUND_SUMMARY_FILE,
    SEAT_SUMMARY_FILE,
    TIMING_SUMMARY_FILE,
)
from sim.summary import seat_rows, value_counts

#: The pair columns the duels and the Findings' steps read (variant differences read the categories too).
PAIRED_TOTALS: tuple[str, ...] = ("game", "seat", "score_total", "won")
#: ``won`` is stored in pairs.parquet in twelfths (see the module docstring).
WON_SCALE = 12
WON_STORED = "won_twelfths"
#: Per-round columns summarised by value (card columns are summarised as card plays instead).
ROUND_VALUE_COLUMNS: tuple[str, ...] = tuple(
    name for name in ROUND_NUMERIC if name not in ("game", "seat", "round", *ROUND_ID_COLUMNS))


class _Counts:
    """Counts per integer value of many keyed columns, kept as offset numpy arrays so chunks add cheaply."""

    def __init__(self) -> None:
        self.arrays: dict[tuple, tuple[int, np.ndarray]] = {}

    def add(self, key: tuple, values: np.ndarray) -> None:
        if values.size == 0:
            return
        self.add_counts(key, *integer_counts(values))

    def add_rows(self, key: tuple, column: np.ndarray, start: int, step: int, bounds: tuple[int, int]) -> None:
        """Count ``column[start::step]`` (one seat's rows of a chunk's column, ``column`` int64) over ``bounds``,
        the whole column's smallest and largest value (:func:`sim.fast.counts.count_strided`)."""
        low, high = bounds
        counts = np.zeros(high - low + 1, np.int64)
        count_strided(column, start, step, low, counts)
        self.add_counts(key, low, counts)

    def add_counts(self, key: tuple, low: int, counts: np.ndarray) -> None:
        """Add counts of the values ``low, low + 1, ...``."""
        if key not in self.arrays:
            self.arrays[key] = (low, counts.astype(np.int64))
            return
        old_low, old = self.arrays[key]
        if old_low <= low and low + counts.size <= old_low + old.size:
            old[low - old_low:low - old_low + counts.size] += counts
            return
        new_low = min(low, old_low)
        size = max(old_low + old.size, low + counts.size) - new_low
        merged = np.zeros(size, dtype=np.int64)
        merged[old_low - new_low:old_low - new_low + old.size] += old
        merged[low - new_low:low - new_low + counts.size] += counts
        self.arrays[key] = (new_low, merged)

    def rows(self) -> tuple[list[tuple], np.ndarray, np.ndarray]:
        """Keys (one per row), values and counts of every value seen, keys sorted."""
        keys: list[tuple] = []
        values, counts = [], []
        for key in sorted(self.arrays):
            low, array = self.arrays[key]
            present = np.flatnonzero(array)
            keys += [key] * present.size
            values.append(present + low)
            counts.append(array[present])
        if not keys:
            return [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return keys, np.concatenate(values), np.concatenate(counts)


def _pair_dtype(name: str) -> type[np.integer]:
    """How ``pairs.parquet`` stores pair column ``name`` (``won`` in twelfths): the narrowest type that holds it."""
    return {"won": np.uint8, "game": np.int32, "seat": np.int8}.get(name, np.int16)


def pairs_encoding(name: str) -> str:
    """How ``pairs.parquet`` stores column ``name``.

    Game numbers ascend: delta encoding stores them in almost nothing (plain, they were most of the file). The
    other columns are split into byte streams (the high bytes of small numbers become runs zstd squeezes out)
    rather than dictionary encoded, which hashed every value: a duel part's file (400,000 rows) was written in
    23 ms instead of 40 and read in 10 instead of 25 (median of 7), and came out 7 % smaller.
    """
    return "DELTA_BINARY_PACKED" if name == "game" else "BYTE_STREAM_SPLIT"


def _luna_rows(seat_index: np.ndarray, luna: np.ndarray, rows: list[slice | np.ndarray]) -> slice | np.ndarray:
    """What picks the rows of Luna's seats (``luna``: per seat, whether it is Luna's) out of a chunk's column, in
    row order: with the seats in turn (``rows`` slices, :func:`sim.summary.seat_rows`) and one Luna seat or only
    Luna's, a slice (a view: a mask copies at several ns a value), else a mask."""
    if isinstance(rows[0], slice):
        if luna.all():
            return slice(None)
        if luna.sum() == 1:
            return rows[int(np.flatnonzero(luna)[0])]
    return luna[seat_index]


#: The columns of each summary file, as :meth:`PartReducer.finish` writes them and the
#: report reads them.
SUMMARY_COLUMNS: dict[str, tuple[str, ...]] = {
    SEAT_SUMMARY_FILE: ("seat", "column", "value", "count"),
    ROUND_SUMMARY_FILE: ("seat", "round", "column", "value", "count"),
    CARD_SUMMARY_FILE: ("seat", "slot", "card", "plays"),
    TIMING_SUMMARY_FILE: ("seat", "reshuffle", "round", "count"),
}


def _write_summary(directory: Path, name: str, columns: list[pa.Array]) -> None:
    """Write the summary file ``name``: ``columns`` in the order of :data:`SUMMARY_COLUMNS`."""
    pq.write_table(pa.Table.from_arrays(columns, names=list(SUMMARY_COLUMNS[name])), directory / name)


class PartReducer:
    """Reduces the chunks of one part to its summary files (give it to :func:`sim.run.run_simulation`).

    Parameters
    ----------
    config
        The part's configuration (which seat is whose).
    data
        The game data played (card ids).
    pairs
        The per-game columns to keep for Luna's seats (:func:`analysis.study.plan.summary_record`).
    """

    def __init__(self, config: GameConfig, data: GameData, pairs: Sequence[str] = PAIR_COLUMNS) -> None:
        self.config = config
        self.card_ids = [card.id for card in data.luna.cards]
        self.pair_names = tuple(pairs)
        self.seats = _Counts()
        self.won: dict[tuple[int, float], int] = {}
        self.rounds = _Counts()
        self.cards = _Counts()
        self.timing: dict[tuple[int, int, int], int] = {}
        self.pairs: dict[str, list[np.ndarray]] = {name: [] for name in self.pair_names}
        self.luna = np.array([seat.kind == LUNA for seat in config.seats])

    def consume(self, chunk: Chunk) -> None:
        """Add one chunk of games."""
        seats = chunk.seats
        seat_index = seats["seat"]
        rows = seat_rows(seat_index, len(self.config.seats))
        # the seats in turn (slices) and several of them: each seat's rows are every n-th value, counted over the
        # column's bounds (sim.fast.counts.count_strided); else each seat's own values, with their own bounds
        strided = isinstance(rows[0], slice) and len(rows) > 1
        for name in SEAT_NUMERIC:
            column = seats[name]
            bounds = value_bounds(column) if strided and name != "won" and column.size else None
            for seat, picked in enumerate(rows):
                if name == "won":
                    values = column[picked]
                    for value, count in value_counts(values) if values.size else ():
                        key = (seat, float(value))
                        self.won[key] = self.won.get(key, 0) + int(count)
                elif bounds is not None:
                    self.seats.add_rows((seat, name), column, seat, len(rows), bounds)
                else:
                    self.seats.add((seat, name), column[picked])
        luna_rows = _luna_rows(seat_index, self.luna, rows)
        for name in self.pair_names:
            values = seats[name][luna_rows]
            if name == "won":
                values = np.rint(values * WON_SCALE)
            self.pairs[name].append(values.astype(_pair_dtype(name)))
        if chunk.rounds is not None:
            self._update_rounds(chunk.rounds)

    def _update_rounds(self, rounds: dict[str, np.ndarray]) -> None:
        """Count the per-round values and card plays of each Luna seat.

        The engines write a row per game, Luna seat and round, in that order (checked), so one Luna seat's
        values of one column are a (games, rounds) view of it, counted per round in one compiled pass
        (``sim.fast.counts``): no row is copied out by a mask.
        """
        luna_seats = np.flatnonzero(self.luna)
        if rounds["seat"].size == 0:  # no game, or no Luna seat: nothing to count
            return
        n_rounds = self.config.rounds
        grid = (-1, luna_seats.size, n_rounds)
        if rounds["seat"].size % (luna_seats.size * n_rounds) or not (
                (rounds["seat"].reshape(grid) == luna_seats[:, None]).all()
                and (rounds["round"].reshape(grid) == np.arange(1, n_rounds + 1)).all()):
            raise ValueError("per-round rows must come per game, Luna seat and round, in that order")
        for k, seat in enumerate(luna_seats.tolist()):
            for name in ROUND_VALUE_COLUMNS:
                # One pass over (round, value) per column rather than one per round.
                values = rounds[name].reshape(grid)[:, k, :]
                low, high = value_bounds(values)
                counts = np.zeros((n_rounds, high - low + 1), np.int64)
                count_columns_from(values, low, counts)
                for offset, row in enumerate(counts):
                    if row.any():
                        self.rounds.add_counts((seat, 1 + offset, name), low, row)
            for slot, column in zip(SLOT_LETTERS, ROUND_CARD_COLUMNS, strict=True):
                cards = rounds[column].reshape(grid)[:, k, :]
                self.cards.add((seat, slot), cards[cards >= 0])
        self._update_timing(rounds)

    def _update_timing(self, rounds: dict[str, np.ndarray]) -> None:
        """Count, per seat, in which round each seat-game's k-th reshuffle happened.

        Rows come per game, Luna seat and round in order (:meth:`_update_rounds` checks it), so each seat-game's
        rounds are a row of ``reshuffles`` reshaped, and a running sum along it numbers the reshuffles (two in
        one round are the k-th and the (k+1)-th).
        """
        by_seat_game = rounds["reshuffles"].reshape(-1, self.config.rounds)
        before = (np.cumsum(by_seat_game, axis=1) - by_seat_game).ravel()  # earlier in the same seat-game
        reshuffles = rounds["reshuffles"]
        span = int(rounds["round"].max(initial=0)) + 1
        most = int(before.max(initial=0) + reshuffles.max(initial=0)) + 1
        for step in range(1, int(reshuffles.max(initial=0)) + 1):
            mask = reshuffles >= step
            # (seat, k, round) as one integer, so one 1-D unique counts them.
            keys = (rounds["seat"][mask] * most + before[mask] + step) * span + rounds["round"][mask]
            unique, counts = np.unique(keys, return_counts=True)
            for code, count in zip(unique.tolist(), counts.tolist(), strict=True):
                key = (code // span // most, code // span % most, code % span)
                self.timing[key] = self.timing.get(key, 0) + count

    def finish(self, directory: Path) -> None:
        """Write the summary files into ``directory`` (the run's temporary directory)."""
        keys, values, counts = self.seats.rows()
        won = sorted(self.won.items())
        _write_summary(directory, SEAT_SUMMARY_FILE, [
            pa.array([key[0] for key in keys] + [seat for (seat, _), _ in won], pa.int8()),
            pa.array([key[1] for key in keys] + ["won"] * len(won), pa.string()),
            pa.array(np.r_[values.astype(np.float64), [value for (_, value), _ in won]], pa.float64()),
            pa.array(np.r_[counts, [count for _, count in won]].astype(np.int64), pa.int64()),
        ])
        if self.rounds.arrays:
            keys, values, counts = self.rounds.rows()
            _write_summary(directory, ROUND_SUMMARY_FILE, [
                pa.array([key[0] for key in keys], pa.int8()),
                pa.array([key[1] for key in keys], pa.int8()),
                pa.array([key[2] for key in keys], pa.string()),
                pa.array(values, pa.int64()),
                pa.array(counts, pa.int64()),
            ])
            keys, values, counts = self.cards.rows()
            _write_summary(directory, CARD_SUMMARY_FILE, [
                pa.array([key[0] for key in keys], pa.int8()),
                pa.array([key[1] for key in keys], pa.string()),
                pa.array([self.card_ids[value] for value in values.tolist()], pa.string()),
                pa.array(counts, pa.int64()),
            ])
            timing = sorted(self.timing.items())
            _write_summary(directory, TIMING_SUMMARY_FILE, [
                pa.array([key[0] for key, _ in timing], pa.int8()),
                pa.array([key[1] for key, _ in timing], pa.int64()),
                pa.array([key[2] for key, _ in timing], pa.int64()),
                pa.array([count for _, count in timing], pa.int64()),
            ])
        pairs = {WON_STORED if name == "won" else name: np.concatenate(self.pairs[name])
                 for name in self.pair_names}
        # no min/max statistics: the file is always read whole (a duel part's 24.0 -> 20.9 ms, best of 9, at the
        # part's end, when the cores wait for it)
        pq.write_table(pa.table(pairs), directory / PAIRS_FILE, compression="zstd", use_dictionary=False,
                       column_encoding={name: pairs_encoding(name) for name in pairs}, write_statistics=False)


# ----------------------------------------------------------------------------------------------
# Reading a study's summaries back


def seat_labels(seats: Sequence[str]) -> list[dict[str, Any]]:
    """``kind, level, profile, strength`` of each seat of a part, from its ``luna:5`` / ``scripted:x@1.2`` labels."""
    labels = []
    for text in seats:
        kind, _, rest = text.partition(":")
        if kind == LUNA:
            labels.append({"kind": kind, "level": int(rest), "profile": "", "strength": 1.0})
        else:
            profile, _, strength = rest.partition("@")
            labels.append({"kind": kind, "level": -1, "profile": profile, "strength": float(strength or 1.0)})
    return labels


def run_labels(name: str, variant: str, seats: Sequence[str]) -> dict[str, Any]:
    """The run columns :mod:`analysis.load` gives a part's rows (see :data:`analysis.schema.RUN_COLUMNS`)."""
    labels = seat_labels(seats)
    scripted = [profile_label(seat["profile"], seat["strength"]) for seat in labels if seat["kind"] != LUNA]
    lunas = [seat for seat in labels if seat["kind"] == LUNA]
    levels = {seat["level"] for seat in lunas}
    return {"run": name, "variant": variant, "seats": ",".join(seats),
            "opponents": ",".join(sorted([*scripted, *[LUNA] * max(len(lunas) - 1, 0)])),
            "luna_level": levels.pop() if len(levels) == 1 else -1, "n_seats": len(labels)}


@dataclass(frozen=True)
class StudySummary:
    """A finished study's summaries, every part's rows labelled like :func:`analysis.study.load_study`'s frames.

    Attributes
    ----------
    plan
        The study plan.
    root
        The study directory (pair columns are read from it part by part, see :meth:`pairs`).
    parts
        One row per part: the run columns and ``detail`` (whether it has per-round summaries).
    seats
        Value counts of every seat column (``summary_seats.parquet``) with the run columns and the
        seat's ``kind, level, profile``.
    rounds, cards, timing
        The per-round value counts, card plays and reshuffle rounds of the detail parts, labelled alike.
    manifests
        Each part's manifest, keyed by part name, ``config.variant`` set to the part's variant.
    """

    plan: StudyPlan
    root: Path
    parts: pd.DataFrame
    seats: pd.DataFrame
    rounds: pd.DataFrame
    cards: pd.DataFrame
    timing: pd.DataFrame
    manifests: dict[str, dict[str, Any]]

    def pairs(self, part: str, columns: Sequence[str] = PAIRED_TOTALS) -> pd.DataFrame:
        """One part's pair columns (Luna's seats, one row per game and seat; ``won`` as a fraction again).

        Only the columns asked for are read: a part of millions of games is read whole, so its width
        is the report's memory. The file is mapped rather than read into arrow's memory pool, which kept what
        it had read: the default study's report peaked about 30-40 MiB lower (445-455 -> 414-417 MiB, three runs each).
        """
        run = next(item.run for item in self.plan.parts if item.name == part)
        stored = [WON_STORED if column == "won" else column for column in columns]
        path = self.root / run / PAIRS_FILE
        frame = _read_part_file(path, self.plan, self.root, stored, memory_map=True).to_pandas()
        if "seat" in frame.columns:  # Luna's seats of this part, each (the pairing looks their levels up)
            _check_seats(path, self.plan, self.root, frame["seat"], set(self.seat_levels(part)), every=True)
        _check_digest(path, self.plan, self.root)
        if WON_STORED in frame.columns:
            frame = frame.rename(columns={WON_STORED: "won"})
            frame["won"] = frame["won"].to_numpy(dtype=np.float64) / WON_SCALE
        return frame

    def seat_levels(self, part: str) -> dict[int, int]:
        """Luna's level at each Luna seat of a part."""
        seats = next(item.seats for item in self.plan.parts if item.name == part).split(",")
        return {index: seat["level"] for index, seat in enumerate(seat_labels(seats)) if seat["kind"] == LUNA}


def _damaged(path: Path, plan: StudyPlan, root: Path, problem: str) -> StudyError:
    """The one-line error of a stored part file that is not what its part wrote, with the way out: its part counts
    as finished (its manifest is fine), so a rerun alone would keep it."""
    return StudyError(f"{path}: {problem}; remove its part's folder {path.parent} and rerun: "
                      f"{rerun_command(plan, root)}")


def _read_part_file(path: Path, plan: StudyPlan, root: Path, columns: Sequence[str], **options: Any) -> pa.Table:
    """``columns`` of a part's parquet file, or a :class:`StudyError` naming it and its first problem (a file copied
    from elsewhere lacks a column: arrow's own error then dumped the whole schema, about 50 lines)."""
    try:
        names = pq.read_schema(path).names
        missing = [column for column in columns if column not in names]
        if missing:
            raise _damaged(path, plan, root, f"has no column {missing[0]!r}, so it is no file its part wrote")
        return pq.read_table(path, columns=list(columns), **options)
    except (OSError, pa.ArrowException) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise _damaged(path, plan, root, f"cannot be read ({first})") from None


def _check_digest(path: Path, plan: StudyPlan, root: Path) -> None:
    """Refuse a part file that is not byte for byte the one its part's manifest records: one copied from a part of
    the same seats (another level's, another variant's) passes every other check, and its numbers were reported
    as this part's (:func:`analysis.run_manifest.digest_problem`). Checked after the seats, whose message says
    more of a file from a part of other seats."""
    try:
        problem = digest_problem(path.parent, read_json(path.parent / MANIFEST_FILE) or {}, path.name)
    except OSError as error:
        raise _damaged(path, plan, root, f"cannot be read ({error.strerror or error})") from None
    if problem is not None:
        raise _damaged(path, plan, root, problem)


def _check_seats(path: Path, plan: StudyPlan, root: Path, found: pd.Series, wanted: set[int], every: bool) -> None:
    """Refuse a file whose seats are not the part's (``wanted``; with ``every``, each of them): a file copied from
    another part indexed the seat labels out of bounds (an IndexError traceback) or paired games with no seat."""
    seats = set(pd.unique(found).tolist())
    if not seats <= wanted or (every and seats != wanted):
        raise _damaged(path, plan, root, f"holds seats {sorted(seats, key=str)} where its part has {sorted(wanted)} "
                                         "(study.json and the part's manifest), so it belongs to another part")


def _labelled(path: Path, plan: StudyPlan, root: Path, labels: dict[str, Any],
              seats: list[dict[str, Any]]) -> pd.DataFrame:
    frame = _read_part_file(path, plan, root, SUMMARY_COLUMNS[path.name]).to_pandas()
    # every seat has counts; the per-round files and timing only Luna's (a seat may never reshuffle)
    wanted = range(len(seats)) if path.name == SEAT_SUMMARY_FILE else \
        [index for index, seat in enumerate(seats) if seat["kind"] == LUNA]
    _check_seats(path, plan, root, frame["seat"], set(wanted), every=path.name == SEAT_SUMMARY_FILE)
    _check_digest(path, plan, root)
    seat_index = frame["seat"].to_numpy().astype(np.int64)
    columns = {name: value for name, value in labels.items()}
    columns["seat"] = seat_index
    columns["kind"] = np.array([seat["kind"] for seat in seats])[seat_index]
    columns["level"] = np.array([seat["level"] for seat in seats], dtype=np.int64)[seat_index]
    columns["profile"] = np.array([seat["profile"] for seat in seats])[seat_index]
    rest = frame.drop(columns="seat")
    return pd.concat([pd.DataFrame(columns, index=frame.index), rest], axis=1)


def load_summaries(study_dir: str | Path) -> StudySummary:
    """Read every part's summary of a finished study (a few MB, whatever the number of games).

    Raises
    ------
    StudyError
        When a part is not finished, or was summarised by another version (rerun the study).
    """
    root = Path(study_dir)
    plan = read_plan(root)
    missing = [part for part in plan.parts if not part_is_finished(root, plan, part)]
    if missing:
        manifest = read_json(root / missing[0].run / MANIFEST_FILE) or {}
        why, first = "not finished", missing[0].name
        study = manifest.get("study") or {}
        if manifest and isinstance(study, dict) and not study.get("summary"):
            why = "have no summary (written by an earlier version; rerunning the study plays them again)"
        elif manifest and (lost := missing_part_files(root, missing[0])):  # deleted by hand: played again
            why, first = "not finished or missing files", f"{first}, which has no {', '.join(lost)}"
        raise StudyError(f"{root}: {len(missing)} part(s) {why} (first: {first}); rerun: "
                         f"{rerun_command(plan, root)}")
    frames: dict[str, list[pd.DataFrame]] = {"seats": [], "rounds": [], "cards": [], "timing": []}
    files = {"seats": SEAT_SUMMARY_FILE, "rounds": ROUND_SUMMARY_FILE, "cards": CARD_SUMMARY_FILE,
             "timing": TIMING_SUMMARY_FILE}
    parts, manifests = [], {}
    for part in plan.parts:
        manifest = read_json(root / part.run / MANIFEST_FILE) or {}
        manifests[part.name] = {**manifest, "config": {**(manifest.get("config") or {}), "variant": part.variant}}
        seat_texts = part.seats.split(",")
        labels = run_labels(part.name, part.variant, seat_texts)
        seats = seat_labels(seat_texts)
        for name, file in files.items():
            if (root / part.run / file).is_file():
                frames[name].append(_labelled(root / part.run / file, plan, root, labels, seats))
        parts.append({**labels, "detail": (root / part.run / ROUND_SUMMARY_FILE).is_file()})
    tables = {name: pd.concat(found, ignore_index=True) if found else pd.DataFrame()
              for name, found in frames.items()}
    return StudySummary(plan=plan, root=root, parts=pd.DataFrame(parts), manifests=manifests, **tables)
