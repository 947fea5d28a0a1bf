"""defensive: points now, minus the expected best reply it hands the next opponent.

The reply is the expected best over the tiles that player may hold (consistent with their
knocks: a seat that knocked holds no tile showing either end it knocked on). Doubles are kept
for scoring ends: a double laid for nothing costs half a point."""

from __future__ import annotations

from cribsim.games.fives_threes.engine import Observation, lay, legal_moves
from cribsim.games.fives_threes.strategy import TileStrategy, excluded, immediate, next_seat, outcome, unseen
from cribsim.games.fives_threes.tiles import DOUBLE

DOUBLE_KEEP = 0.5


class DefensiveTiles(TileStrategy):
    name = "defensive"

    def play(self, obs: Observation) -> tuple[int, int]:
        rules = obs.rules
        table = rules.points_table
        nxt = next_seat(obs, obs.seat)
        opp_side = rules.side_of[nxt]
        threat_from = None if opp_side == obs.side else nxt
        cand = p = None
        mates = rules.sides[obs.side]
        last = len(obs.hand) == 1 and all(obs.counts[s] == 0 for s in mates if s != obs.seat)
        if threat_from is not None and not last:  # going out ends the hand: no reply
            bar = excluded(obs, nxt)
            cand = [t for t in unseen(obs) if t not in bar]
            p = min(1.0, obs.counts[nxt] / len(cand)) if cand else 0.0
        best, top = [], None
        for m in obs.legal:
            pts, wins, ends, dbl = immediate(obs, m)
            if wins:
                return m
            v = float(pts)
            if pts == 0 and DOUBLE[m[0]]:
                v -= DOUBLE_KEEP
            if cand:
                replies = []
                for u in cand:
                    r = 0
                    for reply in legal_moves((u,), ends, dbl, 2):
                        e, d = list(ends), list(dbl)
                        got, won = outcome(rules, obs.scores[opp_side], table[lay(e, d, 2, reply)], False)
                        r = max(r, 100 if won else got)
                    if r:
                        replies.append(r)
                replies.sort(reverse=True)
                miss = 1.0
                for r in replies:  # expected best reply, holdings taken as independent
                    v -= r * p * miss  # type: ignore[operator]  # p is set whenever cand is
                    miss *= 1 - p  # type: ignore[operator]
            if top is None or v > top + 1e-9:
                best, top = [m], v
            elif abs(v - top) <= 1e-9:
                best.append(m)
        return best[int(self.rng.random() * len(best))]


