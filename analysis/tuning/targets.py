"""The target file of ``luna-balance tune``: what each level should measure, and what may move.

A target file is TOML. Either one table per level to tune::

    name = "level 5: Luna wins 45 % against a balanced player"

    [levels.5]
    metric = "luna_win_rate"                 # or luna_mean_score, parity_strength
    opponent = "scripted:balanced@1"         # luna_win_rate: who Luna plays against
    target = 0.45
    tolerance = 0.01
    move = ["levels.5.helium_tokens.*", "levels.5.research_tokens.*"]
    bounds = { "levels.5.helium_tokens.0" = [5, 9] }   # optional, per parameter

or an even ladder::

    [ladder]
    metric = "parity_strength"
    profile = "balanced"                     # parity_strength: whose strength at parity
    tolerance = 0.02
    fixed = [0, 1, 2]                        # left as they are
    move = ["helium_tokens.*", "research_tokens.*"]    # per level (the default)

Metrics: ``luna_win_rate`` is Luna's win share against ``opponent`` (scripted seats, comma-separated),
``luna_mean_score`` her mean total score alone, ``parity_strength`` the strength at which
``profile`` wins half its games against her (:mod:`analysis.parity`). ``move`` lists parameter names
as :mod:`analysis.tuning.parameters` names them, ``*`` matching any part of a name; a level may move
only its own parameters, and Luna's card numbers (``cards.*``, which every level shares) only when
the file tunes one level. ``bounds`` narrows a parameter's range; its starting value must lie inside.

A ladder's levels 0 and 8 are its ends and never move, nor do the levels in ``fixed``: they are measured first.
Every other level moves the parameters ``move`` names (relative to the level, e.g. ``helium_tokens.0``) toward
equal steps between the nearest measured levels below and above it.

Problems are reported as ``file: field: problem`` (:class:`sim.gamedata.DataError`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from analysis.parity import HIGHEST_STRENGTH
from analysis.tuning.options import SCORE_METRIC, WIN_METRIC
from analysis.tuning.parameters import TOKEN_TRACKS, Parameter, card_parameters, level_parameters
from sim.config import DEFAULT_START_BONUS, ConfigError, Seat, parse_seats
from sim.constants import LEVELS, MAX_LEVEL, MAX_SEATS, MIN_LEVEL
from sim.gamedata import LEVEL_KEYS, DataError, GameData, read_toml, starting_token_shortfall, validate_data
from sim.playerdata import Profile
from sim.strict import Strict

PARITY_METRIC = "parity_strength"
METRICS = (WIN_METRIC, SCORE_METRIC, PARITY_METRIC)
#: What a ladder level moves when the file does not say: its token positions.
DEFAULT_LADDER_MOVE = ("helium_tokens.*", "research_tokens.*")
TRACK_OF_START = {start: track for track, (start, _) in TOKEN_TRACKS.items()}
_METRIC_LABELS = {WIN_METRIC: "Luna's win rate", SCORE_METRIC: "Luna's mean total score",
                  PARITY_METRIC: "strength at parity"}


#: What each metric can measure, the range a target and a tolerance must lie in: a win rate is a share; Luna's
#: mean score stays in the hundreds (MAX_SCORE_TARGET is far above any level's, and keeps the plots finite); a
#: strength at parity is searched up to HIGHEST_STRENGTH and is "not reached" beyond it.
MAX_SCORE_TARGET = 10_000.0
METRIC_RANGES = {WIN_METRIC: (0.0, 1.0), SCORE_METRIC: (0.0, MAX_SCORE_TARGET), PARITY_METRIC: (0.0, HIGHEST_STRENGTH)}
_RANGE_WORDS = {WIN_METRIC: "a win rate is between 0 and 1",
                SCORE_METRIC: f"a mean score is between 0 and {MAX_SCORE_TARGET:g}",
                PARITY_METRIC: f"a strength at parity is above 0 and at most {HIGHEST_STRENGTH:g} (the most searched)"}


class _Goal(Strict):
    metric: Literal[METRICS]  # type: ignore[valid-type]
    opponent: str | None = None
    profile: str | None = None
    tolerance: float = Field(gt=0)

    @model_validator(mode="after")
    def _tolerance_in_range(self) -> _Goal:
        # 1e308 was accepted, and the report's plots warned of overflows: no tolerance wider than the metric's range
        low, high = METRIC_RANGES[self.metric]
        if not self.tolerance <= high - low:
            raise ValueError(f"tolerance: at most {high - low:g} ({_RANGE_WORDS[self.metric]}), got {self.tolerance:g}")
        return self

    @model_validator(mode="after")
    def _metric_options(self) -> _Goal:
        needs = {WIN_METRIC: "opponent", PARITY_METRIC: "profile"}.get(self.metric)
        for option in ("opponent", "profile"):
            given = getattr(self, option) is not None
            if option == needs and not given:
                raise ValueError(f"{option}: {self.metric} needs an {option}" if option == "opponent"
                                 else f"{option}: {self.metric} needs a profile")
            if option != needs and given:
                raise ValueError(f"{option}: not used by {self.metric}")
        return self


class LevelGoalFields(_Goal):
    """One ``[levels.N]`` table."""

    target: float
    move: list[str] = Field(min_length=1)
    bounds: dict[str, tuple[int, int]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _target_and_bounds(self) -> LevelGoalFields:
        # beyond its metric's range a search can never reach a target (a win rate of 1.2, a score of 1e308)
        low, high = METRIC_RANGES[self.metric]
        if not low <= self.target <= high or (self.metric == PARITY_METRIC and self.target == low):
            raise ValueError(f"target: {_RANGE_WORDS[self.metric]}, got {self.target:g}")
        for name, (low, high) in self.bounds.items():
            if low > high:
                raise ValueError(f"bounds: {name}: low {low} is above high {high}")
        return self


class LadderFields(_Goal):
    """The ``[ladder]`` table."""

    fixed: list[int] = Field(default_factory=list)
    move: list[str] = Field(default_factory=lambda: list(DEFAULT_LADDER_MOVE), min_length=1)

    @model_validator(mode="after")
    def _fixed_levels(self) -> LadderFields:
        outside = [level for level in self.fixed if level not in LEVELS]
        if outside:
            raise ValueError(f"fixed: {outside[0]} is not a level ({MIN_LEVEL}-{MAX_LEVEL})")
        return self


class TargetFile(Strict):
    """A target file as written (before its names are checked against the data)."""

    name: str = ""
    description: str = ""
    levels: dict[str, LevelGoalFields] = Field(default_factory=dict)
    ladder: LadderFields | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> TargetFile:
        if self.ladder is not None and self.levels:
            raise ValueError("ladder: give either [ladder] or [levels.N] tables, not both")
        if self.ladder is None and not self.levels:
            raise ValueError("levels: nothing to tune; give [levels.N] tables or a [ladder] table")
        for key in self.levels:
            if key not in LEVEL_KEYS:
                raise ValueError(f"levels.{key}: not a level ({MIN_LEVEL}-{MAX_LEVEL})")
        return self


@dataclass(frozen=True)
class Metric:
    """What is measured at a level: the metric's name and who plays."""

    kind: str
    opponents: tuple[Seat, ...] = ()  # luna_win_rate
    profile: str = ""  # parity_strength

    @property
    def label(self) -> str:
        """The metric in words, e.g. ``Luna's win rate vs scripted:balanced``."""
        if self.kind == WIN_METRIC:
            return f"{_METRIC_LABELS[self.kind]} vs {','.join(seat.label for seat in self.opponents)}"
        if self.kind == PARITY_METRIC:
            return f"{_METRIC_LABELS[self.kind]} of {self.profile}"
        return _METRIC_LABELS[self.kind]

    def seats(self, level: int) -> tuple[Seat, ...]:
        """The seats of a game measuring this metric at ``level`` (Luna last)."""
        return (*self.opponents, Seat(kind="luna", level=level))


