"""Calibration of the intervals the reports print: does a "95 % interval" cover the truth about 95 % of the time?

Each producer is checked two ways where it can be:

- against a trusted answer: scipy 1.17's ``binomtest(k, n).proportion_ci(method="wilson")`` (values copied
  here), textbook quantiles of Student's t, and Newcombe's (1998) own table;
- by coverage with a known truth: exact binomial sums where the outcome is a count, otherwise seeded
  simulations of ``REPLICATIONS`` replications. A simulated coverage of a true 95 % interval has a binomial
  standard error of sqrt(0.95 * 0.05 / 4000) = 0.0034, so the tests accept 0.95 +- 3.6 standard errors
  (``TOLERANCE``, 0.938-0.962): with some 30 coverage checks here, a correct interval fails one by chance
  about 1 % of the time (Bonferroni). A z of 1.64 (coverage 0.90), 1.96 at ten games or fewer (0.92 and
  below) or a missing square root falls outside.

Many replications go through a producer in one call, each replication a group of its own (``by="rep"``),
so the coverage measured is that of the tables' own columns, not of a copy of their formulas.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import parity
from analysis.intervals import (
    Z95,
    difference_interval,
    newcombe_interval,
    paired_difference,
    paired_proportion_interval,
    t95,
    wilson_interval,
)
from analysis.stats import level_ladder, paired_differences, score_summary, win_rates
from analysis.study.findings import findings_sentences, findings_table

REPLICATIONS = 4000
NOMINAL = 0.95
#: Standard errors of a measured coverage accepted either side of NOMINAL (see the module docstring).
ALLOWED_ERRORS = 3.6


def tolerance(replications: int) -> float:
    return ALLOWED_ERRORS * math.sqrt(NOMINAL * (1 - NOMINAL) / replications)


TOLERANCE = tolerance(REPLICATIONS)
#: level_ladder loops over its groups in Python (some 8 ms each), so its checks replicate less and run as slow.
LADDER_REPLICATIONS = 1000


def assert_calibrated(hits: np.ndarray, tolerance: float = TOLERANCE) -> None:
    coverage = float(np.mean(hits))
    assert abs(coverage - NOMINAL) <= tolerance, f"coverage {coverage:.4f}, nominal {NOMINAL}"


# ---------------------------------------------------------------- strength at parity

class ThresholdCurve(parity.WinRateCurve):
    """A parity search's win-rate curve with a known answer and common random numbers.

    Game ``g`` has a threshold ``t_g``; the scripted seat wins it at every strength above ``t_g``. As in the
    simulator, every strength replays the same games, so the win rate is a step function rising with the
    strength, and the true strength at parity is the median of the thresholds' distribution.
    """

    def __init__(self, thresholds: np.ndarray) -> None:
        self.thresholds = np.sort(thresholds)
        self.games, self.level, self.cache = len(thresholds), 0, {}

    def __call__(self, strength: float) -> float:
        strength = float(round(strength, 6))
        if strength not in self.cache:
            self.cache[strength] = float(np.searchsorted(self.thresholds, strength)) / self.games
        return self.cache[strength]


def exact_inversion(curve: ThresholdCurve, around: float, step: float = 1e-5) -> tuple[float, float]:
    """The strengths whose pointwise Wilson interval holds 1/2, on a grid far finer than any search's."""
    grid = np.arange(around - 0.2, around + 0.2, step)
    low, high = wilson_interval(np.searchsorted(curve.thresholds, grid), np.full(grid.shape, curve.games))
    inside = grid[(low <= 0.5) & (0.5 <= high)]
    return float(inside.min()), float(inside.max())


