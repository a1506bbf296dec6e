"""A study's report: sections and figures around the summary tables; the frame-based load_study for notebooks."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from analysis import plots, report, stats
from analysis.drawing import drawing_helper
from analysis.duels import head_to_head  # noqa: F401  (analysis.study.head_to_head, for notebooks)
from analysis.load import RunData, constant_text, load_run, stacked
from analysis.render import ReportFiles, Section, write_report
from analysis.schema import BASE_VARIANT
from analysis.study.findings import study_findings
from analysis.study.plan import StudyError, StudyPlan, part_is_finished, read_plan, rerun_command
from analysis.study.summaries import StudySummary, load_summaries
from analysis.study.summary_report import base_figures, study_tables
from analysis.study.summary_tables import summary_stats


def _labels(run: str, variant: str, rows: int) -> dict[str, pd.Categorical]:
    return {"run": constant_text(run, rows), "variant": constant_text(variant, rows)}


def load_study(study_dir: str | Path) -> tuple[StudyPlan, RunData]:
    """Load every game of a finished study, kept with ``--keep-games``, as one :class:`analysis.load.RunData`.

    For notebooks and checks: the report itself reads only the parts' summaries
    (:func:`analysis.study.summaries.load_summaries`), in memory that does not grow with the games.

    The ``run`` column holds the part name (``solo-L5``, ``myvariant/solo-L5``) and ``variant`` the
    variant's name, so base and variant runs of the same configuration stay apart.

    Raises
    ------
    StudyError
        When a part has no finished run (the study was interrupted and not resumed), or kept no game rows.
    """
    root = Path(study_dir)
    plan = read_plan(root)
    missing = [part.name for part in plan.parts if not part_is_finished(root, plan, part)]
    if missing:
        raise StudyError(f"{root}: {len(missing)} part(s) not finished (first: {missing[0]}); rerun: "
                         f"{rerun_command(plan, root)}")
    without_games = [part.name for part in plan.parts if not part_is_finished(root, plan, part, keep_games=True)]
    if without_games:
        raise StudyError(f"{root}: {len(without_games)} part(s) kept no per-game rows (first: {without_games[0]}); "
                         "rerun the study with --keep-games (keep_games=True) to load its games")
    seats, rounds, manifests = [], [], {}
    empty_rounds = None
    for part in plan.parts:
        data = load_run(root / part.run, compact=True)  # a third of the memory (analysis.load.narrowest)
        (manifest,) = data.manifests.values()
        # The loader names a run after its directory; variant runs share directory names with the
        # base runs, so the part name is the run key here, and the variant comes from the plan.
        seats.append(data.seats.assign(**_labels(part.name, part.variant, len(data.seats))))
        if not data.rounds.empty:
            rounds.append(data.rounds.assign(**_labels(part.name, part.variant, len(data.rounds))))
        elif empty_rounds is None:
            empty_rounds = data.rounds
        manifests[part.name] = {**manifest, "config": {**(manifest.get("config") or {}), "variant": part.variant}}
    # stacked as load_runs stacks runs: pd.concat made text of every categorical whose categories differ between
    # parts (kind in a solo and a duel part) and left the others categorical
    frames = stacked(seats)
    per_round = stacked(rounds) if rounds else empty_rounds
    return plan, RunData(seats=frames, rounds=per_round, manifests=manifests)


# ----------------------------------------------------------------------------------------------
# Study-specific tables and figures


def variant_overview(data: RunData) -> pd.DataFrame:
    """Base and variant side by side per part and level: Luna's total score, and her win rate where contested.

    The long :func:`analysis.stats.variant_differences` table restricted to the total score and
    ``won``; ``won`` rows of single-seat parts are dropped (a lone Luna always wins).
    """
    table = stats.variant_differences(data, by="level", metrics=("score_total", "won"))
    if table.empty:
        return table
    seat_counts = data.seats.drop_duplicates("run").set_index("run")["n_seats"]
    contested = table["base_run"].map(seat_counts) >= 2
    return table[(table["metric"] != "won") | contested].reset_index(drop=True)


def _figure_name(prefix: str, variant: str) -> str:
    return f"{prefix}_{re.sub(r'[^A-Za-z0-9_-]', '_', variant)}"


VARIANTS_TEXT = (
    "Each variant replays every part with the base's seed and game numbers (common random numbers), so game g"
    " of a variant part and game g of its base part start from the same shuffles. The overview shows base and"
    " variant means side by side; differences are variant − base with 95 % intervals from the per-game"
    " differences. The full table covers every score category."
)
HEAD_TO_HEAD = Section(
    report.HEAD_TO_HEAD_SECTION,
    "Head to head",
    "Two Lunas of adjacent levels in the same games: how often the higher level wins (ties count half) and by"
    " how much it outscores the lower one per game. Seat order matters (the seats act in turn, seat 0 first),"
    " so each duel is played in both orders, duel-L4-L5 (level 4 in seat 0) and duel-L5-L4, with the same seed"
    " and game numbers, and each row pools the two: balanced over the seats. Game g of the two orders shares its"
    " random numbers, so the 95 % intervals come from the two outcomes of each game number, not from twice as"
    " many independent games (paired Newcombe for the win rate, paired t for the score difference)."
    " The seated_first and seated_second columns give the higher level's win rate and score difference in each"
    " order alone: their gap is the seat effect. The score summary's 'luna' rows pool each level over its duels"
    " (against the level below and the level above, in both seats), and the ladder and win rates leave the"
    " duels out; this section compares the two levels of each duel directly.",
    ("head_to_head",),
)
LADDER_TEXT = (
    "Change from the level below to each level: mean total score and win rate. Each level comes from a part of"
    " its own, so the intervals here take the two levels as independent samples (two standard errors; Newcombe"
    " for win rates). The parts play the same boards (common random numbers), so the two levels' games are"
    " correlated and these intervals are wider than 95 % (a QA pass measured 98-100 % coverage); the Findings'"
    " step, from per-game differences, is the same difference with the narrower, paired 95 % interval."
)


def frame_tables(plan: StudyPlan, data: RunData) -> dict[str, pd.DataFrame]:
    """The report's tables computed the frame-based way, from every game loaded whole (:func:`load_study`).

    The report itself computes the same tables from the parts' summaries
    (:func:`analysis.study.summary_report.study_tables`); this stays for notebooks and as the reference the
    tests compare the summaries with.
    """
    tables = report.report_tables(data)  # with the head-to-head table (analysis.duels)
    if plan.variants:
        tables["variant_overview"] = variant_overview(data)
    return tables


FINDINGS_SECTION = "findings"
RUNS_APPENDIX = Section("runs", "Appendix: run directories", "The run directory of each part of this study.",
                        ("runs",))


def findings_section(sentences: list[str], variants: Sequence[str] = ()) -> Section:
    """The first section: the per-level answers and what stands out, in one screen.

    Parameters
    ----------
    sentences
        What stands out (:func:`analysis.study.findings.study_findings`).
    variants
        The study's variant names: with any, the section says that it shows the base variant only, since the
        introduction says the tables hold every group.
    """
    text = ("Per level: Luna's mean score alone, the step from the level below (mean per-game difference over the"
            " same games, 95 % interval), each scripted opponent's win rate against her (Wilson 95 %) and, where"
            " the study computed it, the strength at parity. ")
    if variants:
        text += ("These are the base variant only; the variants are compared with it under \"Variants against"
                 " base\". ")
    return Section(FINDINGS_SECTION, "Findings", text + " ".join(sentences), ("findings",))


def study_content(summary: StudySummary) -> tuple[dict[str, pd.DataFrame], dict[str, Figure],
                                                  tuple[Section, ...], dict[str, str]]:
    """Tables, figures, sections and captions of a study's report, from its summaries."""
    plan = summary.plan
    tables = study_tables(summary)
    if plan.parity:
        from analysis.study.parity_step import parity_frame

        tables["strength_at_parity"] = parity_frame(summary.root, plan)
        base = tables["strength_at_parity"]
        tables["parity"] = base[base["variant"] == BASE_VARIANT]  # what Findings reads; not a report table
    findings, sentences = study_findings(summary, tables)
    tables.pop("parity", None)
    tables = {"findings": findings, **tables}
    figures = base_figures(summary)
    captions = dict(report.FIGURE_CAPTIONS)
    if "head_to_head" in tables:
        # One row per higher level and variant (its two seat orders pooled), so (level, variant) is unique as the
        # plot needs.
        figure = plots.plot_win_rates(tables["head_to_head"], hue="variant", player="The higher level")
        ax = figure.axes[0]
        ax.axhline(50.0, color="0.4", linewidth=0.8, linestyle="--")  # the caption's "no difference"
        ax.set_xlabel("The higher level of the duel")
        ax.set_title("The higher level's win rate against the level below")
        figures["head_to_head"] = figure
        captions["head_to_head"] = ("Win rate of the higher level against the level below in two-Luna games, "
                                    "both seat orders pooled, 95 % intervals (50 % = no difference)")
    variant_items: list[str] = []
    if plan.variants:
        seats = summary.seats
        solo = seats[seats["opponents"] == ""]
        figures["variant_scores"] = plots.plot_variant_scores(summary_stats(solo, by=["variant", "level"],
                                                                            metrics=["score_total"]))
        captions["variant_scores"] = "Luna alone: mean total score by level, base and variants, 95 % intervals"
        variant_items += ["variant_scores", "variant_overview"]
        differences = tables.get("variant_differences", pd.DataFrame())
        for variant in plan.variants:
            if differences.empty:
                break
            rows = differences[(differences["variant"] == variant.name)
                               & differences["base_run"].str.startswith("solo-")]
            if rows.empty:
                continue
            name = _figure_name("variant_differences", variant.name)
            figures[name] = plots.plot_variant_differences(rows, hue="level")
            captions[name] = (f"Variant {variant.name!r} − base, Luna alone: paired differences per level, "
                              "95 % intervals")
            variant_items.append(name)
        variant_items.append("variant_differences")
    sections = [findings_section(sentences, [variant.name for variant in plan.variants])]
    for section in report.DEFAULT_SECTIONS:
        if section.id == RUNS_APPENDIX.id:
            continue
        if section.id == report.VARIANTS_SECTION:
            sections.append(Section(section.id, section.title, VARIANTS_TEXT, tuple(variant_items)))
            continue
        if section.id == report.LADDER_SECTION:  # never paired in a study: say so, and where the paired step is
            sections.append(Section(section.id, section.title, LADDER_TEXT, section.items))
            continue
        sections.append(HEAD_TO_HEAD if section.id == HEAD_TO_HEAD.id else section)  # the study's own words
    sections.append(RUNS_APPENDIX)
    return tables, figures, tuple(sections), captions


