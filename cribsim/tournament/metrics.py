"""Game-design metrics of a rule variant, from the records alone (``cribsim compare``,
``cribsim positions``).

Per game, from its trail (the scores by side at the start, after the play and after the show of
every deal, and at the end; Fives and Threes: after every hand) a side's *standing* is how far
it is from its target, negated (for a reversed objective, lowball, not negated), in points of
the game's largest target (so sides with different targets, two against one, compare fairly;
with equal targets it is plain points), and the *leader* is the side with the highest standing,
if only one has it. With continued play the trail ends when the first place is taken (the
winner's game is over; the others play on for places):

- lead changes: how often the leader changes (a tie keeps the last leader);
- drama: the largest deficit the eventual winner came back from, max over the trail of (the
  leader's standing minus the winner's), 0 for a wire-to-wire win (Ludii's Drama);
- decided at: the share of the game's duration played before the winner took the lead for good,
  ``t(k) / t(end)`` with ``k`` the first point of the trail from which the winner leads at every
  later point (1 if it does not lead alone at the end, a shared win), ``t`` in deals;
- margin: the winner's standing minus the runner-up's at the end (points);
- close: a margin below ``close`` points.

Per variant every figure is a ratio of sums over clusters of games that share their deals (a
table's group: the same decks under every seating), with the delta-method interval of a ratio
estimator, so the correlation between the seatings of one deal sequence is counted."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..records import GameRecord
from .manifest import VariantInfo

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
    """Each side's standing: (score - target) in points of the largest target (target - score
    for a reversed objective)."""
    big = max(targets)
    return [(s - t) * objective * big / t for s, t in zip(scores, targets)]


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


def targets_of(game: GameRecord, info: VariantInfo) -> list[float]:
    """A game's targets by side: its own (two against one), else the rules' (from the manifest)."""
    if game.targets is not None:
        return [float(t) for t in game.targets]
    if info.target is None:
        raise ValueError("the manifest has no target (written by an older cribsim)")
    return [float(info.target)] * len(game.scores)


def decided_trail(game: GameRecord) -> list[list[int]]:
    """The trail up to the moment the game was decided: with continued play (R-MATCH-5), when
    the first place was taken (its recorded scores end the trail), else the whole trail."""
    trail = game.trail or []
    if game.first_scores is None:
        return trail
    first = list(game.first_scores)
    for i, point in enumerate(trail):
        if all(a >= b for a, b in zip(point, first)):
            return [*trail[:i], first]
    return trail


def metrics_of(game: GameRecord, info: VariantInfo) -> GameMetrics:
    if game.trail is None or len(game.trail) < 2:
        raise ValueError("a game has no score trail")
    return game_metrics(decided_trail(game), game.winner, targets_of(game, info), info.objective,
                        info.checkpoints, game.deals, game.decisions)


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


def won_by(game: GameRecord) -> set[int]:
    """The sides that won the game, or shared the win."""
    return set(game.shared) if game.shared is not None else {game.winner}


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