@pytest.mark.parametrize("truth", [1.2349, 1.2351, 1.2399, 1.2401])
def test_parity_interval_rounded_inward_missed_the_true_strength(truth):
    # The interval's ends were the middles of their bisection brackets, rounded to the nearest 0.01: both moves
    # could cut into the interval, and at 10,000 games (the study's default) and a truth just below a rounding
    # step it held the true strength in 80 % of searches, down to 3 % with a steeper curve (README: "0.98
    # (0.98-0.98)"). Here a steep curve whose exact interval (~0.004 wide) is far narrower than the search's
    # 0.01 steps: the printed interval must contain every strength of the exact one.
    rng = np.random.default_rng(20261127)
    curve = ThresholdCurve(rng.normal(truth, 0.1, 10_000))
    result = parity.strength_at_parity(curve, tolerance=0.01)
    low, high = exact_inversion(curve, truth)
    assert result.low <= low and high <= result.high
    assert result.low <= truth <= result.high


def test_parity_interval_covers_the_true_strength_at_the_study_settings():
    # 10,000 games per strength, bisection to 0.01, a curve as steep as the README's (the exact interval about
    # +-0.007 wide), the truth placed where rounding to the nearest used to hurt most. The search's 0.01 steps
    # make the interval conservative, never short: at least 95 % less the tolerance.
    rng = np.random.default_rng(7)
    truth, replications = 1.2399, 400
    hits = [parity.strength_at_parity(ThresholdCurve(rng.normal(truth, 0.4, 10_000))) for _ in range(replications)]
    coverage = np.mean([result.low <= truth <= result.high for result in hits])
    assert coverage >= NOMINAL - tolerance(replications)


def test_parity_interval_bounds_are_on_the_search_grid_and_hold_the_strength():
    rng = np.random.default_rng(3)
    result = parity.strength_at_parity(ThresholdCurve(rng.normal(0.87, 0.4, 2_000)), tolerance=0.01)
    for value in (result.strength, result.low, result.high):
        assert value == round(value, 2)
    assert result.low <= result.strength <= result.high


# ---------------------------------------------------------------- Wilson (win rates)

#: scipy 1.17.1: binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson").
SCIPY_WILSON = [
    (0, 1, 0.0, 0.7934506856227626), (1, 1, 0.20654931437723745, 1.0), (0, 2, 0.0, 0.6576197724933469),
    (1, 2, 0.09453120573423074, 0.9054687942657693), (2, 2, 0.34238022750665303, 1.0),
    (0, 10, 0.0, 0.27753279986288926), (10, 10, 0.7224672001371109, 1.0),
    (3, 7, 0.1582198552514697, 0.7495416354723428),
    (0, 20000, 0.0, 0.00019203605610462553), (1, 20000, 8.82628227297485e-06, 0.0002831905702260402),
    (19999, 20000, 0.999716809429774, 0.999991173717727), (10000, 20000, 0.4930711462689593, 0.5069288537310407),
    (5, 200000, 1.0678551460593873e-05, 5.8527413383556285e-05),
    (123456, 200000, 0.6151475941710203, 0.6194079006526072),
]


@pytest.mark.parametrize(("wins", "games", "low", "high"), SCIPY_WILSON)
def test_wilson_matches_scipy(wins, games, low, high):
    assert wilson_interval(wins, games) == pytest.approx((low, high), abs=1e-12)


def binomial_pmf(games: int, p: float) -> np.ndarray:
    k = np.arange(games + 1)
    log_choose = np.array([math.lgamma(games + 1) - math.lgamma(i + 1) - math.lgamma(games - i + 1) for i in k])
    return np.exp(log_choose + k * math.log(p) + (games - k) * math.log1p(-p))


@pytest.mark.parametrize("games", [1000, 20000])
@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.8, 0.95])
def test_wilson_exact_coverage(games, p):
    # Exact: the probability of every count whose interval holds p. Wilson's coverage oscillates with n and p (it
    # dips to ~0.92 at n = 1000, p = 0.001, a known property); at Monte Carlo sizes and these rates it is 0.946-0.950.
    wins = np.arange(games + 1, dtype=float)
    low, high = wilson_interval(wins, np.full(wins.shape, float(games)))
    coverage = float(binomial_pmf(games, p)[(low <= p) & (p <= high)].sum())
    assert abs(coverage - NOMINAL) <= 0.005


