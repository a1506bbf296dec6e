"""Bisection for the strength at parity, on a known win-rate curve."""

from __future__ import annotations

import math
import re

import pytest

from analysis.intervals import wilson_interval
from analysis.parity import WinRateCurve, _bracket, strength_at_parity, strength_decimals
from analysis.study.plan import PARITY_TOLERANCE


class LogisticCurve(WinRateCurve):
    """A stand-in curve with a known root: win rate = 1 / (1 + exp(-4 (s - root)))."""

    def __init__(self, root: float, games: int) -> None:
        self.root, self.games, self.level, self.cache = root, games, 5, {}

    def __call__(self, strength: float) -> float:
        self.cache[strength] = 1.0 / (1.0 + math.exp(-4.0 * (strength - self.root)))
        return self.cache[strength]


@pytest.mark.parametrize("root", [0.3, 1.0, 2.7, 9.0])
def test_bisection_finds_the_root_and_an_interval_around_it(root):
    result = strength_at_parity(LogisticCurve(root, games=10_000), tolerance=0.001)
    assert result.strength == pytest.approx(root, abs=0.002)
    # At the interval's ends the Wilson interval of the win rate just touches one half.
    low_bounds = wilson_interval(LogisticCurve(root, 10_000)(result.low) * 10_000, 10_000)
    high_bounds = wilson_interval(LogisticCurve(root, 10_000)(result.high) * 10_000, 10_000)
    assert low_bounds[1] == pytest.approx(0.5, abs=0.002)
    assert high_bounds[0] == pytest.approx(0.5, abs=0.002)
    assert result.low < result.strength < result.high


def test_more_games_give_a_narrower_interval():
    few = strength_at_parity(LogisticCurve(1.5, games=400), tolerance=0.001)
    many = strength_at_parity(LogisticCurve(1.5, games=40_000), tolerance=0.001)
    assert (many.high - many.low) < (few.high - few.low) / 5


@pytest.mark.parametrize(("tolerance", "decimals"), [(PARITY_TOLERANCE, 2), (0.0025, 3), (0.001, 3), (0.1, 1)])
def test_strengths_are_given_to_the_decimals_the_bisection_settles(tolerance, decimals):
    # parity printed and tabled 1.234 where its bisection to 0.01 settles only 1.23 (a QA pass of the API)
    result = strength_at_parity(LogisticCurve(1.2345678, games=10_000), tolerance=tolerance)
    for value in (result.strength, result.low, result.high):
        assert value == round(value, decimals)
        assert value != round(value, decimals - 1)  # no coarser than the search either (true of this root)
    assert strength_decimals(tolerance) == decimals


def test_bracket_below_float_spacing_ends():
    # `parity --tolerance 1e-16` ran forever: 1.0 and its neighbour float are never closer than the tolerance,
    # and their middle is one of them
    calls = []

    def rising(strength: float) -> float:
        calls.append(strength)
        assert len(calls) < 2000, "the bisection does not end"
        return strength

    low, high = _bracket(rising, 1.0, 0.25, 4.0, tolerance=0.0)
    assert low < 1.0 <= high and high - low <= 2.5e-16


