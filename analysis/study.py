"""A whole balance study in one call: simulate every part, then write the report.

A study is a fixed set of *parts*, each one simulator run directory:

``solo-L<L>``
    Luna alone at level L (per-round records on, for the deck-cycle tables);
``duel-L<L>-L<L+1>``
    two Lunas of adjacent levels in the same games;
``vs-<profile>-L<L>``
    a scripted profile against Luna at level L, for every built-in profile except ``passive``
    that the simulator supports (``sim.config.SCRIPTED_PROFILES``);
``<variant>/<part>``
    each of the above again with a designer's overlay TOML, with the *same* seed and game numbers,
    so base and variant games are paired (common random numbers) and their differences are tight.

Layout of a study directory (see ``results/README.md``)::

    study.json                    what the study is: parameters, variants, parts, the command
    variants/<variant>.toml       copy of each overlay, so the study describes itself
    runs/<part>/                  one run directory per part (seats.parquet, luna_rounds.parquet, manifest.json)
    tables/, figures/, report.md, report.html   written by analysis.report.write_report

Resume: every part is written atomically by :func:`sim.run.run_simulation`, and a part whose
``manifest.json`` already records the wanted configuration is kept as it is. Running the same
study again after an interruption therefore only plays the missing parts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import plots, report, stats
from analysis.load import RunData, load_run
from analysis.schema import BASE_VARIANT, LUNA, MANIFEST_FILE

STUDY_FILE = "study.json"
RUNS_DIR = "runs"
VARIANTS_DIR = "variants"
DEFAULT_NAME = "default"
DEFAULT_GAMES = 200_000
DEFAULT_SEED = 2026
DEFAULT_LEVELS = tuple(range(9))
DEFAULT_RESULTS = "results"
#: Version of the study.json layout; bump when its meaning changes.
STUDY_FORMAT = 1
#: The manifest settings that decide whether a stored part is the part wanted. Engine, workers and
#: chunk size are left out on purpose: the engines agree game for game and chunking never changes
#: a result, so a part played with another engine is still the same part.
MATCHED_SETTINGS = ("seats", "games", "seed", "rounds", "start_bonus", "detail")

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_BASE_PART = re.compile(r"^(solo|duel|vs)-")


class StudyError(ValueError):
    """A problem with a study's arguments or stored files; the message is one line for the user."""


# ----------------------------------------------------------------------------------------------
# What a study is


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
    rounds: int = 7
    start_bonus: str = "random"
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
    """Built-in scripted profiles worth a part: every one the simulator supports except ``passive``."""
    from sim.config import SCRIPTED_PROFILES

    return tuple(profile for profile in SCRIPTED_PROFILES if profile != "passive")


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
    if not levels or any(not 0 <= level <= 8 for level in levels):
        raise StudyError(f"--levels: need levels between 0 and 8, got {list(levels)}")
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
# Resume bookkeeping


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``, or None when it is missing or unreadable."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def expected_config(plan: StudyPlan, part: Part) -> dict[str, Any]:
    """The manifest settings a finished run of ``part`` records (see :data:`MATCHED_SETTINGS`)."""
    return {"seats": part.seats.split(","), "games": plan.games, "seed": plan.seed, "rounds": plan.rounds,
            "start_bonus": plan.start_bonus, "detail": "rounds" if part.detail else None}


def part_is_finished(study_dir: Path, plan: StudyPlan, part: Part, data_digest: str | None = None) -> bool:
    """Whether ``runs/<part>`` holds a complete run of exactly this part.

    A run directory only gets its manifest once it is complete (it is moved into place whole), so
    a manifest with the wanted settings and overlay digest means the part needs no more work.
    ``data_digest`` (the resolved game data the part would now use) also has to match when given:
    parts played with other rules data are stale.
    """
    manifest = read_json(study_dir / part.run / MANIFEST_FILE)
    if manifest is None:
        return False
    config = manifest.get("config") or {}
    wanted = expected_config(plan, part)
    if any(config.get(setting) != wanted[setting] for setting in MATCHED_SETTINGS):
        return False
    if (manifest.get("study") or {}).get("overlay_digest") != part.overlay_digest:
        return False
    return data_digest is None or (manifest.get("data") or {}).get("digest") == data_digest


