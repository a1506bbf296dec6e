"""Small pandas helpers shared by the table modules (not part of the public API)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd
from pandas.api.typing import DataFrameGroupBy

from analysis.schema import LUNA, SCRIPTED

#: Placeholder group key used when a caller asks for no grouping at all.
_ALL = "_all"


def as_keys(by: str | Iterable[str] | None) -> list[str]:
    """Normalise a ``by`` argument (one name, several names or None) to a list."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if not isinstance(by, Iterable):  # by=5: "'int' object is not iterable"
        raise ValueError(f"by: must be a column name, a list of them or None, got {by!r}")
    return list(by)


def group_keys(frame: pd.DataFrame, by: str | Iterable[str] | None, kind: str | None = None,
               rows: pd.Series | None = None) -> list[str]:
    """``by`` as a list of keys (:func:`as_keys`), refused when grouping would pool variants.

    ``kind`` and the boolean ``rows`` narrow the check to the rows the caller groups (a table of Luna's seats
    may pool a frame whose variant has only scripted seats...).

    Raises
    ------
    ValueError
        When the grouped rows hold more than one variant and ``variant`` is not a key: a variant plays other
        rules, so a group pooling it with the base would average two games into numbers neither has.
    """
    keys = as_keys(by)
    require_columns(frame, [], "seats")  # a frame at all
    if "variant" not in frame.columns or "variant" in keys:
        return keys
    variants = frame["variant"]
    if rows is not None:
        variants = variants[rows]
    if kind is not None and "kind" in frame.columns:
        variants = variants[frame.loc[variants.index, "kind"] == kind]
    if variants.nunique() > 1:
        names = ", ".join(sorted(str(name) for name in variants.unique()))
        raise ValueError(f"the rows hold {variants.nunique()} variants ({names}): add 'variant' to the group keys "
                         "(by=...), or keep one variant first (seats[seats['variant'] == 'base'])")
    return keys


def require_columns(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raise a ValueError listing the columns of ``columns`` missing from ``frame`` (or saying it is no frame)."""
    if not isinstance(frame, pd.DataFrame):  # a RunData failed as "'RunData' object has no attribute 'columns'"
        hint = " (its seats are .seats)" if hasattr(frame, "seats") else ""
        raise ValueError(f"{what}: expected a DataFrame, got {type(frame).__name__}{hint}")
    missing = [column for column in dict.fromkeys(columns) if column not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s): {', '.join(missing)}")


def select_kind(seats: pd.DataFrame, kind: str | None) -> pd.DataFrame:
    """Rows of one seat kind (``"luna"``/``"scripted"``), or all rows when ``kind`` is None."""
    if kind is None:
        return seats
    if kind not in (LUNA, SCRIPTED):  # a typo ("Luna") would select no rows and every table come out empty
        raise ValueError(f"kind: must be {LUNA!r}, {SCRIPTED!r} or None, got {kind!r}")
    require_columns(seats, ["kind"], "seats")
    return seats[seats["kind"] == kind]


def kind_columns(seats: pd.DataFrame, kind: str | None, columns: Iterable[str]) -> pd.DataFrame:
    """:func:`select_kind` of only ``columns`` (those ``seats`` has): the rows of one kind are a copy, and a
    copy of every column of 1.2 million seats is 120 MiB where a table reads a few."""
    wanted = [column for column in dict.fromkeys([*columns, "kind"]) if column in seats.columns]
    return select_kind(seats[wanted], kind)


def game_keys(frame: pd.DataFrame) -> list[str]:
    """Columns identifying one game: game numbers restart in every run."""
    return ["run", "game"] if "run" in frame.columns else ["game"]


def seats_per_game(seats: pd.DataFrame) -> pd.Series:
    """Number of seats in each row's game (the loader's ``n_seats`` when present)."""
    if "n_seats" in seats.columns:
        return seats["n_seats"]
    # Counted from the rows (a frame of play()): only sound when they hold every seat of each game once; else
    # two solo runs concatenated read as two-seat games and Luna's rows alone as solo games.
    keys = game_keys(seats)
    repeated = seats.duplicated([*keys, "seat"])
    if repeated.any():
        row = seats[repeated].iloc[0]
        raise ValueError(f"seats: game {row['game']} has seat {row['seat']} twice: the rows of several runs need the "
                         "'run' column load_runs gives (e.g. pd.concat(frames, keys=names, names=['run'])"
                         ".reset_index('run'))")
    by_game = seats.groupby(keys, observed=True)["seat"]
    count, last = by_game.transform("size"), by_game.transform("max")
    partial = count != last + 1
    if partial.any():
        game = seats[partial].iloc[0]["game"]
        present = sorted(seats.loc[partial & (seats["game"] == game), "seat"].tolist())
        raise ValueError(f"seats: game {game} has seats {present} of 0-{last[partial].iloc[0]}: win rates need every "
                         "seat of a game (or an 'n_seats' column, as load_runs gives) to tell a contest from a "
                         "solo game")
    return count


def grouped(frame: pd.DataFrame, keys: Sequence[str]) -> tuple[DataFrameGroupBy, list[str]]:
    """Group by ``keys``; with no keys, one group holding every row under a placeholder key."""
    if keys:
        return frame.groupby(list(keys), sort=True, dropna=False, observed=True), list(keys)
    return frame.assign(**{_ALL: 0}).groupby(_ALL, observed=True), [_ALL]


def finish(table: pd.DataFrame) -> pd.DataFrame:
    """Flatten the group index into columns and drop the placeholder key."""
    table = table.reset_index()
    if _ALL in table.columns:
        table = table.drop(columns=_ALL)
    return table


def luna_only(seats: pd.DataFrame) -> pd.DataFrame:
    """Luna's rows of a seats frame."""
    return select_kind(seats, LUNA)


