"""How long 20,000 matches of ``expert`` against ``ev`` (standard 121) take on 2 cores: complete
games on one core, ``expert`` in alternate seats, and the same for ``mc`` against ``ev`` in
alternating rounds (the peer), so the ratio is from one run.

    python benchmarks/bench_expert.py [--seconds S] [--rounds R] [--params k=v ...]
    python benchmarks/bench_expert.py --fast   # expert and mc with their play rollouts in the native lane
    python benchmarks/bench_expert.py --fast --rules jokers   # another two-player rules file

The last line printed is the projected minutes for 20,000 matches on 2 cores (a match is one
game; the 2 cores are taken as twice one core, as Ray's batches make them). With ``--fast`` each
round plays expert and mc against ev with their play rollouts in the native lane and on the
engine's play phase, alternately (the same games: tests/cribbage/test_native.py), and prints
each one's ratio before the projection for the native rollouts."""

import argparse
import random

import yaml
from common import rate

from cribsim.games.cribbage.native import lane
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def per_game(name: str, params: dict, rules, seconds: float, start: int) -> tuple[float, int]:
    make = factory(name, params)
    seats = [make(random.Random(start)), factory("ev")(random.Random(start))]
    a, n1 = rate(rules, seats, seconds / 2, start, chunk=2)
    b, n2 = rate(rules, seats[::-1], seconds / 2, start + 1_000_000, chunk=2)
    return (n1 + n2) / (n1 / a + n2 / b), n1 + n2


def fast(rules, params: dict, rounds: int, seconds: float) -> None:
    """Native rollouts against the engine's, in alternating rounds, for expert and mc."""
    if not lane.rollouts_for(rules):
        raise SystemExit(f"bench_expert: {lane.status()}")
    print(f"engine: pure Python; rules {rules.name}; expert {params or 'defaults'}")
    totals = {(name, native): [0.0, 0] for name in ("expert", "mc") for native in (True, False)}
    for r in range(rounds):
        for name, p in (("expert", params), ("mc", {})):
            for native in (False, True):
                lane.allow_rollouts(native)
                gps, n = per_game(name, p, rules, seconds, 10_000 * (r + 1))
                totals[(name, native)][0] += n / gps
                totals[(name, native)][1] += n
                print(f"round {r + 1}: {name} against ev, {'native' if native else 'engine'} rollouts: "
                      f"{gps:.2f} games/s on one core ({n} games)")
    lane.allow_rollouts(True)
    speed = {k: n / t for k, (t, n) in totals.items()}
    for name in ("mc", "expert"):
        print(f"{name}: native rollouts {speed[(name, True)] / speed[(name, False)]:.2f}x the engine's")
    print(f"20,000 matches of expert against ev ({rules.name}) on 2 cores, native rollouts: "
          f"{20_000 / speed[('expert', True)] / 2 / 60:.1f} min")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds per strategy per round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--params", nargs="*", default=[], help="expert parameters, k=v")
    ap.add_argument("--fast", action="store_true", help="native rollouts against the engine's, alternately")
    ap.add_argument("--rules", default="standard", help="with --fast: a two-player rules file")
    args = ap.parse_args()
    params = {k: yaml.safe_load(v) for k, v in (p.split("=", 1) for p in args.params)}  # 32, 0.5, false
    rules = load_rules(args.rules if args.fast else "standard")
    if args.fast:
        fast(rules, params, args.rounds, args.seconds)
        return
    print(f"engine: pure Python; expert {params or 'defaults'}")
    totals = {"expert": [0.0, 0], "mc": [0.0, 0]}
    for r in range(args.rounds):
        for name, p in (("expert", params), ("mc", {})):
            gps, n = per_game(name, p, rules, args.seconds, 10_000 * (r + 1))
            totals[name][0] += n / gps
            totals[name][1] += n
            print(f"round {r + 1}: {name} against ev {gps:.2f} games/s on one core ({n} games)")
    speed = {k: n / t for k, (t, n) in totals.items()}
    print(f"expert is {speed['expert'] / speed['mc']:.2f}x mc's speed (both against ev)")
    print(f"20,000 matches of expert against ev on 2 cores: {20_000 / speed['expert'] / 2 / 60:.1f} min")


if __name__ == "__main__":
    main()