def _remove_stale_temporaries(runs_dir: Path) -> None:
    """Delete half-written run directories left by study processes that died (SIGKILL, power loss).

    ``run_simulation`` names them ``.<part>.partial-<pid>`` / ``.<part>.old-<pid>`` and removes its
    own on any exception; only a process that no longer exists can have left one behind.
    """
    if not runs_dir.is_dir():
        return
    for path in sorted(runs_dir.rglob(".*")):  # listed in full first: removing while walking is unsafe
        match = re.fullmatch(r"\..+\.(?:partial|old)-(\d+)", path.name)
        if match and path.is_dir() and not _process_alive(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ----------------------------------------------------------------------------------------------
# Running


def resolve_engine(engine: str | None) -> tuple[str, str]:
    """The engine to use and a note for the user ("" when there is nothing to say).

    ``None`` means the fast engine when it can be imported, else the reference engine. An engine
    asked for by name that cannot be loaded is an error rather than a silent substitution.
    """
    from sim.run import engine_function

    if engine is not None:
        try:
            engine_function(engine)
        except ImportError as error:
            raise StudyError(f"--engine: the {engine} engine cannot be loaded: {error}") from None
        return engine, ""
    try:
        engine_function("numba")
    except Exception as error:  # a broken numba install may fail in any way on import; say so and go on
        return "reference", f"the numba engine is not available ({type(error).__name__}: {error}); " \
                            "using the reference engine"
    return "numba", ""


def part_engine(engine: str, data: Any, config: Any, detail: bool) -> tuple[str, str]:
    """The engine one part is played with, and why it is not ``engine`` ("" when it is).

    The fast engine may not play every configuration (it refuses with a ValueError while setting
    up); asking it for zero games runs exactly those checks without playing anything.
    """
    if engine == "reference":
        return engine, ""
    from sim.run import engine_function

    try:
        engine_function(engine)(data, config, 0, 0, 0, detail)
    except ValueError as error:
        return "reference", str(error)
    return engine, ""


def _chunk_size(games: int, workers: int) -> int:
    from sim.run import DEFAULT_CHUNK

    if workers <= 1:
        return DEFAULT_CHUNK
    # Several chunks per worker so joblib can balance them; results never depend on the chunking.
    return max(1, min(DEFAULT_CHUNK, math.ceil(games / (4 * workers))))


def _progress_bar(total: int, quiet: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="study", disable=quiet or not sys.stderr.isatty(),
                smoothing=0.1, dynamic_ncols=True, file=sys.stderr)


def run_simulation(*args: Any, **kwargs: Any) -> Path:
    """:func:`sim.run.run_simulation`, imported on first use (kept as a module name so tests can patch it)."""
    from sim.run import run_simulation as simulate

    return simulate(*args, **kwargs)


def run_study(
    name: str = DEFAULT_NAME,
    games: int = DEFAULT_GAMES,
    levels: Sequence[int] = DEFAULT_LEVELS,
    seed: int = DEFAULT_SEED,
    variants: Sequence[str | Path] = (),
    engine: str | None = None,
    workers: int = 1,
    quiet: bool = False,
    results_dir: str | Path = DEFAULT_RESULTS,
    profiles: Sequence[str] | None = None,
    command: str = "",
    log: Callable[[str], None] | None = None,
) -> report.ReportFiles:
    """Simulate the missing parts of a study and write its report.

    Parameters
    ----------
    name
        Study name; the study is written to ``results_dir/name``.
    games
        Games per part.
    levels
        Luna's levels.
    seed
        Run seed shared by every part (so every part, and every variant, plays the same boards).
    variants
        Overlay TOML files; each is simulated for every part with the base's seed and games.
    engine
        ``"reference"``, ``"numba"``, or None for numba when available.
    workers
        Processes per part (joblib); results do not depend on it.
    quiet
        No progress bar and no messages.
    results_dir
        Parent directory of the study.
    profiles
        Scripted profiles to play against every level; default every built-in one but ``passive``.
    command
        The command line recorded in ``study.json``.
    log
        Receives one-line messages (default: stderr unless quiet).

    Returns
    -------
    analysis.report.ReportFiles
        The report's files.
    """
    from sim.gamedata import load_game_data

    say = log or ((lambda _text: None) if quiet else (lambda text: print(f"luna-balance: {text}", file=sys.stderr)))
    if workers < 1:
        raise StudyError(f"--workers: must be at least 1, got {workers}")
    study_dir = Path(results_dir) / name
    loaded = [read_variant(path) for path in variants]  # validate every overlay before any work
    engine, note = resolve_engine(engine)
    if note:
        say(note)
    plan = plan_study(name, games, seed, levels, engine, [variant for variant, _ in loaded], profiles,
                      command=command)
    study_dir.mkdir(parents=True, exist_ok=True)
    previous = read_json(study_dir / STUDY_FILE)
    if previous is not None and previous.get("format") != STUDY_FORMAT:
        raise StudyError(f"{study_dir / STUDY_FILE}: written by another version of luna-balance; "
                         "use another --name or delete the directory")
    for variant, content in loaded:
        target = study_dir / variant.file
        if not target.is_file() or target.read_bytes() != content:
            report.atomic_write(target, content)
    report.atomic_write(study_dir / STUDY_FILE, json.dumps(plan.to_json(), indent=2) + "\n")
    _remove_stale_temporaries(study_dir / RUNS_DIR)

    game_data = {BASE_VARIANT: load_game_data()}
    for variant in plan.variants:
        game_data[variant.name] = load_game_data(study_dir / variant.file)
    todo = [part for part in plan.parts
            if not part_is_finished(study_dir, plan, part, game_data[part.variant].digest)]
    kept = len(plan.parts) - len(todo)
    if kept:
        say(f"{study_dir}: keeping {kept} finished part(s); {len(todo)} to simulate")
    config_type, parse_seats = _config_tools()
    configs = {part.name: config_type(seats=parse_seats(part.seats), rounds=plan.rounds, start_bonus=plan.start_bonus)
               for part in todo}
    engines = {part.name: part_engine(engine, game_data[part.variant], configs[part.name], part.detail)
               for part in todo}
    refused = [(name, reason) for name, (_, reason) in engines.items() if reason]
    if refused:
        say(f"the {engine} engine cannot play {len(refused)} part(s) (e.g. {refused[0][0]}: {refused[0][1]}); "
            "they use the reference engine")
    from sim.run import RunOptions

    try:
        with _progress_bar(len(todo) * games, quiet) as bar:
            for part in todo:
                bar.set_postfix_str(part.name, refresh=False)
                options = RunOptions(games=games, seed=seed, engine=engines[part.name][0], detail=part.detail,
                                     chunk_size=_chunk_size(games, workers), workers=workers, overlay=part.overlay)
                run_simulation(game_data[part.variant], configs[part.name], options, study_dir / part.run,
                               progress=bar.update,
                               extra_manifest={"study": {"name": plan.name, "part": part.name,
                                                         "variant": part.variant,
                                                         "overlay_digest": part.overlay_digest}})
    except KeyboardInterrupt:
        done = sum(part_is_finished(study_dir, plan, part) for part in plan.parts)
        raise StudyInterrupted(f"interrupted; {done} of {len(plan.parts)} parts are finished and kept in "
                               f"{study_dir} - rerun the same command to simulate only the rest") from None
    return render_study_dir(study_dir)


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C during a study; the message says what was kept."""


def _config_tools():
    from sim.config import GameConfig, parse_seats

    return GameConfig, parse_seats


# ----------------------------------------------------------------------------------------------
# Reading a study back


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


def _compact(frame: pd.DataFrame) -> pd.DataFrame:
    """The same frame with each integer column in the smallest integer type that holds its values.

    The simulator writes every count as int64, yet scores, levels and counters fit in one or two
    bytes; this halves the memory a study of millions of games needs (``pd.concat`` widens again
    where parts differ). pandas and numpy compute every statistic in float64 or int64 whatever the
    input width, so the tables do not change. (Text columns are left alone: turning them into
    shared-object columns measured worse with pandas' string dtype.)
    """
    columns = {name: pd.to_numeric(frame[name], downcast="integer") for name in frame.columns
               if pd.api.types.is_integer_dtype(frame[name].dtype) and len(frame)}
    return frame.assign(**columns) if columns else frame


def load_study(study_dir: str | Path) -> tuple[StudyPlan, RunData]:
    """Load every part of a finished study as one :class:`analysis.load.RunData`.

    The ``run`` column holds the part name (``solo-L5``, ``myvariant/solo-L5``) and ``variant`` the
    variant's name, so base and variant runs of the same configuration stay apart.

    Raises
    ------
    StudyError
        When a part has no finished run (the study was interrupted and not resumed).
    """
    root = Path(study_dir)
    plan = read_plan(root)
    missing = [part.name for part in plan.parts if not part_is_finished(root, plan, part)]
    if missing:
        raise StudyError(f"{root}: {len(missing)} part(s) not finished (first: {missing[0]}); rerun: "
                         f"{plan.command or 'luna-balance study ...'}")
    seats, rounds, manifests = [], [], {}
    empty_rounds = None
    for part in plan.parts:
        data = load_run(root / part.run)
        (manifest,) = data.manifests.values()
        # The loader names a run after its directory; variant runs share directory names with the
        # base runs, so the part name is the run key here, and the variant comes from the plan.
        labels = {"run": part.name, "variant": part.variant}
        seats.append(_compact(data.seats.assign(**labels)))
        if not data.rounds.empty:
            rounds.append(_compact(data.rounds.assign(**labels)))
        elif empty_rounds is None:
            empty_rounds = data.rounds
        manifests[part.name] = {**manifest, "config": {**(manifest.get("config") or {}), "variant": part.variant}}
    frames = pd.concat(seats, ignore_index=True)
    per_round = pd.concat(rounds, ignore_index=True) if rounds else empty_rounds
    return plan, RunData(seats=frames, rounds=per_round, manifests=manifests)


# ----------------------------------------------------------------------------------------------
# Study-specific tables and figures


def head_to_head(seats: pd.DataFrame) -> pd.DataFrame:
    """The higher level against the lower one in each two-Luna run, game by game.

    Returns
    -------
    pandas.DataFrame
        ``variant``, ``run``, ``level`` (the higher), ``level_below``, ``games``, ``wins`` of the
        higher level (a tie counts half), ``win_rate`` with Wilson ``ci_low``/``ci_high``, and
        the mean per-game score difference higher − lower ``score_diff`` with its paired 95 %
        interval ``diff_low``/``diff_high``.
    """
    columns = ["variant", "run", "level", "level_below", "games", "wins", "win_rate", "ci_low", "ci_high",
               "score_diff", "diff_low", "diff_high"]
    rows = []
    duels = seats[(seats["n_seats"] == 2) & (seats["opponents"] == LUNA)]
    for run, group in duels.groupby("run", sort=False):
        levels = sorted(group["level"].unique())
        if len(levels) != 2:
            continue
        low, high = (group[group["level"] == level].set_index("game") for level in levels)
        high, low = high.align(low, join="inner", axis=0)
        wins = float(high["won"].sum())
        games = len(high)
        ci_low, ci_high = stats.wilson_interval(wins, games)
        differences = high["score_total"].to_numpy(dtype=float) - low["score_total"].to_numpy(dtype=float)
        mean = float(differences.mean())
        se = float(differences.std(ddof=1) / np.sqrt(games)) if games > 1 else math.nan
        rows.append({"variant": group["variant"].iloc[0], "run": run, "level": int(levels[1]),
                     "level_below": int(levels[0]), "games": games, "wins": wins, "win_rate": wins / games,
                     "ci_low": ci_low, "ci_high": ci_high, "score_diff": mean, "diff_low": mean - stats.Z95 * se,
                     "diff_high": mean + stats.Z95 * se})
    return pd.DataFrame(rows, columns=columns)


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


def plot_variant_scores(summary: pd.DataFrame) -> Figure:
    """Luna's mean total score by level for the base and each variant (95 % intervals), side by side."""
    from analysis.plots import _errorbar_series, _legend, _level_ticks  # the shared look of the standard figures

    with plots.plot_style():
        figure, axes = plots.new_figure()
        ax = axes[0, 0]
        table = summary.assign(ci_low=summary["mean"] - stats.Z95 * summary["sem"],
                               ci_high=summary["mean"] + stats.Z95 * summary["sem"])
        _errorbar_series(ax, table, "level", "mean", "ci_low", "ci_high", "variant")
        _level_ticks(ax, table["level"])
        ax.set_xlabel("Luna's level")
        ax.set_ylabel(f"Mean total score ({plots.POINTS})")
        ax.set_title("Luna alone: base and variants")
        _legend(ax, title="Variant")
    return figure


def _only_runs(data: RunData, runs: Iterable[str]) -> RunData:
    keep = set(runs)
    return RunData(seats=data.seats[data.seats["run"].isin(keep)], rounds=data.rounds[data.rounds["run"].isin(keep)],
                   manifests={run: manifest for run, manifest in data.manifests.items() if run in keep})


def _figure_name(prefix: str, variant: str) -> str:
    return f"{prefix}_{re.sub(r'[^A-Za-z0-9_-]', '_', variant)}"


def study_content(plan: StudyPlan, data: RunData) -> tuple[dict[str, pd.DataFrame], dict[str, Figure],
                                                            tuple[report.Section, ...], dict[str, str]]:
    """Tables, figures, sections and captions of a study's report."""
    tables = report.build_tables(data)
    base_runs = [part.name for part in plan.parts if part.variant == BASE_VARIANT]
    # The standard figures only draw the base variant anyway; variants get figures of their own
    # below, one per variant over the solo parts, because several parts share a level.
    figures = report.build_figures(_only_runs(data, base_runs))
    captions = dict(report.FIGURE_CAPTIONS)
    duel_table = head_to_head(data.seats)
    if not duel_table.empty:
        tables["head_to_head"] = duel_table
        # One duel per higher level and variant, so (level, variant) is unique as the plot needs.
        figures["head_to_head"] = plots.plot_win_rates(duel_table, hue="variant", player="The higher level")
        captions["head_to_head"] = ("Win rate of the higher level against the level below in two-Luna games, "
                                    "Wilson 95 % intervals (50 % = no difference)")
    variant_items: list[str] = []
    if plan.variants:
        tables["variant_overview"] = variant_overview(data)
        solo = data.seats[data.seats["opponents"] == ""]
        figures["variant_scores"] = plot_variant_scores(stats.score_summary(solo, by=["variant", "level"],
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
    sections = []
    for section in report.DEFAULT_SECTIONS:
        if section.title == "Variants against base":
            text = ("Each variant replays every part with the base's seed and game numbers (common random numbers),"
                    " so game g of a variant part and game g of its base part start from the same shuffles. The"
                    " overview shows base and variant means side by side; differences are variant − base with 95 %"
                    " intervals from the per-game differences. The full table covers every score category.")
            sections.append(report.Section(section.title, text, tuple(variant_items)))
            continue
        sections.append(section)
        if section.title == "Win rates":
            sections.append(report.Section(
                "Head to head",
                "Two Lunas of adjacent levels in the same games: how often the higher level wins (ties count"
                " half) and by how much it outscores the lower one per game (paired 95 % interval). The 'luna'"
                " rows of the tables above pool each level over both of its duels (against the level below and"
                " the level above); this section compares the two seats of each duel directly.",
                ("head_to_head",)))
    return tables, figures, tuple(sections), captions


def introduction(plan: StudyPlan, data: RunData) -> str:
    engines = sorted({str((manifest.get("config") or {}).get("engine", "?")) for manifest in data.manifests.values()})
    text = (f"{len(plan.parts)} parts of {plan.games} games each, seed {plan.seed}, levels "
            f"{', '.join(map(str, plan.levels))}, {plan.rounds} rounds, starting bonus {plan.start_bonus}, "
            f"engine {', '.join(engines)}. Every part plays the same seed, so game g starts from the same boards "
            "in every part. Figures of distributions show the base variant with Luna alone; the tables hold "
            "every group.")
    if plan.variants:
        text += " Variants: " + "; ".join(f"{variant.name} ({variant.title})" if variant.title != variant.name
                                          else variant.name for variant in plan.variants) + "."
    if plan.command:
        text += f" Command: {plan.command}"
    return text


def render_study_dir(study_dir: str | Path) -> report.ReportFiles:
    """Rebuild a study's tables, figures and report from its stored runs (no simulation)."""
    plan, data = load_study(study_dir)
    tables, figures, sections, captions = study_content(plan, data)
    return report.write_report(study_dir, tables, figures, title=f"Luna balance study: {plan.name}",
                               sections=sections, introduction=introduction(plan, data), captions=captions)


# ----------------------------------------------------------------------------------------------
# Command line (registered in sim.cli)


def _command_line(args: argparse.Namespace, engine: str | None) -> str:
    words = ["luna-balance", "study", "--name", args.name, "--games", str(args.games), "--levels", args.levels,
             "--seed", str(args.seed)]
    for path in args.variant:
        words += ["--variant", path]
    if engine:
        words += ["--engine", engine]
    words += ["--results-dir", args.results_dir]
    return " ".join(words)


def command_study(args: argparse.Namespace) -> int:
    from sim.cli import parse_levels

    levels = parse_levels(args.levels)
    if not levels:
        raise StudyError(f"--levels: {args.levels!r} names no level")
    try:
        files = run_study(name=args.name, games=args.games, levels=levels, seed=args.seed, variants=args.variant,
                          engine=args.engine, workers=args.workers, quiet=args.quiet, results_dir=args.results_dir,
                          command=_command_line(args, args.engine))
    except StudyInterrupted as interrupted:
        sys.stderr.write(f"luna-balance: {interrupted}\n")
        return 130
    print(f"wrote {files.html}")
    return 0


def command_report(args: argparse.Namespace) -> int:
    files = render_study_dir(args.study_dir)
    print(f"wrote {files.html}")
    return 0
