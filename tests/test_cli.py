"""The command line and the run directory it writes: contract, errors, atomicity, reproducibility."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from contract_checker import CHECK_RUN, MISSING, check_runs

from sim import engines as engines_module
from sim.cli import main
from sim.columns import ROUND_NUMERIC, SEAT_COLUMNS
from sim.config import ConfigError, parse_levels
from sim.constants import LEVELS


def simulate(tmp_path: Path, *extra: str, name: str = "run", engine: str = "reference") -> Path:
    out = tmp_path / name
    assert main(["simulate", "--games", "60", "--seed", "11", "--out", str(out), "--quiet", "--engine", engine,
                 *extra]) == 0
    return out


def test_simulate_writes_the_contract(tmp_path):
    out = simulate(tmp_path, "--seats", "scripted:passive,luna:2,luna:6", "--detail", "rounds")
    seats = pd.read_parquet(out / "seats.parquet")
    rounds = pd.read_parquet(out / "luna_rounds.parquet")
    assert list(seats.columns) == list(SEAT_COLUMNS)
    assert set(ROUND_NUMERIC) <= set(rounds.columns)
    assert len(seats) == 60 * 3 and len(rounds) == 60 * 2 * 7
    assert seats.groupby("game").won.sum().eq(1.0).all()
    assert set(rounds.card_b) <= {card for card in rounds.card_b if card.startswith(("I-", "II-"))}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["seats"] == ["scripted:passive", "luna:2", "luna:6"]
    assert manifest["config"]["seed"] == 11 and manifest["config"]["engine"] == "reference"
    assert {"numpy", "pandas", "pyarrow", "python"} <= set(manifest["versions"])
    assert len(manifest["data"]["digest"]) == 16


def test_off_slots_are_empty_card_ids(tmp_path):
    out = simulate(tmp_path, "--seats", "luna:0", "--detail", "rounds")
    rounds = pd.read_parquet(out / "luna_rounds.parquet")
    assert (rounds.card_a == "").all() and (rounds.card_e == "").all()  # level 0: A and E never switch on
    assert (rounds.card_b != "").all()


@pytest.mark.skipif(not CHECK_RUN.is_file(), reason=MISSING)
def test_shared_contract_checker_accepts_runs(tmp_path):
    runs = [simulate(tmp_path, "--seats", seats, "--detail", "rounds", name=f"r{i}")
            for i, seats in enumerate(["luna:0", "luna:1", "luna:5", "scripted:passive,luna:8", "luna:3,luna:4"])]
    result = check_runs(*runs)
    assert result.returncode == 0, result.stdout + result.stderr


def test_numba_is_the_default_engine_and_agrees_with_the_reference(tmp_path):
    fast = tmp_path / "fast"
    assert main(["simulate", "--seats", "scripted:passive,luna:6", "--games", "200", "--seed", "3", "--out", str(fast),
                 "--detail", "rounds", "--quiet"]) == 0
    slow = simulate(tmp_path, "--seats", "scripted:passive,luna:6", "--games", "200", "--seed", "3", "--detail",
                    "rounds", name="slow")
    assert json.loads((fast / "manifest.json").read_text())["config"]["engine"] == "numba"
    for name in ("seats.parquet", "luna_rounds.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(fast / name), pd.read_parquet(slow / name))


@pytest.mark.parametrize("engine", ["reference", "numba"])
def test_same_seed_same_numbers_for_any_workers_and_chunks(tmp_path, engine):
    one = simulate(tmp_path, "--seats", "scripted:balanced,luna:5", name="one", engine=engine)
    two = simulate(tmp_path, "--seats", "scripted:balanced,luna:5", "--workers", "2", "--chunk-size", "7",
                   name="two", engine=engine)
    pd.testing.assert_frame_equal(pd.read_parquet(one / "seats.parquet"), pd.read_parquet(two / "seats.parquet"))
    other = simulate(tmp_path, "--seats", "scripted:balanced,luna:5", "--seed", "12", name="other", engine=engine)
    assert not pd.read_parquet(one / "seats.parquet").equals(pd.read_parquet(other / "seats.parquet"))


@pytest.mark.parametrize(("arguments", "message"), [
    (["--seats", "luna:9"], "unknown Luna level '9'"),
    (["--seats", "luna:x"], "unknown Luna level 'x'"),
    (["--seats", "scripted:wizard,luna:2"], "unknown scripted profile 'wizard'"),
    (["--seats", "luna:2,scripted:passive"], "Luna sits last"),
    (["--seats", "luna:1,luna:1,luna:1,luna:1,luna:1"], "1 to 4 seats"),
    (["--seats", "bob"], "neither luna:<level> nor scripted"),
    (["--seats", "luna:2", "--games", "0"], "--games"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, arguments, message):
    argv = ["simulate", "--games", "5", "--out", str(tmp_path / "x"), "--quiet", *arguments]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("command", [
    ["simulate", "--seats", "luna:2", "--games", "5", "--engine", "reference"],
    ["study", "--games", "5", "--levels", "0", "--engine", "reference"],
])
def test_dask_backend_without_dask_installed_is_a_one_line_error(tmp_path, capsys, monkeypatch, command):
    # simulate --backend dask without dask.distributed installed ended in a bare ModuleNotFoundError traceback
    # from deep in the chunk loop; dask is an optional dependency, so its absence is the user's to fix.
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # what `import dask.distributed` meets without it
    out = ["--out", str(tmp_path / "x")] if command[0] == "simulate" else ["--results-dir", str(tmp_path / "x")]
    assert main([*command, *out, "--quiet", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("luna-balance: --backend dask: dask.distributed cannot be imported")
    assert "pip install 'luna-balance[dask]'" in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_broken_overlay_names_file_field_and_problem(tmp_path, capsys):
    overlay = tmp_path / "variant.toml"
    overlay.write_text('[luna.levels.5]\nhelium_tokens = [7, 40]\n')
    assert main(["simulate", "--seats", "luna:5", "--games", "5", "--out", str(tmp_path / "x"),
                 "--overlay", str(overlay), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{overlay}: luna.levels.5.helium_tokens: 40 is off the tank track" in err
    assert not (tmp_path / "x").exists()


def test_out_where_no_directory_can_be_written_is_a_one_line_error(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("keep me\n")
    for out in ("/proc/x/run", str(afile / "run"), str(afile)):
        assert main(["simulate", "--seats", "luna:2", "--games", "5", "--out", out, "--quiet",
                     "--engine", "reference"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"luna-balance: {out}: ") and err.count("\n") == 1 and "Traceback" not in err
    assert [path.name for path in tmp_path.iterdir()] == ["afile"] and afile.read_text() == "keep me\n"
    assert not Path("/proc/x").exists()


def test_out_under_proc_exits_2_from_the_console_script():
    result = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--seats", "luna:2", "--games", "5",
                             "--out", "/proc/x/run", "--quiet", "--engine", "reference"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "/proc/x/run" in result.stderr and "Traceback" not in result.stderr


def test_usage_errors_exit_2_from_the_console_script(tmp_path):
    result = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--seats", "luna:2"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "required" in result.stderr and "Traceback" not in result.stderr


def test_interrupted_run_leaves_nothing_half_written(tmp_path, monkeypatch):
    finished = simulate(tmp_path, "--seats", "luna:4", name="kept")
    before = (finished / "seats.parquet").read_bytes()
    calls = {"n": 0}
    real = engines_module.play_chunk_reference

    def fail_on_second_chunk(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(engines_module, "play_chunk_reference", fail_on_second_chunk)
    code = main(["simulate", "--seats", "luna:4", "--games", "60", "--chunk-size", "20", "--out", str(finished),
                 "--quiet", "--engine", "reference"])
    assert code == 130
    assert (finished / "seats.parquet").read_bytes() == before  # the earlier finished run is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["kept"]  # no partial directory left behind


def test_levels_command_prints_a_table(capsys):
    assert main(["levels", "--games", "20", "--levels", "0,4-5", "--start-bonus", "none", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "score_total" in out and "reshuffles" in out
    assert [line.split()[0] for line in out.splitlines()[3:]] == ["0", "4", "5"]


def test_levels_table_is_the_same_from_summaries_and_from_kept_rows(tmp_path, capsys, monkeypatch):
    """Regression: ``levels`` read every level's whole seats file back and kept them all until the table: 200,000
    games a level took 1.1 GB, growing with the games. Without ``--out`` the runs now keep only their summaries;
    the table must not tell which way it was made (one game too: no spread either way)."""
    import sim.levels

    real, kept_rows = sim.levels.run_simulation, []

    def recorded(data, config, options, *args, **kwargs):
        kept_rows.append(not options.aggregate_only)
        return real(data, config, options, *args, **kwargs)

    monkeypatch.setattr(sim.levels, "run_simulation", recorded)
    for games in ("7", "1"):
        argv = ["levels", "--games", games, "--levels", "0,6", "--engine", "reference", "--quiet"]
        assert main(argv) == 0
        from_summaries = capsys.readouterr().out
        assert main([*argv, "--out", str(tmp_path / f"kept-{games}")]) == 0
        assert capsys.readouterr().out == from_summaries
        assert kept_rows == [False, False, True, True]  # rows only where --out keeps the runs
        kept_rows.clear()
        assert (tmp_path / f"kept-{games}" / "level-6" / "seats.parquet").exists()  # --out keeps the rows
    assert "NaN" in from_summaries  # the score's sd of one game


def test_level_row_reads_either_kind_of_run(tmp_path):
    from sim.levels import LEVEL_TABLE, level_row

    rows = simulate(tmp_path, "--seats", "luna:3", name="rows")
    summaries = simulate(tmp_path, "--seats", "luna:3", "--aggregate-only", name="summaries")
    from_rows, from_summaries = level_row(rows), level_row(summaries)
    seats = pd.read_parquet(rows / "seats.parquet")
    assert from_rows["games"] == from_summaries["games"] == 60
    assert from_rows["score_sd"] == pytest.approx(seats["score_total"].std(), rel=1e-12)
    for name in LEVEL_TABLE:
        assert from_summaries[name] == pytest.approx(from_rows[name], rel=1e-12), name


def test_levels_stopped_leaves_no_temporary_folder(tmp_path, monkeypatch, stop_at_level):
    """Regression: ``levels`` without ``--out`` plays into a ``luna-levels-*`` folder under the temporary directory,
    and removed it only when the table was printed: every Ctrl-C or stop signal left one behind, as large as the
    runs had grown."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stop_at_level(5)
    assert main(["levels", "--games", "10", "--levels", "0,5", "--engine", "reference", "--quiet"]) == 130
    assert list(tmp_path.iterdir()) == []


