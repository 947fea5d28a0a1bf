"""How far one driver goes, with batches handed out and merged as spans: what the driver pays a
match and a batch, what a lane worker pays, and, from those, a simulation of one driver and W
workers (how many lane workers one driver keeps busy, and how busy it is).

    python benchmarks/bench_driver.py [--parts driver,worker,ray,sim] [--matches 200000]
        [--sizes 2000,50000] [--strategies random,greedy,hoyle,ev] [--workers 2,100,1000,2000]

- **driver**: the driver's own loop over a run of ``--matches`` one-game random matches (standard
  rules, one table), without Ray: take a batch from the pending matches, unpickle the worker's
  sealed batch (what ``ray.get`` does), and add it to the sink (append, fsync, merge the sums,
  mark its matches done, keep the resume checkpoint), for two batch sizes; solved for a cost a
  match and a cost a batch. The worker's batches are played once, then handed to the driver
  again under other places of the schedule (the driver does not read the records it appends).
  Runs on this commit and on one before spans (it uses only the APIs both have).
- **worker**: a lane worker's seconds a match (played and sealed, ``play_places`` on batches of
  2,000) and a batch (batches of 10 against 2,000), for each strategy.
- **ray**: Ray's round trip a batch on the driver (submit, wait, get of a sealed batch of
  50,000 matches' bytes) on an embedded Ray with 2 CPUs; and Ray's start-up: import, start,
  the workers' first tasks (each imports cribsim), teardown.
- **sim**: a simulation of one driver serving W workers with two batches in flight each, the
  batches sized as the runner sizes them (``executors._next_size``), from the figures above
  (or ``--given`` JSON of them): the matches a second, the workers' share of time busy and the
  driver's.

Prints each figure; the last line gathers the headline ones."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import heapq
import json
import logging
import os
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import one_game_experiment

from cribsim.tournament import executors
from cribsim.tournament.aggregate import Partial, VariantShape
from cribsim.tournament.batch import play_places
from cribsim.tournament.checkpoint import Tracker, hasher
from cribsim.tournament.config import Experiment
from cribsim.tournament.folder import Records, schedule_of
from cribsim.tournament.runner import manifest_for, worker_context
from cribsim.tournament.schedule import Pending, Seen
from cribsim.tournament.sink import Sink


def experiment(tmp: Path, strategy: str, matches: int, seed: int = 7) -> Experiment:
    return one_game_experiment(tmp, f"{strategy}{matches}", strategy, matches, seed)


def _moved(sealed: Any, ctx: dict[str, Any], batch: Any) -> Any:
    """``sealed`` as the batch ``batch`` (the same records, other places)."""
    if getattr(sealed, "span", None) is not None:
        return dataclasses.replace(sealed, span=batch)
    places = list(batch)
    schedule = ctx["schedule"]
    ids = [schedule.spec(p, 0).id for p in places]
    return dataclasses.replace(sealed, ids=ids, places=places)


def driver(tmp: Path, matches: int, size: int) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, batches) of the driver's loop over a run of ``matches`` in
    batches of ``size``."""
    exp = experiment(tmp, "random", matches)
    m = manifest_for(exp)
    ctx = worker_context(exp, m)
    pending = Pending(schedule_of(m), Seen(schedule_of(m)))
    first = pending.take(size)
    sealed = play_places(ctx, first)
    schedule = schedule_of(m)
    blobs = [pickle.dumps(_moved(sealed, ctx, first), protocol=5)]
    while pending:
        batch = pending.take(size)
        if len(batch) != size:
            break
        blobs.append(pickle.dumps(_moved(sealed, ctx, batch), protocol=5))
    out = tmp / f"driver{size}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    seen = Seen(schedule)
    records = Records(seen)
    records.used = Seen(schedule)
    tracker = Tracker(out, m, records, hasher(), time.monotonic(), hashlib.sha256(b"bench").digest())
    sink = Sink(out / "matches.jsonl.gz", m, records, Partial(VariantShape.of(m)), None, matches, False, tracker)
    again = Pending(schedule, Seen(schedule))
    c0, t0 = time.process_time(), time.perf_counter()
    for blob in blobs:
        again.take(size)
        sink.add(pickle.loads(blob))
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    sink.close()
    return cpu, wall, len(blobs)


