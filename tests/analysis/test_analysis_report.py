"""Report rendering: Markdown/HTML tables, atomic writes, sections and referenced files."""

from __future__ import annotations

import base64
import errno
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis import plots, report
from analysis.load import load_runs
from analysis.render import FIXED_DECIMALS
from analysis.report import (
    DEFAULT_SECTIONS,
    Section,
    atomic_write,
    format_value,
    html_table,
    markdown_table,
    render_study,
    write_report,
)


def _small_figure(title: str):
    figure, axes = plots.new_figure(width=3.0, height=2.0)
    axes[0, 0].plot([0, 1], [1, 0])
    axes[0, 0].set_title(title)
    return figure


def test_markdown_table_exact():
    frame = pd.DataFrame({"level": [1, 2], "mean": [25.0, float("nan")], "note": ["a|b", ""]})
    assert markdown_table(frame) == ("| level | mean | note |\n|---:|---:|:---|\n| 1 | 25 | a\\|b |\n| 2 |  |  |\n")
    assert markdown_table(frame, max_rows=1).endswith("*First 1 of 2 rows.*\n")
    assert markdown_table(frame.iloc[0:0]) == "*(no rows)*\n"


def test_format_value():
    assert format_value(0.123456) == "0.1235"
    assert format_value(12345.6) == "12346"
    assert format_value(7) == "7"
    assert format_value(True) == "yes"
    assert format_value(float("nan")) == ""
    assert format_value("x") == "x"
    # half-wins (a tie counts 1/k) exactly: .4g showed 1824.5 as 1824 and 1903.5 as 1904 (a QA pass)
    assert [format_value(value) for value in (1824.5, 1903.5, 12345.5, 0.5, 2.0)] == [
        "1824.5", "1903.5", "12345.5", "0.5", "2"]


def test_columns_with_fixed_decimals_show_every_row_alike():
    # a strength at parity settled to 0.01 read "1.1" beside "1.13" (a QA pass): a reader took it for coarser
    frame = pd.DataFrame({"strength": [1.1, 1.13, float("nan")], "games": [3, 4, 5]})
    frame.attrs[FIXED_DECIMALS] = {"strength": 2}
    assert markdown_table(frame).splitlines()[2:] == ["| 1.10 | 3 |", "| 1.13 | 4 |", "|  | 5 |"]
    assert "<td class=\"num\">1.10</td>" in html_table(frame)
    assert markdown_table(pd.DataFrame({"strength": [1.1]})).splitlines()[2] == "| 1.1 |"  # other tables: 4 digits


def test_html_table_escapes():
    html = html_table(pd.DataFrame({"who": ["<b>Luna</b>"], "n": [3]}))
    assert "&lt;b&gt;Luna&lt;/b&gt;" in html
    assert '<td class="num">3</td>' in html


def test_atomic_write_replaces_and_cleans_up(tmp_path, monkeypatch):
    target = atomic_write(tmp_path / "sub" / "file.txt", "first")
    assert target.read_text(encoding="utf-8") == "first"
    atomic_write(target, b"second")
    assert target.read_bytes() == b"second"
    # Readable like a file written with open(), not private like a raw mkstemp file.
    assert target.stat().st_mode & 0o044

    def fail(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, "third")
    assert target.read_bytes() == b"second"  # the old content survives a failed write
    assert sorted(path.name for path in target.parent.iterdir()) == ["file.txt"]


def test_a_failed_move_named_the_temporary_file_it_deleted(tmp_path):
    # os.replace names its source first: a folder where the file should go failed with ".x.csv.k2j1.tmp", a file
    # gone by the time the message was read
    (tmp_path / "x.csv" / "inside").mkdir(parents=True)
    with pytest.raises(IsADirectoryError) as raised:
        atomic_write(tmp_path / "x.csv", "a\n")
    assert raised.value.filename == str(tmp_path / "x.csv")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["x.csv"]


