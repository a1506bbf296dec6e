"""Deck-cycle, majority and blocking tables: known answers on hand-built rounds."""

from __future__ import annotations

import math

import pytest

from analysis.deck import (
    blocking_probability,
    card_play_counts,
    card_sort_key,
    grade2_by_round,
    majority_by_round,
    majority_distribution,
    reshuffle_distribution,
    reshuffle_timing,
    reshuffles_by_round,
    slot_first_use,
)
from sim.constants import MAJORITY_TYPES


def _seat_game_rounds(game: int, reshuffles: list[int], **columns) -> list[dict]:
    """Seven round rows of one seat-game; ``columns`` maps a column to its per-round values."""
    rows = []
    for index, count in enumerate(reshuffles):
        row = {"game": game, "round": index + 1, "reshuffles": count}
        row.update({column: values[index] for column, values in columns.items()})
        rows.append(row)
    return rows


def test_reshuffle_distribution(build_seats):
    # Reshuffles per game 1, 1, 2, 0 -> shares 0: 1/4, 1: 2/4, 2: 1/4. The scripted seat is ignored.
    rows = [{"game": g, "level": 2, "reshuffles": r} for g, r in enumerate([1, 1, 2, 0])]
    rows.append({"game": 0, "seat": 1, "kind": "scripted", "level": -1, "reshuffles": 9, "won": 0.0})
    table = reshuffle_distribution(build_seats(rows))
    assert list(table["reshuffles"]) == [0, 1, 2]
    assert list(table["games"]) == [1, 2, 1]
    assert list(table["share"]) == pytest.approx([0.25, 0.5, 0.25])


def test_reshuffles_by_round_and_timing(build_rounds):
    # Seat-game A: reshuffles by round 0,1,0,2,0,0,0 -> 1st in round 2, 2nd and 3rd in round 4.
    # Seat-game B: 0,0,1,0,0,0,0 -> 1st in round 3.
    rows = _seat_game_rounds(0, [0, 1, 0, 2, 0, 0, 0]) + _seat_game_rounds(1, [0, 0, 1, 0, 0, 0, 0])
    rounds = build_rounds(rows)
    by_round = reshuffles_by_round(rounds).set_index("round")
    assert by_round.loc[4, "mean_reshuffles"] == pytest.approx(1.0)  # (2 + 0) / 2
    assert by_round.loc[4, "share_reshuffled"] == pytest.approx(0.5)
    assert by_round.loc[1, "games"] == 2

    timing = reshuffle_timing(rounds)
    records = list(timing[["reshuffle", "round", "count"]].itertuples(index=False, name=None))
    assert records == [(1, 2, 1), (1, 3, 1), (2, 4, 1), (3, 4, 1)]
    # Half of the seat-games with a first reshuffle had it in round 2; the only 2nd was in round 4.
    assert list(timing["share"]) == pytest.approx([0.5, 0.5, 1.0, 1.0])


def test_reshuffle_timing_without_reshuffles(build_rounds):
    table = reshuffle_timing(build_rounds(_seat_game_rounds(0, [0] * 7)))
    assert table.empty
    assert list(table.columns) == ["level", "reshuffle", "round", "count", "share"]


def test_grade2_by_round_causes_and_cumulative(build_rounds):
    # Two seat-games. Round 1: game 0 gains 1 by token; round 2: game 0 gains 1 by reshuffle and
    # game 1 gains 2 by token. Means per seat-game: round 1 total 0.5 (token 0.5); round 2 total
    # 1.5 (reshuffle 0.5, token 1.0); cumulative 0.5, 2.0, then flat.
    zeros = [0] * 7
    game0 = _seat_game_rounds(
        0,
        zeros,
        grade2_by_token=[1, 0, 0, 0, 0, 0, 0],
        grade2_by_reshuffle=[0, 1, 0, 0, 0, 0, 0],
        grade2_entered=[1, 1, 0, 0, 0, 0, 0],
    )
    game1 = _seat_game_rounds(
        1, zeros, grade2_by_token=[0, 2, 0, 0, 0, 0, 0], grade2_by_reshuffle=zeros, grade2_entered=[0, 2, 0, 0, 0, 0, 0]
    )
    table = grade2_by_round(build_rounds(game0 + game1)).set_index("round")
    assert table.loc[1, "grade2_entered"] == pytest.approx(0.5)
    assert table.loc[1, "grade2_by_token"] == pytest.approx(0.5)
    assert table.loc[2, "grade2_entered"] == pytest.approx(1.5)
    assert table.loc[2, "grade2_by_reshuffle"] == pytest.approx(0.5)
    assert table.loc[2, "grade2_by_token"] == pytest.approx(1.0)
    assert list(table["cumulative_entered"]) == pytest.approx([0.5, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0])


