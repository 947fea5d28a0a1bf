"""Statistics: Wilson intervals, means and ratios with intervals, Bradley-Terry Elo, the GSPRT.

Pure functions on plain numbers, checked against hand-worked values in the tests."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

Z95 = 1.959963984540054
ELO_PER_NAT = 400 / math.log(10)


def wilson(score: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """(p, lo, hi) for ``score`` successes out of ``n`` (draws count a half)."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = score / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    lo = 0.0 if score <= 0 else min(p, max(0.0, centre - half))
    hi = 1.0 if score >= n else max(p, min(1.0, centre + half))
    return (p, lo, hi)


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, lo, hi) by the normal approximation; nan interval for fewer than 2 values."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(values) / n
    if n < 2:
        return (m, math.nan, math.nan)
    var = sum((x - m) ** 2 for x in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return (m, m - half, m + half)


def ratio_ci(ys: Sequence[float], xs: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(R, lo, hi) for R = sum(y) / sum(x), e.g. points per deal from per-game totals; the
    standard error by the delta method (the usual ratio-estimator variance)."""
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    if n == 0 or sx == 0:
        return (math.nan, math.nan, math.nan)
    r = sy / sx
    if n < 2:
        return (r, math.nan, math.nan)
    xbar = sx / n
    resid = sum((y - r * x) ** 2 for x, y in zip(xs, ys)) / (n - 1)
    half = z * math.sqrt(resid / n) / xbar
    return (r, r - half, r + half)


def elo_to_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def bradley_terry(k: int, results: Mapping[tuple[int, int], tuple[float, float]], iters: int = 10000,
                  tol: float = 1e-12) -> dict[str, Any]:
    """Elo ratings (mean 0) and their standard errors from pairwise results.

    ``results`` maps (i, j) with i < j to (score_i, n): entry i scored ``score_i`` (wins plus
    half draws) in ``n`` games against j. Fitted by the MM algorithm (Hunter 2004); standard
    errors from the inverse Fisher information under the sum-zero constraint. If an entry won or
    lost every game the maximum-likelihood ratings are infinite; then every pairing gets one
    virtual draw (reported by ``prior`` in the result)."""
    wins = np.zeros((k, k))
    for (i, j), (s, n) in results.items():
        wins[i, j] += s
        wins[j, i] += n - s
    games = wins + wins.T
    total = wins.sum(axis=1)
    played = games.sum(axis=1)
    prior = bool(np.any((total <= 0) & (played > 0)) or np.any((total >= played) & (played > 0)))
    if prior:
        wins = wins + 0.5 * (games > 0)
        games = wins + wins.T
        total = wins.sum(axis=1)
    p = np.ones(k)
    for _ in range(iters):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), 1.0)
        new = new / math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    w = games * (p[:, None] * p[None, :]) / (p[:, None] + p[None, :]) ** 2
    info = np.diag(w.sum(axis=1)) - w
    cov = np.linalg.pinv(info)  # the pseudo-inverse is the covariance under sum(theta) = 0
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    return {"elo": [float(x) for x in theta * ELO_PER_NAT], "se": [float(x) for x in se * ELO_PER_NAT],
            "prior": prior}


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def gsprt(units: Iterable[float], mu0: float, mu1: float, alpha: float, beta: float,
          min_units: int = 8) -> dict[str, Any]:
    """Sequential test of H0: mean = mu0 against H1: mean = mu1 on a stream of unit values
    (one per game, or per group of paired games), with the normal (generalised) SPRT:
    LLR_n = n (mu1 - mu0) (2 xbar - mu0 - mu1) / (2 var). Checked after every unit from
    ``min_units`` on. Returns decision ('H0', 'H1' or None), the units used and the LLR."""
    lo, hi = sprt_bounds(alpha, beta)
    n = 0
    s = ss = 0.0
    llr = 0.0
    for x in units:
        n += 1
        s += x
        ss += x * x
        if n < min_units:
            continue
        mean = s / n
        var = (ss - n * mean * mean) / (n - 1)
        if var <= 1e-12:
            continue
        llr = n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * var)
        if llr >= hi:
            return {"decision": "H1", "units": n, "llr": llr, "lower": lo, "upper": hi}
        if llr <= lo:
            return {"decision": "H0", "units": n, "llr": llr, "lower": lo, "upper": hi}
    return {"decision": None, "units": n, "llr": llr, "lower": lo, "upper": hi}


PENTA = (0.0, 0.5, 1.0, 1.5, 2.0)


def pentanomial(pair_scores: Iterable[float]) -> list[int]:
    """Counts of paired-match totals 0, 0.5, 1, 1.5, 2 (LL, LD, DD or WL, WD, WW)."""
    counts = [0] * 5
    for x in pair_scores:
        counts[int(round(x * 2))] += 1
    return counts


def variance_ratio(unit_scores: Sequence[float], match_scores: Sequence[float]) -> float:
    """Variance of the mean score estimated from paired units, divided by the variance that
    independent matches would have had (below 1 means pairing helped)."""
    nu, nm = len(unit_scores), len(match_scores)
    if nu < 2 or nm < 2:
        return math.nan
    mu = sum(unit_scores) / nu
    vu = sum((x - mu) ** 2 for x in unit_scores) / (nu - 1) / nu
    mm = sum(match_scores) / nm
    vm = sum((x - mm) ** 2 for x in match_scores) / (nm - 1) / nm
    return vu / vm if vm > 0 else math.nan
