"""Known-answer tests for analysis/deck.py at its edges: each pins behaviour that a mutation audit of the frame-based
deck-cycle and majority tables (a QA pass, 2026-11-28) showed no test pinned. The study's parity test
(tests/test_study_summaries.py) sees only what a study's frames hold: per-round rows of solo games alone (one Luna
per game), in engine order, always grouped by level, so it cannot see these.

Known answers: by hand from the small frames below, and by the study's summary-based namesakes in
analysis/study/summary_tables.py on the same games.
"""

from __future__ import annotations

import pandas as pd

from analysis import deck
from analysis.schema import MAJORITY_TYPES
from analysis.study import summary_tables as st


def _seat_game(game: int, seat: int, level: int, **columns: list) -> list[dict]:
    """One Luna seat-game's round rows, round 1 first; ``columns`` maps a column to its value in each round."""
    rounds = len(next(iter(columns.values())))
    return [{"game": game, "seat": seat, "level": level, "round": index + 1,
             **{column: values[index] for column, values in columns.items()}} for index in range(rounds)]


# ---------------------------------------------------------------- two Lunas in one game
def test_reshuffle_timing_numbers_each_luna_s_reshuffles_apart_in_a_game_of_two(build_rounds):
    # A mirror duel (luna:4,luna:4) with per-round rows: seat 0 reshuffles in round 1, seat 1 in round 2. Each seat
    # has her own deck, so each had her 1st reshuffle: k=1 in round 1 (1 of 2 seat-games) and in round 2 (1 of 2);
    # numbered by game alone, seat 1's would read as a 2nd reshuffle.
    rounds = build_rounds(_seat_game(0, 0, 4, reshuffles=[1, 0, 0]) + _seat_game(0, 1, 4, reshuffles=[0, 1, 0]))
    for by in ("level", None):
        table = deck.reshuffle_timing(rounds, by=by)
        assert table[["reshuffle", "round", "count"]].values.tolist() == [[1, 1, 1], [1, 2, 1]]
        assert table["share"].tolist() == [0.5, 0.5]


def test_card_play_counts_counts_each_luna_of_a_game_as_a_seat_game(build_rounds):
    # Game 0 of a mirror duel, one round: both Lunas play I-1 from slot B. Two plays over two seat-games: 1.0 per
    # seat-game (one seat-game per game would read 2.0).
    rows = [{"game": 0, "seat": seat, "level": 4, "card_b": "I-1"} for seat in (0, 1)]
    for by in ("level", None):
        table = deck.card_play_counts(build_rounds(rows), by=by)
        assert table[["card", "slot", "plays", "plays_per_game", "slot_share"]].values.tolist() == [
            ["I-1", "B", 2, 1.0, 1.0]]


def test_card_play_counts_without_group_keys_counts_the_seat_games_of_every_run(build_rounds):
    # Two runs, each with its game 0 (game numbers restart in every run): I-1 played once in each, from slot A.
    # 2 plays over 2 seat-games: 1.0 per seat-game (counting distinct game numbers, 1, would read 2.0).
    rows = [{"run": run, "game": 0, "level": 3, "card_a": "I-1"} for run in ("a", "b")]
    table = deck.card_play_counts(build_rounds(rows), by=None)
    assert table[["card", "slot", "plays", "plays_per_game"]].values.tolist() == [["I-1", "A", 2, 1.0]]


