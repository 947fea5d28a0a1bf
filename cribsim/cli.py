"""The ``cribsim`` command: score, peg, play (and, later, run/report/list).

Errors are one line on stderr (``cribsim: ...``) with exit code 2, never a traceback."""

import argparse
import json
import os
import sys

from . import __version__
from .cards import VALUE, WILD_BASE, card_str, cards_str, parse_cards
from .errors import CribsimError
from .scoring import peg_breakdown, show_breakdown, show_words


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise CribsimError(f"{self.prog}: {message} (see --help)")


# ---- score ----------------------------------------------------------------------------------

def _score_cards(hand, starter, crib, rules=None):
    named = None
    show_items = rules.program.hooks.show_items if rules is not None else None
    if show_items is not None and any(c >= WILD_BASE for c in hand + [starter]):
        items, nh, ns = show_items(hand, starter, crib, rules.objective)  # wild cards named by the rules
        named = {"hand": [card_str(c) for c in nh], "starter": card_str(ns)}
    else:
        items = show_breakdown(hand, starter, crib)
    out = {
        "hand": [card_str(c) for c in hand],
        "starter": card_str(starter),
        "crib": crib,
        "total": sum(i.points for i in items),
        "items": [{"reason": r, "points": p, "cards": [card_str(c) for c in cs]} for r, p, cs in items],
    }
    if named:
        out["named"] = named
    return out


def _rules_arg(args):
    """The cribbage rules named by --rules (None without it)."""
    if not getattr(args, "rules", None):
        return None
    from .rules import load_rules

    rules = load_rules(args.rules)
    if rules.game != "cribbage":
        raise CribsimError(f"cribsim: --rules {args.rules} is {rules.game} rules; score and peg are for cribbage")
    return rules


def _wild_in_deck(rules):
    return rules.deck_size - 52 if rules is not None else 0


def _check_show(hand, starter, rules=None, crib=False):
    if rules is not None:
        size = rules.crib_size if crib else rules.hand_size
        if len(hand) != size:
            raise CribsimError(f"cribsim: under {rules.name} a {'crib' if crib else 'hand'} has {size} cards, "
                               f"got {len(hand)}")
    if not 1 <= len(hand) <= 6:
        raise CribsimError(f"cribsim: a hand has 1 to 6 cards, got {len(hand)}")
    if starter in hand:
        raise CribsimError(f"cribsim: the starter {card_str(starter)} is also in the hand")
    wild = sum(1 for c in hand + [starter] if c >= WILD_BASE)
    if wild > _wild_in_deck(rules):
        raise CribsimError("cribsim: JK needs rules whose deck has enough wild cards (see cribsim list)")


def _batch_lines(path):
    try:
        f = sys.stdin if path == "-" else open(path)
    except OSError as e:
        raise CribsimError(f"cribsim: cannot read {path}: {e.strerror}") from None
    with f:
        for no, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words:
                yield no, words


def cmd_score(args):
    rules = _rules_arg(args)
    crib_rule = rules.crib_flush_needs_starter if rules is not None else True
    if args.batch:
        failed = False
        for no, words in _batch_lines(args.batch):
            try:
                crib = words[-1].lower() == "crib"
                cards = parse_cards(words[:-1] if crib else words)
                if len(cards) < 2:
                    raise CribsimError("cribsim: expected the hand's cards and then the starter")
                hand, starter = cards[:-1], cards[-1]
                _check_show(hand, starter, rules, crib)
                out = {"line": no, **_score_cards(hand, starter, crib and crib_rule, rules)}
            except CribsimError as e:
                failed = True
                out = {"line": no, "error": str(e)}
            print(json.dumps(out))
        return 1 if failed else 0
    if not args.cards or args.starter is None:
        raise CribsimError("cribsim score: give the hand's cards and --starter CARD, or --batch FILE")
    hand = parse_cards(args.cards)
    starter = parse_cards([args.starter])[0]
    if starter >= WILD_BASE:  # a wild starter: numbered after the hand's
        starter += sum(1 for c in hand if c >= WILD_BASE)
    _check_show(hand, starter, rules, args.crib)
    crib = args.crib and crib_rule
    res = _score_cards(hand, starter, crib, rules)
    if args.json:
        print(json.dumps(res))
        return 0
    what = "crib" if args.crib else "hand"
    print(f"{what} {cards_str(hand)}, starter {card_str(starter)}")
    if "named" in res:
        print(f"JK named: {' '.join(res['named']['hand'])}, starter {res['named']['starter']}")
    items = [(it["reason"], it["points"], tuple(parse_cards_loose(it["cards"]))) for it in res["items"]]
    for words, (_, pts, cs) in zip(show_words(items), items):
        print(f"  {words:<24} {cards_str(cs)}")
    print(f"total {res['total']}")
    return 0


