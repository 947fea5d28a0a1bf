"""The commands that study a results folder (``cribsim compare``, ``cribsim positions``),
``cribsim tune``, which plays experiments to tune a strategy, and ``cribsim balance``, which
plays them to balance a rule."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from ..errors import CribsimError
from ..tournament.balance import balance, load_balance
from ..tournament.study import write_compare, write_positions
from ..tournament.tune import Where, load_tune, tune

OUT_HELP = ("where to write (default: the run's folder if it already holds this analysis, else DIR-{cmd} beside "
            "it, so a committed folder is never changed unasked)")


def add_commands(sub: Any) -> None:
    c = sub.add_parser("compare", help="compare a run's variants on game-design metrics, with intervals",
                       description="Variants as columns, metrics as rows (duration, lead changes, drama, "
                                   "decisiveness, margin, close games, seat win rates, balance, skill), each with "
                                   "its 95%% interval, and every variant's difference from a baseline on the same "
                                   "deals. Writes compare.md, compare.csv, compare_diff.csv and compare.png.")
    c.add_argument("dir", help="a results folder (with matches.jsonl)")
    c.add_argument("--baseline", help="the variant differences are taken from (default: the first; a sweep's: its "
                                      "base's own rules)")
    c.add_argument("--close", type=float, default=10, help="a game won by fewer points is close (default 10)")
    c.add_argument("--quiet", action="store_true", help="write the files only")
    c.add_argument("--out", help=OUT_HELP.format(cmd="compare"))
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
    p.add_argument("--out", help=OUT_HELP.format(cmd="positions"))
    p.set_defaults(func=cmd_positions)
    add_tune(sub)
    add_balance(sub)


def cmd_compare(args: argparse.Namespace) -> int:
    if not math.isfinite(args.close) or not 0 < args.close <= 10_000:
        raise CribsimError(f"cribsim compare: --close must be a number of points 0..10000, got {args.close}")
    write_compare(args.dir, args.baseline, args.close, args.quiet, args.out)
    return 0


def cmd_positions(args: argparse.Namespace) -> int:
    write_positions(args.dir, args.variant, args.bin, args.min_n, args.quiet, args.out)
    return 0


def add_balance(sub: Any) -> None:
    b = sub.add_parser("balance", help="search a rules knob for the value that brings a metric to a target",
                       description="A bracketing search with a confidence rule along one rules knob (a whole "
                                   "number or a real, within a range), for the value that brings the first "
                                   "dealer's (or a side's) win rate to a target, spending games where the answer "
                                   "is uncertain; then a confirmation on fresh games. Resumable (run it again to "
                                   "continue); writes trajectory.jsonl, balance.md, balance.csv and every look's "
                                   "results under steps/.")
    b.add_argument("config", help="a balance YAML, e.g. configs/balance/pone_bonus.yaml")
    b.add_argument("--out", help="the balance's folder (default results/<name>)")
    b.add_argument("--workers", type=int, help="parallel workers (default: all cores, or the cluster's CPUs)")
    b.add_argument("--address", help="join an existing Ray cluster (default: $RAY_ADDRESS, else start one)")
    b.add_argument("--serial", action="store_true", help="no Ray: play in this process")
    b.set_defaults(func=cmd_balance)


def cmd_balance(args: argparse.Namespace) -> int:
    cfg = load_balance(args.config)
    out = Path(args.out) if args.out else Path("results") / cfg.name
    r = balance(cfg, out, Where(args.serial, args.workers, args.address))
    print(f"{r['knob']} = {r['value']}: {r['metric']} {r['estimate']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}] over "
          f"{r['games']:,} confirming games ({r['search_games']:,} spent searching); report in {out / 'balance.md'}")
    return 0


def add_tune(sub: Any) -> None:
    t = sub.add_parser("tune", help="tune a strategy's numeric parameters by SPSA against a fixed opponent",
                       description="SPSA on paired deals: each iteration plays the parameters nudged up and down "
                                   "(random signs) against the opponent on the same deals and steps along the "
                                   "difference. Resumable (run it again to continue); writes trajectory.jsonl, "
                                   "tune.md, tune.csv and every step's results under steps/.")
    t.add_argument("config", help="a tune YAML, e.g. configs/tune/expert_vs_ev.yaml")
    t.add_argument("--out", help="the tune's folder (default results/<name>)")
    t.add_argument("--workers", type=int, help="parallel workers (default: all cores, or the cluster's CPUs)")
    t.add_argument("--address", help="join an existing Ray cluster (default: $RAY_ADDRESS, else start one)")
    t.add_argument("--serial", action="store_true", help="no Ray: play in this process")
    t.set_defaults(func=cmd_tune)


def cmd_tune(args: argparse.Namespace) -> int:
    t = load_tune(args.config)
    out = Path(args.out) if args.out else Path("results") / t.name
    r = tune(t, out, Where(args.serial, args.workers, args.address))
    fin = ", ".join(f"{k} = {v}" for k, v in r["final"].items())
    print(f"{fin}: {r['score']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] against the opponent over {r['matches']} "
          f"matches; report in {out / 'tune.md'}")
    return 0
