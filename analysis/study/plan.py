"""What a study is: its parts, its variants, its defaults and the ``study.json`` that records them.

This module reads no tables (no pandas, no matplotlib): the command line builds its parser from the
defaults below, and the runner decides what to simulate, without paying for the analysis stack.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from analysis.schema import BASE_VARIANT, CATEGORY_SCORES, MANIFEST_FILE, ROUNDS_FILE, SCORE_TOTAL, SEATS_FILE
from analysis.study.options import (
    StudyError,
    check_options,
    check_profiles,
    parse_strengths,
    passive_profiles,
)
from analysis.study.options import parse_profiles as parse_profiles  # re-exported: the CLI and runner import it here
from analysis.study.study_file import check_study_json
from sim.config import DEFAULT_START_BONUS, DEFAULT_STRENGTH, profile_label, strength_label
from sim.constants import (
    DEFAULT_BACKEND,
    DEFAULT_BOARD,
    DETAIL_ROUNDS,
    LEVELS,
    ROUNDS,
    builtin_profiles,
)
from sim.outputs import (
    CARD_SUMMARY_FILE,
    PAIRS_FILE,
    ROUND_SUMMARY_FILE,
    SEAT_SUMMARY_FILE,
    STUDY_FILE,
    TIMING_SUMMARY_FILE,
)

RUNS_DIR = "runs"
VARIANTS_DIR = "variants"
PARITY_DIR = "parity"

# The study's defaults, for the Python API and the command line alike.
DEFAULT_NAME = "default"
DEFAULT_GAMES = 200_000
DEFAULT_SEED = 2026
DEFAULT_LEVELS: tuple[int, ...] = LEVELS
DEFAULT_RESULTS = "results"
DEFAULT_STRENGTHS: tuple[float, ...] = (DEFAULT_STRENGTH,)
#: Games per strength tried by the study's strength-at-parity step. About 28 strengths are tried per
#: profile and level, so this bounds the step to about 28 x 10,000 games per (profile, level), ~2 s with
#: numba on one core (the exact parity interval of the strength is then about +-0.01 wide; the one printed,
#: its ends found to the 0.01 bisection step and rounded outward, 0.02-0.05 wide).
DEFAULT_PARITY_GAMES = 10_000
#: Games per strength tried by the stand-alone ``parity`` command: twice the study's, for the narrower
#: intervals of the README's parity table, since it searches one profile at a time.
PARITY_COMMAND_GAMES = 20_000
#: Games per level and reading of the study's "Rule readings" section (``study --readings``).
DEFAULT_READINGS_GAMES = 20_000
#: Bisection width of a strength at parity, shared by the ``parity`` command and the study.
PARITY_TOLERANCE = 0.01
#: Version of a stored parity result: 2 measures the win rate at the strength shown and notes a parity not reached.
PARITY_RESULT_FORMAT = 2
#: Version of the study.json layout; bump when its meaning changes.
STUDY_FORMAT = 1
#: The manifest settings that decide whether a stored part is the part wanted. Engine, workers and
#: chunk size are left out on purpose: the engines agree game for game and chunking never changes
#: a result, so a part played with another engine is still the same part.
MATCHED_SETTINGS = ("seats", "games", "seed", "rounds", "start_bonus", "board", "detail")
#: What a manifest written before a setting existed was played with (it lacks the key).
_SETTING_BEFORE = {"board": DEFAULT_BOARD}

#: Version of the per-part summary files (analysis/study/summaries.py); parts summarised otherwise are stale.
SUMMARY_FORMAT = 1
#: Per-game columns every part keeps for pairing (Luna's seats). The categories serve only variant
#: differences, yet are kept always (about 1 MB per 200,000 games and part): a variant added to a finished
#: study then pairs with the base parts as they are, instead of playing them again.
PAIR_COLUMNS: tuple[str, ...] = ("game", "seat", SCORE_TOTAL, *CATEGORY_SCORES, "won")

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_BASE_PART = re.compile(r"^(solo|duel|vs)-")


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
class ParityTask:
    """One strength-at-parity search of a study: a profile against one level, in the base or a variant.

    Its result is a small JSON file (:attr:`file`) written whole when the search ends, so an
    interrupted study resumes it like a part.
    """

    profile: str
    level: int
    variant: str = BASE_VARIANT
    overlay: str | None = None  # overlay file relative to the study directory
    overlay_digest: str | None = None

    @property
    def name(self) -> str:
        """``vs-<profile>-L<level>``, prefixed ``<variant>/`` like the variant's parts."""
        prefix = "" if self.variant == BASE_VARIANT else f"{self.variant}/"
        return f"{prefix}vs-{self.profile}-L{self.level}"

    @property
    def file(self) -> str:
        """Result file relative to the study directory."""
        return f"{PARITY_DIR}/{self.name}.json"