# ---- peg ------------------------------------------------------------------------------------

def parse_cards_loose(words):
    """Cards that may repeat (a wild card named as a card already there)."""
    return [parse_cards([w])[0] for w in words]


def _peg_words(words, rules):
    """Cards laid; a wild card is written JK=5S (laid as the card it is named)."""
    out, wild = [], 0
    for w in words:
        if "=" in w:
            j, _, name = w.partition("=")
            if j.upper() != "JK":
                raise CribsimError(f"cribsim: {w!r}: only a wild card (JK) is named, e.g. JK=5S")
            wild += 1
            named = parse_cards([name])[0]
            if named >= WILD_BASE:
                raise CribsimError(f"cribsim: {w!r}: JK is named as a standard card")
            out.append(named)
        else:
            c = parse_cards([w])[0]
            if c >= WILD_BASE:
                raise CribsimError("cribsim: a JK laid must be named, e.g. JK=5S")
            out.append(c)
    if wild > _wild_in_deck(rules):
        raise CribsimError("cribsim: JK needs rules whose deck has enough wild cards (see cribsim list)")
    if len(set(out)) + wild < len(out):
        raise CribsimError("cribsim: a card is laid twice")
    return out


def _peg_cards(cards):
    count = sum(VALUE[c] for c in cards)
    if count > 31:
        raise CribsimError(f"cribsim: the count would be {count}, over 31 (R-PEG-2)")
    items = peg_breakdown(cards)
    return {
        "cards": [card_str(c) for c in cards],
        "count": count,
        "total": sum(i.points for i in items),
        "items": [{"reason": r, "points": p, "cards": [card_str(c) for c in cs]} for r, p, cs in items],
    }


def cmd_peg(args):
    rules = _rules_arg(args)
    if args.batch:
        failed = False
        for no, words in _batch_lines(args.batch):
            try:
                out = {"line": no, **_peg_cards(_peg_words(words, rules))}
            except CribsimError as e:
                failed = True
                out = {"line": no, "error": str(e)}
            print(json.dumps(out))
        return 1 if failed else 0
    if not args.cards:
        raise CribsimError("cribsim peg: give the cards laid since the last reset, the new card last")
    res = _peg_cards(_peg_words(args.cards, rules))
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"count {res['count']}")
    for it in res["items"]:
        print(f"  {it['reason']:<18} {it['points']:>2}  {' '.join(it['cards'])}")
    print(f"total {res['total']}")
    return 0


# ---- play -----------------------------------------------------------------------------------

PLAYER_PRESETS = {(2, False): "standard", (3, False): "three_player", (4, False): "four_player",
                  (4, True): "four_player_partners", (5, False): "five_player"}


