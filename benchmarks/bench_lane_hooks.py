"""A designer's hook variant in the native lane (issue 41, item 3): games per second of a rule set
whose variant has no port to C, only an ``after_count`` hook (``examples/variants/crib3.yaml``: the
crib counts three times), played in the lane with the hook called in Python at each count,
against the standard game in the lane and the same rule set in the Python engine, in alternating
rounds in one process (``ev`` against ``greedy``, two-player games to 121, one game a call as a
run plays them).

    python benchmarks/bench_lane_hooks.py [--rules FILE] [--rounds R] [--seconds S]

The last line is the hook variant's rate in the lane over the standard game's in the lane."""

import argparse
import statistics
import time
from pathlib import Path

from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.native import lane
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory

ROOT = Path(__file__).resolve().parents[1]


def lane_rate(native, seconds, start):
    games, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(50):
            native.play_game(1, (start + games, 0), None, (0, 1))
            games += 1
    return games / (time.perf_counter() - t0), games


def engine_rate(rules, seconds, start):
    strategies = make_strategies([factory("ev", rules=(rules,)), factory("greedy", rules=(rules,))])
    games, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(5):
            play_game(rules, strategies, 1, (start + games, 0))
            games += 1
    return games / (time.perf_counter() - t0), games


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rules", default=str(ROOT / "examples" / "variants" / "crib3.yaml"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    standard, hooked = load_rules("standard"), load_rules(args.rules)
    lineup = [("ev", {}), ("greedy", {})]
    lanes = {"standard, lane": lane.fast_lane(standard, lineup), f"{hooked.name}, lane": lane.fast_lane(hooked, lineup)}
    if None in lanes.values():
        raise SystemExit(f"the native lane does not play these ({lane.refusal(hooked)})")
    rates = {name: [] for name in [*lanes, f"{hooked.name}, Python engine"]}
    start = dict.fromkeys(rates, 0)
    for native in lanes.values():  # warm up (ev's tables)
        lane_rate(native, 0.5, 10**9)
    for _ in range(args.rounds):
        for name in rates:
            if name in lanes:
                r, n = lane_rate(lanes[name], args.seconds, start[name])
            else:
                r, n = engine_rate(hooked, args.seconds, start[name])
            start[name] += n
            rates[name].append(r)
    for name, rs in rates.items():
        shown = ", ".join(f"{r:,.0f}" for r in rs)
        print(f"{name:>24}: games/s per round {shown}; median {statistics.median(rs):,.0f}")
    names = list(rates)
    print(f"{hooked.name} in the lane / in the Python engine (median rates): "
          f"{statistics.median(rates[names[1]]) / statistics.median(rates[names[2]]):.1f}x")
    print(f"{hooked.name} in the lane / the standard game in the lane (median rates): "
          f"{statistics.median(rates[names[1]]) / statistics.median(rates[names[0]]):.2f}")


if __name__ == "__main__":
    main()