@pytest.mark.parametrize(("probabilities", "shares"), [
    ((0.45, 0.10, 0.45), (0.0, 0.5, 1.0)),  # two-seat games with 10 % ties
    ((0.60, 0.30, 0.10), (0.0, 1 / 3, 1.0)),  # three-way ties, shared wins counting 1/3
])
def test_wilson_with_shared_wins_is_conservative_not_short(probabilities, shares):
    # The docstring's claim: a fractional win has less variance than a 0/1 one, so the interval is wider than
    # needed. Measured: 0.96 with 10 % half-wins, 0.99 with 30 % third-wins; never below 95 %.
    rng = np.random.default_rng(11)
    truth = float(np.dot(probabilities, shares))
    won = rng.choice(np.array(shares), size=(REPLICATIONS, 200), p=np.array(probabilities))
    low, high = wilson_interval(won.sum(axis=1), np.full(REPLICATIONS, 200))
    assert np.mean((low <= truth) & (truth <= high)) >= NOMINAL - TOLERANCE


# ---------------------------------------------------------------- Newcombe (independent win rates)

#: Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 (the hybrid score interval).
NEWCOMBE_TABLE = [
    ((56, 70, 48, 80), (0.0524, 0.3339)), ((9, 10, 3, 10), (0.1705, 0.8090)), ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)), ((0, 10, 0, 20), (-0.1611, 0.2775)), ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0)), ((10, 10, 0, 10), (0.6075, 1.0)),
]


@pytest.mark.parametrize(("counts", "bounds"), NEWCOMBE_TABLE)
def test_newcombe_matches_newcombes_table(counts, bounds):
    diff, low, high = newcombe_interval(*counts)
    assert diff == pytest.approx(counts[0] / counts[1] - counts[2] / counts[3])
    assert (low, high) == pytest.approx(bounds, abs=5e-5)


@pytest.mark.parametrize(("games", "p_a", "p_b"), [(200, 0.5, 0.4), (5000, 0.3, 0.3), (20000, 0.056, 0.014)])
def test_newcombe_coverage(games, p_a, p_b):
    rng = np.random.default_rng(5)
    wins_a, wins_b = rng.binomial(games, p_a, REPLICATIONS), rng.binomial(games, p_b, REPLICATIONS)
    hits = [low <= p_a - p_b <= high for _, low, high in
            (newcombe_interval(a, games, b, games) for a, b in zip(wins_a, wins_b, strict=True))]
    assert_calibrated(np.array(hits))


# ---------------------------------------------------------------- Newcombe (paired win rates)

def test_paired_newcombe_matches_a_published_example():
    # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, chapter 8: complete response
    # before and after consolidation therapy (Cavo et al. 2012), 59 both, 6 before only, 16 after only, 80 neither;
    # Newcombe's square-and-add interval -0.0621 (-0.1186 to -0.0046).
    games = 161
    p_a, p_b = (59 + 6) / games, (59 + 16) / games
    diff, low, high = paired_proportion_interval(p_a, p_b, 59 / games - p_a * p_b, games)
    assert (diff, low, high) == pytest.approx((-0.0621, -0.1186, -0.0046), abs=5e-5)


@pytest.mark.parametrize("games", [2, 10, 57])
def test_paired_newcombe_of_a_duel_is_one_seats_wilson_interval(games):
    # Two seats alone without ties: the upper wins k games and the lower the rest, so the difference is 2p - 1 and
    # its interval exactly (2 low - 1, 2 high - 1) of Wilson(k, n). At k = 0 and k = n neither rate varies and the
    # correlation, -1, is not measured: taking 0 instead (Newcombe's choice) gives sqrt(2) rather than 2 times the
    # Wilson half-width, which covered 0.92 at 100 games and 97 % wins.
    for wins in range(games + 1):
        p = wins / games
        wilson_low, wilson_high = wilson_interval(wins, games)
        diff, low, high = paired_proportion_interval(p, 1.0 - p, -p * (1.0 - p), games)
        assert (diff, low, high) == pytest.approx((2 * p - 1, 2 * wilson_low - 1, 2 * wilson_high - 1), abs=1e-12)


