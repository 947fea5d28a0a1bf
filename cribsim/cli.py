"""The ``cribsim`` command: score, peg, play, run, report, list.

One error boundary (:func:`main`): every failure is one line on stderr (``cribsim: ...``), exit
code 2 for bad input, 1 for a run that failed, 130 for an interrupted one; never a traceback
(``CRIBSIM_DEBUG=1`` adds it, for bug reports)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

from cribsim.games.cribbage.cards import VALUE, WILD_BASE, card_str, cards_str, parse_cards
from cribsim.games.cribbage.scoring import peg_breakdown, show_breakdown, show_words

from . import __version__, compiled
from .errors import CribsimError, RunFailed, describe, one_line

if TYPE_CHECKING:
    from .tournament.config import Experiment

MAX_SEED = 2 ** 63 - 1
MAX_WORKERS = 4096
MAX_LINE = 10_000  # bytes in one line of a --batch file


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise CribsimError(f"{self.prog}: {message} (see --help)")


def _seed(text: str) -> int:
    """--seed: a whole number 0..2**63-1 (the deal addresses are 64-bit)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number 0..2**63-1, got {text[:40]!r}") from None
    if not 0 <= v <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a whole number 0..2**63-1, got {text[:40]}")
    return v


def _probability(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text[:40]!r}") from None
    if not 0 <= v <= 1:  # (nan fails too)
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text[:40]}")
    return v


# ---- score ----------------------------------------------------------------------------------

def _score_cards(hand: list[int], starter: int, crib: bool, rules: Any = None) -> dict[str, Any]:
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


def _rules_arg(args: argparse.Namespace) -> Any:
    """The cribbage rules named by --rules (None without it)."""
    if not getattr(args, "rules", None):
        return None

    rules = _load_rules(args.rules)
    if rules.game != "cribbage":
        raise CribsimError(f"cribsim: --rules {args.rules} is {rules.game} rules; score and peg are for cribbage")
    return rules


def _wild_in_deck(rules: Any) -> int:
    return rules.deck_size - 52 if rules is not None else 0


def _load_rules(ref: str) -> Any:
    """--rules: a preset name or a file; a path that does not exist is an error, never the
    preset of the same name."""
    from pathlib import Path

    from cribsim.games.cribbage.rules import is_rules_path, load_rules, preset_names

    if is_rules_path(ref) and not os.path.isfile(ref):
        stem = Path(ref).stem
        hint = f" (the preset is --rules {stem})" if stem in preset_names() else ""
        raise CribsimError(f"cribsim: --rules {ref}: no such rules file{hint}")
    try:
        return load_rules(ref)
    except CribsimError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:  # a check the rules did not expect
        raise CribsimError(f"cribsim: --rules {ref}: invalid rules ({describe(e, 200)})") from None


def _check_show(hand: list[int], starter: int, rules: Any = None, crib: bool = False, batch: bool = False) -> None:
    if starter in hand:
        raise CribsimError(f"cribsim: the starter {card_str(starter)} is also in the hand")
    if len(set(hand)) != len(hand):
        raise CribsimError("cribsim: a card is in the hand twice")
    what = "crib" if crib else "hand"
    if rules is not None:
        size = rules.crib_size if crib else rules.hand_size
        if len(hand) != size:
            raise CribsimError(f"cribsim: under {rules.name} a {what} has {size} cards, got {len(hand)}")
    elif len(hand) != 4:  # the standard game; other sizes need --rules (a forgotten starter is caught)
        extra = " (the starter is the last card of a line)" if batch else ""
        raise CribsimError(f"cribsim: a {what} has 4 cards in the standard game, got {len(hand)}{extra}; "
                           "give --rules for another size (see cribsim list)")
    wild = sum(1 for c in hand + [starter] if c >= WILD_BASE)
    if wild > _wild_in_deck(rules):
        raise CribsimError("cribsim: JK needs rules whose deck has enough wild cards (see cribsim list)")


