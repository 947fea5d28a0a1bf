"""The environment bridges against the engine they drive and against OpenSpiel's own cribbage:
random two-player games of the standard rules on one core, in alternating rounds in one process
(the machine is noisy: the ratios from one run are what count).

    pip install -e '.[rl,openspiel]'
    python benchmarks/bench_env.py [--rounds R] [--seconds S]

- engine: cribsim's own games, the built-in ``random`` strategy in both seats, through the
  tournament driver (``play_game``);
- PettingZoo: ``cribsim.env.raw_env("standard")``, each agent a random token of its action
  mask (``env.last()``, then ``env.step``), steps and games per second;
- OpenSpiel (cribsim): ``cribsim_standard``, random legal actions and chance outcomes from a
  Python loop (chance nodes are steps: each card and the starter);
- OpenSpiel (cribbage): OpenSpiel's own C++ ``cribbage`` driven by the same Python loop.

The last line is the PettingZoo environment's cost: the engine's games per second over the
environment's (median rates)."""

from __future__ import annotations

import argparse
import random
import statistics
import time

import pyspiel
from common import pettingzoo_rate, rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim.env import raw_env
from cribsim.env.spiel import register
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def spiel_rate(game, seconds: float, rng: random.Random) -> tuple[float, float]:
    """(games per second, actions per second) of random playouts from a Python loop."""
    games = actions = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        games += 1
    took = time.perf_counter() - t0
    return games / took, actions / took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    register()
    ours_os, theirs = pyspiel.load_game("cribsim_standard"), pyspiel.load_game("cribbage")
    rules = load_rules("standard")
    strategies = make_strategies([factory("random")] * 2)
    env = raw_env("standard")
    rng, nrng = random.Random(1), random.Random(2)
    start = 10**6
    print("cribsim engine: pure Python")
    engine, pz, pz_steps, os_ours, os_theirs = [], [], [], [], []
    for _ in range(args.rounds):
        r, n = rate(rules, strategies, args.seconds, start)
        start += n
        engine.append(r)
        g, s, n = pettingzoo_rate(env, args.seconds, nrng, start)
        start += n
        pz.append(g)
        pz_steps.append(s)
        os_ours.append(spiel_rate(ours_os, args.seconds, rng)[0])
        os_theirs.append(spiel_rate(theirs, args.seconds, rng)[0])
        print(f"engine {engine[-1]:,.0f} games/s  PettingZoo {pz[-1]:,.0f} games/s ({pz_steps[-1]:,.0f} steps/s)  "
              f"OpenSpiel: cribsim_standard {os_ours[-1]:,.0f} games/s, cribbage {os_theirs[-1]:,.0f} games/s")
    med = statistics.median
    print(f"OpenSpiel random playouts, cribsim_standard / OpenSpiel's cribbage (median rates): "
          f"{med(os_ours) / med(os_theirs):.3f}")
    print(f"PettingZoo steps per second (median): {med(pz_steps):,.0f}")
    print(f"PettingZoo environment's cost, engine games/s over environment games/s (median rates): "
          f"{med(engine) / med(pz):.2f}x")


if __name__ == "__main__":
    main()
