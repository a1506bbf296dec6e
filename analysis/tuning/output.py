"""The tuner's output directory: ``tuned.toml``, ``tuning.csv``, ``report.html`` and a manifest.

:func:`run_tune` checks the output directory first, then tunes (:func:`analysis.tuning.tune.tune`) and
writes the files into a temporary directory moved into place whole, so a failed or interrupted tuning
leaves nothing behind.

- ``tuned.toml``: the overlay of the tuned data (the starting overlay, if any, with every tuned value),
  accepted as is by ``--overlay`` and ``study --variant``.
- ``tuning.csv``: every evaluation of every race (:data:`TUNING_COLUMNS` around one column per free
  parameter), then per level its ``start`` and ``tuned`` values measured on the full game count.
- ``report.html`` (with ``report.md``, ``tables/``, ``figures/``; :mod:`analysis.render`): the levels'
  metric before and after, with 95 % intervals and the targets; each tuned level on fresh games, which give
  the verdict, and the levels around it in order or not (:mod:`analysis.tuning.fresh`); which parameters moved.
- ``manifest.json``: the settings, so the run can be repeated (and so a later tuning may replace it).

The ladder figure lives here rather than in :mod:`analysis.plots`, because only the tuner draws it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from analysis.plotting import legend, level_ticks, new_figure, styled
from analysis.render import Section, atomic_write, write_report
from analysis.schema import MANIFEST_FILE
from analysis.tuning.parameters import write_overlay
from analysis.tuning.search import DEFAULT_TUNE_GAMES, DEFAULT_TUNE_SEED, Measure, distance
from analysis.tuning.targets import read_targets, seating_problem
from analysis.tuning.tune import GoalResult, TuneResult, start_data, summary_line, tune
from sim.config import MIN_INTERVAL_GAMES, check_games, check_seed
from sim.engines import DEFAULT_ENGINE
from sim.gamedata import DataError, load_game_data
from sim.outputs import TUNED_FILE, TUNING_FILE
from sim.run import output_directory, package_versions

#: Columns of tuning.csv before and after the parameter columns.
TUNING_COLUMNS = ("level", "race", "stage", "games")
MEASURE_COLUMNS = ("metric", "value", "ci_low", "ci_high", "target", "tolerance", "distance", "status")
LADDER_COLUMNS = ("level", "metric", "target", "tolerance", "before", "before_low", "before_high", "after",
                  "after_low", "after_high", "fresh", "fresh_low", "fresh_high", "met", "confirmed", "moved")
CHECK_COLUMNS = ("level", "metric", "tuned", "before", "before_low", "before_high", "after", "after_low",
                 "after_high", "in_order")

SECTIONS = (
    Section("ladder", "The levels before and after",
            "Each level's metric measured on the same games before and after tuning (the games the search chose "
            "on, so the after value leans toward the target), then on as many fresh games, with 95 % intervals; "
            "the fresh games decide whether the level is within the tolerance (met), and confirmed means their "
            "whole interval is. In the figure the black bar is the target and the band its tolerance. A ladder's "
            "ends and fixed levels are measured, not moved: their bars show where the even ladder would put them.",
            ("ladder",)),
    Section("order", "The levels around them",
            "Each tuned level and its neighbours (every level, before and after, when a card number moved: cards "
            "are shared) on the fresh games with the tuned data; in order means the level measures below the "
            "next one up, as every metric grows with Luna's difficulty.", ("order",)),
    Section("moved", "What moved", "The parameters the search changed, from their starting value to the tuned one.",
            ("moved",)),
    Section("search", "The search",
            "Per level: the races run (one per move, the last one confirming no neighbour is closer), the "
            "candidates evaluated and the games the last stage played each. Every evaluation is in tuning.csv.",
            ("search",)),
)


def _measure_row(measure: Measure, result: GoalResult, status: str, race: bool = False) -> dict[str, object]:
    target, label = result.goal.target, result.goal.metric.label
    if race and result.race_target is not None:
        target, label = result.race_target, result.race_label
    return {"metric": label, "value": measure.value, "ci_low": measure.low,
            "ci_high": measure.high, "target": target, "tolerance": result.goal.tolerance,
            "distance": np.nan if target is None else distance(measure, target), "status": status}


def tuning_table(result: TuneResult) -> pd.DataFrame:
    """Every evaluation (one row each), then each level's start and tuned values on the full game count."""
    names = [name for goal_result in result.results for name in goal_result.names]
    rows = []
    for goal_result in result.results:
        level = goal_result.goal.level
        for trial in goal_result.search.trials:
            values = dict(zip(goal_result.names, trial.point, strict=True))
            rows.append({"level": level, "race": trial.race, "stage": trial.stage, "games": trial.measure.games,
                         **values, **_measure_row(trial.measure, goal_result, trial.status, race=True)})
        for status, point, measure in (("start", goal_result.search.start, goal_result.before),
                                       ("tuned", goal_result.search.best, goal_result.after)):
            if not goal_result.goal.free and status == "start":
                continue
            rows.append({"level": level, "race": np.nan, "stage": np.nan, "games": measure.games,
                         **dict(zip(goal_result.names, point, strict=True)),
                         **_measure_row(measure, goal_result, status if goal_result.goal.free else "measured")})
    frame = pd.DataFrame(rows, columns=[*TUNING_COLUMNS, *names, *MEASURE_COLUMNS])
    return frame.astype({"race": "Int64", "stage": "Int64", **{name: "Int64" for name in names}})


