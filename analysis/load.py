"""Load simulator run directories into tidy pandas frames.

A run directory holds ``seats.parquet`` (one row per game and seat), optionally
``luna_rounds.parquet`` (one row per game, Luna seat and round) and ``manifest.json``. Loading
several directories stacks them into one frame per file type, with columns that tell the runs
apart:

``run``
    the directory name;
``variant``
    ``config.variant`` from the manifest; else, for a run played with ``--overlay FILE``, the variant a study
    would name that file (its name without ``.toml``; ``"base.toml"`` gives ``"base-overlay"``); else
    ``"base"``; with the game settings that are not the defaults after it, ``"base (6 rounds, start bonus
    none, belt board)"``, so that no table pools runs of other rules;
``seats``
    the seat mix, e.g. ``"luna:5"`` or ``"scripted:balanced,luna:5"`` (``config.seats`` joined
    with commas, or rebuilt from the data when the manifest does not list it);
``opponents``
    whom Luna plays against, ignoring levels: the scripted profiles (``"@<strength>"`` appended
    when the strength is not 1) plus one ``"luna"`` per further Luna seat, sorted and
    comma-joined; ``""`` when Luna plays alone. So ``"scripted:shares,luna:5"`` gives
    ``"shares"`` and ``"luna:4,luna:5"`` gives ``"luna"``, and solo games never mix with duels;
``luna_level``
    the level of the game's Luna seats, -1 when the game has no Luna or Lunas of mixed levels
    (lets scripted seats be grouped by the level they played against);
``n_seats``
    seats per game (win rates are only meaningful with at least two).

A run directory is produced from one configuration, so these columns are derived once per run
(from the manifest and the lowest-numbered game) rather than per game, which keeps loading
millions of rows cheap.

Text columns (``kind``, ``profile``, the card columns and the run columns above) are pandas
categoricals whose categories are sorted, so that grouping and sorting order them as the text would:
a run repeats a handful of values over millions of rows, and a category costs a byte a row where a
string costs an object. Each file is read one column at a time, so that loading needs little more
memory than the frame it makes (reading a whole file at once held the decoded table and the frame
together: 1.2 million seat rows peaked at 812 MiB, read a column at a time at 495 MiB).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from analysis.load_memory import check_fits, is_text
from analysis.run_manifest import ManifestError, check_agreement, check_digests
from analysis.schema import (
    BASE_VARIANT,
    CARD_COLUMNS,
    CATEGORY_SCORES,
    LUNA,
    MANIFEST_FILE,
    ROUNDS_FILE,
    ROUNDS_REQUIRED,
    RUN_COLUMNS,
    RUN_TEXT_COLUMNS,
    SCORE_TOTAL,
    SCRIPTED,
    SEATS_FILE,
    SEATS_REQUIRED,
)
from analysis.study.plan import variant_name
from sim.config import DEFAULT_START_BONUS, profile_label
from sim.constants import DEFAULT_BOARD, ROUNDS

PathLike = str | Path


@dataclass(frozen=True)
class RunData:
    """The stacked contents of one or more run directories.

    Attributes
    ----------
    seats
        One row per run, game and seat: the columns of ``seats.parquet`` plus the run columns.
    rounds
        One row per run, game, Luna seat and round: the columns of ``luna_rounds.parquet`` plus
        the run columns and the seat's ``level``. Empty (with all columns) when no run wrote it.
    manifests
        The parsed ``manifest.json`` of each run, keyed by run name (``{}`` when absent).
    """

    seats: pd.DataFrame
    rounds: pd.DataFrame
    manifests: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def luna(self) -> pd.DataFrame:
        """Luna's seats only."""
        return luna_seats(self.seats)

    @property
    def runs(self) -> list[str]:
        """Run names in load order."""
        return list(dict.fromkeys(self.seats["run"]))


def luna_seats(seats: pd.DataFrame) -> pd.DataFrame:
    """Return the rows of ``seats`` that belong to a Luna seat.

    Parameters
    ----------
    seats
        A seats frame as returned by :func:`load_runs`.

    Returns
    -------
    pandas.DataFrame
        The Luna rows, index preserved.
    """
    return seats[seats["kind"] == LUNA]