def _batch_lines(path: str) -> Iterator[tuple[int, list[str] | str]]:
    """(line number, words or an error message) for each non-blank line of a --batch file;
    a line that is not UTF-8 or longer than MAX_LINE bytes is an error for that line only."""
    f: IO[bytes] | None
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as e:
        raise CribsimError(f"cribsim: cannot read {path}: {e.strerror}") from None
    except AttributeError:  # a stdin without bytes (a test's StringIO)
        f = None
    if f is None:
        for no, line in enumerate(sys.stdin, 1):
            words = line.split("#", 1)[0].split()
            if words:
                yield no, words
        return
    try:
        no = 0
        while True:
            try:
                line = f.readline(MAX_LINE + 1)
            except OSError as e:
                raise CribsimError(f"cribsim: cannot read {path}: {e.strerror or e}") from None
            if not line:
                break
            no += 1
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the long line
                    line = f.readline(1 << 16)
                yield no, f"cribsim: line longer than {MAX_LINE:,} bytes"
                continue
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                yield no, "cribsim: not UTF-8 text"
                continue
            words = text.split("#", 1)[0].split()
            if words:
                yield no, words
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def cmd_score(args: argparse.Namespace) -> int:
    rules = _rules_arg(args)
    crib_rule = rules.crib_flush_needs_starter if rules is not None else True
    if args.batch:
        failed = False
        for no, words in _batch_lines(args.batch):
            try:
                if isinstance(words, str):
                    raise CribsimError(words)
                crib = words[-1].lower() == "crib"
                cards = parse_cards(words[:-1] if crib else words)
                if len(cards) < 2:
                    raise CribsimError("cribsim: expected the hand's cards and then the starter")
                hand, starter = cards[:-1], cards[-1]
                _check_show(hand, starter, rules, crib, batch=True)
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
    for words, (_, _pts, cs) in zip(show_words(items), items):
        print(f"  {words:<24} {cards_str(cs)}")
    print(f"total {res['total']}")
    return 0


# ---- peg ------------------------------------------------------------------------------------

def parse_cards_loose(words: Iterable[str]) -> list[int]:
    """Cards that may repeat (a wild card named as a card already there)."""
    return [parse_cards([w])[0] for w in words]


def _peg_words(words: Iterable[str], rules: Any) -> list[int]:
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


def _peg_cards(cards: list[int]) -> dict[str, Any]:
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


def cmd_peg(args: argparse.Namespace) -> int:
    rules = _rules_arg(args)
    if args.batch:
        failed = False
        for no, words in _batch_lines(args.batch):
            try:
                if isinstance(words, str):
                    raise CribsimError(words)
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


def cmd_play(args: argparse.Namespace) -> int:
    from cribsim.games.cribbage.engine import play_game
    from cribsim.games.cribbage.match import make_strategies
    from cribsim.games.cribbage.narrate import narrate
    from cribsim.games.cribbage.rules import load_rules

    from .strategy import factory

    if args.rules:
        rules = _load_rules(args.rules)
        if rules.game != "cribbage":
            return _play_other(rules, args)
    else:
        key = (args.players, args.teams)
        if key not in PLAYER_PRESETS:
            raise CribsimError("cribsim play: --teams needs --players 4" if args.teams
                               else f"cribsim play: --players must be 2 to 5, got {args.players}")
        rules = load_rules(PLAYER_PRESETS[key])
    makers = [factory(args.strategy, rules=(rules,)) for _ in range(rules.players)]
    counters = [(args.miss_rate, args.vigilance)] * rules.players if args.miss_rate else None
    result = play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True, counters=counters)
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(narrate(rules, result)))
    return 0


def _play_other(rules: Any, args: argparse.Namespace) -> int:
    from cribsim.games.cribbage.match import make_strategies

    from .games import GAMES
    from .strategy import factory

    game = GAMES[rules.game]
    makers = [factory(args.strategy, game=rules.game) for _ in range(rules.players)]
    result = game.play_game(rules, make_strategies(makers), args.seed, (0, 0), log=True)
    print(f"Rules: {rules.name} {rules.describe()}  seed {args.seed}")
    print("\n".join(game.narrate(rules, result)))
    return 0