@dataclass(frozen=True)
class Free:
    """A parameter the search may move: its name, inclusive bounds and starting value."""

    name: str
    low: int
    high: int
    start: int


@dataclass(frozen=True)
class Goal:
    """One level's target; ``target`` is None for a ladder step until the ladder's ends are measured."""

    level: int
    metric: Metric
    target: float | None
    tolerance: float
    free: tuple[Free, ...]  # empty: the level is only measured (a ladder's fixed levels and ends)


@dataclass(frozen=True)
class Targets:
    """A checked target file."""

    path: str
    name: str
    description: str
    goals: tuple[Goal, ...]  # in level order
    ladder: bool


def search_range(parameter: Parameter, raw_luna: Mapping[str, Any]) -> tuple[int, int]:
    """The range a search may move a parameter over when the others move too.

    A token's or start position's own range (:class:`Parameter`) stops at its neighbours as they are;
    with several of them free, the whole track is open, and the order is left to ``invalid_reason``.
    """
    if parameter.kind not in ("token", "start"):
        return parameter.low, parameter.high
    field = parameter.name.split(".")[2]
    track = field if parameter.kind == "token" else TRACK_OF_START[field]
    return (1 if parameter.kind == "token" else 0), int(raw_luna["board"][TOKEN_TRACKS[track][1]])