def driver_costs(tmp: Path, matches: int, sizes: list[int]) -> dict[str, float]:
    rows = []
    for size in sizes:
        cpu, wall, batches = driver(tmp, matches, size)
        n = batches * size
        rows.append((size, batches, n, cpu, wall))
        print(f"driver: {n:,} matches in {batches:,} batches of {size:,}: {cpu:.3f} s CPU, {wall:.3f} s wall "
              f"({1e6 * wall / n:.3f} us a match)")
    (s1, _, n1, c1, w1), (s2, _, n2, c2, w2) = rows[0], rows[-1]
    # wall = batches * per_batch + matches * per_match, for the two sizes
    per_batch = (w1 / n1 - w2 / n2) / (1 / s1 - 1 / s2)
    per_match = w2 / n2 - per_batch / s2
    cpu_batch = (c1 / n1 - c2 / n2) / (1 / s1 - 1 / s2)
    cpu_match = c2 / n2 - cpu_batch / s2
    print(f"driver: {1e6 * per_match:.3f} us a match and {1e3 * per_batch:.2f} ms a batch (wall; CPU "
          f"{1e6 * cpu_match:.3f} us and {1e3 * cpu_batch:.2f} ms)")
    return {"d_match": per_match, "d_batch": per_batch}


def worker_costs(tmp: Path, strategies: list[str], seconds: float = 1.5) -> dict[str, dict[str, float]]:
    out = {}
    for strategy in strategies:
        exp = experiment(tmp, strategy, 10_000_000)
        ctx = worker_context(exp, manifest_for(exp))
        schedule = ctx["schedule"]
        pending = Pending(schedule, Seen(schedule))
        play_places(ctx, pending.take(10))  # tables built
        big = small = 0.0
        nb = ns = 0
        t_end = time.perf_counter() + seconds
        while time.perf_counter() < t_end or not ns:
            t0 = time.perf_counter()
            play_places(ctx, pending.take(2000))
            big += time.perf_counter() - t0
            nb += 1
            for _ in range(10):
                t0 = time.perf_counter()
                play_places(ctx, pending.take(10))
                small += time.perf_counter() - t0
                ns += 1
        u_big, u_small = big / (nb * 2000), small / (ns * 10)
        fixed = max(0.0, (u_small - u_big) / (1 / 10 - 1 / 2000))
        u = u_big - fixed / 2000
        out[strategy] = {"u": u, "f": fixed}
        print(f"worker, {strategy}: {1e6 * u:,.1f} us a match (lane, played and sealed), {1e3 * fixed:.2f} ms a batch")
    return out


