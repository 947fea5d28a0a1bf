"""Decisions per second of each built-in strategy, on one core, in two-player games against
``ev`` (discards and plays timed separately; a play with one legal card counts too).

    python benchmarks/bench_strategies.py [--games N] [--strategy NAME ...]"""

import argparse
import time

from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.strategy import BUILTIN
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


class Timed:
    def __init__(self, inner):
        self.inner, self.rng = inner, inner.rng
        self.t = {"discard": 0.0, "play": 0.0}
        self.n = {"discard": 0, "play": 0}

    def discard(self, obs):
        t0 = time.perf_counter()
        r = self.inner.discard(obs)
        self.t["discard"] += time.perf_counter() - t0
        self.n["discard"] += 1
        return r

    def play(self, obs):
        t0 = time.perf_counter()
        r = self.inner.play(obs)
        self.t["play"] += time.perf_counter() - t0
        self.n["play"] += 1
        return r


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--strategy", nargs="*", default=sorted(BUILTIN))
    args = ap.parse_args()
    rules = load_rules("standard")
    print("engine: pure Python")
    for name in args.strategy:
        timed = Timed(factory(name)(__import__("random").Random(0)))
        other = make_strategies([factory("ev")])[0]
        for i in range(args.games):
            play_game(rules, [timed, other] if i % 2 == 0 else [other, timed], 1, (i, 0))
        parts = [f"{k} {timed.n[k] / timed.t[k]:>9,.0f}/s" for k in ("discard", "play")]
        print(f"{name:<8} decisions per second: " + ", ".join(parts))


if __name__ == "__main__":
    main()
