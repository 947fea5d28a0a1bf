"""The cost of isolation: two-player games per second of the built-in ``random`` in-process
against the same class (``strategies.random_play:RandomStrategy``) run as an isolated plug-in
(its decisions answered in a host process over the JSON-lines protocol), in alternating rounds
in one process (the machine is noisy; a ratio measured in the same run is what counts).

    python benchmarks/bench_plugins.py [--rounds R] [--seconds S] [--strategy NAME]
    python benchmarks/bench_plugins.py --sandbox [--rounds R] [--seconds S]

(``--strategy ev``: the same for another built-in.)

Lineups: ``in-process`` is random against random, both in-process; ``one isolated`` is the
plug-in against the built-in (a plug-in in a tournament of built-ins); ``both isolated`` is the
plug-in in both seats. Also printed: the time to start a host (a process, its imports, the
plug-in's checks), paid once per worker, entry and seat, and again after each fault. The last
line is the ratio of the median rates, in-process over one isolated.

``--sandbox``: the cost of the sandbox. The same plug-in isolated without the sandbox, the same
in the sandbox, and the C bot of ``examples/bots`` (built here with ``cc``) unsandboxed and
sandboxed, each in one seat against the built-in ``random``, in alternating rounds; with each
one's start-up time (check and hello, paid once per worker, entry and seat). The last line is
the sandbox's cost per game for the Python plug-in: the median rate unsandboxed over sandboxed."""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from common import rate  # benchmarks/common.py (run from this folder or the project root)

from cribsim.games.cribbage.strategy import BUILTIN
from cribsim.isolation import Isolated, check
from cribsim.isolation.bots import Bot
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--strategy", default="random", choices=sorted(BUILTIN))
    ap.add_argument("--sandbox", action="store_true", help="measure the sandbox's cost (see above)")
    args = ap.parse_args()
    if args.sandbox:
        return sandbox_cost(args)
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


def sandbox_cost(args):
    rules = load_rules("standard")
    spec = BUILTIN["random"]
    folder = tempfile.mkdtemp()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(["cc", "-O2", "-o", f"{folder}/lowcard", f"{root}/examples/bots/lowcard.c"], check=True)
    bots = {"python isolated": (spec, Bot(spec=spec, sandboxed=False)),
            "python sandboxed": (spec, Bot(spec=spec, sandboxed=True)),
            "C unsandboxed": ("program:lowcard", Bot(command=("./lowcard",), cwd=folder, sandboxed=False)),
            "C sandboxed": ("program:lowcard", Bot(command=("./lowcard",), cwd=folder, sandboxed=True,
                                                   files=(os.path.join(folder, "lowcard"),)))}
    players, startup = {}, {}
    builtin = make_strategies([factory("random")])[0]
    try:
        for name, (s, bot) in bots.items():
            t0 = time.perf_counter()
            caps = check(s, {}, [rules], "cribbage", bot)
            iso = Isolated(s, {}, "cribbage", [rules], 10.0, caps, bot)
            players[name] = (iso, [iso.make(0, rules), builtin])
            startup[name] = time.perf_counter() - t0
        for _, strategies in players.values():
            rate(rules, strategies, args.warmup, 10**9, 10)
        rates = {name: [] for name in players}
        start = dict.fromkeys(players, 0)
        for _ in range(args.rounds):
            for name, (_, strategies) in players.items():
                r, n = rate(rules, strategies, args.seconds, start[name], 10)
                start[name] += n
                rates[name].append(r)
    finally:
        for iso, _ in players.values():
            iso.close()
        shutil.rmtree(folder, ignore_errors=True)
    for name, rs in rates.items():
        print(f"{name:>17}: start-up {startup[name]:.2f} s (check, then hello); games/s per round "
              f"{', '.join(f'{r:,.0f}' for r in rs)}; median {statistics.median(rs):,.0f}")
    for a, b in (("python isolated", "python sandboxed"), ("C unsandboxed", "C sandboxed")):
        ratios = [x / y for x, y in zip(rates[a], rates[b])]
        print(f"{a} / {b} per round: {', '.join(f'{x:.3f}' for x in ratios)}")
    c = statistics.median(rates["C unsandboxed"]) / statistics.median(rates["C sandboxed"])
    print(f"C bot, unsandboxed / sandboxed (median rates): {c:.3f}")
    py = statistics.median(rates["python isolated"]) / statistics.median(rates["python sandboxed"])
    print(f"python plug-in, isolated without / with the sandbox (median rates): {py:.3f}")


if __name__ == "__main__":
    main()
