"""cribsim's standard rules against OpenSpiel's own cribbage, from the same deals with the same
decisions (cribsim.games.cribbage.spielcheck): how many deals score the same, and each
difference with the rule of docs/rules.md that OpenSpiel does not follow.

    pip install -e '.[openspiel]'
    python benchmarks/crosscheck_openspiel.py [--games N] [--seed S]

Exits 1 if a difference is not explained by a rule."""

from __future__ import annotations

import argparse
import sys

from cribsim.games.cribbage.spielcheck import compare, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    result = compare(args.games, args.seed)
    print("\n".join(lines(result)))
    sys.exit(1 if result.unexplained else 0)


if __name__ == "__main__":
    main()
