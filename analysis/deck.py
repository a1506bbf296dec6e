"""Deck-cycle, majority and blocking tables from Luna's per-round records.

Most functions take the ``rounds`` frame of :class:`analysis.load.RunData` (one row per game,
Luna seat and round, with the seat's ``level`` attached); :func:`reshuffle_distribution` and
:func:`slot_first_use` only need the per-game seats frame. A "seat-game" below is one Luna seat in
one game: with several Lunas in a game each counts separately, because each has her own deck.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pandas as pd

from analysis._frames import finish, game_keys, group_keys, grouped, luna_only, require_columns, stack
from analysis.schema import (
    CARD_COLUMNS,
    COUNTER_COLUMNS,
    FIRST_ROUND_COLUMNS,
    LUNA,
    MAJORITY_COLUMNS,
    MAJORITY_TYPES,
    SLOTS,
)
from analysis.stats import score_summary
from sim.config import is_whole_number
from sim.constants import ROUNDS

_ROMAN = {"I": 1, "II": 2, "III": 3}
#: Rounds in a standard game; tables cover at least these so games that never reach a round
#: (the Singularity threat ends after round 6) still show it.
STANDARD_ROUNDS = ROUNDS


def card_sort_key(card: str) -> tuple[int, int, str]:
    """Order card ids by grade, then number: ``I-2 < I-10 < II-1``.

    Parameters
    ----------
    card
        Card id such as ``"I-3"`` or ``"II-5"``; other ids sort last, alphabetically.

    Returns
    -------
    tuple
        A sort key.
    """
    match = re.fullmatch(r"([IV]+)-(\d+)", card)
    if match is None:
        return (len(_ROMAN) + 1, 0, card)
    return (_ROMAN.get(match.group(1), len(_ROMAN)), int(match.group(2)), card)


def _seat_game_keys(rounds: pd.DataFrame) -> list[str]:
    return [*game_keys(rounds), "seat"]


def _distribution(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """Count and share of each value of ``column`` within each group of ``keys``."""
    counts = frame.groupby([*keys, column], sort=True, observed=True).size().rename("count").reset_index()
    if keys:
        totals = counts.groupby(keys, sort=False, observed=True)["count"].transform("sum")
    else:
        totals = counts["count"].sum()
    counts["share"] = counts["count"] / totals
    return counts


def reshuffle_distribution(seats: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """How many times Luna's deck is reshuffled per game.

    Parameters
    ----------
    seats
        Seats frame (Luna's ``reshuffles`` counter is used).
    by
        Group keys.

    Returns
    -------
    pandas.DataFrame
        The keys, ``reshuffles``, ``games`` (seat-games with that count) and ``share`` of the
        group's seat-games.
    """
    keys = group_keys(seats, by, LUNA)
    data = luna_only(seats)
    require_columns(data, [*keys, "reshuffles"], "reshuffle_distribution")
    return _distribution(data, keys, "reshuffles").rename(columns={"count": "games"})


def reshuffles_by_round(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """Reshuffles of Luna's deck in each round.

    Parameters
    ----------
    rounds
        Per-round frame.
    by
        Group keys (``round`` is always added).

    Returns
    -------
    pandas.DataFrame
        The keys, ``round``, ``games`` (seat-games that played the round), ``mean_reshuffles``
        (per seat-game) and ``share_reshuffled`` (seat-games with at least one reshuffle in the
        round).
    """
    keys = group_keys(rounds, by)
    require_columns(rounds, [*keys, "round", "reshuffles"], "reshuffles_by_round")
    table = (
        rounds.assign(_reshuffled=rounds["reshuffles"] > 0)
        .groupby([*keys, "round"], sort=True, observed=True)
        .agg(
            games=("reshuffles", "size"),
            mean_reshuffles=("reshuffles", "mean"),
            share_reshuffled=("_reshuffled", "mean"),
        )
    )
    return table.reset_index()


def reshuffle_timing(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """Round in which each reshuffle happens: the 1st, the 2nd, ...

    Parameters
    ----------
    rounds
        Per-round frame.
    by
        Group keys.

    Returns
    -------
    pandas.DataFrame
        The keys, ``reshuffle`` (1 for a seat-game's first reshuffle, 2 for its second...),
        ``round``, ``count`` (seat-games whose k-th reshuffle fell in that round) and ``share``
        (of the seat-games that had a k-th reshuffle).
    """
    keys = group_keys(rounds, by)
    identity = _seat_game_keys(rounds)
    require_columns(rounds, [*keys, *identity, "round", "reshuffles"], "reshuffle_timing")
    reshuffled = rounds.loc[rounds["reshuffles"] > 0, [*dict.fromkeys([*keys, *identity, "round", "reshuffles"])]]
    reshuffled = reshuffled.sort_values([*identity, "round"])
    # One row per reshuffle, so a round with two reshuffles holds both the k-th and the (k+1)-th.
    events = reshuffled.loc[reshuffled.index.repeat(reshuffled["reshuffles"])]
    events = events.assign(reshuffle=events.groupby(identity, observed=True).cumcount() + 1)
    if events.empty:
        return pd.DataFrame(columns=[*keys, "reshuffle", "round", "count", "share"])
    return _distribution(events, [*keys, "reshuffle"], "round")


def grade2_by_round(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """Grade-2 cards added to Luna's deck per round, by cause.

    Parameters
    ----------
    rounds
        Per-round frame.
    by
        Group keys.

    Returns
    -------
    pandas.DataFrame
        The keys, ``round``, ``games``, the per-seat-game means ``grade2_entered``,
        ``grade2_by_reshuffle``, ``grade2_by_token`` and ``cumulative_entered`` (mean grade-2
        cards in the deck after the round).
    """
    keys = group_keys(rounds, by)
    causes = ["grade2_entered", "grade2_by_reshuffle", "grade2_by_token"]
    require_columns(rounds, [*keys, "round", *causes], "grade2_by_round")
    grouping = rounds.groupby([*keys, "round"], sort=True, observed=True)
    table = grouping[causes].mean()
    table.insert(0, "games", grouping.size())
    table = table.reset_index()
    if keys:
        table["cumulative_entered"] = table.groupby(keys, sort=False, observed=True)["grade2_entered"].cumsum()
    else:
        table["cumulative_entered"] = table["grade2_entered"].cumsum()
    return table


def slot_first_use(seats: pd.DataFrame, by: str | Iterable[str] | None = ("level",),
                   rounds: int = STANDARD_ROUNDS) -> pd.DataFrame:
    """Round in which Luna first uses slots A and E.

    Parameters
    ----------
    seats
        Seats frame (``slot_a_first_round`` and ``slot_e_first_round`` of Luna's seats).
    by
        Group keys.
    rounds
        The rounds the games lasted (6 with the threat card *Singularity*): the rows run to that round.

    Returns
    -------
    pandas.DataFrame
        The keys, ``slot`` (``"A"``/``"E"``), ``first_round`` (0 = never, then every round 1 to ``rounds``
        even when no game starts using the slot there), ``games``, ``share`` and
        ``cumulative_share`` (share of seat-games with the slot in use by that round; NaN for
        the "never" row).
    """
    keys = group_keys(seats, by, LUNA)
    columns = FIRST_ROUND_COLUMNS
    data = luna_only(seats)
    require_columns(data, [*keys, *columns.values()], "slot_first_use")
    if data.empty:  # a filter that kept nothing: no rows, as the other tables give
        return pd.DataFrame(columns=[*keys, "slot", "first_round", "games", "share", "cumulative_share"])
    last_round = max(rounds, *(int(data[column].max()) for column in columns.values()))
    tables = []
    for slot, column in columns.items():
        grouping, group_names = grouped(data, keys)
        wide = grouping[column].value_counts().unstack(column, fill_value=0)
        wide = wide.reindex(columns=range(last_round + 1), fill_value=0)
        shares = wide.div(wide.sum(axis=1), axis=0)
        # "In use by round r" only accumulates real rounds; never-used games stay out of it.
        cumulative = shares.loc[:, 1:].cumsum(axis=1).reindex(columns=wide.columns)
        long = pd.concat(
            {
                "games": stack(wide),
                "share": stack(shares),
                "cumulative_share": stack(cumulative),
            },
            axis=1,
        )
        long.index = long.index.set_names([*group_names, "first_round"])
        long = finish(long)
        long.insert(len(keys), "slot", slot)
        tables.append(long)
    table = pd.concat(tables, ignore_index=True)
    table["games"] = table["games"].astype("int64")
    return table


def card_play_counts(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """How often each card is played, and from which slot.

    Parameters
    ----------
    rounds
        Per-round frame; an empty card id means the slot was off or empty.
    by
        Group keys.

    Returns
    -------
    pandas.DataFrame
        The keys, ``card``, ``slot``, ``plays``, ``plays_per_game`` (per seat-game of the group)
        and ``slot_share`` (fraction of the card's plays made from this slot), ordered by card
        grade and number.
    """
    keys = group_keys(rounds, by)
    identity = _seat_game_keys(rounds)
    require_columns(rounds, [*keys, *identity, *CARD_COLUMNS], "card_play_counts")
    parts = []
    for slot, column in zip(SLOTS, CARD_COLUMNS, strict=True):
        played = rounds[rounds[column] != ""]
        counts = played.groupby([*keys, column], sort=False, observed=True).size().rename("plays").reset_index()
        parts.append(counts.rename(columns={column: "card"}).assign(slot=slot))
    # text, as the card ids were before the loader made them categoricals: the five slots' columns stack into one
    # categorical when their categories agree (pandas 2 then fails to map them to sort keys), into text when not
    table = pd.concat(parts, ignore_index=True).astype({"card": str})
    seat_games = rounds.drop_duplicates([*keys, *identity])
    if keys:
        games = seat_games.groupby(keys, observed=True).size().rename("games").reset_index()
        table = table.merge(games, on=keys)
        card_totals = table.groupby([*keys, "card"], sort=False, observed=True)["plays"].transform("sum")
    else:
        table["games"] = len(seat_games)
        card_totals = table.groupby("card", sort=False, observed=True)["plays"].transform("sum")
    table["plays_per_game"] = table["plays"] / table["games"]
    table["slot_share"] = table["plays"] / card_totals
    order = table["card"].map(card_sort_key)
    table = table.assign(_order=order).sort_values([*keys, "_order", "slot"], kind="stable")
    return table[[*keys, "card", "slot", "plays", "plays_per_game", "slot_share"]].reset_index(drop=True)


def majority_by_round(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """Luna's majority values by round: mean, spread and percentiles.

    Parameters
    ----------
    rounds
        Per-round frame.
    by
        Group keys (``round`` is always added).

    Returns
    -------
    pandas.DataFrame
        The keys, ``round``, ``majority`` (titanium, carbon, energy, minerals, scientists) and the
        statistics of :func:`analysis.stats.score_summary`.
    """
    keys = group_keys(rounds, by)
    table = score_summary(rounds, by=[*keys, "round"], metrics=MAJORITY_COLUMNS, kind=None)
    table = table.rename(columns={"metric": "majority"})
    table["majority"] = table["majority"].str.removeprefix("majority_")
    return table


def _majority_parts(rounds: pd.DataFrame, keys: list[str]) -> Iterator[tuple[str, pd.DataFrame]]:
    """Each majority type with its rounds' keys, ``round`` and ``value``: one type at a time, where a frame of them
    all stacked held five rows a round, each with the type's name (4.2 million rounds: 1.5 GiB)."""
    require_columns(rounds, [*keys, "round", *MAJORITY_COLUMNS], "majority tables")  # now, not at the first part
    return ((kind, rounds[[*keys, "round", column]].rename(columns={column: "value"}))
            for kind, column in zip(MAJORITY_TYPES, MAJORITY_COLUMNS, strict=True))


def majority_distribution(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """Distribution of Luna's majority values by round.

    Parameters
    ----------
    rounds
        Per-round frame.
    by
        Group keys.

    Returns
    -------
    pandas.DataFrame
        The keys, ``majority``, ``round``, ``value``, ``count`` and ``share`` of the group's
        rounds.
    """
    keys = group_keys(rounds, by)
    parts = []
    for kind, values in _majority_parts(rounds, keys):
        part = _distribution(values, [*keys, "round"], "value")
        part.insert(len(keys), "majority", kind)
        parts.append(part)
    return in_majority_order(pd.concat(parts, ignore_index=True), [*keys])


def in_majority_order(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rank = table["majority"].map({kind: index for index, kind in enumerate(MAJORITY_TYPES)})
    rest = [column for column in ("round", "value", "total") if column in table.columns]
    ordered = table.assign(_rank=rank).sort_values([*keys, "_rank", *rest], kind="stable")
    return ordered.drop(columns="_rank").reset_index(drop=True)


def blocking_probability(
    rounds: pd.DataFrame,
    by: str | Iterable[str] | None = ("level",),
    max_total: int | None = None,
) -> pd.DataFrame:
    """Probability that Luna blocks a player with a given total from a majority bonus space.

    A player whose total of a type is *lower* than Luna's value that round may not place a marker
    there, so a player with total ``t`` is blocked with probability ``P(value > t)``, estimated
    as the fraction of Luna's rounds with a value above ``t``.

    Parameters
    ----------
    rounds
        Per-round frame.
    by
        Group keys.
    max_total
        Highest player total tabulated; default the highest value Luna showed for each type (a
        player with that total is never blocked).

    Returns
    -------
    pandas.DataFrame
        The keys, ``majority``, ``round``, ``total`` (0..max), ``rounds_observed`` and
        ``p_blocked``.
    """
    keys = group_keys(rounds, by)
    if max_total is not None and (not is_whole_number(max_total) or max_total < 0):
        raise ValueError(f"blocking_probability: max_total must be a whole number of at least 0, got {max_total!r}")
    columns = [*keys, "majority", "round", "total", "rounds_observed", "p_blocked"]
    majorities = _majority_parts(rounds, keys)
    if rounds.empty:  # no per-round rows (a run without --detail rounds, or a filter that kept nothing)
        return pd.DataFrame(columns=columns)
    parts = []
    for kind, values in majorities:
        highest = int(values["value"].max()) if max_total is None else max_total
        lowest = min(0, int(values["value"].min()))
        counts = values.groupby([*keys, "round", "value"], observed=True).size().unstack("value", fill_value=0)
        counts = counts.reindex(columns=range(lowest, highest + 1), fill_value=0)
        observed = values.groupby([*keys, "round"], observed=True).size()
        at_most = counts.cumsum(axis=1)
        blocked = 1.0 - at_most.div(observed, axis=0)
        blocked = blocked.loc[:, 0:highest].clip(lower=0.0)
        long_blocked = stack(blocked).rename("p_blocked")
        long_blocked.index = long_blocked.index.set_names("total", level=-1)
        part = long_blocked.reset_index()
        part = part.merge(observed.rename("rounds_observed").reset_index(), on=[*keys, "round"])
        part.insert(len(keys), "majority", kind)
        parts.append(part[columns])
    table = pd.concat(parts, ignore_index=True)
    table["total"] = table["total"].astype("int64")
    return in_majority_order(table, keys)


def deck_counters_summary(seats: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """Per-game summary of Luna's deck and board counters (reshuffles, grade-2 cards, ...).

    Parameters
    ----------
    seats
        Seats frame.
    by
        Group keys.

    Returns
    -------
    pandas.DataFrame
        As :func:`analysis.stats.score_summary` over the counters of
        :data:`analysis.schema.COUNTER_COLUMNS`.
    """
    return score_summary(seats, by=by, metrics=COUNTER_COLUMNS)
