"""A study's report tables computed from its parts' summaries (see :mod:`analysis.study.summaries`).

Each function here gives the same table as its frame-based namesake in :mod:`analysis.stats` /
:mod:`analysis.deck` / :mod:`analysis.report` would give on the study's games loaded whole (counts
exactly, means and intervals to float rounding; ``tests/test_study_summaries.py`` checks it), but reads
only value counts and, where games are paired, one part's pair columns at a time. So a report needs
memory for its tables, not for its games.

The inputs are long "histogram" frames: the run columns of :data:`analysis.schema.RUN_COLUMNS`, the
seat's ``seat, kind, level, profile``, then ``column, value, count`` (``round`` too for per-round values).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from analysis._frames import as_keys, select_kind, stack
from analysis.deck import STANDARD_ROUNDS, card_sort_key, in_majority_order
from analysis.intervals import (
    difference_interval,
    newcombe_interval,
    paired_difference,
    paired_proportion_interval,
    welch_df,
    wilson_interval,
)
from analysis.schema import (
    COUNTER_COLUMNS,
    FIRST_ROUND_COLUMNS,
    INTERACTION_COLUMNS,
    LUNA,
    MAJORITY_COLUMNS,
    MAJORITY_TYPES,
    SCORE_COLUMNS,
    SCRIPTED,
)
from analysis.stats import SUMMARY_COLUMNS


def _group_items(table: pd.DataFrame, keys: list[str]) -> Iterable[tuple[tuple, pd.DataFrame]]:
    if not keys:
        yield (), table
        return
    for values, group in table.groupby(keys, sort=True, dropna=False):
        yield (values if isinstance(values, tuple) else (values,)), group


def _row_key(values: tuple, level: int) -> tuple | int:
    """The index label of a group's ``level`` in a frame indexed by the group keys and ``level``: a tuple under keys,
    the level alone without (a tuple on a one-level index is read as a list of labels)."""
    return (*values, level) if values else level


def _at_rank(merged: pd.DataFrame, group: list[str], rank: pd.Series) -> pd.Series:
    """Per group, the value at 0-based ``rank`` of the sorted sample the counts describe."""
    cumulative = merged["_cumulative"]
    hit = (cumulative - merged["count"] <= rank) & (cumulative > rank)
    return merged.loc[hit].set_index(group)["value"]


def summary_stats(hist: pd.DataFrame, by: str | Iterable[str] | None = ("level",),
                  metrics: Sequence[str] = SCORE_COLUMNS, kind: str | None = LUNA) -> pd.DataFrame:
    """As :func:`analysis.stats.score_summary`, from value counts.

    Quantiles are numpy's linear interpolation between the values at ranks ``floor(q(n-1))`` and the
    next, both read off the running counts; the standard deviation is the two-pass one (ddof 1).

    Parameters
    ----------
    hist
        Value counts (``column, value, count`` with the run and seat columns).
    by
        Group keys; None or ``()`` for one overall group.
    metrics
        Columns summarised, in the order the rows list them.
    kind
        Seat kind kept, None for every seat.

    Returns
    -------
    pandas.DataFrame
        The keys, ``metric``, ``n``, ``mean``, ``sd``, ``sem``, ``median``, ``p10``, ``p90``.
    """
    keys = as_keys(by)
    data = select_kind(hist, kind)
    data = data[data["column"].isin(metrics)]
    group = [*keys, "column"] if keys else ["_all", "column"]
    if not keys:
        data = data.assign(_all=0)
    merged = data.groupby([*group, "value"], sort=True, dropna=False)["count"].sum().reset_index()
    merged = merged[merged["count"] > 0].reset_index(drop=True)
    by_group = [merged[key] for key in group]
    weighted = merged["value"] * merged["count"]
    merged["_cumulative"] = merged["count"].groupby(by_group, sort=False).cumsum()
    n = merged["count"].groupby(by_group, sort=False).transform("sum")
    mean = weighted.groupby(by_group, sort=False).transform("sum") / n
    squares = merged["count"] * (merged["value"] - mean) ** 2
    table = pd.DataFrame({"n": merged["count"].groupby(by_group, sort=False).sum(),
                          "mean": weighted.groupby(by_group, sort=False).sum(),
                          "_squares": squares.groupby(by_group, sort=False).sum()})
    table["mean"] = table["mean"] / table["n"]
    table["sd"] = np.sqrt(table["_squares"] / (table["n"] - 1)).where(table["n"] > 1)
    for name, q in (("median", 0.5), ("p10", 0.1), ("p90", 0.9)):
        position = q * (n - 1)
        below = np.floor(position)
        low = _at_rank(merged, group, below)
        high = _at_rank(merged, group, np.minimum(below + 1, n - 1))
        fraction = (position - below).groupby(by_group, sort=False).first()
        table[name] = low + fraction * (high - low)
    table = table.reset_index().rename(columns={"column": "metric"})
    order = {metric: index for index, metric in enumerate(metrics)}
    table = table.assign(_order=table["metric"].map(order)).sort_values([*group[:-1], "_order"], kind="stable")
    table = table.drop(columns=["_all", "_order", "_squares"], errors="ignore").reset_index(drop=True)
    table["n"] = table["n"].astype("int64")
    table["sem"] = table["sd"] / np.sqrt(table["n"])
    return table[[*keys, "metric", *SUMMARY_COLUMNS]]


def _won(hist: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group: ``games`` and ``wins`` (the sum of ``won``)."""
    won = hist[hist["column"] == "won"]
    won = won.assign(_wins=won["value"] * won["count"])
    table = won.groupby(keys, sort=True, dropna=False).agg(games=("count", "sum"), wins=("_wins", "sum"))
    return table.reset_index()


