"""Counting: players who overlook points (the counting model of each lineup entry).

Each seat has a counting model (``miss_rate``, ``vigilance``) from its lineup entry. Every
scoring item a player claims in the play or the show (each fifteen, pair, run, flush, nobs, go,
31, last card; not his heels, not penalties) is overlooked with the seat's ``miss_rate``.
Overlooked points are lost, unless a variant's ``missed`` hook gives them to someone (an
opponent who notices, with their ``vigilance``). Draws come from the game's own addressed stream
(``rng.COUNTING``), so they do not disturb the deck or the strategies.

With every miss rate 0 the engine never builds this: perfect counters play exactly the
standard game (a test checks it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cribsim.rng import COUNTING, rng_at

from .events import PEG, Event

if TYPE_CHECKING:
    from .state import GameState


class Counting:
    """The counting of one game: who overlooks what, drawn from the game's counting stream."""

    def __init__(self, g: GameState, counters: Sequence[tuple[float, float]]) -> None:
        self.g = g
        self.counters = tuple(counters)  # per seat: (miss_rate, vigilance)
        self.random = rng_at(g.seed, *g.address, COUNTING).random

    def vigilance(self, seat: int) -> float:
        return self.counters[seat][1]

    def split(self, seat: int, items: Sequence[Any]) -> tuple[list[Any], int]:
        """(items claimed, points overlooked) of one scoring act; each miss is logged."""
        miss = self.counters[seat][0]
        claimed, missed = [], 0
        for it in items:
            if self.random() < miss:
                missed += it[1]
                self.g.events.append(Event(self.g.deal_no, seat, 0, "overlooked", it[0], it[2]))  # type: ignore[union-attr]
            else:
                claimed.append(it)
        return claimed, missed

    def overlooks(self, seat: int, points: int, source: int, reason: str, cards: Sequence[int]) -> bool:
        """Whether a single pegged score (a go, a last card) is overlooked; heels, penalties and
        points taken from others are never counted by the player, so never overlooked."""
        if source != PEG or points <= 0:
            return False
        if self.random() < self.counters[seat][0]:
            self.g.events.append(Event(self.g.deal_no, seat, 0, "overlooked", reason, tuple(cards)))  # type: ignore[union-attr]
            self.missed(seat, points)
            return True
        return False

    def missed(self, seat: int, points: int) -> None:
        hook = self.g.hooks.missed
        if hook is not None:
            hook(self.g, seat, points)