def cmd_play(args):
    from .engine import play_game
    from .narrate import narrate
    from .rules import load_rules
    from .strategy import factory
    from .match import make_strategies

    if args.rules:
        rules = load_rules(args.rules)
        if rules.game != "cribbage":
            return _play_other(rules, args)
    else:
        key = (args.players, args.teams)
        if key not in PLAYER_PRESETS:
            raise CribsimError("cribsim play: --teams needs --players 4" if args.teams
                               else f"cribsim play: --players must be 2 to 5, got {args.players}")
        rules = load_rules(PLAYER_PRESETS[key])
    makers = [factory(args.strategy, rules=(rules,)) for _ in range(rules.players)]
    for name, v in (("--miss-rate", args.miss_rate), ("--vigilance", args.vigilance)):
        if not 0 <= v <= 1:
            raise CribsimError(f"cribsim play: {name} must be a probability between 0 and 1, got {v}")
    counters = [(args.miss_rate, args.vigilance)] * rules.players if args.miss_rate else None
    result = play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True, counters=counters)
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(narrate(rules, result)))
    return 0


def _play_other(rules, args):
    from .games import GAMES
    from .match import make_strategies
    from .strategy import factory

    game = GAMES[rules.game]
    makers = [factory(args.strategy, game=rules.game) for _ in range(rules.players)]
    result = game.play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True)
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(game.narrate(rules, result)))
    return 0


# ---- run, report, list ---------------------------------------------------------------------

def cmd_run(args):
    from .tournament.config import load_experiment
    from .tournament.runner import run_experiment

    if args.workers is not None and args.workers < 1:
        raise CribsimError(f"cribsim run: --workers must be at least 1, got {args.workers}")
    exp = load_experiment(args.config, seed=args.seed)  # validates everything before writing
    run_experiment(exp, out_dir=args.out, workers=args.workers, address=args.address, serial=args.serial,
                   resume=args.resume, fresh=args.fresh, quiet=args.quiet)
    return 0


def cmd_report(args):
    from .tournament.report import write_report

    write_report(args.dir, quiet=args.quiet)
    return 0


def cmd_list(args):
    from pathlib import Path

    from .rules import RULES_DIRS, find_rules_file, load_rules, preset_names
    from .strategy import builtins, resolve

    from .games import GAMES

    print("Rule sets (configs/rules, use by name):")
    for name in preset_names():
        r = load_rules(str(find_rules_file(name)))
        print(f"  {name:<30} {r.describe()}")
    for game in GAMES:
        print(f"\nStrategies for game: {game} (use by name, or module:Class):")
        for name in sorted(builtins(game)):
            doc = (sys.modules[resolve(name, game).__module__].__doc__ or "").strip()
            print(f"  {name:<30} {doc.splitlines()[0] if doc else ''}")
    print("\nExample experiments (cribsim run FILE):")
    seen = set()
    for d in [Path.cwd() / "configs", RULES_DIRS[-1].parent]:
        for f in sorted(d.rglob("*.yaml")) if d.is_dir() else []:
            if "rules" in f.parts or f.name in seen:
                continue
            seen.add(f.name)
            first = next((ln[1:].strip() for ln in f.read_text().splitlines() if ln.startswith("#")), "")
            try:
                shown = f.relative_to(Path.cwd())
            except ValueError:
                shown = f
            print(f"  {str(shown):<48} {first}")
    return 0


# ---- entry point ----------------------------------------------------------------------------

