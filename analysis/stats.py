"""Score, win-rate, level-ladder and variant-comparison tables.

Every function takes a tidy seats frame (see :mod:`analysis.load`) and returns a new tidy
DataFrame; group keys are arguments so the same code serves per level, per variant, per
scripted profile or per seat mix.

The intervals (Wilson, Newcombe, Student's t) are :mod:`analysis.intervals`'s; the names are imported here too,
so ``analysis.stats.wilson_interval`` and the like keep working.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from analysis._frames import (
    as_keys,
    finish,
    game_keys,
    group_keys,
    grouped,
    kind_columns,
    require_columns,
    seats_per_game,
    select_kind,
    stack,
)
from analysis.intervals import (
    difference_interval,
    newcombe_interval,
    paired_difference,
    paired_proportion_interval,
    paired_share_difference,
    welch_df,
    wilson_interval,
)
from analysis.load import RunData
from analysis.schema import BASE_VARIANT, INTERACTION_COLUMNS, LUNA, SCORE_COLUMNS, SCRIPTED

SUMMARY_COLUMNS = ["n", "mean", "sd", "sem", "median", "p10", "p90"]


def score_summary(
    seats: pd.DataFrame,
    by: str | Iterable[str] | None = ("level",),
    metrics: str | Sequence[str] = SCORE_COLUMNS,
    kind: str | None = LUNA,
) -> pd.DataFrame:
    """Distribution summary of score columns (or any numeric columns) per group.

    Parameters
    ----------
    seats
        Seats frame.
    by
        Group keys, e.g. ``"level"`` or ``["variant", "opponents", "level"]``; None or ``()`` for
        one overall group.
    metrics
        Columns to summarise; default the total and the 7 score categories.
    kind
        Seat kind to keep (``"luna"``, ``"scripted"``), None for every seat.

    Returns
    -------
    pandas.DataFrame
        Long format, one row per group and metric: the keys, ``metric``, ``n``, ``mean``, ``sd``
        (sample standard deviation, ddof 1), ``sem`` (``sd / sqrt(n)``), ``median``, ``p10``,
        ``p90`` (linearly interpolated percentiles, numpy's default). NaN values are ignored.
    """
    keys = group_keys(seats, by, kind)
    metrics = as_keys(metrics)  # one name alone, as for by (list("score_total") would be its letters)
    require_columns(seats, [*keys, *metrics], "score_summary")
    data = kind_columns(seats, kind, [*keys, *metrics])
    grouping, _ = grouped(data, keys)
    values = grouping[metrics]
    parts = {
        "n": values.count(),
        "mean": values.mean(),
        "sd": values.std(ddof=1),
        "median": values.median(),
        "p10": values.quantile(0.1),
        "p90": values.quantile(0.9),
    }
    long = pd.concat({name: stack(part) for name, part in parts.items()}, axis=1)
    long.index = long.index.set_names("metric", level=-1)
    long["n"] = long["n"].astype("int64")
    long["sem"] = long["sd"] / np.sqrt(long["n"])
    return finish(long[SUMMARY_COLUMNS])


def win_rates(
    seats: pd.DataFrame,
    by: str | Iterable[str] | None = ("level",),
    kind: str | None = LUNA,
) -> pd.DataFrame:
    """Win rates with Wilson 95 % intervals, shared wins counting 1/k.

    Each seat in each game is one trial and its ``won`` value (1, 1/k for a k-way tie, 0) the
    success, so ``win_rate = sum(won) / games``. Games with a single seat are left out: the lone
    seat always "wins", which says nothing about balance.

    Parameters
    ----------
    seats
        Seats frame.
    by
        Group keys; None or ``()`` for one overall group.
    kind
        Seat kind whose win rate is wanted, None for every seat.

    Returns
    -------
    pandas.DataFrame
        The keys, ``games`` (seat-games in the group), ``wins`` (sum of ``won``), ``win_rate``,
        ``ci_low``, ``ci_high``. Empty when no group has an opponent.
    """
    keys = as_keys(by)
    require_columns(seats, [*keys, "game", "seat", "won"], "win_rates")
    several = seats_per_game(seats) >= 2
    group_keys(seats, keys, kind, rows=several)
    contested = seats[several]
    data = select_kind(contested, kind)
    grouping, _ = grouped(data, keys)
    table = grouping["won"].agg(games="count", wins="sum")
    table["win_rate"] = table["wins"] / table["games"]
    table["ci_low"], table["ci_high"] = wilson_interval(table["wins"], table["games"])
    return finish(table)


#: The columns of :func:`duel_row` (after the caller's own labels).
DUEL_COLUMNS = ["games", "wins", "win_rate", "ci_low", "ci_high", "score_diff", "diff_low", "diff_high"]


def duel_row(won_upper: np.ndarray, score_upper: np.ndarray, score_lower: np.ndarray) -> dict[str, float]:
    """One seat against another over the same games: the first's wins and the paired score difference.

    Parameters
    ----------
    won_upper
        Shape (games,): the first seat's ``won`` per game (a tie counts half).
    score_upper, score_lower
        Shape (games,): both seats' total scores, game by game.

    Returns
    -------
    dict
        :data:`DUEL_COLUMNS`: ``wins`` with its Wilson interval, and the mean per-game score
        difference first − second with its paired 95 % interval (NaN for one game).
    """
    games = len(won_upper)
    wins = float(np.sum(won_upper))
    ci_low, ci_high = wilson_interval(wins, games)
    mean, _, diff_low, diff_high = paired_difference(score_upper, score_lower)
    return {"games": games, "wins": wins, "win_rate": wins / games if games else np.nan,  # 0 games: no rate
            "ci_low": ci_low, "ci_high": ci_high,
            "score_diff": mean, "diff_low": diff_low, "diff_high": diff_high}


def _paired_games(upper: pd.DataFrame, lower: pd.DataFrame, keys: list[str]) -> pd.DataFrame | None:
    """Upper and lower rows matched game by game, or None unless both cover exactly the same games."""
    if upper.empty or upper.duplicated(keys).any() or lower.duplicated(keys).any():
        return None
    merged = upper.merge(lower, on=keys, suffixes=("_upper", "_lower"))
    if len(merged) != len(upper) or len(merged) != len(lower):
        return None
    # One game seats each level at a seat of its own: rows of one seat number are two games that share a game
    # number (frames of separate runs stacked without a run column: luna:4 and luna:5 both at seat 0).
    if (merged["seat_upper"] == merged["seat_lower"]).any():
        return None
    return merged


def _ladder_step(upper: pd.DataFrame, lower: pd.DataFrame, metric: str, keys: list[str]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "n": len(upper),
        "n_below": len(lower),
        "mean": upper[metric].mean(),
        "mean_below": lower[metric].mean(),
    }
    pairs = _paired_games(upper[[*keys, "seat", metric, "won", "_contested"]], lower[[*keys, "seat", metric, "won"]],
                          keys)
    row["paired"] = pairs is not None
    if pairs is not None:
        # Same games at both levels: the per-game difference removes the shared game-to-game
        # variation, so its SE is the honest (and usually smaller) one.
        differences = pairs[f"{metric}_upper"] - pairs[f"{metric}_lower"]
        row["diff"] = differences.mean()
        row["diff_se"] = differences.std(ddof=1) / np.sqrt(len(differences))
        df = len(differences) - 1
    else:
        row["diff"] = row["mean"] - row["mean_below"]
        se_upper = upper[metric].std(ddof=1) / np.sqrt(len(upper))
        se_lower = lower[metric].std(ddof=1) / np.sqrt(len(lower))
        row["diff_se"] = np.hypot(se_upper, se_lower)
        df = welch_df(se_upper, len(upper), se_lower, len(lower))
    row["diff_low"], row["diff_high"] = difference_interval(row["diff"], row["diff_se"], df)

    contested_upper = upper[upper["_contested"]]
    contested_lower = lower[lower["_contested"]]
    row["win_rate"] = row["win_rate_below"] = np.nan
    row["win_diff"] = row["win_diff_low"] = row["win_diff_high"] = np.nan
    if contested_upper.empty or contested_lower.empty:
        return row
    row["win_rate"] = contested_upper["won"].mean()
    row["win_rate_below"] = contested_lower["won"].mean()
    if pairs is not None:
        # Two levels in one game compete with each other, so their wins are negatively
        # correlated; an independent-samples interval would be too narrow.
        row["win_diff"], row["win_diff_low"], row["win_diff_high"] = paired_share_difference(
            pairs["won_upper"].to_numpy(), pairs["won_lower"].to_numpy())
    else:
        row["win_diff"], row["win_diff_low"], row["win_diff_high"] = newcombe_interval(
            contested_upper["won"].sum(),
            len(contested_upper),
            contested_lower["won"].sum(),
            len(contested_lower),
        )
    return row


def level_ladder(
    seats: pd.DataFrame,
    by: str | Iterable[str] | None = None,
    metric: str = "score_total",
    kind: str | None = LUNA,
) -> pd.DataFrame:
    """Step from each level to the level below in mean score and in win rate.

    For each group and each level present, the "level below" is the next lower level present in
    the same group (normally level - 1).

    Score difference ``mean(level) - mean(below)``: when both levels were played in exactly the
    same games (e.g. seats ``"luna:4,luna:5"``, one seat each: the same run and game number, each level at
    a seat of its own, so frames stacked without a ``run`` column never pair), the mean of per-game differences
    with SE ``sd(d) / sqrt(n)`` (``paired`` is True); otherwise the difference of the two means
    with ``SE = sqrt(SE_level² + SE_below²)``. Interval: ``diff ± t · SE``, Student's t with ``n - 1``
    degrees of freedom when paired, Welch's otherwise (1.96 for thousands of games).

    Win-rate difference (only where both levels have games with opponents): Newcombe's intervals built from
    the two Wilson intervals, for paired games the paired one with the correlation of the two levels' wins
    (:func:`analysis.intervals.paired_proportion_interval`), for independent games the hybrid score interval.

    Parameters
    ----------
    seats
        Seats frame.
    by
        Extra group keys besides ``level`` (e.g. ``"opponents"`` or ``"variant"``).
    metric
        Score column compared, default the total.
    kind
        Seat kind, default Luna.

    Returns
    -------
    pandas.DataFrame
        The keys, ``level``, ``level_below``, ``paired``, ``n``, ``n_below``, ``mean``,
        ``mean_below``, ``diff``, ``diff_se``, ``diff_low``, ``diff_high``, ``win_rate``,
        ``win_rate_below``, ``win_diff``, ``win_diff_low``, ``win_diff_high`` (win columns NaN
        without opponents). One row per level that has a level below.
    """
    keys = group_keys(seats, by, kind)
    if "level" in keys:
        raise ValueError("level_ladder: 'level' is always a key; do not pass it in by")
    require_columns(seats, [*keys, "game", "seat", "level", "won", metric], "level_ladder")
    match_keys = game_keys(seats)
    data = kind_columns(seats.assign(_contested=seats_per_game(seats) >= 2), kind,
                        [*keys, *match_keys, "seat", "level", "won", metric, "_contested"])
    rows: list[dict[str, Any]] = []
    grouping, group_names = grouped(data, keys)
    for group_value, group in grouping:
        values = group_value if isinstance(group_value, tuple) else (group_value,)
        by_level = {level: rows_ for level, rows_ in group.groupby("level", sort=True, observed=True)}
        levels = list(by_level)
        group_labels = dict(zip(group_names, values, strict=True))
        for below, level in pairwise(levels):
            step = _ladder_step(by_level[level], by_level[below], metric, match_keys)
            rows.append({**group_labels, "level": level, "level_below": below, **step})
    columns = [*keys, "level", "level_below", "paired", "n", "n_below", "mean", "mean_below", "diff", "diff_se",
               "diff_low", "diff_high", "win_rate", "win_rate_below", "win_diff", "win_diff_low", "win_diff_high"]
    return pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(columns=columns)


def paired_differences(
    base: pd.DataFrame,
    variant: pd.DataFrame,
    by: str | Iterable[str] | None = ("level",),
    metrics: str | Sequence[str] = SCORE_COLUMNS,
    kind: str | None = LUNA,
) -> pd.DataFrame:
    """Mean differences variant minus base over games played with common random numbers.

    Two runs with the same seed play game ``g`` from the same random stream, so seat ``s`` of game
    ``g`` in both runs forms a pair; the per-pair difference cancels most game-to-game noise.
    Interval: ``mean(d) ± t · sd(d) / sqrt(n)``, ``t`` = :func:`analysis.intervals.t95` of ``n - 1``; of
    ``won``, Newcombe's paired interval of two proportions (:func:`analysis.intervals.paired_proportion_interval`).

    Parameters
    ----------
    base, variant
        Seats frames of the two runs (one run each).
    by
        Group keys, read from the base frame.
    metrics
        Columns to compare; default the total and the 7 categories.
    kind
        Seat kind compared, default Luna.

    Returns
    -------
    pandas.DataFrame
        Long format: the keys, ``metric``, ``n`` (pairs), ``mean_base``, ``mean_variant``,
        ``diff``, ``sd``, ``se``, ``ci_low``, ``ci_high``.

    Raises
    ------
    ValueError
        If no game and seat pairs up, or a paired seat differs in kind or level between the runs
        (the runs then do not have the same seat mix).
    """
    keys = group_keys(base, by)
    metrics = as_keys(metrics)  # one name alone, as for by
    identity = ["game", "seat", "kind", "level"]
    require_columns(base, [*identity, *keys, *metrics], "paired_differences base")
    require_columns(variant, [*identity, *metrics], "paired_differences variant")
    base_rows = base[list(dict.fromkeys([*identity, *keys, *metrics]))]
    variant_rows = variant[[*identity, *metrics]]
    variant_rows = variant_rows.rename(columns={column: f"{column}__variant" for column in ["kind", "level", *metrics]})
    for name, rows in (("base", base_rows), ("variant", variant_rows)):  # merge would say only "not one-to-one"
        if rows.duplicated(["game", "seat"]).any():
            raise ValueError(f"paired_differences: the {name} frame holds a game and seat twice; give one run each")
    # Every seat is paired before one kind is kept: a seat that is Luna in one run and scripted in the
    # other means the seat mixes differ, which keeping one kind first would hide.
    pairs = base_rows.merge(variant_rows, on=["game", "seat"], validate="one_to_one")
    if pairs.empty:
        raise ValueError("paired_differences: no (game, seat) appears in both runs")
    # As arrays of text: two runs loaded apart carry categoricals of different categories (a solo run knows only
    # "luna"), which pandas refuses to compare at all
    kinds_differ = pairs["kind"].to_numpy(dtype=object) != pairs["kind__variant"].to_numpy(dtype=object)
    mismatched = kinds_differ | (pairs["level"] != pairs["level__variant"]).to_numpy()
    if mismatched.any():
        first = pairs[mismatched].iloc[0]
        raise ValueError(
            "paired_differences: the runs have different seat mixes: game"
            f" {first['game']} seat {first['seat']} is {first['kind']}:{first['level']} in base"
            f" and {first['kind__variant']}:{first['level__variant']} in variant"
        )
    pairs = select_kind(pairs, kind)
    if pairs.empty:
        raise ValueError(f"paired_differences: no {kind} seat appears in both runs")
    differences = pd.DataFrame(
        {metric: pairs[f"{metric}__variant"] - pairs[metric] for metric in metrics}, index=pairs.index
    )
    for key in keys:
        differences[key] = pairs[key]
    base_values = pairs[[*keys, *metrics]]
    variant_values = pairs[[f"{metric}__variant" for metric in metrics]].set_axis(metrics, axis=1)
    variant_values = pd.concat([pairs[keys], variant_values], axis=1)

    def stacked(frame: pd.DataFrame, statistic: str) -> pd.Series:
        grouping, _ = grouped(frame, keys)
        return stack(getattr(grouping[metrics], statistic)())

    table = pd.concat(
        {
            "n": stacked(differences, "count"),
            "mean_base": stacked(base_values, "mean"),
            "mean_variant": stacked(variant_values, "mean"),
            "diff": stacked(differences, "mean"),
            "sd": stacked(differences, "std"),
        },
        axis=1,
    )
    table.index = table.index.set_names("metric", level=-1)
    table["n"] = table["n"].astype("int64")
    table["se"] = table["sd"] / np.sqrt(table["n"])
    table["ci_low"], table["ci_high"] = difference_interval(table["diff"], table["se"], table["n"] - 1)
    if "won" in metrics:
        # a win share's difference is one of proportions: a t interval covers far too little near 0 and 1
        products = pairs[keys].assign(won=pairs["won__variant"] * pairs["won"])
        grouping, _ = grouped(products, keys)
        mean_product = grouping["won"].mean().to_numpy()  # the groups in the order of the table's
        won = table.index.get_level_values("metric") == "won"
        rows = table[won]
        covariance = mean_product - rows["mean_base"].to_numpy() * rows["mean_variant"].to_numpy()
        _, low, high = paired_proportion_interval(rows["mean_variant"].to_numpy(), rows["mean_base"].to_numpy(),
                                                  covariance, rows["n"].to_numpy())
        table.loc[won, "ci_low"], table.loc[won, "ci_high"] = low, high
    return finish(table)


def _config(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    config = manifest.get("config") or {}
    return config if isinstance(config, Mapping) else {}


def variant_differences(
    data: RunData,
    by: str | Iterable[str] | None = ("level",),
    metrics: str | Sequence[str] = SCORE_COLUMNS,
    kind: str | None = LUNA,
) -> pd.DataFrame:
    """Paired differences of every variant run against its base run.

    A run whose ``variant`` is not ``"base"`` is matched with the first loaded base run that has
    the same seat mix and, when both manifests record them, the same seed and number of games
    (without the same seed the games are not paired and the comparison would be meaningless).

    Parameters
    ----------
    data
        Loaded runs.
    by, metrics, kind
        As :func:`paired_differences`.

    Returns
    -------
    pandas.DataFrame
        ``variant``, ``variant_run``, ``base_run`` followed by the columns of
        :func:`paired_differences`; empty when no variant has a matching base run.
    """
    seats = data.seats
    run_labels = seats.drop_duplicates("run")[["run", "variant", "seats"]]
    bases = run_labels[run_labels["variant"] == BASE_VARIANT]
    tables = []
    for variant_run in run_labels[run_labels["variant"] != BASE_VARIANT].itertuples(index=False):
        variant_config = _config(data.manifests.get(variant_run.run, {}))
        for base_run in bases[bases["seats"] == variant_run.seats].itertuples(index=False):
            base_config = _config(data.manifests.get(base_run.run, {}))
            comparable = all(
                base_config.get(setting) == variant_config.get(setting)
                for setting in ("seed", "games")
                if setting in base_config and setting in variant_config
            )
            if not comparable:
                continue
            table = paired_differences(
                seats[seats["run"] == base_run.run],
                seats[seats["run"] == variant_run.run],
                by=by,
                metrics=metrics,
                kind=kind,
            )
            table.insert(0, "base_run", base_run.run)
            table.insert(0, "variant_run", variant_run.run)
            table.insert(0, "variant", variant_run.variant)
            tables.append(table)
            break
    if tables:
        return pd.concat(tables, ignore_index=True)
    columns = [
        "variant",
        "variant_run",
        "base_run",
        *as_keys(by),
        "metric",
        "n",
        "mean_base",
        "mean_variant",
        "diff",
        "sd",
        "se",
        "ci_low",
        "ci_high",
    ]
    return pd.DataFrame(columns=columns)


def available_interactions(seats: pd.DataFrame) -> list[str]:
    """Interaction counters present (and not entirely missing) in a seats frame."""
    return [column for column in INTERACTION_COLUMNS if column in seats.columns and seats[column].notna().any()]


def interaction_summary(
    seats: pd.DataFrame, by: str | Iterable[str] | None = ("luna_level", "profile")
) -> pd.DataFrame:
    """How much Luna gets in the scripted players' way, per group of scripted seats.

    Parameters
    ----------
    seats
        Seats frame; the scripted interaction counters (``blocked_*``, ``bonus_spaces_lost``,
        ``cards_lost``, ``plans_lost``, ``outposts_ousted_by_luna``) are used when present.
    by
        Group keys; the default groups by the Luna level faced and the scripted profile.

    Returns
    -------
    pandas.DataFrame
        As :func:`score_summary` over the counters present; empty when the data has none.
    """
    counters = available_interactions(select_kind(seats, SCRIPTED))
    if not counters:
        return pd.DataFrame(columns=[*as_keys(by), "metric", *SUMMARY_COLUMNS])
    return score_summary(seats, by=by, metrics=counters, kind=SCRIPTED)