def test_paired_newcombe_needs_two_games():
    assert all(math.isnan(bound) for bound in paired_proportion_interval(1.0, 0.0, 0.0, 1)[1:])
    assert all(math.isnan(bound) for bound in paired_proportion_interval(np.nan, np.nan, np.nan, 0)[1:])


#: Outcomes of a game of two levels and a scripted seat: upper wins, lower wins, the scripted seat wins, the two
#: levels tie (half each).
OUTCOME_SHARES = (np.array([1.0, 0.0, 0.0, 0.5]), np.array([0.0, 1.0, 0.0, 0.5]))


@pytest.mark.parametrize(("probabilities", "games", "t_coverage"), [
    ((0.9, 0.1, 0.0, 0.0), 20, 0.88),  # a duel, one level winning 90 %
    ((0.97, 0.03, 0.0, 0.0), 50, 0.78),
    ((0.9, 0.02, 0.08, 0.0), 20, 0.88),  # with a scripted seat
    ((0.4, 0.25, 0.3, 0.05), 10, 0.95),
    ((0.1, 0.1, 0.8, 0.0), 50, 0.96),
])
def test_paired_newcombe_covers_where_the_t_interval_did_not(probabilities, games, t_coverage):
    # Levels paired in one game's seats (level_ladder). The t interval of the per-game differences, used before,
    # covered t_coverage here; Newcombe's is conservative rather than short (up to 0.97 here, 1.00 when neither
    # level wins often at few games), so only its lower side is held to the tolerance.
    rng = np.random.default_rng(games)
    outcome = rng.choice(4, size=(REPLICATIONS, games), p=np.array(probabilities))
    upper, lower = (shares[outcome] for shares in OUTCOME_SHARES)
    covariance = (upper * lower).mean(axis=1) - upper.mean(axis=1) * lower.mean(axis=1)
    _, low, high = paired_proportion_interval(upper.mean(axis=1), lower.mean(axis=1), covariance,
                                              np.full(REPLICATIONS, games))
    truth = probabilities[0] - probabilities[1]
    assert np.mean((low <= truth + 1e-12) & (truth - 1e-12 <= high)) >= NOMINAL - TOLERANCE


@pytest.mark.parametrize("probabilities", [(0.9, 0.1, 0.0, 0.0), (0.4, 0.25, 0.3, 0.05)])
def test_paired_newcombe_is_calibrated_at_many_games(probabilities):
    rng = np.random.default_rng(3)
    outcome = rng.choice(4, size=(REPLICATIONS, 1000), p=np.array(probabilities))
    upper, lower = (shares[outcome] for shares in OUTCOME_SHARES)
    covariance = (upper * lower).mean(axis=1) - upper.mean(axis=1) * lower.mean(axis=1)
    _, low, high = paired_proportion_interval(upper.mean(axis=1), lower.mean(axis=1), covariance, 1000)
    truth = probabilities[0] - probabilities[1]
    assert_calibrated((low <= truth) & (truth <= high))


