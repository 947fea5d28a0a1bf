"""The schedule: which matches to play, who sits where, and which deals (by seed address).

A *table* is a tuple of lineup entries, one per side. Each table is played under a set of
*seatings* (permutations of its entries over the sides: all of them up to 4 sides, the cyclic
rotations for 5), so no entry keeps a seat advantage. With ``paired``, a *group* is one deal
sequence played under every seating (for two sides: the same decks with the seats swapped);
otherwise every match has its own deals and the seatings rotate.

Deal keys depend on (seed, table, group) but not on the variant, so variants are compared on the
same deals where their rules allow (common random numbers)."""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import TYPE_CHECKING, Any

from ..records import MatchRecord
from ..rng import derive

if TYPE_CHECKING:
    from ..game import Ints


@dataclass(frozen=True)
class MatchSpec:
    """One match to play: its id (``variant.table.group.seating``), the variant index, the
    table index, the group (deal sequence) and seating indexes, the lineup entry at each side,
    and the key addressing every deck of the match."""

    id: str
    variant: int
    table: int
    group: int
    seating: int
    sides: tuple[int, ...]
    key: int
    place: int = -1  # its :meth:`Schedule.index` (-1: not known), so that no one parses the id back


def seatings(k: int) -> list[tuple[int, ...]]:
    """Permutations of k table entries over k sides."""
    if k <= 4:
        return list(permutations(range(k)))
    return [tuple((i + r) % k for i in range(k)) for r in range(k)]


def groups_for(exp: Any, v: int) -> tuple[int, int]:
    """Groups per table of variant v, and matches per group."""
    per = len(seatings(len(exp.variants[v].sides))) if exp.paired else 1
    return math.ceil(exp.matches / per), per


_ID = re.compile(r"(?:0|[1-9][0-9]{0,17})(?:\.(?:0|[1-9][0-9]{0,17})){3}")  # as the schedule writes ids


@dataclass(frozen=True)
class Slot:
    """What a match id stands for: the variant, table, group and seating, and the lineup entry
    at each side."""

    variant: int
    table: int
    group: int
    seating: int
    sides: tuple[int, ...]


