"""Show scorings per second through the public function, and the R-SHOW-8 full-enumeration time.

    python benchmarks/bench_scoring.py [--seconds S]
"""

import argparse
import random
import time

from cribsim.games.cribbage.scoring import peg_points, show_points
from cribsim.games.cribbage.showstats import TOTAL_PAIRS, all_show_scores


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    rng = random.Random(1)
    hands = []
    for _ in range(20000):
        cs = rng.sample(range(52), 5)
        hands.append((cs[:4], cs[4], rng.random() < 0.25))
    for h, s, crib in hands:  # warm the rank table, as a long run would be
        show_points(h, s, crib)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        for h, s, crib in hands:
            show_points(h, s, crib)
        n += len(hands)
    show_rate = n / (time.perf_counter() - t0)

    piles = [([3, 3, 1, 1, 3, 2, 0], 20), ([9, 4], 15), ([1, 2, 3], 9), ([12, 11, 10, 0], 31)]
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < args.seconds / 3:
        for _ in range(5000):
            for ranks, count in piles:
                peg_points(ranks, count)
        n += 5000 * len(piles)
    peg_rate = n / (time.perf_counter() - t0)

    t0 = time.perf_counter()
    scores = all_show_scores()[0]
    enum_s = time.perf_counter() - t0
    assert len(scores) == TOTAL_PAIRS
    print(f"peg scorings/s:          {peg_rate:,.0f}")
    print(f"full enumeration of {TOTAL_PAIRS:,} (hand, starter) pairs: {enum_s:.2f} s (mean {scores.mean():.6f})")
    print(f"show scorings/s:         {show_rate:,.0f}")


if __name__ == "__main__":
    main()