@dataclass(frozen=True)
class StudyPlan:
    """Everything that decides a study's numbers, and how it is played (recorded, never compared).

    ``backend`` and ``scheduler`` only say where the games ran: like the engine and the workers they
    change no number, so a study resumed on another backend keeps its finished parts.
    """

    name: str
    games: int
    seed: int
    levels: tuple[int, ...]
    engine: str
    rounds: int = ROUNDS
    start_bonus: str = DEFAULT_START_BONUS
    board: str = DEFAULT_BOARD
    variants: tuple[Variant, ...] = ()
    parts: tuple[Part, ...] = field(default_factory=tuple)
    command: str = ""
    profiles: tuple[str, ...] = ()
    strengths: tuple[float, ...] = DEFAULT_STRENGTHS
    parity: bool = False
    parity_games: int = DEFAULT_PARITY_GAMES
    parity_profiles: tuple[str, ...] = ()  # the chosen profiles that can win (passive ones have no parity)
    backend: str = DEFAULT_BACKEND
    scheduler: str | None = None
    readings_games: int = 0  # games per level and rule reading of the "Rule readings" section; 0: none

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
            "board": self.board,
            "profiles": list(self.profiles),
            "strengths": list(self.strengths),
            "parity": self.parity,
            "parity_games": self.parity_games,
            "parity_tolerance": PARITY_TOLERANCE,
            "parity_profiles": list(self.parity_profiles),
            "backend": self.backend,
            "scheduler": self.scheduler,
            "readings_games": self.readings_games,
            "variants": [asdict(variant) for variant in self.variants],
            "parts": [{**asdict(part), "run": part.run} for part in self.parts],
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> StudyPlan:
        variants = tuple(Variant(**variant) for variant in raw["variants"])
        parts = tuple(Part(**{key: value for key, value in part.items() if key != "run"}) for part in raw["parts"])
        # Studies written before the study options existed lack their keys: they were played with the defaults.
        return cls(name=raw["name"], games=int(raw["games"]), seed=int(raw["seed"]), levels=tuple(raw["levels"]),
                   engine=raw["engine"], rounds=int(raw["rounds"]), start_bonus=raw["start_bonus"],
                   variants=variants, parts=parts, command=raw.get("command", ""),
                   profiles=tuple(raw.get("profiles", ())),
                   strengths=tuple(float(value) for value in raw.get("strengths", DEFAULT_STRENGTHS)),
                   parity=bool(raw.get("parity", False)),
                   parity_games=int(raw.get("parity_games", DEFAULT_PARITY_GAMES)),
                   parity_profiles=tuple(raw.get("parity_profiles", ())),
                   backend=raw.get("backend", DEFAULT_BACKEND), scheduler=raw.get("scheduler"),
                   board=raw.get("board", DEFAULT_BOARD),
                   readings_games=int(raw.get("readings_games", 0)))

    def parity_tasks(self) -> tuple[ParityTask, ...]:
        """The strength-at-parity searches: each parity profile at each level, base first, then each variant."""
        if not self.parity:
            return ()
        tasks = [ParityTask(profile, level) for profile in self.parity_profiles for level in self.levels]
        for variant in self.variants:
            tasks += [ParityTask(task.profile, task.level, variant.name, variant.file, variant.digest)
                      for task in tasks if task.variant == BASE_VARIANT]
        return tuple(tasks)

    def options_text(self) -> str:
        """The study options in words, for the report's introduction ("" for a default study)."""
        words = []
        if self.profiles:
            strengths = ", ".join(strength_label(strength) for strength in self.strengths)
            plural = "s" if len(self.strengths) > 1 else ""
            words.append(f"scripted profiles {', '.join(self.profiles)} at strength{plural} {strengths}")
        if self.parity:
            words.append(f"strength at parity of {', '.join(self.parity_profiles) or 'no profile'} "
                         f"({self.parity_games} games per strength tried)")
        if self.readings_games:
            words.append(f"rule readings ({self.readings_games} games per level and reading)")
        if self.backend != DEFAULT_BACKEND:
            words.append(f"played on the {self.backend} backend at {self.scheduler}")
        return "; ".join(words)