def read_manifest(run_dir: PathLike) -> dict[str, Any]:
    """Read ``manifest.json`` of a run directory.

    Parameters
    ----------
    run_dir
        The run directory.

    Returns
    -------
    dict
        The parsed manifest, or ``{}`` when the directory has none (:func:`load_run` says whether a run may
        lack one).

    Raises
    ------
    ValueError
        If the manifest exists but is not a JSON object.
    """
    path = Path(run_dir) / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # ValueError: broken JSON, or bytes that are not UTF-8
        raise ValueError(f"{path}: cannot read manifest: {error}") from error
    except RecursionError:
        raise ValueError(f"{path}: cannot read manifest: its JSON is nested too deeply") from None
    if not isinstance(manifest, dict):
        raise ValueError(f"{path}: manifest must be a JSON object, got {type(manifest).__name__}")
    if not isinstance(manifest.get("config", {}), dict):
        raise ValueError(f"{path}: config must be a JSON object, got {type(manifest['config']).__name__}")
    return manifest


def _sorted_categories(column: pd.Series) -> pd.Series:
    """``column`` (a categorical) with its categories in sorted order: groups and sorts come out as for text."""
    categories = column.cat.categories
    ordered = categories.sort_values()
    return column if categories.equals(ordered) else column.cat.reorder_categories(ordered)


def narrowest(values: Any) -> Any:
    """``values`` (a column or array) in the smallest integer type that holds them, when they are integers.

    The simulator writes counts as 32- or 64-bit integers, yet scores, levels and counters fit in one or two bytes.
    pandas and numpy compute sums, means and spreads in int64 or float64 whatever the input width, so the
    standard tables come out the same on narrowed frames (``tests/analysis/test_compact_load.py``, and the study's
    frame-based tables in ``tests/test_study_summaries.py``); arithmetic of one's own on them can overflow,
    which is why :func:`load_runs` narrows only when asked.
    """
    return pd.to_numeric(values, downcast="integer") if pd.api.types.is_integer_dtype(values.dtype) else values


def _read_parquet(path: Path, required: Sequence[str], compact: bool = False) -> pd.DataFrame:
    """The file as a frame, one column at a time, text columns as categoricals (module docstring); with ``compact``,
    integer columns :func:`narrowest`, each as it is read (a whole frame narrowed afterwards first held every column
    at full width, and arrow's memory pool kept that memory once it was let go)."""
    try:
        schema = pq.read_schema(path)
        text = [field.name for field in schema if is_text(field)]  # a dictionary's categories: the writer's order
        source = pq.ParquetFile(path, read_dictionary=text)
        columns: dict[str, pd.Series] = {}
        for name in schema.names:
            column = source.read(columns=[name]).column(0).to_pandas()
            columns[name] = _sorted_categories(column) if name in text else narrowest(column) if compact else column
    except Exception as error:  # pyarrow raises several unrelated types for a bad file
        raise ValueError(f"{path}: cannot read parquet file: {error}") from error
    frame = pd.DataFrame(columns, copy=False)
    missing = [column for column in required if column not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s): {', '.join(missing)}")
    if frame.empty:
        raise ValueError(f"{path}: file has no rows")
    return frame


def _check_seats(frame: pd.DataFrame, path: Path) -> None:
    """Reject seat data that would make every downstream table silently wrong."""
    unknown_kinds = sorted(set(frame["kind"].unique()) - {LUNA, SCRIPTED})
    if unknown_kinds:
        raise ValueError(f"{path}: column kind has unknown value(s): {unknown_kinds}")
    if frame.duplicated(["game", "seat"]).any():
        raise ValueError(f"{path}: duplicate (game, seat) rows")
    category_sum = frame[list(CATEGORY_SCORES)].sum(axis=1)
    bad_totals = int((category_sum != frame[SCORE_TOTAL]).sum())
    if bad_totals:
        raise ValueError(f"{path}: {SCORE_TOTAL} differs from the sum of the {len(CATEGORY_SCORES)} categories in "
                         f"{bad_totals} row(s)")
    won_per_game = frame.groupby("game")["won"].sum()
    bad_games = won_per_game.index[~np.isclose(won_per_game.to_numpy(), 1.0)]
    if len(bad_games):
        raise ValueError(
            f"{path}: column won must sum to 1 per game; it does not in {len(bad_games)} game(s),"
            f" e.g. game {bad_games[0]}"
        )