def test_parity_finds_the_crossing_inside_its_interval(tmp_path, capsys):
    csv = tmp_path / "parity.csv"
    assert main(["parity", "--profile", "balanced", "--levels", "2", "--games", "120", "--engine", "reference",
                 "--tolerance", "0.05", "--csv", str(csv), "--quiet"]) == 0
    table = pd.read_csv(csv)
    row = table.iloc[0]
    assert row.low <= row.strength <= row.high
    assert abs(row.win_rate - 0.5) < 0.1  # the bisection stopped where the win rate crosses one half
    out = capsys.readouterr().out
    assert "Strength at parity" in out
    # to the decimals a bisection to 0.05 settles, two, in the table and in print (it showed three)
    assert all(value == round(value, 2) for value in (row.strength, row.low, row.high))
    header, printed = out.splitlines()[1:3]
    # the last column, note, is empty for a parity reached (it says "not reached: above 64" otherwise)
    assert header.split()[-1] == "note" and pd.isna(row.note)  # an empty note reads back from the CSV as NaN
    shown = dict(zip(header.split()[:-1], printed.split(), strict=True))
    assert [shown[column] for column in ("strength", "low", "high")] == [f"{row[column]:.2f}"
                                                                      for column in ("strength", "low", "high")]


@pytest.mark.parametrize(("profile", "message"), [("passive", "never wins"), ("nope", "unknown scripted profile")])
def test_parity_rejects_profiles_that_cannot_cross(capsys, profile, message):
    assert main(["parity", "--profile", profile, "--games", "5", "--quiet"]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("text", "levels"), [
    ("0-8", list(LEVELS)), ("2,5,8", [2, 5, 8]), ("0,4-5", [0, 4, 5]), (" 5 , 3,3 ", [3, 5]), ("4-4", [4]),
])
def test_parse_levels(text, levels):
    assert parse_levels(text) == levels


