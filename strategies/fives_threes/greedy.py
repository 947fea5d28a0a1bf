"""greedy: the move that scores most now; ties broken at random.

The exact finish is respected: a score that would pass 61 counts 0, one that makes 61 wins."""

from __future__ import annotations

from cribsim.games.fives_threes.engine import Observation
from cribsim.games.fives_threes.strategy import TileStrategy, immediate


class GreedyTiles(TileStrategy):
    name = "greedy"

    def play(self, obs: Observation) -> tuple[int, int]:
        best, top = [], -1
        for m in obs.legal:
            pts, wins, _, _ = immediate(obs, m)
            v = 1000 if wins else pts
            if v > top:
                best, top = [m], v
            elif v == top:
                best.append(m)
        return best[int(self.rng.random() * len(best))]