def scripted_profiles() -> tuple[str, ...]:
    """Built-in scripted profiles worth a part: every one shipped in the data except ``passive``."""
    return tuple(profile for profile in builtin_profiles() if profile != "passive")


def versus_part_name(profile: str, strength: float, level: int) -> str:
    """``vs-<profile>-L<level>`` at strength 1 (the name studies have always used, so they resume), else
    ``vs-<profile>@<strength>-L<level>``: the ``@`` spelling of seats (``scripted:balanced@0.8``) and of
    the report's ``opponents`` column, so a part's name reads like its opponent everywhere."""
    return f"vs-{profile_label(profile, strength)}-L{level}"


def base_parts(levels: Iterable[int], profiles: Iterable[str] = (),
               strengths: Iterable[float] = DEFAULT_STRENGTHS) -> list[Part]:
    """The default parts for ``levels``: solo games, adjacent-level duels, each profile against each level.

    A duel needs both of its levels in ``levels`` and is played in both seat orders, since the seat matters
    (the second seat of two level-4 Lunas won 51.7 % ± 0.5 of 40,000 games): ``duel-L<L>-L<L+1>``, the lower
    level in seat 0 (the name studies have always used, so they resume), then ``duel-L<L+1>-L<L>``, the higher
    one in seat 0 (``4-5`` gives ``duel-L4-L5`` and ``duel-L5-L4``; ``0-8`` gives 16). Each pair is listed
    together, so the report reads one duel's two orders at a time. Each profile plays each level at each of
    ``strengths`` (see :func:`versus_part_name`).
    """
    chosen = sorted(set(levels))
    parts = [Part(f"solo-L{level}", f"luna:{level}", detail=True) for level in chosen]
    for level in chosen:
        if level + 1 in chosen:
            parts += [Part(f"duel-L{level}-L{level + 1}", f"luna:{level},luna:{level + 1}"),
                      Part(f"duel-L{level + 1}-L{level}", f"luna:{level + 1},luna:{level}")]
    strengths = tuple(strengths)
    for profile in profiles:
        for strength in strengths:
            seat = f"scripted:{profile_label(profile, strength)}"
            parts += [Part(versus_part_name(profile, strength, level), f"{seat},luna:{level}") for level in chosen]
    return parts


def rerun_command(plan: StudyPlan, root: str | Path, fallback: str = "luna-balance study ...") -> str:
    """The command that resumes the study at ``root``: the recorded one, with ``--name`` and ``--results-dir``
    naming where the folder is now (a study folder copied or renamed resumes there, not at its old name)."""
    if not plan.command:
        return fallback
    try:
        words = shlex.split(plan.command)
    except ValueError:  # an older study's line, joined with spaces, whose path held a quote
        return plan.command
    root = Path(root)
    for option, value in (("--name", root.name), ("--results-dir", str(root.parent))):
        if option in words[:-1]:
            words[words.index(option) + 1] = value
    return shlex.join(words)


def variant_parts(parts: Iterable[Part], variant: Variant) -> list[Part]:
    """The same parts with a variant's overlay (same seats, seed and games: paired with the base)."""
    return [Part(f"{variant.name}/{part.name}", part.seats, variant=variant.name, detail=part.detail,
                 overlay=variant.file, overlay_digest=variant.digest) for part in parts]


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "variant"


def variant_name(overlay: str | Path) -> str:
    """The variant an overlay file makes: its file name without ``.toml``, in characters safe in a path."""
    return _safe_name(Path(overlay).stem)


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
    name = variant_name(source)
    variant = Variant(name=name, title=str(title) if title else name, source=str(path),
                      file=f"{VARIANTS_DIR}/{name}.toml", digest=hashlib.sha256(content).hexdigest())
    return variant, content