def _interval_columns(name: str, measure: Measure | None) -> dict[str, float]:
    """``name``, ``name_low`` and ``name_high`` of a table row: the measure's value and 95 % interval (NaN: none)."""
    if measure is None:
        return {name: np.nan, f"{name}_low": np.nan, f"{name}_high": np.nan}
    return {name: measure.value, f"{name}_low": measure.low, f"{name}_high": measure.high}


def ladder_table(result: TuneResult) -> pd.DataFrame:
    """Per level: target, the metric before and after with intervals, whether it is met, and what moved."""
    rows = []
    for goal_result in result.results:
        goal = goal_result.goal
        moved = "; ".join(f"{name} {before}->{after}" for name, before, after in goal_result.moved())
        rows.append({"level": goal.level, "metric": goal.metric.label, "target": goal.target,
                     "tolerance": goal.tolerance, **_interval_columns("before", goal_result.before),
                     **_interval_columns("after", goal_result.after),
                     **_interval_columns("fresh", goal_result.fresh),
                     # a level only measured has no verdict: it met its own value by definition
                     "met": goal_result.met if goal.free else pd.NA,
                     "confirmed": goal_result.confirmed if goal.free else pd.NA,
                     "moved": moved if goal.free else "(not moved)"})
    return pd.DataFrame(rows, columns=list(LADDER_COLUMNS)).astype({"met": "boolean", "confirmed": "boolean"})


def order_table(result: TuneResult) -> pd.DataFrame:
    """The ladder check (:func:`analysis.tuning.fresh.ladder_check`): per metric and level, the value on fresh games
    with the tuned data (and the starting data, when a card moved), and whether it is below the next level's."""
    out_of_order = {(problem.metric, problem.lower.level) for problem in result.order_problems}
    following = {(check.metric, check.level - 1) for check in result.checks}
    rows = []
    for check in result.checks:
        rows.append({"level": check.level, "metric": check.metric, "tuned": check.tuned,
                     **_interval_columns("before", check.before), **_interval_columns("after", check.after),
                     "in_order": (check.metric, check.level) not in out_of_order
                     if (check.metric, check.level) in following else pd.NA})
    return pd.DataFrame(rows, columns=list(CHECK_COLUMNS)).astype({"in_order": "boolean"})


def moved_table(result: TuneResult) -> pd.DataFrame:
    """One row per parameter that changed."""
    rows = [{"level": goal_result.goal.level, "parameter": name, "before": before, "after": after}
            for goal_result in result.results for name, before, after in goal_result.moved()]
    return pd.DataFrame(rows, columns=["level", "parameter", "before", "after"])


