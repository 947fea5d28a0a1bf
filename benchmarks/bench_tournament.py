"""Tournament runner speed and what it is made of. (Since batches travel as spans, the driver's
cost a match is too small for this script's three-run solve to find under the noise of Ray's
runs: ``bench_driver.py`` measures the driver's own loop directly, and simulates from it.)

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
  at most executors.LARGEST) and the number of workers one driver can keep busy.

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
import math
import os
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import one_game_experiment  # benchmarks/common.py

from cribsim.games.cribbage.match import play_match
from cribsim.strategy import factory
from cribsim.tournament import executors, sink
from cribsim.tournament.batch import play_places
from cribsim.tournament.config import Experiment, load_experiment
from cribsim.tournament.runner import manifest_for, run_experiment, worker_context
from cribsim.tournament.schedule import build_schedule

STRATEGIES = ("random", "greedy", "hoyle", "ev", "mc", "expert")
BATCH_SECONDS = 1.5  # run_experiment's default
LARGEST = executors.LARGEST  # executors._next_size's cap


@dataclass
class WorkerCost:
    strategy: str
    per_match: float  # seconds a match, played and sealed
    per_batch: float  # seconds a batch, the fixed part
    play: float  # seconds a match of play alone (what cribsim sizes batches by)


K = 4  # matches a batch against one a batch
ROUNDS = 20  # fewer (matches of a second or more) and the fixed cost is lost in the matches' spread


def worker_cost(tmp: Path, strategy: str, seconds: float) -> WorkerCost:
    """Rounds of K matches played and sealed one a batch, then K more in one batch, until
    ``seconds`` have gone by (at least one round). With U a match and F a batch, a round costs
    K(U + F) one way and KU + F the other."""
    exp = one_game_experiment(tmp, f"w-{strategy}", strategy, 100_000, 7)
    ctx = worker_context(exp, manifest_for(exp))
    places = iter(ctx["schedule"].order())
    play_places(ctx, [next(places)])  # tables built, strategies made
    ones = many = play = 0.0
    rounds = 0
    t_end = time.perf_counter() + seconds
    while rounds < 1 or time.perf_counter() < t_end:
        batch = [next(places) for _ in range(K)]
        t0 = time.perf_counter()
        for p in batch:
            play_places(ctx, [p])
        ones += time.perf_counter() - t0
        batch = [next(places) for _ in range(K)]
        t0 = time.perf_counter()
        play += play_places(ctx, batch).info["seconds"]
        many += time.perf_counter() - t0
        rounds += 1
    fixed = max(0.0, (ones - many) / (rounds * (K - 1))) if rounds >= ROUNDS else math.nan
    return WorkerCost(strategy, (many - rounds * (0.0 if math.isnan(fixed) else fixed)) / (rounds * K), fixed,
                      play / (rounds * K))


@dataclass
class Sync:
    wall: float  # seconds the driver waits for a batch's append and fsync
    cpu: float  # of which its own CPU (already in the driver's CPU a batch)


def fsync_cost(tmp: Path, size: int, rounds: int = 40) -> Sync:
    """An append of ``size`` bytes and its fsync, as the sink does for each batch."""
    data = os.urandom(size)
    with open(tmp / "fsync.bin", "ab") as f:
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(rounds):
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    return Sync((time.perf_counter() - t0) / rounds, (time.process_time() - c0) / rounds)


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
        warm = one_game_experiment(tmp, "warm", "random", 2000, 1)
        run_experiment(warm, tmp / "warm", workers=2, quiet=True, report=False)
        rows = []
        for i, (n, seconds) in enumerate(((matches, BATCH_SECONDS), (2 * matches, BATCH_SECONDS), (matches, 0.02))):
            exp = one_game_experiment(tmp, f"d{i}", "random", n, 10 + i)
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


@dataclass
class Model:
    size: int  # matches a batch cribsim chooses
    worker: float  # a worker's seconds a match, its batch's fixed cost shared out
    driver_cpu: float  # the driver's CPU seconds a match
    driver_busy: float  # the driver's seconds a match, its waits for fsync too
    workers: float  # how many workers one driver keeps busy

    def rate(self, workers: int, cores: int) -> float:
        """Matches a second of ``workers`` workers sharing ``cores`` cores with the driver: what
        the workers can play, what the driver can take, what the cores can run."""
        return min(workers / self.worker, 1 / self.driver_busy, cores / (self.worker + self.driver_cpu))


def model(w: WorkerCost, d: DriverCost, sync: Sync) -> Model:
    """Batches of ``batch_seconds`` of play (at most LARGEST matches), as cribsim sizes them; each
    worker hands the driver a match every ``worker`` seconds, which costs it ``driver_busy``."""
    size = max(1, min(LARGEST, int(BATCH_SECONDS / w.play)))
    worker = w.per_match + w.per_batch / size
    cpu = d.per_match + d.per_batch / size
    busy = cpu + max(0.0, sync.wall - sync.cpu) / size
    return Model(size, worker, cpu, busy, worker / busy)


class Arrivals:
    """When each batch reached the driver, and the matches so far (Sink.add, wrapped)."""

    def __init__(self) -> None:
        self.times: list[tuple[float, int]] = []
        self.real = sink.Sink.add

    def __enter__(self) -> "Arrivals":
        real, times = self.real, self.times

        def add(self_: sink.Sink, batch: Any) -> None:
            real(self_, batch)
            times.append((time.perf_counter(), self_.played))
        sink.Sink.add = add  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        sink.Sink.add = self.real  # type: ignore[method-assign]

    def steady(self) -> float:
        """Matches a second between the arrivals of the 10th and the 90th percent of the
        matches: neither the run's start (batches growing from 4) nor its drain."""
        total = self.times[-1][1]
        t0, n0 = next((t, n) for t, n in self.times if n >= total // 10)
        t1, n1 = next((t, n) for t, n in self.times if n >= total * 9 // 10)
        return (n1 - n0) / (t1 - t0)


def _rate(exp: Experiment, out: Path, workers: int) -> float:
    """Matches a second of a run on the Ray this process is connected to, in its steady part."""
    with Arrivals() as arrivals:
        run_experiment(exp, out, workers=workers, quiet=True, report=False)
    return arrivals.steady()


def check(tmp: Path, matches: int, w: WorkerCost, d: DriverCost, sync: Sync) -> str:
    """The model against runs of ``w``'s strategy on this machine: 1 and 2 workers of an embedded
    Ray started with that many CPUs, and a ray.cluster_utils cluster of 4 one-CPU nodes, all on
    this machine's cores (:meth:`Model.rate`)."""
    import ray
    from ray.cluster_utils import Cluster

    m = model(w, d, sync)
    cores = os.cpu_count() or 1
    predicted = {k: m.rate(k, cores) for k in (1, 2, 4)}
    measured = {}
    for workers in (1, 2):
        ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.ERROR)
        try:
            _rate(one_game_experiment(tmp, f"cwarm{workers}", w.strategy, 500, 1), tmp / f"cwarm{workers}", workers)
            measured[workers] = _rate(one_game_experiment(tmp, f"c{workers}", w.strategy, matches, 20 + workers),
                                      tmp / f"c{workers}", workers)
        finally:
            ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        for _ in range(3):
            cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, logging_level=logging.ERROR)
        cluster.wait_for_nodes()
        _rate(one_game_experiment(tmp, "kwarm", w.strategy, 500, 2), tmp / "kwarm", 4)
        measured[4] = _rate(one_game_experiment(tmp, "c4", w.strategy, matches, 24), tmp / "c4", 4)
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


