"""random: a uniformly random legal tile and end."""

from __future__ import annotations

from cribsim.dominoes.engine import Observation
from cribsim.dominoes.strategy import TileStrategy


class RandomTiles(TileStrategy):
    name = "random"

    def play(self, obs: Observation) -> tuple[int, int]:
        return obs.legal[int(self.rng.random() * len(obs.legal))]
