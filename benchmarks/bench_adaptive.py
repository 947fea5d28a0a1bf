"""How fast ``adaptive`` plays (issue 39, item 5): complete games against ``ev`` on one core,
in alternating rounds with ``expert`` against ``ev`` (the peer), in a shipped rules file
(its counts and play searches in the native lane, its discard's pegging read from the table it
learnt for the rules) and in a designer's
outside variant (by default ``examples/variants/crib3.yaml``, whose ``after_count`` hook is
Python: its counts are the engine's, its play searches still the lane's, a play running no
such hook), once with the lane allowed and once with every search on the engine (pure Python).

    python benchmarks/bench_adaptive.py [--seconds S] [--rounds R] [--rules standard]
                                        [--variant examples/variants/crib3.yaml]

Each strategy is prepared for its rules first (adaptive's model learnt or read from its cache:
outside the timing, as a run prepares it before any game). The last line is adaptive's
games/s in the shipped rules file as a ratio of expert's at its default budget."""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from common import rate

from cribsim.games.cribbage.native import lane
from cribsim.ruleset import load_rules
from cribsim.strategy import factory

ROOT = Path(__file__).resolve().parents[1]


def per_game(name: str, rules: Any, seconds: float, start: int) -> tuple[float, int]:
    """Games per second (and games) of ``name`` against ev, half the time in each seat."""
    make = factory(name, rules=(rules,), game="cribbage")
    ev = factory("ev", rules=(rules,), game="cribbage")
    seats = [make(random.Random(start)), ev(random.Random(start))]
    a, n1 = rate(rules, seats, seconds / 2, start, chunk=1)
    b, n2 = rate(rules, seats[::-1], seconds / 2, start + 1_000_000, chunk=1)
    return (n1 + n2) / (n1 / a + n2 / b), n1 + n2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds per case per round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rules", default="standard", help="a shipped two-player rules file the lane plays")
    ap.add_argument("--variant", default=str(ROOT / "examples" / "variants" / "crib3.yaml"),
                    help="a designer's outside variant (a rules file)")
    args = ap.parse_args()
    shipped, outside = load_rules(args.rules), load_rules(args.variant)
    if not lane.rollouts_for(shipped):
        raise SystemExit(f"bench_adaptive: {lane.status()}")
    cases = [("expert", shipped, True), ("adaptive", shipped, True), ("adaptive", shipped, False),
             ("adaptive", outside, True), ("adaptive", outside, False)]
    totals = {case: [0.0, 0] for case in cases}
    for r in range(args.rounds):
        for case in cases:
            name, rules, native = case
            lane.allow_rollouts(native)
            gps, n = per_game(name, rules, args.seconds, 10_000 * (r + 1))
            totals[case][0] += n / gps
            totals[case][1] += n
            where = "lane allowed" if native else "Python only"
            print(f"round {r + 1}: {name} against ev, {rules.name}, {where}: {gps:.2f} games/s ({n} games)", flush=True)
    lane.allow_rollouts(True)
    speed = {case: n / t for case, (t, n) in totals.items()}
    for case in cases:
        name, rules, native = case
        print(f"{name} ({rules.name}, {'lane allowed' if native else 'Python only'}): {speed[case]:.2f} games/s")
    ratio = speed[("adaptive", shipped, True)] / speed[("expert", shipped, True)]
    print(f"adaptive in {shipped.name}, native lane: {ratio:.2f}x expert's games/s at its default budget")


if __name__ == "__main__":
    main()