# ---- run, report, list ---------------------------------------------------------------------

def cmd_run(args: argparse.Namespace) -> int:
    from .tournament.config import load_experiment
    from .tournament.runner import run_experiment

    if args.fresh and args.resume:
        raise CribsimError("cribsim run: --fresh discards an earlier run and --resume continues it; give one of them")
    if args.serial and (args.workers is not None or args.address):
        raise CribsimError(f"cribsim run: --serial plays in this process; it takes no "
                           f"{'--workers' if args.workers is not None else '--address'}")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise CribsimError(f"cribsim run: --workers must be 1..{MAX_WORKERS}, got {args.workers}")
    if args.out is not None and (not args.out or "\0" in args.out):
        raise CribsimError("cribsim run: --out needs a folder name")
    exp = load_experiment(args.config, seed=args.seed, need_matches=True)  # validates everything before writing
    if not args.serial and SUPERVISED not in os.environ:
        return _supervise(args, exp)
    run_experiment(exp, out_dir=args.out, workers=args.workers, address=args.address, serial=args.serial,
                   resume=args.resume, fresh=args.fresh, quiet=args.quiet)
    return 0


SUPERVISED = "CRIBSIM_SUPERVISED_FD"


def _supervise(args: argparse.Namespace, exp: Experiment) -> int:
    """Ray's core ends the driver process at once (no Python cleanup, its own messages, exit 1)
    when a raylet dies. So a Ray run plays in a child process and this one waits: when the
    child ends without saying it finished (a byte on a pipe, written by :func:`main`), the
    manifest is marked failed and the reason is one line here."""
    import signal
    import subprocess
    import tempfile
    from pathlib import Path

    from .tournament.runner import RAY_LOG, check_out, record_abrupt_end

    out = Path(args.out) if args.out else Path("results") / exp.name
    check_out(exp, out, args.resume, args.fresh)  # refuse a folder here, before a child starts
    cmd = [sys.executable, "-m", "cribsim", "run", str(args.config)]
    for flag, value in (("--workers", args.workers), ("--address", args.address), ("--seed", args.seed),
                        ("--out", args.out)):
        if value is not None:
            cmd += [flag, str(value)]
    cmd += [flag for flag, on in (("--resume", args.resume), ("--fresh", args.fresh), ("--quiet", args.quiet)) if on]
    read_end, write_end = os.pipe()
    root = str(Path(__file__).resolve().parents[1])
    log_fd, log = tempfile.mkstemp(prefix="cribsim-ray-", suffix=".log")
    os.close(log_fd)
    env = dict(os.environ, **{SUPERVISED: str(write_end), RAY_LOG: log})
    if not any(os.path.samefile(root, p) for p in _site_dirs()):  # a checkout: the child imports this copy
        env["PYTHONPATH"] = os.pathsep.join(p for p in [root, env.get("PYTHONPATH", "")] if p)
    streams: dict[str, Any] = {}
    for name, fd in (("stdout", 1), ("stderr", 2)):
        try:
            own = getattr(sys, name).fileno() == fd
        except (AttributeError, OSError, ValueError):
            own = False
        streams[name] = None if own else subprocess.PIPE  # captured (a test): relayed below
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT,)}  # Ctrl-C is the child's
    try:
        child = subprocess.Popen(cmd, env=env, pass_fds=(write_end,), **streams)
        os.close(write_end)
        forward = {sig: signal.signal(sig, lambda n, f: child.send_signal(n))
                   for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            got_out, got_err = child.communicate()
        finally:
            for sig, handler in forward.items():
                signal.signal(sig, handler)
        said = os.read(read_end, 1)
    finally:
        os.close(read_end)
        for sig, handler in old.items():
            signal.signal(sig, handler)
    for name, data in (("stdout", got_out), ("stderr", got_err)):
        if data:
            getattr(sys, name).write(data.decode("utf-8", "replace"))
    code = child.returncode
    if said:
        if code != 1 or not _nonempty(log):  # a failed run's message points at the log
            _remove(log)
        return code
    how = f"was killed by signal {-code}" if code < 0 else f"ended abruptly (exit code {code})"
    reason = (f"the run's process {how}; Ray ends its driver this way when a raylet (a node) dies or the "
              "cluster goes away")
    played = record_abrupt_end(out, reason)
    saved = f"; {played:,} matches saved in {out} (continue with --resume)" if played is not None else ""
    if _nonempty(log):
        saved += f" (Ray's own messages: {log})"
    else:
        _remove(log)
    raise RunFailed(f"cribsim: run failed: {reason}{saved}")


def _site_dirs() -> list[str]:
    import site

    dirs = list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]
    return [d for d in dirs if os.path.isdir(d)]