@pytest.mark.parametrize(("games", "two_sided"), [(20, False), (1000, True)])
def test_paired_differences_of_wins_cover(games, two_sided):
    # One seat in a base run and a variant (the variants and readings tables): the variant wins where the base did
    # unless it loses 2 % of those games, and half of the games the base lost; so the base wins 90 % and the
    # difference is 0.1 * 0.5 - 0.9 * 0.02 = 0.032. The t interval of the per-game differences covered 0.75 at
    # 20 games (most replications saw no change at all: a zero-width interval); Newcombe's 0.999 there.
    rng = np.random.default_rng(games + 4)
    rep, game = (axis.reshape(-1) for axis in np.indices((REPLICATIONS, games)))
    base_won = (rng.random(rep.size) < 0.9).astype(float)
    draw = rng.random(rep.size)
    variant_won = np.where(base_won == 1.0, draw >= 0.02, draw < 0.5).astype(float)
    frame = {"rep": rep, "game": rep * games + game, "seat": 0, "kind": "luna", "level": 5, "score_total": 50}
    table = paired_differences(pd.DataFrame({**frame, "won": base_won}), pd.DataFrame({**frame, "won": variant_won}),
                               by="rep", metrics=["score_total", "won"])
    won = table[table["metric"] == "won"]
    assert len(won) == REPLICATIONS and (won["n"] == games).all()
    assert (won["ci_low"] >= -1.0).all() and (won["ci_high"] <= 1.0).all()
    hits = (won["ci_low"] <= 0.032) & (0.032 <= won["ci_high"])
    if two_sided:
        assert_calibrated(hits)
    else:
        assert hits.mean() >= NOMINAL - TOLERANCE


# ---------------------------------------------------------------- words next to the numbers

def _steps(*rows: tuple[int, float, float, float]) -> pd.DataFrame:
    return pd.DataFrame([{"level": level, "level_below": level - 1, "diff": diff, "diff_low": low, "diff_high": high}
                         for level, diff, low, high in rows])


def test_findings_called_a_step_without_interval_clear_of_zero():
    # study --games 1: one game per part, so every solo step's interval is NaN, and NaN < 0 and NaN <= 0 are both
    # false; Findings then said "Every level scores more than the one below, each step with a 95 % interval clear
    # of zero", even for a step of -1 point.
    sentences = findings_sentences(_steps((1, 3.0, math.nan, math.nan), (2, -1.0, math.nan, math.nan)))
    assert not any(sentence.startswith("Every level") for sentence in sentences)
    assert "The step from level 1 to 2 has no interval (one game): -1.0 points." in sentences
    table = findings_table(pd.DataFrame({"level": [0, 1], "mean": [40.0, 43.0], "low": math.nan, "high": math.nan}),
                           _steps((1, 3.0, math.nan, math.nan)), pd.DataFrame(columns=["opponent", "level"]))
    assert list(table["step from level below"]) == ["", "+3.0 (no interval)"]
    assert list(table["Luna alone: mean score"]) == ["40.0 (no interval)", "43.0 (no interval)"]


@pytest.mark.parametrize(("low", "high", "words"), [
    (0.5, 5.0, "Every level scores more than the one below"),
    (0.0, 5.0, "is not clearly positive"),  # an end at exactly zero does not exclude it
    (-0.1, 5.0, "is not clearly positive"),
    (-5.0, 0.0, "is not clearly positive"),
    (-5.0, -0.1, "scores less than level"),
])
def test_findings_words_follow_the_interval(low, high, words):
    sentences = findings_sentences(_steps((1, 0.5 * (low + high), low, high)))
    assert sum(words in sentence for sentence in sentences) == 1


# ---------------------------------------------------------------- Student-t intervals of means and mean differences

#: Two-sided 95 % quantiles of Student's t (scipy 1.17.1's t.ppf(0.975, df); the tables' 12.706, 4.303, 2.262 ...).
T95_TABLE = {1: 12.706204736174694, 2: 4.302652729749462, 3: 3.1824463052837078, 4: 2.7764451051977934,
             5: 2.5705818356363146, 9: 2.262157162798205, 19: 2.0930240544083087, 29: 2.045229642132703,
             99: 1.9842169515864174, 999: 1.9623414611334493, 19999: 1.960082611089815,
             # fractional (Welch's), and on both sides of the switch to the large-df expansion
             1.5: 6.016663104427929, 2.5: 3.5746548420036817, 2.8824: 3.2571764629084647, 7.3: 2.345066736547703,
             42.5: 2.0173785469217806, 150.5: 1.9758519492008906, 999.999: 1.9623390832043346,
             1000: 1.9623390808264083, 1234.5: 1.9618874833313453, 1e5: 1.9599877075346095,
             1e7: 1.959964221767205}


