"""Mergeable, exact partial summaries: what the summary tables need from any set of match records,
in memory that does not grow with the number of matches.

A :class:`Partial` holds counts and sums only: the pair table (half-points and matches for every
pair of entries), each entry's matches, wins, draws and forfeits, each summary column's sums
(games, hits, sum of x, of x squared, of x times the denominator...), and the paired-deal sums
of each table. Workers build one per batch; the driver (and ``cribsim report``, reading a
records file) merges them. Every sum is exact (integers, and a float that is not a whole
number as a :class:`fractions.Fraction`), so partials merged in any order, from batches of any
size, give the same numbers to the last bit, and the same tables as one pass over the records
in canonical order. What grows is only what the tables list one by one: the forfeits, and a
paired group whose other seating has not arrived yet.

:func:`tables` turns a merged partial into the summary tables (:mod:`.summary` formats them)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..records import Column, GameRecord, MatchRecord, getter
from . import stats
from .manifest import Manifest

Exact = int | Fraction  # a sum kept exactly
# what summing a record of the right shape but wrong contents can raise (a hand-edited or damaged
# file): the callers turn it into one line saying the records cannot be summarised
SUM_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError, OverflowError,
              StopIteration, RecursionError)


def _finite(x: Any) -> bool:
    return type(x) is int or not isinstance(x, float) or math.isfinite(x)


def exact(x: Any) -> Exact:
    """A record's number as an exact value: ints (and whole floats) as ints, any other float as
    the Fraction it is exactly."""
    if type(x) is int:
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return Fraction(x)


@dataclass(frozen=True)
class VariantShape:
    """What folding a variant's records needs from the manifest: its sides, whether lower
    scores rank higher (``objective`` -1), its summary columns, its matches per group and
    whether its deals are paired (the paired table, two sides only)."""

    sides: int
    objective: int
    columns: tuple[Column, ...]
    per_group: int
    paired: bool

    @classmethod
    def of(cls, manifest: Manifest) -> list[VariantShape]:
        return [cls(info.sides, info.objective, tuple(info.columns), manifest.per_group[v],
                    manifest.paired and info.sides == 2)
                for v, info in enumerate(manifest.variant_info)]


def side_ranking(rec: MatchRecord, k: int, objective: int = 1) -> list[int]:
    """Rank per side (0 best) for pairwise outcomes: the match winner first, then game points,
    then the last game's score (the lower the better when ``objective`` is -1); a forfeiting
    side last."""
    if rec.forfeit:
        bad = rec.forfeit.side
        if k == 2:
            return [0 if s != bad else 1 for s in range(k)]
        return [1 if s == bad else 0 for s in range(k)]
    last = list(rec.games[-1].scores) if rec.games else [0] * k
    if rec.games and len(rec.games[-1].sides) != k:  # a game's own sides (the match sides are seats)
        game_sides = rec.games[-1].sides
        last = [last[next(i for i, side in enumerate(game_sides) if s in side)] for s in range(k)]
    gp = rec.game_points or [0] * k
    keys = [(rec.winner == s, gp[s], objective * last[s]) for s in range(k)]
    return [sum(1 for o in keys if o > keys[s]) for s in range(k)]


def halves_of_first(rec: MatchRecord) -> int:
    """The table's first entry's score (the lower lineup index) in half-points: 2 won, 1 drawn,
    0 lost (a forfeit by it: lost; by the other: won)."""
    first = min(rec.sides)
    if rec.forfeit:
        return 0 if rec.forfeit.entry == first else 2
    if rec.winner < 0:
        return 1
    return 2 if rec.sides[rec.winner] == first else 0


ColumnPlan = tuple[str, Callable[[GameRecord], Any], Callable[[GameRecord], Any], float | None]


@lru_cache(maxsize=1024)
def _plan(col: Column) -> ColumnPlan:
    """A column as its kind, its field's and its denominator's getters, and its threshold."""
    return col.kind, getter(col.field or "deals"), getter(col.denominator), col.at_least


@dataclass
class ColumnSums:
    """A summary column's sums over games: ``n`` games, ``hits`` (rate), ``sx``/``sxx`` (mean,
    and the ratio's numerator), ``sd``/``sdd``/``sxd`` (the ratio's denominator)."""

    n: int = 0
    hits: int = 0
    nonfinite: int = 0  # values that are NaN or infinite: the cell is NaN (blank), as a mean over them is
    sx: Exact = 0
    sxx: Exact = 0
    sd: Exact = 0
    sdd: Exact = 0
    sxd: Exact = 0

    def add(self, col: Column, g: GameRecord) -> None:
        self.add_games(_plan(col), (g,))

    def add_games(self, plan: ColumnPlan, games: Sequence[GameRecord]) -> None:
        kind, fget, dget, at_least = plan
        self.n += len(games)
        if kind == "rate":
            for g in games:
                v = fget(g)
                self.hits += bool(v) if at_least is None else v >= at_least
        elif kind == "mean" or kind == "ratio":
            for g in games:
                xv, dv = fget(g), dget(g) if kind == "ratio" else 0
                if not (_finite(xv) and _finite(dv)):
                    self.nonfinite += 1
                    continue
                x = exact(xv)
                self.sx += x
                self.sxx += x * x
                if kind == "ratio":
                    d = exact(dv)
                    self.sd += d
                    self.sdd += d * d
                    self.sxd += x * d

    def merge(self, o: ColumnSums) -> None:
        self.n += o.n
        self.hits += o.hits
        self.nonfinite += o.nonfinite
        self.sx += o.sx
        self.sxx += o.sxx
        self.sd += o.sd
        self.sdd += o.sdd
        self.sxd += o.sxd

    def cell(self, col: Column) -> Any:
        """The column's cell, as :mod:`.stats` computes it from the values, but from the sums."""
        n = self.n
        if col.kind == "count":
            return n
        if col.kind == "rate":
            return (*stats.wilson(self.hits, n), n)
        if self.nonfinite and col.kind in ("mean", "ratio"):
            return (math.nan, math.nan, math.nan)
        if col.kind == "mean":
            return mean_interval(n, self.sx, self.sxx)
        if col.kind == "ratio":
            return ratio_interval(n, self.sx, self.sd, self.sxx, self.sdd, self.sxd)
        raise ValueError(f"unknown column kind {col.kind!r}")


