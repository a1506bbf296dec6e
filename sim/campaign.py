"""The campaign (SPEC section 6): chapters played at Luna's current level, success points, level changes.

A campaign is ``chapters`` full games against the same seats. After each chapter every seat gets success
points (SP): by its rank in the chapter's game (``sp_by_rank``; ranks already share the better place on a
tie) plus the bonus-marker category (a scripted seat that placed at least ``bonus_marker_min`` bonus
markers; Luna always, a rulebook fact). Then, if there is a next chapter, the people decide Luna's level:

* Luna **won** (her rank is 1): lower her level by 1 (Luna gets ``lowered_sp`` at once) or keep it;
* Luna **did not win**: raise her level by 1, or keep it (Luna gets ``kept_after_loss_sp`` at once).

Decisions of this project where the rulebook is silent: a shared first place is Luna's win (for the decision
and for ``toward``'s measured rates, though a game's ``won`` column gives her 1/k of it); a change that would
leave the levels 0-8 is not on offer, so the people keep the level (after a loss at level 8 that is a keep,
worth its +2 SP to Luna); after the last chapter there is no next chapter, hence no decision and no level SP;
the campaign is won by the highest SP total, a k-way tie sharing the win (1/k each), like a game's ``won``.

Policies (the people's choice): ``adjust`` always takes the offered change; ``keep`` never does;
``toward:<p>`` takes it only when it moves Luna's *measured* win rate toward ``p``, where the measured win
rate of a level is the share of games Luna wins (rank 1) at that level against the same seats, measured
before the campaigns in ``calibration_games`` games per level (common random numbers across levels, from
their own seed): the change to level ``L'`` is taken when ``|w(L') - p| < |w(L) - p|``. A table measured
beforehand, rather than the few chapters of one campaign, makes the policy a property of the levels, not of
a campaign's luck, and is the same for every campaign. ``levels:5,4,4,3`` plays the listed level in each
chapter (a what-if); Luna's level SP then follow the rule for the move listed (lower after a win: +1, keep
after a loss: +2, any other move: none).

Random streams: the chapter ``c`` (0-based) of campaign ``i`` is game number ``i * MAX_CHAPTERS + c`` under
the campaign seed :func:`campaign_seed` (``sim/rng.py`` derives every stream from (seed, game, stream)), so
a chapter's shuffles depend on (seed, campaign, chapter) alone: not on the policy, the level, the number of
campaigns or chapters. Two policies therefore replay the same chapter-1 games exactly and the same
streams in every later chapter. The chapters of all campaigns at one level are played in one call of the
engine's play-listed function (``sim.engines.listed_function``), so the numba engine compiles its tables
once per (chapter, level), not once per game.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.campaigndata import CAMPAIGN_FILE, MAX_CHAPTERS, CampaignData
from sim.config import (
    DEFAULT_START_BONUS,
    GAME_NUMBERS,
    ConfigError,
    GameConfig,
    Seat,
    check_count,
    check_games,
    check_seed,
    is_level,
    is_whole_number,
    parse_seat,
)
from sim.constants import (
    DEFAULT_BOARD,
    DEFAULT_CALIBRATION_GAMES,
    LEVELS,
    MAX_LEVEL,
    MIN_LEVEL,
    ROUNDS,
)
from sim.engines import DEFAULT_ENGINE, engine_function, listed_function
from sim.gamedata import GameData, campaign_with_overlay, read_toml, validate_data
from sim.rng import MASK64, mix64

#: Salts of the derived seeds, so campaign and calibration games never coincide with ``simulate`` games.
CAMPAIGN_SALT = 0x43414D504149474E  # "CAMPAIGN"
CALIBRATION_SALT = 0x544F57415244  # "TOWARD"
CHOICES = ("none", "lower", "keep", "raise", "jump")  # the level decision after a chapter; codes are indices
NONE, LOWER, KEEP, RAISE, JUMP = range(len(CHOICES))
LEVEL_STEP = {LOWER: -1, KEEP: 0, RAISE: 1}  # what each one-level decision does to Luna's level
_CHOICE_OF_STEP = {step: choice for choice, step in LEVEL_STEP.items()}


# ---------------------------------------------------------------- data

def load_campaign_data(overlay: str | Path | None = None, path: Path = CAMPAIGN_FILE) -> CampaignData:
    """Read and validate ``campaign.toml``, then merge an overlay's ``[campaign]`` table over it.

    Raises
    ------
    DataError
        One ``file: field: problem`` line per problem found.
    """
    if overlay is None:
        return validate_data(CampaignData, read_toml(path), path)
    return campaign_with_overlay(read_toml(Path(overlay)).get("campaign", {}), Path(overlay), path)


# ---------------------------------------------------------------- options

@dataclass(frozen=True)
class Policy:
    """The people's choice of Luna's level after a chapter (module docstring)."""

    kind: str  # "adjust", "keep", "toward" or "levels"
    target: float = math.nan  # p of toward:<p>
    levels: tuple[int, ...] = ()  # the per-chapter levels of levels:...

    @property
    def label(self) -> str:
        """The policy as ``--policy`` writes it."""
        if self.kind == "toward":
            return f"toward:{self.target:g}"
        if self.kind == "levels":
            return "levels:" + ",".join(map(str, self.levels))
        return self.kind


def parse_policy(text: str, chapters: int) -> Policy:
    """Parse ``--policy``: ``adjust``, ``keep``, ``toward:<p>`` (0 <= p <= 1) or ``levels:L1,...`` (one per chapter)."""
    check_chapters(chapters)
    text = text.strip()
    if text in ("adjust", "keep"):
        return Policy(kind=text)
    kind, _, value = text.partition(":")
    if kind == "toward":
        try:
            target = float(value)
        except ValueError:
            raise ConfigError(f"{text!r}: p in toward:<p> must be a number", "policy") from None
        if not 0.0 <= target <= 1.0:
            raise ConfigError(f"{text!r}: p in toward:<p> must be between 0 and 1", "policy")
        return Policy(kind="toward", target=target + 0.0)  # + 0.0: toward:-0 is toward:0 (its label, its manifest)
    if kind == "levels":
        items = [item.strip() for item in value.split(",")]
        if not all(re.fullmatch(r"[0-9]+", item) for item in items):
            raise ConfigError(f"{text!r}: levels:<list> takes levels like levels:5,4,4,3", "policy")
        levels = tuple(int(item) for item in items)
        if any(level not in LEVELS for level in levels):
            raise ConfigError(f"{text!r}: levels must be {MIN_LEVEL}-{MAX_LEVEL}", "policy")
        if len(levels) != chapters:
            raise ConfigError(f"{text!r}: gives {len(levels)} levels for {chapters} chapters", "policy")
        return Policy(kind="levels", levels=levels)
    raise ConfigError(f"unknown policy {text!r} (adjust, keep, toward:<p> or levels:<list>)", "policy")


def parse_campaign_seats(text: str, profiles: Sequence[str]) -> tuple[tuple[Seat, ...], int]:
    """Parse ``--seats`` of a campaign: scripted seats, then one ``luna`` without a level.

    Returns the seats (Luna's level a placeholder, set per chapter) and Luna's seat index.
    """
    parts = [part.strip() for part in text.split(",") if part.strip()]
    lunas = [index for index, part in enumerate(parts) if part.startswith("luna")]
    if len(lunas) != 1:
        raise ConfigError(f"a campaign has exactly one Luna seat, written luna; got {len(lunas)} in {text!r}", "seats")
    if parts[lunas[0]] != "luna":
        raise ConfigError(f"the campaign sets Luna's level; write luna, not {parts[lunas[0]]!r}", "seats")
    if len(parts) < 2:
        raise ConfigError("a campaign needs at least one scripted seat besides luna", "seats")
    seats = tuple(Seat(kind="luna", level=MIN_LEVEL) if part == "luna" else parse_seat(part, profiles)
                  for part in parts)
    GameConfig(seats=seats)  # seat count and order (Luna last)
    return seats, lunas[0]


@dataclass(frozen=True)
class CampaignOptions:
    """What to play: seats, chapters, start level, policy, campaigns, seed, engine and game options."""

    seats: tuple[Seat, ...]  # Luna's seat holds a placeholder level
    luna_seat: int
    chapters: int
    start_level: int
    policy: Policy
    campaigns: int
    seed: int
    engine: str = DEFAULT_ENGINE
    rounds: int = ROUNDS
    start_bonus: str = DEFAULT_START_BONUS
    calibration_games: int = DEFAULT_CALIBRATION_GAMES
    board: str = DEFAULT_BOARD

    def __post_init__(self) -> None:
        # stored as Python ints: the manifest's JSON takes no numpy integer, and 2.5 chapters is none
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "chapters", check_chapters(self.chapters))
        object.__setattr__(self, "campaigns", check_count(self.campaigns, "campaigns", 1))
        if self.campaigns > GAME_NUMBERS // MAX_CHAPTERS:  # else numpy refused the game numbers, naming no option
            raise ConfigError(f"must be at most {GAME_NUMBERS // MAX_CHAPTERS}: the chapters of campaign i are "
                              f"games i * {MAX_CHAPTERS} + c, numbered up to 2**63 - 1; got {self.campaigns}",
                              "campaigns")
        if not is_level(self.start_level):
            raise ConfigError(f"must be {MIN_LEVEL}-{MAX_LEVEL}, got {self.start_level}", "start_level")
        object.__setattr__(self, "start_level", int(self.start_level))
        if self.policy.kind == "levels" and (len(self.policy.levels) != self.chapters
                                             or self.policy.levels[0] != self.start_level):
            raise ConfigError(f"{self.policy.label!r} must give {self.chapters} levels, "
                              f"the first the start level {self.start_level}", "policy")
        if self.policy.kind == "toward":
            object.__setattr__(self, "calibration_games", check_games(self.calibration_games, "calibration_games"))

    def config(self, level: int) -> GameConfig:
        """The game of a chapter with Luna at ``level``."""
        seats = tuple(Seat(kind="luna", level=level) if index == self.luna_seat else seat
                      for index, seat in enumerate(self.seats))
        return GameConfig(seats=seats, rounds=self.rounds, start_bonus=self.start_bonus, board=self.board)

    @property
    def seat_labels(self) -> tuple[str, ...]:
        """Each seat as ``--seats`` writes it (Luna as ``luna``: her level changes)."""
        return tuple("luna" if index == self.luna_seat else seat.label for index, seat in enumerate(self.seats))


def check_chapters(chapters: int) -> int:
    """``chapters`` when it is 1-``MAX_CHAPTERS``; else the ConfigError the command line shows."""
    if not is_whole_number(chapters) or not 1 <= chapters <= MAX_CHAPTERS:
        raise ConfigError(f"must be 1-{MAX_CHAPTERS}, got {chapters}", "chapters")
    return int(chapters)


def start_level(rules: CampaignData, seats: Sequence[Seat], policy: Policy, given: int | None) -> int:
    """Luna's level in chapter 1: ``given``, else the first of a ``levels:`` list, else the rulebook's
    (``start_level_solo`` against one person, ``start_level_group`` against more)."""
    if policy.kind == "levels":
        if given is not None and given != policy.levels[0]:
            raise ConfigError(f"{given} differs from the first level of {{policy}} {policy.label}", "start_level",
                              ("policy",))
        return policy.levels[0]
    if given is not None:
        return given
    people = sum(seat.kind == "scripted" for seat in seats)
    return rules.luna.start_level_solo if people == 1 else rules.luna.start_level_group


# ---------------------------------------------------------------- seeds and game numbers

def campaign_seed(seed: int) -> int:
    """The seed the chapters' games are played under (a SplitMix64 mix of the run seed and a salt)."""
    return mix64((seed + CAMPAIGN_SALT) & MASK64)


def calibration_seed(seed: int) -> int:
    """The seed of the per-level games that measure Luna's win rate for ``toward:<p>``."""
    return mix64((seed + CALIBRATION_SALT) & MASK64)


def chapter_games(campaigns: np.ndarray, chapter: int) -> np.ndarray:
    """Game numbers of ``chapter`` (0-based) of the given campaigns."""
    return np.asarray(campaigns, dtype=np.int64) * MAX_CHAPTERS + chapter


# ---------------------------------------------------------------- success points and decisions

def chapter_sp(rank: np.ndarray, bonus_markers: np.ndarray, luna_seat: int,
               rules: CampaignData) -> tuple[np.ndarray, np.ndarray]:
    """SP by rank and SP of the bonus-marker category of a chapter, per campaign and seat.

    Parameters
    ----------
    rank, bonus_markers : int arrays, shape (campaigns, seats)
        The game's ``rank`` (ties share the better rank) and ``bonus_markers_placed`` columns.
    luna_seat : int
        Luna's seat: her bonus-marker category is always ``rules.luna.bonus_marker_sp``.
    rules : CampaignData

    Returns
    -------
    tuple of int arrays, shape (campaigns, seats)
        SP for the rank, SP for the bonus-marker category.
    """
    by_rank = np.asarray(rules.sp_by_rank, dtype=np.int64)[np.asarray(rank) - 1]
    bonus = np.where(np.asarray(bonus_markers) >= rules.bonus_marker_min, rules.bonus_marker_sp, 0).astype(np.int64)
    bonus[:, luna_seat] = rules.luna.bonus_marker_sp
    return by_rank, bonus


def decide(policy: Policy, level: int, luna_won: bool, chapter: int, win_rate: Sequence[float] | None) -> int:
    """The people's decision after ``chapter`` (0-based, not the last): a code of :data:`CHOICES`.

    ``win_rate`` is Luna's measured win rate per level (``toward`` only). A change beyond the levels 0-8 is
    not on offer, so it is kept.
    """
    if policy.kind == "levels":
        step = policy.levels[chapter + 1] - level
        return _CHOICE_OF_STEP.get(step, JUMP)
    change = LOWER if luna_won else RAISE
    offered = level + LEVEL_STEP[change]
    if offered not in LEVELS or policy.kind == "keep":
        return KEEP
    if policy.kind == "toward":
        assert win_rate is not None  # run_campaigns measures it for this policy
        take = abs(win_rate[offered] - policy.target) < abs(win_rate[level] - policy.target)
        if not take:
            return KEEP
    return change


def level_sp(choice: int, luna_won: bool, rules: CampaignData) -> int:
    """Luna's SP at once for the people's ``choice`` (the rulebook's two cases; nothing otherwise)."""
    if luna_won and choice == LOWER:
        return rules.luna.lowered_sp
    if not luna_won and choice == KEEP:
        return rules.luna.kept_after_loss_sp
    return 0


def next_level(choice: int, level: int, policy: Policy, chapter: int) -> int:
    """Luna's level in the chapter after ``chapter`` for ``choice``."""
    if policy.kind == "levels":
        return policy.levels[chapter + 1]
    return level + LEVEL_STEP.get(choice, 0)


def shared_ranks(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank (1 + seats with strictly more) and win share (1/k for a k-way first place) per row of ``points``."""
    points = np.asarray(points)
    rank = 1 + (points[:, None, :] > points[:, :, None]).sum(axis=2)
    first = rank == 1
    return rank, first / first.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------- playing

#: Per (campaign, chapter, seat) arrays of :class:`CampaignResult`, from the chapter's game.
GAME_FIELDS = ("score_total", "rank", "won", "bonus_markers_placed")


@dataclass(frozen=True)
class CampaignResult:
    """Every chapter of every campaign. Shapes: (campaigns, chapters) or (campaigns, chapters, seats)."""

    options: CampaignOptions
    rules: CampaignData
    game: np.ndarray  # game number of each chapter
    level: np.ndarray  # Luna's level in each chapter
    choice: np.ndarray  # code of CHOICES after each chapter (NONE after the last)
    games: dict[str, np.ndarray]  # GAME_FIELDS -> (campaigns, chapters, seats)
    sp_rank: np.ndarray
    sp_bonus: np.ndarray
    sp_level: np.ndarray  # Luna's SP for the level decision (0 for other seats)
    win_rate: tuple[float, ...] | None  # Luna's measured win rate per level (toward only)

    @property
    def sp(self) -> np.ndarray:
        """SP of each chapter and seat."""
        return self.sp_rank + self.sp_bonus + self.sp_level

    @property
    def sp_total(self) -> np.ndarray:
        """SP of each campaign and seat, shape (campaigns, seats)."""
        return self.sp.sum(axis=1)

    @property
    def campaign_rank(self) -> np.ndarray:
        """Rank of each campaign and seat by SP total (ties share the better rank)."""
        return shared_ranks(self.sp_total)[0]

    @property
    def campaign_won(self) -> np.ndarray:
        """Win share of each campaign and seat (1/k for a k-way tie on SP)."""
        return shared_ranks(self.sp_total)[1]


def measure_win_rates(data: GameData, options: CampaignOptions) -> tuple[float, ...]:
    """Luna's win rate (share of games at rank 1) at each level 0-8 against the campaign's seats."""
    play = engine_function(options.engine)
    rates = []
    for level in LEVELS:
        chunk = play(data, options.config(level), calibration_seed(options.seed), 0, options.calibration_games, False)
        luna_rows = chunk.seats["seat"] == options.luna_seat
        rates.append(float(np.mean(chunk.seats["rank"][luna_rows] == 1)))
    return tuple(rates)


def run_campaigns(data: GameData, rules: CampaignData, options: CampaignOptions,
                  progress: Callable[[int], None] | None = None) -> CampaignResult:
    """Play ``options.campaigns`` campaigns; ``progress`` is called with the games of each finished call."""
    play = listed_function(options.engine)
    n, chapters, n_seats = options.campaigns, options.chapters, len(options.seats)
    win_rate = measure_win_rates(data, options) if options.policy.kind == "toward" else None
    game = np.empty((n, chapters), dtype=np.int64)
    level = np.empty((n, chapters), dtype=np.int64)
    choice = np.full((n, chapters), NONE, dtype=np.int64)
    games = {name: np.empty((n, chapters, n_seats), dtype=np.float64 if name == "won" else np.int64)
             for name in GAME_FIELDS}
    sp_rank, sp_bonus, sp_level = (np.zeros((n, chapters, n_seats), dtype=np.int64) for _ in range(3))
    current = np.full(n, options.start_level)
    campaigns = np.arange(n)
    for chapter in range(chapters):
        level[:, chapter] = current
        game[:, chapter] = chapter_games(campaigns, chapter)
        for at in np.unique(current):
            members = np.flatnonzero(current == at)
            chunk = play(data, options.config(int(at)), campaign_seed(options.seed), game[members, chapter], False)
            for name in GAME_FIELDS:
                games[name][members, chapter] = chunk.seats[name].reshape(members.size, n_seats)
            if progress is not None:
                progress(members.size)
        sp_rank[:, chapter], sp_bonus[:, chapter] = chapter_sp(
            games["rank"][:, chapter], games["bonus_markers_placed"][:, chapter], options.luna_seat, rules)
        if chapter + 1 == chapters:
            break
        luna_won = games["rank"][:, chapter, options.luna_seat] == 1
        for index in range(n):
            code = decide(options.policy, int(current[index]), bool(luna_won[index]), chapter, win_rate)
            choice[index, chapter] = code
            sp_level[index, chapter, options.luna_seat] = level_sp(code, bool(luna_won[index]), rules)
            current[index] = next_level(code, int(current[index]), options.policy, chapter)
    return CampaignResult(options=options, rules=rules, game=game, level=level, choice=choice, games=games,
                          sp_rank=sp_rank, sp_bonus=sp_bonus, sp_level=sp_level, win_rate=win_rate)