def _seat_label(row: pd.Series) -> str:
    if row["kind"] == LUNA:
        return f"{LUNA}:{int(row['level'])}"
    return f"{SCRIPTED}:{row['profile']}"


def _opponent_label(row: pd.Series) -> str:
    return profile_label(row["profile"], float(row["strength"]))


def _variant(config: dict[str, Any]) -> str:
    """A run's variant (module docstring): an overlay run must never pool with the base runs it differs from, nor
    a run of other game settings (``--rounds``, ``--start-bonus``, ``--board``) with the runs of the defaults."""
    if config.get("variant"):
        return str(config["variant"])
    overlay = config.get("overlay")
    if not overlay:
        name = BASE_VARIANT
    else:
        name = variant_name(str(overlay))
        name = f"{name}-overlay" if name == BASE_VARIANT else name
    settings = _setting_words(config)
    return f"{name} ({', '.join(settings)})" if settings else name


def _setting_words(config: dict[str, Any]) -> list[str]:
    """The game settings a run was played with that are not the defaults, in words: ``6 rounds``, ``no start
    bonus``, ``belt board``."""
    words = []
    if int(config.get("rounds", ROUNDS)) != ROUNDS:
        words.append(f"{int(config['rounds'])} rounds")
    if config.get("start_bonus", DEFAULT_START_BONUS) != DEFAULT_START_BONUS:
        words.append(f"start bonus {config['start_bonus']}")
    if config.get("board", DEFAULT_BOARD) != DEFAULT_BOARD:
        words.append(f"{config['board']} board")
    return words


def _run_labels(name: str, seats: pd.DataFrame, manifest: dict[str, Any]) -> dict[str, Any]:
    config = manifest.get("config") or {}
    first_game = seats[seats["game"] == seats["game"].min()].sort_values("seat")
    configured_seats = config.get("seats")
    if isinstance(configured_seats, list) and configured_seats:
        seat_mix = ",".join(str(seat) for seat in configured_seats)
    else:
        seat_mix = ",".join(_seat_label(row) for _, row in first_game.iterrows())
    scripted = first_game[first_game["kind"] == SCRIPTED]
    other_lunas = max(int((first_game["kind"] == LUNA).sum()) - 1, 0)
    opponents = ",".join(sorted([*(_opponent_label(row) for _, row in scripted.iterrows()), *[LUNA] * other_lunas]))
    luna_levels = set(first_game.loc[first_game["kind"] == LUNA, "level"].astype(int))
    return {
        "run": name,
        "variant": _variant(config),
        "seats": seat_mix,
        "opponents": opponents,
        "luna_level": luna_levels.pop() if len(luna_levels) == 1 else -1,
        "n_seats": len(first_game),
    }


def constant_text(value: str, rows: int) -> pd.Categorical:
    """``value`` on each of ``rows`` rows, as the loader keeps a run's labels: a one-category categorical."""
    return pd.Categorical.from_codes(np.zeros(rows, np.int8), categories=[value])


def _with_labels(frame: pd.DataFrame, labels: dict[str, Any], compact: bool = False) -> pd.DataFrame:
    rows = len(frame)
    columns: dict[str, Any] = {}
    for name in RUN_COLUMNS:  # one value a run: text as a one-category categorical (module docstring)
        value = labels[name]
        number = np.full(rows, value, np.int64) if not isinstance(value, str) else None
        columns[name] = constant_text(value, rows) if number is None else narrowest(number) if compact else number
    labelled = pd.DataFrame(columns, index=frame.index)
    return pd.concat([labelled, frame.drop(columns=list(RUN_COLUMNS), errors="ignore")], axis=1)


