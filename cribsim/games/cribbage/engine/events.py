"""Events: every point scored (and, when a log is kept, every action) with its reason."""

from __future__ import annotations

from typing import NamedTuple

# sources of points (indexes into the per-role tallies kept in bulk runs)
PEG, HAND, CRIB, HEELS, OTHER = range(5)
SOURCES = ("peg", "hand", "crib", "heels", "other")


class Event(NamedTuple):
    """One thing that happened in a deal.

    ``source`` is one of SOURCES for points, or an action: 'cut', 'deal', 'discard',
    'starter', 'lay', 'go', 'reset', 'show', 'place', 'overlooked', or a variant's own.
    ``reason`` says why in words ('fifteen', 'pair', 'run', 'go', 'last card', 'thirty-one',
    'his heels', 'flush', 'nobs'). Scores equal the sum of ``points``."""

    deal: int
    seat: int
    points: int
    source: str
    reason: str
    cards: tuple[int, ...] = ()
    count: int | None = None  # type: ignore[assignment]  # (shadows tuple.count: the running count)
