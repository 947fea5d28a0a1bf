"""A whole ``cribsim run --serial`` against the raw native lane and OpenSpiel's C++ loop, two-player
games per second on one core, in alternating rounds in one process (the machine is noisy: the
ratios of one run are what count).

    python benchmarks/bench_run.py [--lineup random|ev] [--match single|multi] [--paired]
                                   [--matches N] [--rounds R] [--seconds S]

- **run**: what ``cribsim run CONFIG --serial --quiet`` does, in this process
  (``run_experiment(..., serial=True, quiet=True)``): the folder checked and locked, the
  matches played in batches, their records encoded and gzip'd, the summary sums merged, the
  records file appended and fsynced, the manifest and run log written; a fresh folder every
  round. The report (tables and plots, written once at the end of a run whatever its size) is
  left out (``report=False``): it is a cost a run, not a match. Games are counted from the
  records the run wrote (a multi-game match plays several).
- **lane**: the native lane's own loop (``NativeLane.games``: 2,000 games a call, each cut for,
  no records), the same lineup.
- **openspiel**: OpenSpiel's C++ ``pyspiel.evaluate_bots`` with two C++ uniform random bots on
  its ``cribbage`` game, one call a game (as ``bench_vs_openspiel.py --fast``), whatever the lineup.

``--match single``: one-game matches (the standard rules); ``multi``: matches to 7 game points
on the ACC table (``match_acc``, 3 to 4 games a match). ``--paired``: every deal sequence played
with the seats swapped. The last line is the ratios of the median rates: run/lane and
run/openspiel (the issue's targets: at least 0.60 and, for random games, 3.0)."""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import native_rate, openspiel_cpp_rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim.games.cribbage.native import lane
from cribsim.ruleset import load_rules
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment

CONFIG = """\
name: bench_run
variants: [{rules}]
lineup: [{{name: a, strategy: {strategy}}}, {{name: b, strategy: {strategy}}}]
format: gauntlet
matches: {matches}
paired: {paired}
seed: {seed}
"""


def run_rate(tmp: Path, lineup: str, rules: str, matches: int, paired: bool, seed: int) -> float:
    """Games per second of one ``cribsim run --serial`` of a fresh config into a fresh folder."""
    config = tmp / f"run{seed}.yaml"
    config.write_text(CONFIG.format(rules=rules, strategy=lineup, matches=matches,
                                    paired=str(paired).lower(), seed=seed))
    out = tmp / "out"
    shutil.rmtree(out, ignore_errors=True)
    exp = load_experiment(config)
    t0 = time.perf_counter()
    run_experiment(exp, out, serial=True, quiet=True, progress=False, report=False)
    seconds = time.perf_counter() - t0
    return games_in(out / "matches.jsonl.gz") / seconds


def games_in(path: Path) -> int:
    """The games of every match record in a records file (a game object per ``"winner"`` key it
    holds, beside the match's own)."""
    text = gzip.decompress(path.read_bytes())
    return text.count(b'"first_dealer"')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lineup", choices=("random", "ev"), default="random", help="the built-in in both seats")
    ap.add_argument("--match", choices=("single", "multi"), default="single",
                    help="one-game matches, or matches to 7 game points (match_acc)")
    ap.add_argument("--paired", action="store_true", help="each deal sequence with the seats swapped")
    ap.add_argument("--matches", type=int, help="matches a run (default 20,000 one-game, 5,000 multi-game)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.0, help="the lane's and OpenSpiel's time a round")
    args = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        sys.exit("bench_run: OpenSpiel is not installed (pip install open-spiel)")
    if lane.module() is None:
        sys.exit(f"bench_run: {lane.status()}")
    rules = "standard" if args.match == "single" else "match_acc"
    matches = args.matches or (20_000 if args.match == "single" else 5_000)
    native = lane.fast_lane(load_rules("standard"), [(args.lineup, {})] * 2)
    assert native is not None
    game = pyspiel.load_game("cribbage")
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(2)]
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-bench-run-"))
    try:
        print(f"cribsim run --serial: {matches:,} {args.match}-game {args.lineup} matches a round "
              f"({rules}{', paired' if args.paired else ''}); lane: NativeLane.games, 2,000 a call; "
              "openspiel: C++ evaluate_bots, uniform random bots")
        run_rate(tmp, args.lineup, rules, min(matches, 2000), args.paired, 1)  # warm-up: tables built, code loaded
        native_rate(native, 0.5, 10**9, 2000)
        openspiel_cpp_rate(game, bots, 0.5, 10**9)
        runs, lanes, spiels, lane_at, spiel_at = [], [], [], 0, 0
        for i in range(args.rounds):
            runs.append(run_rate(tmp, args.lineup, rules, matches, args.paired, 100 + i))
            r, n = native_rate(native, args.seconds, lane_at, 2000)
            lanes.append(r)
            lane_at += n
            r, n = openspiel_cpp_rate(game, bots, args.seconds, spiel_at)
            spiels.append(r)
            spiel_at += n
            print(f"run {runs[-1]:,.0f} games/s  lane {lanes[-1]:,.0f} games/s  openspiel C++ {spiels[-1]:,.0f} "
                  f"games/s  run/lane {runs[-1] / lanes[-1]:.3f}  run/openspiel {runs[-1] / spiels[-1]:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    run, raw, spiel = statistics.median(runs), statistics.median(lanes), statistics.median(spiels)
    print(f"median rates: run {run:,.0f}, lane {raw:,.0f}, openspiel C++ {spiel:,.0f} games/s")
    print(f"run/lane {run / raw:.3f}  run/openspiel {run / spiel:.2f}")


if __name__ == "__main__":
    main()
