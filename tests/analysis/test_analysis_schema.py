"""The analysis' column lists are the simulator's: a column added, renamed or moved there shows here."""

from __future__ import annotations

import re

from analysis import schema
from sim import columns, constants


def test_seat_columns_are_the_simulators():
    assert set(schema.SEATS_REQUIRED) | set(schema.INTERACTION_COLUMNS) == set(columns.SEAT_COLUMNS)
    assert not set(schema.SEATS_REQUIRED) & set(schema.INTERACTION_COLUMNS)
    assert list(schema.SEATS_REQUIRED) == [c for c in columns.SEAT_COLUMNS if c in schema.SEATS_REQUIRED]
    scores = [c for c in columns.SEAT_COLUMNS if c.startswith("score_") and c != schema.SCORE_TOTAL]
    assert list(schema.CATEGORY_SCORES) == scores and schema.SCORE_COLUMNS[0] == schema.SCORE_TOTAL
    assert set(schema.COUNTER_COLUMNS) <= set(columns.SEAT_NUMERIC)
    first_rounds = [c for c in columns.SEAT_COLUMNS if re.fullmatch(r"slot_[a-z]_first_round", c)]
    assert first_rounds == [f"slot_{slot.lower()}_first_round" for slot in schema.SWITCHED_SLOTS]
    blocked = [c for c in schema.INTERACTION_COLUMNS if c.startswith("blocked_")]
    assert blocked == [f"blocked_{kind}" for kind in constants.MAJORITY_TYPES]


def test_round_columns_are_the_simulators():
    # every column but the majority cards, which runs written before them lack
    later = columns.ROUND_MAJORITY_CARD_COLUMNS
    assert schema.ROUNDS_REQUIRED == tuple(c for c in columns.ROUND_NUMERIC if c not in later)
    assert set(schema.CARD_COLUMNS) | set(schema.MAJORITY_COLUMNS) <= set(columns.ROUND_NUMERIC)
    assert [c for c in columns.ROUND_NUMERIC if c.startswith("majority_") and c not in
            columns.ROUND_MAJORITY_CARD_COLUMNS] == list(schema.MAJORITY_COLUMNS)


def test_names_come_from_the_game_constants():
    assert schema.COMPANIES == constants.COMPANIES
    assert schema.MAJORITY_TYPES == constants.MAJORITY_TYPES
    assert "".join(schema.SLOTS) == constants.SLOT_LETTERS
    assert set(schema.SWITCHED_SLOTS) <= set(schema.SLOTS)
    assert schema.CATEGORIES[-len(constants.COMPANIES):] == constants.COMPANIES