_PANDAS_MAJOR = int(pd.__version__.split(".")[0])


def stack(frame: pd.DataFrame) -> pd.Series:
    """``frame.stack()`` keeping NaN cells, on pandas 2 (opt-in there) and 3 (the default)."""
    if _PANDAS_MAJOR >= 3:
        return frame.stack()
    return frame.stack(future_stack=True)


def label_key(value: Any) -> tuple[Any, ...]:
    """Sort key of a series or group value: numbers as they are; a seats label (``balanced@0.8``,
    ``balanced,tank@1.2``) by each seat's profile, then its strength as a number (a seat without ``@`` plays at
    strength 1). Text order put ``balanced`` (1) before ``balanced@0.8``, and ``balanced@10`` before ``balanced@2``
    (a QA pass of the report)."""
    if not isinstance(value, str):
        return (0, value)
    seats = []
    for seat in value.split(","):
        name, at, strength = seat.partition("@")
        try:
            number = float(strength) if at else 1.0
        except ValueError:  # not a strength: after the numbers, as text
            number = float("inf")
        seats.append((name, number, strength))
    return (1, tuple(seats))


def labels_in_order(values: Iterable[Any]) -> list[Any]:
    """The distinct ``values`` (a column, group keys), each once, in :func:`label_key` order: the one order of series,
    legends, columns and rows the reports give their labels in."""
    return sorted(dict.fromkeys(values), key=label_key)


def in_label_order(table: pd.DataFrame, column: str = "opponents") -> pd.DataFrame:
    """``table`` with its rows of each ``column`` label in :func:`label_key` order, within each run of equal values
    of the columns before it (kept in the order they come); rows of one label keep their order."""
    if column not in table.columns or len(table) < 2:
        return table
    before = list(table.columns[:list(table.columns).index(column)])
    keys = {f"_before{i}": pd.factorize(table[name])[0] for i, name in enumerate(before)}
    ranks = {value: rank for rank, value in enumerate(labels_in_order(table[column]))}
    ordered = table.assign(**keys, _label_rank=table[column].map(ranks).to_numpy())
    # a fresh 0..n-1 index for a table that had one (a notebook may read the tables by position)
    fresh = isinstance(table.index, pd.RangeIndex)
    return ordered.sort_values([*keys, "_label_rank"], kind="stable", ignore_index=fresh).drop(
        columns=[*keys, "_label_rank"])
