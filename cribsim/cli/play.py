"""``cribsim play``: one complete game of any rules file, narrated deal by deal."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import CribsimError
from ..games import default_game, game_named
from ..matchplay import make_strategies
from ..ruleset import load_rules
from ..strategy import factory
from .args import load_rules_arg, probability_arg, seed_arg


def add_commands(sub: Any) -> None:
    pl = sub.add_parser("play", help="narrate one complete game",
                        description="Play one complete game with the given strategies and narrate it "
                                    "deal by deal.")
    pl.add_argument("--players", type=int, default=2, help="2 to 5 (default 2; the default game's presets)")
    pl.add_argument("--teams", action="store_true", help="with --players 4: two partnerships")
    pl.add_argument("--rules", help="a rules file or preset name of any game (overrides --players/--teams; "
                                    "cribsim list shows them)")
    pl.add_argument("--seed", type=seed_arg, default=1, help="the seed, 0..2**63-1 (default 1)")
    pl.add_argument("--strategy", default="random", help="strategy for every seat (default random)")
    pl.add_argument("--miss-rate", type=probability_arg, default=0.0,
                    help="every player overlooks each scoring item with this chance (the counting model)")
    pl.add_argument("--vigilance", type=probability_arg, default=1.0,
                    help="chance of spotting an opponent's miss (with rules where an opponent takes missed points)")
    pl.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    rules = load_rules_arg(args.rules) if args.rules else _rules_for_players(args.players, args.teams)
    game = game_named(rules.game)
    if args.miss_rate and not game.counting_model:
        raise CribsimError(f"cribsim play: --miss-rate: {game.title} has no counting model")
    makers = [factory(args.strategy, rules=(rules,), game=rules.game) for _ in range(rules.players)]
    counters = [(args.miss_rate, args.vigilance)] * rules.players if args.miss_rate else None
    result = game.play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True, counters=counters)
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(game.narrate(rules, result)))
    return 0


def _rules_for_players(players: int, teams: bool) -> Any:
    presets = default_game().presets_by_players
    if (players, teams) not in presets:
        counts = sorted({n for n, _ in presets})
        raise CribsimError("cribsim play: --teams needs --players 4" if teams
                           else f"cribsim play: --players must be {counts[0]} to {counts[-1]}, got {players}")
    return load_rules(presets[(players, teams)])
