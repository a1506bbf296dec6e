"""The report's first section: the answers to "is each level harder than the one below, and by how much?".

:func:`findings_table` lays out, one row per level, Luna's mean score alone, the step from the level
below, each scripted opponent's win rate against her and (when the study computed it) the strength at
parity; :func:`findings_sentences` says in words what stands out. Both take plain tables, so they are
tested on hand-built ones; :func:`study_findings` gathers those tables from a study's summaries.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

import pandas as pd

from analysis._frames import labels_in_order
from analysis.intervals import difference_interval
from analysis.parity import strength_decimals
from analysis.render import interval_end, signed
from analysis.schema import BASE_VARIANT, LUNA, SCORE_TOTAL, SCRIPTED
from analysis.study import summary_tables as st
from analysis.study.plan import PARITY_TOLERANCE
from analysis.study.summaries import StudySummary

#: Adjacent levels whose win rates against this profile differ by less than CLOSE_WIN_RATES are named.
REFERENCE_PROFILE = "balanced"
CLOSE_WIN_RATES = 0.03
STEP_COLUMNS = ["level", "level_below", "paired", "n", "diff", "diff_low", "diff_high"]


def solo_scores(summary: StudySummary) -> pd.DataFrame:
    """Luna alone, base variant: ``level, n, mean, low, high`` (95 % interval of the mean)."""
    seats = summary.seats
    alone = seats[(seats["variant"] == BASE_VARIANT) & (seats["n_seats"] == 1) & (seats["kind"] == LUNA)]
    table = st.summary_stats(alone, by="level", metrics=[SCORE_TOTAL])
    table["low"], table["high"] = difference_interval(table["mean"], table["sem"], table["n"] - 1)
    return table[["level", "n", "mean", "low", "high"]]


def solo_steps(summary: StudySummary) -> pd.DataFrame:
    """Step in Luna's mean score from each level to the next lower one, Luna alone, base variant.

    Every part plays games 0..N-1 of the same seed, so game g of two solo parts starts from the same
    board (common random numbers): the step is the mean per-game difference, with its paired interval.
    """
    parts = summary.parts
    solo = parts[(parts["variant"] == BASE_VARIANT) & (parts["n_seats"] == 1)].sort_values("luna_level")
    rows = []
    pairs = {part.run: summary.pairs(part.run) for part in solo.itertuples(index=False)}  # each part read once
    for lower, upper in pairwise(solo.itertuples(index=False)):
        step = st.paired_step(pairs[upper.run], pairs[lower.run])
        rows.append({"level": upper.luna_level, "level_below": lower.luna_level, "paired": True, **step})
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def opponent_win_rates(summary: StudySummary) -> pd.DataFrame:
    """Each scripted opponent's win rate against Luna alone at each level (base variant): ``opponent, level, ...``."""
    seats = summary.seats
    versus = seats[(seats["variant"] == BASE_VARIANT) & (seats["n_seats"] == 2) & (seats["kind"] == SCRIPTED)]
    table = st.win_rates(versus, by=["opponents", "luna_level"], kind=SCRIPTED)
    return table.rename(columns={"opponents": "opponent", "luna_level": "level"})


def _interval(value: float, low: float, high: float, digits: int = 1, sign: str = "") -> str:
    # a signed step as the sentences give it: +0.0 for a value that rounds to zero, each end with the sign it has
    shown = signed(value, digits) if sign else f"{value:.{digits}f}"
    if pd.isna(low) or pd.isna(high):  # one game: "+3.0 (+nan to +nan)" read like a broken table
        return f"{shown} (no interval)"
    ends = [interval_end(end, digits) if sign else f"{end:.{digits}f}" for end in (low, high)]
    return f"{shown} ({ends[0]} to {ends[1]})"


def _step_cell(step: pd.Series, level: int) -> str:
    """The step with its interval; from a level other than the next lower one (a study of levels 3 and 5), that
    level is named: the cell is in the row of ``level`` under "step from level below", read as from ``level - 1``."""
    cell = _interval(*step[["diff", "diff_low", "diff_high"]], sign="+")
    below = step.get("level_below")
    return cell if below is None or pd.isna(below) or int(below) == level - 1 else f"{cell} from level {int(below)}"


