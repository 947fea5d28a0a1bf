"""Game-design metrics of a rule variant, from the records alone (``cribsim compare``,
``cribsim positions``).

Per game, from its trail (the scores by side at the start, after the play and after the show of
every deal, and at the end; Fives and Threes: after every hand) a side's *standing* is its
score minus its target (how far it has to go, negated; for a reversed objective, lowball, the
target minus its score), so sides with different targets (two against one) compare fairly and
the *leader* is the side with the highest standing, if only one has it:

- lead changes: how often the leader changes (a tie keeps the last leader);
- drama: the largest deficit the eventual winner came back from, max over the trail of (the
  leader's standing minus the winner's), 0 for a wire-to-wire win (Ludii's Drama);
- decided at: the share of the game's duration played before the winner took the lead for good,
  ``t(k) / t(end)`` with ``k`` the first point of the trail from which the winner leads at every
  later point, and ``t`` counted in deals (Ludii's DecisivenessMoves, in deals);
- margin: the winner's standing minus the runner-up's at the end (points);
- close: a margin below ``close`` points.

Per variant: each metric's mean with a 95% interval; the win rate of each seat counted from the
first dealer (seat 0 deals first) and the balance, 1 minus the largest gap between two seats'
win rates (interval by a bootstrap over games); duration in deals and in decisions; the skill
figure (the stronger entry's single-game win rate) and the number of games a match needs for
the stronger entry to win it with 95% probability."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..records import GameRecord, MatchRecord
from .stats import mean_ci, wilson

CLOSE = 10  # points: a game won by fewer is close (``--close``)


@dataclass(frozen=True)
class GameMetrics:
    """The metrics of one game (see the module doc)."""

    lead_changes: int
    drama: float
    decided_at: float
    margin: float
    deals: int
    decisions: int | None


def standings(scores: Sequence[int], targets: Sequence[float], objective: int) -> list[float]:
    """Each side's standing: score minus target (target minus score for a reversed objective)."""
    return [(s - t) * objective for s, t in zip(scores, targets)]


def leader(standing: Sequence[float]) -> int | None:
    """The side with the highest standing, or None for a tie at the top."""
    best = max(standing)
    top = [i for i, v in enumerate(standing) if v == best]
    return top[0] if len(top) == 1 else None


