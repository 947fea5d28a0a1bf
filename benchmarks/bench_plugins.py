"""The cost of isolation: two-player games per second of the built-in ``random`` in-process
against the same class (``strategies.random_play:RandomStrategy``) run as an isolated plug-in
(its decisions answered in a host process over the JSON-lines protocol), in alternating rounds
in one process (the machine is noisy; a ratio measured in the same run is what counts).

    python benchmarks/bench_plugins.py [--rounds R] [--seconds S] [--strategy NAME]

(``--strategy ev``: the same for another built-in.)

Lineups: ``in-process`` is random against random, both in-process; ``one isolated`` is the
plug-in against the built-in (a plug-in in a tournament of built-ins); ``both isolated`` is the
plug-in in both seats. Also printed: the time to start a host (a process, its imports, the
plug-in's checks), paid once per worker, entry and seat, and again after each fault. The last
line is the ratio of the median rates, in-process over one isolated."""

import argparse
import statistics
import time

from common import rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim.games.cribbage.strategy import BUILTIN
from cribsim.isolation import Isolated, check
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--strategy", default="random", choices=sorted(BUILTIN))
    args = ap.parse_args()
    spec = BUILTIN[args.strategy]
    rules = load_rules("standard")
    t0 = time.perf_counter()
    caps = check(spec, {}, [rules], "cribbage")
    startup = time.perf_counter() - t0
    plugin = Isolated(spec, {}, "cribbage", [rules], 10.0, caps)
    builtin = factory(args.strategy)
    try:
        lineups = {
            "in-process": make_strategies([builtin] * 2),
            "one isolated": [plugin.make(0, rules), make_strategies([builtin])[0]],
            "both isolated": [plugin.make(0, rules), plugin.make(1, rules)],
        }
        for strategies in lineups.values():
            rate(rules, strategies, args.warmup, 10**9, 10)  # other deals than the timed ones
        rates = {name: [] for name in lineups}
        start = {name: 0 for name in lineups}
        for _ in range(args.rounds):
            for name, strategies in lineups.items():
                r, n = rate(rules, strategies, args.seconds, start[name], 10)
                start[name] += n
                rates[name].append(r)
    finally:
        plugin.close()
    print(f"{args.strategy}: host start-up (process, imports, checks): {startup:.2f} s")
    for name, rs in rates.items():
        print(f"{name:>13}: games/s per round {', '.join(f'{r:,.0f}' for r in rs)}; "
              f"median {statistics.median(rs):,.0f}")
    ratios = [a / b for a, b in zip(rates["in-process"], rates["one isolated"])]
    print(f"in-process / one isolated per round: {', '.join(f'{x:.1f}' for x in ratios)}")
    print(f"in-process / one isolated (median rates): "
          f"{statistics.median(rates['in-process']) / statistics.median(rates['one isolated']):.1f}")


if __name__ == "__main__":
    main()