def build_parser():
    p = _Parser(prog="cribsim", description="Cribbage tournament simulator and rules-variant testbed.")
    p.add_argument("--version", action="version", version=f"cribsim {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    s = sub.add_parser("score", help="score a hand or crib at the show, with the breakdown",
                       description="Score a hand (any size) with the starter: fifteens, pairs, runs, "
                                   "flush, nobs (R-SHOW-3..7).")
    s.add_argument("cards", nargs="*", help="the hand's cards, e.g. 5H 5C 5S JD (10 or T for ten)")
    s.add_argument("--starter", help="the starter card")
    s.add_argument("--crib", action="store_true", help="score as a crib (a flush needs the starter)")
    s.add_argument("--json", action="store_true", help="one JSON object with total and items")
    s.add_argument("--batch", metavar="FILE", help="one hand per line, starter last, optional 'crib'; - for stdin")
    s.add_argument("--rules", help="a rules file or preset: checks the hand (or crib) size and the crib "
                                   "flush rule, e.g. five_card (hands of 3)")
    s.set_defaults(func=cmd_score)

    g = sub.add_parser("peg", help="points for the last card laid in the play",
                       description="Points for the last card laid, given the cards laid since the last "
                                   "reset (R-PEG-5: 15, 31, pairs, runs; not the go).")
    g.add_argument("cards", nargs="*", help="cards laid since the last reset, the new card last")
    g.add_argument("--json", action="store_true", help="one JSON object with total and items")
    g.add_argument("--batch", metavar="FILE", help="one sequence per line; - for stdin")
    g.add_argument("--rules", help="a rules file or preset (cribbage)")
    g.set_defaults(func=cmd_peg)

    pl = sub.add_parser("play", help="narrate one complete game",
                        description="Play one complete game with the given strategies and narrate it "
                                    "deal by deal.")
    pl.add_argument("--players", type=int, default=2, help="2 to 5 (default 2)")
    pl.add_argument("--teams", action="store_true", help="with --players 4: two partnerships")
    pl.add_argument("--rules", help="a rules file or preset name (overrides --players/--teams); "
                                    "Fives and Threes too, e.g. fives_threes")
    pl.add_argument("--seed", type=int, default=1, help="the seed (default 1)")
    pl.add_argument("--strategy", default="random", help="strategy for every seat (default random)")
    pl.add_argument("--miss-rate", type=float, default=0.0,
                    help="every player overlooks each scoring item with this chance (V-MUGGINS counting)")
    pl.add_argument("--vigilance", type=float, default=1.0,
                    help="chance of spotting an opponent's miss (with rules that play muggins)")
    pl.set_defaults(func=cmd_play)

    r = sub.add_parser("run", help="run an experiment (matches in parallel on Ray) and report",
                       description="Play every match of an experiment config and write results/<name>/: "
                                   "manifest.json, matches.jsonl (appended as results arrive), summary tables "
                                   "(Markdown, CSV) and plots. Starts an embedded local Ray unless --address "
                                   "or RAY_ADDRESS names a cluster.")
    r.add_argument("config", help="experiment YAML, e.g. configs/quickstart.yaml")
    r.add_argument("--workers", type=int, help="parallel workers (default: all cores, or the cluster's CPUs)")
    r.add_argument("--address", help="join an existing Ray cluster (default: $RAY_ADDRESS, else start one)")
    r.add_argument("--serial", action="store_true", help="no Ray: play in this process (for debugging)")
    r.add_argument("--seed", type=int, help="override the config's seed")
    r.add_argument("--out", help="results folder (default results/<name>)")
    r.add_argument("--resume", action="store_true",
                   help="continue an interrupted run in the same folder (also the default for an unchanged config)")
    r.add_argument("--fresh", action="store_true", help="discard an earlier run in the folder")
    r.add_argument("--quiet", action="store_true", help="no progress bar, no tables on the terminal")
    r.set_defaults(func=cmd_run)

    rp = sub.add_parser("report", help="rebuild every summary table and plot from a results folder")
    rp.add_argument("dir", help="a results folder, e.g. results/quickstart")
    rp.add_argument("--quiet", action="store_true", help="write the files only")
    rp.set_defaults(func=cmd_report)

    ls = sub.add_parser("list", help="list built-in rule sets, strategies and example experiments")
    ls.set_defaults(func=cmd_list)
    return p


def main(argv=None):
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # strategies named module:Class beside the user's configs
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except CribsimError as e:
        msg = str(e)
        print(msg if msg.startswith("cribsim") else f"cribsim: {msg}", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("cribsim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