def plan_study(name: str, games: int, seed: int, levels: Sequence[int], engine: str,
               variants: Sequence[Variant] = (), profiles: Sequence[str] | None = None,
               command: str = "", strengths: Sequence[float] = DEFAULT_STRENGTHS, rounds: int = ROUNDS,
               start_bonus: str = DEFAULT_START_BONUS, parity: bool = False,
               parity_games: int = DEFAULT_PARITY_GAMES, backend: str = DEFAULT_BACKEND,
               scheduler: str | None = None, board: str = DEFAULT_BOARD, readings_games: int = 0) -> StudyPlan:
    """Lay out a study's parts (base first, then each variant's copy of every part) and record its options.

    ``profiles`` None means :func:`scripted_profiles`; ``strengths`` are validated like
    ``--strengths``. With ``parity``, every chosen profile that can win gets a strength-at-parity
    search per level (and per variant), ``parity_games`` games per strength tried.
    """
    if not _NAME_PATTERN.match(name) or name in (".", ".."):
        raise StudyError(f"{name!r} is not a usable directory name (letters, digits, _ . -)", "name")
    games, seed, levels, rounds, parity_games, readings_games = check_options(
        games, seed, levels, rounds, start_bonus, parity_games, backend, scheduler, board, readings_games)
    chosen = scripted_profiles() if profiles is None else check_profiles(profiles)
    strengths = parse_strengths(",".join(str(float(strength)) for strength in strengths))
    base = base_parts(levels, chosen, strengths)
    taken = {BASE_VARIANT, *(part.name for part in base)}
    for variant in variants:
        key = variant.name.replace(".", "_")  # a.b and a_b: one figure name (content._figure_name), one overwritten
        if key in taken or _BASE_PART.match(variant.name):
            raise StudyError(f"{variant.source}: the name {variant.name!r} is taken; rename the file "
                             "(variant names come from the file name and must differ from each other, with . read "
                             "as _, from 'base' and from solo-/duel-/vs- part names)", "variants")
        taken.add(key)
    parts = list(base)
    for variant in variants:
        parts += variant_parts(base, variant)
    passive = passive_profiles() if parity else frozenset()
    return StudyPlan(name=name, games=games, seed=seed, levels=tuple(sorted(set(levels))), engine=engine,
                     variants=tuple(variants), parts=tuple(parts), command=command, rounds=rounds,
                     start_bonus=start_bonus, board=board, profiles=chosen, strengths=strengths, parity=parity,
                     parity_games=parity_games,
                     parity_profiles=tuple(profile for profile in chosen if profile not in passive),
                     backend=backend, scheduler=scheduler, readings_games=readings_games)


# ----------------------------------------------------------------------------------------------
# The stored study: study.json, and whether a stored part is the part the plan wants


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``, or None when it is missing or unreadable."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: arrays or objects nested too deeply
        return None
    return value if isinstance(value, dict) else None


def read_plan(study_dir: str | Path) -> StudyPlan:
    """The plan stored in ``study_dir/study.json``."""
    path = Path(study_dir) / STUDY_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StudyError(f"{path}: not found; is {study_dir} a study directory?") from None
    except OSError as error:
        raise StudyError(f"{path}: cannot be read ({error.strerror or error})") from None
    except ValueError as error:  # broken JSON or bytes that are not UTF-8
        raise StudyError(f"{path}: not a study file, its JSON is broken ({error})") from None
    except RecursionError:
        raise StudyError(f"{path}: not a study file, its JSON is broken (nested too deeply)") from None
    if not isinstance(raw, dict):
        raise StudyError(f"{path}: not a study file (a JSON object is expected, found {type(raw).__name__})")
    if raw.get("format") != STUDY_FORMAT:
        raise StudyError(f"{path}: unknown study format {raw.get('format')!r}")
    try:  # every field as the study command checked its option, so the report states only what was played
        check_study_json(raw, {item.name: item.default for item in fields(StudyPlan)})
        plan = StudyPlan.from_json(raw)
        _check_laid_out(plan, old_profiles="profiles" not in raw)
    except StudyError as error:  # names the field: "levels: need levels between 0 and 8, got [4, 5, 99]"
        raise StudyError(f"{path}: malformed study file: {error}") from None
    return plan


def _check_laid_out(plan: StudyPlan, old_profiles: bool) -> None:
    """Refuse recorded parts that the plan's levels, profiles, strengths and variants do not lay out, and a level or
    profile without its parts: the report names them as played. A study written before ``--profiles`` (no
    ``profiles`` key) played every profile of its day, so its vs- parts are taken as recorded; one written before
    the second seat order of duels lacks it, so a duel is never required."""
    for index, variant in enumerate(plan.variants):  # its name and file make paths in the study folder
        if variant.name != _safe_name(variant.name) or variant.file != f"{VARIANTS_DIR}/{variant.name}.toml":
            raise StudyError(f"{variant.name!r} with file {variant.file!r} is not a variant a study writes (a name of "
                             f"letters, digits, _ . -, its file {VARIANTS_DIR}/<name>.toml)", f"variants[{index}]")
    base = base_parts(plan.levels, plan.profiles, plan.strengths)
    wanted = base + [part for variant in plan.variants for part in variant_parts(base, variant)]
    for index, part in enumerate(plan.parts):
        if part not in wanted and not (old_profiles and part.name.split("/")[-1].startswith("vs-")):
            raise StudyError(f"{part.name!r} ({part.seats}) is not a part that the study's levels, profiles, "
                             "strengths and variants lay out", f"parts[{index}]")
    missing = [part for part in wanted if part not in plan.parts and "duel-" not in part.name]
    if missing:
        raise StudyError(f"no part {missing[0].name!r}, which the study's levels, profiles, strengths and variants "
                         "lay out", "parts")


