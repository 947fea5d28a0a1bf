"""The commands about recorded games: ``cribsim games`` (list), ``cribsim replay`` (narrate) and
``cribsim deals`` (write a deal book)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from typing import Any

from tabulate import tabulate

from ..book import write_book
from ..errors import CribsimError
from ..escape import terminal_text
from ..gamelog import UNFINISHED, MatchLog, RecordFileError, check_file, read_logs, records_in
from ..games import default_game, game_named
from ..replay import replay_match, rules_of, secret_for
from ..seats import seat_names
from .args import load_rules_arg


def add_commands(sub: Any) -> None:
    g = sub.add_parser("games", help="list the recorded games of a results folder",
                       description="List the matches a run recorded (record: in its config) with their outcome, "
                                   "to find one to replay.")
    g.add_argument("dir", help="a results folder (or its games/games.jsonl.gz)")
    g.add_argument("--entry", help="only matches this lineup entry played")
    g.add_argument("--lost", action="store_true", help="with --entry: only the matches it lost")
    g.add_argument("--variant", help="only matches of this variant (its name)")
    g.add_argument("--limit", type=int, default=0, help="list at most this many (default: all)")
    g.set_defaults(func=cmd_games)

    r = sub.add_parser("replay", help="narrate a recorded game, as cribsim play does",
                       description="Play a recorded match again from its record (its decks and answers, checked "
                                   "by the rules) and narrate it.")
    r.add_argument("file", help="a results folder, or a game records file (.jsonl.gz or .jsonl)")
    r.add_argument("--match", help="the match id, or N: the N-th listed by cribsim games (default: the first "
                                   "recorded)")
    r.add_argument("--game", type=int, help="only this game of the match (1 first)")
    r.add_argument("--deal-secret", metavar="FOLDER", help="a folder holding the deal-secret the match was dealt "
                                                          "with (default: the results folder of the records)")
    r.set_defaults(func=cmd_replay)

    d = sub.add_parser("deals", help="write a deal book of random deals (JSON lines) to standard output",
                       description="Write a deal book: one deal per line (each seat's cards, the starter, the "
                                   "dealer), for deals: in an experiment config.")
    d.add_argument("--sample", type=int, required=True, help="how many deals (1..1,000,000)")
    d.add_argument("--seed", type=int, default=1, help="the seed (default 1)")
    d.add_argument("--rules", help="a rules file or preset name (default: the default game's, standard)")
    d.set_defaults(func=cmd_deals)


# ---- games ----------------------------------------------------------------------------------------

def _outcome(log: MatchLog) -> str:
    won = "no winner" if log.winner < 0 else f"{log.entries[log.winner]} won"
    if _unfinished(log):
        return won + " (unfinished)"
    return won + (f" (forfeit: {log.forfeit['kind']})" if log.forfeit is not None else "")


def _unfinished(log: MatchLog) -> bool:
    """A game a person left (``cribsim play --human --save``): recorded as a forfeit of kind
    ``unfinished``, its last game as far as it went."""
    return log.forfeit is not None and log.forfeit["kind"] == UNFINISHED


def _selected(path: Any, args: argparse.Namespace) -> Iterator[MatchLog]:
    for _, log in read_logs(path, torn_ok=True):  # a run still writing: its whole batches
        if args.variant and log.variant != args.variant:
            continue
        if args.entry:
            if args.entry not in log.entries:
                continue
            if args.lost and (log.winner < 0 or log.entries[log.winner] == args.entry):
                continue
        yield log


def cmd_games(args: argparse.Namespace) -> int:
    if args.lost and not args.entry:
        raise CribsimError("cribsim games: --lost needs --entry NAME")
    if args.limit < 0:
        raise CribsimError("cribsim games: --limit must be 0 (all) or more")
    path = records_in(args.dir)
    chosen = sorted(_selected(path, args), key=_order)
    rows = []
    for log in chosen[:args.limit or None]:  # in schedule order, whatever order the workers wrote
        scores = "; ".join(("from " + "-".join(map(str, g.start_scores)) + " to " if g.start_scores else "")
                           + "-".join(str(s) for s in g.scores) for g in log.games)
        rows.append([log.id, log.variant, " vs ".join(log.entries), _outcome(log),
                     "-".join(str(p) for p in log.game_points), len(log.games), sum(g.deals for g in log.games),
                     scores])
    if path.suffix == ".gz" and check_file(path).torn:
        print(f"cribsim: note: {path}: its last batch of records is unfinished (a run still writing, or one that "
              "was stopped); the whole ones are listed", file=sys.stderr)
    if not rows:
        print(f"no recorded match in {path} matches the filter", file=sys.stderr)
        return 0
    print(tabulate(rows, headers=["match", "variant", "sides", "result", "game points", "games", "deals",
                                  "scores by game"], tablefmt="simple"))
    print(f"\n{len(rows)} match(es); replay one with: cribsim replay {args.dir} --match ID")
    return 0


# ---- replay ---------------------------------------------------------------------------------------

def _order(log: MatchLog) -> list[int]:
    """Schedule order of a match id (``variant.table.group.seating``)."""
    return [int(x) if x.isdecimal() and len(x) < 20 else 0 for x in log.id.split(".")]


def _find(path: Any, match: str | None) -> tuple[int, MatchLog]:
    """The record of match ``match``: an id, or N (the N-th recorded match in schedule order,
    as cribsim games lists them); the first in that order when None."""
    if match is None or re.fullmatch(r"[0-9]{1,9}", match):
        every = sorted(read_logs(path), key=lambda x: _order(x[1]))
        if not every:
            raise RecordFileError(f"cribsim: {path}: holds no game records")
        n = int(match) if match is not None else 1
        if not 1 <= n <= len(every):
            raise RecordFileError(f"cribsim: {path}: --match {match}: it holds {len(every)} recorded matches")
        return every[n - 1]
    for line, log in read_logs(path):
        if log.id == match:
            return line, log
    raise RecordFileError(f"cribsim: {path}: no recorded match {match[:40]!r} (cribsim games lists them)")


def cmd_replay(args: argparse.Namespace) -> int:
    path = records_in(args.file)
    line, log = _find(path, args.match)
    where = f"{path}, line {line}"
    rules = rules_of(log, where)
    secret = secret_for(path, args.deal_secret) if log.deal_secret is not None else None
    results = replay_match(log, where, secret)  # every game, and the match, checked against the record
    if args.game is not None and not 1 <= args.game <= len(log.games):
        raise CribsimError(f"cribsim replay: --game must be 1..{len(log.games)} for match {log.id}")
    names = seat_names(rules)
    seats = ", ".join(f"{' & '.join(names[s] for s in side)}: {log.entries[i]} ({log.strategies[i]})"
                      for i, side in enumerate(rules.sides))
    print(f"Match {log.id} of {log.experiment}: rules {log.variant} {rules.describe()}, seed {log.seed}")
    print(f"Seats: {seats}")
    chosen = [args.game - 1] if args.game is not None else range(len(log.games))
    narrate = game_named(log.game).narrate
    for g in chosen:
        result = results[g]
        glog = log.games[g]
        print(f"\n=== Game {g + 1} of {len(log.games)}"
              + (f" (from {'-'.join(map(str, glog.start_scores))})" if glog.start_scores else "") + " ===")
        print("\n".join(narrate(rules, result, names)))
    if log.forfeit is not None:
        print("\n" + terminal_text(_forfeit_line(log, log.forfeit)))
    if args.game is None:
        print(f"\nMatch: {_outcome(log)}, game points {'-'.join(str(p) for p in log.game_points) or '-'}.")
    return 0


def _forfeit_line(log: MatchLog, f: dict[str, Any]) -> str:
    if _unfinished(log):
        return f"Unfinished: {f['error']}; the record stops there, and nobody won the game."
    return f"Forfeit ({f['kind']}) charged to {_entry(log, f)}: {f['error']}"


def _entry(log: MatchLog, forfeit: dict[str, Any]) -> str:
    side = forfeit.get("side")
    return log.entries[side] if isinstance(side, int) and 0 <= side < len(log.entries) else "?"


# ---- deals ----------------------------------------------------------------------------------------

def cmd_deals(args: argparse.Namespace) -> int:
    if not 1 <= args.sample <= 1_000_000:
        raise CribsimError(f"cribsim deals: --sample must be 1..1000000, got {args.sample}")
    if not 0 <= args.seed < 2 ** 63:
        raise CribsimError(f"cribsim deals: --seed must be 0..2**63-1, got {args.seed}")
    rules = load_rules_arg(args.rules or default_game().default_rules)
    try:
        for line in write_book(rules, args.sample, args.seed):
            print(line)
    except ValueError as e:
        raise CribsimError(f"cribsim deals: {e} (rules '{rules.name}')") from None
    return 0
