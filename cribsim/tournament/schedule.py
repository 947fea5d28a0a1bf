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
from dataclasses import dataclass
from itertools import permutations
from typing import Any

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


def build_schedule(exp: Any) -> list[MatchSpec]:
    """Every MatchSpec of the experiment, in the canonical order: by group, then variant, table
    and seating, so that all tables progress together and a prefix of groups is complete early."""
    plans = []
    for v, rules in enumerate(exp.variants):
        groups, _ = groups_for(exp, v)
        plans.append((v, groups, seatings(len(rules.sides))))
    max_groups = max(p[1] for p in plans)
    specs = []
    for g in range(max_groups):
        for v, groups, seats in plans:
            if g >= groups:
                continue
            for t, table in enumerate(exp.tables[v]):
                key = derive(exp.seed, t, g) >> 1  # fits a signed 64-bit address
                chosen = range(len(seats)) if exp.paired else [g % len(seats)]
                for s in chosen:
                    sides = tuple(table[i] for i in seats[s])
                    specs.append(MatchSpec(f"{v}.{t}.{g}.{s}", v, t, g, s, sides, key))
    return specs
