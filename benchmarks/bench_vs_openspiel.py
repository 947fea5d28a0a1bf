"""cribsim against OpenSpiel's cribbage, random two-player games to 121 on one core, measured in
alternating rounds in one process (the machine is noisy: the ratio from one run is what counts).

    pip install open-spiel      # an optional benchmark dependency, not a runtime one
    python benchmarks/bench_vs_openspiel.py [--rounds R] [--seconds S]
    python benchmarks/bench_vs_openspiel.py --fast [--rounds R] [--seconds S]

Without ``--fast``: OpenSpiel is driven from a Python loop, as a Python user drives it:
``while not state.is_terminal(): state.apply_action(rng.choice(state.legal_actions()))``
(chance nodes included: their legal actions are the outcomes). cribsim plays complete games with
its built-in ``random`` strategy through the tournament driver (``cribsim.engine.play_game``).

With ``--fast``, both sides play whole games in compiled code: OpenSpiel's C++
``pyspiel.evaluate_bots`` with two C++ uniform random bots (chance nodes sampled in C++), one
call a game; cribsim's native lane (``_lane.games``), 2,000 games a call, each cut for, dealt from
its addressed decks and played by ``random`` exactly as the Python engine would.

The last line is the ratio of the median rates (cribsim / OpenSpiel)."""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from common import (  # benchmarks/common.py (run from this folder or the project root)
    native_rate,
    openspiel_cpp_rate,
    rate,
)

from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def openspiel_rate(game, seconds: float, rng: random.Random) -> float:
    games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        games += 1
    return games / (time.perf_counter() - t0)


def fast(game, rounds: int, seconds: float) -> None:
    """Both sides compiled: OpenSpiel's C++ evaluate_bots against the native lane."""
    import pyspiel

    from cribsim.games.cribbage.native import lane

    if lane.module() is None:
        sys.exit(f"bench_vs_openspiel: {lane.status()}")
    native = lane.fast_lane(load_rules("standard"), [("random", {})] * 2)
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(2)]
    openspiel_cpp_rate(game, bots, 1.0, 0)
    native_rate(native, 1.0, 10**7, 2000)
    print("cribsim: native lane; OpenSpiel: C++ evaluate_bots with C++ uniform random bots")
    ours, theirs, ours_at, theirs_at = [], [], 0, 0
    for _ in range(rounds):
        r, n = openspiel_cpp_rate(game, bots, seconds, theirs_at)
        theirs.append(r)
        theirs_at += n
        r, n = native_rate(native, seconds, ours_at, 2000)
        ours.append(r)
        ours_at += n
        print(f"openspiel C++ {theirs[-1]:,.0f} games/s  cribsim native {ours[-1]:,.0f} games/s  "
              f"ratio {ours[-1] / theirs[-1]:.2f}")
    greedy, _ = native_rate(lane.fast_lane(load_rules("standard"), [("greedy", {})] * 2), seconds, 0, 2000)
    print(f"cribsim native, greedy against greedy (for reference): {greedy:,.0f} games/s")
    print(f"cribsim native/openspiel C++ (median rates): {statistics.median(ours) / statistics.median(theirs):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--fast", action="store_true", help="both compiled: the native lane against OpenSpiel's C++ "
                                                         "evaluate_bots")
    args = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        sys.exit("bench_vs_openspiel: OpenSpiel is not installed (pip install open-spiel)")
    game = pyspiel.load_game("cribbage")
    if args.fast:
        fast(game, args.rounds, args.seconds)
        return
    rules = load_rules("standard")
    strategies = make_strategies([factory("random")] * 2)
    rng, start = random.Random(1), [10**6]
    openspiel_rate(game, 1.0, rng)  # warm-up: tables filled, caches hot
    rate(rules, strategies, 1.0, start[0])
    start[0] = 0
    print("cribsim engine: pure Python")
    ours, theirs = [], []
    for _ in range(args.rounds):
        theirs.append(openspiel_rate(game, args.seconds, rng))
        r, n = rate(rules, strategies, args.seconds, start[0])
        start[0] += n
        ours.append(r)
        print(f"openspiel {theirs[-1]:,.0f} games/s  cribsim {ours[-1]:,.0f} games/s  "
              f"ratio {ours[-1] / theirs[-1]:.3f}")
    print(f"cribsim/openspiel (median rates): {statistics.median(ours) / statistics.median(theirs):.3f}")


if __name__ == "__main__":
    main()
