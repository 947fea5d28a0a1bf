"""A scoring of one's own against the standard game's, two-player deals per second on one core
(deals, since a scoring changes how many deals a game lasts), measured in alternating rounds in
one process (issue 21: within 10% once the tables are built).

    python benchmarks/bench_scoring_data.py [--strategy random|ev] [--rounds R] [--seconds S]
                                            [--scoring '{pair: 3, fifteen: 3, last_card: 2}']

The standard game runs on the table-driven ``show_points``/``peg_points``; any other scoring on
the same functions over a rank table built for it (``scoring.Scorer``), and ``ev`` on its own
expectations and crib tables for that scoring (built, or read from the cache folder, before the
timing). Both are warmed up first on other deals. The last line is the ratio of the median rates
of deals, the scoring's over the standard game's."""

import argparse
import statistics
import time

import yaml

from cribsim.games.cribbage.engine import play_game
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory


def deal_rate(rules, strategies, seconds, start):
    """(deals per second, games played) over ``seconds`` of complete games from match key ``start``."""
    games = deals = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            deals += play_game(rules, strategies, 1, (start + games, 0)).deals
            games += 1
    return deals / (time.perf_counter() - t0), games


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--scoring", default="{pair: 3, fifteen: 3, last_card: 2}")
    args = ap.parse_args()
    scoring = yaml.safe_load(args.scoring)
    both = {"standard": load_rules("standard"),
            "scoring": rules_from_mapping({"extends": "standard", "name": "own", "scoring": scoring})}
    make = factory(args.strategy, rules=both.values())  # ev's tables for the scoring: built before the timing
    lineups = {name: make_strategies([make] * 2) for name in both}
    for name, strategies in lineups.items():
        deal_rate(both[name], strategies, args.warmup, 10**9)  # other deals than the timed ones
    rates = {name: [] for name in both}
    start = {name: 0 for name in both}
    for _ in range(args.rounds):
        for name, strategies in lineups.items():
            r, n = deal_rate(both[name], strategies, args.seconds, start[name])
            start[name] += n
            rates[name].append(r)
    print(f"engine: pure Python, strategy: {args.strategy}, scoring: {scoring}")
    for name, rs in rates.items():
        print(f"{name:>8} deals/s per round: {', '.join(f'{r:,.0f}' for r in rs)}")
    ratio = statistics.median(rates["scoring"]) / statistics.median(rates["standard"])
    print(f"scoring/standard (median rates): {ratio:.3f}")


if __name__ == "__main__":
    main()
