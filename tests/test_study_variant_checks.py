"""A study's variants are checked against its parts before anything is played (analysis/study/checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.study import runner as study_runner
from sim.cli import main


def study(results: Path, *arguments: str) -> int:
    return main(["study", "--name", "checked", "--results-dir", str(results), "--games", "5", "--levels", "4-5",
                 "--engine", "reference", "--quiet", "--profiles", "balanced", *arguments])


@pytest.fixture
def nothing_played(monkeypatch):
    played: list[Path] = []
    monkeypatch.setattr(study_runner, "run_simulation", lambda *args, **kwargs: played.append(args[3]))
    return played


def test_a_variant_without_a_starting_token_per_seat_is_refused_before_the_base_parts(tmp_path, capsys,
                                                                                        nothing_played):
    # bug: "start_bonus 'random' draws one starting token per seat" came only after every base part was played
    overlay = tmp_path / "tok1.toml"
    overlay.write_text("[moon.starting_tokens]\ntokens = [{ helium = 1 }]\n")
    assert study(tmp_path / "results", "--variant", str(overlay)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("luna-balance: variant 'tok1', part tok1/duel-L4-L5: start_bonus 'random' draws one "
                          "starting token per seat: 2 seats, 1 tokens in moon.starting_tokens.tokens")
    assert f"(in {overlay})" in err  # the file the user wrote, not the study's copy of it
    assert nothing_played == [] and not (tmp_path / "results" / "checked").exists()


def test_a_profile_a_variant_makes_passive_is_refused_for_parity(tmp_path, capsys, nothing_played):
    # bug: the study checked only the shipped profiles, and searched the variant's passive balanced up to 64
    overlay = tmp_path / "o13.toml"
    overlay.write_text("[players.profiles.balanced]\npassive = true\n")
    assert study(tmp_path / "results", "--variant", str(overlay), "--parity", "--parity-games", "5") == 2
    assert capsys.readouterr().err == (
        f"luna-balance: {overlay}: players.profiles.balanced.passive: 'balanced' is passive in this variant and never "
        "wins, so it has no strength at parity; leave it out of --profiles or drop --parity\n")
    assert nothing_played == []


def test_variants_named_apart_only_by_dot_and_underscore_are_refused(tmp_path, capsys, nothing_played):
    # bug: a.b.toml and a_b.toml both drew variant_differences_a_b.png, the report showed a_b's figure twice
    for name in ("a.b.toml", "a_b.toml"):
        (tmp_path / name).write_text("[luna.levels.5]\nhelium_tokens = [15, 22]\n")
    assert study(tmp_path / "results", "--variant", str(tmp_path / "a.b.toml"), "--variant",
                 str(tmp_path / "a_b.toml")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"luna-balance: --variant: {tmp_path / 'a_b.toml'}: the name "
                                                   "'a_b' is taken; rename the file")
    assert nothing_played == []
