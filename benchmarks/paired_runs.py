"""Two runs of the same config's deals compared pair by pair: for each seat-swapped pair (the same
table and group) in both results folders, the first lineup entry's score in run A less its score
in run B, with the mean difference and its 95% normal interval. Runs on the same deals share
much of their luck, so this difference is measured more tightly than the two runs' intervals
suggest (docs/results.md, "Is the gap the noise of what adaptive learns?").

    python benchmarks/paired_runs.py RESULTS_A RESULTS_B [--entry 0]

The last line is the mean difference per pair and its interval."""

from __future__ import annotations

import argparse
import gzip
import json
import math
import statistics
from pathlib import Path


def pair_scores(folder: Path, entry: int) -> dict[tuple[int, int], float]:
    """Each complete pair's mean score for lineup entry ``entry``, by (table, group)."""
    scores: dict[tuple[int, int], list[float]] = {}
    with gzip.open(folder / "matches.jsonl.gz", "rt") as f:
        for line in f:
            r = json.loads(line)
            if entry not in r["sides"]:
                continue
            points = r["game_points"]
            score = points[r["sides"].index(entry)] / max(1, sum(points))
            scores.setdefault((r["table"], r["group"]), []).append(score)
    return {k: sum(v) / 2 for k, v in scores.items() if len(v) == 2}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="a results folder (run A)")
    ap.add_argument("b", type=Path, help="a results folder of the same deals (run B)")
    ap.add_argument("--entry", type=int, default=0, help="the lineup entry whose score is compared (default 0)")
    args = ap.parse_args()
    a, b = pair_scores(args.a, args.entry), pair_scores(args.b, args.entry)
    both = sorted(a.keys() & b.keys())
    if len(both) < 2:
        raise SystemExit("paired_runs: fewer than two pairs in both runs: not runs of the same deals")
    d = [a[k] - b[k] for k in both]
    mean, se = statistics.mean(d), statistics.stdev(d) / math.sqrt(len(d))
    print(f"run A per pair {statistics.mean(a[k] for k in both):.4f}, run B {statistics.mean(b[k] for k in both):.4f}")
    print(f"A - B per pair: {mean:+.4f} [{mean - 1.96 * se:+.4f}, {mean + 1.96 * se:+.4f}] over {len(d):,} pairs")


if __name__ == "__main__":
    main()
