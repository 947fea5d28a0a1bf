"""Misbehaving strategies for the fault-isolation tests (each decides from its own seeded
generator, so the same matches misbehave in every run)."""

import os
import time

from cribsim.strategy import Strategy
from strategies.fives_threes.random_play import RandomTiles
from strategies.random_play import RandomStrategy


class Raiser(RandomStrategy):
    name = "raiser"

    def __init__(self, rng, p=0.05):
        super().__init__(rng)
        self.p = p

    def play(self, obs):
        if self.rng.random() < self.p:
            raise RuntimeError("boom")
        return super().play(obs)


class Illegal(RandomStrategy):
    name = "illegal"

    def __init__(self, rng, p=0.05):
        super().__init__(rng)
        self.p = p

    def play(self, obs):
        if self.rng.random() < self.p:
            return 99  # not a card at all
        return super().play(obs)


class Spinner(RandomStrategy):
    """Hangs in a busy loop (or a sleep) on a few decisions."""

    name = "spinner"

    def __init__(self, rng, p=0.01, sleep=False):
        super().__init__(rng)
        self.p, self.sleep = p, sleep

    def play(self, obs):
        if self.rng.random() < self.p:
            if self.sleep:
                time.sleep(3600)
            while True:
                pass
        return super().play(obs)


class Crasher(RandomStrategy):
    """Kills its worker process the first time it plays, once per marker file."""

    name = "crasher"

    def __init__(self, rng, marker=""):
        super().__init__(rng)
        self.marker = marker

    def play(self, obs):
        if self.marker and not os.path.exists(self.marker):
            with open(self.marker, "w"):
                pass
            os._exit(1)
        return super().play(obs)


class Killer(RandomStrategy):
    """Kills its worker process every time it plays (played trusted: in the worker's own process)."""

    name = "killer"

    def play(self, obs):
        os._exit(1)


class TileCheater(RandomTiles):
    """Fives and Threes: raises on some decisions and lays a tile it does not hold on others."""

    name = "tile_cheat"

    def play(self, obs):
        u = self.rng.random()
        if u < 0.03:
            raise RuntimeError("tile boom")
        if u < 0.06:
            held = set(obs.hand)
            return (next(t for t in range(28) if t not in held), 0)
        return super().play(obs)


class Plain(Strategy):
    """A strategy that declares only discard and play (no auction bids, no jokers...)."""

    name = "plain"

    def discard(self, obs):
        return list(obs.hand[:obs.discards])

    def play(self, obs):
        return obs.legal[0]
