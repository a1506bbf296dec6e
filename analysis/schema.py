"""Column names of the simulator's output files, shared by every analysis module.

The simulator and the analysis are written independently; this module is the single place where
the analysis side writes down the data contract it expects, so a renamed column fails loudly in
one spot (see :mod:`analysis.load`) instead of deep inside a table function.
"""

from __future__ import annotations

SEATS_FILE = "seats.parquet"
ROUNDS_FILE = "luna_rounds.parquet"
MANIFEST_FILE = "manifest.json"

#: The seven final-scoring categories, in the order used by every table and plot.
CATEGORIES: tuple[str, ...] = (
    "cash",
    "helium",
    "research",
    "astrogo",
    "tawac",
    "skymine",
    "minerva",
)
COMPANIES: tuple[str, ...] = ("astrogo", "tawac", "skymine", "minerva")
SCORE_TOTAL = "score_total"
CATEGORY_SCORES: tuple[str, ...] = tuple(f"score_{category}" for category in CATEGORIES)
#: Total first, then the categories: the default metric list of the score summaries.
SCORE_COLUMNS: tuple[str, ...] = (SCORE_TOTAL, *CATEGORY_SCORES)

#: Luna's per-game deck and board counters (all int64 in seats.parquet).
COUNTER_COLUMNS: tuple[str, ...] = (
    "cards_gained",
    "bonus_markers_placed",
    "plans_discarded",
    "outposts_placed",
    "ousted",
    "reshuffles",
    "grade2_entered",
    "grade2_by_reshuffle",
    "grade2_by_token",
)

SLOTS: tuple[str, ...] = ("A", "B", "C", "D", "E")
#: Slots that start OFF; the round in which each is first used is recorded per seat.
SWITCHED_SLOTS: tuple[str, ...] = ("A", "E")
MAJORITY_TYPES: tuple[str, ...] = ("titanium", "carbon", "energy", "minerals", "scientists")

SEATS_REQUIRED: tuple[str, ...] = (
    "game",
    "seat",
    "kind",
    "level",
    "profile",
    "strength",
    *SCORE_COLUMNS,
    *(f"shares_{company}" for company in COMPANIES),
    *(f"value_{company}" for company in COMPANIES),
    "helium",
    "research",
    "cash",
    *COUNTER_COLUMNS,
    *(f"slot_{slot.lower()}_first_round" for slot in SWITCHED_SLOTS),
    "rank",
    "won",
)

#: Interaction counters that scripted seats may carry; every function treats them as optional.
INTERACTION_COLUMNS: tuple[str, ...] = (
    "blocked_titanium",
    "blocked_carbon",
    "blocked_energy",
    "blocked_minerals",
    "blocked_scientists",
    "bonus_spaces_lost",
    "cards_lost",
    "plans_lost",
    "outposts_ousted_by_luna",
)

CARD_COLUMNS: tuple[str, ...] = tuple(f"card_{slot.lower()}" for slot in SLOTS)
MAJORITY_COLUMNS: tuple[str, ...] = tuple(f"majority_{kind}" for kind in MAJORITY_TYPES)

ROUNDS_REQUIRED: tuple[str, ...] = (
    "game",
    "seat",
    "round",
    *CARD_COLUMNS,
    *MAJORITY_COLUMNS,
    "reshuffles",
    "grade2_entered",
    "grade2_by_reshuffle",
    "grade2_by_token",
    "deck_size_start",
    "helium",
    "research",
    "cash",
)

#: Columns the loader adds to both frames; each is constant within one run directory.
RUN_COLUMNS: tuple[str, ...] = ("run", "variant", "seats", "opponents", "luna_level", "n_seats")

LUNA = "luna"
SCRIPTED = "scripted"
BASE_VARIANT = "base"
