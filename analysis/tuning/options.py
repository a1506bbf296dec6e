"""What a sensitivity run measures, with its defaults: pandas-free, so the command line's parser can read it.

See :mod:`analysis.tuning.sensitivity` for the measurement itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.config import MIN_INTERVAL_GAMES, ConfigError, check_games, check_seed, is_level, is_whole_number, parse_seat
from sim.constants import DEFAULT_RUN_SEED, LEVELS
from sim.engines import DEFAULT_ENGINE, check_engine
from sim.gamedata import GameData

#: Paired games per change by default: level 8 (the most changes) against scripted:balanced, cards included,
#: took 1 min 12 s on 2 cores shared with other work (25 s of CPU; README, Commands); the score's paired
#: intervals are then about ±0.02 CrypCoin for most card changes and ±0.8 for the widest.
DEFAULT_GAMES = 10_000
DEFAULT_OPPONENT = "scripted:balanced@1"
DEFAULT_SEED = DEFAULT_RUN_SEED
SCORE_METRIC, WIN_METRIC = "luna_mean_score", "luna_win_rate"  # the names ``tune`` targets use
#: Per-game column of Luna's seat behind each per-game metric (its mean over the games is the metric).
METRIC_COLUMNS = {SCORE_METRIC: "score_total", WIN_METRIC: "won"}


@dataclass(frozen=True)
class SensitivityOptions:
    """What to measure: one level, against an opponent or alone, how many games from which seed."""

    level: int
    opponent: str | None = DEFAULT_OPPONENT  # a scripted seat, or None for Luna alone
    games: int = DEFAULT_GAMES
    seed: int = DEFAULT_SEED
    engine: str = DEFAULT_ENGINE
    cards: bool = True

    def __post_init__(self) -> None:
        if not is_level(self.level):  # 4.0 == 4 passed, then failed as a key
            raise ConfigError(f"must be one of {LEVELS[0]}-{LEVELS[-1]}, got {self.level!r}", "level")
        if not is_whole_number(self.games) or self.games < MIN_INTERVAL_GAMES:
            raise ConfigError(f"must be at least {MIN_INTERVAL_GAMES} (a paired interval needs two games), "
                              f"got {self.games}", "games")
        check_games(self.games)
        for name, value in (("level", self.level), ("games", self.games), ("seed", check_seed(self.seed))):
            object.__setattr__(self, name, int(value))  # numpy integers pass the checks; JSON takes ints
        check_engine(self.engine)

    @property
    def seats(self) -> str:
        return f"{self.opponent},luna:{self.level}" if self.opponent else f"luna:{self.level}"

    @property
    def metrics(self) -> tuple[str, ...]:
        return (SCORE_METRIC, WIN_METRIC) if self.opponent else (SCORE_METRIC,)


def parse_opponent(text: str, data: GameData) -> str | None:
    """``--opponent``: a scripted seat (``scripted:<profile>[@strength]``) or ``none``."""
    if text.strip().lower() == "none":
        return None
    if not text.strip().startswith("scripted:"):  # --seats' own message would offer luna:<level> too
        raise ConfigError(f"{text!r} is not a scripted seat (scripted:<profile>[@strength] or none)", "opponent")
    try:
        seat = parse_seat(text, data.players.profiles)
    except ConfigError as error:
        raise ConfigError(error.problem, "opponent") from None
    if seat.kind != "scripted":
        raise ConfigError(f"{text!r} is not a scripted seat (scripted:<profile>[@strength] or none)", "opponent")
    if data.players.profiles[seat.profile].passive:
        raise ConfigError(f"{seat.profile!r} is passive and never wins; choose an active profile", "opponent")
    return text.strip()


