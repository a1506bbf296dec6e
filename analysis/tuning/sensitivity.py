"""How much each tunable number of one level moves Luna's score and win rate: one change at a time, paired.

``luna-balance sensitivity --level L`` changes one parameter (:mod:`analysis.tuning.parameters`) at a
time: each token position ±1 and ±2, the start positions of levels 6-8 ±1 and ±2, grade-2 use switched,
and (with ``--cards``) every number on Luna's cards ±1; a change that makes no valid level (a token off the
track or past its neighbour, a card number below its least value) is skipped and counted. Every changed variant plays
the *same* games as the base (same seed and game numbers: common random numbers), so the per-game
differences of Luna's total score and, against an opponent, her win share (``won``: a tie counts
1/k) measure the change with little noise: mean difference ± t·sd/√n (Student's t with n - 1 degrees of
freedom, 1.96 for thousands of games).

The data are loaded once; each variant is the base with Luna's part merged and validated again
(:func:`analysis.tuning.parameters.variant_data`) and played in one engine call (tables compiled once).

Output directory (written atomically, like a run directory): ``sensitivity.csv`` (parameter, change,
metric, base, changed, diff, ci_low, ci_high; biggest effects first within each metric),
``figures/tornado.png`` / ``.svg``, ``report.html`` / ``report.md`` (via :mod:`analysis.render`) and
``manifest.json``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.intervals import paired_difference, paired_share_difference
from analysis.render import Section, atomic_write, write_report
from analysis.tuning.options import METRIC_COLUMNS, SCORE_METRIC, WIN_METRIC, SensitivityOptions, parse_opponent
from analysis.tuning.parameters import (
    Parameter,
    card_parameters,
    invalid_reason,
    level_parameters,
    variant_data,
)
from sim.gamedata import GameData, load_game_data
from sim.outputs import MANIFEST_FILE, SENSITIVITY_FILE
from sim.play import play
from sim.run import output_directory, package_versions

COLUMNS = ("parameter", "change", "metric", "base", "changed", "diff", "ci_low", "ci_high")
TOKEN_STEPS = (-2, -1, 1, 2)  # token and start positions
CARD_STEPS = (-1, 1)  # card numbers
_METRIC_WORDS = {SCORE_METRIC: "mean total score", WIN_METRIC: "win rate"}


@dataclass(frozen=True)
class Change:
    """One variant: a parameter moved by ``step`` from its base value."""

    parameter: Parameter
    step: int
    base: int

    @property
    def value(self) -> int:
        return self.base + self.step

    @property
    def label(self) -> str:
        """The change as the CSV writes it: ``+1``, ``-2``; a switch ``on`` or ``off``."""
        if self.parameter.kind == "switch":
            return "on" if self.value else "off"
        return f"{self.step:+d}"


@dataclass(frozen=True)
class Plan:
    """The changes to play and those skipped as invalid (with the reason of each)."""

    options: SensitivityOptions
    changes: tuple[Change, ...]
    skipped: tuple[tuple[Change, str], ...] = field(default_factory=tuple)


def plan_changes(options: SensitivityOptions) -> Plan:
    """Every one-at-a-time change of the level's parameters (and cards), valid ones to play, invalid ones skipped.

    The opponent is checked here as ``--opponent`` is (a scripted seat of an active profile): the options alone
    do not know the profiles."""
    if options.opponent is not None:
        parse_opponent(options.opponent, load_game_data())
    # the shipped data are the base (raw_luna None everywhere: the parameters module caches their ranges)
    parameters = level_parameters(options.level) + (card_parameters() if options.cards else [])
    changes, skipped = [], []
    for parameter in parameters:
        base = parameter.value()
        steps = {"token": TOKEN_STEPS, "start": TOKEN_STEPS, "switch": (1 - 2 * base,), "card": CARD_STEPS}
        for step in steps[parameter.kind]:
            change = Change(parameter, step, base)
            reason = invalid_reason({parameter.name: change.value})
            if reason is None:
                changes.append(change)
            else:
                skipped.append((change, reason))
    return Plan(options, tuple(changes), tuple(skipped))


def _paired_rows(change: Change, metric: str, base: np.ndarray, changed: np.ndarray) -> dict[str, object]:
    if metric == WIN_METRIC:  # a difference of proportions: the t interval covers far too little near 0 and 1
        diff, low, high = paired_share_difference(changed, base)
    else:
        diff, _, low, high = paired_difference(changed, base)
    return {"parameter": change.parameter.name, "change": change.label, "metric": metric,
            "base": float(base.mean()), "changed": float(changed.mean()), "diff": diff, "ci_low": low,
            "ci_high": high}


def measure(plan: Plan, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Play the base and every change of ``plan`` on the same games; one row per change and metric.

    Returns
    -------
    pandas.DataFrame
        ``COLUMNS``, sorted by metric (score first) and then by the size of the difference, largest first.
    """
    options = plan.options
    data = load_game_data()

    def luna_columns(variant: GameData) -> dict[str, np.ndarray]:
        played = play(options.seats, options.games, options.seed, data=variant, engine=options.engine)
        if progress is not None:
            progress(options.games)
        return {metric: played.column(METRIC_COLUMNS[metric]) for metric in options.metrics}

    base = luna_columns(data)
    rows = []
    for change in plan.changes:
        variant = variant_data({change.parameter.name: change.value}, data, label=change.parameter.name)
        changed = luna_columns(variant)
        rows += [_paired_rows(change, metric, base[metric], changed[metric]) for metric in options.metrics]
    return sort_effects(pd.DataFrame(rows, columns=list(COLUMNS)), options.metrics)


