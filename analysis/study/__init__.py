"""A whole balance study in one call: simulate every part, then write the report.

A study is a fixed set of *parts*, each one simulator run directory:

``solo-L<L>``
    Luna alone at level L (per-round records on, for the deck-cycle tables);
``duel-L<L>-L<L+1>``, ``duel-L<L+1>-L<L>``
    two Lunas of adjacent levels in the same games, in both seat orders (the level named first sits in
    seat 0); the report pools the two orders (:mod:`analysis.duels`);
``vs-<profile>-L<L>``, ``vs-<profile>@<strength>-L<L>``
    a scripted profile against Luna at level L, for every built-in profile except ``passive``
    (:func:`analysis.study.plan.scripted_profiles`) or those of ``--profiles``, at each strength of
    ``--strengths`` (strength 1 keeps the plain name);
``<variant>/<part>``
    each of the above again with a designer's overlay TOML, with the *same* seed and game numbers,
    so base and variant games are paired (common random numbers) and their differences are tight.

Layout of a study directory (see ``results/README.md``)::

    study.json                    what the study is: parameters, variants, parts, the command
    variants/<variant>.toml       copy of each overlay, so the study describes itself
    runs/<part>/                  one run directory per part: summary_*.parquet, pairs.parquet, manifest.json
                                  (seats.parquet, luna_rounds.parquet with --keep-games)
    parity/<variant/>vs-<profile>-L<L>.json   with --parity: one strength-at-parity search each
    readings/readings.csv, settings.json      with --readings: the rule readings compared
    tables/, figures/, report.md, report.html   written by analysis.render.write_report

Modules
-------
plan
    The parts, variants, defaults and ``study.json`` (no pandas: the command line reads it).
options, study_file
    The options besides the parts, checked (no pandas); ``study.json`` checked field by field when read back.
checks
    Every part's seats and every parity profile checked against each variant's data before anything is played.
runner
    Plays the missing parts (resume), picks the engine of each part, cleans up after dead processes.
summaries
    Reduces each part, chunk by chunk while it is simulated, to value counts and pair columns stored in
    its run directory, and reads them back (:func:`load_summaries`).
summary_tables, summary_report
    The report's tables and figures from the summaries: the same tables as the frame-based functions
    of :mod:`analysis.stats` / :mod:`analysis.deck` on the games loaded whole.
findings
    The report's first section: per-level answers and sentences on what stands out.
content
    The report's sections and its writing (:func:`render_study_dir`), and :func:`load_study`, which
    loads the games of a study kept with ``--keep-games`` for notebooks.
parity_step, readings_step
    The ``--parity`` searches (resumable, local or on Dask) and their table; the ``--readings`` section.
lock
    One study process per study directory (:mod:`analysis.folder_lock`).

The command handlers (``luna-balance study`` and ``report``) live in :mod:`sim.cli`. The names below
are importable from ``analysis.study`` directly; those of ``runner`` and ``content`` are loaded on first
use, so importing the plan does not import pandas or matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

from analysis.study.plan import (
    DEFAULT_GAMES,
    DEFAULT_LEVELS,
    DEFAULT_NAME,
    DEFAULT_RESULTS,
    DEFAULT_SEED,
    RUNS_DIR,
    STUDY_FILE,
    STUDY_FORMAT,
    VARIANTS_DIR,
    Part,
    StudyError,
    StudyPlan,
    Variant,
    base_parts,
    part_is_finished,
    plan_study,
    read_plan,
    read_variant,
    scripted_profiles,
    variant_parts,
)

_LAZY = {
    "run_study": "runner",
    "resolve_engine": "runner",
    "part_engine": "runner",
    "StudyInterrupted": "runner",
    "load_study": "content",
    "head_to_head": "content",
    "variant_overview": "content",
    "study_content": "content",
    "introduction": "content",
    "render_study_dir": "content",
    "frame_tables": "content",
    "load_summaries": "summaries",
    "StudySummary": "summaries",
    "PartReducer": "summaries",
    "study_tables": "summary_report",
}

__all__ = [
    "DEFAULT_GAMES", "DEFAULT_LEVELS", "DEFAULT_NAME", "DEFAULT_RESULTS", "DEFAULT_SEED", "RUNS_DIR", "STUDY_FILE",
    "STUDY_FORMAT", "VARIANTS_DIR", "Part", "StudyError", "StudyPlan", "Variant", "base_parts", "part_is_finished",
    "plan_study", "read_plan", "read_variant", "scripted_profiles", "variant_parts", *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"analysis.study.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'analysis.study' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
