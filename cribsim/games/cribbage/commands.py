"""Cribbage's own commands: ``cribsim score`` (the show), ``cribsim peg`` (the play) and
``cribsim dealstats`` (points per deal by role and source, from a run's game records)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Rules

import argparse
import json
from collections.abc import Iterable
from typing import Any

from cribsim.cli.args import batch_lines, load_rules_arg
from cribsim.errors import CribsimError

from .cards import VALUE, WILD_BASE, card_str, cards_str, parse_cards
from .dealstats import write_dealstats
from .scoring import SHOW_CRIB, SHOW_HAND, STANDARD_SCORER, show_words


def add_commands(sub: Any) -> None:
    s = sub.add_parser("score", help="score a hand or crib at the show, with the breakdown",
                       description="Score a hand (4 cards, or the size --rules gives) with the starter: "
                                   "fifteens, pairs, runs, flush, nobs (R-SHOW-3..7).")
    s.add_argument("cards", nargs="*", help="the hand's cards, e.g. 5H 5C 5S JD (10 or T for ten)")
    s.add_argument("--starter", help="the starter card")
    s.add_argument("--crib", action="store_true", help="score as a crib (a flush needs the starter)")
    s.add_argument("--json", action="store_true", help="one JSON object with total and items")
    s.add_argument("--batch", metavar="FILE", help="one hand per line, starter last, optional 'crib'; - for stdin")
    s.add_argument("--rules", help="a rules file or preset: checks the hand (or crib) size, the crib "
                                   "flush rule and the point values (see cribsim list)")
    s.set_defaults(func=cmd_score)

    g = sub.add_parser("peg", help="points for the last card laid in the play",
                       description="Points for the last card laid, given the cards laid since the last "
                                   "reset (R-PEG-5: 15, 31, pairs, runs; not the go; the values and the "
                                   "limit are --rules' scoring, S-DATA-1..6).")
    g.add_argument("cards", nargs="*", help="cards laid since the last reset, the new card last")
    g.add_argument("--json", action="store_true", help="one JSON object with total and items")
    g.add_argument("--batch", metavar="FILE", help="one sequence per line; - for stdin")
    g.add_argument("--rules", help="a rules file or preset (cribbage)")
    g.set_defaults(func=cmd_peg)
    d = sub.add_parser("dealstats", help="points per deal by role and source over complete deals (game records)",
                       description="Replays a run's game records and writes dealstats.md and dealstats.csv: the "
                                   "dealer's and the pone's pegging, hands, crib and heels per deal, over complete "
                                   "deals (each game's last, cut short, left out) and over every deal, with 95%% "
                                   "intervals. Two-player cribbage; needs 'record: all'.")
    d.add_argument("dir", help="a results folder with game records")
    d.add_argument("--quiet", action="store_true", help="write the files only")
    d.add_argument("--out", help="where to write (default: the run's folder if it already holds dealstats, else "
                                 "DIR-dealstats beside it)")
    d.set_defaults(func=cmd_dealstats)


def cmd_dealstats(args: argparse.Namespace) -> int:
    write_dealstats(args.dir, args.quiet, args.out)
    return 0


# ---- score ----------------------------------------------------------------------------------

def _score_cards(hand: list[int], starter: int, crib: int, rules: Rules | None = None) -> dict[str, Any]:
    named = None
    show_items = rules.program.hooks.show_items if rules is not None else None
    if rules is not None and show_items is not None and any(c >= WILD_BASE for c in hand + [starter]):
        items, nh, ns = show_items(hand, starter, crib, rules.objective, scorer=rules.scorer)  # wild cards named
        named = {"hand": [card_str(c) for c in nh], "starter": card_str(ns)}
    else:
        items = (rules.scorer if rules is not None else STANDARD_SCORER).show_items(hand, starter, crib)
    out = {
        "hand": [card_str(c) for c in hand],
        "starter": card_str(starter),
        "crib": crib == SHOW_CRIB,  # a crib whose flush needs the starter (R-SHOW-6)
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
    rules = load_rules_arg(args.rules)
    if rules.game != "cribbage":
        raise CribsimError(f"cribsim: --rules {args.rules} is {rules.game} rules; score and peg are for cribbage")
    return rules


def _wild_in_deck(rules: Rules | None) -> int:
    return rules.deck_size - 52 if rules is not None else 0


def _check_show(hand: list[int], starter: int, rules: Rules | None = None, crib: bool = False,
                batch: bool = False) -> None:
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


def cmd_score(args: argparse.Namespace) -> int:
    rules = _rules_arg(args)
    crib_rule = rules.crib_show if rules is not None else SHOW_CRIB
    if args.batch:
        failed = False
        for no, words in batch_lines(args.batch):
            try:
                if isinstance(words, str):
                    raise CribsimError(words)
                crib = words[-1].lower() == "crib"
                cards = parse_cards(words[:-1] if crib else words)
                if len(cards) < 2:
                    raise CribsimError("cribsim: expected the hand's cards and then the starter")
                hand, starter = cards[:-1], cards[-1]
                _check_show(hand, starter, rules, crib, batch=True)
                out = {"line": no, **_score_cards(hand, starter, crib_rule if crib else SHOW_HAND, rules)}
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
    res = _score_cards(hand, starter, crib_rule if args.crib else SHOW_HAND, rules)
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


def _peg_words(words: Iterable[str], rules: Rules | None) -> list[int]:
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


def _peg_cards(cards: list[int], rules: Rules | None) -> dict[str, Any]:
    scorer = rules.scorer if rules is not None else STANDARD_SCORER
    count = sum(VALUE[c] for c in cards)
    if count > scorer.limit:
        raise CribsimError(f"cribsim: the count would be {count}, over {scorer.limit} (R-PEG-2)")
    items = scorer.peg_items(cards)
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
        for no, words in batch_lines(args.batch):
            try:
                if isinstance(words, str):
                    raise CribsimError(words)
                out = {"line": no, **_peg_cards(_peg_words(words, rules), rules)}
            except CribsimError as e:
                failed = True
                out = {"line": no, "error": str(e)}
            print(json.dumps(out))
        return 1 if failed else 0
    if not args.cards:
        raise CribsimError("cribsim peg: give the cards laid since the last reset, the new card last")
    res = _peg_cards(_peg_words(args.cards, rules), rules)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"count {res['count']}")
    for it in res["items"]:
        print(f"  {it['reason']:<18} {it['points']:>2}  {' '.join(it['cards'])}")
    print(f"total {res['total']}")
    return 0
