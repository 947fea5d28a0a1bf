"""random: a uniformly random legal tile and end."""

from __future__ import annotations

from cribsim.games.fives_threes.engine import Observation
from cribsim.games.fives_threes.strategy import TileStrategy


class RandomTiles(TileStrategy):
    name = "random"

    def play(self, obs: Observation) -> tuple[int, int]:
        return obs.legal[int(self.rng.random() * len(obs.legal))]
