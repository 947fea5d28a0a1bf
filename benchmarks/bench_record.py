"""The cost of game records: the serial runner's throughput with ``record: all`` against
``record: none`` on the same matches, run alternately round by round (so drift in the machine's
speed hits both alike). The last line is the ratio (target: at least 0.8).

    python benchmarks/bench_record.py [--matches N] [--rounds R] [--strategy greedy]
"""

import argparse
import tempfile
import textwrap
import time
from pathlib import Path

from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--matches", type=int, default=4000, help="per table and round (two tables)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--strategy", default="greedy")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-bench-record-"))

    def experiment(record: str, seed: int):
        cfg = tmp / f"{record}{seed}.yaml"
        cfg.write_text(textwrap.dedent(f"""\
            name: bench
            lineup:
              - {{name: a, strategy: {args.strategy}}}
              - {{name: b, strategy: {args.strategy}}}
              - {{name: c, strategy: random}}
            format: gauntlet
            matches: {args.matches}
            seed: {seed}
            record: {record}
        """))
        return load_experiment(cfg)

    spent = {"none": 0.0, "all": 0.0}
    n = 0
    for r in range(args.rounds):
        for record in ("none", "all") if r % 2 == 0 else ("all", "none"):
            exp = experiment(record, 100 + r)
            t0 = time.perf_counter()
            m = run_experiment(exp, tmp / f"{record}{r}", serial=True, quiet=True, report=False)
            spent[record] += time.perf_counter() - t0
        n += m["played"]
    size = sum(f.stat().st_size for f in tmp.glob("all*/games/games.jsonl.gz"))
    print(f"record: none  {n / spent['none']:7.0f} matches/s ({n} matches, {spent['none']:.1f} s)")
    print(f"record: all   {n / spent['all']:7.0f} matches/s ({spent['all']:.1f} s), "
          f"{size / n:,.0f} bytes of records per match (gzip)")
    print(f"throughput with record: all / record: none = {spent['none'] / spent['all']:.3f}")


if __name__ == "__main__":
    main()
