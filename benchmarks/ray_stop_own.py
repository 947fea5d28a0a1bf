"""Stopping a Ray cluster of one's own and no other, both ways docs/guide-cluster.md gives, by
the page's own commands (read from it; ``tests/kernel/own_ray.py``):

    python benchmarks/ray_stop_own.py

Starts two heads of its own on free ports, A with ``--block`` (its PID kept) and B without, each
in a folder of its own; stops B by its session folder while A runs, then A by its PID. Checks
that each stop leaves none of that head's processes and every process of the other head running,
and says how many of the machine's other Ray processes (anyone else's clusters) still run after
(they are never signalled; one may end by itself meanwhile). Prints the times; exit 1 if a
check fails. About 20 s on an idle 2-core machine (two heads start)."""

import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.kernel import own_ray  # noqa: E402

RAY_NAMES = ("raylet", "gcs_server", "ray::", "default_worker.py", "log_monitor.py", "dashboard.py", "monitor.py")


def ray_processes():
    """Every Ray process on the machine, by the names ``ray stop`` looks for."""
    return {p for p in own_ray._pids() if any(n in own_ray._cmdline(p) for n in RAY_NAMES)}


def stop(name, head, mine, other):
    """Stop ``head`` by the page's block ``name``; whether none of ``mine`` is left and every
    process of ``other`` still runs."""
    t0 = time.monotonic()
    own_ray.bash(own_ray.block(name), head.folder)
    left = own_ray.wait_gone(mine | ({head.start_pid} if head.start_pid else set()), 45)
    spared = own_ray.running(other) == other
    print(f"{name}: {len(mine)} processes stopped in {time.monotonic() - t0:.1f} s, {len(left)} left"
          + (f"; the other head's {len(other)} all running: {spared}" if other else ""))
    return not left and spared


def main():
    before = ray_processes()
    t0 = time.monotonic()
    a, b = own_ray.start_blocking(), own_ray.start_plain()
    print(f"two heads up in {time.monotonic() - t0:.1f} s: A {a.folder} (--block, PID {a.start_pid}), B {b.folder}")
    try:
        mine_a, mine_b = a.processes(), b.processes()
        ok = stop("ray-stop-by-session", b, mine_b, mine_a) and stop("ray-stop-own", a, mine_a, set())
    finally:
        for head, name in ((a, "ray-stop-own"), (b, "ray-stop-by-session")):
            if own_ray.running(head.processes()):  # (a check failed: stop it all the same)
                own_ray.bash(own_ray.block(name), head.folder)
            shutil.rmtree(head.folder, ignore_errors=True)
    still = own_ray.running(before)
    print(f"the machine's other Ray processes: {len(before)} before, {len(still)} still running")
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