def test_t95_gives_the_two_sided_quantile():
    for df, quantile in T95_TABLE.items():
        assert t95(df) == pytest.approx(quantile, rel=0, abs=1e-12), df
    two, welch, three, many = t95(np.array([2.0, 2.9, 3.0, 19999.0]))
    assert (two, many) == pytest.approx((T95_TABLE[2], T95_TABLE[19999])) and three < welch < two
    assert t95(math.inf) == pytest.approx(Z95, abs=1e-15)
    assert all(math.isnan(value) for value in t95(np.array([0.0, 0.5, math.nan, -1.0])))
    grid = t95(np.array([[1.0, 1.0, 3.0], [np.nan, 3.0, 60.0]]))  # an array's shape kept, equal values alike
    assert grid.shape == (2, 3) and grid[0, 0] == grid[0, 1] and grid[0, 2] == grid[1, 1] and math.isnan(grid[1, 0])


def test_t95_falls_with_the_degrees_of_freedom():
    # a quantile that wobbled at the expansion's switch (df 1000) or between Newton's and the bisection's answers
    # would turn a wider interval narrower with fewer games
    dfs = np.concatenate([np.linspace(1.0, 30.0, 291), np.linspace(30.0, 2000.0, 1971), [1e4, 1e6, 1e9, math.inf]])
    quantiles = t95(dfs)
    assert np.all(np.diff(quantiles) <= 0.0) and quantiles[0] == pytest.approx(T95_TABLE[1], abs=1e-12)


@pytest.mark.parametrize("games", [2, 5, 10, 1000])
def test_paired_difference_covered_70_percent_at_two_games(games):
    # ± 1.96·sd/√n is a 95 % interval only for many games; readings, sensitivity and tune accept --games 2, where
    # it covered 72 % (5 games: 88 %, 10: 92 %). Student's t with n - 1 degrees of freedom is exact for normal
    # differences at every n. Correlated pairs, as common random numbers give.
    rng = np.random.default_rng(games)
    before = rng.normal(50.0, 10.0, (REPLICATIONS, games))
    after = 0.8 * before + rng.normal(0.0, 6.0, (REPLICATIONS, games)) + 11.0  # mean difference exactly 1
    hits = [low <= 1.0 <= high for _, _, low, high in map(paired_difference, after, before)]
    assert_calibrated(np.array(hits))


def _replicated_duels(rng: np.random.Generator, games: int, outcome_probabilities: tuple[float, ...]) -> pd.DataFrame:
    """LADDER_REPLICATIONS runs ``rep`` of ``games`` games of luna:4, luna:5 and one scripted seat.

    Scores: level 5 scores 3 points more on average, correlated with level 4 within a game. Outcomes: level 5
    wins, level 4 wins, the scripted seat wins, levels 4 and 5 tie (half each)."""
    shape = (LADDER_REPLICATIONS, games)
    shared = rng.normal(60.0, 10.0, shape)
    lower, upper = shared + rng.normal(0.0, 4.0, shape), shared + 3.0 + rng.normal(0.0, 4.0, shape)
    outcome = rng.choice(4, size=shape, p=np.array(outcome_probabilities))
    won_upper = np.array([1.0, 0.0, 0.0, 0.5])[outcome]
    won_lower = np.array([0.0, 1.0, 0.0, 0.5])[outcome]
    rep, game = (axis.reshape(-1) for axis in np.indices(shape))
    columns = []
    for seat, (kind, level, score, won) in enumerate([("luna", 4, lower, won_lower), ("luna", 5, upper, won_upper),
                                                      ("scripted", -1, shared, 1.0 - won_lower - won_upper)]):
        columns.append(pd.DataFrame({"rep": rep, "run": "r", "game": game, "seat": seat, "n_seats": 3, "kind": kind,
                                     "level": level, "score_total": score.reshape(-1), "won": won.reshape(-1)}))
    return pd.concat(columns, ignore_index=True)


