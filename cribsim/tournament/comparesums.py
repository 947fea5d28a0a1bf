"""The mergeable sums behind ``cribsim compare``: what its tables need from a run's records, read
as a stream, in memory that does not grow with the number of matches.

Every figure of ``compare`` is a ratio of sums over *clusters*, a table's group of one variant
(the same deals under every seating). A cluster's games are held while its matches arrive (the
playing order keeps a group's matches together, so only the groups in flight are held); once
all of them are in, its per-game figures are summed (``math.fsum``: the same float whatever the
order) and folded into exact sums (:class:`RatioSums`), and its games are dropped. The paired
differences match each game with its twin in another variant (same table, group, seating and
game number): a finished cluster also waits for its twins' cluster, which arrives close by in
the playing order, and the pair is folded into its own sums. Sums kept exactly are the same to
the last bit in any reading order, so the tables do not depend on which worker wrote first.

Balance between three or more seats takes its interval from a bootstrap over clusters. A
bootstrap that draws clusters with replacement needs them all at hand; this one gives each
cluster a Poisson(1) weight in every resample (the Poisson bootstrap: Hanley and MacGibbon 2006;
Chamandy et al. 2012), drawn from a hash of the cluster and the resample, and keeps each
resample's weighted win sums, integers, so the same clusters give the same interval in any
order, from 1,000 sums per resample column."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..records import GameRecord, MatchRecord
from .aggregate import Exact, exact, ratio_interval
from .manifest import VariantInfo
from .metrics import Estimate, GameMetrics, metrics_of, won_by

# a per-game figure: how to read it from a game and its metrics, given the close margin
Figure = Callable[[GameRecord, GameMetrics, float], float]
GameKey = tuple[int, int]  # (seating, game number): a game's twin in another variant has the same
RESAMPLES = 1000
SEED = 12345


@dataclass
class RatioSums:
    """Exact sums over clusters of (y, x): R = sum(y) / sum(x) with the delta-method interval
    (:func:`~.aggregate.ratio_interval`), ``n`` the clusters."""

    n: int = 0
    sy: Exact = 0
    sx: Exact = 0
    syy: Exact = 0
    sxx: Exact = 0
    sxy: Exact = 0

    def add(self, y: float, x: int) -> None:
        ey = exact(y)
        self.n += 1
        self.sy += ey
        self.sx += x
        self.syy += ey * ey
        self.sxx += x * x
        self.sxy += ey * x

    def estimate(self) -> Estimate:
        r, lo, hi = ratio_interval(self.n, self.sy, self.sx, self.syy, self.sxx, self.sxy)
        return Estimate(r, lo, hi, int(self.sx))


_MASK = (1 << 64) - 1
_POISSON_CDF = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(20)])


def _mix(x: int) -> int:
    """splitmix64's finaliser: a well-spread 64-bit hash of ``x``."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def poisson_weights(table: int, group: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """The cluster's Poisson(1) weight in each resample, from a hash of (seed, table, group,
    resample) alone: the same in any process and any reading order."""
    z = np.uint64(_mix(_mix(_mix(seed) ^ table) ^ group)) + np.arange(resamples, dtype=np.uint64) * np.uint64(
        0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return np.searchsorted(_POISSON_CDF, u, side="right").astype(np.int64)


@dataclass
class Bootstrap:
    """Each resample's weighted win sums by column and its weighted games (integers)."""

    wins: np.ndarray = field(default_factory=lambda: np.zeros((RESAMPLES, 0), dtype=np.int64))
    games: np.ndarray = field(default_factory=lambda: np.zeros(RESAMPLES, dtype=np.int64))

    def add(self, table: int, group: int, wins: Sequence[int], games: int) -> None:
        if len(wins) > self.wins.shape[1]:
            self.wins = np.pad(self.wins, ((0, 0), (0, len(wins) - self.wins.shape[1])))
        w = poisson_weights(table, group)
        self.wins[:, :len(wins)] += np.outer(w, np.asarray(wins, dtype=np.int64))
        self.games += w * games

    def interval(self, value: float) -> tuple[float, float]:
        """The basic bootstrap's interval of 1 minus the largest gap between two columns' rates."""
        kept = self.games > 0  # (a resample that drew no cluster at all says nothing)
        rates = self.wins[kept] / self.games[kept, None]
        boot = 1 - (rates.max(axis=1) - rates.min(axis=1))
        q_lo, q_hi = np.quantile(boot, [0.025, 0.975])
        return max(0.0, 2 * value - float(q_hi)), min(1.0, 2 * value - float(q_lo))


@dataclass
class Cluster:
    """A group of one variant and table while its matches arrive: the records in (forfeits
    too) and each game's figures by its key."""

    matches: int = 0
    games: dict[GameKey, tuple[float, ...]] = field(default_factory=dict)
    seats: list[int] = field(default_factory=list)  # wins by seat counted from the first dealer
    roles: list[int] = field(default_factory=list)  # wins by a game's own side (two against one)
    skill: dict[int, list[int]] = field(default_factory=dict)  # entry -> [games won, games]
    played: int = 0


def _tally(counts: list[int], k: int) -> None:
    if k >= len(counts):
        counts.extend([0] * (k + 1 - len(counts)))
    counts[k] += 1


