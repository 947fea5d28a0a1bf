"""Statistics checked against hand-worked values."""

import math
import random

import pytest

from cribsim.tournament import stats

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)


def test_wilson_hand_worked():
    # 75 of 100, z = 1.96: centre (0.75 + 1.9208/100) / 1.038415 = 0.740752;
    # half = 1.96 * sqrt(0.001875 + 0.0000960) / 1.038415 = 0.083797 -> [0.65696, 0.82455]
    p, lo, hi = stats.wilson(75, 100)
    assert p == 0.75
    assert lo == pytest.approx(0.656955, abs=1e-6) and hi == pytest.approx(0.824548, abs=1e-6)
    # 0 of 10: [0, z^2 / (n + z^2)] = [0, 3.8415 / 13.8415] = [0, 0.27754]
    assert stats.wilson(0, 10)[1:] == pytest.approx((0.0, 0.277533), abs=1e-6)
    assert math.isnan(stats.wilson(0, 0)[0])


def test_mean_and_ratio_intervals():
    m, lo, hi = stats.mean_ci([1, 2, 3, 4])
    # sd = sqrt(5/3) = 1.290994; se = 0.645497; half = 1.959964 * 0.645497 = 1.265151
    assert (m, lo, hi) == pytest.approx((2.5, 1.234849, 3.765151), abs=1e-6)
    # R = 60/11; residuals y - R x: 10-10.909, 20-21.818, 30-27.273 -> var 6.2603/2 ...
    r, lo, hi = stats.ratio_ci([10, 20, 30], [2, 4, 5])
    assert r == pytest.approx(60 / 11)
    resid = sum((y - r * x) ** 2 for x, y in zip([2, 4, 5], [10, 20, 30])) / 2
    half = 1.959964 * math.sqrt(resid / 3) / (11 / 3)
    assert (lo, hi) == pytest.approx((r - half, r + half), abs=1e-5)


def test_bradley_terry_two_entries_hand_worked():
    # 75 wins of 100: strength ratio 3, Elo gap 400 log10(3) = 190.849, mean 0 -> +-95.424.
    # Fisher information of the log-strength gap: n p q = 100 * 0.75 * 0.25 = 18.75, so
    # se(gap) = 1/sqrt(18.75) = 0.23094 nats = 40.118 Elo; each rating is half the gap: 20.059.
    bt = stats.bradley_terry(2, {(0, 1): (75, 100)})
    assert bt["elo"] == pytest.approx([95.424, -95.424], abs=1e-3)
    assert bt["se"] == pytest.approx([20.059, 20.059], abs=1e-3)
    assert not bt["prior"]


def test_bradley_terry_three_entries_consistent():
    # generated from exact strengths 1 : 2 : 4 with expected scores: the fit recovers them
    p = [1, 2, 4]
    res = {(i, j): (1000 * p[i] / (p[i] + p[j]), 1000) for i in range(3) for j in range(i + 1, 3)}
    bt = stats.bradley_terry(3, res)
    step = 400 * math.log10(2)
    assert bt["elo"] == pytest.approx([-step, 0, step], abs=1e-6)


def test_bradley_terry_perfect_record_uses_a_prior():
    bt = stats.bradley_terry(2, {(0, 1): (10, 10)})
    assert bt["prior"] and bt["elo"][0] > 0 and math.isfinite(bt["elo"][0])


def test_elo_score_round_trip():
    assert stats.elo_to_score(0) == 0.5
    assert stats.score_to_elo(stats.elo_to_score(123.4)) == pytest.approx(123.4)


def test_sprt_bounds():
    lo, hi = stats.sprt_bounds(0.05, 0.05)
    assert (lo, hi) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))


def test_sprt_identical_strategies_accepts_h0_at_nominal_rate():
    """Simulated runs of two identical players (p = 0.5, no draws): H1 (elo1 = 20) is accepted
    in about alpha = 5% of runs or fewer; every run decides."""
    rng = random.Random(12)
    s0, s1 = stats.elo_to_score(0), stats.elo_to_score(20)
    h1 = undecided = 0
    runs = 300
    for _ in range(runs):
        res = stats.gsprt((1.0 if rng.random() < 0.5 else 0.0 for _ in range(200000)), s0, s1, 0.05, 0.05)
        h1 += res["decision"] == "H1"
        undecided += res["decision"] is None
    assert undecided == 0
    assert h1 / runs <= 0.08  # nominal 0.05; binomial sd over 300 runs is 0.0126


def test_sprt_detects_a_real_difference():
    rng = random.Random(13)
    s0, s1 = stats.elo_to_score(0), stats.elo_to_score(20)
    p = stats.elo_to_score(60)
    decisions = [stats.gsprt((1.0 if rng.random() < p else 0.0 for _ in range(200000)), s0, s1, 0.05, 0.05)["decision"]
                 for _ in range(50)]
    assert decisions.count("H1") >= 48


def test_pentanomial_and_variance_ratio():
    assert stats.pentanomial([0, 0.5, 1, 1, 2, 1.5]) == [1, 1, 2, 1, 1]
    # perfectly anti-correlated twins: pair averages constant -> ratio 0
    assert stats.variance_ratio([0.5, 0.5, 0.5], [1, 0, 0, 1, 1, 0]) == 0.0