def costs(tmp: Path, strategies: list[str], seconds: float, matches: int) -> tuple[str, WorkerCost, DriverCost, Sync]:
    workers = [worker_cost(tmp, s, seconds) for s in strategies]
    known = sorted(w.per_batch for w in workers if not math.isnan(w.per_batch))
    for w in workers:
        borrowed = math.isnan(w.per_batch) and bool(known)
        if borrowed:  # (the fixed cost does not depend on the strategy: it is the batch's, not the matches')
            w.per_batch = known[len(known) // 2]
            w.per_match -= w.per_batch / K
        print(f"worker, {w.strategy}: {w.per_match * 1e6:,.0f} us a match ({w.play * 1e6:,.0f} of play), "
              f"{w.per_batch * 1e6:,.0f} us fixed a batch{' (the median of the others)' if borrowed else ''}")
    d = driver_cost(tmp, matches)
    print(f"driver: {d.per_match * 1e6:.1f} us CPU a match, {d.per_batch * 1e6:,.0f} us CPU a batch, "
          f"{d.fixed:.2f} s a run")
    sync = fsync_cost(tmp, 60_000)
    print(f"driver: append and fsync of a 60 KB batch {sync.wall * 1e6:,.0f} us ({sync.cpu * 1e6:,.0f} us CPU)")
    last = ""
    for w in workers:
        m = model(w, d, sync)
        last = last or (f"costs: {w.strategy}: batches of {m.size:,}, driver {m.driver_busy * 1e6:.1f} us a match, "
                        f"{m.workers:,.0f} workers a driver")
        print(f"model, {w.strategy}: batches of {m.size:,} matches; a worker {m.worker * 1e3:,.2f} ms a match, "
              f"the driver {m.driver_busy * 1e6:.1f} us; one driver keeps {m.workers:,.0f} workers busy")
    return last, workers[0], d, sync


if __name__ == "__main__":
    main()