class VariantFold:
    """One variant's column of ``compare``, from its records one at a time."""

    def __init__(self, info: VariantInfo, per_group: int, figures: Sequence[Figure], close: float) -> None:
        self.info, self.per_group, self.read, self.close = info, per_group, tuple(figures), close
        self.open: dict[tuple[int, int], Cluster] = {}
        self.figures = [RatioSums() for _ in figures]
        self.seats: list[RatioSums] = []
        self.roles: list[RatioSums] = []
        self.skill: dict[int, RatioSums] = {}
        self.bootstrap = Bootstrap()
        self.games = 0
        self.own = False  # a game with its own sides was seen (two against one)
        self.trails = 0
        self.untrailed = 0

    def add(self, rec: MatchRecord) -> tuple[int, int, Cluster] | None:
        """Take a record; returns its cluster (table, group, figures) once the last of its
        matches is in."""
        key = (rec.table, rec.group)
        c = self.open.setdefault(key, Cluster())
        c.matches += 1
        if rec.forfeit is None:
            for k, g in enumerate(rec.games):
                self._game(c, rec, k, g)
        if c.matches < self.per_group:
            return None
        del self.open[key]
        self.fold(key, c)
        return (*key, c)

    def _game(self, c: Cluster, rec: MatchRecord, k: int, g: GameRecord) -> None:
        if not g.trail:
            self.untrailed += 1
            return
        self.trails += 1
        m = metrics_of(g, self.info)
        c.games[(rec.seating, k)] = tuple(read(g, m, self.close) for read in self.read)
        c.played += 1
        won = won_by(g)
        players = int(self.info.players or len(g.scores))
        for side in won:
            for seat in g.sides[side]:
                _tally(c.seats, (seat - g.first_dealer) % players)
            _tally(c.roles, side)
        c.seats.extend([0] * (players - len(c.seats)))
        c.roles.extend([0] * (len(g.sides) - len(c.roles)))
        self.own = self.own or g.targets is not None
        if len(g.sides) == len(rec.sides):  # (not a game with its own sides)
            for side, entry in enumerate(rec.sides):
                cell = c.skill.setdefault(entry, [0, 0])
                cell[0] += side in won
                cell[1] += 1

    def fold(self, key: tuple[int, int], c: Cluster) -> None:
        """Add a cluster's sums (its games are dropped by the caller)."""
        for i, sums in enumerate(self.figures):
            values = [f[i] for f in c.games.values() if not math.isnan(f[i])]
            if values:
                sums.add(math.fsum(values), len(values))
        if not c.played:
            return
        self.games += c.played
        for cols, wins in ((self.seats, c.seats), (self.roles, c.roles)):
            cols.extend(RatioSums() for _ in range(len(wins) - len(cols)))
            for sums, w in zip(cols, wins):
                sums.add(w, c.played)
        if not self.own and len(c.seats) > 2:
            self.bootstrap.add(*key, c.seats, c.played)
        for entry, (won, n) in c.skill.items():
            self.skill.setdefault(entry, RatioSums()).add(won, n)

    def finish(self) -> list[tuple[int, int, Cluster]]:
        """Fold the clusters still open (matches that never arrived) and hand them back."""
        left = sorted(self.open.items())
        self.open = {}
        for key, c in left:
            self.fold(key, c)
        return [(*key, c) for key, c in left]

    def balance(self) -> Estimate | None:
        """1 minus the largest gap between two seats' (own sides': roles') win rates; two: the
        interval from the first one's, more: the Poisson bootstrap's."""
        if not self.games:
            return None
        cols = self.roles if self.own else self.seats
        if self.games < 2:
            return Estimate(math.nan, math.nan, math.nan, self.games)
        rates = [float(s.sy) / self.games for s in cols]
        value = 1 - (max(rates) - min(rates))
        if len(cols) == 2:
            r = cols[0].estimate()
            ends = [abs(2 * r.lo - 1), abs(2 * r.hi - 1)]
            hi = 1.0 if r.lo <= 0.5 <= r.hi else 1 - min(ends)
            return Estimate(value, max(0.0, 1 - max(ends)), hi, self.games)
        lo, hi = self.bootstrap.interval(value)
        return Estimate(value, lo, hi, self.games)

    def best(self) -> tuple[int | None, Estimate]:
        """The stronger lineup entry by single-game win rate and that rate (see :func:`.metrics.skill`)."""
        if not self.skill:
            return None, Estimate(math.nan, math.nan, math.nan, 0)
        rate = {e: float(s.sy) / float(s.sx) for e, s in self.skill.items()}
        best = max(rate, key=lambda e: (rate[e], -e))
        return best, self.skill[best].estimate()


class PairFold:
    """The paired differences of ``other`` minus ``base`` on every figure: per cluster, the sum
    over the games both played on the same deals (figures that are NaN in either left out)."""

    def __init__(self, figures: int) -> None:
        self.sums = [RatioSums() for _ in range(figures)]
        self.games = [0] * figures

    def add(self, base: Cluster, other: Cluster) -> None:
        both = [(a, other.games[k]) for k, a in base.games.items() if k in other.games]
        for i, sums in enumerate(self.sums):
            diffs = [b[i] - a[i] for a, b in both if not (math.isnan(a[i]) or math.isnan(b[i]))]
            if diffs:
                sums.add(math.fsum(diffs), len(diffs))
                self.games[i] += len(diffs)

    def estimate(self, i: int) -> Estimate | None:
        return self.sums[i].estimate() if self.games[i] > 1 else None
