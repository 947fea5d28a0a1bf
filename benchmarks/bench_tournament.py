"""Tournament runner speed: the speed-up of 2 Ray workers over 1, and the runner's overhead
against a bare serial loop of play_match calls (same matches).

    python benchmarks/bench_tournament.py [--matches N] [--strategy greedy]

Defaults size the one-worker run at about a minute on this machine. Prints matches per second
for each way of running, then the two figures."""

import argparse
import tempfile
import textwrap
import time
from pathlib import Path

from cribsim.games.cribbage.match import play_match
from cribsim.strategy import factory
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from cribsim.tournament.schedule import build_schedule


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--matches", type=int, default=60000, help="per table (two tables)")
    ap.add_argument("--rounds", type=int, default=4, help="bare/runner alternations for the overhead")
    ap.add_argument("--strategy", default="greedy")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cribsim-bench-"))

    def experiment(matches, seed):
        cfg = tmp / f"bench{seed}.yaml"
        cfg.write_text(textwrap.dedent(f"""\
            name: bench
            variants: [standard]
            lineup:
              - {{name: a, strategy: {args.strategy}}}
              - {{name: b, strategy: {args.strategy}}}
              - {{name: c, strategy: random}}
            format: gauntlet
            matches: {matches}
            seed: {seed}
        """))
        return load_experiment(cfg)

    # overhead: alternate a bare loop of play_match and the serial runner on the same matches,
    # round by round, so that drift in the machine's speed hits both alike
    bare = serial = 0.0
    n_over = 0
    for r in range(args.rounds):
        exp = experiment(args.matches // args.rounds, 100 + r)
        specs = build_schedule(exp)
        rules = exp.variants[0]
        makers = [factory(e.strategy, e.param_dict()) for e in exp.lineup]
        t0 = time.perf_counter()
        for s in specs:
            play_match(rules, [makers[s.sides[rules.side_of[seat]]] for seat in range(rules.players)],
                       exp.seed, s.key)
        bare += time.perf_counter() - t0
        t0 = time.perf_counter()
        run_experiment(exp, tmp / f"serial{r}", serial=True, quiet=True, report=False)
        serial += time.perf_counter() - t0
        n_over += len(specs)
    print(f"bare serial loop:   {n_over / bare:8.0f} matches/s ({n_over} matches, {bare:.1f} s)")
    print(f"runner --serial:    {n_over / serial:8.0f} matches/s ({serial:.1f} s)")

    exp = experiment(args.matches, 1)
    n = len(build_schedule(exp))
    times = {}
    for w in (1, 2):
        import ray

        if ray.is_initialized():
            ray.shutdown()
        t0 = time.perf_counter()
        run_experiment(exp, tmp / f"ray{w}", workers=w, quiet=True, report=False)
        times[w] = time.perf_counter() - t0
        print(f"runner on Ray, {w} worker{'s' if w > 1 else ' '}: {n / times[w]:6.0f} matches/s ({times[w]:.1f} s, "
              "including Ray start-up)")
    print(f"runner overhead against the bare loop (serial, {args.rounds} alternating rounds): "
          f"{100 * (serial / bare - 1):.1f}%")
    print(f"speed-up of 2 workers over 1: {times[1] / times[2]:.2f}x")


if __name__ == "__main__":
    main()
