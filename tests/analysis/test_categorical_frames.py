"""Frames loaded with text as categoricals (analysis.load) give the tables plain text columns gave.

Each test pins a place where a categorical column raised, warned or changed a result that the same
column as text did not.
"""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import deck, report, stats
from analysis.load import load_run, load_runs
from analysis.schema import CARD_COLUMNS
from analysis.study import load_study
from sim.cli import main


def test_paired_differences_of_runs_loaded_apart_with_different_seat_kinds(make_run):
    # a solo run's kind column knows only "luna", a duel's "luna" and "scripted": comparing the two
    # categoricals raised TypeError instead of naming the different seat mixes
    solo = load_run(make_run("solo", ["luna:5"], games=3)).seats
    duel = load_run(make_run("duel", ["scripted:tank", "luna:5"], games=3)).seats
    with pytest.raises(ValueError, match="different seat mixes: game 0 seat 0 is luna:5 in base and scripted:-1"):
        stats.paired_differences(solo, duel)


def test_figure_slice_breaks_a_tie_of_opponents_by_the_first_run_as_for_text(make_run):
    # two duels of as many games: value_counts of a categorical ordered the tie by category
    # ("passive" < "tank") where text kept the first run's rows first, so the figures changed opponents
    runs = [make_run("first", ["scripted:tank", "luna:4"], games=4),
            make_run("second", ["scripted:passive", "luna:5"], games=4)]
    data = load_runs(runs)
    for frame in (data.seats, data.rounds):
        as_text = frame.assign(opponents=frame["opponents"].astype(str))
        assert set(report.figure_slice(frame)["opponents"]) == {"tank"}
        assert report.figure_slice(frame).index.equals(report.figure_slice(as_text).index)


def test_text_a_file_keeps_as_a_dictionary_loads_with_sorted_categories(make_run):
    # a seats file written from categoricals (pandas writes them as parquet dictionaries) kept the writer's
    # category order, so tables grouped by profile came out in that order rather than the text's
    run = make_run("rewritten", ["scripted:tank", "scripted:balanced", "luna:3"], games=4)
    seats = pd.read_parquet(run / "seats.parquet")
    seats["profile"] = pd.Categorical(seats["profile"], categories=["tank", "balanced", ""])
    seats.to_parquet(run / "seats.parquet")
    loaded = load_run(run).seats
    assert list(loaded["profile"].cat.categories) == ["", "balanced", "tank"]
    table = stats.score_summary(loaded, by="profile", metrics="score_total", kind="scripted")
    assert table["profile"].tolist() == ["balanced", "tank"]


def test_load_study_keeps_text_categorical_across_parts(tmp_path):
    # pd.concat of the parts made text of each categorical whose categories differ between parts (kind: a
    # solo part has only "luna") and left the others categorical, so the dtypes depended on the data
    assert main(["study", "--name", "s", "--results-dir", str(tmp_path), "--games", "6", "--levels", "5",
                 "--profiles", "balanced", "--engine", "reference", "--quiet", "--keep-games"]) == 0
    _, data = load_study(tmp_path / "s")
    for frame, columns in ((data.seats, ["run", "variant", "seats", "opponents", "kind", "profile"]),
                           (data.rounds, ["run", "variant", "opponents", *CARD_COLUMNS])):
        for column in columns:
            dtype = frame[column].dtype
            assert isinstance(dtype, pd.CategoricalDtype), column
            assert list(dtype.categories) == sorted(dtype.categories), column
    assert set(data.seats["kind"]) == {"luna", "scripted"}
    assert set(data.seats["run"]) == {"solo-L5", "vs-balanced-L5"}


def test_without_mixed_duels_and_figure_slice_return_a_frame_of_their_own(make_run):
    # keeping every row returned the caller's frame itself, so a column added to the result appeared in
    # data.seats too (a selection, as before the loader kept every row uncopied, never did)
    data = load_runs([make_run("solo", ["luna:3"], games=3), make_run("duel", ["scripted:tank", "luna:4"], games=3)])
    for function in (report.without_mixed_duels, report.figure_slice):
        shown = function(data.seats)
        shown["mine"] = 1
        assert "mine" not in data.seats.columns, function.__name__


@pytest.fixture
def observed_false_by_default(monkeypatch):
    """groupby as pandas 2 has it (the project allows pandas>=2.1): categorical keys give every category's group,
    the empty ones too, unless a call says observed=True."""
    for owner in (pd.DataFrame, pd.Series):
        original = owner.groupby

        def groupby(self, *args, _original=original, **kwargs):
            kwargs.setdefault("observed", False)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(owner, "groupby", groupby)


def _report_of(data) -> dict[str, pd.DataFrame]:
    return {name: table.reset_index(drop=True) for name, table in report.report_tables(data).items()}


def test_report_tables_do_not_depend_on_groupbys_default_for_observed(make_run, request):
    # on pandas 2 every categorical key grouped on its default observed=False: tables gained a row for each
    # combination no run played (a variant's duel that only the base played: n 0, mean NaN)
    runs = [make_run("solo", ["luna:5"], games=4), make_run("duel", ["scripted:tank", "luna:5"], games=4),
            make_run("later", ["luna:5"], games=4, variant="later")]
    data = load_runs(runs)
    expected = _report_of(data)
    request.getfixturevalue("observed_false_by_default")
    actual = _report_of(data)
    assert list(actual) == list(expected)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(actual[name], table, obj=name)


def test_card_play_counts_gives_card_ids_as_text(make_run):
    # the five slot columns share their categories here, so the stacked card column stayed categorical (text when
    # they differ); pandas 2 could not map such a column to the card sort keys (NotImplementedError)
    run = make_run("solo", ["luna:5"], games=30)
    written = pd.read_parquet(run / "luna_rounds.parquet")
    written.assign(**{column: written["card_a"].to_numpy()[::-1] for column in CARD_COLUMNS[1:]}).to_parquet(
        run / "luna_rounds.parquet")
    rounds = load_run(run).rounds
    assert all(rounds[column].cat.categories.equals(rounds["card_a"].cat.categories) for column in CARD_COLUMNS)
    table = deck.card_play_counts(rounds)
    assert not isinstance(table["card"].dtype, pd.CategoricalDtype)
    assert table["card"].drop_duplicates().tolist() == sorted(set(table["card"]), key=deck.card_sort_key)
