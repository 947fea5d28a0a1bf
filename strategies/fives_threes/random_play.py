"""random: a uniformly random legal tile and end."""

from cribsim.dominoes.strategy import TileStrategy


class RandomTiles(TileStrategy):
    name = "random"

    def play(self, obs):
        return obs.legal[int(self.rng.random() * len(obs.legal))]
