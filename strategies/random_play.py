"""``random``: uniformly random legal choices."""

from cribsim.rng import draw
from cribsim.strategy import Strategy


class RandomStrategy(Strategy):
    name = "random"

    def discard(self, obs):
        return draw(self.rng, obs.hand, obs.discards)

    def play(self, obs):
        legal = obs.legal
        return legal[int(self.rng.random() * len(legal))]
