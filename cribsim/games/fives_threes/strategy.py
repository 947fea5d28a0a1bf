"""The Fives and Threes strategy protocol and helpers a strategy may use.

A strategy subclasses :class:`TileStrategy` and implements ``play(obs)``, returning one of
``obs.legal`` ((tile, end) pairs; see ``engine.Observation``). The engine lays forced moves
itself, so ``play`` is only asked when there is a choice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from cribsim.strategy import Strategy

from .engine import Observation, cancelled, lay
from .tiles import HAS, N_TILES

if TYPE_CHECKING:
    from .rules import DominoRules

BUILTIN = {
    "random": "strategies.fives_threes.random_play:RandomTiles",
    "greedy": "strategies.fives_threes.greedy:GreedyTiles",
    "defensive": "strategies.fives_threes.defensive:DefensiveTiles",
    "mc": "strategies.fives_threes.mc:SearchTiles",
    "adaptive": "strategies.fives_threes.adaptive:AdaptiveTiles",
}


class TileStrategy(Strategy):
    name = "tiles"
    game = "fives_threes"
    supports = frozenset({"lay"})

    def discard(self, obs: Observation) -> NoReturn:  # not a decision of this game
        raise NotImplementedError

    def play(self, obs: Observation) -> tuple[int, int]:
        raise NotImplementedError


def layout(obs: Observation) -> tuple[list[int], list[bool], int]:
    """(ends, dbl, laid) as mutable lists for ``engine.lay``; laid is 0, 1 or 2 (2: many)."""
    if obs.ends is None:
        return [0, 0], [False, False], 0
    e0, d0, e1, d1 = obs.ends
    return [e0, e1], [d0, d1], min(len(obs.played), 2)


def end_count(ends: Sequence[int], dbl: Sequence[bool]) -> int:
    return ends[0] * (1 + dbl[0]) + ends[1] * (1 + dbl[1])


def outcome(rules: DominoRules, score: int, points: int, is_lead: bool) -> tuple[int, bool]:
    """(points that count, wins) for a scoring event of ``points`` by a side on ``score``
    (F-WIN-1: an event passing the target is cancelled whole under the exact finish)."""
    new = score + points
    if cancelled(rules, new, is_lead):
        return 0, False
    return points, points > 0 and new >= rules.target


def immediate(obs: Observation, move: tuple[int, int]) -> tuple[int, bool, list[int], list[bool]]:
    """(points the move scores now, wins, new ends, new dbl): the placement, plus the domino
    point when it takes the last tile of the last member of the side, through ``outcome``."""
    ends, dbl, laid = layout(obs)
    total = lay(ends, dbl, laid, move)
    pts = obs.rules.points_table[total]
    if len(obs.hand) == 1 and obs.rules.domino_point:
        mates = obs.rules.sides[obs.side]
        if all(obs.counts[s] == 0 for s in mates if s != obs.seat):
            pts += 1
    got, wins = outcome(obs.rules, obs.scores[obs.side], pts, laid == 0)
    return got, wins, ends, dbl


def unseen(obs: Observation) -> list[int]:
    """Tiles neither in this hand nor on the table: the other hands and the sleeping tiles."""
    seen = set(obs.hand)
    seen.update(t for _, t, _ in obs.played)
    return [t for t in range(N_TILES) if t not in seen]


def excluded(obs: Observation, seat: int) -> set[int]:
    """Tiles ``seat`` cannot hold: any showing a pip it knocked on (it held none then, and
    tiles only leave a hand)."""
    out: set[int] = set()
    for s, p0, p1 in obs.knocks:
        if s == seat:
            out |= HAS[p0] | HAS[p1]
    return out


def next_seat(obs: Observation, seat: int) -> int:
    """The next seat clockwise still holding tiles (this one's own count taken as after laying)."""
    n = obs.players
    for i in range(1, n + 1):
        s = (seat + i) % n
        if s != obs.seat and obs.counts[s] > 0:
            return s
    return obs.seat