def sort_effects(table: pd.DataFrame, metrics: tuple[str, ...]) -> pd.DataFrame:
    """Rows by metric (in ``metrics`` order), then by |diff|, largest first (ties in parameter order)."""
    order = {metric: index for index, metric in enumerate(metrics)}
    keyed = table.assign(_metric=table["metric"].map(order), _size=-table["diff"].abs())
    return keyed.sort_values(["_metric", "_size"], kind="stable").drop(columns=["_metric", "_size"]).reset_index(
        drop=True)


# ---------------------------------------------------------------- the output directory

def _describe(options: SensitivityOptions) -> str:
    against = f"against {options.opponent}" if options.opponent else "alone"
    return f"Luna at level {options.level} {against}"


def parameter_effects(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per parameter of one metric: its largest |diff| over its changes and whether an interval excludes 0."""
    rows = table[table["metric"] == metric]
    clear = (rows["ci_low"] > 0) | (rows["ci_high"] < 0)
    grouped = rows.assign(size=rows["diff"].abs(), clear=clear).groupby("parameter", sort=False)
    return grouped.agg(size=("size", "max"), clear=("clear", "any")).sort_values("size", ascending=False,
                                                                                   kind="stable")


def summary_sentence(plan: Plan, table: pd.DataFrame, top: int = 3) -> str:
    """Which parameters matter most, per metric, and how many changes were skipped."""
    options = plan.options
    played = f"{len(plan.changes)} change{'' if len(plan.changes) == 1 else 's'} played"
    parts = [f"{_describe(options)}, {options.games:,} paired games per change ({played}"
             + (f", {len(plan.skipped)} skipped as invalid)." if plan.skipped else ").")]
    for metric in options.metrics:
        effects = parameter_effects(table, metric)
        clear = effects[effects["clear"]]
        if clear.empty:
            parts.append(f"No change moved her {_METRIC_WORDS[metric]} beyond its 95 % interval.")
            continue
        unit = " CrypCoin" if metric == SCORE_METRIC else " percentage points"
        scale = 1.0 if metric == SCORE_METRIC else 100.0
        named = ", ".join(f"{name} (up to {_two_digits(size * scale)}{unit})" for name, size in
                          clear["size"].head(top).items())
        parts.append(f"Her {_METRIC_WORDS[metric]} depends most on {named}; parameters with an effect beyond "
                     f"its 95 % interval: {len(clear)} of {len(effects)}.")
    return " ".join(parts)


def _two_digits(value: float) -> str:
    """``value`` to two significant digits in plain notation: 110, 4.3, 0.052 (``:.2g`` gives 1.1e+02)."""
    return f"{float(f'{value:.2g}'):,.{max(0, 1 - math.floor(math.log10(abs(value))))}f}" if value else "0"


def write_sensitivity_files(plan: Plan, table: pd.DataFrame, folder: Path) -> str:
    """Write ``sensitivity.csv``, the tornado plot and the report into ``folder``; returns the summary sentence."""
    from analysis.tuning.plots import TORNADO_PARAMETERS, plot_tornado

    atomic_write(folder / SENSITIVITY_FILE, table.to_csv(index=False, lineterminator="\n"))
    sentence = summary_sentence(plan, table)
    skipped = pd.DataFrame([{"parameter": change.parameter.name, "change": change.label, "reason": reason}
                            for change, reason in plan.skipped], columns=["parameter", "change", "reason"])
    tables = {f"effects_{metric}": table[table["metric"] == metric] for metric in plan.options.metrics}
    tables["skipped"] = skipped
    tornado_text = (f"Per metric, the {TORNADO_PARAMETERS} parameters with the largest effects, largest on top: each "
                    "bar is the parameter's change down (decrease) or up (increase) with the largest effect (which "
                    "need not be its largest step; every change is in the tables below), changed minus base over "
                    "the same games; the whiskers are paired 95 % intervals.")
    sections = [Section("summary", "Which parameters matter", tornado_text, ("tornado",)),
                *(Section(f"effects-{metric}", f"Effects on Luna's {_METRIC_WORDS[metric]}",
                          "Changed minus base over the same games, with paired 95 % intervals; biggest first.",
                          (f"effects_{metric}",)) for metric in plan.options.metrics),
                Section("skipped", "Changes skipped", "Changes the data would refuse (the reason of each).",
                        ("skipped",))]
    write_report(folder, tables, {"tornado": plot_tornado(table, plan.options.metrics)},
                 title=f"Sensitivity of level {plan.options.level}", sections=sections, introduction=sentence,
                 captions={"tornado": "The parameters with the largest effects (paired 95 % intervals)"})
    return sentence


def run_sensitivity_dir(plan: Plan, out: str | Path, progress: Callable[[int], None] | None = None) -> tuple[Path, str]:
    """Measure ``plan`` and write the output directory ``out`` atomically; returns it and the summary sentence.

    Raises
    ------
    sim.run.OutputPathError
        No directory can be written at ``out`` (checked before any game is played).
    """
    out = Path(out)
    started = time.perf_counter()
    with output_directory(out, "sensitivity") as temporary:
        table = measure(plan, progress)
        sentence = write_sensitivity_files(plan, table, temporary)
        options = plan.options
        base = load_game_data()  # every change is played against the shipped data
        manifest = {"command": "sensitivity", "level": options.level, "opponent": options.opponent,
                    "games": options.games, "seed": options.seed, "engine": options.engine, "cards": options.cards,
                    "changes": len(plan.changes), "skipped": len(plan.skipped),
                    "data": {"digest": base.digest, "sources": list(base.sources)}, "versions": package_versions(),
                    "seconds": round(time.perf_counter() - started, 3)}
        atomic_write(temporary / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
    return out, sentence