def levels_text(levels: Sequence[int]) -> str:
    """The levels in words, consecutive ones as ranges: ``levels 0–8``, ``levels 2–4, 7``, ``level 5``.

    Parameters
    ----------
    levels
        The levels, sorted and each once (as :class:`analysis.study.plan.StudyPlan` holds them).
    """
    spans: list[list[int]] = []
    for level in levels:
        if spans and level == spans[-1][1] + 1:
            spans[-1][1] = level
        else:
            spans.append([level, level])
    words = [str(low) if low == high else f"{low}–{high}" for low, high in spans]
    return f"level{'s' if len(levels) > 1 else ''} {', '.join(words)}"


def introduction(plan: StudyPlan, manifests: Mapping[str, Mapping[str, Any]]) -> str:
    """The paragraph under the report's title: what was played, with which engine, and the command."""
    engines = sorted({str((manifest.get("config") or {}).get("engine", "?")) for manifest in manifests.values()})
    # Semicolons between the settings: with commas, "levels 0, 1, ..., 8, 7 rounds" read as a level 7 twice.
    settings = [f"{len(plan.parts)} parts of {plan.games} games each", f"seed {plan.seed}", levels_text(plan.levels),
                f"{plan.rounds} rounds", f"starting bonus {plan.start_bonus}",
                *([] if plan.board == "moon" else [f"{plan.board} side of the board"]),
                f"engine {', '.join(engines)}"]
    text = ("; ".join(settings) + ". Every part plays the same seed, so game g starts from the same boards "
            "in every part. Figures of distributions show the base variant with Luna alone; the tables hold "
            "every group.")
    if plan.variants:
        text += " Variants: " + "; ".join(f"{variant.name} ({variant.title})" if variant.title != variant.name
                                          else variant.name for variant in plan.variants) + "."
    if plan.options_text():
        text += f" Options: {plan.options_text()}."
    if plan.command:
        text += f" Command: {plan.command}"
    return text


