"""Scale: the driver's memory while a big run plays and while its report is built, the bytes a
match takes on disk, the speed-up of 2 Ray workers over 1, and the runner's overhead against a
bare loop of the same matches.

    python benchmarks/bench_scale.py [--matches 1000000] [--speed-matches 40000] [--rounds 4]
        [--only-speed]

Plays ``--matches`` one-game random matches (standard rules, unpaired) with ``cribsim run
--workers 2`` in a subprocess, sampling the driver's resident memory (the process that holds
the folder's lock) twice a second, and reading its peak until the last batch from run.json
(the run's own report then loads matplotlib for its plots); then ``cribsim report`` on the
folder, its peak from the kernel. The speed-up alternates 1 and 2 workers on
``--speed-matches`` matches each (their medians, from the steady part of each run); the
overhead alternates a bare loop of play_match calls and the serial runner on the same
matches, ``--rounds`` times. Prints each figure, then a last line with all of them."""

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from bench_tournament import Arrivals

from cribsim.games.cribbage.match import play_match
from cribsim.strategy import factory
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from cribsim.tournament.schedule import build_schedule

MB = 1 << 20


def config(tmp: Path, name: str, matches: int, seed: int) -> Path:
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        name: {name}
        variants: [standard]
        lineup: [{{name: a, strategy: random}}, {{name: b, strategy: random}}]
        matches: {matches}
        paired: false
        seed: {seed}
    """))
    return cfg


def rss(pid: int) -> int:
    """Resident memory of ``pid`` in bytes (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def driver_pid(out: Path) -> int | None:
    try:
        return int(json.loads((out / ".cribsim.lock").read_text())["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def big_run(tmp: Path, matches: int) -> dict:
    """The run's wall time and the driver's peak memory in its first fifth and over all of it."""
    out = tmp / "big"
    cmd = [sys.executable, "-m", "cribsim", "run", str(config(tmp, "big", matches, 1)), "--workers", "2", "--quiet",
           "--out", str(out)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd)
    samples = []  # (seconds, bytes)
    while p.poll() is None:
        pid = driver_pid(out)
        if pid is not None:
            samples.append((time.monotonic() - t0, rss(pid)))
        time.sleep(0.5)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"bench_scale: the run failed ({p.returncode})")
    fifth = [b for s, b in samples if s <= wall / 5]
    playing = json.loads((out / "run.json").read_text())["sessions"][-1]["peak_rss_mb"] * MB  # (until the last batch)
    return {"wall": wall, "early": max(fifth, default=0), "playing": playing,
            "peak": max((b for _, b in samples), default=0), "out": out}


def report_peak(out: Path) -> tuple[float, int]:
    """``cribsim report``'s wall time and peak resident memory (from the kernel)."""
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "cribsim", "report", str(out), "--quiet"])
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench_scale: the report failed")
    return time.monotonic() - t0, usage.ru_maxrss * 1024


def speedup(tmp: Path, matches: int, rounds: int) -> tuple[float, float]:
    """Matches per second on 1 and on 2 workers, alternated ``rounds`` times, each on a Ray
    started with that many CPUs and warmed up first, from the steady part of each run (between
    its 10th and 90th percent of matches: bench_tournament.Arrivals), so that neither Ray's
    start nor a run's drain, the same for 1 and 2 workers, is counted as the workers' speed."""
    import ray

    rates: dict[int, list[float]] = {1: [], 2: []}
    for r in range(rounds):
        for workers in (1, 2):
            ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR)
            try:
                warm = load_experiment(config(tmp, f"warm{r}{workers}", 200, 40 + r))
                run_experiment(warm, tmp / f"warm{r}-{workers}", workers=workers, quiet=True, report=False)
                exp = load_experiment(config(tmp, f"speed{r}{workers}", matches // rounds, 50 + r))
                with Arrivals() as arrivals:
                    run_experiment(exp, tmp / f"speed{r}-{workers}", workers=workers, quiet=True, report=False)
                rates[workers].append(arrivals.steady())
            finally:
                ray.shutdown()
    return statistics.median(rates[1]), statistics.median(rates[2])


def overhead(tmp: Path, matches: int, rounds: int) -> tuple[float, float]:
    """Seconds of a bare loop of play_match and of the serial runner, on the same matches."""
    bare = serial = 0.0
    for r in range(rounds):
        exp = load_experiment(config(tmp, f"over{r}", matches // rounds, 100 + r))
        rules = exp.variants[0]
        makers = [factory(e.strategy, e.param_dict()) for e in exp.lineup]
        specs = build_schedule(exp)
        t0 = time.perf_counter()
        for s in specs:
            play_match(rules, [makers[s.sides[rules.side_of[seat]]] for seat in range(rules.players)], exp.seed, s.key)
        bare += time.perf_counter() - t0
        t0 = time.perf_counter()
        run_experiment(exp, tmp / f"over{r}", serial=True, quiet=True, report=False)
        serial += time.perf_counter() - t0
    return bare, serial


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--speed-matches", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--only-speed", action="store_true", help="the speed-up and the overhead alone")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-scale-"))
    if args.only_speed:
        one, two = speedup(tmp, args.speed_matches, args.rounds)
        bare, serial = overhead(tmp, args.speed_matches // 2, args.rounds)
        print(f"bench_scale: speed-up {two / one:.2f}x ({one:,.0f} and {two:,.0f} matches/s), overhead "
              f"{100 * (serial / bare - 1):.1f}%")
        return
    big = big_run(tmp, args.matches)
    size = (big["out"] / "matches.jsonl.gz").stat().st_size
    print(f"run: {args.matches:,} matches on 2 workers in {big['wall']:.0f} s ({args.matches / big['wall']:,.0f}/s); "
          f"driver peak RSS {big['early'] / MB:.0f} MB in the first fifth, {big['playing'] / MB:.0f} MB until the last "
          f"batch (run.json), {big['peak'] / MB:.0f} MB with the run's own report (its plots)")
    rep_wall, rep_peak = report_peak(big["out"])
    print(f"report: {rep_wall:.0f} s, peak RSS {rep_peak / MB:.0f} MB")
    print(f"disk: {size:,} bytes, {size / args.matches:.1f} bytes a match")
    one, two = speedup(tmp, args.speed_matches, args.rounds)
    print(f"speed-up: 1 worker {one:,.0f} matches/s, 2 workers {two:,.0f} matches/s: {two / one:.2f}x")
    bare, serial = overhead(tmp, args.speed_matches // 2, args.rounds)
    print(f"overhead: bare loop {bare:.1f} s, serial runner {serial:.1f} s: {100 * (serial / bare - 1):.1f}%")
    print(f"bench_scale: run peak {big['playing'] / MB:.0f} MB playing (first fifth {big['early'] / MB:.0f} MB, "
          f"{big['peak'] / MB:.0f} MB with its plots), report peak "
          f"{rep_peak / MB:.0f} MB, {size / args.matches:.1f} bytes/match, speed-up {two / one:.2f}x, overhead "
          f"{100 * (serial / bare - 1):.1f}%")


if __name__ == "__main__":
    main()