def game_metrics(trail: Sequence[Sequence[int]], winner: int, targets: Sequence[float], objective: int,
                 per_deal: int, deals: int = 0, decisions: int | None = None) -> GameMetrics:
    """The metrics of one game from its trail (at least the start and the end)."""
    stands = [standings(p, targets, objective) for p in trail]
    changes, last = 0, None
    drama = 0.0
    lost_at = -1  # the last point where the winner did not lead alone
    for i, s in enumerate(stands):
        lead = leader(s)
        if lead is not None:
            if last is not None and lead != last:
                changes += 1
            last = lead
        if lead != winner:
            lost_at = i
        drama = max(drama, max(s) - s[winner])
    end = len(trail) - 1
    decided = min(lost_at + 1, end) / end if end > 0 else 0.0
    final = stands[-1]
    runner_up = max(v for i, v in enumerate(final) if i != winner)
    return GameMetrics(changes, drama, decided, final[winner] - runner_up, deals or -(-end // per_deal), decisions)


def targets_of(game: GameRecord, info: dict[str, Any]) -> list[float]:
    """A game's targets by side: its own (two against one), else the rules' (from the manifest)."""
    if game.targets is not None:
        return [float(t) for t in game.targets]
    return [float(info["target"])] * len(game.scores)


def metrics_of(game: GameRecord, info: dict[str, Any]) -> GameMetrics:
    if game.trail is None or len(game.trail) < 2:
        raise ValueError("a game has no score trail")
    return game_metrics(game.trail, game.winner, targets_of(game, info), info["objective"],
                        info.get("checkpoints", 2), game.deals, game.decisions)


# ---- per variant ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """A figure with its 95% interval and the number of units it rests on."""

    value: float
    lo: float
    hi: float
    n: int

    def cell(self, digits: int = 3) -> str:
        if self.n == 0 or math.isnan(self.value):
            return "-"
        if math.isnan(self.lo) or math.isinf(self.hi):
            hi = "inf" if math.isinf(self.hi) else "nan"
            return f"{self.value:.{digits}f} [{self.lo:.{digits}f}, {hi}] ({self.n})"
        return f"{self.value:.{digits}f} [{self.lo:.{digits}f}, {self.hi:.{digits}f}] ({self.n})"


def mean_of(values: Sequence[float]) -> Estimate:
    m, lo, hi = mean_ci(values)
    return Estimate(m, lo, hi, len(values))


def rate_of(hits: float, n: int) -> Estimate:
    p, lo, hi = wilson(hits, n)
    return Estimate(p, lo, hi, n)


def seat_wins(games: Sequence[GameRecord], players: int) -> np.ndarray:
    """A games x seats array: 1 where the seat (counted from the first dealer) was on the
    winning side (or shared the win)."""
    out = np.zeros((len(games), players))
    for k, g in enumerate(games):
        won = set(g.shared) if g.shared is not None else {g.winner}
        for side in won:
            for seat in g.sides[side]:
                out[k, (seat - g.first_dealer) % players] = 1
    return out


def balance(wins: np.ndarray, resamples: int = 1000, seed: int = 12345) -> Estimate:
    """1 minus the largest gap between two seats' win rates, with a bootstrap interval over games
    (a fixed generator: the same records give the same interval)."""
    n = wins.shape[0]
    if n < 2:
        return Estimate(math.nan, math.nan, math.nan, n)
    rates = wins.mean(axis=0)
    value = 1 - float(rates.max() - rates.min())
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(resamples):
        r = wins[rng.integers(0, n, n)].mean(axis=0)
        boot.append(1 - float(r.max() - r.min()))
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return Estimate(value, float(lo), float(hi), n)


def majority_chance(p: float, n: int) -> float:
    """The chance of winning more than half of ``n`` (odd) games, each won with probability ``p``."""
    if p >= 1:
        return 1.0
    lp, lq = math.log(p), math.log(1 - p)
    lg = math.lgamma
    return sum(math.exp(lg(n + 1) - lg(k + 1) - lg(n - k + 1) + k * lp + (n - k) * lq)
               for k in range((n + 1) // 2, n + 1))


def games_to_win(p: float, target: float = 0.95, cap: int = 200_001) -> int | None:
    """The fewest games (odd) a match must have for a player who wins a single game with
    probability ``p`` to win the majority with probability ``target`` (exact binomial, by
    bisection); None when p <= 1/2 or more than ``cap`` would be needed."""
    if not p > 0.5 or majority_chance(p, cap) < target:
        return None
    lo, hi = 0, cap // 2  # n = 2m + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if majority_chance(p, 2 * mid + 1) >= target:
            hi = mid
        else:
            lo = mid + 1
    return 2 * lo + 1


def games_to_win_normal(p: float, variance: float, z: float = 1.6448536269514722) -> float:
    """The normal approximation of :func:`games_to_win`: ``n = (z sigma / (p - 1/2))^2``."""
    if not p > 0.5:
        return math.inf
    return (z * math.sqrt(variance) / (p - 0.5)) ** 2


def entry_game_wins(records: Sequence[MatchRecord]) -> dict[int, list[int]]:
    """Per lineup entry: 1/0 for every game it played, won or not (games of two sides)."""
    out: dict[int, list[int]] = {}
    for r in records:
        if r.forfeit is not None:
            continue
        for g in r.games:
            if len(g.sides) != len(r.sides):
                continue  # a game with its own sides (two against one)
            for side, entry in enumerate(r.sides):
                out.setdefault(entry, []).append(1 if side == g.winner else 0)
    return out


def skill(records: Sequence[MatchRecord]) -> tuple[int | None, Estimate]:
    """The stronger entry (by single-game win rate) and that rate, with its interval."""
    wins = entry_game_wins(records)
    if not wins:
        return None, Estimate(math.nan, math.nan, math.nan, 0)
    best = max(wins, key=lambda e: (sum(wins[e]) / len(wins[e]), -e))
    w = wins[best]
    return best, rate_of(sum(w), len(w))