# ---------------------------------------------------------------- no group keys
def _histogram(seats: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The study's value counts of ``columns`` from a seats frame: one row per run, seat, value (with n_seats)."""
    seats = seats.assign(run="L", variant="base", n_seats=1)
    labels = ["run", "variant", "n_seats", "seat", "kind", "level", "profile"]
    long = seats.melt(id_vars=labels, value_vars=columns, var_name="column", value_name="value")
    long["value"] = long["value"].astype(float)
    return long.groupby([*labels, "column", "value"], sort=True).size().rename("count").reset_index()


def test_reshuffle_distribution_without_group_keys_is_a_share_of_every_seat_game(build_seats):
    # Reshuffles per game 1, 1, 2, 0 at levels 2, 3, 3, 2, no keys: 0 in 1 of 4 seat-games, 1 in 2 of 4, 2 in 1 of 4
    # (a share over the 3 distinct values would read 1/3, 2/3, 1/3).
    seats = build_seats([{"game": g, "level": level, "reshuffles": r}
                         for g, (level, r) in enumerate([(2, 1), (3, 1), (3, 2), (2, 0)])])
    table = deck.reshuffle_distribution(seats, by=None)
    assert table[["reshuffles", "games"]].values.tolist() == [[0, 1], [1, 2], [2, 1]]
    assert table["share"].tolist() == [0.25, 0.5, 0.25]
    summary = st.reshuffle_distribution(_histogram(seats, ["reshuffles"]), by=None)
    pd.testing.assert_frame_equal(table, summary, check_dtype=False)


def test_grade2_by_round_without_group_keys_accumulates_the_cards_entered(build_rounds):
    # Two seat-games over two rounds. Entered 1, 0 and 1, 2 (the 2 of round 2 by token): means 1.0 in round 1 and
    # 1.0 in round 2, so 1.0 then 2.0 in the deck; the token means 0.0, 1.0 (the cumulative is of every cause).
    rows = (_seat_game(0, 0, 2, grade2_entered=[1, 0], grade2_by_reshuffle=[1, 0], grade2_by_token=[0, 0])
            + _seat_game(1, 0, 3, grade2_entered=[1, 2], grade2_by_reshuffle=[1, 0], grade2_by_token=[0, 2]))
    table = deck.grade2_by_round(build_rounds(rows), by=None)
    assert table["round"].tolist() == [1, 2]
    assert table["grade2_by_token"].tolist() == [0.0, 1.0]
    assert table["cumulative_entered"].tolist() == [1.0, 2.0]


# ---------------------------------------------------------------- row order
def test_reshuffles_by_round_gives_rows_by_group_then_round_whatever_the_row_order(build_rounds):
    # Rows of a level-5 seat-game first, each seat-game's rounds last to first: the table runs level 2 then 5,
    # rounds 1 to 3 in each (the order of the study's namesake, which sorts).
    rows = (_seat_game(0, 0, 5, reshuffles=[0, 1, 0])[::-1] + _seat_game(1, 0, 2, reshuffles=[1, 0, 0])[::-1])
    table = deck.reshuffles_by_round(build_rounds(rows))
    assert table[["level", "round", "games"]].values.tolist() == [[2, 1, 1], [2, 2, 1], [2, 3, 1],
                                                                   [5, 1, 1], [5, 2, 1], [5, 3, 1]]
    assert table["mean_reshuffles"].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]


def test_reshuffle_timing_numbers_reshuffles_in_round_order_whatever_the_row_order(build_rounds):
    # One seat-game reshuffling once in round 2 and twice in round 5, its rows given last round first: the 1st
    # reshuffle is in round 2, the 2nd and 3rd in round 5 (numbered in row order, the 1st would read round 5).
    rows = _seat_game(0, 0, 2, reshuffles=[0, 1, 0, 0, 2, 0, 0])[::-1]
    table = deck.reshuffle_timing(build_rounds(rows))
    assert table[["reshuffle", "round", "count"]].values.tolist() == [[1, 2, 1], [2, 5, 1], [3, 5, 1]]


# ---------------------------------------------------------------- slot_first_use
def test_slot_first_use_counts_a_first_use_after_the_rounds_given(build_seats):
    # rounds=6, yet one game first used slot A in round 7 (a 7-round run read with the Singularity's 6): the rows
    # run to 7 so that game counts: A in round 2 and 7, 1 of 2 each, in use by round 7 in both (dropping it
    # would read round 2 as 2 of 2... of 1 game). E: round 1 and never.
    seats = build_seats([{"game": g, "level": 4, "slot_a_first_round": a, "slot_e_first_round": e}
                         for g, (a, e) in enumerate([(2, 1), (7, 0)])])
    table = deck.slot_first_use(seats, rounds=6)
    slot_a = table[table["slot"] == "A"]
    assert slot_a["first_round"].tolist() == list(range(8))
    assert slot_a["games"].tolist() == [0, 0, 1, 0, 0, 0, 0, 1]
    assert slot_a["cumulative_share"].tolist()[1:] == [0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 1.0]
    summary = st.slot_first_use(_histogram(seats, ["slot_a_first_round", "slot_e_first_round"]), rounds=6)
    pd.testing.assert_frame_equal(table, summary, check_dtype=False)