@pytest.mark.parametrize("tolerance", ["1e-16", "1e-7"])
def test_parity_tolerance_finer_than_the_strengths_played_is_refused(capsys, tolerance):
    # bug: a tolerance below float spacing never finished; one that fine is refused before any game
    from sim.cli import main

    assert main(["parity", "--profile", "balanced", "--levels", "4", "--games", "200", "--quiet",
                 "--tolerance", tolerance]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("luna-balance: --tolerance: must be at least 1e-06")


class FlatCurve(LogisticCurve):
    """A profile whose win rate is the same at every strength: it never crosses one half."""

    def __init__(self, rate: float, games: int) -> None:
        super().__init__(1.0, games)
        self.rate = rate

    def __call__(self, strength: float) -> float:
        self.cache[strength] = self.rate
        return self.rate


def test_parity_never_reached_is_not_reported_as_strength_64():
    # bug: a profile winning none of its games printed "64.00 63.98 64.00 win_rate 0.0", a made-up strength
    result = strength_at_parity(FlatCurve(0.0, games=300))
    assert math.isnan(result.strength)
    assert (result.low, result.high, result.win_rate) == (64.0, math.inf, 0.0)
    assert result.note == "not reached: above 64"


def test_parity_not_reached_keeps_an_interval_the_games_cannot_close():
    # a 45 % win rate at every strength, 100 games each: parity is not reached, but the win rate's interval
    # (35.6-54.8 %) holds 1/2 at every strength tried, so the games rule out no strength: (0, inf). Closing the
    # low end at 64 whenever the rate's lower bound there is below 1/2 (rather than its upper one) claimed that
    # they rule out everything below 64, and passed every test (a mutation pass, 2026-11-28).
    curve = FlatCurve(0.45, games=100)
    assert curve.bounds(64.0)[0] < 0.5 < curve.bounds(64.0)[1]
    result = strength_at_parity(curve)
    assert (result.low, result.high, result.note) == (0.0, math.inf, "not reached: above 64")
    assert (strength_at_parity(FlatCurve(0.45, games=10_000)).low) == 64.0  # at 10,000 games they rule it out


def test_parity_passed_even_at_the_lowest_strength_is_not_reported_as_a_strength():
    result = strength_at_parity(FlatCurve(1.0, games=300))
    assert math.isnan(result.strength) and result.low == 0.0 and result.high < 0.001
    assert result.note == "not reached: below 0.000977" and result.win_rate == 1.0


def test_parity_win_rate_is_played_at_the_strength_shown():
    # bug: win_rate was played at the unrounded bisection midpoint (0.4991), not at the 0.98 printed (0.4945)
    curve = LogisticCurve(1.2345678, games=10_000)
    result = strength_at_parity(curve)
    assert result.strength == round(result.strength, 2) and result.note == ""
    assert result.win_rate == curve(result.strength)


@pytest.mark.parametrize("games", [1, 2])
def test_an_interval_the_games_cannot_close_is_open(games):
    # `parity --games 1` printed 1.58 (0.25-4.00): the first bracket's ends, read as measured bounds when the
    # Wilson interval straddled 1/2 at every strength tried (a QA pass of the Python API)
    result = strength_at_parity(LogisticCurve(1.0, games=games))
    assert (result.low, result.high) == (0.0, math.inf)
    assert 0.25 <= result.strength <= 4.0


def test_an_interval_wider_than_the_first_bracket_is_searched_beyond_it():
    # with 10 games the upper bound of the win rate is still above 1/2 at strength 0.25 for a root at 0.6, so the
    # interval's low end lies below the bracket the strength was found in
    curve = LogisticCurve(0.6, games=10)
    assert curve.bounds(0.25)[1] >= 0.5
    result = strength_at_parity(curve)
    assert 0.0 < result.low < 0.25 and curve.bounds(result.low)[1] < 0.5
    assert result.high < math.inf and curve.bounds(result.high)[0] >= 0.5


@pytest.mark.parametrize(("change", "problem"), [
    (dict(games=0), "games: must be at least 1, got 0"),
    (dict(seed=-1), "seed: must be 0 to"),
    (dict(levels="4-5"), "levels: must be a list of levels 0-8, got '4-5'"),
    (dict(levels=[9]), "levels: must be a list of levels 0-8, got [9]"),
    (dict(profile="Balanced"), "profile: unknown scripted profile 'Balanced' (known: "),
])
def test_parity_table_checks_what_the_command_line_checks(change, problem):
    # games=0 gave a row of strength 0.25 and NaN win rate with two RuntimeWarnings, seed=-1 played seed 2**64-1,
    # "4-5" failed reading '-' as an int (a QA pass of the Python API)
    from analysis.parity import parity_table
    from sim.config import ConfigError
    from sim.gamedata import load_game_data

    arguments = dict(data=load_game_data(), profile="balanced", levels=[5], games=10, seed=1, engine="reference")
    with pytest.raises(ConfigError, match=f"^{re.escape(problem)}"):
        parity_table(**{**arguments, **change})