def ray_costs(tmp: Path, size: int = 50_000) -> dict[str, float]:
    """Ray's round trip a batch on the driver, and its start-up and teardown."""
    t0 = time.perf_counter()
    import ray

    t1 = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
             runtime_env={"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}})
    t2 = time.perf_counter()

    @ray.remote
    def first() -> int:
        import cribsim.tournament.batch  # noqa: F401  (what a worker imports for its first batch)
        return 0

    ray.get([first.remote() for _ in range(2)])
    t3 = time.perf_counter()
    exp = experiment(tmp, "random", size * 4)
    ctx = worker_context(exp, manifest_for(exp))
    sealed = play_places(ctx, Pending(ctx["schedule"], Seen(ctx["schedule"])).take(size))
    ref = ray.put(sealed)

    @ray.remote
    def echo(s: Any) -> Any:
        return s

    rounds = 40
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        r = echo.remote(ref)
        ray.wait([r], num_returns=1)
        ray.get(r)
    cpu, wall = (time.process_time() - c0) / rounds, (time.perf_counter() - w0) / rounds
    t4 = time.perf_counter()
    ray.shutdown()
    t5 = time.perf_counter()
    got = {"import": t1 - t0, "init": t2 - t1, "first": t3 - t2, "teardown": t5 - t4, "rt_cpu": cpu, "rt_wall": wall,
           "bytes": len(sealed.data)}
    print(f"ray: import {got['import']:.2f} s, start {got['init']:.2f} s, workers' first tasks {got['first']:.2f} s, "
          f"teardown {got['teardown']:.2f} s: {got['import'] + got['init'] + got['first'] + got['teardown']:.2f} s "
          f"a run")
    print(f"ray: a batch's round trip (submit, wait, get of {len(sealed.data):,} bytes, {size:,} matches): "
          f"{1e3 * wall:.2f} ms ({1e3 * cpu:.2f} ms of the driver's CPU)")
    return got


def simulate(u: float, f: float, d_match: float, d_batch: float, workers: int, matches: int,
             target: float = 1.5, in_flight: int = executors.IN_FLIGHT_PER_WORKER) -> dict[str, float]:
    """One driver and ``workers`` workers: a worker plays a batch of n in f + n u seconds, the
    driver takes each finished batch in turn (d_batch + n d_match seconds: its get, merge,
    append, and the next batch sent to that worker), each worker with ``in_flight`` batches;
    the sizes as :func:`executors._next_size` makes them. Returns matches a second, the workers'
    busy share and the driver's."""
    left = matches
    size = 4
    free_at = [0.0] * workers  # when each worker's queue empties
    done: list[tuple[float, int, int]] = []  # (when a batch finishes, worker, its size)
    busy_workers = 0.0

    def send(w: int, n: int, now: float) -> None:
        nonlocal busy_workers
        start = max(now, free_at[w])
        free_at[w] = start + f + n * u
        busy_workers += f + n * u
        heapq.heappush(done, (free_at[w], w, n))

    for w in range(workers):
        for _ in range(in_flight):
            n = min(size, left)
            if n:
                send(w, n, 0.0)
                left -= n
    driver_free = 0.0
    driver_busy = 0.0
    end = 0.0
    while done:
        t, w, n = heapq.heappop(done)
        start = max(t, driver_free)
        cost = d_batch + n * d_match
        driver_free = start + cost
        driver_busy += cost
        end = driver_free
        size = executors._next_size(f + n * u, n, target, left, workers, d_batch)
        n = min(size, left)
        if n:
            left -= n
            send(w, n, driver_free)
    return {"rate": matches / end, "workers_busy": busy_workers / (workers * end), "driver_busy": driver_busy / end}


def sim(costs: dict[str, Any], workers: list[int], seconds: float) -> str:
    """Each strategy's run of ``seconds`` of a worker's play a worker, on each number of workers."""
    d_match, d_batch = costs["d_match"], costs["d_batch"] + costs.get("rt_cpu", 0.0)
    lines = []
    for strategy, w in costs["workers"].items():
        for k in workers:
            got = last = simulate(w["u"], w["f"], d_match, d_batch, k, k * max(1, int(seconds / w["u"])))
            ideal = k / (w["u"] + w["f"] / executors.LARGEST)
            print(f"sim, {strategy}, {k:,} workers: {got['rate']:,.0f} matches/s ({got['rate'] / ideal:.2f} of the "
                  f"workers' own pace), workers busy {got['workers_busy']:.2f}, driver busy {got['driver_busy']:.2f}")
        size = max(1, min(executors.LARGEST, int(1.5 / w["u"])))
        most = d_match + d_batch / size
        keeps = (w["u"] + w["f"] / size) / most
        print(f"sim, {strategy}: in batches of 1.5 s ({size:,} matches) one driver keeps about {keeps:,.0f} workers "
              f"busy (a worker's {1e6 * w['u']:,.1f} us a match against the driver's {1e6 * most:.3f} us); past "
              "that the batches grow with the workers (_next_size), up to 50,000 matches: the rows above")
        lines.append(f"{strategy} {last['workers_busy']:.2f}")
    return f"workers busy with {workers[-1]:,} workers: " + ", ".join(lines)


def _session(out: Path) -> dict[str, Any]:
    return json.loads((out / "run.json").read_text())["sessions"][-1]  # type: ignore[no-any-return]


class Arrivals:
    """When each batch reached the driver, and the matches so far (Sink.add, wrapped)."""

    def __init__(self) -> None:
        self.times: list[tuple[float, int]] = []
        self.real = Sink.add

    def __enter__(self) -> Arrivals:
        real, times = self.real, self.times

        def add(self_: Sink, batch: Any) -> None:
            real(self_, batch)
            times.append((time.perf_counter(), self_.played))
        Sink.add = add  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Sink.add = self.real  # type: ignore[method-assign]

    def rate(self) -> float:
        """Matches a second from the first batch's arrival (the workers up: Ray's start-up and
        the workers' first batch not counted) to the last's (the run's drain counted)."""
        (t0, n0), (t1, n1) = self.times[0], self.times[-1]
        return (n1 - n0) / (t1 - t0)


def speed(tmp: Path, matches: int, strategy: str = "random") -> str:
    """``cribsim run --serial`` against ``--workers 2`` (an embedded Ray, its import, start-up and
    teardown counted) on the same ``matches`` one-game matches, in this process: the wall times,
    and the Ray run's rate from its first batch back to its last (:class:`Arrivals`)."""
    from cribsim.tournament.runner import run_experiment

    exp = experiment(tmp, strategy, matches, 11)
    t0 = time.perf_counter()
    run_experiment(exp, tmp / "serial", serial=True, quiet=True, report=False)
    serial = time.perf_counter() - t0
    with Arrivals() as arrivals:
        t0 = time.perf_counter()
        run_experiment(exp, tmp / "ray", workers=2, quiet=True, report=False)
        ray_wall = time.perf_counter() - t0
    steady = arrivals.rate()
    s = _session(tmp / "ray")
    print(f"speed, {matches:,} {strategy} matches: serial {serial:.1f} s ({matches / serial:,.0f}/s); 2 workers "
          f"{ray_wall:.1f} s with Ray's start-up and teardown ({matches / ray_wall:,.0f}/s, "
          f"{serial / ray_wall:.2f}x the serial rate; Ray up in {s['ray_start_s']} s, the first batch back after "
          f"{arrivals.times[0][0] - t0:.1f} s), from the first batch back to the last {steady:,.0f}/s "
          f"({steady * serial / matches:.2f}x); the driver busy {s['driver_busy']:.1%} of the Ray run; batches "
          f"{s['batches']}")
    return (f"{matches:,} matches: 2 workers {serial / ray_wall:.2f}x serial with start-up, "
            f"{steady * serial / matches:.2f}x once the workers are up")


def check(tmp: Path, matches: int, costs: dict[str, Any], strategy: str = "random") -> str:
    """The simulation's rate against runs on this machine: 1 and 2 workers of an embedded Ray
    and a ``ray.cluster_utils`` cluster of 4 one-CPU nodes, all on its cores (their rates from
    the first batch back to the last), the cores counted: with C cores shared by W workers and
    the driver, at most C / (u + d) matches a second."""
    import ray
    from ray.cluster_utils import Cluster

    from cribsim.tournament.runner import run_experiment

    w = worker_costs(tmp, [strategy])[strategy]  # (now: the machine's pace drifts)
    cores = os.cpu_count() or 1
    d_batch = costs["d_batch"] + costs.get("rt_cpu", 0.0)
    measured, modelled = {}, {}

    def run(k: int, name: str) -> None:
        run_experiment(experiment(tmp, strategy, 2000, 3), tmp / f"warm{name}", workers=k, quiet=True, report=False)
        with Arrivals() as arrivals:
            run_experiment(experiment(tmp, strategy, matches, 30 + k), tmp / name, workers=k, quiet=True,
                           report=False)
        measured[name] = arrivals.rate()
        sim_rate = simulate(w["u"], w["f"], costs["d_match"], d_batch, k, matches)["rate"]
        modelled[name] = min(sim_rate, cores / (w["u"] + costs["d_match"]))
        s = _session(tmp / name)
        print(f"check, {strategy}, {name}: model {modelled[name]:,.0f} matches/s, measured {measured[name]:,.0f} "
              f"({measured[name] / modelled[name]:.2f} of the model); the driver busy {s['driver_busy']:.1%}, "
              f"batches {s['batches']}")

    for k in (1, 2):
        env = {"env_vars": {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}}
        ray.init(address="local", num_cpus=k, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.ERROR, runtime_env=env)
        try:
            run(k, f"{k} worker{'s' if k > 1 else ''}, embedded Ray")
        finally:
            ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        for _ in range(3):
            cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False, logging_level=logging.ERROR)
        cluster.wait_for_nodes()
        run(4, "4 one-CPU nodes (ray.cluster_utils)")
    finally:
        ray.shutdown()
        cluster.shutdown()
    return "check: " + ", ".join(f"{measured[k] / modelled[k]:.2f}" for k in measured) + " of the model"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="driver,worker,ray,sim",
                    help="driver, worker, ray, sim, speed (serial against 2 workers), check (runs against the model)")
    ap.add_argument("--speed-matches", type=int, default=100_000)
    ap.add_argument("--check-matches", type=int, default=300_000)
    ap.add_argument("--matches", type=int, default=200_000)
    ap.add_argument("--sizes", default="2000,50000")
    ap.add_argument("--strategies", default="random,greedy,hoyle,ev")
    ap.add_argument("--workers", default="2,100,1000,2000")
    ap.add_argument("--sim-seconds", type=float, default=1800.0, help="sim: a worker's seconds of play a run")
    ap.add_argument("--slow", default="mc=0.88,expert=1.04",
                    help="sim: strategies of the Python lane too, as name=seconds a match (docs/performance.md, "
                         "2026-12-02), their fixed cost a batch 0.3 ms")
    ap.add_argument("--given", help="sim: a JSON file of the costs (as --save writes them)")
    ap.add_argument("--save", help="write the costs measured to this JSON file")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-driver-"))
    costs: dict[str, Any] = json.loads(Path(args.given).read_text()) if args.given else {}
    last = []
    try:
        if "driver" in args.parts:
            costs.update(driver_costs(tmp, args.matches, [int(s) for s in args.sizes.split(",")]))
            last.append(f"driver {1e6 * costs['d_match']:.3f} us a match, {1e3 * costs['d_batch']:.2f} ms a batch")
        if "worker" in args.parts:
            costs["workers"] = worker_costs(tmp, args.strategies.split(","))
        if "ray" in args.parts:
            costs.update(ray_costs(tmp))
            last.append(f"Ray round trip {1e3 * costs['rt_wall']:.2f} ms a batch")
        if args.save:
            Path(args.save).write_text(json.dumps(costs, indent=1))
        if "sim" in args.parts:
            if "workers" not in costs or "d_match" not in costs:
                sys.exit("bench_driver: sim needs the driver's and the workers' costs (--parts driver,worker, "
                         "or --given)")
            for item in filter(None, args.slow.split(",")):
                name, u = item.split("=")
                costs["workers"].setdefault(name, {"u": float(u), "f": 0.0003})
            last.append(sim(costs, [int(k) for k in args.workers.split(",")], args.sim_seconds))
        if "check" in args.parts:
            last.append(check(tmp, args.check_matches, costs))
        if "speed" in args.parts:
            last.append(speed(tmp, args.speed_matches))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("bench_driver: " + " | ".join(last))


if __name__ == "__main__":
    main()
