"""The output contract: column names of ``seats.parquet`` and ``luna_rounds.parquet``.

Both engines return the numeric columns below as arrays (one row per game and seat, games in
order, seats in order within a game; rounds likewise per game, Luna seat and round); the run
driver adds the text columns (kind, profile, card ids).
"""

from sim.constants import COMPANIES, MAJORITY_TYPES, SLOT_LETTERS, SWITCHED_SLOTS

# The final-scoring categories; ``score_total`` is their sum.
SCORE_CATEGORIES = ("cash", "helium", "research", *COMPANIES)
# Luna's per-game deck and board counters.
SEAT_COUNTERS = (
    "cards_gained", "bonus_markers_placed", "plans_discarded", "outposts_placed", "ousted", "reshuffles",
    "grade2_entered", "grade2_by_reshuffle", "grade2_by_token",
)
# Interaction counters of scripted seats (0 for Luna): rounds each majority type was blocked by Luna,
# bonus spaces, display cards and research plans lost to her, outposts it placed that she ousted.
SEAT_INTERACTIONS = (
    *(f"blocked_{t}" for t in MAJORITY_TYPES),
    "bonus_spaces_lost", "cards_lost", "plans_lost", "outposts_ousted_by_luna",
)
# Numeric per-seat columns every engine fills, in this order (int64 except ``won``).
SEAT_NUMERIC = (
    "score_total", *(f"score_{c}" for c in SCORE_CATEGORIES),
    *(f"shares_{c}" for c in COMPANIES),
    *(f"value_{c}" for c in COMPANIES),
    "helium", "research", "cash", *SEAT_COUNTERS,
    *(f"slot_{slot.lower()}_first_round" for slot in SWITCHED_SLOTS),
    *SEAT_INTERACTIONS,
    "rank", "won",
)
# Columns the driver adds from the configuration.
SEAT_CONFIG = ("game", "seat", "kind", "level", "profile", "strength")
SEAT_COLUMNS = SEAT_CONFIG + SEAT_NUMERIC

# Numeric per-round columns (card_* hold Luna card indices, -1 = no card; the driver turns them into ids).
ROUND_CARD_COLUMNS = tuple(f"card_{slot.lower()}" for slot in SLOT_LETTERS)
ROUND_MAJORITY_COLUMNS = tuple(f"majority_{t}" for t in MAJORITY_TYPES)  # Luna's value per majority type that round
ROUND_NUMERIC = (
    "game", "seat", "round", *ROUND_CARD_COLUMNS, *ROUND_MAJORITY_COLUMNS,
    "reshuffles", "grade2_entered", "grade2_by_reshuffle", "grade2_by_token", "deck_size_start",
    "helium", "research", "cash",
)