def _in_order(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """``frame`` sorted by ``keys`` with a fresh index; a file written in that order (as ``simulate`` writes it)
    is kept as it is rather than copied."""
    pairs = max(len(frame) - 1, 0)  # each row with the next
    later, tied = np.zeros(pairs, bool), np.ones(pairs, bool)  # row i+1 sorts after row i; equal so far
    for column in (frame[key].to_numpy() for key in keys):
        later |= tied & (column[1:] > column[:-1])
        tied &= column[1:] == column[:-1]
    if later.all():
        return frame.reset_index(drop=True)
    return frame.sort_values(list(keys), ignore_index=True)


def stacked(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``frames`` one below the other; a categorical column stays one, on the sorted union of the categories
    (``pd.concat`` turns categoricals of different categories into text)."""
    frames = list(frames)
    for name in frames[0].columns:
        dtypes = [frame[name].dtype for frame in frames if name in frame.columns]
        if all(isinstance(dtype, pd.CategoricalDtype) for dtype in dtypes):
            union = pd.Index(sorted(set().union(*(dtype.categories for dtype in dtypes))))
            frames = [frame.assign(**{name: frame[name].cat.set_categories(union)}) if name in frame.columns
                      else frame for frame in frames]
    return pd.concat(frames, ignore_index=True)


def _empty_rounds() -> pd.DataFrame:
    columns: dict[str, pd.Series] = {}
    for column in (*RUN_COLUMNS, *ROUNDS_REQUIRED, "level"):
        text = column in CARD_COLUMNS or column in RUN_TEXT_COLUMNS
        columns[column] = pd.Series(dtype=pd.CategoricalDtype(pd.Index([], dtype="str")) if text else "int64")
    return pd.DataFrame(columns)


def load_run(run_dir: PathLike, require_manifest: bool = False, compact: bool = False) -> RunData:
    """Load one run directory.

    Parameters
    ----------
    run_dir
        Directory written by the simulator.
    require_manifest
        Refuse a directory without ``manifest.json`` (a report: without it, a copy of a run is not known for
        one, and its games would count twice); else its labels are rebuilt from the data.
    compact
        Integer columns in the smallest integer type that holds each (:func:`narrowest`): a third of the memory,
        for a report's standard tables; arithmetic of one's own on them can overflow.

    Returns
    -------
    RunData
        Seats and (possibly empty) per-round frames with the run columns added.

    Raises
    ------
    ValueError
        Naming the offending file, when the directory or ``seats.parquet`` is missing, a required
        column is absent, a file is unreadable or empty, or the seat data is inconsistent
        (unknown ``kind``, totals not summing, ``won`` not summing to 1 per game), or a manifest that is not
        one the simulator writes or does not describe the files beside it (:mod:`analysis.run_manifest`).
    """
    directory = Path(run_dir)
    if not directory.is_dir():
        raise ValueError(f"{directory}: run directory does not exist")
    name = directory.resolve().name
    seats_path = directory / SEATS_FILE
    if not seats_path.is_file():
        if (read_manifest(directory).get("config") or {}).get("aggregate_only"):
            raise ValueError(f"{directory}: an --aggregate-only run keeps no per-game rows ({SEATS_FILE}); its "
                             "summary is aggregate.parquet and histograms.parquet (play it again without "
                             "--aggregate-only to report on it)")
        raise ValueError(f"{seats_path}: file not found (every run directory needs {SEATS_FILE})")
    seats = _read_parquet(seats_path, SEATS_REQUIRED, compact)
    _check_seats(seats, seats_path)
    manifest = read_manifest(directory)
    if (directory / MANIFEST_FILE).is_file():  # a manifest of {} too: what it says of the files is checked
        check_agreement(directory, manifest.get("config") or {}, seats)
        check_digests(directory, manifest, (SEATS_FILE, ROUNDS_FILE))  # after: its message says less of a file
    elif require_manifest:
        raise ManifestError(f"{directory / MANIFEST_FILE}: file not found (every run directory simulate writes has "
                            "one; without it a copy of a run is not known for one, and its games would count twice)")
    labels = _run_labels(name, seats, manifest)
    seats = _with_labels(_in_order(seats, ["game", "seat"]), labels, compact)

    rounds_path = directory / ROUNDS_FILE
    if rounds_path.is_file():
        rounds = _read_parquet(rounds_path, ROUNDS_REQUIRED, compact).drop(columns="level", errors="ignore")
        levels = seats.loc[seats["kind"] == LUNA, ["game", "seat", "level"]]
        # the keys alone merged (a left merge keeps their order): a merge of the whole frame copies every column
        rounds["level"] = rounds[["game", "seat"]].merge(levels, on=["game", "seat"], how="left",
                                                         validate="many_to_one")["level"].to_numpy()
        orphans = int(rounds["level"].isna().sum())
        if orphans:
            raise ValueError(f"{rounds_path}: {orphans} row(s) have no matching Luna seat in {SEATS_FILE}")
        level = rounds["level"].astype("int64")
        rounds["level"] = narrowest(level) if compact else level
        rounds = _with_labels(_in_order(rounds, ["game", "seat", "round"]), labels, compact)
    else:
        rounds = _empty_rounds()
    return RunData(seats=seats, rounds=rounds, manifests={name: manifest})


def _games_played(manifest: dict[str, Any], seat_mix: str | None) -> tuple[str, ...] | None:
    """What decides a run's games (each game's randomness comes from the run seed and its number): two runs with
    the same key share every game number both played. None when the manifest does not record the seed, or lists no
    seats (``seat_mix``: :func:`_manifest_seat_mix`; the loader refuses such a manifest)."""
    config = manifest.get("config") or {}
    if "seed" not in config or seat_mix is None:
        return None
    return (str(config["seed"]), seat_mix, _variant(config), str((manifest.get("data") or {}).get("digest", "")))


def _manifest_seat_mix(directory: Path) -> tuple[dict[str, Any], str | None]:
    """A run's manifest and the seat mix it lists (the loader's ``seats`` label), without reading its rows; an
    unreadable manifest gives ``{}`` (:func:`load_run` then says what is wrong with it, in the runs' order)."""
    try:
        manifest = read_manifest(directory)
    except ValueError:
        return {}, None
    seats = (manifest.get("config") or {}).get("seats")
    return manifest, ",".join(str(seat) for seat in seats) if isinstance(seats, list) and seats else None


def _refuse_repeats(runs: Sequence[tuple[Path, str, tuple[str, ...] | None]]) -> None:
    """Refuse two runs (directory, name, :func:`_games_played` key) of one name, or of the same games."""
    names: set[str] = set()
    played: dict[tuple[str, ...], Path] = {}
    for directory, name, games in runs:
        if name in names:
            raise ValueError(f"{directory}: run name {name!r} is used by two directories")
        names.add(name)
        if games is not None and games in played:
            raise ValueError(f"{directory}: played the same games as {played[games]} (the same seats, seed, "
                             "settings and data); pooling the two would count those games twice")
        if games is not None:
            played[games] = directory


def load_runs(run_dirs: PathLike | Iterable[PathLike], require_manifest: bool = False,
              compact: bool = False) -> RunData:
    """Load and stack several run directories.

    Parameters
    ----------
    run_dirs
        One directory or an iterable of directories. Their names must differ, since the name is
        the ``run`` key.
    require_manifest
        Refuse a directory without ``manifest.json`` (see :func:`load_run`).
    compact
        Integer columns narrowed (see :func:`load_run`); ``runs-report`` loads so.

    Returns
    -------
    RunData
        The stacked frames. Optional columns (e.g. the scripted interaction counters) that only
        some runs carry are NaN for the others.

    Raises
    ------
    ValueError
        As :func:`load_run`, or when no directory is given or two share a name.
    """
    directories = [run_dirs] if isinstance(run_dirs, (str, Path)) else list(run_dirs)
    if not directories:
        raise ValueError("load_runs: no run directory given")
    paths = [Path(directory) for directory in directories]
    check_fits(paths, compact)  # told in one line, not found out by swapping
    # before a row is read, from the manifests: two copies of a 2,000,000-game run were read whole, then refused (a
    # manifest load_run accepts lists the seats, so they decide; a run without one has no seed, so no games to repeat)
    _refuse_repeats([(path, path.resolve().name, _games_played(*_manifest_seat_mix(path))) for path in paths])
    loaded = [load_run(directory, require_manifest, compact) for directory in directories]
    manifests: dict[str, dict[str, Any]] = {}
    for data in loaded:
        manifests.update(data.manifests)
    if len(loaded) == 1:
        return loaded[0]
    seats = stacked([data.seats for data in loaded])
    with_rounds = [data.rounds for data in loaded if not data.rounds.empty]
    rounds = stacked(with_rounds) if with_rounds else _empty_rounds()
    return RunData(seats=seats, rounds=rounds, manifests=manifests)