def contested(hist: pd.DataFrame) -> pd.DataFrame:
    """Rows of games with at least two seats (a lone seat always wins)."""
    return hist[hist["n_seats"] >= 2]


def win_rates(hist: pd.DataFrame, by: str | Iterable[str] | None = ("level",), kind: str | None = LUNA) -> pd.DataFrame:
    """As :func:`analysis.stats.win_rates`, from value counts of ``won``.

    Parameters
    ----------
    hist
        Value counts; only games with at least two seats count.
    by
        Group keys; None or ``()`` for one overall group.
    kind
        Seat kind whose win rate is wanted, None for every seat.

    Returns
    -------
    pandas.DataFrame
        The keys, ``games``, ``wins``, ``win_rate`` and the Wilson ``ci_low``, ``ci_high``.
    """
    keys = as_keys(by)
    data = select_kind(contested(hist), kind)
    if not keys:
        data = data.assign(_all=0)
    table = _won(data, keys or ["_all"]).drop(columns="_all", errors="ignore")
    table["games"] = table["games"].astype("int64")
    table["win_rate"] = table["wins"] / table["games"]
    table["ci_low"], table["ci_high"] = wilson_interval(table["wins"], table["games"])
    return table


LADDER_COLUMNS = ["level", "level_below", "paired", "n", "n_below", "mean", "mean_below", "diff", "diff_se",
                  "diff_low", "diff_high", "win_rate", "win_rate_below", "win_diff", "win_diff_low", "win_diff_high"]