@pytest.mark.parametrize(("text", "message"), [
    ("1-2-3", "'1-2-3' in '1-2-3' is not a level or a range"),
    ("3-1", "runs downwards"),
    ("x", "'x' in 'x' is not a level"),
    ("1,,2", "'' in '1,,2' is not a level"),
    ("", "is not a level"),
    ("9", "'9' is outside the levels 0-8"),
    ("7-9", "outside the levels"),
    ("-1", "is not a level"),
])
def test_malformed_levels_are_refused(text, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_levels(text)


@pytest.mark.parametrize("command", [["levels", "--games", "5"], ["parity", "--profile", "balanced", "--games", "5"],
                                     ["study", "--games", "5", "--results-dir", "{tmp}"]])
@pytest.mark.parametrize("levels", ["1-2-3", "3-1", "x", "1,,2", "9"])
def test_malformed_levels_are_one_line_errors(tmp_path, capsys, command, levels):
    argv = [part.replace("{tmp}", str(tmp_path / "results")) for part in command]
    assert main([*argv, "--levels", levels, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("luna-balance: --levels: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "results").exists()


# ---------------------------------------------------------------- --help texts


def _subcommand_options() -> list[tuple[str, argparse.Action]]:
    """Every optional argument of every subcommand, as (command, action)."""
    from sim.cli import build_parser

    commands = next(action for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
    return [(name, action) for name, sub in commands.choices.items() for action in sub._actions
            if action.option_strings and action.help != argparse.SUPPRESS
            and not isinstance(action, argparse._HelpAction)]


def test_every_option_says_what_it_does_and_its_default():
    # --help is where a user looks up a default: simulate's --games had no text at all, and --rounds,
    # --start-bonus, --workers, --backend, --levels, --policy and --title kept their defaults to themselves.
    unstated = [f"{name} {action.option_strings[0]}" for name, action in _subcommand_options()
                if not action.required and action.default not in (None, False, [], "")
                and "default" not in (action.help or "")]
    assert [f"{name} {action.option_strings[0]}" for name, action in _subcommand_options() if not action.help] == []
    assert unstated == []


def test_quiet_help_says_it_also_silences_the_compile_notice():
    # main() turns the compile notice off for every command's --quiet (set_compile_notice); the help said
    # "no progress bar" only, on the commands that compile the engine.
    quiet = {name: action.help for name, action in _subcommand_options() if action.option_strings == ["--quiet"]}
    assert set(quiet) == {"simulate", "parity", "levels", "campaign", "study", "readings", "sensitivity", "tune"}
    assert all("compile notice" in text or "messages" in text for text in quiet.values()), quiet


def test_workers_help_tells_local_processes_from_dask_workers():
    # With --backend dask, --workers 1 (the default) uses the whole cluster (sim.dispatch.ordered_results);
    # locally it is one process. study's help gave only the cluster's default, simulate's only the local one.
    helps = {name: action.help for name, action in _subcommand_options() if action.option_strings == ["--workers"]}
    assert "dask" in helps["simulate"] and "whole cluster" in helps["simulate"] and "default 1" in helps["simulate"]
    assert helps["study"] == helps["simulate"]
    assert "dask" not in helps["levels"] and "default %(default)s" in helps["levels"]