def mean_interval(n: int, sx: Exact, sxx: Exact, scale: int = 1) -> tuple[float, float, float]:
    """(mean, lo, hi) of ``n`` values (each divided by ``scale``) from their exact sum and sum of
    squares: :func:`stats.mean_ci` without the values."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(Fraction(sx) / (n * scale))
    if n < 2:
        return (m, math.nan, math.nan)
    half = stats.Z95 * math.sqrt(float(variance(n, sx, sxx) / (scale * scale)) / n)
    return (m, m - half, m + half)


def variance(n: int, sx: Exact, sxx: Exact) -> Fraction:
    """The sample variance (n - 1 in the denominator), exactly."""
    return (Fraction(sxx) - Fraction(sx) * sx / n) / (n - 1)


def ratio_interval(n: int, sy: Exact, sx: Exact, syy: Exact, sxx: Exact, sxy: Exact) -> tuple[float, float, float]:
    """(R, lo, hi) for R = sum(y) / sum(x) by the delta method: :func:`stats.ratio_ci` from sums."""
    if n == 0 or sx == 0:
        return (math.nan, math.nan, math.nan)
    r = Fraction(sy) / sx
    if n < 2:
        return (float(r), math.nan, math.nan)
    resid = (syy - 2 * r * sxy + r * r * sxx) / (n - 1)
    half = stats.Z95 * math.sqrt(float(resid) / n) / float(Fraction(sx) / n)
    rf = float(r)
    return (rf, rf - half, rf + half)


@dataclass
class PairedSums:
    """One two-sided table's paired deals: complete groups (``units``), their half-point sums and
    sums of squares, the pentanomial counts, and the same for the matches in those groups; and
    the groups still waiting for a seating (``waiting``: group -> half-points of each match)."""

    units: int = 0
    su: int = 0
    suu: int = 0
    penta: list[int] = field(default_factory=lambda: [0] * 5)
    matches: int = 0
    sm: int = 0
    smm: int = 0
    waiting: dict[int, list[int]] = field(default_factory=dict)

    def add(self, group: int, halves: Sequence[int], per: int) -> None:
        got = self.waiting.pop(group, [])
        got.extend(halves)
        if len(got) < per:
            self.waiting[group] = got
            return
        u = sum(got)
        self.units += 1
        self.su += u
        self.suu += u * u
        if per == 2:
            self.penta[u] += 1
        self.matches += len(got)
        self.sm += u
        self.smm += sum(h * h for h in got)

    def merge(self, o: PairedSums, per: int) -> None:
        self.units += o.units
        self.su += o.su
        self.suu += o.suu
        self.penta = [a + b for a, b in zip(self.penta, o.penta)]
        self.matches += o.matches
        self.sm += o.sm
        self.smm += o.smm
        for g, halves in o.waiting.items():
            self.add(g, halves, per)

    def row(self, per: int) -> list[Any]:
        """pairs, the five counts (two seatings a group), the mean score per pair, the variance
        ratio and the effective games factor (:func:`stats.variance_ratio` from sums)."""
        counts: list[Any] = list(self.penta) if per == 2 else [""] * 5
        unit = mean_interval(self.units, self.su, self.suu, 2 * per)
        ratio = math.nan
        if self.units >= 2 and self.matches >= 2:
            vu = variance(self.units, self.su, self.suu) / (4 * per * per) / self.units
            vm = variance(self.matches, self.sm, self.smm) / 4 / self.matches
            ratio = float(vu / vm) if vm > 0 else math.nan
        return [self.units, *counts, unit, ratio, (1 / ratio) if ratio and ratio > 0 else math.nan]


@dataclass
class VariantSums:
    """One variant's sums: the pair table (entry i < j -> [i's half-points, matches]), each
    entry's [matches, wins, half-points drawn, forfeits], the games' column sums, the matches
    with a forfeit, the failed matches, and the paired tables."""

    pair: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    entries: dict[int, list[int]] = field(default_factory=dict)
    columns: dict[str, ColumnSums] = field(default_factory=dict)
    forfeited: int = 0
    failed: int = 0
    paired: dict[int, PairedSums] = field(default_factory=dict)

    def add(self, rec: MatchRecord, shape: VariantShape, plans: Sequence[tuple[str, ColumnPlan]]) -> None:
        k = shape.sides
        rank = side_ranking(rec, k, shape.objective)
        sides = rec.sides
        for a in range(k):
            for b in range(a + 1, k):
                ea, eb = sides[a], sides[b]
                if ea == eb:
                    continue
                ha = 2 if rank[a] < rank[b] else 0 if rank[a] > rank[b] else 1
                key, h = ((ea, eb), ha) if ea < eb else ((eb, ea), 2 - ha)
                cell = self.pair.setdefault(key, [0, 0])
                cell[0] += h
                cell[1] += 1
        won = sides[rec.winner] if rec.winner >= 0 else None
        drawn = rec.winner < 0 and not rec.forfeit and k == 2
        for e in set(sides):
            row = self.entries.setdefault(e, [0, 0, 0, 0])
            row[0] += 1
            row[1] += won == e
            row[2] += drawn
            row[3] += rec.forfeit is not None and rec.forfeit.entry == e
        self.forfeited += rec.forfeit is not None
        games = rec.games
        columns = self.columns
        for header, plan in plans:
            sums = columns.get(header)
            if sums is None:
                sums = columns[header] = ColumnSums()
            sums.add_games(plan, games)
        if shape.paired:
            self.paired.setdefault(rec.table, PairedSums()).add(rec.group, [halves_of_first(rec)], shape.per_group)

    def merge(self, o: VariantSums, shape: VariantShape) -> None:
        for key, (h, n) in o.pair.items():
            cell = self.pair.setdefault(key, [0, 0])
            cell[0] += h
            cell[1] += n
        for e, row in o.entries.items():
            mine = self.entries.setdefault(e, [0, 0, 0, 0])
            for i, x in enumerate(row):
                mine[i] += x
        for header, sums in o.columns.items():
            self.columns.setdefault(header, ColumnSums()).merge(sums)
        self.forfeited += o.forfeited
        self.failed += o.failed
        for t, ps in o.paired.items():
            self.paired.setdefault(t, PairedSums()).merge(ps, shape.per_group)


@dataclass(frozen=True)
class ForfeitRow:
    """A forfeit (or a failed match) the tables list: the match's key (for the canonical order),
    its id, the entry charged (None: a failed match), the kind and the message."""

    key: tuple[int, int, int, int]
    match: str
    entry: int | None
    kind: str
    error: str
    failed: bool


class Partial:
    """The exact, mergeable sums of a set of match records (see the module's docstring)."""

    def __init__(self, shapes: Sequence[VariantShape]) -> None:
        self.shapes = list(shapes)
        self.variants = [VariantSums() for _ in shapes]
        self.forfeits: list[ForfeitRow] = []
        self.matches = 0
        self.tables: dict[tuple[int, int], list[int]] = {}  # (variant, table) -> [matches, failed]

    @classmethod
    def of(cls, manifest: Manifest, records: Iterable[MatchRecord] = ()) -> Partial:
        p = cls(VariantShape.of(manifest))
        p.add_all(records)
        return p

    def add_all(self, records: Iterable[MatchRecord]) -> None:
        for r in records:
            self.add(r)

    def add(self, rec: MatchRecord) -> None:
        self.matches += 1
        counts = self.tables.setdefault((rec.variant, rec.table), [0, 0])
        counts[0] += 1
        counts[1] += rec.failed
        v = self.variants[rec.variant]
        f = rec.forfeit
        if f is not None:
            self.forfeits.append(ForfeitRow(rec.key, rec.id, f.entry, f.kind, f.error, rec.failed))
        if rec.failed:
            v.failed += 1
            return
        v.add(rec, self.shapes[rec.variant], self._plans()[rec.variant])

    def merge(self, other: Partial) -> Partial:
        self.matches += other.matches
        for key, (n, failed) in other.tables.items():
            counts = self.tables.setdefault(key, [0, 0])
            counts[0] += n
            counts[1] += failed
        for v, shape, o in zip(self.variants, self.shapes, other.variants):
            v.merge(o, shape)
        self.forfeits.extend(other.forfeits)
        return self

    def _plans(self) -> list[list[tuple[str, ColumnPlan]]]:
        """Each variant's columns with their getters, made once per process (not pickled)."""
        plans = self.__dict__.get("_column_plans")
        if plans is None:
            plans = self.__dict__["_column_plans"] = [[(c.header, _plan(c)) for c in s.columns] for s in self.shapes]
        return plans

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_column_plans"}

    @property
    def failed(self) -> int:
        return sum(v.failed for v in self.variants)

    def first_failure(self) -> str:
        """The failed match first in the canonical order, and why ("" if none)."""
        failed = [f for f in self.forfeits if f.failed]
        if not failed:
            return ""
        f = min(failed, key=lambda f: f.key)
        return f"match {f.match}: {f.error}"