def test_slot_first_use_gives_games_as_whole_numbers(build_seats):
    # The games column is a count: 1, not 1.0, in the table and in its CSV.
    seats = build_seats([{"game": 0, "level": 4, "slot_a_first_round": 3, "slot_e_first_round": 1}])
    table = deck.slot_first_use(seats, rounds=3)
    assert table["games"].dtype == "int64"
    assert table[table["slot"] == "A"]["games"].tolist() == [0, 0, 0, 1]


# ---------------------------------------------------------------- majority tables' row order
def test_majority_tables_run_by_type_in_game_order_then_round_then_value(build_rounds):
    # One seat-game of two rounds: titanium 3 in round 1 and 1 in round 2, every other type 0. The rows run
    # titanium, carbon, energy, minerals, scientists (the game's order, not the alphabet's or its reverse), and
    # within a type by round, then value: titanium's round 1 (value 3) before its round 2 (value 1).
    rows = _seat_game(0, 0, 2, majority_titanium=[3, 1])
    rounds = build_rounds(rows)
    distribution = deck.majority_distribution(rounds, by=None)
    expected = [[kind, round_number, value] for kind in MAJORITY_TYPES
                for round_number, value in ([(1, 3), (2, 1)] if kind == "titanium" else [(1, 0), (2, 0)])]
    assert distribution[["majority", "round", "value"]].values.tolist() == expected
    blocking = deck.blocking_probability(rounds, by=None)
    titanium = blocking[blocking["majority"] == "titanium"]
    # P(value > t): round 1 (value 3) blocks totals 0, 1, 2; round 2 (value 1) blocks total 0 only
    assert titanium[["round", "total", "p_blocked"]].values.tolist() == [
        [1, 0, 1.0], [1, 1, 1.0], [1, 2, 1.0], [1, 3, 0.0], [2, 0, 1.0], [2, 1, 0.0], [2, 2, 0.0], [2, 3, 0.0]]
    assert list(dict.fromkeys(blocking["majority"])) == list(MAJORITY_TYPES)


# ---------------------------------------------------------------- blocking_probability with max_total
def test_blocking_probability_below_luna_s_highest_value_counts_every_round(build_rounds):
    # Titanium 0, 2, 2, 3 in round 1, tabulated to max_total=1 only: still 4 rounds observed, and a player with 0
    # or 1 is blocked in 3 of them (values 2, 2, 3 lie above the table but block all the same); counting only the
    # rounds whose value is in the table (1 of 4) would read 0 and 0.
    rows = [{"game": g, "majority_titanium": value} for g, value in enumerate([0, 2, 2, 3])]
    table = deck.blocking_probability(build_rounds(rows), max_total=1)
    titanium = table[table["majority"] == "titanium"]
    assert titanium[["total", "rounds_observed", "p_blocked"]].values.tolist() == [[0, 4, 0.75], [1, 4, 0.75]]


def test_blocking_probability_of_max_total_zero_tabulates_total_zero(build_rounds):
    # max_total=0 is a whole number of at least 0: one row per type and round, the player with nothing; titanium
    # 0, 2, 2, 3 blocks her in 3 rounds of 4.
    rows = [{"game": g, "majority_titanium": value} for g, value in enumerate([0, 2, 2, 3])]
    table = deck.blocking_probability(build_rounds(rows), by=None, max_total=0)
    assert table[["majority", "total", "p_blocked"]].values.tolist() == [
        [kind, 0, 0.75 if kind == "titanium" else 0.0] for kind in MAJORITY_TYPES]
