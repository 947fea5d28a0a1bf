"""The commands that study a results folder: ``cribsim compare`` and ``cribsim positions``."""

from __future__ import annotations

import argparse
from typing import Any


def add_commands(sub: Any) -> None:
    c = sub.add_parser("compare", help="compare a run's variants on game-design metrics, with intervals",
                       description="Variants as columns, metrics as rows (duration, lead changes, drama, "
                                   "decisiveness, margin, close games, seat win rates, balance, skill), each with "
                                   "its 95%% interval, and every variant's difference from a baseline on the same "
                                   "deals. Writes compare.md, compare.csv, compare_diff.csv and compare.png.")
    c.add_argument("dir", help="a results folder (with matches.jsonl)")
    c.add_argument("--baseline", help="the variant differences are taken from (default: the first)")
    c.add_argument("--close", type=float, default=10, help="a game won by fewer points is close (default 10)")
    c.add_argument("--quiet", action="store_true", help="write the files only")
    c.set_defaults(func=cmd_compare)

    p = sub.add_parser("positions", help="the board-position win table of a two-sided variant (CSV and PNG)",
                       description="The chance that the dealer's side wins the game from every pair of scores at "
                                   "the start of a deal, from the run's games, with 95%% intervals; thin cells are "
                                   "smoothed over their neighbours or flagged.")
    p.add_argument("dir", help="a results folder (with matches.jsonl)")
    p.add_argument("--variant", help="the variant (default: the first)")
    p.add_argument("--bin", type=int, default=5, help="points per cell side (default 5)")
    p.add_argument("--min", type=int, default=30, dest="min_n",
                   help="fewest deals for a cell's own estimate; fewer: pooled with its neighbours (default 30)")
    p.add_argument("--quiet", action="store_true", help="write the files only")
    p.set_defaults(func=cmd_positions)


def cmd_compare(args: argparse.Namespace) -> int:
    import math

    from .errors import CribsimError
    from .tournament.study import write_compare

    if not math.isfinite(args.close) or not 0 < args.close <= 10_000:
        raise CribsimError(f"cribsim compare: --close must be a number of points 0..10000, got {args.close}")
    write_compare(args.dir, args.baseline, args.close, args.quiet)
    return 0


def cmd_positions(args: argparse.Namespace) -> int:
    from .tournament.study import write_positions

    write_positions(args.dir, args.variant, args.bin, args.min_n, args.quiet)
    return 0