def level_ladder(hist: pd.DataFrame, by: str | Iterable[str] | None = None, metric: str = "score_total",
                 kind: str | None = LUNA) -> pd.DataFrame:
    """As :func:`analysis.stats.level_ladder` for levels played in different parts (never paired there).

    Each level of a study's ladder group comes from its own part, so no game is shared by two levels
    and the frame-based code takes the unpaired branch: difference of means, Newcombe for win rates.

    Parameters
    ----------
    hist
        Value counts of ``metric`` and ``won``.
    by
        Extra group keys besides ``level``.
    metric
        Score column compared.
    kind
        Seat kind, default Luna.

    Returns
    -------
    pandas.DataFrame
        The keys and :data:`LADDER_COLUMNS`, one row per level with a level below.

    Raises
    ------
    ValueError
        When two levels of a group share a part (their games would have to be paired).
    """
    keys = as_keys(by)
    data = select_kind(hist, kind)
    data = data[data["column"].isin([metric, "won"])]
    runs = data.groupby([*keys, "level"], sort=True)["run"].agg(frozenset)
    # one key by name, not as a list of one: pandas 2.2 warns that a list will key groups by tuples
    grouped = runs.groupby(level=keys if len(keys) > 1 else keys[0], sort=False) if keys else [((), runs)]
    for _, levels in grouped:
        if any(a & b for a, b in pairwise(levels)):
            raise ValueError("level_ladder: two levels share a part; pair them from the part's pair columns")
    scores = summary_stats(data, by=[*keys, "level"], metrics=[metric], kind=None).set_index([*keys, "level"])
    won = _won(contested(data), [*keys, "level"]).set_index([*keys, "level"])
    rows: list[dict[str, Any]] = []
    for values, group in _group_items(scores.reset_index(), keys):
        for below, level in pairwise(sorted(group["level"])):
            at, at_below = _row_key(values, level), _row_key(values, below)
            upper, lower = scores.loc[at], scores.loc[at_below]
            row: dict[str, Any] = {**dict(zip(keys, values, strict=True)), "level": level, "level_below": below,
                                   "paired": False, "n": int(upper["n"]), "n_below": int(lower["n"]),
                                   "mean": upper["mean"], "mean_below": lower["mean"],
                                   "diff": upper["mean"] - lower["mean"]}
            row["diff_se"] = np.hypot(upper["sem"], lower["sem"])
            df = welch_df(upper["sem"], upper["n"], lower["sem"], lower["n"])
            row["diff_low"], row["diff_high"] = difference_interval(row["diff"], row["diff_se"], df)
            row.update(win_rate=np.nan, win_rate_below=np.nan, win_diff=np.nan, win_diff_low=np.nan,
                       win_diff_high=np.nan)
            if at in won.index and at_below in won.index:
                won_upper, won_lower = won.loc[at], won.loc[at_below]
                row["win_rate"] = won_upper["wins"] / won_upper["games"]
                row["win_rate_below"] = won_lower["wins"] / won_lower["games"]
                row["win_diff"], row["win_diff_low"], row["win_diff_high"] = newcombe_interval(
                    won_upper["wins"], int(won_upper["games"]), won_lower["wins"], int(won_lower["games"]))
            rows.append(row)
    return pd.DataFrame(rows, columns=[*keys, *LADDER_COLUMNS])


def _distribution(counts: pd.DataFrame, keys: list[str], column: str, name: str = "count") -> pd.DataFrame:
    table = counts.groupby([*keys, column], sort=True)["count"].sum().rename(name).reset_index()
    totals = table.groupby(keys, sort=False)[name].transform("sum") if keys else table[name].sum()
    table["share"] = table[name] / totals
    return table


