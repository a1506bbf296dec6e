"""What a study is: its parts, its variants, its defaults and the ``study.json`` that records them.

This module reads no tables (no pandas, no matplotlib): the command line builds its parser from the
defaults below, and the runner decides what to simulate, without paying for the analysis stack.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from analysis.schema import BASE_VARIANT, CATEGORY_SCORES, MANIFEST_FILE, SCORE_TOTAL
from sim.config import DEFAULT_START_BONUS
from sim.constants import LEVELS, MAX_LEVEL, MIN_LEVEL, ROUNDS, builtin_profiles

STUDY_FILE = "study.json"
RUNS_DIR = "runs"
VARIANTS_DIR = "variants"

# The study's defaults, for the Python API and the command line alike.
DEFAULT_NAME = "default"
DEFAULT_GAMES = 200_000
DEFAULT_SEED = 2026
DEFAULT_LEVELS: tuple[int, ...] = LEVELS
DEFAULT_RESULTS = "results"
#: Version of the study.json layout; bump when its meaning changes.
STUDY_FORMAT = 1
#: The manifest settings that decide whether a stored part is the part wanted. Engine, workers and
#: chunk size are left out on purpose: the engines agree game for game and chunking never changes
#: a result, so a part played with another engine is still the same part.
MATCHED_SETTINGS = ("seats", "games", "seed", "rounds", "start_bonus", "detail")

#: Version of the per-part summary files (analysis/study/summaries.py); parts summarised otherwise are stale.
SUMMARY_FORMAT = 1
#: Per-game columns every part keeps for pairing (Luna's seats). The categories serve only variant
#: differences, yet are kept always (about 1 MB per 200,000 games and part): a variant added to a finished
#: study then pairs with the base parts as they are, instead of playing them again.
PAIR_COLUMNS: tuple[str, ...] = ("game", "seat", SCORE_TOTAL, *CATEGORY_SCORES, "won")

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_BASE_PART = re.compile(r"^(solo|duel|vs)-")


class StudyError(ValueError):
    """A problem with a study's arguments or stored files; the message is one line for the user."""


@dataclass(frozen=True)
class Variant:
    """A designer's overlay simulated against the base data.

    Attributes
    ----------
    name
        Key used in part names, directory names and the ``variant`` column (the file stem, made
        file-name safe).
    title
        The overlay's own top-level ``name``, else the key; shown in the report.
    source
        The file given on the command line.
    file
        The copy inside the study directory that the runs read, relative to the study directory.
    digest
        SHA-256 of the overlay file's bytes: a changed overlay makes its parts stale.
    """

    name: str
    title: str
    source: str
    file: str
    digest: str


@dataclass(frozen=True)
class Part:
    """One run directory of a study."""

    name: str
    seats: str
    variant: str = BASE_VARIANT
    detail: bool = False
    overlay: str | None = None  # overlay file relative to the study directory
    overlay_digest: str | None = None

    @property
    def run(self) -> str:
        """Run directory relative to the study directory."""
        return f"{RUNS_DIR}/{self.name}"


@dataclass(frozen=True)
class StudyPlan:
    """Everything that decides a study's numbers (and nothing that does not, like workers)."""

    name: str
    games: int
    seed: int
    levels: tuple[int, ...]
    engine: str
    rounds: int = ROUNDS
    start_bonus: str = DEFAULT_START_BONUS
    variants: tuple[Variant, ...] = ()
    parts: tuple[Part, ...] = field(default_factory=tuple)
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": STUDY_FORMAT,
            "name": self.name,
            "command": self.command,
            "games": self.games,
            "seed": self.seed,
            "levels": list(self.levels),
            "engine": self.engine,
            "rounds": self.rounds,
            "start_bonus": self.start_bonus,
            "variants": [asdict(variant) for variant in self.variants],
            "parts": [{**asdict(part), "run": part.run} for part in self.parts],
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> StudyPlan:
        variants = tuple(Variant(**variant) for variant in raw["variants"])
        parts = tuple(Part(**{key: value for key, value in part.items() if key != "run"}) for part in raw["parts"])
        return cls(name=raw["name"], games=int(raw["games"]), seed=int(raw["seed"]), levels=tuple(raw["levels"]),
                   engine=raw["engine"], rounds=int(raw["rounds"]), start_bonus=raw["start_bonus"],
                   variants=variants, parts=parts, command=raw.get("command", ""))


def scripted_profiles() -> tuple[str, ...]:
    """Built-in scripted profiles worth a part: every one shipped in the data except ``passive``."""
    return tuple(profile for profile in builtin_profiles() if profile != "passive")


def base_parts(levels: Iterable[int], profiles: Iterable[str] = ()) -> list[Part]:
    """The default parts for ``levels``: solo games, adjacent-level duels, each profile against each level.

    A duel needs both of its levels in ``levels`` (``4-5`` gives ``duel-L4-L5``; ``0-8`` gives 8).
    """
    chosen = sorted(set(levels))
    parts = [Part(f"solo-L{level}", f"luna:{level}", detail=True) for level in chosen]
    parts += [Part(f"duel-L{level}-L{level + 1}", f"luna:{level},luna:{level + 1}")
              for level in chosen if level + 1 in chosen]
    parts += [Part(f"vs-{profile}-L{level}", f"scripted:{profile},luna:{level}")
              for profile in profiles for level in chosen]
    return parts


