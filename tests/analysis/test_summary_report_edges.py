"""Known-answer tests for analysis/study/summary_report.py at its edges: each pins behaviour that a mutation audit of
the summary-based report (a QA pass, 2026-11-28) showed no test pinned. The study's own parity test
(tests/test_study_summaries.py) builds both report paths from one study (levels 4-5, every profile, a variant), so
it cannot see a study with no duel, no scripted seat or one profile, nor a game of six rounds; no test compared the
report's figures with the frame-based ones, and none called ``variant_overview`` or ``variant_differences`` alone.

Known answers: the frame-based namesakes on the same games (:func:`analysis.study.content.frame_tables`,
:func:`analysis.report.build_figures` on the base variant's games, :func:`analysis.study.content.variant_overview`),
which the module promises to equal, and by hand.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from analysis.duels import HEAD_TO_HEAD_COLUMNS
from analysis.load import RunData
from analysis.report import build_figures
from analysis.schema import BASE_VARIANT
from analysis.study import load_study
from analysis.study.content import frame_tables
from analysis.study.content import variant_overview as frame_variant_overview
from analysis.study.runner import run_study
from analysis.study.summaries import load_summaries
from analysis.study.summary_report import (
    DIFFERENCE_COLUMNS,
    base_figures,
    head_to_head,
    study_tables,
    variant_differences,
    variant_overview,
)

GAMES = 30


def _study(root: Path, name: str, **options) -> Path:
    run_study(name=name, games=GAMES, engine="reference", quiet=True, results_dir=root, keep_games=True, **options)
    return root / name


@pytest.fixture(scope="module")
def solo(tmp_path_factory) -> Path:
    """Luna alone at levels 3 and 5 (no duel: not adjacent), games of six rounds (the threat card Singularity)."""
    return _study(tmp_path_factory.mktemp("solo"), "solo", levels=[3, 5], profiles=(), rounds=6)


@pytest.fixture(scope="module")
def one_profile(tmp_path_factory) -> Path:
    """Levels 3 and 5 against one scripted profile at one strength: the scripted seats' opponents never vary."""
    return _study(tmp_path_factory.mktemp("one"), "one", levels=[3, 5], profiles=("balanced",), strengths=(1.0,))


@pytest.fixture(scope="module")
def varied(tmp_path_factory) -> Path:
    """Levels 4-5 with their duel, one profile at two strengths, and a variant."""
    root = tmp_path_factory.mktemp("varied")
    overlay = root / "late.toml"
    overlay.write_text("[luna.levels.5]\nhelium_tokens = [15, 22]\n")
    return _study(root, "varied", levels=[4, 5], profiles=("balanced",), strengths=(0.8, 1.0), variants=[overlay])


def _assert_tables_equal(actual: dict[str, pd.DataFrame], expected: dict[str, pd.DataFrame]) -> None:
    """As tests/test_study_summaries.py compares them: the same names, columns and rows; floats to 1e-9."""
    assert list(actual) == list(expected)
    for name, table in expected.items():
        assert list(actual[name].columns) == list(table.columns), name
        assert len(actual[name]) == len(table), name
        for column in table.columns:
            left, right = table[column].reset_index(drop=True), actual[name][column].reset_index(drop=True)
            if pd.api.types.is_float_dtype(left) or pd.api.types.is_float_dtype(right):
                np.testing.assert_allclose(right.to_numpy(dtype=float), left.to_numpy(dtype=float), rtol=1e-9,
                                           atol=1e-12, err_msg=f"{name}.{column}")
            else:  # keys and counts: exactly
                assert right.tolist() == left.tolist(), f"{name}.{column}"


def _drawn(figure) -> list:
    """What a figure shows, axes by axes: its words, and every line's, marker's, bar's, band's and cell's numbers."""
    figure.canvas.draw()  # tick labels are set when drawn
    shown = []
    for ax in figure.axes:
        shown.append(("words", ax.get_title(), ax.get_xlabel(), ax.get_ylabel(),
                      [label.get_text() for label in ax.get_xticklabels()],
                      [label.get_text() for label in ax.get_yticklabels()],
                      [text.get_text() for text in ax.texts],
                      [text.get_text() for text in ax.get_legend().get_texts()] if ax.get_legend() else []))
        shown += [("line", line.get_label(), line.get_xydata()) for line in ax.get_lines()]
        for collection in ax.collections:
            shown.append(("offsets", collection.get_offsets()))
            shown += [("path", path.vertices) for path in collection.get_paths()]
        shown += [("patch", patch.get_path().vertices @ patch.get_patch_transform().get_matrix()[:2, :2].T
                   + patch.get_patch_transform().get_matrix()[:2, 2]) for patch in ax.patches]
        shown += [("cells", np.asarray(image.get_array(), dtype=float)) for image in ax.images]
    return shown


