"""Whole batches in a game's faster lane: the matches of a batch that the lane plays go to it in
one call per rule set (:meth:`cribsim.game.FastLane.play_matches`), which plays every game of
every match, the match format included, and writes each match's line of the records file; the
summary sums of those matches are added here from the figures it returns, as arrays, a batch at
a time. Python handles a batch, not a match.

The lines are the bytes the one-match path writes (``json.dumps(MatchRecord.to_json())``), and
the sums the ones :meth:`.aggregate.Partial.add` would make of those records (a test holds both
to the one-match path). A batch takes this path where the run has no sequential test, no game
records, no opening (deal book, start positions) and no counting model, and for the rule sets
whose lane plays whole matches and gives every figure their summary columns read
(:meth:`~cribsim.game.FastLane.batch_fields`); every other match of the batch is played one by
one, as before, and its line goes in its place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .aggregate import ColumnSums, PairedSums, Partial, VariantShape, VariantSums

if TYPE_CHECKING:
    from ..game import FastLane, Ints, LaneMatches
    from ..records import Column
    from .schedule import Schedule

BIG = 1 << 20  # a figure past this is summed with Python's ints (its square could overflow int64 over a batch)


@dataclass(frozen=True)
class LanePart:
    """The matches of a batch one rule set's lane plays whole: their positions in the batch and
    their rows (variant, table, group, seating, the lineup entry at each side)."""

    variant: int
    positions: list[int]
    rows: Ints


@dataclass(frozen=True)
class LanePlayed:
    """A part played: each match's line (bytes, in the part's order)."""

    part: LanePart
    text: bytes  # every line, in the part's order
    ends: list[int]  # where each line ends in ``text``

    @property
    def lines(self) -> list[bytes]:
        return [self.text[a:b] for a, b in zip([0, *self.ends], self.ends)]


def ids_of(part: LanePart) -> list[str]:
    """Each match's id, in the part's order."""
    return [f"{v}.{t}.{g}.{s}" for v, t, g, s in part.rows[:, :4].tolist()]


@dataclass(frozen=True)
class Split:
    """A batch as the lanes take it: the parts they play whole, and the positions of the rest."""

    parts: list[LanePart]
    rest: list[int]


def takes_batches(ctx: dict[str, Any]) -> bool:
    """Whether a run's matches may be played a batch at a time: no sequential test (its
    outcomes are read from the records), no game record, no opening, no counting model."""
    record = ctx.get("record")
    return (ctx.get("fast", True) and not ctx.get("sprt") and (record is None or record.mode == "none")
            and not ctx.get("book") and not ctx.get("starts") and not any(e.miss_rate for e in ctx["lineup"]))


_PLAYABLE: dict[tuple[str, int], Any] = {}  # (config hash, variant) -> which (table, seating) the lane plays whole


def _playable(ctx: dict[str, Any], variant: int, lane: FastLane | None) -> Any:
    """For a variant, a boolean per (table, seating) of the schedule: its lane plays that match
    whole (None: none of them)."""
    key = (ctx["hash"], variant)
    if key not in _PLAYABLE:
        _PLAYABLE[key] = _playable_now(ctx, variant, lane)
    return _PLAYABLE[key]


def _playable_now(ctx: dict[str, Any], variant: int, lane: FastLane | None) -> Any:
    if lane is None:
        return None
    batch_fields = getattr(lane, "batch_fields", None)  # (a game's lane from before whole batches: none)
    fields = batch_fields() if batch_fields is not None else None
    shape: VariantShape = ctx["shapes"][variant]
    if fields is None or not all(_given(c, fields) for c in shape.columns):
        return None
    schedule: Schedule = ctx["schedule"]
    side_of = ctx["variants"][variant].side_of
    sides = schedule.sides_of(variant)  # (tables, seatings, sides)
    ok = np.zeros(sides.shape[:2], dtype=bool)
    for t in range(sides.shape[0]):
        for s in range(sides.shape[1]):
            ok[t, s] = lane.plays([int(sides[t, s, side]) for side in side_of])
    return ok if ok.any() else None


def _given(col: Column, fields: frozenset[str]) -> bool:
    """Whether the lane's figures hold what a summary column reads (a game's named figure it
    never counts is 0, as :func:`cribsim.records.getter` reads a missing one)."""
    paths = [col.field or "deals"] + ([col.denominator] if col.kind == "ratio" else [])
    return col.kind == "count" or all(p in fields or p.startswith("metrics.") for p in paths)


def split(ctx: dict[str, Any], places: Sequence[int], lane_for: Any) -> Split:
    """Which matches of a batch (``places`` in the schedule) the lanes play whole, by rule set
    (``lane_for(ctx, variant)``: the run's lane for it)."""
    if not takes_batches(ctx) or not len(places):
        return Split([], list(range(len(places))))
    schedule: Schedule = ctx["schedule"]
    at = np.asarray(places, dtype=np.int64)
    variants = schedule.variants_of(at)
    parts, rest = [], np.ones(len(at), dtype=bool)
    for v in np.unique(variants).tolist():
        ok = _playable(ctx, v, lane_for(ctx, v))
        if ok is None:
            continue
        mine = np.flatnonzero(variants == v)
        rows = schedule.rows(v, at[mine])
        taken = ok[rows[:, 1], rows[:, 3]]
        if taken.any():
            parts.append(LanePart(v, mine[taken].tolist(), rows[taken]))
            rest[mine[taken]] = False
    return Split(parts, np.flatnonzero(rest).tolist())


def play(ctx: dict[str, Any], part: LanePart, lane: FastLane, partial: Partial) -> LanePlayed:
    """A part played whole in its lane, its sums added to ``partial``."""
    out = lane.play_matches(ctx["seed"], ctx["schedule_seed"], part.rows)
    add_sums(partial, part, out)
    return LanePlayed(part, out.text, out.ends.tolist())


def add_sums(partial: Partial, part: LanePart, out: LaneMatches) -> None:
    """What :meth:`Partial.add` adds for each of the part's matches (none forfeited or failed), from
    the lane's arrays."""
    v, rows = part.variant, part.rows
    n = len(rows)
    partial.matches += n
    tables, counts = np.unique(rows[:, 1], return_counts=True)
    for t, c in zip(tables.tolist(), counts.tolist()):
        cell = partial.tables.setdefault((v, t), [0, 0])
        cell[0] += c
    shape = partial.shapes[v]
    sums = partial.variants[v]
    sides = rows[:, 4:]
    _add_pairs(sums, sides, _keys(out, shape.objective))
    _add_entries(sums, sides, out.winner)
    for col in shape.columns:
        column = sums.columns.get(col.header)
        if column is None:
            column = sums.columns[col.header] = ColumnSums()
        add_column(column, col, out.games, len(out.game_match))
    if shape.paired:
        _add_paired(sums, rows, out.winner, shape.per_group)


def _keys(out: LaneMatches, objective: int) -> list[Ints]:
    """Each side's ranking key (:func:`.aggregate.side_ranking`: won the match, game points, the
    last game's score by the objective) as three columns of arrays, by side."""
    k = out.game_points.shape[1]
    return [np.stack([out.winner == s, out.game_points[:, s], objective * out.last_scores[:, s]], axis=1)
            for s in range(k)]


def _compare(a: Ints, b: Ints) -> Ints:
    """Lexicographic comparison of two keys, match by match: 1, 0 or -1."""
    diff = np.sign(a - b)
    first = np.argmax(diff != 0, axis=1)
    out: Ints = diff[np.arange(len(diff)), first]
    return out


def _add_pairs(sums: VariantSums, sides: Ints, keys: list[Ints]) -> None:
    """The pair table: each pair of sides with different entries, the half-points of the lower entry."""
    k = sides.shape[1]
    for a in range(k):
        for b in range(a + 1, k):
            ea, eb = sides[:, a], sides[:, b]
            ha = 1 + _compare(keys[a], keys[b])  # 2: a ranked above b, 1 level, 0 below
            low_first = ea < eb
            lo, hi = np.where(low_first, ea, eb), np.where(low_first, eb, ea)
            h = np.where(low_first, ha, 2 - ha)
            live = ea != eb
            pairs = np.stack([lo[live], hi[live]], axis=1)
            if not len(pairs):
                continue
            found, inverse = np.unique(pairs, axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            halves = np.bincount(inverse, weights=h[live], minlength=len(found))
            many = np.bincount(inverse, minlength=len(found))
            for (x, y), hv, c in zip(found.tolist(), halves.tolist(), many.tolist()):
                cell = sums.pair.setdefault((x, y), [0, 0])
                cell[0] += int(hv)
                cell[1] += c


def _add_entries(sums: VariantSums, sides: Ints, winner: Ints) -> None:
    """Each entry's matches, wins and draws (two sides: a match with no winner)."""
    k = sides.shape[1]
    won = np.where(winner >= 0, sides[np.arange(len(sides)), np.maximum(winner, 0)], -1)
    drawn = (winner < 0) & (k == 2)
    for e in np.unique(sides).tolist():
        has = (sides == e).any(axis=1)
        row = sums.entries.setdefault(e, [0, 0, 0, 0])
        row[0] += int(has.sum())
        row[1] += int((has & (won == e)).sum())
        row[2] += int((has & drawn).sum())


def _add_paired(sums: VariantSums, rows: Ints, winner: Ints, per: int) -> None:
    """Each match's half-points for the lower entry of its table, into its table's paired sums."""
    sides = rows[:, 4:]
    first = sides.min(axis=1)
    won = sides[np.arange(len(sides)), np.maximum(winner, 0)]
    halves = np.where(winner < 0, 1, np.where(won == first, 2, 0))
    for t in np.unique(rows[:, 1]).tolist():
        mine = rows[:, 1] == t
        _add_groups(sums.paired.setdefault(t, PairedSums()), rows[mine, 2], halves[mine], per)


def _add_groups(ps: PairedSums, groups: Ints, halves: Ints, per: int) -> None:
    """A table's matches into its paired sums: the groups the batch holds whole at once (what
    :meth:`PairedSums.add` adds for them), the others match by match."""
    found, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    whole = (counts == per) & ~np.isin(found, list(ps.waiting))
    if whole.any():
        unit = np.bincount(inverse, weights=halves, minlength=len(found))[whole].astype(np.int64)
        squares = np.bincount(inverse, weights=halves * halves, minlength=len(found))[whole].astype(np.int64)
        ps.units += len(unit)
        ps.su += int(unit.sum())
        ps.suu += int(np.dot(unit, unit))
        if per == 2:
            for u, c in zip(*np.unique(unit, return_counts=True)):
                ps.penta[int(u)] += int(c)
        ps.matches += per * len(unit)
        ps.sm += int(unit.sum())
        ps.smm += int(squares.sum())
    for g, h in zip(groups[~whole[inverse]].tolist(), halves[~whole[inverse]].tolist()):
        ps.add(g, [h], per)


def add_column(sums: ColumnSums, col: Column, games: Mapping[str, Ints], n: int) -> None:
    """:meth:`ColumnSums.add_games` over a batch's games, from their figures by field path."""
    sums.n += n
    if col.kind == "count" or not n:
        return
    x = _values(games, col.field or "deals", n)
    if col.kind == "rate":
        sums.hits += int(np.count_nonzero(x if col.at_least is None else x >= col.at_least))
        return
    sums.sx += _dot(x, None)
    sums.sxx += _dot(x, x)
    if col.kind == "ratio":
        d = _values(games, col.denominator, n)
        sums.sd += _dot(d, None)
        sums.sdd += _dot(d, d)
        sums.sxd += _dot(x, d)


def _values(games: Mapping[str, Ints], path: str, n: int) -> Ints:
    got = games.get(path)
    return np.zeros(n, dtype=np.int64) if got is None else got  # (a named figure never counted: 0)


def _dot(x: Ints, y: Ints | None) -> int:
    """sum(x), or sum(x * y), exactly."""
    if int(np.abs(x).max(initial=0)) < BIG and (y is None or int(np.abs(y).max(initial=0)) < BIG):
        return int(x.sum()) if y is None else int(np.dot(x, y))
    if y is None:
        return sum(int(a) for a in x.tolist())
    return sum(int(a) * int(b) for a, b in zip(x.tolist(), y.tolist()))
