"""The study's summaries: the report from them equals the frame-based report, and the Findings say what stands out."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from analysis.render import interval_end
from analysis.schema import SCORE_COLUMNS
from analysis.study import load_study, read_plan
from analysis.study.content import findings_section, frame_tables
from analysis.study.findings import findings_sentences, findings_table, parity_sentences
from analysis.study.plan import StudyError, rerun_command
from analysis.study.summaries import (
    PartReducer,
    _Counts,
    load_summaries,
    pairs_encoding,
)
from analysis.study.summary_report import study_tables
from sim.cli import main
from sim.columns import Chunk
from sim.config import GameConfig, parse_seats
from sim.engines import play_chunk_reference
from sim.gamedata import load_game_data
from sim.outputs import PAIRS_FILE, ROUND_SUMMARY_FILE, SEAT_SUMMARY_FILE, TIMING_SUMMARY_FILE
from sim.run import RunOptions, run_simulation

GAMES = 120


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> Path:
    """A small study with a variant and every game kept, so both report paths can be computed."""
    root = tmp_path_factory.mktemp("kept")
    overlay = root / "late_tokens.toml"
    overlay.write_text('name = "later helium tokens at level 5"\n[luna.levels.5]\nhelium_tokens = [15, 22]\n')
    assert main(["study", "--name", "k", "--results-dir", str(root), "--games", str(GAMES), "--levels", "4-5",
                 "--engine", "reference", "--quiet", "--keep-games", "--variant", str(overlay)]) == 0
    return root / "k"


def test_summary_tables_equal_the_frame_based_tables(kept):
    plan, data = load_study(kept)
    from_frames = frame_tables(plan, data)
    from_summaries = study_tables(load_summaries(kept))
    assert list(from_summaries) == list(from_frames)
    assert {"variant_differences", "variant_overview", "head_to_head", "card_play_counts"} <= set(from_frames)
    for name, expected in from_frames.items():
        actual = from_summaries[name]
        assert list(actual.columns) == list(expected.columns), name
        assert len(actual) == len(expected), name
        for column in expected.columns:
            left, right = expected[column].reset_index(drop=True), actual[column].reset_index(drop=True)
            if pd.api.types.is_float_dtype(left) or pd.api.types.is_float_dtype(right):
                np.testing.assert_allclose(right.to_numpy(dtype=float), left.to_numpy(dtype=float), rtol=1e-9,
                                           atol=1e-12, err_msg=f"{name}.{column}")
            else:  # keys and counts: exactly
                assert right.tolist() == left.tolist(), f"{name}.{column}"


def test_both_report_paths_pool_each_duels_two_seat_orders(kept):
    # the equality above holds for any head-to-head; this pins that it is the pooled one, in base and variant alike
    table = study_tables(load_summaries(kept))["head_to_head"]
    assert table[["variant", "runs", "games"]].values.tolist() == [
        ["base", "duel-L4-L5, duel-L5-L4", 2 * GAMES],
        ["late_tokens", "late_tokens/duel-L4-L5, late_tokens/duel-L5-L4", 2 * GAMES]]
    assert table[["win_rate_seated_first", "win_rate_seated_second"]].notna().all(axis=None)


def test_report_of_the_kept_study_writes_the_summary_tables(kept):
    expected = study_tables(load_summaries(kept))
    written = pd.read_csv(kept / "tables" / "score_summary.csv")
    assert written["n"].tolist() == expected["score_summary"]["n"].tolist()


def test_load_study_needs_kept_games(tmp_path):
    assert main(["study", "--name", "s", "--results-dir", str(tmp_path), "--games", "30", "--levels", "5",
                 "--engine", "reference", "--quiet"]) == 0
    with pytest.raises(StudyError, match="--keep-games"):
        load_study(tmp_path / "s")
    plan = read_plan(tmp_path / "s")
    before = (tmp_path / "s" / "tables" / "score_summary.csv").read_bytes()
    # Asking for the games later plays the parts again, with the same numbers.
    assert main(["study", "--name", "s", "--results-dir", str(tmp_path), "--games", "30", "--levels", "5",
                 "--engine", "reference", "--quiet", "--keep-games"]) == 0
    assert (tmp_path / "s" / plan.parts[0].run / "seats.parquet").is_file()
    assert (tmp_path / "s" / "tables" / "score_summary.csv").read_bytes() == before
    _, data = load_study(tmp_path / "s")
    assert len(data.seats) > 0


def test_summaries_do_not_depend_on_the_chunking(tmp_path):
    data = load_game_data()
    config = GameConfig(seats=parse_seats("luna:4,luna:5"))
    written = []
    for size in (7, 40):
        out = tmp_path / f"chunks-{size}"
        reducer = PartReducer(config, data)
        run_simulation(data, config, RunOptions(games=40, seed=3, detail=True, chunk_size=size), out,
                       consumers=[reducer], write_games=False)
        assert not (out / "seats.parquet").exists()
        written.append({name: pd.read_parquet(out / name)
                        for name in (SEAT_SUMMARY_FILE, ROUND_SUMMARY_FILE, TIMING_SUMMARY_FILE, PAIRS_FILE)})
    for name, frame in written[0].items():
        pd.testing.assert_frame_equal(frame, written[1][name], obj=name)


# Luna's rows are picked by a mask (two Luna seats of three), a slice of every n-th row (one Luna seat of two or
# three), or the whole column (only Luna's seats at the table).
@pytest.mark.parametrize("seats", ["scripted:balanced,luna:4,luna:5", "scripted:balanced,luna:4",
                                   "scripted:tank,scripted:balanced,luna:4", "luna:4,luna:5"])
def test_the_pairs_file_stores_each_column_as_the_reducer_says_and_reads_back_luna_s_rows(tmp_path, seats):
    data = load_game_data()
    config = GameConfig(seats=parse_seats(seats))
    reducer = PartReducer(config, data)
    kept = []

    class Keep:
        def consume(self, chunk: Chunk) -> None:
            kept.append(chunk.seats)

        def finish(self, directory: Path) -> None:
            pass

    run_simulation(data, config, RunOptions(games=30, seed=5, chunk_size=11), tmp_path / "run",
                   consumers=[reducer, Keep()], write_games=False)
    stored = pq.ParquetFile(tmp_path / "run" / "pairs.parquet")
    for row_group in range(stored.metadata.num_row_groups):
        for index in range(stored.metadata.num_columns):
            column = stored.metadata.row_group(row_group).column(index)
            assert pairs_encoding(column.path_in_schema) in column.encodings, column.path_in_schema
            assert not column.is_stats_set, column.path_in_schema  # read whole: min/max would be written for nothing
    assert pairs_encoding("game") == "DELTA_BINARY_PACKED" and pairs_encoding("score_total") == "BYTE_STREAM_SPLIT"
    pairs = stored.read().to_pandas()
    luna_rows = np.concatenate([np.isin(chunk["seat"], config.luna_seats) for chunk in kept])
    for name in ("game", "seat", "score_total"):
        expected = np.concatenate([chunk[name] for chunk in kept])[luna_rows]
        np.testing.assert_array_equal(pairs[name].to_numpy(), expected, err_msg=name)


def test_seat_summaries_do_not_depend_on_the_row_order_and_round_rows_must_come_in_engine_order(tmp_path):
    # The reducer picks each seat's rows as a strided view when the seats come in turn, as the engines write
    # them, and with masks otherwise: the same counts either way. Per-round rows it reads as a (games,
    # rounds) grid, which only the engines' order gives: any other order is refused, not miscounted.
    data = load_game_data()
    config = GameConfig(seats=parse_seats("scripted:balanced,luna:5,luna:2"))
    chunk = play_chunk_reference(data, config, 5, 0, 12, True)
    order = np.random.default_rng(2).permutation(chunk.seats["seat"].size)
    shuffled = Chunk(seats={name: values[order] for name, values in chunk.seats.items()}, rounds=None)
    written = []
    for one in (Chunk(seats=chunk.seats, rounds=None), shuffled):
        reducer = PartReducer(config, data)
        reducer.consume(one)
        reducer.finish(tmp_path)
        written.append(pd.read_parquet(tmp_path / SEAT_SUMMARY_FILE))
    pd.testing.assert_frame_equal(written[0], written[1])
    rows = np.random.default_rng(3).permutation(chunk.rounds["seat"].size)
    with pytest.raises(ValueError, match="per game, Luna seat and round"):
        PartReducer(config, data).consume(Chunk(seats=chunk.seats,
                                                rounds={name: values[rows] for name, values in chunk.rounds.items()}))


def test_the_reducer_takes_a_chunk_of_no_games_and_per_round_rows_of_no_luna(tmp_path):
    data = load_game_data()
    for seats in ("luna:3", "scripted:balanced"):
        config = GameConfig(seats=parse_seats(seats))
        reducer = PartReducer(config, data)
        for count in (0, 4):
            reducer.consume(play_chunk_reference(data, config, 1, 0, count, True))
        reducer.finish(tmp_path)
        assert pd.read_parquet(tmp_path / SEAT_SUMMARY_FILE).query("column == 'score_total'")["count"].sum() == 4


@given(st.lists(hnp.arrays(np.int64, st.integers(0, 30), elements=st.integers(-50, 400)), min_size=1, max_size=6),
       st.integers(1, 3))
def test_counts_of_strided_chunks_equal_numpy_s_however_the_range_widens(chunks, n_seats):
    # each chunk's seat 0 rows are every n_seats-th value, counted over the chunk's bounds; a later chunk may fall
    # inside the span kept so far (added in place) or outside it (the span widened)
    counted = _Counts()
    for values in chunks:
        if values.size:
            counted.add_rows(("seat", 0), values, 0, n_seats, (int(values.min()), int(values.max())))
    picked = np.concatenate([values[::n_seats] for values in chunks])
    keys, values, counts = counted.rows()
    distinct, expected = np.unique(picked, return_counts=True)
    assert keys == [("seat", 0)] * distinct.size
    assert values.tolist() == distinct.tolist() and counts.tolist() == expected.tolist()


# ----------------------------------------------------------------------------------------------
# Findings from hand-built tables


def steps(*rows: tuple[int, float, float, float]) -> pd.DataFrame:
    return pd.DataFrame([{"level": level, "level_below": level - 1, "diff": diff, "diff_low": low, "diff_high": high}
                         for level, diff, low, high in rows])


def test_findings_name_a_doubtful_and_a_backward_step():
    sentences = findings_sentences(steps((1, 50.0, 45.0, 55.0), (2, 2.0, -1.0, 5.0), (3, -4.0, -6.0, -2.0)))
    assert "The step from level 1 to 2 is not clearly positive: +2.0 points (95 % interval -1.0 to +5.0)." \
        in sentences
    assert "Level 3 scores less than level 2: -4.0 points (95 % interval -6.0 to -2.0)." in sentences
    assert "The smallest step is 2→3 (-4.0 points), the largest 0→1 (+50.0 points)." in sentences
    assert not any(sentence.startswith("Every level") for sentence in sentences)


def test_findings_say_when_every_step_is_clear_and_name_close_win_rates():
    win_rates = pd.DataFrame({"opponent": ["balanced"] * 3 + ["tank"] * 3, "level": [0, 1, 2] * 2,
                              "win_rate": [0.60, 0.58, 0.40, 0.60, 0.50, 0.49]})
    sentences = findings_sentences(steps((1, 10.0, 8.0, 12.0), (2, 30.0, 27.0, 33.0)), win_rates)
    assert sentences[0] == "Every level scores more than the one below, each step with a 95 % interval clear of zero."
    assert "The smallest step is 0→1 (+10.0 points), the largest 1→2 (+30.0 points)." in sentences
    close = [sentence for sentence in sentences if "percentage points" in sentence]
    assert close == ["Against balanced, levels 0 and 1 are less than 3 percentage points apart in balanced's win "
                     "rate (60.0 % and 58.0 %, as measured; their intervals are in the win-rate table)."]
    # tank's 1 and 2 are close too, but only balanced is compared
    # two steps at 95 % each: the chance of a false one is said (a QA pass: 21 % of null ladders of eight showed one)
    assert ("Each step's interval is 95 % on its own: across 2 steps, one may exclude zero by chance though no level "
            "differs (up to 10 % of the time, were the steps independent).") in sentences


def test_findings_of_one_level_say_there_is_no_step():
    # a study of one level ended its Findings paragraph on nothing: no step, no sentence (a QA pass, 2026-11-27)
    no_steps = pd.DataFrame(columns=["level", "level_below", "diff", "diff_low", "diff_high"])
    assert findings_sentences(no_steps) == ["With one level there is no step from a level below to compare."]


def test_findings_table_has_one_row_per_level_with_intervals():
    scores = pd.DataFrame({"level": [4, 5], "mean": [366.04, 390.26], "low": [356.6, 379.9], "high": [375.4, 400.7]})
    win_rates = pd.DataFrame({"opponent": ["balanced", "balanced"], "level": [4, 5], "win_rate": [0.412, 0.271],
                              "ci_low": [0.328, 0.199], "ci_high": [0.502, 0.357]})
    # strengths to 2 decimals, as the parity section gives them (regression: Findings showed "1.070 (1.030 to 1.090)"
    # for the section's 1.07); a parity not reached shows its note, not the end of the range tried
    parity = pd.DataFrame({"profile": ["balanced", "balanced"], "level": [4, 5], "strength": [float("nan"), 1.18],
                           "low": [64.0, 1.17], "high": [float("inf"), 1.19], "win_rate": [0.0, 0.5],
                           "note": ["not reached: above 64", ""]})
    table = findings_table(scores, steps((5, 24.4, 14.0, 34.7)), win_rates, parity)
    assert table.to_dict("records") == [
        {"level": 4, "Luna alone: mean score": "366.0 (356.6 to 375.4)", "step from level below": "",
         "balanced wins %": "41.2 (32.8 to 50.2)", "balanced strength at parity": "not reached: above 64"},
        {"level": 5, "Luna alone: mean score": "390.3 (379.9 to 400.7)", "step from level below":
         "+24.4 (+14.0 to +34.7)", "balanced wins %": "27.1 (19.9 to 35.7)",
         "balanced strength at parity": "1.18 (1.17 to 1.19)"},
    ]
    assert parity_sentences(parity) == [
        "Against level 4, balanced never wins half its games, even at strength 64 (0.0 % of its games): no strength "
        "at parity was found (not reached: above 64)."]


def test_findings_step_from_a_level_that_is_not_the_next_lower_names_that_level():
    # a study of levels 3 and 5 showed level 5's "step from level below" as +38.4: the step 3→5, read as 4→5
    # (+25.0 in the same games) by anyone who did not check which levels the study played (a QA pass, 2026-11-28)
    scores = pd.DataFrame({"level": [3, 5], "mean": [363.0, 401.3], "low": [362.2, 400.6], "high": [363.8, 402.1]})
    gap = pd.DataFrame([{"level": 5, "level_below": 3, "diff": 38.4, "diff_low": 37.5, "diff_high": 39.2}])
    no_rates = pd.DataFrame(columns=["opponent", "level", "win_rate", "ci_low", "ci_high"])
    table = findings_table(scores, gap, no_rates)
    assert table["step from level below"].tolist() == ["", "+38.4 (+37.5 to +39.2) from level 3"]
    # the next lower level keeps the plain cell
    assert findings_table(scores.assign(level=[4, 5]), steps((5, 24.4, 14.0, 34.7)), no_rates)[
        "step from level below"].tolist() == ["", "+24.4 (+14.0 to +34.7)"]


def test_findings_interval_end_that_rounds_to_zero_keeps_its_sign():
    # "Level 2 scores less than level 1: -1.2 points (95 % interval -2.4 to +0.0)": the end -0.03 was printed +0.0,
    # so the sentence claimed an interval below zero and showed one reaching it; the table cell said -0.0. Such an
    # end now shows the decimals that give its sign (never "-0.0", which a reader takes for a measured loss).
    sentences = findings_sentences(steps((1, 50.0, 45.0, 55.0), (2, -1.2, -2.4, -0.03), (3, 1.0, -0.004, 2.0)))
    assert "Level 2 scores less than level 1: -1.2 points (95 % interval -2.4 to -0.03)." in sentences
    assert "The step from level 2 to 3 is not clearly positive: +1.0 points (95 % interval -0.004 to +2.0)." \
        in sentences
    # a point estimate that rounds to zero still reads +0.0, in the sentences and the table alike
    scores = pd.DataFrame({"level": [0, 1], "mean": [1.0, 1.0], "low": [0.0, 0.0], "high": [2.0, 2.0]})
    no_rates = pd.DataFrame(columns=["opponent", "level", "win_rate", "ci_low", "ci_high"])
    near_zero = steps((1, -0.04, -1.0, 0.9))
    assert findings_table(scores, near_zero, no_rates)["step from level below"].tolist() == [
        "", "+0.0 (-1.0 to +0.9)"]
    assert "The step from level 0 to 1 is not clearly positive: +0.0 points (95 % interval -1.0 to +0.9)." \
        in findings_sentences(near_zero)
    assert findings_table(scores, steps((1, -1.2, -2.4, -0.03)), no_rates)["step from level below"].tolist() == [
        "", "-1.2 (-2.4 to -0.03)"]
    assert [interval_end(value, 1) for value in (0.0, 0.04, 1e-9, float("nan"))] == ["+0.0", "+0.04", "+0.0", "+nan"]


def test_findings_of_a_study_with_variants_say_they_are_the_base_s(kept):
    # a study with --variant opened on a Findings table of the base parts alone, under an introduction saying "the
    # tables hold every group": its mean scores and win rates read as pooled over the variants (a QA pass, 2026-11-28)
    report = (kept / "report.md").read_text()
    findings = report[report.index("## Findings"):report.index("### Findings")]
    assert "base variant only" in findings and "Variants against base" in findings
    assert "base variant only" not in findings_section([]).text  # a study without variants has only the base


def test_findings_solo_scores_are_each_levels_mean_with_the_interval_of_its_mean(kept):
    # the Findings' first column from the base variant's solo parts: an interval of mean ± t·sd (not sd / sqrt(n)),
    # 11 times too wide here, passed every test (a mutation pass, 2026-11-28); t(119) = 1.980
    from analysis.study.findings import solo_scores

    table = solo_scores(load_summaries(kept)).set_index("level")
    assert table.index.tolist() == [4, 5]
    for level in (4, 5):
        scores = pq.read_table(kept / "runs" / f"solo-L{level}" / "seats.parquet", columns=["score_total"]).column(0)
        scores = scores.to_numpy().astype(float)
        row = table.loc[level]
        assert row["n"] == GAMES and row["mean"] == pytest.approx(scores.mean())
        sem = scores.std(ddof=1) / np.sqrt(GAMES)
        assert (row["mean"] - row["low"], row["high"] - row["mean"]) == (pytest.approx(1.980 * sem, rel=1e-3),) * 2


def test_report_of_parts_without_summaries_is_a_one_line_error(kept, tmp_path, capsys):
    import json
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(kept, copy)
    manifest_path = copy / read_plan(copy).parts[0].run / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["study"]["summary"]  # as written before parts kept summaries
    manifest_path.write_text(json.dumps(manifest))
    assert main(["report", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "have no summary" in err and "rerun" in err and err.count("\n") == 1
    # the study was made as "k"; its copy is "old": the rerun resumes the copy (regression: it named "--name k")
    rerun = shlex.split(err.split("rerun: ", 1)[1])
    assert rerun[rerun.index("--name") + 1] == "old" and rerun[rerun.index("--results-dir") + 1] == str(tmp_path)
    assert rerun[rerun.index("--variant") + 1] == str(kept.parent / "late_tokens.toml")


def test_a_rerun_command_keeps_a_path_with_a_space_one_word(tmp_path):
    """Regression: study.json joined the command with spaces, so a pasted rerun split "my results" in two."""
    root = tmp_path / "my results"
    overlay = tmp_path / "my overlay.toml"
    overlay.write_text("[luna.levels.5]\nhelium_tokens = [15, 22]\n")
    assert main(["study", "--name", "s", "--results-dir", str(root), "--games", "3", "--levels", "5", "--engine",
                 "reference", "--quiet", "--variant", str(overlay)]) == 0
    plan = read_plan(root / "s")
    words = shlex.split(plan.command)
    assert words[words.index("--results-dir") + 1] == str(root)
    assert words[words.index("--variant") + 1] == str(overlay)
    assert rerun_command(plan, root / "s") == plan.command


def test_a_variant_added_later_plays_only_its_own_parts(tmp_path, monkeypatch):
    from analysis.study import runner

    arguments = ["study", "--name", "v", "--results-dir", str(tmp_path), "--games", "30", "--levels", "5",
                 "--engine", "reference", "--quiet"]
    assert main(arguments) == 0
    played: list[str] = []
    real = runner.run_simulation

    def recording(data, config, options, out, **keywords):
        played.append(str(Path(out).relative_to(tmp_path / "v" / "runs")))
        return real(data, config, options, out, **keywords)

    monkeypatch.setattr(runner, "run_simulation", recording)
    overlay = tmp_path / "late.toml"
    overlay.write_text('[luna.levels.5]\nhelium_tokens = [15, 22]\n')
    assert main([*arguments, "--variant", str(overlay)]) == 0
    assert played and all(name.startswith("late/") for name in played)
    differences = pd.read_csv(tmp_path / "v" / "tables" / "variant_differences.csv")
    assert set(differences["metric"]) == set(SCORE_COLUMNS)  # every category pairs with the kept base parts


def test_interactions_pool_neither_variants_nor_strengths(tmp_path):
    """Regression: the interactions table was grouped by level and profile only, so a study's row for
    ``balanced`` at level 5 averaged the base with every variant and strength 0.8 with strength 1."""
    overlay = tmp_path / "late.toml"
    overlay.write_text('name = "later helium tokens at level 5"\n[luna.levels.5]\nhelium_tokens = [15, 22]\n')
    games = 40
    assert main(["study", "--name", "s", "--results-dir", str(tmp_path), "--games", str(games), "--levels", "5",
                 "--profiles", "balanced", "--strengths", "0.8,1", "--engine", "reference", "--quiet",
                 "--keep-games", "--variant", str(overlay)]) == 0
    plan, data = load_study(tmp_path / "s")
    from_summaries = study_tables(load_summaries(tmp_path / "s"))
    for table in (frame_tables(plan, data)["interactions"], from_summaries["interactions"]):
        assert {"variant", "opponents"} <= set(table.columns)
        assert (table["n"] == games).all()  # one part's scripted seat each
        seats = data.seats
        part = seats[(seats["variant"] == "late") & (seats["opponents"] == "balanced@0.8")
                     & (seats["kind"] == "scripted")]
        row = table[(table["variant"] == "late") & (table["opponents"] == "balanced@0.8")
                    & (table["metric"] == "blocked_titanium")]
        assert row["mean"].item() == pytest.approx(part["blocked_titanium"].mean())
