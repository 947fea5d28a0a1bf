"""Fives and Threes hands and games per second on one core.

    python benchmarks/bench_dominoes.py [--seconds S] [--rules PRESET ...] [--strategy NAME ...]

Prints one line per (rules, strategy): games/s, hands/s and tiles laid per second; by default
random and greedy players in the two-player and the four-player partnership game. For scale,
the issue quotes the ``dominoes`` package at about 3,000 random four-player block hands/s."""

import argparse
import time

from cribsim.games.fives_threes.engine import play_game
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def measure(rules, strategy, seconds):
    strategies = make_strategies([factory(strategy, game="fives_threes")] * rules.players)
    for i in range(50):  # warm-up
        play_game(rules, strategies, 0, (i, 0))
    games = hands = laid = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            res = play_game(rules, strategies, 1, (games, 0))
            games += 1
            hands += res.hands
            laid += res.stats[8]
    dt = time.perf_counter() - t0
    return games / dt, hands / dt, laid / dt, hands / games


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rules", nargs="+", default=["fives_threes", "fives_threes_partners"])
    ap.add_argument("--strategy", nargs="+", default=["random", "greedy"])
    args = ap.parse_args()
    print(f"{'rules':<24} {'strategy':<10} {'games/s':>9} {'hands/s':>9} {'tiles/s':>10} {'hands/game':>10}")
    for name in args.rules:
        rules = load_rules(name)
        for strategy in args.strategy:
            g, h, t, hpg = measure(rules, strategy, args.seconds)
            print(f"{name:<24} {strategy:<10} {g:>9,.0f} {h:>9,.0f} {t:>10,.0f} {hpg:>10.2f}")


if __name__ == "__main__":
    main()