def _metric(fields: _Goal, where: str, profiles: Mapping[str, Profile]) -> Metric:
    if fields.metric == WIN_METRIC:
        try:
            seats = parse_seats(str(fields.opponent), profiles)
        except ConfigError as error:
            raise DataError([f"{where}.opponent: {error.problem}"]) from None
        if any(seat.kind != "scripted" for seat in seats):
            raise DataError([f"{where}.opponent: list scripted seats only (Luna's seat is the level's)"])
        if len(seats) >= MAX_SEATS:
            raise DataError([f"{where}.opponent: at most {MAX_SEATS - 1} scripted seats, got {len(seats)} "
                             f"(a game has {MAX_SEATS} seats, one of them Luna's)"])
        if all(profiles[seat.profile].passive for seat in seats):
            # Luna then wins every game whatever her numbers: no move could change the metric
            raise DataError([f"{where}.opponent: {str(fields.opponent)!r} never wins (passive profiles only); "
                             "choose an active profile"])
        return Metric(fields.metric, opponents=seats)
    if fields.metric == PARITY_METRIC:
        profile = str(fields.profile)
        if profile not in profiles:
            raise DataError([f"{where}.profile: unknown scripted profile {profile!r} "
                             f"(known: {', '.join(sorted(profiles))})"])
        if profiles[profile].passive:
            raise DataError([f"{where}.profile: {profile!r} is passive and never wins; choose an active profile"])
        return Metric(fields.metric, profile=profile)
    return Metric(fields.metric)


def _matched(patterns: Sequence[str], prefix: str, known: Sequence[Parameter], where: str,
             level: int) -> list[Parameter]:
    """The known parameters the patterns name, in the data's order; each pattern must name one."""
    chosen: list[str] = []
    for index, pattern in enumerate(patterns):
        hits = [parameter.name for parameter in known if fnmatch.fnmatchcase(parameter.name, prefix + pattern)]
        if not hits:
            examples = ", ".join(parameter.name for parameter in known[:3])
            raise DataError([f"{where}.move.{index}: {pattern!r} names no parameter level {level} may move "
                             f"(e.g. {examples})"])
        chosen += [name for name in hits if name not in chosen]
    return [parameter for parameter in known if parameter.name in chosen]


def _free(parameters: Sequence[Parameter], bounds: Mapping[str, tuple[int, int]], raw_luna: Mapping[str, Any],
          where: str) -> tuple[Free, ...]:
    names = {parameter.name for parameter in parameters}
    for name in bounds:
        if name not in names:
            raise DataError([f"{where}.bounds: {name}: not among the parameters move names"])
    free = []
    for parameter in parameters:
        low, high = search_range(parameter, raw_luna)
        start = parameter.value(raw_luna)
        if parameter.name in bounds:
            low, high = max(low, bounds[parameter.name][0]), min(high, bounds[parameter.name][1])
            if not low <= start <= high:
                raise DataError([f"{where}.bounds: {parameter.name}: the starting value {start} is outside "
                                 f"[{low}, {high}] (the bounds within the parameter's range)"])
        free.append(Free(parameter.name, low, high, start))
    return tuple(free)


def _level_goals(spec: TargetFile, raw_luna: Mapping[str, Any], profiles: Mapping[str, Profile],
                 path: Path) -> list[Goal]:
    cards = list(card_parameters(raw_luna))
    goals = []
    for key, fields in sorted(spec.levels.items(), key=lambda item: int(item[0])):
        level, where = int(key), f"{path}: levels.{key}"
        own = list(level_parameters(level, raw_luna))
        others = [name for name in fields.move if name.startswith("levels.") and not name.startswith(f"levels.{key}.")]
        if others:
            raise DataError([f"{where}.move: {others[0]!r} belongs to another level; each level moves its own"])
        known = own + cards if len(spec.levels) == 1 else own
        if len(spec.levels) > 1 and any(name.startswith("cards.") for name in fields.move):
            raise DataError([f"{where}.move: Luna's cards are shared by every level; tune them in a file "
                             "with one level"])
        parameters = _matched(fields.move, "", known, where, level)
        goals.append(Goal(level, _metric(fields, where, profiles), fields.target, fields.tolerance,
                          _free(parameters, fields.bounds, raw_luna, where)))
    return goals