def search_table(result: TuneResult) -> pd.DataFrame:
    """Per tuned level: races, evaluations, distinct candidates and the full game count."""
    rows = [{"level": goal_result.goal.level, "moves": goal_result.search.moves,
             "races": len({trial.race for trial in goal_result.search.trials}),
             "evaluations": len(goal_result.search.trials),
             "candidates": len({trial.point for trial in goal_result.search.trials}), "games": result.games}
            for goal_result in result.results if goal_result.goal.free]
    return pd.DataFrame(rows, columns=["level", "moves", "races", "evaluations", "candidates", "games"])


@styled
def plot_tuned_ladder(ladder: pd.DataFrame) -> Figure:
    """The metric per level before (grey) and after (blue) tuning, with intervals, targets and tolerance bands.

    Parameters
    ----------
    ladder
        :func:`ladder_table`'s table; one panel per metric.

    Returns
    -------
    Figure
    """
    metrics = list(dict.fromkeys(ladder["metric"]))
    figure, axes = new_figure(1, len(metrics), width=max(7.0, 5.0 * len(metrics)))
    for ax, metric in zip(axes.flat, metrics, strict=True):
        rows = ladder[ladder["metric"] == metric].sort_values("level")
        levels = rows["level"].to_numpy(dtype=float)
        for offset, column, color, label in ((-0.12, "before", "0.55", "before"), (0.12, "after", "C0", "after")):
            centre = rows[column].to_numpy(dtype=float)
            errors = np.vstack([centre - rows[f"{column}_low"].to_numpy(dtype=float),
                                rows[f"{column}_high"].to_numpy(dtype=float) - centre])
            ax.errorbar(levels + offset, centre, yerr=errors, marker="o", linestyle="-", capsize=3, color=color,
                        label=label)
        targets = rows[rows["target"].notna()]
        for index, (level, target, tolerance) in enumerate(targets[["level", "target", "tolerance"]].itertuples(
                index=False, name=None)):
            ax.add_patch(Rectangle((level - 0.3, target - tolerance), 0.6, 2 * tolerance, color="0.2", alpha=0.12,
                                   linewidth=0))
            ax.hlines(target, level - 0.3, level + 0.3, color="black", linewidth=1.4,
                      label="target ± tolerance" if index == 0 else None)
        level_ticks(ax, rows["level"])
        ax.set_xlabel("Luna's level")
        ax.set_ylabel(metric)
        ax.set_title(metric)
        legend(ax, loc="best")
    return figure


def _manifest(result: TuneResult, tuned_file: Path) -> dict[str, object]:
    """The settings, and the digests of the data the search started from and of the tuned data: the latter is
    the one a ``simulate --overlay tuned.toml`` manifest records, so a run can be traced to its tuning."""
    start = load_game_data(result.start_overlay)
    return {"command": "tune", "target_file": result.targets.path, "name": result.targets.name,
            "games": result.games, "seed": result.seed, "engine": result.engine, "overlay": result.start_overlay,
            "levels": [goal_result.goal.level for goal_result in result.results],
            "data": {"digest": start.digest, "sources": list(start.sources)},
            "tuned_data": {"digest": load_game_data(tuned_file).digest},
            "versions": package_versions()}


def outcome_lines(result: TuneResult) -> list[str]:
    """Each tuned level's outcome (:func:`analysis.tuning.tune.summary_line`) and each order problem, one line each:
    tuned.toml's comments."""
    return [*(summary_line(goal_result) for goal_result in result.results if goal_result.goal.free),
            *(f"warning: {problem.sentence()}" for problem in result.order_problems)]