def findings_table(scores: pd.DataFrame, steps: pd.DataFrame, win_rates: pd.DataFrame,
                   parity: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per level, every cell a value with its 95 % interval, for reading rather than computing.

    Parameters
    ----------
    scores
        ``level, mean, low, high``: Luna's mean score alone.
    steps
        ``level, level_below, diff, diff_low, diff_high``: the step from the level below in the study, named in
        the cell when it is not ``level - 1``.
    win_rates
        ``opponent, level, win_rate, ci_low, ci_high``: each opponent's win rate against her.
    parity
        Optional ``profile, level, strength, low, high`` (and ``note``): the strength at which a profile wins
        half, to the decimals its bisection settles; one not reached (NaN) shows its note.

    Returns
    -------
    pandas.DataFrame
        ``level``, ``Luna alone: mean score``, ``step from level below``, ``<opponent> wins %`` per
        opponent, ``<profile> strength at parity`` per profile with a parity result.
    """
    table = pd.DataFrame({"level": sorted(scores["level"].unique())})
    by_level = scores.set_index("level")
    table["Luna alone: mean score"] = [_interval(*by_level.loc[level, ["mean", "low", "high"]])
                                       for level in table["level"]]
    step_by_level = steps.set_index("level")
    table["step from level below"] = [_step_cell(step_by_level.loc[level], level) if level in step_by_level.index
                                      else "" for level in table["level"]]
    for opponent in labels_in_order(win_rates["opponent"]):  # balanced@0.8 before balanced (1)
        rates = win_rates[win_rates["opponent"] == opponent].set_index("level")
        table[f"{opponent} wins %"] = [
            _interval(*(100 * rates.loc[level, ["win_rate", "ci_low", "ci_high"]])) if level in rates.index else ""
            for level in table["level"]]
    if parity is not None:
        for profile, rows in parity.groupby("profile", sort=True):
            found = rows.set_index("level")
            table[f"{profile} strength at parity"] = [_parity_cell(found.loc[level]) if level in found.index else ""
                                                      for level in table["level"]]
    return table


def _parity_cell(row: pd.Series) -> str:
    """A strength at parity to the decimals its bisection settles (the parity section's), or why there is none."""
    if pd.isna(row["strength"]):  # not reached: the end of the range tried is no strength at parity
        note = row.get("note")
        return str(note) if isinstance(note, str) and note else "not reached"
    return _interval(*row[["strength", "low", "high"]], digits=strength_decimals(PARITY_TOLERANCE))


def parity_sentences(parity: pd.DataFrame | None) -> list[str]:
    """One sentence per profile and level whose strength at parity the search did not reach.

    Parameters
    ----------
    parity
        ``profile, level, strength, win_rate, note`` (:func:`analysis.parity.strength_at_parity`'s results).
    """
    if parity is None or parity.empty:
        return []
    sentences = []
    for row in parity[parity["strength"].isna()].sort_values(["profile", "level"]).itertuples(index=False):
        side = "never wins half its games, even at" if "above" in str(row.note) else "wins more than half, even at"
        end = str(row.note).rsplit(" ", 1)[-1]
        sentences.append(f"Against level {row.level}, {row.profile} {side} strength {end} ({100 * row.win_rate:.1f} %"
                         f" of its games): no strength at parity was found ({row.note}).")
    return sentences


def findings_sentences(steps: pd.DataFrame, win_rates: pd.DataFrame | None = None,
                       profile: str = REFERENCE_PROFILE, close: float = CLOSE_WIN_RATES) -> list[str]:
    """What stands out, in sentences.

    Named: a step whose 95 % interval goes below zero (the level scores less than the one below),
    includes zero (not clearly harder) or is missing (one game); the smallest and the largest step;
    adjacent levels whose win rates against ``profile`` differ by less than ``close``. Without anything
    wrong, one sentence says so.

    Parameters
    ----------
    steps
        ``level, level_below, diff, diff_low, diff_high`` (Luna's mean score, level minus level below).
    win_rates
        ``opponent, level, win_rate``; the rows of ``opponent == profile`` are used.
    profile
        The opponent whose win rates are compared.
    close
        Win-rate difference (a fraction) below which two adjacent levels are named.
    """
    sentences = []
    ordered = steps.sort_values("level")
    flagged = False
    for step in ordered.itertuples(index=False):
        interval = (f"{signed(step.diff, 1)} points "
                    f"(95 % interval {interval_end(step.diff_low, 1)} to {interval_end(step.diff_high, 1)})")
        if pd.isna(step.diff_low) or pd.isna(step.diff_high):
            # One game per level has no interval, and a NaN compares false both ways: such a step was counted
            # among those "with a 95 % interval clear of zero", even a negative one.
            sentences.append(f"The step from level {step.level_below} to {step.level} has no interval (one game): "
                             f"{signed(step.diff, 1)} points.")
            flagged = True
        elif step.diff_high < 0:
            sentences.append(f"Level {step.level} scores less than level {step.level_below}: {interval}.")
            flagged = True
        elif step.diff_low <= 0:
            sentences.append(f"The step from level {step.level_below} to {step.level} is not clearly positive: "
                             f"{interval}.")
            flagged = True
    if not flagged and len(ordered):
        sentences.append("Every level scores more than the one below, each step with a 95 % interval clear of zero.")
    if len(ordered) >= 2:
        # a QA pass: on ladders of eight steps of no true difference, 21 % showed one "scores less" (500 games a level)
        chance = 100 * (1 - 0.95 ** len(ordered))
        sentences.append(f"Each step's interval is 95 % on its own: across {len(ordered)} steps, one may exclude zero "
                         f"by chance though no level differs (up to {chance:.0f} % of the time, were the steps "
                         "independent).")
    if not len(ordered):
        sentences.append("With one level there is no step from a level below to compare.")
    if len(ordered) >= 2:
        smallest = ordered.loc[ordered["diff"].idxmin()]
        largest = ordered.loc[ordered["diff"].idxmax()]
        sentences.append(f"The smallest step is {int(smallest['level_below'])}→{int(smallest['level'])} "
                         f"({signed(smallest['diff'], 1)} points), the largest {int(largest['level_below'])}→"
                         f"{int(largest['level'])} ({signed(largest['diff'], 1)} points).")
    if win_rates is not None and not win_rates.empty:
        rates = win_rates[win_rates["opponent"] == profile].sort_values("level")
        for lower, upper in pairwise(rates.itertuples(index=False)):
            if abs(upper.win_rate - lower.win_rate) < close:
                sentences.append(
                    f"Against {profile}, levels {lower.level} and {upper.level} are less than {100 * close:g} "
                    f"percentage points apart in {profile}'s win rate ({100 * lower.win_rate:.1f} % and "
                    f"{100 * upper.win_rate:.1f} %, as measured; their intervals are in the win-rate table).")
    return sentences


def study_findings(summary: StudySummary, tables: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, list[str]]:
    """The Findings table and sentences of a study (parity from ``tables["parity"]`` when the study has one)."""
    steps = solo_steps(summary)
    win_rates = opponent_win_rates(summary)
    table = findings_table(solo_scores(summary), steps, win_rates, tables.get("parity"))
    return table, findings_sentences(steps, win_rates) + parity_sentences(tables.get("parity"))
