"""``cribsim play``: one complete game of any rules file, narrated deal by deal."""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from ..codepath import expose_named, find, top_name
from ..errors import CribsimError, IllegalMove
from ..gamelog import UNFINISHED, GameTape, MatchLog, append_logs
from ..games import default_game, game_named
from ..human import HumanSeat, Quit, terminal
from ..isolation import Isolated, PluginFault, check, is_plugin
from ..isolation.bots import Bot, sandbox_on
from ..isolation.plugin import who
from ..isolation.protocol import shown
from ..isolation.sandbox import require
from ..matchplay import make_strategies
from ..ruleset import load_rules
from ..strategy import factory
from .args import load_rules_arg, probability_arg, seed_arg

MAX_SHOWN = 40  # lines of a bot's standard error shown after a game


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
    pl.add_argument("--human", type=int, metavar="SEAT",
                    help="you take this seat (0 first) and play it in the terminal: cards by name or number, "
                         "? for a hint from expert, q to leave")
    pl.add_argument("--against", metavar="NAME",
                    help="with --human: the strategy of every other seat (default: the game's own choice)")
    pl.add_argument("--save", metavar="FILE", help="with --human: save the game as a game record (a new "
                                                   ".jsonl.gz file; cribsim replay FILE narrates it), as far as it "
                                                   "went if you leave it")
    pl.add_argument("--trusted", action="store_true",
                    help="play a module:Class that --strategy or --against names in this process (unsafe: only for "
                         "your own code); without it, such a plug-in plays in the sandbox, as in a run")
    pl.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    rules = load_rules_arg(args.rules) if args.rules else _rules_for_players(args.players, args.teams)
    game = game_named(rules.game)
    if args.human is not None:
        return play_human(args, rules, game)
    if args.save is not None:
        raise CribsimError("cribsim play: --save goes with --human (a run records games with record: in its config)")
    if args.miss_rate and not game.counting_model:
        raise CribsimError(f"cribsim play: --miss-rate: {game.title} has no counting model")
    if len(args.bot) > rules.players:
        raise CribsimError(f"cribsim play: {len(args.bot)} bots for {rules.players} seats")
    programs = [program(cmd, i, rules) for i, cmd in enumerate(args.bot)]
    other = player(args.strategy, rules, args.trusted)
    makers: list[Any] = [b.bind(seat, rules) for seat, b in enumerate(programs)]
    makers += [_seat_maker(other, seat, rules) for seat in range(len(programs), rules.players)]
    bots = programs + ([other] if isinstance(other, Isolated) else [])
    counters = [(args.miss_rate, args.vigilance)] * rules.players if args.miss_rate else None
    try:
        result = game.play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True, counters=counters)
    except PluginFault as e:
        raise CribsimError(f"cribsim play: the bot in seat {e.seat} forfeits: {e.kind}: {e.message}") from None
    except IllegalMove as e:
        raise CribsimError(f"cribsim play: {e}") from None
    finally:
        _close(bots)
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(game.narrate(rules, result)))
    return 0


def player(spec: str, rules: Any, trusted: bool) -> Any:
    """The maker of ``--strategy`` or ``--against``: a built-in, or a plug-in, sandboxed unless
    ``trusted`` (then made importable and played here)."""
    if not is_plugin(spec, rules.game) or ":" not in spec:
        return factory(spec, rules=(rules,), game=rules.game)
    if trusted:
        expose_named(spec)
        return factory(spec, rules=(rules,), game=rules.game)
    require()
    bot = Bot(spec=spec, sandboxed=sandbox_on(False), home=find(top_name(spec)) or "")
    return Isolated(spec, {}, rules.game, (rules,), 10.0, check(spec, {}, (rules,), rules.game, bot), bot)


def _seat_maker(make: Any, seat: int, rules: Any) -> Any:
    return make.bind(seat, rules) if isinstance(make, Isolated) else make


def _close(bots: list[Isolated]) -> None:
    """End the bots' processes and show what they wrote on standard error: on cribsim's own,
    each line escaped and named by its bot (a bot never writes there itself)."""
    for b in bots:
        said = b.take_errors()
        b.close()
        for line in said.decode("utf-8", "replace").splitlines()[-MAX_SHOWN:]:
            print(f"{who(b.spec)}: {shown(line, 300)}", file=sys.stderr)


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
    own = tuple(a for a in argv if os.path.isfile(a))
    bot = Bot(command=tuple(argv), cwd=cwd, sandboxed=sandbox_on(False), files=own)
    spec = f"program:seat{seat}"
    return Isolated(spec, {}, rules.game, (rules,), 10.0, check(spec, {}, (rules,), rules.game, bot), bot)


def _rules_for_players(players: int, teams: bool) -> Any:
    presets = default_game().presets_by_players
    if (players, teams) not in presets:
        counts = sorted({n for n, _ in presets})
        raise CribsimError("cribsim play: --teams needs --players 4" if teams
                           else f"cribsim play: --players must be {counts[0]} to {counts[-1]}, got {players}")
    return load_rules(presets[(players, teams)])


