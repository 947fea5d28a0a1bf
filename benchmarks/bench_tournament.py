"""Tournament runner speed and what it is made of.

``speed``: the speed-up of 2 Ray workers over 1, and the runner's overhead against a bare serial
loop of play_match calls (same matches). ``costs``: the costs a run's throughput is made of,
and the model they give (docs/performance.md, "How far one driver goes"):

- a worker's cost per match for each built-in strategy (one-game standard matches against
  itself), and its fixed cost per batch (playing and sealing batches of one match, against
  the same number of matches in batches of four);
- the driver's CPU per match and per batch, from three runs on an embedded Ray with 2 workers
  (random, one-game matches) that differ in their number of matches and of batches, solved
  for a fixed cost, a cost per batch and a cost per match; plus the time an append and fsync
  of a batch holds the driver;
- from those, for each strategy, the batch size cribsim chooses (``batch_seconds`` of play,
  at most 5,000) and the number of workers one driver can keep busy.

``check``: the model's matches per second against runs of the first strategy on 1 and 2
workers (embedded Ray) and on a ``ray.cluster_utils`` cluster of 4 one-CPU nodes, all on this
machine's cores.

    python benchmarks/bench_tournament.py [--parts speed,costs,check] [--matches 60000]
        [--strategy greedy] [--driver-matches 60000] [--seconds 3] [--strategies random,...]
        [--check-matches 30000]

Prints each figure; the last line gathers the parts' headline figures."""

import argparse
import json
import logging
import os
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from cribsim.games.cribbage.match import play_match
from cribsim.strategy import factory
from cribsim.tournament.batch import play_places
from cribsim.tournament.config import Experiment, load_experiment
from cribsim.tournament.runner import manifest_for, run_experiment, worker_context
from cribsim.tournament.schedule import build_schedule

STRATEGIES = ("random", "greedy", "hoyle", "ev", "mc", "expert")
BATCH_SECONDS = 1.5  # run_experiment's default
LARGEST = 5000  # executors._next_size's cap