PARITY_TEXT = (
    "The strength at which each profile wins half its games against Luna (ties count half), per level, with a"
    " 95 % interval (`luna-balance parity`'s search: the same games at every strength tried, bisection to"
    " {tolerance}). Above 1 the profile needs to play stronger than its data to hold even; below 1, weaker is"
    " enough. Strengths are given to 2 decimals, what the bisection settles; `win_rate` is played at the strength"
    " as shown. {games} games per strength tried; `evaluations` is the number of strengths tried. A profile that"
    " never wins half its games up to strength 64 (or wins more than half even at 0.000977) has no strength at"
    " parity: its strength is empty, its interval open on that side, `win_rate` is played at that end and"
    " `note` says 'not reached'.{passive}"
)


def with_parity(plan: StudyPlan, sections: tuple[Section, ...]) -> tuple[Section, ...]:
    """Add the strength-at-parity section (after the win rates) when the study has ``--parity``."""
    from analysis.study.plan import PARITY_TOLERANCE

    if not plan.parity:
        return sections
    left_out = [profile for profile in plan.profiles if profile not in plan.parity_profiles]
    passive = f" Left out (passive: they never win): {', '.join(left_out)}." if left_out else ""
    section = Section("strength-at-parity", "Strength at parity",
                      PARITY_TEXT.format(tolerance=PARITY_TOLERANCE, games=plan.parity_games, passive=passive),
                      ("strength_at_parity",))
    at = next((index + 1 for index, item in enumerate(sections) if item.id == report.WIN_RATES_SECTION), len(sections))
    return (*sections[:at], section, *sections[at:])


def render_study_dir(study_dir: str | Path) -> ReportFiles:
    """Rebuild a study's tables, figures and report from its parts' summaries (no simulation, no game rows)."""
    from analysis.study.readings_step import add_readings_section

    summary = load_summaries(study_dir)
    with drawing_helper() as helper:  # started now: it imports matplotlib while the figures are built
        tables, figures, sections, captions = study_content(summary)
        sections = with_parity(summary.plan, sections)
        sections = add_readings_section(study_dir, summary.plan, tables, figures, sections, captions)
        return write_report(study_dir, tables, figures, title=f"Luna balance study: {summary.plan.name}",
                            sections=sections, introduction=introduction(summary.plan, summary.manifests),
                            captions=captions, helper=helper)
