"""Plug-ins for tests/hostile/test_time.py: honest but slow players."""

import time

from strategies.greedy import GreedyStrategy


class Overrun(GreedyStrategy):
    """``greedy`` whose first discard of each match takes ``seconds``."""

    name = "overrun"

    def __init__(self, rng, seconds=0.22):
        super().__init__(rng)
        self.seconds, self.slow = seconds, True

    def discard(self, obs):
        if self.slow:
            self.slow = False
            time.sleep(self.seconds)
        return super().discard(obs)
