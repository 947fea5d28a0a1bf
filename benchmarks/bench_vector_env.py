"""The vector environment against the AEC environment: random masked actions in random two-player
games of the standard rules, on one core, in alternating rounds in one process (the machine is
noisy: the ratio of the medians is what counts).

    pip install -e '.[rl]'
    python benchmarks/bench_vector_env.py [--rounds R] [--seconds S] [--envs N]

- AEC: ``cribsim.env.raw_env("standard")``, each agent a random token of its action mask
  (``env.last()``, then ``env.step``), as benchmarks/bench_env.py drives it;
- vector: ``cribsim.games.cribbage.vector.VectorEnv("standard", num_envs=N, copy=False)``, every env's token
  drawn at once in numpy (a uniform draw a row, the legal token it falls on: :func:`random_tokens`),
  then one ``step``; the steps are the envs' tokens answered (a two-card discard is two, as in
  the AEC environment).

The process is pinned to one core. The last line is the vector environment's steps per second
over the AEC environment's (median rates)."""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: numpy's BLAS threads stay idle
import random
import statistics
import time

import numpy as np
from common import pettingzoo_rate  # benchmarks/common.py

from cribsim.env import raw_env
from cribsim.games.cribbage.vector import VectorEnv


def random_tokens(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal token a row, each equally likely, in one pass over the (0/1) mask: the legal
    tokens' places in row order, each row's count and first place, and a uniform draw a row
    picking among its own."""
    n, width = mask.shape
    legal = np.flatnonzero(mask.view(np.bool_))
    counts = np.bincount(legal // width, minlength=n)
    first = np.cumsum(counts) - counts
    return legal[first + (rng.random(n) * counts).astype(np.int64)] - np.arange(n) * width


def vector_rate(env: VectorEnv, seconds: float, rng: np.random.Generator, start: int) -> tuple[float, int]:
    """(steps per second, games ended) of random masked actions chosen in numpy."""
    obs, _ = env.reset(seed=1, options={"match": start})
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            obs, _, term, _, _ = env.step(random_tokens(obs["action_mask"], rng))
            games += int(term.sum())
        steps += 20 * env.num_envs
    return steps / (time.perf_counter() - t0), games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--envs", type=int, default=1024, help="the vector environment's games (default 1024)")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    aec, vec = raw_env("standard"), VectorEnv("standard", num_envs=args.envs, copy=False)
    rng, nrng = random.Random(1), np.random.default_rng(1)
    aec_rates, vec_rates, start = [], [], 0
    for r in range(args.rounds):
        _, a, ga = pettingzoo_rate(aec, args.seconds, rng, start)
        v, gv = vector_rate(vec, args.seconds, nrng, 1_000_000 * (r + 1))
        start += ga
        aec_rates.append(a)
        vec_rates.append(v)
        print(f"round {r + 1}: AEC {a:,.0f} steps/s ({ga} games); vector {v:,.0f} steps/s ({gv} games ended, "
              f"{args.envs} envs)")
    a, v = statistics.median(aec_rates), statistics.median(vec_rates)
    print(f"AEC environment, random masked actions: {a:,.0f} steps/s (median of {args.rounds})")
    print(f"vector environment, {args.envs} envs, random masked actions in numpy: {v:,.0f} steps/s "
          f"(median of {args.rounds})")
    print(f"vector / AEC: {v / a:.1f}x")


if __name__ == "__main__":
    main()
