"""cribsim against OpenSpiel's cribbage, random two-player games to 121 on one core, measured in
alternating rounds in one process (the machine is noisy: the ratio from one run is what counts).

    pip install open-spiel      # an optional benchmark dependency, not a runtime one
    python benchmarks/bench_vs_openspiel.py [--rounds R] [--seconds S]

OpenSpiel is driven from a Python loop, as a Python user drives it:
``while not state.is_terminal(): state.apply_action(rng.choice(state.legal_actions()))``
(chance nodes included: their legal actions are the outcomes). cribsim plays complete games with
its built-in ``random`` strategy through the tournament driver (``cribsim.engine.play_game``).
The last line is the ratio of the median rates (cribsim / OpenSpiel)."""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from common import rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim import compiled
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def openspiel_rate(game, seconds: float, rng: random.Random) -> float:
    games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        games += 1
    return games / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        sys.exit("bench_vs_openspiel: OpenSpiel is not installed (pip install open-spiel)")
    game = pyspiel.load_game("cribbage")
    rules = load_rules("standard")
    strategies = make_strategies([factory("random")] * 2)
    rng, start = random.Random(1), [10**6]
    openspiel_rate(game, 1.0, rng)  # warm-up: tables filled, caches hot
    rate(rules, strategies, 1.0, start[0])
    start[0] = 0
    print(f"cribsim engine: {'compiled' if compiled() else 'pure Python'}")
    ours, theirs = [], []
    for _ in range(args.rounds):
        theirs.append(openspiel_rate(game, args.seconds, rng))
        r, n = rate(rules, strategies, args.seconds, start[0])
        start[0] += n
        ours.append(r)
        print(f"openspiel {theirs[-1]:,.0f} games/s  cribsim {ours[-1]:,.0f} games/s  "
              f"ratio {ours[-1] / theirs[-1]:.3f}")
    print(f"cribsim/openspiel (median rates): {statistics.median(ours) / statistics.median(theirs):.3f}")


if __name__ == "__main__":
    main()
