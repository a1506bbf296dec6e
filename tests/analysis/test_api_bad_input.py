"""What a QA pass of the Python API (2026-11-26) found the analysis functions doing with inputs an analyst gives in
a notebook: a typo that returned empty tables, a string read as its letters, an empty table ending in matplotlib's
or pandas' own error. Each case is now a clear ValueError from the project's code, or the documented empty result.
"""

from __future__ import annotations

import pytest

from analysis import deck, plots, stats
from analysis.load import load_runs


@pytest.fixture(scope="module")
def with_variant(study_runs):
    return load_runs(study_runs)


@pytest.fixture(scope="module")
def data(study_runs):
    """The base runs: a table over every run would pool the base with the variant (refused, below)."""
    return load_runs(study_runs[:-1])


@pytest.mark.parametrize("call", [
    lambda seats: stats.score_summary(seats, kind="Luna"),
    lambda seats: stats.win_rates(seats, kind="nope"),
    lambda seats: stats.level_ladder(seats, kind="nope"),
    lambda seats: plots.plot_score_ecdf(seats, kind="nope"),
])
def test_an_unknown_seat_kind_is_refused(data, call):
    # each returned 0 rows (an empty figure for the plot) without a word
    with pytest.raises(ValueError, match=r"^kind: must be 'luna', 'scripted' or None, got "):
        call(data.seats)


def test_one_metric_may_be_named_alone(data):
    # "missing column(s): s, c, o, r, e, _, t, a, l"
    alone = stats.score_summary(data.seats, metrics="score_total")
    assert alone.equals(stats.score_summary(data.seats, metrics=["score_total"]))
    assert set(alone["metric"]) == {"score_total"}


def test_plots_of_empty_documented_results_say_why(data, study_runs):
    # zip() argument 2 is shorter / longer than argument 1
    solo = data.seats[data.seats["n_seats"] == 1]
    no_opponent = stats.win_rates(solo, by=["opponents", "level"])
    assert no_opponent.empty
    with pytest.raises(ValueError, match=r"^plot_win_rates: the table is empty: no group has an opponent"):
        plots.plot_win_rates(no_opponent)
    no_variant = stats.variant_differences(load_runs(study_runs[:3]))  # the solo runs: no variant among them
    assert no_variant.empty
    with pytest.raises(ValueError, match=r"^plot_variant_differences: the table is empty: no variant run has a base"):
        plots.plot_variant_differences(no_variant)


def test_variant_scores_of_several_metrics_are_refused(with_variant):
    data = with_variant
    # score_summary's default of 8 metrics drew one line zigzagging through all of them
    with pytest.raises(ValueError, match=r"^plot_variant_scores: several rows per \(variant, level\)"):
        plots.plot_variant_scores(stats.score_summary(data.seats, by=["variant", "level"]))


def test_paired_differences_of_a_frame_with_two_runs_says_so(data):
    # pandas' MergeError: Merge keys are not unique in left dataset
    two_runs = data.seats[data.seats["run"].isin(["solo_l1", "solo_l2"])]
    one_run = data.seats[data.seats["run"] == "solo_l3"]
    with pytest.raises(ValueError, match=r"^paired_differences: the base frame holds a game and seat twice"):
        stats.paired_differences(two_runs, one_run)


@pytest.mark.parametrize(("successes", "trials"), [(11, 10), (-1, 10), (1, -1)])
def test_wilson_interval_of_impossible_counts_is_refused(successes, trials):
    # (11, 10) gave (nan, 1.0) and (-1, 10) gave (0.0, nan)
    with pytest.raises(ValueError, match=r"^wilson_interval: successes must be between 0 and trials"):
        stats.wilson_interval(successes, trials)


def test_deck_tables_of_no_rows_are_empty_tables(data):
    # blocking_probability: "No objects to concatenate" for a run without --detail rounds;
    # slot_first_use: "cannot convert float NaN to integer" for a filter that kept nothing
    blocking = deck.blocking_probability(data.rounds.iloc[0:0])
    assert blocking.empty and list(blocking.columns) == ["level", "majority", "round", "total", "rounds_observed",
                                                         "p_blocked"]
    first_use = deck.slot_first_use(data.seats.iloc[0:0])
    assert first_use.empty and "first_round" in first_use.columns


@pytest.mark.parametrize("max_total", [-1, "5", 2.5])
def test_blocking_probability_refuses_a_max_total_that_is_no_count(data, max_total):
    # -1 returned an empty table; "5" a TypeError from pandas
    with pytest.raises(ValueError, match=r"^blocking_probability: max_total must be a whole number"):
        deck.blocking_probability(data.rounds, max_total=max_total)


def test_blocking_probability_takes_a_numpy_count(data):
    import numpy as np

    assert deck.blocking_probability(data.rounds, max_total=np.int64(3)).equals(
        deck.blocking_probability(data.rounds, max_total=3))


