"""ev against ev as a fraction of random against random, two-player games per second on one
core, measured in alternating rounds in one process (the machine is noisy; a ratio measured in
the same run is what counts).

    python benchmarks/bench_ev_speed.py [--rounds R] [--seconds S]

Both lineups are warmed up first (ev's per-hand-pattern tables fill as in a long run). The last
line is the ratio of the median rates."""

import argparse
import statistics

from common import rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim import compiled
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    args = ap.parse_args()
    rules = load_rules("standard")
    lineups = {name: make_strategies([factory(name)] * 2) for name in ("random", "ev")}
    for _name, strategies in lineups.items():
        rate(rules, strategies, args.warmup, 10**9, 50)  # other deals than the timed ones
    rates = {name: [] for name in lineups}
    start = {name: 0 for name in lineups}
    for _ in range(args.rounds):
        for name, strategies in lineups.items():
            r, n = rate(rules, strategies, args.seconds, start[name], 50)
            start[name] += n
            rates[name].append(r)
    print(f"engine: {'compiled' if compiled() else 'pure Python'}")
    for name, rs in rates.items():
        print(f"{name:>6} vs {name:<6} games/s per round: {', '.join(f'{r:,.0f}' for r in rs)}")
    ratios = [e / r for e, r in zip(rates["ev"], rates["random"])]
    print(f"ev/random per round: {', '.join(f'{x:.3f}' for x in ratios)}")
    print(f"ev/random (median rates): {statistics.median(rates['ev']) / statistics.median(rates['random']):.3f}")


if __name__ == "__main__":
    main()