def write_tuning(result: TuneResult, directory: str | Path) -> None:
    """Write the output files of a tuning into ``directory`` (the caller moves it into place)."""
    root = Path(directory)
    tuned = [goal_result for goal_result in result.results if goal_result.goal.free]
    met = sum(goal_result.met for goal_result in tuned)
    settings = f"{result.games} games per candidate, seed {result.seed}"
    # the target file's description says what was wanted; what came of it follows, so that the two never disagree
    wanted = result.targets.description.strip()
    description = (f"{wanted}{'' if wanted.endswith(('.', '!', '?')) else '.'} " if wanted else "") + \
        f"Tuned by luna-balance tune from {result.targets.path} ({settings}): {met} of {len(tuned)} level(s) " \
        "within tolerance on fresh games."
    comment = [f"Tuned by luna-balance tune from {result.targets.path} ({settings}, engine {result.engine}).",
               *outcome_lines(result)]
    write_overlay(root / TUNED_FILE, result.overlay, f"tuned: {result.targets.name}", description, comment)
    atomic_write(root / TUNING_FILE, tuning_table(result).to_csv(index=False, lineterminator="\n"))
    ladder = ladder_table(result)
    tables = {"ladder": ladder, "order": order_table(result), "moved": moved_table(result),
              "search": search_table(result)}
    problems = result.order_problems
    introduction = (f"Target file {result.targets.path}: {len(tuned)} level(s) tuned, {met} within tolerance of the "
                    f"target on fresh games (games {result.games}-{2 * result.games - 1} of the seed, which the "
                    f"search never played); {result.games} games per candidate on a race's last stage, seed "
                    f"{result.seed}, engine {result.engine}. "
                    + (f"{len(problems)} pair(s) of adjacent levels out of order after tuning (see below). "
                       if problems else "The levels around the tuned ones stay in order. ")
                    + f"The tuned data: {TUNED_FILE} (use it with --overlay or study --variant). The search finds "
                    "the closest level its moves reach from the start on one seed's games; another seed may "
                    "settle on a neighbouring level.")
    write_report(root, tables, {"ladder": plot_tuned_ladder(ladder)}, title=f"Tuning: {result.targets.name}",
                 sections=SECTIONS, introduction=introduction,
                 captions={"ladder": "The tuned metric per level, before and after, with 95 % intervals"})
    atomic_write(root / MANIFEST_FILE, json.dumps(_manifest(result, root / TUNED_FILE), indent=2) + "\n")


def run_tune(target_file: str | Path, out: str | Path, games: int = DEFAULT_TUNE_GAMES, seed: int = DEFAULT_TUNE_SEED,
             engine: str = DEFAULT_ENGINE, overlay: str | Path | None = None,
             log: Callable[[str], None] | None = None, progress: Callable[[str], None] | None = None) -> TuneResult:
    """Read a target file, tune, and write ``out`` (``tuned.toml``, ``tuning.csv``, ``report.html``) atomically.

    Parameters
    ----------
    target_file
        The TOML target file (:mod:`analysis.tuning.targets`).
    out
        The output directory; an earlier tuning's directory there is replaced whole.
    games, seed, engine
        As :func:`tune`.
    overlay
        An overlay file to start from instead of the shipped data; ``tuned.toml`` includes it.
    log
        Called with a line per finished level.
    progress
        Called with a line per race.

    Raises
    ------
    DataError
        A bad target file or overlay (``file: field: problem``).
    sim.run.OutputPathError
        No directory can be written at ``out`` (checked before any game is played).
    """
    # one game gave a mean score's interval as [-inf, inf] and played on; readings and sensitivity ask 2 too
    games = check_games(games, least=MIN_INTERVAL_GAMES)
    seed = check_seed(seed)  # Python ints: the manifest's JSON takes no numpy integer
    start_overlay, raw_luna = start_data(overlay)
    profiles = load_game_data(start_overlay or None).players.profiles
    targets = read_targets(target_file, raw_luna, profiles)
    # read from the overlay's file, so that a problem names it (the tuner's own copy is "<start>")
    problem = seating_problem(targets, load_game_data(overlay))
    if problem:
        raise DataError([problem])
    out = Path(out)
    with output_directory(out, "tune", inputs=(target_file, overlay)) as temporary:
        result = tune(targets, start_overlay, raw_luna, games, seed, engine, log=log,
                      overlay_source=None if overlay is None else str(overlay), progress=progress)
        write_tuning(result, temporary)
    return result
