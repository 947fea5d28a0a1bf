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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from ..records import MatchRecord
from ..rng import derive


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
    the groups per table, paired or not), without rules code: :meth:`slots` in the canonical
    order, and :meth:`slot` to check one match id in constant time and memory."""

    def __init__(self, tables: Sequence[Sequence[Sequence[int]]], matches: int, paired: bool) -> None:
        self.tables = [[tuple(t) for t in ts] for ts in tables]
        self.paired = paired
        self.seats = [seatings(len(ts[0])) if ts else [] for ts in self.tables]
        self.groups = [math.ceil(matches / (len(s) if paired else 1)) if s else 0 for s in self.seats]

    def slots(self) -> Iterator[Slot]:
        """By group, then variant, table and seating, so that all tables progress together and a
        prefix of groups is complete early."""
        for g in range(max(self.groups, default=0)):
            for v, ts in enumerate(self.tables):
                if g < self.groups[v]:
                    for t in range(len(ts)):
                        chosen = range(len(self.seats[v])) if self.paired else [g % len(self.seats[v])]
                        for s in chosen:
                            yield self._slot(v, t, g, s)

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
        slot = self.slot(record.id)
        return slot is not None and slot == Slot(record.variant, record.table, record.group, record.seating,
                                                 tuple(record.sides))


def build_schedule(exp: Any) -> list[MatchSpec]:
    """Every MatchSpec of the experiment, in the canonical order (:meth:`Schedule.slots`); the
    deal key depends on the table and group, not the variant or seating."""
    specs = []
    for slot in Schedule(exp.tables, exp.matches, exp.paired).slots():
        key = derive(exp.seed, slot.table, slot.group) >> 1  # fits a signed 64-bit address
        specs.append(MatchSpec(f"{slot.variant}.{slot.table}.{slot.group}.{slot.seating}", slot.variant, slot.table,
                               slot.group, slot.seating, slot.sides, key))
    return specs
