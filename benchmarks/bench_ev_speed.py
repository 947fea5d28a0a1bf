"""ev against ev as a fraction of random against random, two-player games per second on one
core, measured in alternating rounds in one process (the machine is noisy; a ratio measured in
the same run is what counts).

    python benchmarks/bench_ev_speed.py [--rounds R] [--seconds S]
    python benchmarks/bench_ev_speed.py --fast   # the native lane's ev against the Python engine's
    python benchmarks/bench_ev_speed.py --fast --rules jokers   # another two-player rules file
    python benchmarks/bench_ev_speed.py --fast --strategy hoyle   # another built-in the lane plays

Both lineups are warmed up first (ev's per-hand-pattern tables fill as in a long run). The last
line is the ratio of the median rates: ev/random in the engine, or with ``--fast`` the native
lane's ev games per second over the Python engine's (the pure lane, or the mypyc lane where it
is installed: the first line says which)."""

import argparse
import statistics
import sys

from common import native_rate, rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim.games.cribbage.native import lane
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def fast(rounds: int, seconds: float, warmup: float, preset: str, name: str) -> None:
    """The native lane's ev against the Python engine's, alternating rounds."""
    if lane.module() is None:
        sys.exit(f"bench_ev_speed: {lane.status()}")
    rules = load_rules(preset)
    if rules.players != 2 or lane.refusal(rules):
        sys.exit(f"bench_ev_speed: {preset}: {lane.refusal(rules) or 'not a two-player rules file'}")
    native = lane.fast_lane(rules, [(name, {})] * 2)
    engine = make_strategies([factory(name)] * 2)
    rate(rules, engine, warmup, 10**9, 50)
    native_rate(native, 1.0, 10**9, 200)
    ours, theirs, ours_at, theirs_at = [], [], 0, 0
    print(f"engine: pure Python against the native lane, rules {preset}")
    for _ in range(rounds):
        r, n = rate(rules, engine, seconds, theirs_at, 20)
        theirs.append(r)
        theirs_at += n
        r, n = native_rate(native, seconds, ours_at, 200)
        ours.append(r)
        ours_at += n
        print(f"{name} vs {name}: engine {theirs[-1]:,.0f} games/s  native {ours[-1]:,.0f} games/s  "
              f"ratio {ours[-1] / theirs[-1]:.1f}")
    print(f"{name} native/engine (median rates): {statistics.median(ours) / statistics.median(theirs):.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--fast", action="store_true", help="the native lane's ev against the Python engine's")
    ap.add_argument("--rules", default="standard", help="with --fast: a two-player rules file of the lane's family")
    ap.add_argument("--strategy", default="ev", choices=("random", "greedy", "ev", "hoyle"),
                    help="with --fast: the built-in both seats play")
    args = ap.parse_args()
    if args.fast:
        fast(args.rounds, args.seconds, args.warmup, args.rules, args.strategy)
        return
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
    print("engine: pure Python")
    for name, rs in rates.items():
        print(f"{name:>6} vs {name:<6} games/s per round: {', '.join(f'{r:,.0f}' for r in rs)}")
    ratios = [e / r for e, r in zip(rates["ev"], rates["random"])]
    print(f"ev/random per round: {', '.join(f'{x:.3f}' for x in ratios)}")
    print(f"ev/random (median rates): {statistics.median(rates['ev']) / statistics.median(rates['random']):.3f}")


if __name__ == "__main__":
    main()
