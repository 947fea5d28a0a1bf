"""Plug-ins that attack the engine from inside a decision, for tests/test_isolation.py: each
fault of the isolation issue (a hang that catches the time-limit exception, a loop in C,
os._exit always and only when losing, a float for a card, frame and garbage-collector peeking),
a duck-typed class that does not keep its generator, and copies of the built-in random players."""

import gc
import os
import sys

from cribsim.games.cribbage.scoring import show_points
from strategies.fives_threes.random_play import RandomTiles
from strategies.greedy import GreedyStrategy
from strategies.random_play import RandomStrategy


class RandomCopy(RandomStrategy):
    """The built-in ``random``, as a plug-in."""


class RandomTilesCopy(RandomTiles):
    """The built-in Fives and Threes ``random``, as a plug-in."""


class CatchAll(RandomStrategy):
    """Hangs in a busy loop on its first play of a match, swallowing every Exception (so the
    in-process guard's DecisionTimeout too)."""

    name = "catch_all"

    def __init__(self, rng):
        super().__init__(rng)
        self.done = False

    def play(self, obs):
        if not self.done:
            self.done = True
            while True:
                try:
                    while True:
                        pass
                except Exception:
                    pass
        return super().play(obs)


class CLoop(RandomStrategy):
    """Loops in C (no Python bytecode runs, so no signal handler either) on its first play."""

    name = "c_loop"

    def __init__(self, rng):
        super().__init__(rng)
        self.done = False

    def play(self, obs):
        if not self.done:
            self.done = True
            sum(range(10 ** 12))
        return super().play(obs)


class Exiter(RandomStrategy):
    """Ends its process (no cleanup, exit code 3) on its first play."""

    name = "exiter"

    def play(self, obs):
        os._exit(3)


class SoreLoser(RandomStrategy):
    """Plays random, but ends its process whenever it is 20 or more points behind: in-process
    that erased the matches it was losing."""

    name = "sore_loser"

    def play(self, obs):
        mine = obs.scores[obs.side]
        if max(s for i, s in enumerate(obs.scores) if i != obs.side) - mine >= 20:
            os._exit(3)
        return super().play(obs)


class FloatCard(RandomStrategy):
    """Lays its card as a float (5.0 for 5): equal to the card, but not a card."""

    name = "float_card"

    def play(self, obs):
        c = super().play(obs)
        return float(c) if isinstance(c, int) else c


class AnswersASet(RandomStrategy):
    """Discards a set: not JSON, so not an answer."""

    name = "set_discard"

    def discard(self, obs):
        return set(super().discard(obs))


class Peeker(GreedyStrategy):
    """Greedy, but looks for the engine's game state in its callers' frames
    (``sys._getframe(1).f_locals`` and up) and among every object (``gc.get_objects()``); with it,
    it notes where it looked in ``marker`` (a file), keeps the cards that score best with the
    starter still in the deck, and writes its own score up to one short of the target."""

    name = "peeker"

    def __init__(self, rng, marker=""):
        super().__init__(rng)
        self.marker = marker

    def _engine(self):
        frame = sys._getframe(1)
        while frame is not None:
            for v in list(frame.f_locals.values()):
                if hasattr(v, "stock") and hasattr(v, "hands") and hasattr(v, "scores"):
                    return v, "frames"
            frame = frame.f_back
        for v in gc.get_objects():
            if type(v).__name__ == "GameState" and hasattr(v, "stock"):
                return v, "gc"
        return None, None

    def discard(self, obs):
        g, where = self._engine()
        if g is None:
            return super().discard(obs)
        if self.marker:
            with open(self.marker, "a") as f:
                f.write(where + "\n")
        side = g.side_of[obs.seat]
        g.scores[side] = max(g.scores[side], g.targets[side] - 1)  # a writable score
        starter = g.stock[-1]  # the starter, before it is cut
        best = max(((show_points(list(keep), starter), keep) for keep in _keeps(obs)), key=lambda t: t[0])[1]
        return [c for c in obs.hand if c not in best]


def _keeps(obs):
    from itertools import combinations

    return combinations(obs.hand, len(obs.hand) - obs.discards)


class NoRng:
    """Duck typed (no base class) and takes the generator without keeping it."""

    name = "no_rng"

    def __init__(self, rng):
        pass

    def discard(self, obs):
        return list(obs.hand[:obs.discards])

    def play(self, obs):
        return obs.legal[0]


class Unmakeable(RandomStrategy):
    """Made when the lineup is checked, then fails each time a match makes it."""

    name = "unmakeable"
    made = 0

    def __init__(self, rng):
        super().__init__(rng)
        type(self).made += 1
        if type(self).made > 1:
            raise KeyError("second")


class Chatty(RandomStrategy):
    """Prints to standard output (the protocol's channel, were it not private)."""

    name = "chatty"
    said = False

    def play(self, obs):
        if not Chatty.said:  # once a process: enough to garble the protocol, were it on fd 1
            Chatty.said = True
            print("chatty: my play!")
            os.write(1, b"chatty: raw bytes on fd 1\n")
        return super().play(obs)



class AnyDecision(RandomStrategy):
    """Answers every variant's decision by one method (``decides_any``): a legal answer at
    random, whatever the decision (a bid too, which the auction's default would pass)."""

    name = "any_decision"
    decides_any = True

    def decide(self, name, obs):
        return self.rng.choice(list(obs.rules.program.decisions[name].legal(obs)))
