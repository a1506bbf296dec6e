"""Loading run directories: run columns, optional files, clear errors."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from analysis.load import load_run, load_runs, read_manifest
from analysis.schema import RUN_COLUMNS


def test_load_runs_adds_run_columns(make_run):
    solo = make_run("solo_l2", ["luna:2"], games=5, seed=1)
    versus = make_run("vs_l3", ["scripted:balanced", "luna:3"], games=4, seed=2, variant="cheap")
    data = load_runs([solo, versus])
    seats = data.seats
    assert list(seats.columns[: len(RUN_COLUMNS)]) == list(RUN_COLUMNS)
    assert len(seats) == 5 + 8
    assert data.runs == ["solo_l2", "vs_l3"]
    first = seats.drop_duplicates("run").set_index("run")
    assert first.loc["solo_l2", "variant"] == "base"
    assert first.loc["vs_l3", "variant"] == "cheap"
    assert first.loc["solo_l2", "seats"] == "luna:2"
    assert first.loc["vs_l3", "seats"] == "scripted:balanced,luna:3"
    assert first.loc["solo_l2", "opponents"] == ""
    assert first.loc["vs_l3", "opponents"] == "balanced"
    assert first.loc["vs_l3", "luna_level"] == 3
    assert first.loc["vs_l3", "n_seats"] == 2

    # Per-round rows carry the seat's level and the run columns.
    rounds = data.rounds
    assert len(rounds) == (5 + 4) * 7
    assert set(rounds.loc[rounds["run"] == "vs_l3", "level"]) == {3}
    assert set(data.luna["kind"]) == {"luna"}
    assert data.manifests["vs_l3"]["config"]["variant"] == "cheap"


def test_opponents_of_multi_luna_runs(make_run):
    duel = load_run(make_run("duel", ["luna:4", "luna:5"], games=2)).seats
    assert set(duel["opponents"]) == {"luna"}
    assert set(duel["luna_level"]) == {-1}  # mixed levels
    crowd = load_run(make_run("crowd", ["scripted:tank", "scripted:passive", "luna:2", "luna:2"], games=2)).seats
    assert set(crowd["opponents"]) == {"luna,passive,tank"}
    assert set(crowd["luna_level"]) == {2}


def test_seat_mix_rebuilt_without_manifest(make_run):
    run = make_run("bare", ["scripted:tank", "luna:6"], games=3)
    (run / "manifest.json").unlink()
    (run / "luna_rounds.parquet").unlink()
    data = load_run(run)
    assert data.seats.loc[0, "seats"] == "scripted:tank,luna:6"
    assert data.seats.loc[0, "variant"] == "base"
    assert data.rounds.empty
    assert {"run", "level", "card_a", "majority_scientists"} <= set(data.rounds.columns)
    assert read_manifest(run) == {}


def test_runs_without_rounds_stack_with_runs_that_have_them(make_run):
    with_rounds = make_run("a", ["luna:1"], games=2)
    without = make_run("b", ["luna:2"], games=2, with_rounds=False)
    data = load_runs([with_rounds, without])
    assert set(data.rounds["run"]) == {"a"}


def test_missing_directory_and_seats_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_run(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"empty[/\\]seats\.parquet: file not found"):
        load_run(tmp_path / "empty")
    with pytest.raises(ValueError, match="no run directory"):
        load_runs([])


def test_an_aggregate_only_run_is_named_as_such(tmp_path):
    """Regression: runs-report of an --aggregate-only run said only that it needs seats.parquet."""
    from sim.cli import main

    run = tmp_path / "agg"
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--engine", "reference", "--aggregate-only",
                 "--out", str(run), "--quiet"]) == 0
    with pytest.raises(ValueError, match=r"agg: an --aggregate-only run keeps no per-game rows \(seats\.parquet\)"):
        load_run(run)


def test_missing_column_is_named(make_run):
    run = make_run("broken", ["luna:2"], games=2)
    seats = pd.read_parquet(run / "seats.parquet").drop(columns=["score_minerva", "won"])
    seats.to_parquet(run / "seats.parquet")
    with pytest.raises(ValueError, match=r"seats\.parquet: missing column\(s\): score_minerva, won"):
        load_run(run)


def test_missing_rounds_column_is_named(make_run):
    run = make_run("broken_rounds", ["luna:2"], games=2)
    rounds = pd.read_parquet(run / "luna_rounds.parquet").drop(columns=["deck_size_start"])
    rounds.to_parquet(run / "luna_rounds.parquet")
    with pytest.raises(ValueError, match=r"luna_rounds\.parquet: missing column\(s\): deck_size_start"):
        load_run(run)


def test_rounds_written_before_the_majority_cards_still_load(make_run):
    # luna_rounds gained majority_card_left/right; a run written before them is still a run
    run = make_run("older_rounds", ["luna:2"], games=2)
    rounds = pd.read_parquet(run / "luna_rounds.parquet")
    rounds.drop(columns=["majority_card_left", "majority_card_right"], errors="ignore").to_parquet(
        run / "luna_rounds.parquet")
    loaded = load_run(run).rounds
    assert len(loaded) == len(rounds) and "majority_card_left" not in loaded.columns


def test_inconsistent_seats_rejected(make_run):
    run = make_run("bad_won", ["scripted:passive", "luna:2"], games=3)
    seats = pd.read_parquet(run / "seats.parquet")
    seats.loc[0, "won"] = 0.25
    seats.to_parquet(run / "seats.parquet")
    with pytest.raises(ValueError, match="won must sum to 1 per game"):
        load_run(run)

    run = make_run("bad_total", ["luna:2"], games=2)
    seats = pd.read_parquet(run / "seats.parquet")
    seats.loc[1, "score_total"] += 1
    seats.to_parquet(run / "seats.parquet")
    with pytest.raises(ValueError, match="differs from the sum of the 7 categories in 1 row"):
        load_run(run)

    run = make_run("bad_kind", ["luna:2"], games=2)
    seats = pd.read_parquet(run / "seats.parquet")
    seats["kind"] = "robot"
    seats.to_parquet(run / "seats.parquet")
    with pytest.raises(ValueError, match="unknown value"):
        load_run(run)


def test_duplicate_run_names_and_bad_manifest(make_run, tmp_path):
    first = make_run("same", ["luna:2"], games=2)
    other = tmp_path / "elsewhere"
    other.mkdir()
    second = other / "same"
    second.mkdir()
    for name in ("seats.parquet", "luna_rounds.parquet", "manifest.json"):  # a whole run: its manifest promises rounds
        (second / name).write_bytes((first / name).read_bytes())
    with pytest.raises(ValueError, match="run name 'same' is used by two directories"):
        load_runs([first, second])
    (second / "manifest.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    with pytest.raises(ValueError, match="manifest must be a JSON object"):
        load_run(second)
    (second / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read manifest"):
        load_run(second)


@pytest.mark.parametrize(("overlay_name", "variant"), [("late.toml", "late"), ("base.toml", "base-overlay")])
def test_a_run_played_with_an_overlay_is_its_own_variant(tmp_path, overlay_name, variant):
    # every simulate run was labelled "base": an overlay run pooled with its base in every table, and
    # variant_differences found nothing to pair (a QA pass, 2026-11-26)
    from analysis import stats
    from sim.cli import main

    overlay = tmp_path / overlay_name
    overlay.write_text("[luna.levels.5]\nhelium_tokens = [15, 22]\n")
    common = ["--seats", "luna:5", "--games", "40", "--seed", "3", "--engine", "reference", "--quiet"]
    assert main(["simulate", *common, "--out", str(tmp_path / "base")]) == 0
    assert main(["simulate", *common, "--overlay", str(overlay), "--out", str(tmp_path / "late")]) == 0
    data = load_runs([tmp_path / "base", tmp_path / "late"])
    assert dict(data.seats.drop_duplicates("run")[["run", "variant"]].to_numpy().tolist()) == {
        "base": "base", "late": variant}
    assert set(stats.variant_differences(data)["variant"]) == {variant}


def test_text_columns_load_as_categoricals_with_sorted_categories(make_run):
    # millions of rows repeat a handful of values; sorted categories group and sort as the text would
    runs = [make_run("b_run", ["scripted:tank", "luna:2"], games=3), make_run("a_run", ["luna:4"], games=2,
                                                                               variant="cheap")]
    data = load_runs(runs)
    for column in ("run", "variant", "seats", "opponents", "kind", "profile"):
        dtype = data.seats[column].dtype
        assert isinstance(dtype, pd.CategoricalDtype), column
        assert list(dtype.categories) == sorted(dtype.categories), column
    assert list(data.seats["run"].cat.categories) == ["a_run", "b_run"]  # the union of the runs' values
    assert isinstance(data.rounds["card_a"].dtype, pd.CategoricalDtype)
    assert data.seats.groupby("run", observed=True).size().to_dict() == {"a_run": 2, "b_run": 6}


def test_rows_written_out_of_order_are_sorted(make_run):
    run = make_run("shuffled", ["scripted:tank", "luna:2"], games=4)
    seats = pd.read_parquet(run / "seats.parquet")
    seats.iloc[::-1].to_parquet(run / "seats.parquet")
    loaded = load_run(run).seats
    assert loaded[["game", "seat"]].to_numpy().tolist() == [[game, seat] for game in range(4) for seat in range(2)]
    assert loaded.index.tolist() == list(range(8))


def test_runs_of_other_game_settings_are_variants_of_their_own(tmp_path):
    # runs-report pooled a 6-round run with a 7-round one into one "level 4" row (a QA pass, 2026-11-27)
    from analysis import stats
    from sim.cli import main

    common = ["--seats", "luna:4", "--games", "30", "--engine", "reference", "--quiet"]
    assert main(["simulate", *common, "--seed", "1", "--out", str(tmp_path / "full")]) == 0
    assert main(["simulate", *common, "--seed", "2", "--rounds", "6", "--start-bonus", "none", "--board", "belt",
                 "--out", str(tmp_path / "short")]) == 0
    data = load_runs([tmp_path / "full", tmp_path / "short"])
    assert dict(data.seats.drop_duplicates("run")[["run", "variant"]].to_numpy().tolist()) == {
        "full": "base", "short": "base (6 rounds, start bonus none, belt board)"}
    table = stats.score_summary(data.seats, by=["variant", "level"])
    assert table.loc[table["metric"] == "score_total", "n"].tolist() == [30, 30]


def test_two_runs_of_the_same_games_are_refused(tmp_path):
    # the same seed, seats, settings and data play the same games: pooled, each would count twice
    from sim.cli import main

    common = ["--seats", "luna:4", "--seed", "5", "--engine", "reference", "--quiet"]
    assert main(["simulate", *common, "--games", "30", "--out", str(tmp_path / "a")]) == 0
    assert main(["simulate", *common, "--games", "20", "--out", str(tmp_path / "b")]) == 0
    assert main(["simulate", *common, "--games", "20", "--seed", "6", "--out", str(tmp_path / "c")]) == 0
    with pytest.raises(ValueError, match=r"played the same games as .*count those games twice"):
        load_runs([tmp_path / "a", tmp_path / "b"])
    assert len(load_runs([tmp_path / "a", tmp_path / "c"]).seats) == 50


def test_runs_repeated_are_refused_before_a_row_is_read(tmp_path, monkeypatch):
    # two copies of a 2,000,000-game run were each read whole (seconds, and twice the memory) before the refusal
    import analysis.load as load_module
    from sim.cli import main

    common = ["--seats", "luna:4", "--seed", "5", "--games", "10", "--engine", "reference", "--quiet"]
    assert main(["simulate", *common, "--out", str(tmp_path / "a")]) == 0
    assert main(["simulate", *common, "--out", str(tmp_path / "b")]) == 0
    (tmp_path / "elsewhere").mkdir()
    shutil.copytree(tmp_path / "a", tmp_path / "elsewhere" / "a")

    def no_rows(*_: object) -> None:
        raise AssertionError("rows were read")

    monkeypatch.setattr(load_module, "_read_parquet", no_rows)
    with pytest.raises(ValueError, match=r"/b: played the same games as .*/a \(the same seats, seed, settings"):
        load_runs([tmp_path / "a", tmp_path / "b"])
    with pytest.raises(ValueError, match=r"^.*elsewhere/a: run name 'a' is used by two directories$"):
        load_runs([tmp_path / "a", tmp_path / "elsewhere" / "a"])