@pytest.mark.slow
def test_level_ladder_paired_intervals_cover():
    # Both levels in the same games: paired score and win-rate differences (truths 3 points and 0.40 - 0.25).
    probabilities = (0.40, 0.25, 0.30, 0.05)
    seats = _replicated_duels(np.random.default_rng(17), 400, probabilities)
    ladder = level_ladder(seats, by="rep")
    assert len(ladder) == LADDER_REPLICATIONS and ladder["paired"].all()
    assert_calibrated((ladder["diff_low"] <= 3.0) & (3.0 <= ladder["diff_high"]), tolerance(LADDER_REPLICATIONS))
    truth = probabilities[0] - probabilities[1]
    assert_calibrated((ladder["win_diff_low"] <= truth) & (truth <= ladder["win_diff_high"]),
                      tolerance(LADDER_REPLICATIONS))


@pytest.mark.slow
def test_level_ladder_paired_win_rates_cover_with_few_games():
    # Level 5 wins 90 % of 20 games against level 4 and a scripted seat: the t interval of the per-game differences
    # of ``won`` the ladder gave before covered 0.88 here.
    seats = _replicated_duels(np.random.default_rng(19), 20, (0.9, 0.02, 0.08, 0.0))
    ladder = level_ladder(seats, by="rep")
    assert ladder["paired"].all()
    hits = (ladder["win_diff_low"] <= 0.88) & (0.88 <= ladder["win_diff_high"])
    assert hits.mean() >= NOMINAL - tolerance(LADDER_REPLICATIONS)


@pytest.mark.slow
def test_level_ladder_paired_intervals_cover_with_few_games():
    # Four games: 1.96 covered 0.86 here.
    seats = _replicated_duels(np.random.default_rng(18), 4, (0.4, 0.25, 0.30, 0.05))
    ladder = level_ladder(seats, by="rep")
    assert_calibrated((ladder["diff_low"] <= 3.0) & (3.0 <= ladder["diff_high"]), tolerance(LADDER_REPLICATIONS))


@pytest.mark.slow
@pytest.mark.parametrize(("games_upper", "games_lower"), [(6, 20), (300, 200)])
def test_level_ladder_independent_intervals_cover(games_upper, games_lower):
    # Each level from a run of its own (no shared game): difference of means with Welch's degrees of freedom,
    # the variances unequal (sd 12 against 4) and the noisier level the smaller sample, where 1.96 covers 0.89.
    rng = np.random.default_rng(games_upper)
    frames = []
    for run, level, games, mean, sd in (("a", 4, games_lower, 55.0, 4.0), ("b", 5, games_upper, 60.0, 12.0)):
        rep, game = (axis.reshape(-1) for axis in np.indices((LADDER_REPLICATIONS, games)))
        frames.append(pd.DataFrame({"rep": rep, "run": run, "game": game, "seat": 0, "n_seats": 1, "kind": "luna",
                                    "level": level, "won": 1.0, "score_total": rng.normal(mean, sd, rep.size)}))
    ladder = level_ladder(pd.concat(frames, ignore_index=True), by="rep")
    assert not ladder["paired"].any()
    assert_calibrated((ladder["diff_low"] <= 5.0) & (5.0 <= ladder["diff_high"]), tolerance(LADDER_REPLICATIONS))


@pytest.mark.parametrize("games", [12, 30, 200])
def test_paired_differences_cover(games):
    # Variant minus base over the same games and seats (the variants table), integer scores. Not fewer games: the
    # change takes 6 values, and t is only near exact for it from about ten games (6 games: 0.940 in 200,000
    # replications; 3 games: all three changes equal in 6 / 216 replications, a zero-width interval).
    rng = np.random.default_rng(games + 1)
    rep, game = (axis.reshape(-1) for axis in np.indices((REPLICATIONS, games)))
    base_score = rng.poisson(40.0, rep.size)
    change = rng.integers(-2, 4, rep.size)  # uniform on -2..3: mean 0.5
    frame = {"rep": rep, "game": rep * games + game, "seat": 0, "kind": "luna", "level": 5}
    base = pd.DataFrame({**frame, "score_total": base_score})
    variant = pd.DataFrame({**frame, "score_total": base_score + change})
    table = paired_differences(base, variant, by="rep", metrics="score_total")
    assert (table["n"] == games).all()
    assert_calibrated((table["ci_low"] <= 0.5) & (0.5 <= table["ci_high"]))


