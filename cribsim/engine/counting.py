"""Counting and muggins (V-MUGGINS): players who overlook points.

Each seat has a counting model (``miss_rate``, ``vigilance``) from its lineup entry. Every
scoring item a player claims in the play or the show (each fifteen, pair, run, flush, nobs,
go, 31, last card; not his heels, not penalties) is overlooked with the seat's ``miss_rate``.
Without muggins, overlooked points are lost. With muggins, each opponent in turn order from the
claimer's left notices the miss with its ``vigilance``; the first who does pegs all the missed
points of that claim ("muggins"). Draws come from the game's own addressed stream
(``rng.COUNTING``), so they do not disturb the deck or the strategies.

With every miss rate 0 the engine never builds this state: perfect counters play exactly the
standard game (a test checks it)."""

from ..rng import COUNTING, rng_at
from .events import OTHER, PEG, Event
from .state import GameState


class CountingState(GameState):
    """A game state whose claims pass through the players' counting (the logged path is used,
    since misses are per scoring item)."""

    def __init__(self, rules, strategies, seed, address, dealer, events, counters):
        super().__init__(rules, strategies, seed, address, dealer, events)
        self.counters = counters  # per seat: (miss_rate, vigilance)
        self.muggins = rules.muggins
        self.rnd = rng_at(seed, *self.address, COUNTING).random

    def award_items(self, seat, items, source):
        miss = self.counters[seat][0]
        claimed, missed = [], 0
        for it in items:
            if self.rnd() < miss:
                missed += it[1]
                self.events.append(Event(self.deal_no, seat, 0, "overlooked", it[0], it[2]))
            else:
                claimed.append(it)
        if claimed:
            super().award_items(seat, claimed, source)
        if missed:
            self._muggins(seat, missed)

    def award(self, seat, points, source, reason="", cards=()):
        if source != PEG or points <= 0:  # heels, penalties and muggins itself are not counted
            return super().award(seat, points, source, reason, cards)
        if self.rnd() < self.counters[seat][0]:  # a go or last card overlooked
            self.events.append(Event(self.deal_no, seat, 0, "overlooked", reason, tuple(cards)))
            self._muggins(seat, points)
            return None
        return super().award(seat, points, source, reason, cards)

    def _muggins(self, seat, missed):
        if not self.muggins:
            return
        side_of = self.side_of
        for i in range(1, self.n):
            s = (seat + i) % self.n
            if side_of[s] != side_of[seat] and self.rnd() < self.counters[s][1]:
                GameState.award(self, s, missed, OTHER, "muggins")
                return