def variant_parts(parts: Iterable[Part], variant: Variant) -> list[Part]:
    """The same parts with a variant's overlay (same seats, seed and games: paired with the base)."""
    return [Part(f"{variant.name}/{part.name}", part.seats, variant=variant.name, detail=part.detail,
                 overlay=variant.file, overlay_digest=variant.digest) for part in parts]


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "variant"


def read_variant(path: str | Path) -> tuple[Variant, bytes]:
    """Validate an overlay file and describe it as a variant (the copy is written by the caller).

    Raises
    ------
    sim.gamedata.DataError
        When the file is missing, is not TOML, or does not validate against the shipped data.
    """
    from sim.gamedata import DataError, load_game_data

    source = Path(path)
    load_game_data(source)  # the full validation, with the simulator's own file: field: problem lines
    content = source.read_bytes()
    try:
        title = tomllib.loads(content.decode("utf-8")).get("name")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:  # load_game_data already read it fine
        raise DataError([f"{source}: not valid TOML: {error}"]) from None
    name = _safe_name(source.stem)
    variant = Variant(name=name, title=str(title) if title else name, source=str(path),
                      file=f"{VARIANTS_DIR}/{name}.toml", digest=hashlib.sha256(content).hexdigest())
    return variant, content


def plan_study(name: str, games: int, seed: int, levels: Sequence[int], engine: str,
               variants: Sequence[Variant] = (), profiles: Sequence[str] | None = None,
               command: str = "") -> StudyPlan:
    """Lay out a study's parts (base first, then each variant's copy of every part)."""
    if not _NAME_PATTERN.match(name) or name in (".", ".."):
        raise StudyError(f"--name: {name!r} is not a usable directory name (letters, digits, _ . -)")
    if games < 1:
        raise StudyError(f"--games: must be at least 1, got {games}")
    if not levels or any(level not in LEVELS for level in levels):
        raise StudyError(f"--levels: need levels between {MIN_LEVEL} and {MAX_LEVEL}, got {list(levels)}")
    base = base_parts(levels, scripted_profiles() if profiles is None else profiles)
    taken = {BASE_VARIANT, *(part.name for part in base)}
    for variant in variants:
        if variant.name in taken or _BASE_PART.match(variant.name):
            raise StudyError(f"--variant: {variant.source}: the name {variant.name!r} is taken; rename the file "
                             "(variant names come from the file name and must differ from each other, from 'base' "
                             "and from solo-/duel-/vs- part names)")
        taken.add(variant.name)
    parts = list(base)
    for variant in variants:
        parts += variant_parts(base, variant)
    return StudyPlan(name=name, games=games, seed=seed, levels=tuple(sorted(set(levels))), engine=engine,
                     variants=tuple(variants), parts=tuple(parts), command=command)


# ----------------------------------------------------------------------------------------------
# The stored study: study.json, and whether a stored part is the part the plan wants


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``, or None when it is missing or unreadable."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def read_plan(study_dir: str | Path) -> StudyPlan:
    """The plan stored in ``study_dir/study.json``."""
    path = Path(study_dir) / STUDY_FILE
    raw = read_json(path)
    if raw is None:
        raise StudyError(f"{path}: not found or not readable; is {study_dir} a study directory?")
    if raw.get("format") != STUDY_FORMAT:
        raise StudyError(f"{path}: unknown study format {raw.get('format')!r}")
    try:
        return StudyPlan.from_json(raw)
    except (KeyError, TypeError, ValueError) as error:
        raise StudyError(f"{path}: malformed study file: {error}") from None


def expected_config(plan: StudyPlan, part: Part) -> dict[str, Any]:
    """The manifest settings a finished run of ``part`` records (see :data:`MATCHED_SETTINGS`)."""
    return {"seats": part.seats.split(","), "games": plan.games, "seed": plan.seed, "rounds": plan.rounds,
            "start_bonus": plan.start_bonus, "detail": "rounds" if part.detail else None}


def summary_record(keep_games: bool) -> dict[str, Any]:
    """What a part's manifest records about its summary (``study.summary``): format, pair columns, games kept."""
    return {"format": SUMMARY_FORMAT, "pairs": list(PAIR_COLUMNS), "games_kept": keep_games}


def part_is_finished(study_dir: Path, plan: StudyPlan, part: Part, data_digest: str | None = None,
                     keep_games: bool = False) -> bool:
    """Whether ``runs/<part>`` holds a complete run of exactly this part.

    A run directory only gets its manifest once it is complete (it is moved into place whole), so
    a manifest with the wanted settings and overlay digest means the part needs no more work.
    ``data_digest`` (the resolved game data the part would now use) also has to match when given:
    parts played with other rules data are stale. The part's summary must be of the current format
    and hold the pair columns; with ``keep_games`` the per-game files must have been kept too. Both the runner
    (what to resume) and the report (is the study complete) ask this, so it lives with the plan.
    """
    manifest = read_json(study_dir / part.run / MANIFEST_FILE)
    if manifest is None:
        return False
    config = manifest.get("config") or {}
    wanted = expected_config(plan, part)
    if any(config.get(setting) != wanted[setting] for setting in MATCHED_SETTINGS):
        return False
    study = manifest.get("study") or {}
    if study.get("overlay_digest") != part.overlay_digest:
        return False
    summary = study.get("summary") or {}
    needed = summary_record(keep_games)
    if summary.get("format") != SUMMARY_FORMAT or not set(needed["pairs"]) <= set(summary.get("pairs") or ()):
        return False
    if keep_games and not summary.get("games_kept"):
        return False
    return data_digest is None or (manifest.get("data") or {}).get("digest") == data_digest
