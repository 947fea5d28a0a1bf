"""A benchmark of this checkout against an earlier commit, alternately in one run (machines are
noisy: compare a ratio measured side by side, never two figures from different runs).

    python benchmarks/ab.py --before a41b17f [--rounds 3] -- bench_games.py --seconds 8

The earlier commit is checked out into a scratch worktree; each round runs the benchmark script
(from ``benchmarks/`` of each tree, with that tree first on ``PYTHONPATH``) once for each side,
alternating which goes first. Every figure is the number on the script's last line (games/s,
decisions/s, ...). The last line printed is the median ratio, this checkout over the earlier one."""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def figure(tree: Path, script: str, args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *args], capture_output=True, text=True,
                         cwd=tree, env=env, check=True).stdout
    last = out.strip().splitlines()[-1]
    numbers = re.findall(r"[-+]?\d[\d,]*\.?\d*", last)
    if not numbers:
        raise SystemExit(f"ab: no figure on the last line of {script}: {last!r}")
    return float(numbers[-1].replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the earlier commit (any git revision)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("bench", nargs=argparse.REMAINDER, help="-- SCRIPT [ARGS...] (a script in benchmarks/)")
    args = ap.parse_args()
    bench = [a for a in args.bench if a != "--"]
    if not bench:
        ap.error("give the benchmark after --, e.g. -- bench_games.py --seconds 8")
    script, rest = bench[0], bench[1:]
    with tempfile.TemporaryDirectory(prefix="cribsim-ab-") as tmp:
        before = Path(tmp) / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(before), args.before],
                       check=True)
        try:
            ratios = []
            for r in range(args.rounds):
                sides = [("before", before), ("after", ROOT)]
                if r % 2:
                    sides.reverse()
                got = {name: figure(tree, script, rest) for name, tree in sides}
                ratios.append(got["after"] / got["before"])
                print(f"round {r + 1}: before {got['before']:,.1f}, after {got['after']:,.1f}, "
                      f"ratio {ratios[-1]:.3f}", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=False)
    print(f"after / before ({script}, median of {args.rounds} alternating rounds): {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