class Schedule:
    """The matches of an experiment, from what its manifest says (the tables of each variant,
    the groups per table, paired or not), without rules code: :meth:`order` in the canonical
    order, and :meth:`slot` to check one match id in constant time and memory."""

    def __init__(self, tables: Sequence[Sequence[Sequence[int]]], matches: int, paired: bool) -> None:
        self.tables = [[tuple(t) for t in ts] for ts in tables]
        self.paired = paired
        self.seats = [seatings(len(ts[0])) if ts else [] for ts in self.tables]
        self.groups = [math.ceil(matches / (len(s) if paired else 1)) if s else 0 for s in self.seats]
        self.per = [(len(s) if paired else 1) if s else 0 for s in self.seats]  # matches a group
        self.base = [0]  # where each variant's matches start in :meth:`index`'s numbering
        for v, ts in enumerate(self.tables):
            self.base.append(self.base[-1] + len(ts) * self.groups[v] * self.per[v])

    @property
    def size(self) -> int:
        """How many matches the schedule has."""
        return self.base[-1]

    def index(self, slot: Slot) -> int:
        """A number for every match, 0 to ``size - 1`` (by variant, table, group and seating; not
        the playing order): where a bitmap of the schedule keeps it."""
        v = slot.variant
        return self.base[v] + (slot.table * self.groups[v] + slot.group) * self.per[v] + \
            (slot.seating if self.paired else 0)

    def order(self) -> Iterator[int]:
        """The :meth:`index` of every match in the playing order, as bare numbers (what the
        driver hands out, without making a slot or spec): by group, then variant, table and
        seating, so that all tables progress together and a prefix of groups is complete early."""
        for g in range(max(self.groups, default=0)):
            for v, ts in enumerate(self.tables):
                groups = self.groups[v]
                if g < groups:
                    per, base = self.per[v], self.base[v]
                    for t in range(len(ts)):
                        first = base + (t * groups + g) * per
                        yield from range(first, first + per)

    def places_at(self, positions: Ints) -> Ints:
        """The :meth:`index` of the matches at ``positions`` in the playing order (an array: the
        ``k``-th value of :meth:`order` for each ``k``), computed as arrays, no match made."""
        import numpy as np

        pos = np.asarray(positions, dtype=np.int64)
        out = np.empty(len(pos), dtype=np.int64)
        for first, end, g0, length, starts, base, rows in self._segments():
            mine = (pos >= first) & (pos < end)
            if not mine.any():
                continue
            q, r = np.divmod(pos[mine] - first, length)
            j = np.searchsorted(starts, r, side="right") - 1
            g = g0 + q
            per, groups, t = rows[0][j], rows[1][j], rows[2][j]
            out[mine] = base[j] + (t * groups + g) * per + (r - starts[j])
        return out

    def _segments(self) -> list[tuple[int, int, int, int, Ints, Ints, tuple[Ints, Ints, Ints]]]:
        """The playing order as segments of groups that hold the same variants (made once): for
        each, its first position, its end, its first group, the matches a group, and for each
        table of a group (by variant, then table) where its matches start in the group, where its
        variant's places start, its matches a group, its variant's groups and its index."""
        import numpy as np

        made = self.__dict__.get("_segs")
        if made is not None:
            return made  # type: ignore[no-any-return]
        segs = []
        position, g0 = 0, 0
        for g1 in sorted({g for g in self.groups if g > 0}):
            starts, base, per, groups, tables = [], [], [], [], []
            at = 0
            for v, ts in enumerate(self.tables):
                if self.groups[v] >= g1:
                    for t in range(len(ts)):
                        starts.append(at)
                        base.append(self.base[v])
                        per.append(self.per[v])
                        groups.append(self.groups[v])
                        tables.append(t)
                        at += self.per[v]
            if at:
                end = position + at * (g1 - g0)
                segs.append((position, end, g0, at, np.array(starts, dtype=np.int64), np.array(base, dtype=np.int64),
                             (np.array(per, dtype=np.int64), np.array(groups, dtype=np.int64),
                              np.array(tables, dtype=np.int64))))
                position = end
            g0 = g1
        self.__dict__["_segs"] = segs
        return segs

    def at(self, place: int) -> Slot:
        """The slot whose :meth:`index` is ``place`` (0 <= place < size)."""
        v = bisect_right(self.base, place) - 1
        q, s = divmod(place - self.base[v], self.per[v])
        t, g = divmod(q, self.groups[v])
        return self._slot(v, t, g, s if self.paired else g % len(self.seats[v]))

    def spec(self, place: int, seed: int) -> MatchSpec:
        """The match at ``place``, ready to play: the deal key depends on the table and group,
        not the variant or seating."""
        slot = self.at(place)
        key = derive(seed, slot.table, slot.group) >> 1  # fits a signed 64-bit address
        return MatchSpec(f"{slot.variant}.{slot.table}.{slot.group}.{slot.seating}", slot.variant, slot.table,
                         slot.group, slot.seating, slot.sides, key, place)

    def variants_of(self, places: Ints) -> Ints:
        """The variant of each place (an array of :meth:`index` values)."""
        import numpy as np

        return np.searchsorted(np.asarray(self.base), places, side="right") - 1

    def rows(self, v: int, places: Ints) -> Ints:
        """A row a place of variant ``v`` (as :meth:`at` reads it): the variant, table, group,
        seating and the lineup entry at each side, as an array (a batch's matches at once)."""
        import numpy as np

        q, s = np.divmod(places - self.base[v], self.per[v])
        t, g = np.divmod(q, self.groups[v])
        seating = s if self.paired else g % len(self.seats[v])
        sides = self.sides_of(v)[t, seating]
        return np.column_stack([np.full_like(t, v), t, g, seating, sides])

    def sides_of(self, v: int) -> Ints:
        """The lineup entry at each side of variant ``v``'s tables under each seating (an array:
        table, seating, side), made once."""
        import numpy as np

        made: dict[int, Ints] = self.__dict__.setdefault("_sides", {})
        if v not in made:
            made[v] = np.array([[[table[i] for i in seating] for seating in self.seats[v]] for table in self.tables[v]],
                               dtype=np.int64).reshape(len(self.tables[v]), len(self.seats[v]), -1)
        return made[v]

    def _slot(self, v: int, t: int, g: int, s: int) -> Slot:
        table = self.tables[v][t]
        return Slot(v, t, g, s, tuple(table[i] for i in self.seats[v][s]))

    def slot(self, match_id: str) -> Slot | None:
        """The slot of ``match_id`` (``variant.table.group.seating``, as the schedule writes it),
        or None if the schedule has no such match."""
        if not _ID.fullmatch(match_id):
            return None
        v, t, g, s = (int(p) for p in match_id.split("."))
        if not (v < len(self.tables) and t < len(self.tables[v]) and g < self.groups[v]
                and s < len(self.seats[v])) or (not self.paired and s != g % len(self.seats[v])):
            return None
        if len(self.tables[v][t]) != len(self.seats[v][s]):  # (a hand-edited manifest)
            return None
        return self._slot(v, t, g, s)

    def holds(self, record: MatchRecord) -> bool:
        """Whether ``record`` is a match of this schedule, with the sides its id stands for."""
        return self.place(record) is not None

    def place(self, record: MatchRecord) -> int | None:
        """The :meth:`index` of ``record``'s match, if it is one of this schedule with the sides
        its id stands for (else None)."""
        slot = self.slot(record.id)
        if slot is None or slot != Slot(record.variant, record.table, record.group, record.seating,
                                        tuple(record.sides)):
            return None
        return self.index(slot)