def _ladder_goals(ladder: LadderFields, raw_luna: Mapping[str, Any], profiles: Mapping[str, Profile],
                  path: Path) -> list[Goal]:
    where = f"{path}: ladder"
    metric = _metric(ladder, where, profiles)
    goals = []
    for level in LEVELS:
        free: tuple[Free, ...] = ()
        if level not in (MIN_LEVEL, MAX_LEVEL) and level not in ladder.fixed:
            parameters = _matched(ladder.move, f"levels.{level}.", list(level_parameters(level, raw_luna)),
                                  where, level)
            free = _free(parameters, {}, raw_luna, where)
        goals.append(Goal(level, metric, None, ladder.tolerance, free))
    return goals


def read_targets(path: str | Path, raw_luna: Mapping[str, Any], profiles: Mapping[str, Profile]) -> Targets:
    """Read and check a target file against the data the search starts from.

    Parameters
    ----------
    path
        The TOML target file.
    raw_luna
        Luna's data as the search starts from it (the shipped ``luna.toml`` with any overlay merged).
    profiles
        The scripted profiles known to that data.

    Raises
    ------
    DataError
        ``file: field: problem`` for the first problem found.
    """
    source = Path(path)
    try:
        spec = validate_data(TargetFile, read_toml(source), source)
    except DataError as error:  # one line: the first problem, and how many more there are
        more = len(error.problems) - 1
        raise DataError([error.problems[0] + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
                         ]) from None
    if spec.ladder is not None:
        goals = _ladder_goals(spec.ladder, raw_luna, profiles, source)
    else:
        goals = _level_goals(spec, raw_luna, profiles, source)
    return Targets(path=str(source), name=spec.name or source.stem, description=spec.description,
                   goals=tuple(goals), ladder=spec.ladder is not None)


def ladder_targets(goals: Sequence[Goal], measured: Mapping[int, float]) -> tuple[Goal, ...]:
    """The ladder's goals with their targets: a level that does not move (its ends, its ``fixed`` levels) keeps its
    ``measured`` value; a level that moves gets equal steps between the nearest measured levels below and above.

    Equal steps from level 0 to level 8 put the moving levels on a line the fixed ones were off: with levels 1-2
    fixed above it, level 3 was tuned down to 0.03 above level 2 where every other step was 0.11 (a QA pass).
    """
    anchors = sorted(measured)
    if not anchors or anchors[0] != MIN_LEVEL or anchors[-1] != MAX_LEVEL:
        raise ValueError(f"ladder_targets: the ends {MIN_LEVEL} and {MAX_LEVEL} must be measured, got {anchors}")
    targeted = []
    for goal in goals:
        if goal.level in measured:
            target = measured[goal.level]
        else:
            below = max(level for level in anchors if level < goal.level)
            above = min(level for level in anchors if level > goal.level)
            share = (goal.level - below) / (above - below)
            # to 12 decimals: a table shows 1.382, not the sum's 1.3820000000000001 (no metric is that fine)
            target = round(measured[below] + (measured[above] - measured[below]) * share, 12)
        targeted.append(Goal(goal.level, goal.metric, target, goal.tolerance, goal.free))
    return tuple(targeted)


def seating_problem(targets: Targets, data: GameData, start_bonus: str = DEFAULT_START_BONUS) -> str:
    """Why ``data`` cannot seat the games of some goal (too few starting tokens for its seats), or ``""``.

    The engines refuse such a game only when it is played, with a message naming ``--engine`` and the
    tuner's in-memory data (``<start>``); checked up front, the message names the target and the data's files.
    """
    for goal in targets.goals:
        seats = 2 if goal.metric.kind == PARITY_METRIC else len(goal.metric.seats(goal.level))
        shortfall = starting_token_shortfall(data, start_bonus, seats)
        if shortfall:
            where = "ladder" if targets.ladder else f"levels.{goal.level}"
            return f"{targets.path}: {where}: {goal.metric.label} plays {seats} seats; {shortfall}"
    return ""
