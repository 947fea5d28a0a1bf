"""The serial runner against a bare loop of ``play_match`` on one-game random matches, and the
same runner with the garbage collector tuned inside every batch (the heap frozen, higher
thresholds), alternated round by round in one process so that drift hits all three alike.

    python benchmarks/bench_overhead.py [ROUNDS]     # default 4; 3,000 matches a round

Prints each one's median time over the bare loop's, minus 1 (0.245: 24.5% slower), last."""

import gc
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cribsim.games.cribbage.match import play_match
from cribsim.strategy import factory
from cribsim.tournament import batch
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from cribsim.tournament.schedule import build_schedule

CONFIG = """\
name: ov
variants: [standard]
lineup: [{name: a, strategy: random}, {name: b, strategy: random}]
format: gauntlet
matches: 3000
seed: 3
"""


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-overhead-"))
    (tmp / "ov.yaml").write_text(CONFIG)
    exp = load_experiment(tmp / "ov.yaml")
    specs = build_schedule(exp)
    rules = exp.variants[0]
    makers = [factory(e.strategy, e.param_dict()) for e in exp.lineup]
    real = batch.play_batch

    def tuned(ctx, places):  # type: ignore[no-untyped-def]
        old = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        try:
            return real(ctx, places)
        finally:
            gc.set_threshold(*old)
            gc.unfreeze()

    times: dict[str, list[float]] = {"bare": [], "runner": [], "runner_gc": []}
    for _ in range(rounds):
        t0 = time.perf_counter()
        for s in specs:
            play_match(rules, [makers[s.sides[rules.side_of[seat]]] for seat in range(rules.players)], exp.seed, s.key)
        times["bare"].append(time.perf_counter() - t0)
        for name in ("runner", "runner_gc"):
            batch.play_batch = tuned if name == "runner_gc" else real
            shutil.rmtree(tmp / "out", ignore_errors=True)
            t0 = time.perf_counter()
            run_experiment(exp, tmp / "out", serial=True, quiet=True, report=False)
            times[name].append(time.perf_counter() - t0)
        batch.play_batch = real
    shutil.rmtree(tmp, ignore_errors=True)
    bare = statistics.median(times["bare"])
    print({k: round(statistics.median(v) / bare - 1, 4) for k, v in times.items()})


if __name__ == "__main__":
    main()