def test_run_study_reads_strings_as_its_command_line_options(tmp_path):
    # profiles="balanced": "unknown scripted profile 'b'"; levels="4-5": "got ['4', '-', '5']";
    # variants="x.toml": IsADirectoryError for '/'
    from analysis.study import read_plan, run_study

    overlay = tmp_path / "late.toml"
    overlay.write_text("[luna.levels.3]\nhelium_tokens = [15, 22]\n")
    run_study(name="s", games=20, levels="2-3", profiles="balanced", strengths="1,1.2", variants=str(overlay),
              engine="reference", quiet=True, results_dir=tmp_path)
    plan = read_plan(tmp_path / "s")
    assert plan.levels == (2, 3) and plan.profiles == ("balanced",) and plan.strengths == (1.0, 1.2)
    assert [variant.name for variant in plan.variants] == ["late"]


def test_level_ladder_pairs_only_levels_seated_in_one_game():
    # two play() frames stacked (no run column) were paired by game number although their games differ
    import pandas as pd

    from sim.play import play

    frames = [play("luna:4", 300, seed=1, engine="reference").frame(),
              play("luna:5", 300, seed=99, engine="reference").frame()]
    apart = pd.concat(frames, keys=["a", "b"], names=["run"]).reset_index("run")  # as the refusal below advises
    assert not stats.level_ladder(apart)["paired"].any()
    with pytest.raises(ValueError, match="game 0 has seat 0 twice"):  # whose seats play together is unknown
        stats.level_ladder(pd.concat(frames, ignore_index=True))
    duel = play("luna:4,luna:5", 300, seed=1, engine="reference").frame()
    assert stats.level_ladder(duel)["paired"].all()


@pytest.mark.parametrize("call", [
    lambda seats: stats.level_ladder(seats, by="opponents"),
    lambda seats: stats.score_summary(seats, by="level"),
    lambda seats: deck.slot_first_use(seats, by="level"),
])
def test_a_group_pooling_two_variants_is_refused(with_variant, call):
    # the level-balance notebook's ladder, rerun after its variant cell, averaged the base with the variant
    # under the base's labels: step 3 -> 4 read 5.0 points where the base's is 12.3 (a QA pass, 2026-11-27)
    with pytest.raises(ValueError, match=r"the rows hold 2 variants \(base, cheap\): add 'variant'"):
        call(with_variant.seats)
    call(with_variant.seats[with_variant.seats["variant"] == "base"])


def test_only_the_rows_grouped_must_hold_one_variant(with_variant):
    # the variant here plays Luna alone: the win rates (contested games) and the scripted seats hold only base
    stats.win_rates(with_variant.seats, by=["opponents", "level"])
    stats.score_summary(with_variant.seats, by=["luna_level", "profile"], kind="scripted")


def test_variant_as_a_key_keeps_the_variants_apart(with_variant):
    table = stats.score_summary(with_variant.seats, by=["variant", "level"], metrics="score_total")
    assert set(table["variant"]) == {"base", "cheap"}


def test_win_rates_of_in_memory_frames_count_each_game_s_seats():
    # frames of play() carry no run or n_seats column: two solo runs concatenated read as two-seat games (win
    # rate 1.0 for both levels), and Luna's rows of a game against a scripted seat as a solo game, silently
    # dropped to an empty table (a QA pass of the Python API)
    import pandas as pd

    from sim.play import play

    solo = pd.concat([play("luna:4", 30, seed=7, engine="reference").frame(),
                      play("luna:5", 30, seed=7, engine="reference").frame()])
    for call in (stats.win_rates, stats.level_ladder):
        with pytest.raises(ValueError, match=r"game 0 has seat 0 twice: the rows of several runs need the "
                                             r"'run' column load_runs gives"):
            call(solo)
    versus = play("scripted:balanced,luna:5", 30, seed=7, engine="reference").frame()
    whole = stats.win_rates(versus)
    assert whole["games"].tolist() == [30]
    with pytest.raises(ValueError, match=r"game 0 has seats \[1\] of 0-1: win rates need every seat of a game "
                                         r"\(or an 'n_seats' column"):
        stats.win_rates(versus[versus["kind"] == "luna"])
    # with the loader's n_seats column, a frame filtered to Luna's rows is what it was
    counted = versus.assign(n_seats=2)
    assert stats.win_rates(counted[counted["kind"] == "luna"]).equals(whole)


def test_a_run_data_or_a_number_where_a_frame_or_keys_go_is_one_line(data):
    # "'RunData' object has no attribute 'columns'" and "'int' object is not iterable" (a QA pass of the API)
    with pytest.raises(ValueError, match=r"^seats: expected a DataFrame, got RunData \(its seats are "
                                         r"\.seats\)$"):
        stats.score_summary(data)
    with pytest.raises(ValueError, match=r"^by: must be a column name, a list of them or None, got 5$"):
        stats.score_summary(data.seats, by=5)