def _assert_same_drawing(actual, expected, name: str) -> None:
    drawn, wanted = _drawn(actual), _drawn(expected)
    assert [item[0] for item in drawn] == [item[0] for item in wanted], name
    for got, want in zip(drawn, wanted, strict=True):
        if got[0] == "words":
            assert got == want, (name, "words")
            continue
        if got[0] == "line":
            assert got[1] == want[1], (name, "line label")
        np.testing.assert_allclose(np.asarray(got[-1], dtype=float), np.asarray(want[-1], dtype=float),
                                   rtol=1e-9, atol=1e-12, err_msg=f"{name}: {got[0]}")


def _assert_figures_equal(study: Path) -> None:
    """``base_figures`` against ``build_figures`` on the base variant's games (what its docstring promises)."""
    _, data = load_study(study)
    manifests = {run: manifest for run, manifest in data.manifests.items()
                 if manifest["config"]["variant"] == BASE_VARIANT}
    base = RunData(data.seats[data.seats["variant"] == BASE_VARIANT],
                   data.rounds[data.rounds["variant"] == BASE_VARIANT], manifests)
    expected = build_figures(base)
    actual = base_figures(load_summaries(study))
    try:
        assert list(actual) == list(expected)
        for name, figure in actual.items():
            _assert_same_drawing(figure, expected[name], name)
    finally:
        for figure in [*expected.values(), *actual.values()]:
            plt.close(figure)


@pytest.mark.parametrize("study", ["solo", "one_profile", "varied"])
def test_report_tables_of_other_study_layouts_equal_the_frame_based_tables(study, request):
    path = request.getfixturevalue(study)
    plan, data = load_study(path)
    _assert_tables_equal(study_tables(load_summaries(path)), frame_tables(plan, data))


def test_a_study_without_scripted_seats_has_no_win_rate_interaction_or_duel_table(solo):
    # with no scripted seat (run_study(profiles=())) the win rates and the interactions are empty, and with levels
    # 3 and 5 there is no duel: the frame-based report leaves such tables out, so must this one
    tables = study_tables(load_summaries(solo))
    assert list(tables) == ["runs", "score_summary", "level_ladder", "deck_counters", "reshuffle_distribution",
                            "slot_first_use", "reshuffles_by_round", "reshuffle_timing", "grade2_by_round",
                            "card_play_counts", "majority_by_round", "majority_distribution", "blocking_probability"]


def test_slot_first_use_of_a_six_round_study_ends_at_round_6(solo):
    # a Singularity study plays six rounds: no row for a seventh round the games never had (the default's 7)
    table = study_tables(load_summaries(solo))["slot_first_use"]
    assert sorted(table["first_round"].unique()) == [0, 1, 2, 3, 4, 5, 6]
    assert (table.groupby(["level", "slot"])["games"].sum() == GAMES).all()


@pytest.mark.parametrize("study", ["solo", "one_profile", "varied"])
def test_report_figures_draw_what_the_frame_based_figures_draw(study, request):
    # one_profile and varied: the ladder and win rates of the base variant without the duels, the distributions of
    # Luna alone; varied: the base variant's games alone; solo: one series, six rounds
    _assert_figures_equal(request.getfixturevalue(study))


def test_variant_overview_read_on_its_own_is_the_frame_based_overview(varied):
    # the report hands variant_overview the differences it has; called alone it reads the pair files itself, for the
    # total and the win rate, and must give the same table
    _, data = load_study(varied)
    summary = load_summaries(varied)
    expected = frame_variant_overview(data)
    alone = variant_overview(summary)
    assert set(alone["metric"]) == {"score_total", "won"}
    _assert_tables_equal({"variant_overview": alone}, {"variant_overview": expected})
    assert alone[alone["metric"] == "won"]["base_run"].str.startswith(("duel-", "vs-")).all()  # solo: no rival


def test_variant_and_duel_tables_of_a_study_without_them_are_empty_with_their_columns(solo):
    summary = load_summaries(solo)
    differences = variant_differences(summary)
    assert differences.empty and list(differences.columns) == DIFFERENCE_COLUMNS
    assert variant_overview(summary).empty
    duels = head_to_head(summary)
    assert duels.empty and list(duels.columns) == HEAD_TO_HEAD_COLUMNS