def experiment(tmp: Path, name: str, strategy: str, matches: int, seed: int) -> Experiment:
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        name: {name}
        variants: [standard]
        lineup: [{{name: a, strategy: {strategy}}}, {{name: b, strategy: {strategy}}}]
        matches: {matches}
        paired: false
        match: {{first_to: 1}}
        seed: {seed}
    """))
    return load_experiment(cfg)


@dataclass
class WorkerCost:
    strategy: str
    per_match: float  # seconds
    per_batch: float  # seconds, the fixed part


def worker_cost(tmp: Path, strategy: str, seconds: float) -> WorkerCost:
    """Matches played and sealed one a batch, then the same number in one batch, alternately
    until ``seconds`` have gone by (at least 2 matches each way)."""
    exp = experiment(tmp, f"w-{strategy}", strategy, 100_000, 7)
    ctx = worker_context(exp, manifest_for(exp))
    places = iter(ctx["schedule"].order())
    play_places(ctx, [next(places)])  # tables built, strategies made
    ones = many = 0.0
    n = 0
    t_end = time.perf_counter() + seconds
    while n < 2 or time.perf_counter() < t_end:
        batch = [next(places) for _ in range(4)]
        t0 = time.perf_counter()
        for p in batch:
            play_places(ctx, [p])
        ones += time.perf_counter() - t0
        batch = [next(places) for _ in range(4)]
        t0 = time.perf_counter()
        play_places(ctx, batch)
        many += time.perf_counter() - t0
        n += 4
    per_match = many / n
    return WorkerCost(strategy, per_match, max(0.0, (ones - many) / n))


def fsync_cost(tmp: Path, size: int, rounds: int = 40) -> float:
    """Seconds to append ``size`` bytes and fsync, as the sink does for each batch."""
    data = os.urandom(size)
    with open(tmp / "fsync.bin", "ab") as f:
        t0 = time.perf_counter()
        for _ in range(rounds):
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    return (time.perf_counter() - t0) / rounds


@dataclass
class DriverCost:
    fixed: float  # CPU seconds a run
    per_batch: float
    per_match: float


def driver_cost(tmp: Path, matches: int) -> DriverCost:
    """The driver's CPU (this process, Ray's threads in it too) over three runs on the same
    embedded Ray: (matches, default batches), (2 x matches, default), (matches, small batches)."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
             runtime_env={"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}})
    try:
        run_experiment(experiment(tmp, "warm", "random", 2000, 1), tmp / "warm", workers=2, quiet=True, report=False)
        rows = []
        for i, (n, seconds) in enumerate(((matches, BATCH_SECONDS), (2 * matches, BATCH_SECONDS), (matches, 0.02))):
            exp = experiment(tmp, f"d{i}", "random", n, 10 + i)
            c0 = time.process_time()
            run_experiment(exp, tmp / f"d{i}", workers=2, quiet=True, report=False, batch_seconds=seconds)
            cpu = time.process_time() - c0
            batches = _batches(tmp / f"d{i}")
            rows.append((cpu, batches, n))
            print(f"driver run {i + 1}: {n:,} matches in {batches:,} batches: {cpu:.2f} s of the driver's CPU")
    finally:
        ray.shutdown()
    return _solve(rows)


def _batches(folder: Path) -> int:
    return int(json.loads((folder / "run.json").read_text())["sessions"][-1]["batches"]["count"])


def _solve(rows: list[tuple[float, int, int]]) -> DriverCost:
    """cpu = fixed + per_batch * batches + per_match * matches, three runs, three unknowns."""
    (c1, b1, m1), (c2, b2, m2), (c3, b3, m3) = rows
    # run 3 against run 1: same matches, more batches
    per_batch = (c3 - c1) / (b3 - b1)
    # run 2 against run 1: more matches (and a few more batches)
    per_match = (c2 - c1 - per_batch * (b2 - b1)) / (m2 - m1)
    return DriverCost(c1 - per_batch * b1 - per_match * m1, per_batch, per_match)


def model(w: WorkerCost, d: DriverCost, sync: float) -> tuple[int, float, float]:
    """The batch size cribsim chooses for ``w``'s matches, the driver's seconds per match at that
    size, and the number of workers one driver keeps busy (each worker hands it a match every
    per_match + per_batch / size seconds)."""
    size = max(1, min(LARGEST, int(BATCH_SECONDS / w.per_match)))
    driver = d.per_match + (d.per_batch + sync) / size
    worker = w.per_match + w.per_batch / size
    return size, driver, worker / driver



def _rate(exp: Experiment, out: Path, workers: int) -> float:
    """Matches a second of a run on the Ray this process is connected to (its start-up excluded)."""
    n = exp.matches * len(exp.tables[0])
    t0 = time.perf_counter()
    run_experiment(exp, out, workers=workers, quiet=True, report=False)
    return n / (time.perf_counter() - t0)


def check(tmp: Path, matches: int, w: WorkerCost, d: DriverCost, sync: float) -> str:
    """The model against runs of ``w``'s strategy on this machine: 1 and 2 workers of an embedded
    Ray, and a ray.cluster_utils cluster of 4 one-CPU nodes, all on this machine's 2 cores. A
    match takes a worker u seconds and the driver d; one worker on a core of its own plays 1/u
    a second; workers that share C cores with the driver play C / (u + d)."""
    import ray
    from ray.cluster_utils import Cluster

    size, driver, _ = model(w, d, sync)
    u = w.per_match + w.per_batch / size
    cores = os.cpu_count() or 1
    predicted = {1: 1 / u, 2: min(2, cores) / (u + driver), 4: min(4, cores) / (u + driver)}
    measured = {}
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        _rate(experiment(tmp, "cwarm", w.strategy, 500, 1), tmp / "cwarm", 2)
        for workers in (1, 2):
            measured[workers] = _rate(experiment(tmp, f"c{workers}", w.strategy, matches, 20 + workers),
                                      tmp / f"c{workers}", workers)
    finally:
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        for _ in range(3):
            cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, logging_level=logging.ERROR)
        cluster.wait_for_nodes()
        _rate(experiment(tmp, "kwarm", w.strategy, 500, 2), tmp / "kwarm", 4)
        measured[4] = _rate(experiment(tmp, "c4", w.strategy, matches, 24), tmp / "c4", 4)
    finally:
        ray.shutdown()
        cluster.shutdown()
    for workers, where in ((1, "embedded Ray"), (2, "embedded Ray"), (4, "4 one-CPU nodes")):
        print(f"check, {w.strategy}, {workers} worker{'s' if workers > 1 else ''} ({where}): model "
              f"{predicted[workers]:,.0f} matches/s, measured {measured[workers]:,.0f} "
              f"({measured[workers] / predicted[workers]:.2f} of the model)")
    return "check: " + ", ".join(f"{k} workers {measured[k] / predicted[k]:.2f} of the model" for k in (1, 2, 4))