def _nonempty(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def cmd_report(args: argparse.Namespace) -> int:
    from .tournament.report import read_results, write_report

    write_report(args.dir, quiet=args.quiet)
    if args.pgn is not None:
        from .tournament.pgn import write_pgn

        manifest, records = read_results(args.dir)
        n = write_pgn(manifest, records, args.pgn)
        print(f"wrote {n:,} games to {args.pgn}", file=sys.stderr)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cribsim.games.cribbage.rules import find_rules_file, load_rules, preset_names

    from .games import GAMES
    from .presets import example_configs
    from .strategy import builtins, resolve

    print("Rule sets (configs/rules, use by name):")
    for name in preset_names():
        try:
            r = load_rules(str(find_rules_file(name)))
            shown = r.describe()
        except CribsimError as e:  # a broken file in ./configs/rules: say so, list the rest
            shown = f"(cannot load: {one_line(str(e).removeprefix('cribsim: '), 120)})"
        print(f"  {name:<30} {shown}")
    print("\nRule variants (name them in a rules file's variants:, or set a knob that turns one on):")
    from cribsim.games.cribbage.variants import VARIANTS

    for v in VARIANTS.values():
        print(f"  {v.name:<30} {v.rule}: {v.summary}")
        for p in v.params:
            print(f"  {'':<32}{p.describe()}")
    for game in GAMES:
        print(f"\nStrategies for game: {game} (use by name, or module:Class):")
        for name in sorted(builtins(game)):
            doc = (sys.modules[resolve(name, game).__module__].__doc__ or "").strip()
            print(f"  {name:<30} {doc.splitlines()[0] if doc else ''}")
    print("\nExample experiments (cribsim run FILE):")
    seen: set[str] = set()
    local = Path.cwd() / "configs"
    files = sorted(f for f in local.rglob("*.yaml") if "rules" not in f.relative_to(local).parts) \
        if local.is_dir() else []
    for f in files + example_configs():
        if f.name in seen:
            continue
        seen.add(f.name)
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        first = next((ln[1:].strip() for ln in text.splitlines() if ln.startswith("#")), "")
        try:
            shown = f.relative_to(Path.cwd())
        except ValueError:
            shown = f
        print(f"  {str(shown):<48} {first}")
    return 0


# ---- entry point ----------------------------------------------------------------------------

def build_parser() -> _Parser:
    p = _Parser(prog="cribsim", description="Cribbage tournament simulator and rules-variant testbed.")
    p.add_argument("--version", action="version",
                   version=f"cribsim {__version__} ({'compiled' if compiled() else 'pure Python'})")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    s = sub.add_parser("score", help="score a hand or crib at the show, with the breakdown",
                       description="Score a hand (4 cards, or the size --rules gives) with the starter: "
                                   "fifteens, pairs, runs, flush, nobs (R-SHOW-3..7).")
    s.add_argument("cards", nargs="*", help="the hand's cards, e.g. 5H 5C 5S JD (10 or T for ten)")
    s.add_argument("--starter", help="the starter card")
    s.add_argument("--crib", action="store_true", help="score as a crib (a flush needs the starter)")
    s.add_argument("--json", action="store_true", help="one JSON object with total and items")
    s.add_argument("--batch", metavar="FILE", help="one hand per line, starter last, optional 'crib'; - for stdin")
    s.add_argument("--rules", help="a rules file or preset: checks the hand (or crib) size and the crib "
                                   "flush rule (see cribsim list)")
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
    pl.add_argument("--seed", type=_seed, default=1, help="the seed, 0..2**63-1 (default 1)")
    pl.add_argument("--strategy", default="random", help="strategy for every seat (default random)")
    pl.add_argument("--miss-rate", type=_probability, default=0.0,
                    help="every player overlooks each scoring item with this chance (the counting model)")
    pl.add_argument("--vigilance", type=_probability, default=1.0,
                    help="chance of spotting an opponent's miss (with rules where an opponent takes missed points)")
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
    r.add_argument("--seed", type=_seed, help="override the config's seed (0..2**63-1)")
    r.add_argument("--out", help="results folder (default results/<name>)")
    r.add_argument("--resume", action="store_true",
                   help="continue an interrupted run in the same folder (also the default for an unchanged config)")
    r.add_argument("--fresh", action="store_true",
                   help="discard an earlier run in the folder (only the files its manifest lists)")
    r.add_argument("--quiet", action="store_true", help="no progress bar, no tables on the terminal")
    r.set_defaults(func=cmd_run)

    rp = sub.add_parser("report", help="rebuild every summary table and plot from a results folder")
    rp.add_argument("dir", help="a results folder, e.g. results/quickstart")
    rp.add_argument("--quiet", action="store_true", help="write the files only")
    rp.add_argument("--pgn", metavar="FILE", help="also write every match as a PGN header block (for Ordo, BayesElo)")
    rp.set_defaults(func=cmd_report)

    from . import cli_games, cli_study

    cli_games.add_commands(sub)
    cli_study.add_commands(sub)
    cli_study.add_tune(sub)

    ls = sub.add_parser("list", help="list built-in rule sets, strategies and example experiments")
    ls.set_defaults(func=cmd_list)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The error boundary: whatever fails, one line on stderr and an exit code."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # strategies named module:Class from the working directory
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except CribsimError as e:
        msg = str(e)
        _say(msg if msg.startswith("cribsim") else f"cribsim: {msg}")
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        _say("cribsim: interrupted")
        return 130
    except MemoryError:
        _say("cribsim: out of memory")
        return 1
    except RecursionError:
        _say("cribsim: a structure nested too deep (RecursionError)")
        return 1
    except OSError as e:
        where = f": {e.filename}" if getattr(e, "filename", None) else ""
        _say(f"cribsim: {e.strerror or describe(e)}{where}")
        return 1
    except Exception as e:  # a bug: one line, the traceback with CRIBSIM_DEBUG=1
        _say(f"cribsim: internal error: {describe(e, 300)} (set CRIBSIM_DEBUG=1 for the traceback)")
        return 1
    finally:
        _finished()


def _finished() -> None:
    """Tell a supervising ``cribsim run`` (see _supervise) that this process ended on its own."""
    fd = os.environ.pop(SUPERVISED, None)
    if fd is None:
        return
    try:
        os.write(int(fd), b"1")
        os.close(int(fd))
    except (OSError, ValueError):
        pass


def _say(msg: object) -> None:
    """One line on stderr, whatever the message holds (newlines, control characters, a huge
    key from a config); with CRIBSIM_DEBUG=1 the traceback comes first."""
    if os.environ.get("CRIBSIM_DEBUG") and sys.exc_info()[0] is not None:
        import traceback

        traceback.print_exc()
    line = one_line(" ".join(str(msg).split("\n")), 1000)
    try:
        print(line, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
