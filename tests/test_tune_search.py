"""The tuner's search on synthetic metrics whose answer is known: races, drops, validity, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.tuning.search import (
    Measure,
    clearly_worse,
    coordinate_search,
    neighbours,
    race,
    stage_games,
)

GAMES = 4000


class Synthetic:
    """Per-game values ``level(point) + shared noise + a little own noise``: common random numbers by construction.

    Records every (point, games) asked for, and refuses points the test calls invalid.
    """

    def __init__(self, level, invalid=lambda point: False, own_noise=0.3):
        self.level, self.invalid, self.own_noise = level, invalid, own_noise
        self.shared = np.random.default_rng(7).normal(0.0, 5.0, size=GAMES)
        self.asked: list[tuple[tuple[int, ...], int]] = []

    def __call__(self, point, games):
        assert not self.invalid(point), f"an invalid point was evaluated: {point}"
        self.asked.append((point, games))
        own = np.random.default_rng(abs(hash(point)) % 2**32).normal(0.0, self.own_noise, size=GAMES)
        values = self.level(point) + self.shared[:games] + own[:games]
        mean = float(values.mean())
        half = 1.96 * float(values.std(ddof=1)) / np.sqrt(games)
        return Measure(mean, mean - half, mean + half, games, values)


def test_stage_games_double_up_to_the_full_count():
    assert stage_games(20_000) == [1250, 2500, 5000, 10_000, 20_000]
    assert stage_games(600) == [300, 600]
    assert stage_games(100) == [100]


def test_clearly_worse_uses_the_paired_games():
    shared = np.random.default_rng(1).normal(0.0, 10.0, size=2000)
    near = Measure(float(np.mean(shared + 1.0)), -np.inf, np.inf, 2000, shared + 1.0)
    far = Measure(float(np.mean(shared + 1.5)), -np.inf, np.inf, 2000, shared + 1.5)
    # Unpaired, intervals this wide could never tell 1.0 from 1.5; paired, the difference is exact.
    assert clearly_worse(far, near, target=0.0)
    assert not clearly_worse(near, far, target=0.0)
    assert not clearly_worse(near, near, target=0.0)


def test_clearly_worse_without_per_game_values_compares_intervals():
    best = Measure(1.0, 0.9, 1.1, 100)
    assert clearly_worse(Measure(1.5, 1.35, 1.65, 100), best, target=1.0)
    assert not clearly_worse(Measure(1.2, 1.05, 1.35, 100), best, target=1.0)


def test_a_race_spends_few_games_on_far_candidates():
    metric = Synthetic(lambda point: abs(point[0] - 5) * 2.0)
    schedule = stage_games(GAMES)
    winner, trials = race([(3,), (4,), (5,), (9,)], metric, target=0.0, schedule=schedule)
    assert winner == (5,)
    games = {point: max(trial.measure.games for trial in trials if trial.point == point) for point in [(9,), (5,)]}
    assert games[(9,)] == schedule[0]  # dropped on the first stage
    chosen = [trial for trial in trials if trial.status == "chosen"]
    assert [trial.point for trial in chosen] == [(5,)]
    assert {trial.status for trial in trials if trial.point == (9,)} == {"dropped"}


def test_the_walk_finds_the_unique_optimum_and_never_evaluates_an_invalid_point():
    # Two "tokens" that must stay in order (a < b): the optimum (4, 11) is reached from (9, 15).
    def level(point):
        return 0.8 * abs(point[0] - 4) + 0.5 * abs(point[1] - 11)

    def invalid(point):
        return point[0] >= point[1]

    metric = Synthetic(level, invalid)
    result = coordinate_search((9, 15), [1, 1], [28, 28], metric, target=0.0, games=GAMES,
                               valid=lambda point: not invalid(point))
    assert result.best == (4, 11)
    assert result.best_measure.games == GAMES and result.start_measure.games == GAMES
    assert result.moves >= 3
    assert all(trial.race <= result.moves for trial in result.trials)


def test_the_walk_respects_bounds_and_is_deterministic():
    def level(point):
        return 1.0 * abs(point[0] - 2)

    runs = [coordinate_search((8,), [6], [12], Synthetic(level), target=0.0, games=GAMES, valid=lambda p: True)
            for _ in range(2)]
    assert runs[0].best == (6,)  # as close as the bounds allow
    assert [(t.point, t.stage, t.status, t.measure.value) for t in runs[0].trials] == [
        (t.point, t.stage, t.status, t.measure.value) for t in runs[1].trials]


def test_a_target_between_two_points_picks_the_closer():
    metric = Synthetic(lambda point: 1.0 * point[0], own_noise=0.0)
    result = coordinate_search((0,), [0], [10], metric, target=6.3, games=GAMES, valid=lambda p: True)
    assert result.best == (6,)


def test_neighbours_small_steps_first_within_bounds():
    found = neighbours((5, 1), [0, 1], [6, 9], valid=lambda point: True)
    assert found == [(6, 1), (4, 1), (5, 2), (3, 1), (5, 3)]  # (5, 0), (7, 1), (5, -1) are out of bounds
    assert neighbours((5, 1), [0, 1], [6, 9], valid=lambda point: point[0] != 4, skip={(6, 1)}) == [
        (5, 2), (3, 1), (5, 3)]


def test_an_invalid_start_is_refused():
    with pytest.raises(ValueError, match="starting point"):
        coordinate_search((3,), [0], [5], Synthetic(lambda p: 0.0), 0.0, 100, valid=lambda point: False)
