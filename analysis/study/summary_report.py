"""A study's report tables and figures from its summaries: the same tables as the frame-based report.

:func:`study_tables` gives what :func:`analysis.study.content.frame_tables` gives on the games
loaded whole (the standard run tables, the head-to-head duels, the variant comparison), reading the
per-part summaries and, for paired tables, one or two parts' pair columns at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pandas as pd
from matplotlib.figure import Figure

from analysis._frames import in_label_order
from analysis.duels import DuelRun, duel_run, duel_table
from analysis.report import figure_slice, interaction_keys, standard_figures, varying_keys, without_mixed_duels
from analysis.schema import BASE_VARIANT, LUNA, SCORE_COLUMNS, SCORE_TOTAL
from analysis.study import summary_tables as st
from analysis.study.summaries import StudySummary

DIFFERENCE_COLUMNS = ["variant", "variant_run", "base_run", "level", "metric", "n", "mean_base", "mean_variant",
                      "diff", "sd", "se", "ci_low", "ci_high"]


def run_overview(summary: StudySummary) -> pd.DataFrame:
    """As :func:`analysis.report.run_overview`: one row per part."""
    seats = summary.seats
    games = seats[(seats["seat"] == 0) & (seats["column"] == SCORE_TOTAL)].groupby("run", sort=False)["count"].sum()
    rows = []
    for part in summary.parts.itertuples(index=False):
        config = (summary.manifests.get(part.run) or {}).get("config") or {}
        rows.append({"run": part.run, "variant": part.variant, "seats": part.seats, "games": int(games[part.run]),
                     "seed": config.get("seed", ""), "engine": config.get("engine", ""),
                     "rounds_recorded": bool(part.detail)})
    return pd.DataFrame(rows)


def head_to_head(summary: StudySummary) -> pd.DataFrame:
    """As :func:`analysis.duels.head_to_head` on the study's games, from each duel's pair columns.

    Parameters
    ----------
    summary
        The study's summaries.

    Returns
    -------
    pandas.DataFrame
        :data:`analysis.duels.HEAD_TO_HEAD_COLUMNS`: each level pair's two seat orders pooled.
    """
    return duel_table(_duel_runs(summary))


def _duel_runs(summary: StudySummary) -> Iterator[DuelRun]:
    """Each two-Luna part's games, read one part at a time as :func:`analysis.duels.duel_table` asks for them (the
    plan lists a duel's two orders together, so no more than two parts' pair columns are held at once)."""
    parts = summary.parts
    for part in parts[(parts["n_seats"] == 2) & (parts["opponents"] == LUNA)].itertuples(index=False):
        seed = ((summary.manifests.get(part.run) or {}).get("config") or {}).get("seed")
        duel = duel_run(part.variant, part.run, summary.seat_levels(part.run), summary.pairs(part.run), seed)
        if duel is not None:
            yield duel


def variant_differences(summary: StudySummary, metrics: Sequence[str] = SCORE_COLUMNS) -> pd.DataFrame:
    """As :func:`analysis.stats.variant_differences` by level: each variant part against its base part."""
    plan = summary.plan
    tables = []
    bases = [part for part in plan.parts if part.variant == BASE_VARIANT]
    columns = ["game", "seat", *metrics]
    for part in plan.parts:
        if part.variant == BASE_VARIANT:
            continue
        base = next((candidate for candidate in bases if candidate.seats == part.seats), None)
        if base is None:
            continue
        table = st.paired_differences(summary.pairs(base.name, columns), summary.pairs(part.name, columns),
                                     summary.seat_levels(base.name), metrics)
        table.insert(0, "base_run", base.name)
        table.insert(0, "variant_run", part.name)
        table.insert(0, "variant", part.variant)
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=DIFFERENCE_COLUMNS)


def variant_overview(summary: StudySummary, differences: pd.DataFrame | None = None) -> pd.DataFrame:
    """As :func:`analysis.study.content.variant_overview`; ``differences`` is :func:`variant_differences`'s
    table when the caller has it already (the pair files are then not read again)."""
    if differences is None:
        differences = variant_differences(summary, metrics=(SCORE_TOTAL, "won"))
    table = differences[differences["metric"].isin([SCORE_TOTAL, "won"])]
    if table.empty:
        return table.reset_index(drop=True)
    seat_counts = summary.parts.set_index("run")["n_seats"]
    contested = table["base_run"].map(seat_counts) >= 2
    return table[(table["metric"] != "won") | contested].reset_index(drop=True)


def study_tables(summary: StudySummary) -> dict[str, pd.DataFrame]:
    """Every table of a study's report, computed from its summaries (names as the frame-based report's).

    Parameters
    ----------
    summary
        The study's summaries (:func:`analysis.study.summaries.load_summaries`).

    Returns
    -------
    dict
        Table name -> DataFrame, in the order and with the content of
        :func:`analysis.study.content.frame_tables` on the same games.
    """
    seats = summary.seats
    luna = seats[seats["kind"] == LUNA]
    keys = [*varying_keys(luna, ["variant", "opponents"]), "level"]
    tables: dict[str, pd.DataFrame] = {"runs": run_overview(summary)}
    tables["score_summary"] = st.summary_stats(seats, by=keys)
    fixed_opponents = without_mixed_duels(seats)
    tables["level_ladder"] = st.level_ladder(fixed_opponents, by=keys[:-1])
    win_table = st.win_rates(fixed_opponents, by=keys)
    if not win_table.empty:
        tables["win_rates"] = win_table
    tables["deck_counters"] = st.deck_counters_summary(seats, by=keys)
    tables["reshuffle_distribution"] = st.reshuffle_distribution(seats, by=keys)
    tables["slot_first_use"] = st.slot_first_use(seats, by=keys, rounds=summary.plan.rounds)
    if not summary.rounds.empty:
        rounds = summary.rounds
        detail_runs = summary.parts.loc[summary.parts["detail"], "run"]
        seat_games = luna[(luna["column"] == SCORE_TOTAL) & luna["run"].isin(detail_runs)]
        tables["reshuffles_by_round"] = st.reshuffles_by_round(rounds, by=keys)
        tables["reshuffle_timing"] = st.reshuffle_timing(summary.timing, by=keys)
        tables["grade2_by_round"] = st.grade2_by_round(rounds, by=keys)
        tables["card_play_counts"] = st.card_play_counts(summary.cards, seat_games, by=keys)
        tables["majority_by_round"] = st.majority_by_round(rounds, by=keys)
        tables["majority_distribution"] = st.majority_distribution(rounds, by=keys)
        tables["blocking_probability"] = st.blocking_probability(rounds, by=keys)
    interactions = st.interaction_summary(seats, by=interaction_keys(seats))
    if not interactions.empty:
        tables["interactions"] = interactions
    # one read of every variant's pair files serves both variant tables
    paired = variant_differences(summary, metrics=(*SCORE_COLUMNS, "won"))
    differences = paired[paired["metric"] != "won"].reset_index(drop=True) if not paired.empty else paired
    if not differences.empty:
        tables["variant_differences"] = differences
    duels = head_to_head(summary)
    if not duels.empty:
        tables["head_to_head"] = duels
    if summary.plan.variants:
        tables["variant_overview"] = variant_overview(summary, paired)
    return {name: in_label_order(table) for name, table in tables.items()}


def base_figures(summary: StudySummary) -> dict[str, Figure]:
    """The standard figures of the base variant (as :func:`analysis.report.build_figures` on the base parts)."""
    seats = summary.seats[summary.seats["variant"] == BASE_VARIANT]
    shown = figure_slice(seats)
    luna = shown[shown["kind"] == LUNA]
    scores = luna[luna["column"] == SCORE_TOTAL].rename(columns={"value": SCORE_TOTAL})
    base = without_mixed_duels(seats)
    rounds = None
    if not summary.rounds.empty:
        rounds = figure_slice(summary.rounds[summary.rounds["variant"] == BASE_VARIANT])
    return standard_figures(
        scores=scores, weight="count", categories=st.summary_stats(luna, by="level"),
        ladder=st.level_ladder(base, by="opponents"), win_table=st.win_rates(base, by=["opponents", "level"]),
        first_use=st.slot_first_use(luna, rounds=summary.plan.rounds),
        several_opponents=base["opponents"].nunique() > 1,
        by_round=None if rounds is None else {
            "reshuffles_by_round": st.reshuffles_by_round(rounds), "grade2_by_round": st.grade2_by_round(rounds),
            "majority_by_round": st.majority_by_round(rounds),
            "blocking_probability": st.blocking_probability(rounds, by=None)})
