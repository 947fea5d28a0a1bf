"""Complete games to the target per second on one core, random strategies.

    python benchmarks/bench_games.py --players N [--teams] [--strategy NAME] [--seconds S] [--warmup W]

The last line printed is the games-per-second figure."""

import argparse
import time

from cribsim.games.cribbage.engine import play_game
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory

PRESETS = {(2, False): "standard", (3, False): "three_player", (4, False): "four_player",
           (4, True): "four_player_partners", (5, False): "five_player"}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--teams", action="store_true")
    ap.add_argument("--rules", help="a rules file or preset (overrides --players)")
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--warmup", type=float, default=3.0,
                    help="seconds of games first, on other deals, so lazily built tables (scoring, "
                         "ev's per-hand-pattern values) are filled as in a long run (default 3)")
    args = ap.parse_args()
    rules = load_rules(args.rules or PRESETS[(args.players, args.teams)])
    strategies = make_strategies([factory(args.strategy)] * rules.players)
    t0, i = time.perf_counter(), 0
    while time.perf_counter() - t0 < args.warmup:  # warm-up on seed 0; the timed games use seed 1
        play_game(rules, strategies, 0, (i, 0))
        i += 1
    games = deals = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        for _ in range(200):
            res = play_game(rules, strategies, 1, (games, 0))
            games += 1
            deals += res.deals
    dt = time.perf_counter() - t0
    print(f"rules: {rules.name} ({rules.players} players), strategy: {args.strategy}, "
          f"engine: pure Python")
    print(f"games: {games} in {dt:.1f} s; deals per game: {deals / games:.2f}; deals/s: {deals / dt:,.0f}")
    print(f"games/s: {games / dt:,.0f}")


if __name__ == "__main__":
    main()