def build_schedule(exp: Any) -> list[MatchSpec]:
    """Every MatchSpec of the experiment, in the canonical order (:meth:`Schedule.order`)."""
    return list(specs_of(Schedule(exp.tables, exp.matches, exp.paired), exp.seed))


def specs_of(schedule: Schedule, seed: int) -> Iterator[MatchSpec]:
    """The MatchSpecs of ``schedule`` in the canonical order, made as they are taken (memory
    does not grow with the schedule)."""
    return (schedule.spec(place, seed) for place in schedule.order())


class Seen:
    """One bit per match of a schedule (1/8 byte a match): which matches are on disk."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.bits = bytearray((schedule.size + 7) // 8)
        self.count = 0

    def index(self, match_id: str) -> int | None:
        slot = self.schedule.slot(match_id)
        return None if slot is None else self.schedule.index(slot)

    def has(self, i: int) -> bool:
        return bool(self.bits[i >> 3] & (1 << (i & 7)))

    def add(self, i: int) -> bool:
        """Mark match ``i``; False if it was marked already."""
        byte, bit = i >> 3, 1 << (i & 7)
        if self.bits[byte] & bit:
            return False
        self.bits[byte] |= bit
        self.count += 1
        return True

    def discard(self, i: int) -> None:
        """Unmark match ``i`` (if marked)."""
        if self.has(i):
            self.bits[i >> 3] &= ~(1 << (i & 7)) & 0xFF
            self.count -= 1

    def marked(self, places: Ints) -> Ints:
        """Whether each of ``places`` (an array) is marked (a boolean array)."""
        import numpy as np

        bits = np.frombuffer(self.bits, dtype=np.uint8)
        out: Ints = ((bits[places >> 3] >> (places & 7).astype(np.uint8)) & 1).astype(bool)
        return out

    def add_all(self, places: Ints) -> None:
        """Mark ``places`` (an array of distinct places, none marked yet), as arrays."""
        import numpy as np

        bits = np.frombuffer(self.bits, dtype=np.uint8)
        np.bitwise_or.at(bits, places >> 3, np.left_shift(1, places & 7).astype(np.uint8))
        self.count += len(places)

    def has_id(self, match_id: str) -> bool:
        i = self.index(match_id)
        return i is not None and self.has(i)


@dataclass(frozen=True)
class Span:
    """A batch's matches as runs of the playing order (:meth:`Schedule.order`): each run is its
    first position there and how many matches follow it. What the driver hands out and takes
    back: a batch costs it a few numbers, whatever its size (:meth:`Schedule.places_at` turns a
    span into places, as arrays)."""

    runs: tuple[tuple[int, int], ...]

    def __len__(self) -> int:
        return sum(c for _, c in self.runs)

    def positions(self) -> Ints:
        import numpy as np

        if len(self.runs) == 1:
            a, c = self.runs[0]
            return np.arange(a, a + c, dtype=np.int64)
        if not self.runs:
            return np.zeros(0, dtype=np.int64)
        runs = np.array(self.runs, dtype=np.int64)
        starts, counts = runs[:, 0], runs[:, 1]
        before = np.cumsum(counts) - counts  # (each run's first index in the span)
        out: Ints = np.repeat(starts - before, counts) + np.arange(int(counts.sum()), dtype=np.int64)
        return out


def span_of(positions: Ints) -> Span:
    """The runs of ascending ``positions`` (an array)."""
    import numpy as np

    if not len(positions):
        return Span(())
    breaks = np.flatnonzero(np.diff(positions) != 1) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [len(positions)]])
    return Span(tuple((int(positions[a]), int(b - a)) for a, b in zip(starts.tolist(), ends.tolist())))


class Pending:
    """The matches still to play, as runs of the playing order (:meth:`Schedule.order`): those
    ``seen`` does not hold and ``keep`` (if given: a place's slot) keeps. A fresh run's batches
    are counted off the order, a match costing nothing; a resumed one's are found by looking at
    the bits of a chunk of the order at a time, as arrays. ``len`` is how many are left, at most.
    The specs are made where the matches are played (:meth:`Schedule.spec`)."""

    CHUNK = 1 << 16  # positions of the order looked at a time at most, when some are to be skipped

    def __init__(self, schedule: Schedule, seen: Seen, keep: Callable[[Slot], bool] | None = None) -> None:
        self.schedule, self.seen, self.keep = schedule, seen, keep
        self.cursor = 0  # the positions before it are taken or skipped
        self.size = schedule.size
        self.left = schedule.size - seen.count
        self.every = seen.count == 0 and keep is None  # nothing to skip

    def __len__(self) -> int:
        return max(self.left, 1) if self else 0

    def __bool__(self) -> bool:
        if not self.every:
            self._skip()
        return self.cursor < self.size

    def popleft(self) -> int:
        span = self.take(1)
        assert len(span) == 1, "popleft from no pending match"
        return int(self.schedule.places_at(span.positions())[0])

    def take(self, n: int, wanted: Callable[[int], bool] | None = None) -> Span:
        """Up to ``n`` pending matches at once, as a span; ``wanted`` (a place's): those it keeps
        too (the others are passed over, as taken)."""
        if n < 1:
            return Span(())
        if self.every and wanted is None:
            c = min(n, self.size - self.cursor)
            if c <= 0:
                return Span(())
            span = Span(((self.cursor, c),))
            self.cursor += c
            self.left -= c
            return span
        import numpy as np

        got: list[Ints] = []
        need = n
        while need and self.cursor < self.size:
            end = min(self.size, self.cursor + min(self.CHUNK, max(16, 2 * need)))
            pos = np.arange(self.cursor, end, dtype=np.int64)
            ok = self._pending(pos, wanted)
            idx = np.flatnonzero(ok)[:need]
            if len(idx) < need:
                self.cursor = end
            else:
                self.cursor = int(pos[idx[-1]]) + 1
            got.append(pos[idx])
            need -= len(idx)
        taken = np.concatenate(got) if got else np.zeros(0, dtype=np.int64)
        self.left -= len(taken)
        return span_of(taken)

    def _pending(self, pos: Ints, wanted: Callable[[int], bool] | None) -> Ints:
        """Which of ``pos`` (positions of the order) are still to play (a boolean array)."""
        import numpy as np

        places = self.schedule.places_at(pos)
        ok = ~self.seen.marked(places)
        if self.keep is not None or wanted is not None:
            keep, at = self.keep, self.schedule.at
            for i in np.flatnonzero(ok).tolist():  # (a run with a sequential test: small by design)
                p = int(places[i])
                ok[i] = (keep is None or keep(at(p))) and (wanted is None or wanted(p))
        return ok

    def _skip(self) -> None:
        """Move past the positions that are not to play (on disk, or not kept)."""
        import numpy as np

        step = 1  # (the cursor is pending, mostly: looked at alone first, then chunks growing)
        while self.cursor < self.size:
            end = min(self.size, self.cursor + step)
            pos = np.arange(self.cursor, end, dtype=np.int64)
            first = np.flatnonzero(self._pending(pos, None))
            if len(first):
                self.cursor = int(pos[first[0]])
                return
            self.cursor = end
            step = min(4 * step, self.CHUNK)
