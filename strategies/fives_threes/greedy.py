"""greedy: the move that scores most now (exact finish respected: a busting score counts 0,
an exact 61 wins); ties broken at random."""

from cribsim.dominoes.strategy import TileStrategy, immediate


class GreedyTiles(TileStrategy):
    name = "greedy"

    def play(self, obs):
        best, top = [], -1
        for m in obs.legal:
            pts, wins, _, _ = immediate(obs, m)
            v = 1000 if wins else pts
            if v > top:
                best, top = [m], v
            elif v == top:
                best.append(m)
        return best[int(self.rng.random() * len(best))]
