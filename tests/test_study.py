"""The study command: parts, report sections, variants, resume after an interruption, report rebuild, errors."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import study as study_module
from analysis.study import (
    StudyPlan,
    base_parts,
    part_is_finished,
    plan_study,
    read_plan,
    resolve_engine,
)
from analysis.study import runner as study_runner
from sim.cli import main
from sim.constants import LEVELS

GAMES = 150
TINY = ["--games", str(GAMES), "--levels", "4-5", "--engine", "reference", "--quiet"]
SECTIONS = ["findings", "scores", "level-ladder", "win-rates", "head-to-head", "deck-cycle", "majorities"]
SUMMARY_FILES = ("summary_seats.parquet", "pairs.parquet")
DETAIL_FILES = ("summary_rounds.parquet", "summary_cards.parquet", "summary_timing.parquet")


def run_cli(results: Path, *extra: str, name: str = "tiny") -> int:
    return main(["study", "--name", name, "--results-dir", str(results), *TINY, *extra])


def tables(study_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((study_dir / "tables").glob("*.csv"))}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """One uninterrupted tiny study, shared by the tests that only read it."""
    results = tmp_path_factory.mktemp("results")
    assert run_cli(results) == 0
    return results / "tiny"


def test_parts_of_the_default_study():
    names = [part.name for part in base_parts(LEVELS, ["balanced"])]
    count = len(LEVELS)
    duels = 2 * (count - 1)
    assert names[:count] == [f"solo-L{level}" for level in LEVELS]
    assert names[count:count + duels] == [name for level in LEVELS[:-1]
                                          for name in (f"duel-L{level}-L{level + 1}", f"duel-L{level + 1}-L{level}")]
    assert names[count + duels:] == [f"vs-balanced-L{level}" for level in LEVELS]
    assert all(part.detail == part.name.startswith("solo-") for part in base_parts(LEVELS, ["balanced"]))
    assert len(base_parts(LEVELS, study_module.scripted_profiles())) == 61  # the README's count


def test_each_duel_is_played_in_both_seat_orders():
    # Regression: duel-L<L>-L<L+1> alone sat the higher level in seat 1, whose seat edge (51.7 % of luna:4,luna:4)
    # the head-to-head then counted as a step between levels; the old part keeps its name, so studies resume
    seats = {part.name: part.seats for part in base_parts([3, 4, 5]) if part.name.startswith("duel-")}
    assert seats == {"duel-L3-L4": "luna:3,luna:4", "duel-L4-L3": "luna:4,luna:3",
                     "duel-L4-L5": "luna:4,luna:5", "duel-L5-L4": "luna:5,luna:4"}


def test_tiny_study_has_every_section_and_file(tiny):
    plan = read_plan(tiny)
    assert plan.seed == study_module.DEFAULT_SEED and plan.games == GAMES and plan.levels == (4, 5)
    assert {"solo-L4", "solo-L5", "duel-L4-L5"} <= {part.name for part in plan.parts}
    for part in plan.parts:
        for name in SUMMARY_FILES:
            assert (tiny / part.run / name).is_file()
        for name in DETAIL_FILES:
            assert (tiny / part.run / name).is_file() == part.detail
        # Per-game rows only with --keep-games.
        assert not (tiny / part.run / "seats.parquet").exists()
        assert not (tiny / part.run / "luna_rounds.parquet").exists()
    markdown = (tiny / "report.md").read_text()
    ids = re.findall(r'^<a id="([^"]+)"></a>$', markdown, flags=re.MULTILINE)
    assert ids[: len(SECTIONS)] == SECTIONS and ids[-1] == "runs"  # the answers first, run directories last
    linked = re.findall(r"\]\(((?:figures|tables)/[^)]+)\)", markdown)
    assert any(link.endswith(".svg") for link in linked) and any(link.endswith(".csv") for link in linked)
    for link in linked:
        assert (tiny / link).is_file(), link
    for name in ("score_ecdf", "level_ladder", "win_rates", "head_to_head", "grade2_by_round", "slot_first_use"):
        assert f"figures/{name}.png" in markdown
    page = (tiny / "report.html").read_text()
    assert page.count("data:image/png;base64,") == markdown.count("![") and 'src="figures/' not in page
    assert "variants" not in ids


def test_head_to_head_pools_the_two_seat_orders(tiny):
    import pandas as pd

    table = pd.read_csv(tiny / "tables" / "head_to_head.csv")
    assert table[["runs", "level", "level_below", "games"]].values.tolist() == [
        ["duel-L4-L5, duel-L5-L4", 5, 4, 2 * GAMES]]
    second = pd.read_parquet(tiny / "runs" / "duel-L4-L5" / "pairs.parquet")  # level 5 in seat 1
    first = pd.read_parquet(tiny / "runs" / "duel-L5-L4" / "pairs.parquet")  # level 5 in seat 0
    wins_second = second.loc[second.seat == 1, "won_twelfths"].sum() / 12
    wins_first = first.loc[first.seat == 0, "won_twelfths"].sum() / 12
    row = table.iloc[0]
    assert row["wins"] == pytest.approx(wins_first + wins_second)
    assert (row["win_rate_seated_first"], row["win_rate_seated_second"]) == pytest.approx(
        (wins_first / GAMES, wins_second / GAMES))
    assert row["ci_low"] < row["win_rate"] < row["ci_high"] and row["diff_low"] < row["score_diff"] < row["diff_high"]


def test_findings_open_the_report(tiny):
    import pandas as pd

    findings = pd.read_csv(tiny / "tables" / "findings.csv", keep_default_na=False)
    assert findings["level"].tolist() == [4, 5]
    assert findings.columns[:3].tolist() == ["level", "Luna alone: mean score", "step from level below"]
    assert {f"{profile} wins %" for profile in study_module.scripted_profiles()} <= set(findings.columns)
    assert findings.loc[0, "step from level below"] == "" and findings.loc[1, "step from level below"].startswith("+")


def test_report_rebuilds_identical_tables(tiny, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    before = tables(copy)
    shutil.rmtree(copy / "tables")
    shutil.rmtree(copy / "figures")
    (copy / "report.md").unlink()
    assert main(["report", str(copy)]) == 0
    assert tables(copy) == before
    assert (copy / "report.html").is_file() and (copy / "figures" / "score_ecdf.svg").is_file()
    assert str(copy / "report.html") in capsys.readouterr().out


def test_interrupted_study_resumes_to_the_same_tables(tiny, tmp_path, monkeypatch, capsys):
    real = study_runner.run_simulation
    calls: list[str] = []
    interrupt_at = [3]  # the first run stops at its third part; later runs are not interrupted

    def interrupt_third_part(data, config, options, out, **keywords):
        calls.append(Path(out).name)
        if len(calls) == interrupt_at[0]:
            interrupt_at[0] = 0
            raise KeyboardInterrupt
        return real(data, config, options, out, **keywords)

    monkeypatch.setattr(study_runner, "run_simulation", interrupt_third_part)
    assert run_cli(tmp_path) == 130
    err = capsys.readouterr().err
    assert "2 of" in err and "rerun the same command" in err and err.count("\n") == 1
    study_dir = tmp_path / "tiny"
    plan = read_plan(study_dir)
    finished = [part for part in plan.parts if part_is_finished(study_dir, plan, part)]
    assert [part.name for part in finished] == calls[:2]
    assert not (study_dir / "report.md").exists()
    assert not [path for path in (study_dir / "runs").iterdir() if path.name.startswith(".")]  # no partial runs
    assert main(["report", str(study_dir)]) == 2  # an unfinished study has no report yet
    assert "not finished" in capsys.readouterr().err

    manifests = {part.name: study_dir / part.run / "manifest.json" for part in finished}
    stamps = {name: (path.stat().st_mtime_ns, path.read_bytes()) for name, path in manifests.items()}
    calls.clear()
    assert run_cli(tmp_path) == 0
    assert len(calls) == len(plan.parts) - 2 and not set(calls) & set(manifests)  # finished parts not replayed
    assert {name: (path.stat().st_mtime_ns, path.read_bytes()) for name, path in manifests.items()} == stamps
    assert tables(study_dir) == tables(tiny)

    calls.clear()
    assert run_cli(tmp_path) == 0  # everything finished: only the report is rebuilt
    assert calls == []


def test_changed_settings_make_a_part_stale(tiny):
    plan = read_plan(tiny)
    part = plan.parts[0]
    assert part_is_finished(tiny, plan, part)
    other = StudyPlan.from_json({**plan.to_json(), "games": GAMES + 1})
    assert not part_is_finished(tiny, other, part)
    assert not part_is_finished(tiny, plan, part, data_digest="0" * 16)


def test_variant_is_paired_with_the_base(tmp_path):
    overlay = tmp_path / "late_tokens.toml"
    overlay.write_text('name = "later helium tokens at level 5"\n[luna.levels.5]\nhelium_tokens = [15, 22]\n')
    results = tmp_path / "results"
    assert main(["study", "--name", "v", "--results-dir", str(results), "--games", "120", "--levels", "5",
                 "--engine", "reference", "--quiet", "--variant", str(overlay)]) == 0
    study_dir = results / "v"
    plan = read_plan(study_dir)
    variant_parts = [part for part in plan.parts if part.variant == "late_tokens"]
    assert [part.name for part in variant_parts] == [f"late_tokens/{part.name}" for part in plan.parts
                                                      if part.variant == "base"]
    assert (study_dir / "variants" / "late_tokens.toml").read_bytes() == overlay.read_bytes()
    manifest = json.loads((study_dir / "runs" / "late_tokens" / "solo-L5" / "manifest.json").read_text())
    assert manifest["config"]["seed"] == plan.seed and manifest["study"]["variant"] == "late_tokens"

    import pandas as pd

    differences = pd.read_csv(study_dir / "tables" / "variant_differences.csv")
    solo = differences[(differences.base_run == "solo-L5") & (differences.metric == "score_total")]
    assert solo[["variant", "variant_run", "n"]].values.tolist() == [["late_tokens", "late_tokens/solo-L5", 120]]
    overview = pd.read_csv(study_dir / "tables" / "variant_overview.csv")
    assert {"mean_base", "mean_variant", "diff", "ci_low", "ci_high"} <= set(overview.columns)
    markdown = (study_dir / "report.md").read_text()
    assert "## Variants against base" in markdown and "### Variant differences" in markdown
    assert "figures/variant_differences_late_tokens.png" in markdown and "later helium tokens" in markdown
    assert (study_dir / "figures" / "variant_scores.svg").is_file()


@pytest.mark.parametrize(("content", "message"), [
    (None, "file not found"),
    ("[luna.levels.5\n", "not valid TOML"),
    ("[rules]\nx = 1\n", "rules: unknown table"),
])
def test_bad_variant_is_a_one_line_error(tmp_path, capsys, content, message):
    overlay = tmp_path / "bad.toml"
    if content is not None:
        overlay.write_text(content)
    assert run_cli(tmp_path / "results", "--variant", str(overlay)) == 2
    err = capsys.readouterr().err
    assert message in err and str(overlay) in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "results").exists()  # nothing is simulated before every variant is valid


@pytest.mark.parametrize(("arguments", "message"), [
    (["--games", "0"], "--games"),
    (["--levels", "9"], "--levels"),
    (["--levels", "1-2-3"], "--levels"),
    (["--name", "../x"], "--name"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, arguments, message):
    assert run_cli(tmp_path / "results", *arguments) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_duplicate_variant_names_are_refused(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "same.toml").write_text('[luna.levels.5]\nhelium_tokens = [15, 22]\n')
    assert run_cli(tmp_path / "results", "--variant", str(tmp_path / "a" / "same.toml"),
                   "--variant", str(tmp_path / "b" / "same.toml")) == 2
    assert "is taken" in capsys.readouterr().err


def test_report_of_a_directory_that_is_no_study(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"luna-balance: {tmp_path / 'study.json'}: not found; is {tmp_path} a study directory?\n"


@pytest.mark.parametrize(("content", "problem"), [
    (b'{"format": ', "not a study file, its JSON is broken (Expecting value"),
    (b"\xff\xfe", "not a study file, its JSON is broken ('utf-8' codec can't decode"),
    (b"[1, 2]", "not a study file (a JSON object is expected, found list)"),
])
def test_report_of_a_broken_study_json_says_what_is_wrong(tmp_path, capsys, content, problem):
    (tmp_path / "study.json").write_bytes(content)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"luna-balance: {tmp_path / 'study.json'}: {problem}") and err.count("\n") == 1


def test_default_engine_falls_back_to_reference(monkeypatch):
    import sim.engines

    def broken(engine):
        if engine == "numba":
            raise ImportError("no sim.fast")
        return sim.engines.play_chunk_reference

    monkeypatch.setattr(sim.engines, "engine_function", broken)
    engine, note = resolve_engine(None)
    assert engine == "reference" and "numba" in note and "no sim.fast" in note
    with pytest.raises(ValueError, match="cannot be loaded"):
        resolve_engine("numba")


def test_plan_rejects_a_variant_named_like_a_part():
    variant = study_module.Variant(name="solo-L5", title="x", source="solo-L5.toml", file="variants/solo-L5.toml",
                                   digest="0")
    with pytest.raises(ValueError, match="is taken"):
        plan_study("s", 10, 1, [5], "reference", [variant], profiles=())


def test_parts_the_fast_engine_refuses_use_the_reference_engine(monkeypatch):
    import sim.engines

    def picky(data, config):
        return "plays only Lunas" if any(seat.kind == "scripted" for seat in config.seats) else ""

    numba = dataclasses.replace(sim.engines._REGISTRY["reference"], problems=picky)
    monkeypatch.setitem(sim.engines._REGISTRY, "numba", numba)
    from sim.config import GameConfig, parse_seats
    from sim.gamedata import load_game_data

    data = load_game_data()
    solo = GameConfig(seats=parse_seats("luna:5"))
    versus = GameConfig(seats=parse_seats("scripted:passive,luna:5"))
    assert study_module.part_engine("numba", data, solo) == ("numba", "")
    assert study_module.part_engine("numba", data, versus) == ("reference", "plays only Lunas")
    assert study_module.part_engine("reference", data, versus) == ("reference", "")


def test_the_plan_and_the_parser_need_no_pandas():
    """The command line builds its parser from the study plan's defaults; neither may pull in the analysis stack."""
    code = ("import sys, analysis.study.plan, sim.cli; sim.cli.build_parser(); "
            "print(sorted(name for name in ('pandas', 'matplotlib', 'analysis.study.runner') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_study_defaults_are_the_command_lines():
    from sim.cli import build_parser

    args = build_parser().parse_args(["study"])
    assert (args.name, args.games, args.seed, args.results_dir) == (
        study_module.DEFAULT_NAME, study_module.DEFAULT_GAMES, study_module.DEFAULT_SEED, study_module.DEFAULT_RESULTS)
    from sim.config import parse_levels

    assert tuple(parse_levels(args.levels)) == study_module.DEFAULT_LEVELS == LEVELS


def test_leftover_temporaries_are_removed_even_when_their_pid_is_alive(tiny, tmp_path):
    # A part's half-written directory is named after the pid that wrote it; pids are reused after a
    # crash, so a live pid proves nothing. The study's lock is what rules out a running writer.
    copy = tmp_path / "results" / "tiny"
    shutil.copytree(tiny, copy)
    leftover = copy / study_runner.RUNS_DIR / f".solo-L4.partial-{os.getppid()}"
    leftover.mkdir()
    (leftover / "seats.parquet").write_bytes(b"half")
    assert run_cli(tmp_path / "results") == 0
    assert not leftover.exists()
    assert tables(copy) == tables(tiny)


def test_the_ladder_says_its_intervals_are_unpaired_and_where_the_paired_step_is(tiny):
    # the section promised per-game differences "when both levels played the same games", while every row of
    # its table was unpaired and Findings gave the paired interval of the same step (a QA pass, 2026-11-26)
    import pandas as pd

    markdown = (tiny / "report.md").read_text()
    ladder = markdown.split('<a id="level-ladder"></a>', 1)[1].split("<a id=", 1)[0]
    assert "independent samples" in ladder and "Findings' step" in ladder
    assert "when both levels played the same games" not in ladder
    assert not pd.read_csv(tiny / "tables" / "level_ladder.csv")["paired"].any()


def test_the_head_to_head_figure_marks_no_difference_and_names_its_axis(tiny):
    # the caption said "(50 % = no difference)" with no such line, and the x axis "Luna's level" (a QA pass)
    svg = (tiny / "figures" / "head_to_head.svg").read_text()
    assert "The higher level of the duel" in svg and "Luna's level" not in svg


def test_a_study_from_before_the_second_seat_order_plays_only_the_new_duels(tiny, tmp_path, monkeypatch):
    # a study written when duels had one seat order: its duel-L4-L5 keeps its name and is kept, not replayed
    copy = tmp_path / "tiny"
    shutil.copytree(tiny, copy)
    shutil.rmtree(copy / "runs" / "duel-L5-L4")
    stored = json.loads((copy / "study.json").read_text())
    stored["parts"] = [part for part in stored["parts"] if part["name"] != "duel-L5-L4"]
    (copy / "study.json").write_text(json.dumps(stored))
    real, calls = study_runner.run_simulation, []

    def counted(data, config, options, out, **keywords):
        calls.append(Path(out).name)
        return real(data, config, options, out, **keywords)

    monkeypatch.setattr(study_runner, "run_simulation", counted)
    assert run_cli(tmp_path) == 0
    assert calls == ["duel-L5-L4"] and tables(copy) == tables(tiny)


@pytest.mark.parametrize(("levels", "rounds", "words"), [
    (LEVELS, 7, "; levels 0–8; 7 rounds; "), ((4, 5), 6, "; levels 4–5; 6 rounds; "),
    ((2, 3, 4, 7), 7, "; levels 2–4, 7; 7 rounds; "), ((5,), 7, "; level 5; 7 rounds; ")])
def test_the_introduction_tells_the_levels_from_the_rounds(levels, rounds, words):
    # Regression: "levels 0, 1, 2, 3, 4, 5, 6, 7, 8, 7 rounds" read as level 7 twice, and with --rounds 6
    # --levels 4-5 "levels 4, 5, 6 rounds" as a level 6
    from analysis.study.content import introduction

    plan = plan_study("s", 10, 1, levels, "reference", profiles=(), rounds=rounds)
    text = introduction(plan, {"solo-L5": {"config": {"engine": "reference"}}})
    assert words in text and text.startswith(f"{len(plan.parts)} parts of 10 games each; seed 1; ")