def play_human(args: argparse.Namespace, rules: Any, game: Any) -> int:
    """``cribsim play --human SEAT``: one game with a person in that seat (see :mod:`cribsim.human`)."""
    if game.human is None:
        raise CribsimError(f"cribsim play: --human: nobody can sit at a {game.title} table yet")
    if not 0 <= args.human < rules.players:
        raise CribsimError(f"cribsim play: --human must be a seat 0 to {rules.players - 1}, got {args.human}")
    if args.bot or args.miss_rate:
        raise CribsimError("cribsim play: --human plays against --against's strategy, without --bot or --miss-rate")
    save = Path(args.save) if args.save is not None else None
    if save is not None:
        _check_save(save, rules)
    table = importlib.import_module(game.human)
    view = table.view(rules)
    args.against = args.against or table.OPPONENT
    other = player(args.against, rules, args.trusted)
    events: list[Any] = []
    ask, say = terminal(sys.stdin, sys.stdout)
    me = HumanSeat(view, args.human, events, ask, say)
    makers: list[Any] = [(lambda rng: me) if seat == args.human else _seat_maker(other, seat, rules)
                         for seat in range(rules.players)]
    tape = GameTape() if save is not None else None
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}; you are seat {args.human}, the others "
          f"play {args.against}")
    try:
        result = game.play_game(rules, make_strategies(makers), args.seed, (0, 0), events=events, tape=tape)
    except (Quit, KeyboardInterrupt) as left:
        return _leave(left, save, rules, tape, args)
    finally:
        _close([other] if isinstance(other, Isolated) else [])
    me.finish()
    print(game.narrate(rules, result)[-1])
    if save is not None and tape is not None:
        _save(save, rules, game, result, tape, args)
    return 0


def _leave(left: BaseException, save: Path | None, rules: Any, tape: GameTape | None,
           args: argparse.Namespace) -> int:
    """The person left (``q``, the end of input, or Ctrl-C): the game so far is saved with
    ``--save``; Ctrl-C then ends as any interrupted command does (exit 130)."""
    print("\nYou left the game.")
    if save is not None and tape is not None:
        _save_unfinished(save, rules, tape, args, "Ctrl-C" if isinstance(left, KeyboardInterrupt) else str(left))
    if isinstance(left, KeyboardInterrupt):
        raise left
    return 0


def _check_save(save: Path, rules: Any) -> None:
    """Before the game: a record holds whole matches, so a game is saved only under rules whose
    match is one game; and a new file in a folder that can be written."""
    fmt = rules.match
    if not (fmt.games == 1 or (fmt.games == 0 and fmt.points_table()["win"] >= fmt.first_to)):
        raise CribsimError(f"cribsim play: --save: under {rules.name} a match is more than one game, and a record "
                           "holds whole matches")
    if save.exists() or save.is_symlink():
        raise CribsimError(f"cribsim play: --save {save}: the file exists; give a new one")
    folder = save.parent if str(save.parent) else Path(".")
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise CribsimError(f"cribsim play: --save {save}: {folder} is not a folder this user can write")


def _save(path: Path, rules: Any, game: Any, result: Any, tape: GameTape, args: argparse.Namespace) -> None:
    """The game as a game record: a match of this one game (refused if the rules' match goes on)."""
    points = [0] * len(rules.sides)
    _, over = game.after_game(rules, result, points, 1)
    if over is None:
        raise CribsimError(f"cribsim play: --save: under {rules.name} a match goes on after this game, and a "
                           "record holds whole matches; nothing saved")
    _write(path, _record(rules, tape, args, over, points, None))
    print(f"Saved to {path}: cribsim replay {path}")


def _save_unfinished(path: Path, rules: Any, tape: GameTape, args: argparse.Namespace, how: str) -> None:
    """A game the person left, recorded as far as it went (as a forfeited match's last game is:
    no winner, ``forfeit`` of kind ``unfinished``), which ``cribsim replay`` narrates to there."""
    side = next(i for i, s in enumerate(rules.sides) if args.human in s)
    left = {"side": side, "entry": "you", "kind": UNFINISHED,
            "error": f"you left the game ({how}) {_when(len(tape.actions))}"}
    _write(path, _record(rules, tape, args, -1, [0] * len(rules.sides), left))
    print(f"Saved the unfinished game to {path}: cribsim replay {path}")


def _when(answers: int) -> str:
    return {0: "before any answer", 1: "after the game's first answer"}.get(
        answers, f"after the game's first {answers} answers")


def _record(rules: Any, tape: GameTape, args: argparse.Namespace, winner: int, points: list[int],
            forfeit: dict[str, Any] | None) -> MatchLog:
    names = ["you" if args.human in side else args.against for side in rules.sides]
    strategies = ["human" if args.human in side else args.against for side in rules.sides]
    return MatchLog(id="0.0.0.0", experiment="play", variant=rules.name, game=rules.game, rules=rules.to_dict(),
                    fingerprint=rules.fingerprint(), seed=args.seed, match_key=0, entries=names,
                    strategies=strategies, winner=winner, game_points=points, games=[tape.log()], forfeit=forfeit)


def _write(path: Path, log: MatchLog) -> None:
    try:
        append_logs(path, [log])
    except OSError as e:
        raise CribsimError(f"cribsim play: --save {path}: {e.strerror or e}") from None