def test_slot_first_use(build_seats):
    # Slot A first used in rounds 0 (never), 3, 3, 5: shares never 1/4, round 3 1/2, round 5 1/4;
    # in use by round: r1-r2 0, r3-r4 0.5, r5-r7 0.75. Slot E always in round 1.
    first_rounds = [0, 3, 3, 5]
    rows = [
        {"game": g, "level": 4, "slot_a_first_round": a, "slot_e_first_round": 1} for g, a in enumerate(first_rounds)
    ]
    table = slot_first_use(build_seats(rows))
    slot_a = table[table["slot"] == "A"].set_index("first_round")
    assert list(slot_a.index) == list(range(8))
    assert list(slot_a["games"]) == [1, 0, 0, 2, 0, 1, 0, 0]
    assert slot_a.loc[0, "share"] == pytest.approx(0.25)
    assert math.isnan(slot_a.loc[0, "cumulative_share"])
    assert list(slot_a.loc[1:, "cumulative_share"]) == pytest.approx([0, 0, 0.5, 0.5, 0.75, 0.75, 0.75])
    slot_e = table[table["slot"] == "E"].set_index("first_round")
    assert list(slot_e.loc[1:, "cumulative_share"]) == pytest.approx([1.0] * 7)
    # Without group keys: one block per slot.
    assert list(slot_first_use(build_seats(rows), by=None).columns[:2]) == ["slot", "first_round"]


def test_card_play_counts(build_rounds):
    # Two seat-games, one round each. Game 0: I-2 in B, I-10 in C, II-1 in D; game 1: I-2 in A,
    # I-10 in B. I-2: 2 plays (A once, B once) -> 0.5 plays per game from each, slot share 0.5.
    rows = [
        {"game": 0, "card_b": "I-2", "card_c": "I-10", "card_d": "II-1"},
        {"game": 1, "card_a": "I-2", "card_b": "I-10"},
    ]
    table = card_play_counts(build_rounds(rows))
    records = list(table[["card", "slot", "plays"]].itertuples(index=False, name=None))
    # Ordered by grade then number (I-2 before I-10 before II-1), then slot.
    assert records == [("I-2", "A", 1), ("I-2", "B", 1), ("I-10", "B", 1), ("I-10", "C", 1), ("II-1", "D", 1)]
    assert list(table["plays_per_game"]) == pytest.approx([0.5] * 5)
    assert list(table["slot_share"]) == pytest.approx([0.5, 0.5, 0.5, 0.5, 1.0])
    assert sorted(["II-1", "I-10", "I-2", "X"], key=card_sort_key) == ["I-2", "I-10", "II-1", "X"]


def test_majority_by_round_and_distribution(build_rounds):
    # Round 1 titanium values 0, 2, 2, 3: mean 1.75; distribution 0: 1/4, 2: 2/4, 3: 1/4.
    rows = [{"game": g, "majority_titanium": value} for g, value in enumerate([0, 2, 2, 3])]
    rounds = build_rounds(rows)
    table = majority_by_round(rounds)
    titanium = table[table["majority"] == "titanium"].iloc[0]
    assert titanium["mean"] == pytest.approx(1.75)
    assert titanium["n"] == 4
    assert tuple(table["majority"]) == MAJORITY_TYPES
    distribution = majority_distribution(rounds)
    titanium = distribution[distribution["majority"] == "titanium"]
    assert list(titanium["value"]) == [0, 2, 3]
    assert list(titanium["share"]) == pytest.approx([0.25, 0.5, 0.25])


def test_blocking_probability(build_rounds):
    # Luna's titanium values in round 1: 0, 2, 2, 3. A player with total t is blocked when t < value:
    # t=0: values 2, 2, 3 -> 3/4; t=1: 3/4; t=2: only 3 -> 1/4; t=3: never -> 0.
    # Round 2 values: 1, 1, 1, 1 -> t=0: 1, t=1..3: 0 (tabulated up to the type's overall max, 3).
    rows = [{"game": g, "round": 1, "majority_titanium": v} for g, v in enumerate([0, 2, 2, 3])]
    rows += [{"game": g, "round": 2, "majority_titanium": 1} for g in range(4)]
    table = blocking_probability(build_rounds(rows))
    titanium = table[table["majority"] == "titanium"]
    round_1 = titanium[titanium["round"] == 1]
    assert list(round_1["total"]) == [0, 1, 2, 3]
    assert list(round_1["p_blocked"]) == pytest.approx([0.75, 0.75, 0.25, 0.0])
    assert set(round_1["rounds_observed"]) == {4}
    round_2 = titanium[titanium["round"] == 2]
    assert list(round_2["p_blocked"]) == pytest.approx([1.0, 0.0, 0.0, 0.0])
    # All other types are 0 everywhere: only t = 0, never blocked.
    carbon = table[table["majority"] == "carbon"]
    assert list(carbon["total"]) == [0, 0] and list(carbon["p_blocked"]) == [0.0, 0.0]
    # A fixed range extends every curve.
    wide = blocking_probability(build_rounds(rows), by=None, max_total=5)
    assert wide.groupby(["majority", "round"]).size().eq(6).all()


def test_slot_first_use_runs_to_the_rounds_the_games_lasted(build_seats):
    seats = build_seats([{"slot_a_first_round": 2, "slot_e_first_round": 0}])
    assert slot_first_use(seats, by=None, rounds=6)["first_round"].max() == 6
    assert slot_first_use(seats, by=None)["first_round"].max() == 7
