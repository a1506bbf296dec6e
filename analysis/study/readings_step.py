"""A study's "Rule readings" section (``luna-balance study --readings``).

The same computation as ``luna-balance readings`` (:func:`analysis.readings.compare_readings`): Luna alone at
each of the study's levels, with the study's seed, rounds and starting bonus, ``plan.readings_games`` games
per level and reading. The table is stored whole as ``readings/readings.csv`` beside the settings it was
played with (``readings/settings.json``, written last), so a rerun keeps it, and other settings or data
play it again, as a stale part is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from analysis.readings import (
    ROUND_PANELS_NOTE,
    SECTION_TEXT,
    compare_readings,
    findings,
    games_to_play,
    readings_figure,
    summary_table,
)
from analysis.render import Section, atomic_write
from analysis.study.plan import StudyError, StudyPlan, read_json, rerun_command
from sim.gamedata import GameData
from sim.outputs import READINGS_FILE

READINGS_DIR = "readings"
SETTINGS_FILE = "settings.json"  # in READINGS_DIR, written last: what the stored table was played with
SECTION_ID = "rule-readings"


def expected_settings(plan: StudyPlan, data: GameData) -> dict[str, Any]:
    """What a stored table must have been played with to be this study's."""
    return {"levels": list(plan.levels), "games": plan.readings_games, "seed": plan.seed, "rounds": plan.rounds,
            "start_bonus": plan.start_bonus, "board": plan.board, "data_digest": data.digest}


#: The key of :data:`SETTINGS_FILE` that holds the SHA-256 of the ``readings.csv`` written with it. A CSV has no
#: footer that tells a file cut short (parquet has): a table truncated or edited after it was written was kept
#: by a rerun and drawn as complete, a cut row as a row of blanks.
TABLE_DIGEST = "table_sha256"


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def readings_are_finished(study_dir: Path, plan: StudyPlan, data: GameData) -> bool:
    """Whether ``readings/`` holds the table of exactly these settings, as it was written."""
    stored = read_json(study_dir / READINGS_DIR / SETTINGS_FILE)
    if not isinstance(stored, dict):
        return False
    digest = stored.pop(TABLE_DIGEST, None)  # settings written before the digest: the table as it is
    table = study_dir / READINGS_DIR / READINGS_FILE
    return stored == expected_settings(plan, data) and table.is_file() and digest in (None, _digest(table))


def run_readings(study_dir: Path, plan: StudyPlan, data: GameData, engine: str,
                 progress: Callable[[int], None] | None = None) -> bool:
    """Play the study's rule-reading comparison unless it is stored already; whether it was played."""
    if not plan.readings_games or readings_are_finished(study_dir, plan, data):
        return False
    table = compare_readings(data, plan.levels, plan.readings_games, plan.seed, (), engine, plan.rounds,
                             plan.start_bonus, progress, plan.board)
    folder = study_dir / READINGS_DIR
    text = table.to_csv(index=False, lineterminator="\n")
    atomic_write(folder / READINGS_FILE, text)
    settings = {**expected_settings(plan, data), TABLE_DIGEST: hashlib.sha256(text.encode()).hexdigest()}
    atomic_write(folder / SETTINGS_FILE, json.dumps(settings, indent=2) + "\n")
    return True


def readings_games_to_play(plan: StudyPlan, data: GameData) -> int:
    """Games :func:`run_readings` plays (for a progress bar)."""
    return games_to_play(data, plan.levels, plan.readings_games)


def add_readings_section(study_dir: str | Path, plan: StudyPlan, tables: dict[str, pd.DataFrame],
                         figures: dict[str, Figure], sections: tuple[Section, ...],
                         captions: dict[str, str]) -> tuple[Section, ...]:
    """With ``--readings``: its tables, figure and section (before the appendix); else ``sections`` as they are.

    Raises
    ------
    StudyError
        The comparison is not stored (the study was interrupted before it finished).
    """
    if not plan.readings_games:
        return sections
    path = Path(study_dir) / READINGS_DIR / READINGS_FILE
    if not path.is_file():
        raise StudyError(f"{study_dir}: the rule-readings comparison is not finished; rerun: "
                         f"{rerun_command(plan, study_dir, 'luna-balance study --readings ...')}")
    stored = read_json(Path(study_dir) / READINGS_DIR / SETTINGS_FILE)
    digest = stored.get(TABLE_DIGEST) if isinstance(stored, dict) else None
    if digest is not None and digest != _digest(path):
        raise StudyError(f"{path}: changed since the study wrote it (cut short or edited); rerun the study to play "
                         f"the comparison again: {rerun_command(plan, study_dir, 'luna-balance study --readings ...')}")
    table = pd.read_csv(path)
    tables["readings_score"] = summary_table(table)
    tables["readings"] = table
    figures["readings"] = readings_figure(table)
    captions["readings"] = ("What each rule reading changes, Luna alone (paired differences, 95 % intervals; "
                            f"{ROUND_PANELS_NOTE})")
    text = " ".join([SECTION_TEXT, f"Luna alone, {plan.readings_games} games per level and reading.",
                     *findings(table)])
    section = Section(SECTION_ID, "Rule readings", text, ("readings_score", "readings"))
    at = len(sections) - 1 if sections and sections[-1].id == "runs" else len(sections)
    return (*sections[:at], section, *sections[at:])