def reshuffle_distribution(hist: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.reshuffle_distribution`."""
    keys = as_keys(by)
    data = select_kind(hist, LUNA)
    data = data[data["column"] == "reshuffles"].assign(reshuffles=lambda frame: frame["value"].astype("int64"))
    return _distribution(data, keys, "reshuffles", "games")


def slot_first_use(hist: pd.DataFrame, by: str | Iterable[str] | None = ("level",),
                   rounds: int = STANDARD_ROUNDS) -> pd.DataFrame:
    """As :func:`analysis.deck.slot_first_use`."""
    keys = as_keys(by)
    data = select_kind(hist, LUNA)
    columns = FIRST_ROUND_COLUMNS
    data = data[data["column"].isin(columns.values())]
    last_round = max(rounds, int(data["value"].max()))
    tables = []
    group_keys = keys or ["_all"]
    for slot, column in columns.items():
        rows = data[data["column"] == column].assign(first_round=lambda frame: frame["value"].astype("int64"), _all=0)
        wide = rows.pivot_table(index=group_keys, columns="first_round", values="count", aggfunc="sum", fill_value=0)
        wide = wide.reindex(columns=range(last_round + 1), fill_value=0)
        shares = wide.div(wide.sum(axis=1), axis=0)
        cumulative = shares.loc[:, 1:].cumsum(axis=1).reindex(columns=wide.columns)
        long = pd.concat({"games": stack(wide), "share": stack(shares), "cumulative_share": stack(cumulative)},
                         axis=1)
        long.index = long.index.set_names([*group_keys, "first_round"])
        long = long.reset_index().drop(columns="_all", errors="ignore")
        long.insert(len(keys), "slot", slot)
        tables.append(long)
    table = pd.concat(tables, ignore_index=True)
    table["games"] = table["games"].astype("int64")
    return table


# ----------------------------------------------------------------------------------------------
# Per-round tables (the ``round`` column is in the histograms)


def _round_values(rounds: pd.DataFrame, column: str) -> pd.DataFrame:
    return rounds[rounds["column"] == column]


def reshuffles_by_round(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.reshuffles_by_round`."""
    keys = as_keys(by)
    data = _round_values(rounds, "reshuffles")
    data = data.assign(_sum=data["value"] * data["count"], _reshuffled=np.where(data["value"] > 0, data["count"], 0))
    table = data.groupby([*keys, "round"], sort=True).agg(games=("count", "sum"), _sum=("_sum", "sum"),
                                                         _reshuffled=("_reshuffled", "sum"))
    table["mean_reshuffles"] = table["_sum"] / table["games"]
    table["share_reshuffled"] = table["_reshuffled"] / table["games"]
    return table[["games", "mean_reshuffles", "share_reshuffled"]].reset_index()


def reshuffle_timing(timing: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.reshuffle_timing`, from the counts of each k-th reshuffle's round."""
    keys = as_keys(by)
    if timing.empty:
        return pd.DataFrame(columns=[*keys, "reshuffle", "round", "count", "share"])
    return _distribution(timing, [*keys, "reshuffle"], "round")


def grade2_by_round(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.grade2_by_round`."""
    keys = as_keys(by)
    causes = ["grade2_entered", "grade2_by_reshuffle", "grade2_by_token"]
    data = rounds[rounds["column"].isin(causes)]
    data = data.assign(_sum=data["value"] * data["count"])
    sums = data.groupby([*keys, "round", "column"], sort=True).agg(games=("count", "sum"), _sum=("_sum", "sum"))
    means = (sums["_sum"] / sums["games"]).unstack("column")[causes]
    games = sums["games"].unstack("column")[causes[0]].rename("games")
    table = pd.concat([games, means], axis=1).reset_index()
    table.columns.name = None
    if keys:
        table["cumulative_entered"] = table.groupby(keys, sort=False)["grade2_entered"].cumsum()
    else:
        table["cumulative_entered"] = table["grade2_entered"].cumsum()
    return table


def card_play_counts(cards: pd.DataFrame, seat_games: pd.DataFrame,
                     by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.card_play_counts`; ``seat_games`` holds the Luna seat-games (``count``) per group."""
    keys = as_keys(by)
    table = cards.groupby([*keys, "card", "slot"], sort=False)["plays"].sum().reset_index()
    if keys:
        games = seat_games.groupby(keys)["count"].sum().rename("games").reset_index()
        table = table.merge(games, on=keys)
        card_totals = table.groupby([*keys, "card"], sort=False)["plays"].transform("sum")
    else:
        table["games"] = int(seat_games["count"].sum())
        card_totals = table.groupby("card", sort=False)["plays"].transform("sum")
    table["plays_per_game"] = table["plays"] / table["games"]
    table["slot_share"] = table["plays"] / card_totals
    table = table.assign(_order=table["card"].map(card_sort_key)).sort_values([*keys, "_order", "slot"], kind="stable")
    return table[[*keys, "card", "slot", "plays", "plays_per_game", "slot_share"]].reset_index(drop=True)


def majority_by_round(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.majority_by_round`."""
    table = summary_stats(rounds, by=[*as_keys(by), "round"], metrics=MAJORITY_COLUMNS, kind=None)
    table = table.rename(columns={"metric": "majority"})
    table["majority"] = table["majority"].str.removeprefix("majority_")
    return table


def _majority_long(rounds: pd.DataFrame) -> pd.DataFrame:
    data = rounds[rounds["column"].isin(MAJORITY_COLUMNS)]
    return data.assign(majority=data["column"].str.removeprefix("majority_"), value=data["value"].astype("int64"))


def majority_distribution(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.majority_distribution`."""
    keys = as_keys(by)
    table = _distribution(_majority_long(rounds), [*keys, "majority", "round"], "value")
    return in_majority_order(table, keys)


def blocking_probability(rounds: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.blocking_probability` (with the default ``max_total``)."""
    keys = as_keys(by)
    long = _majority_long(rounds)
    parts = []
    for kind in MAJORITY_TYPES:
        values = long[long["majority"] == kind]
        if values.empty:
            continue
        highest = int(values["value"].max())
        lowest = min(0, int(values["value"].min()))
        counts = values.groupby([*keys, "round", "value"])["count"].sum().unstack("value", fill_value=0)
        counts = counts.reindex(columns=range(lowest, highest + 1), fill_value=0)
        observed = counts.sum(axis=1)
        blocked = (1.0 - counts.cumsum(axis=1).div(observed, axis=0)).loc[:, 0:highest].clip(lower=0.0)
        long_blocked = stack(blocked).rename("p_blocked")
        long_blocked.index = long_blocked.index.set_names("total", level=-1)
        part = long_blocked.reset_index().merge(observed.rename("rounds_observed").reset_index(), on=[*keys, "round"])
        part.insert(len(keys), "majority", kind)
        parts.append(part[[*keys, "majority", "round", "total", "rounds_observed", "p_blocked"]])
    table = pd.concat(parts, ignore_index=True)
    table["total"] = table["total"].astype("int64")
    table["rounds_observed"] = table["rounds_observed"].astype("int64")
    return in_majority_order(table, keys)


def interaction_summary(hist: pd.DataFrame, by: str | Iterable[str] | None = ("luna_level", "profile")) -> pd.DataFrame:
    """As :func:`analysis.stats.interaction_summary`: the scripted seats' interaction counters."""
    scripted = select_kind(hist, SCRIPTED)
    counters = [column for column in INTERACTION_COLUMNS if (scripted["column"] == column).any()]
    if not counters:
        return pd.DataFrame(columns=[*as_keys(by), "metric", *SUMMARY_COLUMNS])
    return summary_stats(hist, by=by, metrics=counters, kind=SCRIPTED)


def deck_counters_summary(hist: pd.DataFrame, by: str | Iterable[str] | None = ("level",)) -> pd.DataFrame:
    """As :func:`analysis.deck.deck_counters_summary`."""
    return summary_stats(hist, by=by, metrics=COUNTER_COLUMNS)


# ----------------------------------------------------------------------------------------------
# Paired tables: one part's (or two parts') pair columns at a time


def paired_differences(base: pd.DataFrame, variant: pd.DataFrame, level: dict[int, int],
                       metrics: Sequence[str]) -> pd.DataFrame:
    """As :func:`analysis.stats.paired_differences` by level for Luna's seats, from two parts' pair columns.

    Parameters
    ----------
    base, variant
        The two parts' pair columns (``game, seat`` and ``metrics``).
    level
        Luna's level at each seat (a part's seats have fixed levels).
    metrics
        Columns compared.

    Returns
    -------
    pandas.DataFrame
        ``level, metric, n, mean_base, mean_variant, diff, sd, se, ci_low, ci_high``.
    """
    pairs = base.merge(variant, on=["game", "seat"], suffixes=("", "__variant"), validate="one_to_one")
    if pairs.empty:
        raise ValueError("paired_differences: no (game, seat) appears in both runs")
    pairs["level"] = pairs["seat"].map(level).astype("int64")
    rows = []
    for value, group in pairs.groupby("level", sort=True):
        for metric in metrics:
            before = group[metric].to_numpy(dtype=float)
            after = group[f"{metric}__variant"].to_numpy(dtype=float)
            differences = after - before
            n = len(differences)
            sd = float(differences.std(ddof=1)) if n > 1 else np.nan
            rows.append({"level": value, "metric": metric, "n": n, "mean_base": before.mean(),
                         "mean_variant": after.mean(), "diff": differences.mean(), "sd": sd,
                         "_covariance": np.mean(after * before) - after.mean() * before.mean()})
    table = pd.DataFrame(rows)
    table["n"] = table["n"].astype("int64")
    table["se"] = table["sd"] / np.sqrt(table["n"])
    table["ci_low"], table["ci_high"] = difference_interval(table["diff"], table["se"], table["n"] - 1)
    won = table["metric"] == "won"  # a difference of proportions: as analysis.stats.paired_differences
    _, low, high = paired_proportion_interval(table.loc[won, "mean_variant"].to_numpy(),
                                              table.loc[won, "mean_base"].to_numpy(),
                                              table.loc[won, "_covariance"].to_numpy(), table.loc[won, "n"].to_numpy())
    table.loc[won, "ci_low"], table.loc[won, "ci_high"] = low, high
    return table.drop(columns="_covariance")


def paired_step(upper: pd.DataFrame, lower: pd.DataFrame, metric: str = "score_total") -> dict[str, float]:
    """Mean per-game difference upper − lower over the games both parts played, with its 95 % interval.

    Parameters
    ----------
    upper, lower
        One Luna seat's pair columns of each part (``game`` and ``metric``).
    metric
        Column compared.

    Returns
    -------
    dict
        ``n`` (games paired), ``diff``, ``diff_low``, ``diff_high``.
    """
    pairs = upper[["game", metric]].merge(lower[["game", metric]], on="game", suffixes=("_upper", "_lower"))
    mean, _, low, high = paired_difference(pairs[f"{metric}_upper"].to_numpy(), pairs[f"{metric}_lower"].to_numpy())
    return {"n": len(pairs), "diff": mean, "diff_low": low, "diff_high": high}