def expected_config(plan: StudyPlan, part: Part) -> dict[str, Any]:
    """The manifest settings a finished run of ``part`` records (see :data:`MATCHED_SETTINGS`)."""
    return {"seats": part.seats.split(","), "games": plan.games, "seed": plan.seed, "rounds": plan.rounds,
            "start_bonus": plan.start_bonus, "board": plan.board, "detail": DETAIL_ROUNDS if part.detail else None}


def summary_record(keep_games: bool) -> dict[str, Any]:
    """What a part's manifest records about its summary (``study.summary``): format, pair columns, games kept."""
    return {"format": SUMMARY_FORMAT, "pairs": list(PAIR_COLUMNS), "games_kept": keep_games}


def part_files(part: Part, keep_games: bool = False) -> tuple[str, ...]:
    """The files a finished part's folder holds beside its manifest (every Luna seat has rounds to summarise)."""
    files = [SEAT_SUMMARY_FILE, PAIRS_FILE]
    if part.detail:
        files += [ROUND_SUMMARY_FILE, CARD_SUMMARY_FILE, TIMING_SUMMARY_FILE]
    if keep_games:
        files += [SEATS_FILE, ROUNDS_FILE] if part.detail else [SEATS_FILE]
    return tuple(files)


def missing_part_files(study_dir: Path, part: Part, keep_games: bool = False) -> list[str]:
    """Which of :func:`part_files` the part's folder lacks (deleted by hand: the part is played again)."""
    folder = study_dir / part.run
    return [name for name in part_files(part, keep_games) if not (folder / name).is_file()]


def part_is_finished(study_dir: Path, plan: StudyPlan, part: Part, data_digest: str | None = None,
                     keep_games: bool = False) -> bool:
    """Whether ``runs/<part>`` holds a complete run of exactly this part.

    A run directory only gets its manifest once it is complete (it is moved into place whole), so
    a manifest with the wanted settings and overlay digest means the part needs no more work.
    ``data_digest`` (the resolved game data the part would now use) also has to match when given:
    parts played with other rules data are stale. The part's summary must be of the current format
    and hold the pair columns, and its files (:func:`part_files`) must all be there; with ``keep_games`` the
    per-game files must have been kept too. Both the runner (what to resume) and the report (is the study
    complete) ask this, so it lives with the plan.
    """
    manifest = read_json(study_dir / part.run / MANIFEST_FILE)
    if manifest is None:
        return False
    try:
        matches = _manifest_matches(manifest, plan, part, data_digest, keep_games)
    except (AttributeError, TypeError):  # a field of another type than a run writes: not this part's run
        return False
    return matches and not missing_part_files(study_dir, part, keep_games)


def _manifest_matches(manifest: dict[str, Any], plan: StudyPlan, part: Part, data_digest: str | None,
                      keep_games: bool) -> bool:
    config = manifest.get("config") or {}
    wanted = expected_config(plan, part)
    if any(config.get(setting, _SETTING_BEFORE.get(setting)) != wanted[setting] for setting in MATCHED_SETTINGS):
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


def expected_parity(plan: StudyPlan, task: ParityTask) -> dict[str, Any]:
    """The settings a finished parity search of ``task`` records; a stored result with others is stale."""
    return {"profile": task.profile, "level": task.level, "games": plan.parity_games, "seed": plan.seed,
            "rounds": plan.rounds, "start_bonus": plan.start_bonus, "board": plan.board, "tolerance": PARITY_TOLERANCE,
            "overlay_digest": task.overlay_digest, "format": PARITY_RESULT_FORMAT}


def parity_is_finished(study_dir: Path, plan: StudyPlan, task: ParityTask, data_digest: str | None = None) -> bool:
    """Whether ``parity/<task>.json`` holds the result of exactly this search (see :func:`part_is_finished`)."""
    stored = read_json(study_dir / task.file)
    if stored is None or stored.get("settings") != expected_parity(plan, task) or "result" not in stored:
        return False
    return data_digest is None or stored.get("data_digest") == data_digest