def test_write_report_sections_files_and_embedding(tmp_path):
    tables = {
        "score_summary": pd.DataFrame({"level": [1, 2], "mean": [20.5, 30.25]}),
        "extra_table": pd.DataFrame({"x": [1]}),
    }
    figures = {"score_ecdf": _small_figure("ecdf"), "loose_figure": _small_figure("loose")}
    sections = (
        Section("scores", "Scores", "Luna's scores.", ("score_ecdf", "score_summary")),
        Section("empty", "Empty", "Nothing here.", ("missing",)),
    )
    files = write_report(tmp_path / "study", tables, figures, title="Test report", sections=sections)
    root = tmp_path / "study"
    markdown = files.markdown.read_text(encoding="utf-8")
    assert markdown.startswith("# Test report\n")
    assert "## Scores\n" in markdown
    assert "## Other tables and figures\n" in markdown  # extra_table and loose_figure land here
    assert "## Empty" not in markdown  # sections without content are left out
    assert "| 1 | 20.5 |" in markdown
    # Every referenced file exists, and every figure is referenced.
    references = re.findall(r"\]\(((?:figures|tables)/[^)]+)\)", markdown)
    assert {f"figures/{name}.png" for name in figures} <= set(references)
    assert all((root / reference).is_file() for reference in references)
    for name in figures:
        assert (root / "figures" / f"{name}.svg").read_bytes().startswith(b"<?xml")
        assert (root / "figures" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pd.read_csv(root / "tables" / "score_summary.csv").equals(tables["score_summary"])
    # Self-contained HTML: every figure embedded as base64 PNG, no external references.
    page = files.html.read_text(encoding="utf-8")
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(embedded) == len(figures)
    assert all(base64.b64decode(data)[:4] == b"\x89PNG" for data in embedded)
    assert not re.search(r'(src|href)="(?!data:|#)', page)
    assert "<h2>Scores</h2>" in page and "Luna&#x27;s scores." in page
    # Anchors come from the section ids, not from the titles.
    assert '<section id="scores">' in page and '<a href="#scores">Scores</a>' in page
    assert '<section id="other">' in page and '<a id="scores"></a>\n' in markdown and "](#scores)" in markdown
    # Atomic writes leave no temporary files behind.
    assert not [path for path in root.rglob("*") if path.name.endswith(".tmp")]


def _files(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_a_rebuilt_report_keeps_no_table_or_figure_of_the_earlier_one(tmp_path):
    # a study rerun with fewer variants kept the earlier report's variant and duel tables and figures beside a
    # report that no longer had them (a QA pass); other files in those folders are the user's and stay
    root = tmp_path / "study"
    write_report(root, {"kept": pd.DataFrame({"x": [1]}), "dropped": pd.DataFrame({"y": [2]})},
                 {"kept_figure": _small_figure("a"), "dropped_figure": _small_figure("b")})
    (root / "tables" / "notes.txt").write_text("mine")
    write_report(root, {"kept": pd.DataFrame({"x": [3]})}, {"kept_figure": _small_figure("a")})
    assert sorted(path.name for path in (root / "tables").iterdir()) == ["kept.csv", "notes.txt"]
    assert sorted(path.name for path in (root / "figures").iterdir()) == ["kept_figure.png", "kept_figure.svg"]


def test_a_figure_that_fails_to_render_leaves_the_earlier_report_as_it_was(tmp_path):
    # Before, the new tables were written first and the earlier report.html stayed beside them.
    root = tmp_path / "study"
    write_report(root, {"scores": pd.DataFrame({"level": [1]})}, {"ecdf": _small_figure("first")})
    earlier = _files(root)
    broken = _small_figure(r"$\frac{$")  # mathtext that matplotlib cannot parse fails only when drawn
    with pytest.raises(ValueError):
        write_report(root, {"scores": pd.DataFrame({"level": [2]})}, {"ecdf": broken})
    assert _files(root) == earlier


def test_a_full_disk_while_writing_left_new_pieces_without_the_earlier_page(tmp_path, monkeypatch):
    # Before, the earlier pages were removed first and each file was moved into place as soon as it was written: a
    # disk that filled at the third file left the first two new tables and no report.html (a QA pass's "left").
    root = tmp_path / "study"
    tables = {name: pd.DataFrame({"level": [1]}) for name in ("a", "b", "c")}
    write_report(root, tables, {"ecdf": _small_figure("first")})
    earlier = _files(root)
    syncs = []
    original = os.fsync

    def full_disk_at_the_third(descriptor):
        syncs.append(descriptor)
        if len(syncs) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        original(descriptor)

    monkeypatch.setattr(os, "fsync", full_disk_at_the_third)
    with pytest.raises(OSError, match="No space left") as raised:
        write_report(root, {name: frame.assign(level=2) for name, frame in tables.items()},
                     {"ecdf": _small_figure("second")})
    assert raised.value.filename == str(root / "tables" / "c.csv")  # the file, not its temporary copy
    assert _files(root) == earlier  # the earlier report whole, and no temporary file


def test_an_interrupted_write_leaves_the_earlier_report_as_it_was(tmp_path, monkeypatch):
    root = tmp_path / "study"
    write_report(root, {"scores": pd.DataFrame({"level": [1]})}, {"ecdf": _small_figure("first")})
    earlier = _files(root)
    original = os.fsync
    syncs = []

    def interrupted_at_the_page(descriptor):
        syncs.append(descriptor)
        if len(syncs) == 5:  # the table, the figure's PNG and SVG, report.md, then report.html
            raise KeyboardInterrupt
        original(descriptor)

    monkeypatch.setattr(os, "fsync", interrupted_at_the_page)
    with pytest.raises(KeyboardInterrupt):
        write_report(root, {"scores": pd.DataFrame({"level": [2]})}, {"ecdf": _small_figure("second")})
    assert len(syncs) == 5
    assert _files(root) == earlier


def test_a_move_that_fails_part_way_leaves_no_report_page(tmp_path, monkeypatch):
    # Every file is written; then a move into place fails at the third file: the earlier pages must not stay
    # beside a mix of old and new files, and no temporary file may stay.
    root = tmp_path / "study"
    tables = {name: pd.DataFrame({"level": [1]}) for name in ("a", "b", "c")}
    write_report(root, tables, {})
    assert (root / "report.html").is_file() and (root / "report.md").is_file()
    moves = []
    original = os.replace

    def failing_at_the_third(source, destination):
        moves.append(destination)
        if len(moves) == 3:
            raise OSError(errno.EIO, "Input/output error")
        original(source, destination)

    monkeypatch.setattr(os, "replace", failing_at_the_third)
    with pytest.raises(OSError, match="Input/output error"):
        write_report(root, {name: frame.assign(level=2) for name, frame in tables.items()}, {})
    assert not (root / "report.html").exists() and not (root / "report.md").exists()
    assert not [path for path in root.rglob("*") if path.name.endswith(".tmp")]


def test_sections_need_usable_unique_ids(tmp_path):
    with pytest.raises(ValueError, match="usable id"):
        Section("Win rates", "Win rates", "")
    twice = (Section("a", "A", "", ("x",)), Section("a", "B", "", ("y",)))
    with pytest.raises(ValueError, match="unique"):
        write_report(tmp_path, {"x": pd.DataFrame({"a": [1]})}, {}, sections=twice)


def test_write_report_rejects_unsafe_names(tmp_path):
    with pytest.raises(ValueError, match="file name"):
        write_report(tmp_path, {"../escape": pd.DataFrame({"a": [1]})}, {})


def test_render_study_end_to_end(study_runs, tmp_path):
    files = render_study(study_runs, tmp_path / "study")
    root = tmp_path / "study"
    markdown = files.markdown.read_text(encoding="utf-8")
    # The synthetic study has per-round data, opponents, interactions and a variant: every section but the head to
    # head, which needs two Lunas in one run (tests/analysis/test_duels.py).
    for section in DEFAULT_SECTIONS:
        assert (f"## {section.title}\n" in markdown) == (section.id != report.HEAD_TO_HEAD_SECTION), section.id
    references = re.findall(r"\]\(((?:figures|tables)/[^)]+)\)", markdown)
    missing = [reference for reference in references if not (root / reference).is_file()]
    assert not missing
    expected_figures = {
        "score_ecdf",
        "category_breakdown",
        "level_ladder",
        "win_rates",
        "slot_first_use",
        "reshuffles_by_round",
        "grade2_by_round",
        "majority_by_round",
        "blocking_probability",
        "variant_differences",
    }
    assert set(files.figures) == expected_figures
    assert {f"figures/{name}.png" for name in expected_figures} <= set(references)
    expected_tables = {
        "runs",
        "score_summary",
        "level_ladder",
        "win_rates",
        "deck_counters",
        "reshuffle_distribution",
        "slot_first_use",
        "reshuffles_by_round",
        "reshuffle_timing",
        "grade2_by_round",
        "card_play_counts",
        "majority_by_round",
        "majority_distribution",
        "blocking_probability",
        "interactions",
        "variant_differences",
    }
    assert set(files.tables) == expected_tables
    assert all(Path(path).is_file() for path in files.tables.values())
    ladder = pd.read_csv(root / "tables" / "level_ladder.csv", keep_default_na=False)
    assert {"variant", "opponents", "level", "diff_low", "win_diff_high"} <= set(ladder.columns)
    page = files.html.read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == len(expected_figures)


def test_command_line_reports_bad_directory(tmp_path, capsys):
    from sim.cli import main

    assert main(["runs-report", str(tmp_path / "missing"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_duels_stay_out_of_the_per_level_ladder_and_win_rates(make_run):
    """Regression: a level-L Luna meets L-1 in one duel and L+1 in another; pooling both into one
    per-level win rate mixed two opponents (the report showed a flat 'luna' curve)."""
    runs = [make_run(f"solo{level}", [f"luna:{level}"], seed=level) for level in (2, 3, 4)]
    runs += [make_run("duel23", ["luna:2", "luna:3"], seed=7), make_run("duel34", ["luna:3", "luna:4"], seed=8)]
    runs += [make_run(f"vs{level}", ["scripted:balanced", f"luna:{level}"], seed=9) for level in (2, 3, 4)]
    tables = report.report_tables(load_runs(runs))
    assert not tables["win_rates"]["opponents"].str.contains("luna").any()
    assert not tables["level_ladder"]["opponents"].str.contains("luna").any()
    assert set(tables["win_rates"]["opponents"]) == {"balanced"}


def test_command_line_renders_a_report_over_run_directories(make_run, tmp_path, capsys):
    from sim.cli import main

    runs = [make_run(f"solo{level}", [f"luna:{level}"], seed=level) for level in (2, 3)]
    out = tmp_path / "report"
    assert main(["runs-report", *map(str, runs), "--out", str(out), "--title", "Two levels"]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out / 'report.html'}"  # as every command says
    assert "Two levels" in (out / "report.html").read_text(encoding="utf-8")
    assert (out / "tables" / "level_ladder.csv").is_file()


def test_table_headings_write_acronyms_as_such():
    # "Sp distribution" and "Grade2 by round" (a QA pass of the reports, 2026-11-26)
    from analysis.render import _caption

    assert [_caption(name) for name in ("sp_distribution", "grade2_by_round", "score_summary")] == [
        "SP distribution", "Grade-2 by round", "Score summary"]


def test_figure_slice_ignores_opponents_only_another_variant_has(make_run):
    # regression: with categorical columns, value_counts listed Luna alone ("") with a count of 0 once the other
    # variant's rows were filtered out, and the figures were drawn from no rows at all
    runs = [make_run("vs_tank", ["scripted:tank", "luna:2"], games=4),
            make_run("vs_passive", ["scripted:passive", "luna:2"], games=3),
            make_run("solo_cheap", ["luna:2"], games=5, variant="cheap")]
    shown = report.figure_slice(load_runs(runs).seats)
    assert set(shown["opponents"]) == {"tank"}
    assert len(shown) == 8


def test_a_variant_played_alone_and_against_a_profile_gets_its_figure_of_luna_alone(tmp_path):
    # bug: runs-report of a variant played both alone and against `balanced` stopped with "plot_variant_differences:
    # several rows per (metric, variant, level)" and wrote no report (found by a mutation audit's helper session)
    from sim.cli import main

    overlay = tmp_path / "later.toml"
    overlay.write_text("[luna.levels.4]\nhelium_tokens = [12, 20]\n", encoding="utf-8")
    runs = {"solo": ["--seats", "luna:4"], "vs": ["--seats", "scripted:balanced,luna:4"]}
    for name, seats in list(runs.items()):
        for suffix, extra in (("", []), ("-later", ["--overlay", str(overlay)])):
            assert main(["simulate", *seats, *extra, "--games", "200", "--seed", "2", "--out",
                         str(tmp_path / f"{name}{suffix}"), "--quiet"]) == 0
    data = load_runs([tmp_path / name for name in ("solo", "solo-later", "vs", "vs-later")])
    table = report.report_tables(data)["variant_differences"]
    assert sorted(set(table["base_run"])) == ["solo", "vs"]  # the table keeps both pairs
    solo = table[table["base_run"] == "solo"]
    figure = report.build_figures(data)["variant_differences"]
    (container,) = figure.axes[0].containers  # one series: the level of the pair of Luna alone
    assert container.lines[0].get_xdata().tolist() == pytest.approx(solo["diff"].tolist())
