"""Column names of the simulator's output files, shared by every analysis module.

The column lists are the simulator's own (:mod:`sim.columns`, :mod:`sim.constants`), grouped the way
the analysis uses them; this module adds only the analysis' names for them and the file names, so a
renamed column fails loudly in one spot (see :mod:`analysis.load`) instead of deep inside a table
function.
"""

from __future__ import annotations

from sim.columns import (
    ROUND_CARD_COLUMNS,
    ROUND_MAJORITY_CARD_COLUMNS,
    ROUND_MAJORITY_COLUMNS,
    ROUND_NUMERIC,
    SCORE_CATEGORIES,
    SCORE_CATEGORY_COLUMNS,
    SEAT_COLUMNS,
    SEAT_COUNTERS,
    SEAT_INTERACTIONS,
    SLOT_FIRST_ROUND_COLUMNS,
)
from sim.constants import COMPANIES, MAJORITY_TYPES, SLOT_LETTERS, SWITCHED_SLOTS
from sim.outputs import MANIFEST_FILE, ROUNDS_FILE, SEATS_FILE

#: The seven final-scoring categories, in the order used by every table and plot.
CATEGORIES: tuple[str, ...] = SCORE_CATEGORIES
SCORE_TOTAL = "score_total"
CATEGORY_SCORES: tuple[str, ...] = SCORE_CATEGORY_COLUMNS
#: Total first, then the categories: the default metric list of the score summaries.
SCORE_COLUMNS: tuple[str, ...] = (SCORE_TOTAL, *CATEGORY_SCORES)

#: Luna's per-game deck and board counters (all int64 in seats.parquet).
COUNTER_COLUMNS: tuple[str, ...] = SEAT_COUNTERS

SLOTS: tuple[str, ...] = tuple(SLOT_LETTERS)
#: Luna's first round with each switched slot on, by slot (0 = never).
FIRST_ROUND_COLUMNS: dict[str, str] = SLOT_FIRST_ROUND_COLUMNS
#: Interaction counters that scripted seats may carry; every function treats them as optional.
INTERACTION_COLUMNS: tuple[str, ...] = SEAT_INTERACTIONS
#: Every seat column but the optional interaction counters, in file order.
SEATS_REQUIRED: tuple[str, ...] = tuple(column for column in SEAT_COLUMNS if column not in INTERACTION_COLUMNS)

CARD_COLUMNS: tuple[str, ...] = ROUND_CARD_COLUMNS
MAJORITY_COLUMNS: tuple[str, ...] = ROUND_MAJORITY_COLUMNS
# the majority cards came later: a run written before them still loads
ROUNDS_REQUIRED: tuple[str, ...] = tuple(name for name in ROUND_NUMERIC if name not in ROUND_MAJORITY_CARD_COLUMNS)

#: Columns the loader adds to both frames; each is constant within one run directory.
RUN_COLUMNS: tuple[str, ...] = ("run", "variant", "seats", "opponents", "luna_level", "n_seats")
#: Those of them that are text (categoricals); the others are integers.
RUN_TEXT_COLUMNS: tuple[str, ...] = RUN_COLUMNS[:4]

LUNA = "luna"
SCRIPTED = "scripted"
BASE_VARIANT = "base"

__all__ = [
    "BASE_VARIANT", "CARD_COLUMNS", "CATEGORIES", "CATEGORY_SCORES", "COMPANIES", "COUNTER_COLUMNS",
    "FIRST_ROUND_COLUMNS", "INTERACTION_COLUMNS", "LUNA", "MAJORITY_COLUMNS", "MAJORITY_TYPES", "MANIFEST_FILE",
    "ROUNDS_FILE", "ROUNDS_REQUIRED", "RUN_COLUMNS", "RUN_TEXT_COLUMNS", "SCORE_COLUMNS", "SCORE_TOTAL", "SCRIPTED",
    "SEATS_FILE", "SEATS_REQUIRED", "SLOTS", "SWITCHED_SLOTS",
]