@pytest.mark.parametrize("games", [5, 500])
def test_mean_score_intervals_cover(games):
    # The Findings' "Luna alone: mean score" and the variant-scores figure: score_summary's mean and sem with
    # difference_interval of n - 1 degrees of freedom.
    rng = np.random.default_rng(games + 2)
    rep = np.repeat(np.arange(REPLICATIONS), games)
    seats = pd.DataFrame({"rep": rep, "kind": "luna", "score_total": rng.poisson(40.0, rep.size)})
    summary = score_summary(seats, by="rep", metrics="score_total")
    low, high = difference_interval(summary["mean"], summary["sem"], summary["n"] - 1)
    assert_calibrated((low <= 40.0) & (40.0 <= high))


def test_win_rates_with_ties_cover():
    # win_rates through its own grouping: two-seat games, 6 % ties counting half each.
    rng = np.random.default_rng(23)
    games = 300
    rep, game = (axis.reshape(-1) for axis in np.indices((REPLICATIONS, games)))
    won = rng.choice(np.array([0.0, 0.5, 1.0]), size=rep.size, p=[0.62, 0.06, 0.32])
    sides = ((0, "luna", won), (1, "scripted", 1 - won))
    seats = pd.concat([pd.DataFrame({"rep": rep, "game": rep * games + game, "seat": seat, "kind": kind, "won": value})
                       for seat, kind, value in sides], ignore_index=True)
    table = win_rates(seats, by="rep")
    truth = 0.32 + 0.5 * 0.06
    assert_calibrated((table["ci_low"] <= truth) & (truth <= table["ci_high"]))


def test_win_rates_pooling_two_seats_of_one_game_is_conservative():
    # Two scripted seats against Luna: win_rates(kind="scripted") counts both seats of a game as trials, though
    # they are not independent (at most one wins). Their wins per game sum to 1 - Luna's, whose variance
    # q (1 - q) never exceeds the 2 p (1 - p) the interval assumes (p = (1 - q) / 2): wide, never short.
    rng = np.random.default_rng(29)
    games = 250
    rep, game = (axis.reshape(-1) for axis in np.indices((REPLICATIONS, games)))
    winner = rng.choice(3, size=rep.size, p=[0.3, 0.3, 0.4])  # seat 0, seat 1 (scripted), seat 2 (Luna)
    seats = pd.concat([pd.DataFrame({"rep": rep, "game": rep * games + game, "seat": seat,
                                     "kind": "luna" if seat == 2 else "scripted", "won": (winner == seat) * 1.0})
                       for seat in range(3)], ignore_index=True)
    table = win_rates(seats, by="rep", kind="scripted")
    assert (table["games"] == 2 * games).all()
    assert np.mean((table["ci_low"] <= 0.3) & (0.3 <= table["ci_high"])) >= NOMINAL - TOLERANCE


def test_no_games_on_a_side_is_no_interval_not_a_zero_division():
    # a QA pass: newcombe_interval(0, 0, 1, 2) and duel_row of no games raised ZeroDivisionError
    from analysis.intervals import newcombe_interval
    from analysis.stats import duel_row

    assert all(math.isnan(value) for value in newcombe_interval(0, 0, 1, 2))
    assert all(math.isnan(value) for value in newcombe_interval(1, 2, 0, 0))
    row = duel_row(np.array([]), np.array([]), np.array([]))
    assert row["games"] == 0 and math.isnan(row["win_rate"]) and math.isnan(row["ci_low"])