def speed(tmp: Path, matches: int, rounds: int, strategy: str) -> str:
    """The runner's overhead against a bare loop (serial, alternated round by round so that drift
    in the machine's speed hits both alike) and the speed-up of 2 Ray workers over 1."""
    def gauntlet(n: int, seed: int) -> Experiment:
        cfg = tmp / f"bench{seed}.yaml"
        cfg.write_text(textwrap.dedent(f"""\
            name: bench
            variants: [standard]
            lineup:
              - {{name: a, strategy: {strategy}}}
              - {{name: b, strategy: {strategy}}}
              - {{name: c, strategy: random}}
            format: gauntlet
            matches: {n}
            seed: {seed}
        """))
        return load_experiment(cfg)

    bare = serial = 0.0
    n_over = 0
    for r in range(rounds):
        exp = gauntlet(matches // rounds, 100 + r)
        specs = build_schedule(exp)
        rules = exp.variants[0]
        makers = [factory(e.strategy, e.param_dict()) for e in exp.lineup]
        t0 = time.perf_counter()
        for s in specs:
            play_match(rules, [makers[s.sides[rules.side_of[seat]]] for seat in range(rules.players)], exp.seed, s.key)
        bare += time.perf_counter() - t0
        t0 = time.perf_counter()
        run_experiment(exp, tmp / f"serial{r}", serial=True, quiet=True, report=False)
        serial += time.perf_counter() - t0
        n_over += len(specs)
    print(f"bare serial loop:   {n_over / bare:8.0f} matches/s ({n_over} matches, {bare:.1f} s)")
    print(f"runner --serial:    {n_over / serial:8.0f} matches/s ({serial:.1f} s)")
    exp = gauntlet(matches, 1)
    n = len(build_schedule(exp))
    times = {}
    for w in (1, 2):
        t0 = time.perf_counter()
        run_experiment(exp, tmp / f"ray{w}", workers=w, quiet=True, report=False)
        times[w] = time.perf_counter() - t0
        print(f"runner on Ray, {w} worker{'s' if w > 1 else ' '}: {n / times[w]:6.0f} matches/s ({times[w]:.1f} s, "
              "including Ray start-up)")
    over = 100 * (serial / bare - 1)
    print(f"runner overhead against the bare loop (serial, {rounds} alternating rounds): {over:.1f}%")
    print(f"speed-up of 2 workers over 1: {times[1] / times[2]:.2f}x")
    return f"bench_tournament: overhead {over:.1f}%, speed-up {times[1] / times[2]:.2f}x"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="speed,costs,check")
    ap.add_argument("--matches", type=int, default=60000, help="speed: per table (two tables)")
    ap.add_argument("--rounds", type=int, default=4, help="speed: bare/runner alternations for the overhead")
    ap.add_argument("--strategy", default="greedy", help="speed: the gauntlet's strategy")
    ap.add_argument("--driver-matches", type=int, default=60_000, help="costs: the driver's first run")
    ap.add_argument("--seconds", type=float, default=3.0, help="costs: per strategy, for the worker's costs")
    ap.add_argument("--strategies", default=",".join(STRATEGIES), help="costs (the first is the check's)")
    ap.add_argument("--check-matches", type=int, default=30_000, help="check: one-game matches a run")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-bench-"))
    lines = []
    if "costs" in args.parts or "check" in args.parts:
        line, random_cost, d, sync = costs(tmp, args.strategies.split(","), args.seconds, args.driver_matches)
        lines.append(line)
        if "check" in args.parts:
            lines.append(check(tmp, args.check_matches, random_cost, d, sync))
    if "speed" in args.parts:
        lines.append(speed(tmp, args.matches, args.rounds, args.strategy))
    print(" | ".join(lines))


def costs(tmp: Path, strategies: list[str], seconds: float, matches: int) -> tuple[str, WorkerCost, DriverCost, float]:
    workers = []
    for s in strategies:
        w = worker_cost(tmp, s, seconds)
        workers.append(w)
        print(f"worker, {s}: {w.per_match * 1e6:,.0f} us a match, {w.per_batch * 1e6:,.0f} us fixed a batch")
    d = driver_cost(tmp, matches)
    print(f"driver: {d.per_match * 1e6:.1f} us CPU a match, {d.per_batch * 1e6:,.0f} us CPU a batch, "
          f"{d.fixed:.2f} s a run")
    sync = fsync_cost(tmp, 60_000)
    print(f"driver: append and fsync of a 60 KB batch {sync * 1e6:,.0f} us")
    last = ""
    for w in workers:
        size, driver, busy = model(w, d, sync)
        last = last or (f"costs: {w.strategy}: batches of {size:,}, driver {driver * 1e6:.1f} us a match, "
                        f"{busy:,.0f} workers a driver")
        each = 1 / (w.per_match + w.per_batch / size)
        print(f"model, {w.strategy}: batches of {size:,} matches; the driver {driver * 1e6:.1f} us a match; "
              f"one driver keeps {busy:,.0f} workers busy ({each:,.1f} matches/s each)")
    return last, workers[0], d, sync


if __name__ == "__main__":
    main()
