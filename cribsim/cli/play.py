"""``cribsim play``: one complete game of any rules file, narrated deal by deal."""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any

from ..errors import CribsimError, IllegalMove
from ..games import default_game, game_named
from ..isolation import Isolated, PluginFault, check
from ..isolation.bots import Bot, sandbox_on
from ..isolation.sandbox import require
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
    pl.add_argument("--bot", action="append", default=[], metavar="COMMAND",
                    help="a program that speaks the player protocol takes the next seat (repeat for more seats); "
                         "it runs sandboxed in the folder of its first file argument")
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
    if len(args.bot) > rules.players:
        raise CribsimError(f"cribsim play: {len(args.bot)} bots for {rules.players} seats")
    bots = [program(cmd, i, rules) for i, cmd in enumerate(args.bot)]
    makers: list[Any] = [b.bind(seat, rules) for seat, b in enumerate(bots)]
    makers += [factory(args.strategy, rules=(rules,), game=rules.game) for _ in range(rules.players - len(bots))]
    counters = [(args.miss_rate, args.vigilance)] * rules.players if args.miss_rate else None
    try:
        result = game.play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True, counters=counters)
    except PluginFault as e:
        raise CribsimError(f"cribsim play: the bot in seat {e.seat} forfeits: {e.kind}: {e.message}") from None
    except IllegalMove as e:
        raise CribsimError(f"cribsim play: {e}") from None
    finally:
        for b in bots:
            b.close()
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(game.narrate(rules, result)))
    return 0


def program(command: str, seat: int, rules: Any) -> Isolated:
    """``--bot COMMAND``: a program in the folder of its first argument that is a file (else the
    working folder), sandboxed, checked against the rules."""
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise CribsimError(f"cribsim play: --bot {command!r}: {e}") from None
    if not argv:
        raise CribsimError("cribsim play: --bot needs a command")
    files = [a for a in argv if os.path.isfile(a)]
    cwd = os.path.dirname(os.path.abspath(files[0])) if files else os.getcwd()
    argv = [os.path.abspath(a) if os.path.isfile(a) else a for a in argv]
    require()
    bot = Bot(command=tuple(argv), cwd=cwd, sandboxed=sandbox_on(False))
    spec = f"program:seat{seat}"
    return Isolated(spec, {}, rules.game, (rules,), 10.0, check(spec, {}, (rules,), rules.game, bot), bot)


def _rules_for_players(players: int, teams: bool) -> Any:
    presets = default_game().presets_by_players
    if (players, teams) not in presets:
        counts = sorted({n for n, _ in presets})
        raise CribsimError("cribsim play: --teams needs --players 4" if teams
                           else f"cribsim play: --players must be {counts[0]} to {counts[-1]}, got {players}")
    return load_rules(presets[(players, teams)])
