"""Head to head: two Lunas of different levels in the same games, the two seat orders pooled.

Seat order matters in a two-Luna game (the seats act in seat order, and the second seat won 51.7 % ± 0.5 of
40,000 games of ``luna:4,luna:4``), so a duel played in one order only measures the step between two levels
plus the edge of the seat the higher level sat in. A study therefore plays each duel in both orders,
``duel-L4-L5`` (``luna:4,luna:5``) and ``duel-L5-L4`` (``luna:5,luna:4``), with the same seed and game
numbers, and :func:`duel_table` pools them into one row per level pair: the estimate is then balanced over
the seats.

Game g of the two orders is not independent of the other order's game g: both draw their randomness from the
seed, the game number and the seat index, so the two orders are not 2n independent games (in a study of levels
3-5 the higher level's win shares of game g in the two orders correlated at -0.2 to -0.4, the score
differences at -0.4 to -0.6: a seat's good draws go to the higher level in one order and to the lower in the
other). Each row's intervals therefore come from the n game numbers, each with its two outcomes:

* The score difference's interval is the paired t interval (:func:`analysis.intervals.paired_difference`) of
  the n per-game-number means of the two orders' differences (higher − lower), whose spread holds the
  correlation as it is.
* The win rate is the mean of the higher level's win shares ``a`` (one order) and ``b`` (the other),
  ``(p_a + p_b) / 2 = (1 + (p_a − p_c)) / 2`` with ``c = 1 − b``, the lower level's share in the other order.
  Its interval is that map of the paired Newcombe interval of ``p_a − p_c`` over the same games
  (:func:`analysis.intervals.paired_share_difference`), which takes the measured correlation of the two
  orders: Wilson's interval of one order when they always agree, about Wilson's of the 2n games when they are
  independent, and narrower when they are negatively correlated, as measured. Wilson on the 2n games would
  take them as independent (too wide here, too narrow if they agreed more often than chance), and Wilson on the
  n per-game-number means as n trials 1.6-1.9 times too wide in that study. In simulated pairs of orders
  (win rates 0.56-0.99, correlations -0.42 to 0.5) it covered 94-95 % at 100 and 3,000 game numbers, 0.91 at
  20 with 98 % wins, where Newcombe's paired interval is known to fall short; tied games count 1/k and make
  it conservative, as Wilson's. Measured on the engine (a QA pass, 2026-11-27; 400-1,900 replications against
  a million games each): levels 4-5 (63 %) and 0-1 (93 %) covered 0.94-0.97 at 20-2,000 game numbers, but
  levels 2-8 (99.5 %) 0.915 at 200 game numbers and 0.94 at 100, every miss below the truth: with so few
  losses, spread over both orders, the correlation reads near 0 and the two small Wilson margins add in
  quadrature. A study duels adjacent levels only (the most lopsided, 0-1, covers); a ``runs-report`` of
  distant levels should be read with that in mind.

With one order only (a study written before both were played, or a ``runs-report`` over one duel run), the
row is that order's numbers, as :func:`analysis.stats.duel_row` gives them.

Both report paths build their rows here: :func:`head_to_head` from loaded games (``runs-report`` and
:func:`analysis.study.content.frame_tables`), :func:`analysis.study.summary_report.head_to_head` from a
study's pair columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.intervals import paired_share_difference
from analysis.load import RunData
from analysis.schema import LUNA, SCORE_TOTAL
from analysis.stats import DUEL_COLUMNS, duel_row

#: The higher level's win rate and mean score difference (higher − lower) in each seat order alone: the seat
#: effect, shown beside the pooled numbers (NaN for an order not played).
SEAT_COLUMNS = ["win_rate_seated_first", "win_rate_seated_second", "score_diff_seated_first",
                "score_diff_seated_second"]
#: The head-to-head table's columns.
HEAD_TO_HEAD_COLUMNS = ["variant", "runs", "level", "level_below", *DUEL_COLUMNS, *SEAT_COLUMNS]


@dataclass(frozen=True)
class DuelRun:
    """One run of two Lunas of different levels: the higher level's outcome game by game.

    Attributes
    ----------
    variant, run
        The run's labels.
    level, level_below
        The two levels.
    seated_first
        Whether the higher level sat in seat 0 (acting first).
    seed
        The run's seed, None when its manifest does not say: runs of unknown seed are never pooled.
    games
        Indexed by game number: ``won`` (the higher level's win share), ``score`` and ``score_below``.
    """

    variant: str
    run: str
    level: int
    level_below: int
    seated_first: bool
    seed: Any
    games: pd.DataFrame


def duel_run(variant: str, run: str, levels: Mapping[int, int], rows: pd.DataFrame, seed: Any) -> DuelRun | None:
    """A :class:`DuelRun` from one run's Luna rows, or None when its two seats are not of two levels.

    Parameters
    ----------
    variant, run
        The run's labels.
    levels
        Luna's level at each seat of the run.
    rows
        One row per game and seat: ``game``, ``seat``, ``score_total`` and ``won``.
    seed
        The run's seed (None: unknown).
    """
    if len(levels) != 2 or len(set(levels.values())) != 2:
        return None
    (low_seat, low), (high_seat, high) = sorted(levels.items(), key=lambda item: item[1])
    upper = rows.loc[rows["seat"] == high_seat, ["game", "won", SCORE_TOTAL]].set_index("game")
    lower = rows.loc[rows["seat"] == low_seat, ["game", SCORE_TOTAL]].set_index("game")
    upper, lower = upper.align(lower, join="inner", axis=0)
    games = pd.DataFrame({"won": upper["won"].to_numpy(dtype=np.float64),
                          "score": upper[SCORE_TOTAL].to_numpy(dtype=np.float64),
                          "score_below": lower[SCORE_TOTAL].to_numpy(dtype=np.float64)}, index=upper.index)
    return DuelRun(variant, run, int(high), int(low), high_seat < low_seat, seed, games.sort_index())


def _same_games(one: DuelRun, other: DuelRun) -> bool:
    """Whether two runs are the two seat orders of one duel over the same games: the same variant and levels,
    opposite orders, the same known seed and the same game numbers."""
    return (one.seed is not None and one.seated_first != other.seated_first
            and (one.variant, one.level, one.level_below, one.seed)
            == (other.variant, other.level, other.level_below, other.seed)
            and one.games.index.equals(other.games.index))


def _row(orders: list[DuelRun]) -> dict[str, Any]:
    """One row of the table from one run or two of opposite seat orders over the same game numbers."""
    won = np.mean([order.games["won"].to_numpy() for order in orders], axis=0)
    score = np.mean([order.games["score"].to_numpy() for order in orders], axis=0)
    below = np.mean([order.games["score_below"].to_numpy() for order in orders], axis=0)
    row = duel_row(won, score, below)  # over the per-game-number means: one order's numbers, and the paired t
    if len(orders) == 2:  # duel_row's Wilson would take the means as trials; the module docstring's interval
        _, low, high = paired_share_difference(orders[0].games["won"].to_numpy(),
                                               1.0 - orders[1].games["won"].to_numpy())
        row["ci_low"], row["ci_high"] = (1.0 + low) / 2.0, (1.0 + high) / 2.0
    row["games"] *= len(orders)  # every game played; win_rate = wins / games as before
    row["wins"] = float(sum(order.games["won"].sum() for order in orders))
    seats: dict[str, float] = dict.fromkeys(SEAT_COLUMNS, np.nan)
    for order in orders:
        where = "first" if order.seated_first else "second"
        seats[f"win_rate_seated_{where}"] = float(order.games["won"].mean())
        seats[f"score_diff_seated_{where}"] = float((order.games["score"] - order.games["score_below"]).mean())
    first = orders[0]
    return {"variant": first.variant, "runs": ", ".join(order.run for order in orders), "level": first.level,
            "level_below": first.level_below, **row, **seats}


def duel_table(duels: Iterable[DuelRun]) -> pd.DataFrame:
    """The head-to-head table: one row per run, or per two runs of opposite seat orders over the same games.

    A run pools with the first earlier run it is the other seat order of (same variant, levels, seed and game
    numbers) that has not pooled yet; a run that finds none, of unknown seed or of other game numbers, is a
    row of its own. ``duels`` is consumed as it comes and a run is let go once pooled, so a study that lists
    the two orders of each duel together holds no more than one duel's games at a time.

    Parameters
    ----------
    duels
        The two-Luna runs, in the order their rows should come (a pooled row where its first run is).

    Returns
    -------
    pandas.DataFrame
        :data:`HEAD_TO_HEAD_COLUMNS`: ``runs`` (one run, or both orders' comma-separated), ``level`` (the
        higher) and ``level_below``, ``games`` (every game of the row's runs), ``wins`` of the higher level
        (a tie counts half), ``win_rate`` with ``ci_low``/``ci_high``, the mean score difference higher − lower
        ``score_diff`` with ``diff_low``/``diff_high`` (95 % intervals from the per-game-number means, see the
        module docstring), and :data:`SEAT_COLUMNS`, each order's own win rate and score difference.
    """
    rows: list[dict[str, Any] | None] = []
    waiting: list[tuple[int, DuelRun]] = []  # (its row, the run) of the runs not pooled yet
    for duel in duels:
        match = next((index for index, (_, other) in enumerate(waiting) if _same_games(other, duel)), None)
        if match is None:
            waiting.append((len(rows), duel))
            rows.append(None)
        else:
            slot, other = waiting.pop(match)
            rows[slot] = _row([other, duel])
    for slot, duel in waiting:
        rows[slot] = _row([duel])
    return pd.DataFrame(rows, columns=HEAD_TO_HEAD_COLUMNS)


def head_to_head(data: RunData) -> pd.DataFrame:
    """:func:`duel_table` of the loaded runs of two Lunas of different levels (other runs are left out).

    Parameters
    ----------
    data
        Loaded runs: a study's (:func:`analysis.study.load_study`) or those of ``runs-report``; each run's seed
        comes from its manifest.

    Returns
    -------
    pandas.DataFrame
        :func:`duel_table`'s columns; no rows without such a run.
    """
    seats = data.seats
    lunas = seats[(seats["n_seats"] == 2) & (seats["opponents"] == LUNA) & (seats["kind"] == LUNA)]
    duels = []
    for run, group in lunas.groupby("run", sort=False, observed=True):
        levels = dict(group[["seat", "level"]].drop_duplicates().itertuples(index=False, name=None))
        seed = ((data.manifests.get(str(run)) or {}).get("config") or {}).get("seed")
        duel = duel_run(str(group["variant"].iloc[0]), str(run), levels, group, seed)
        if duel is not None:
            duels.append(duel)
    return duel_table(duels)
