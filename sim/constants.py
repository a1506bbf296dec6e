"""The game's fixed sizes and names, defined once; every other module imports them from here.

These are facts of the printed game (five action slots, nine levels, four companies, a display of
twelve spaces, ...) or fixed choices of this project's output contract. Values a designer may change
(token positions, card numbers, the modelled board) are data in ``sim/data/``, never here.

The company names are read from the shipped ``moon.toml`` so that they are written in one place; the
loader (``sim.gamedata``) refuses an overlay that renames or reorders them, because output column names
and engine indices are built from this tuple.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"
PLAYERS_DIR = DATA_DIR / "players"
PLAYER_MODEL_FILE = "model.toml"  # the one file in PLAYERS_DIR that is not a profile
# The shipped data files in DATA_DIR (sim.gamedata reads them; campaign.toml is sim.campaigndata's)
LUNA_FILE, MOON_FILE, BELT_FILE = "luna.toml", "moon.toml", "belt.toml"

# ---------------------------------------------------------------- Luna

LEVELS: tuple[int, ...] = tuple(range(9))  # Luna's difficulty levels 0-8
MIN_LEVEL, MAX_LEVEL = LEVELS[0], LEVELS[-1]
SLOT_LETTERS = "ABCDE"  # Luna's action slots, left to right
N_SLOTS = len(SLOT_LETTERS)
SWITCHED_SLOTS = ("A", "E")  # the slots that start off; a level switches them on in some round
MAJORITY_SIDES = ("left", "right")  # Luna's two majority slots
# Rule readings (SPEC section 8): each switch and the readings it may take. Which one is in force is data
# (luna.toml [rules], what each means and where it comes from is written there); a reading's position
# in its tuple is its code in the numba tables (sim/tables.py).
RULE_SWITCHES: dict[str, tuple[str, ...]] = {
    "start_position": ("add", "place"),
    "draw_order": ("slots_first", "majority_first"),
    "reveal_timing": ("planning", "first_turn"),
    "step_order": ("card_order", "helium_then_research"),
    "early_discard_card": ("slot_cards", "discard_pile"),
    "rebuild": ("lazy", "immediate"),
    "multi_expand_order": ("less_valuable_first", "more_valuable_first"),
}

# ---------------------------------------------------------------- the board


def _shipped_companies(path: Path) -> tuple[str, ...]:
    """The company names of the shipped ``moon.toml``; without them nothing can run, so a missing or broken file
    ends the program with one line (at import: no command's own error handling has started yet)."""
    try:
        with path.open("rb") as file:
            return tuple(tomllib.load(file)["companies"])
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as error:
        reason = "file not found" if isinstance(error, FileNotFoundError) else f"unreadable ({error!r})"
        raise SystemExit(f"luna-balance: {path}: {reason}; the shipped data is incomplete "
                         "(reinstall luna-balance)") from None


COMPANIES: tuple[str, ...] = _shipped_companies(DATA_DIR / MOON_FILE)
N_COMPANIES = len(COMPANIES)
# Majority / resource types, in the order of every per-type column and array.
RESOURCE_TYPES = ("titanium", "carbon", "energy", "minerals", "scientists")
MAJORITY_TYPES = RESOURCE_TYPES
N_RESOURCE_TYPES = len(RESOURCE_TYPES)
DISPLAY_ROWS, DISPLAY_COLUMNS = 4, 3  # action-card display spaces 1-12, row-major
DISPLAY_SPACES = DISPLAY_ROWS * DISPLAY_COLUMNS
RESEARCH_ROWS = "ABC"  # research display rows
RESEARCH_ROW_SPACES = 4  # spaces per research row
BONUS_ROWS, BONUS_COLUMNS = 3, 4  # bonus spaces; row 0 holds the four majority bonus spaces
TRACK_TILE_SIDES = 2  # each company track is a tile printed on both sides: ids A1 and A2, ..., one drawn per game
BONUS_SPACES = BONUS_ROWS * BONUS_COLUMNS
STANDARD_BONUS_CELLS: tuple[tuple[int, int], ...] = tuple(
    (row, column) for row in range(1, BONUS_ROWS) for column in range(BONUS_COLUMNS))  # the 8 standard spaces

# ---------------------------------------------------------------- a game

MAX_SEATS = 4
ROUNDS = 7  # a full game
SINGULARITY_ROUNDS = 6  # with the threat card "Singularity"
ALLOWED_ROUNDS = (ROUNDS, SINGULARITY_ROUNDS)
START_BONUS_CHOICES = ("random", "none")  # one random starting research token per seat, or none
BOARDS = ("moon", "belt")  # the two sides of the board; the Moon is the default (sim/data/moon.toml, belt.toml)
DEFAULT_BOARD = BOARDS[0]
BELT_KINDS = ("asteroid", "shuttle")  # a Belt target: an asteroid with outpost spaces, or one shuttle space
BELT_MAX_OUTPOST_SPACES = 4  # the most outpost spaces one asteroid may have (a fixed size of the numba engine)
ACTION_KINDS = ("invest", "expand", "helium", "research", "buy_card", "bonus")  # scripted players' actions
# A special research plan's status in both engines' state (face down until flipped, in index order; Luna removes them)
SPECIAL_FACE_DOWN, SPECIAL_FACE_UP, SPECIAL_REMOVED = 0, 1, 2

# ---------------------------------------------------------------- runs

# What one chunk's columns (as an engine returns them, 8 bytes a value) may take when the caller does not
# choose a chunk size: the games per chunk follow from the seats, rounds and detail (sim.columns.chunk_games).
# A run holds about two chunks at a time (one played, one written) plus the writer's narrower copies.
CHUNK_MEMORY_BYTES = 32 * 2**20
DEFAULT_RUN_SEED = 1  # --seed of simulate, levels, parity, campaign, sensitivity and tune (a study has its own)
DEFAULT_CALIBRATION_GAMES = 2_000  # a campaign's toward:<p> policy: games per level measuring Luna's win rate
BACKENDS = ("local", "dask")  # where a run's chunks are played: joblib processes here, or a Dask cluster
DEFAULT_BACKEND = BACKENDS[0]
DEFAULT_WORKERS = 1  # --workers: one process (the local backend plays in this one)
#: --detail's one value, as a manifest records it: also Luna's rounds (luna_rounds.parquet); None without it.
DETAIL_ROUNDS = "rounds"


def builtin_profiles() -> tuple[str, ...]:
    """The scripted profiles shipped in ``sim/data/players`` (one file each), in a stable order."""
    names = sorted(path.stem for path in PLAYERS_DIR.glob("*.toml") if path.name != PLAYER_MODEL_FILE)
    # passive first: it is the baseline every other profile is read against
    return tuple(sorted(names, key=lambda name: (name != "passive", name)))
