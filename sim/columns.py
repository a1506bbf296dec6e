"""The output contract: column names of ``seats.parquet`` and ``luna_rounds.parquet``.

Both engines return the numeric columns below as arrays (one row per game and seat, games in
order, seats in order within a game; rounds likewise per game, Luna seat and round); the run
driver adds the text columns (kind, profile, card ids). :class:`Chunk` is what an engine returns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.constants import (
    CHUNK_MEMORY_BYTES,
    COMPANIES,
    MAJORITY_SIDES,
    MAJORITY_TYPES,
    SLOT_LETTERS,
    SWITCHED_SLOTS,
)

# The final-scoring categories; ``score_total`` is their sum.
SCORE_CATEGORIES = ("cash", "helium", "research", *COMPANIES)
# The column families named from a list of the game's (each in that list's order), for the readers that need one.
SCORE_CATEGORY_COLUMNS = tuple(f"score_{c}" for c in SCORE_CATEGORIES)
COMPANY_SCORE_COLUMNS = tuple(f"score_{c}" for c in COMPANIES)  # the company categories, the last of the above
SHARES_COLUMNS = tuple(f"shares_{c}" for c in COMPANIES)
VALUE_COLUMNS = tuple(f"value_{c}" for c in COMPANIES)
BLOCKED_COLUMNS = tuple(f"blocked_{t}" for t in MAJORITY_TYPES)  # a scripted seat's, per majority type
SLOT_FIRST_ROUND_COLUMNS = {slot: f"slot_{slot.lower()}_first_round" for slot in SWITCHED_SLOTS}  # Luna's
# Luna's per-game deck and board counters.
SEAT_COUNTERS = (
    "cards_gained", "bonus_markers_placed", "plans_discarded", "outposts_placed", "ousted", "reshuffles",
    "grade2_entered", "grade2_by_reshuffle", "grade2_by_token",
)
# Interaction counters of scripted seats (0 for Luna): rounds each majority type was blocked by Luna,
# bonus spaces, display cards and research plans lost to her, outposts it placed that she ousted.
SEAT_INTERACTIONS = (
    *BLOCKED_COLUMNS,
    "bonus_spaces_lost", "cards_lost", "plans_lost", "outposts_ousted_by_luna",
)
# Numeric per-seat columns every engine fills, in this order (int64 except ``won``).
SEAT_NUMERIC = (
    "score_total", *SCORE_CATEGORY_COLUMNS,
    *SHARES_COLUMNS,
    *VALUE_COLUMNS,
    "helium", "research", "cash", *SEAT_COUNTERS,
    *SLOT_FIRST_ROUND_COLUMNS.values(),
    *SEAT_INTERACTIONS,
    "rank", "won",
)
# Columns the driver adds from the configuration.
SEAT_CONFIG = ("game", "seat", "kind", "level", "profile", "strength")
SEAT_COLUMNS = SEAT_CONFIG + SEAT_NUMERIC

# Numeric per-round columns (the ROUND_ID_COLUMNS hold Luna card indices, -1 = no card; the driver turns them into
# ids).
ROUND_CARD_COLUMNS = tuple(f"card_{slot.lower()}" for slot in SLOT_LETTERS)
#: The two majority cards she drew that round (SPEC 3, "cards in each slot": the left and right majority slots);
#: runs written before them have none, so readers do not require them (analysis.schema.ROUNDS_REQUIRED).
ROUND_MAJORITY_CARD_COLUMNS = tuple(f"majority_card_{side}" for side in MAJORITY_SIDES)
ROUND_ID_COLUMNS = ROUND_CARD_COLUMNS + ROUND_MAJORITY_CARD_COLUMNS
ROUND_MAJORITY_COLUMNS = tuple(f"majority_{t}" for t in MAJORITY_TYPES)  # Luna's value per majority type that round
ROUND_NUMERIC = (
    "game", "seat", "round", *ROUND_CARD_COLUMNS, *ROUND_MAJORITY_CARD_COLUMNS, *ROUND_MAJORITY_COLUMNS,
    "reshuffles", "grade2_entered", "grade2_by_reshuffle", "grade2_by_token", "deck_size_start",
    "helium", "research", "cash",
)


Columns = dict[str, np.ndarray]


@dataclass(frozen=True)
class Chunk:
    """Games ``first_game .. first_game + count - 1`` of one run, as numeric columns."""

    seats: Columns  # "game", "seat" and SEAT_NUMERIC
    rounds: Columns | None  # ROUND_NUMERIC, or None without detail


VALUE_BYTES = 8  # every column of a Chunk is int64 or float64


def chunk_bytes_per_game(seats: int, luna_seats: int, rounds: int, detail: bool) -> int:
    """Bytes one game adds to a :class:`Chunk`: its per-seat rows and, with ``detail``, its per-round rows.

    Parameters
    ----------
    seats, luna_seats : int
        Seats at the table, and how many of them are Luna (each Luna seat has a row per round).
    rounds : int
        Rounds a game lasts.
    detail : bool
        Whether the chunk carries per-round rows.
    """
    seat_values = seats * (2 + len(SEAT_NUMERIC))  # "game", "seat" and the numbers
    round_values = luna_seats * rounds * len(ROUND_NUMERIC) if detail else 0
    return (seat_values + round_values) * VALUE_BYTES


def chunk_games(seats: int, luna_seats: int, rounds: int, detail: bool, budget: int = CHUNK_MEMORY_BYTES) -> int:
    """Games per chunk when the caller does not choose: as many as fit the chunk's columns in ``budget`` bytes.

    So a four-seat run with per-round rows plays fewer games per chunk than Luna alone, in about the same
    memory. At least one game. Arguments as :func:`chunk_bytes_per_game`; ``budget`` in bytes.
    """
    return max(1, budget // chunk_bytes_per_game(seats, luna_seats, rounds, detail))
