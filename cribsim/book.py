"""Deal books and start positions: where the games of an experiment begin (``deals:`` and
``start:`` in a config; ``cribsim deals`` writes a book).

A deal book is a JSON-lines file, one opening deal per line::

    {"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"], [...]], "starter": "5D"}
    {"dealer": 1, "address": [20261130, 7, 0, 0]}

``dealer`` is the seat that deals (or leads) first; the rest of a line is the game's to read
(``Game.book_deck``: in cribbage ``hands`` are the cards of every seat as dealt, a ``crib``
list when the rules deal cards straight to the crib, and ``starter`` the card turned up; a
domino game gives each seat's tiles), or ``address`` (seed, match key, game, deal) names the
deck cribsim's random streams give at that address instead. The matches of each table take the
book's lines in order (group ``g`` plays line ``g mod lines``; paired play replays the same line
with the seats swapped); the line is the first deal of every game of the match, and the later
deals are drawn as usual."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError, CribsimError
from .game import Rules
from .games import game_named
from .opening import Opening

MAX_BOOK_LINES = 1_000_000
MAX_BOOK_BYTES = 200_000_000
MAX_SCORE = 100_000
LAYOUTS_CHECKED = 12  # games whose sides and targets a start position is checked against


class BookError(CribsimError):
    """A deal book that cannot be used: names the file and the line (exit 2)."""


@dataclass(frozen=True)
class BookDeal:
    """One line of a book, for one rule set: the dealer (leader) and the deck in dealing order
    (cribbage) or every seat's tiles in seat order (Fives and Threes)."""

    dealer: int
    deck: tuple[int, ...]


@dataclass(frozen=True)
class Start:
    """An end-game start position: scores by side and the first dealer (None: cut as usual)."""

    scores: tuple[int, ...]
    dealer: int | None = None


def opening(book: Sequence[BookDeal] | None, starts: Sequence[Start] | None, group: int) -> Opening | None:
    """The opening of the matches of group ``group``: the book's line and the start position
    for that group (each list taken in turn)."""
    if not book and not starts:
        return None
    deal = book[group % len(book)] if book else None
    start = starts[group % len(starts)] if starts else None
    dealer = deal.dealer if deal is not None else start.dealer if start is not None else None
    return Opening(dealer=dealer, scores=start.scores if start is not None else None,
                   decks=(deal.deck,) if deal is not None else ())


# ---- deal books --------------------------------------------------------------------------------------

def read_book(path: str | Path, variants: Sequence[Rules]) -> tuple[str, list[list[BookDeal]]]:
    """The book's content hash and, per variant, its deals; BookError naming the line for a
    line that is not a deal of those rules."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_BOOK_BYTES:
            raise BookError(f"cribsim: {p}: larger than {MAX_BOOK_BYTES:,} bytes")
        raw = p.read_bytes()
        text = raw.decode("utf-8")
    except OSError as e:
        raise BookError(f"cribsim: {p}: cannot read the deal book ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise BookError(f"cribsim: {p}: not UTF-8 text") from None
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise BookError(f"cribsim: {p}: the deal book has no deals")
    if len(lines) > MAX_BOOK_LINES:
        raise BookError(f"cribsim: {p}: more than {MAX_BOOK_LINES:,} deals")
    out: list[list[BookDeal]] = [[] for _ in variants]
    for n, line in lines:
        where = f"{p}, line {n}"
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError) as e:  # (a number of over 4,300 digits is a plain ValueError)
            why = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deep" if isinstance(
                e, RecursionError) else str(e)[:80]
            raise BookError(f"cribsim: {where}: not JSON ({why})") from None
        for v, rules in enumerate(variants):
            out[v].append(book_deal(entry, rules, where))
    return hashlib.sha256(raw).hexdigest()[:16], out


def book_deal(entry: Any, rules: Rules, where: str) -> BookDeal:
    """One book line as a deal of ``rules``."""
    try:
        if not isinstance(entry, dict):
            raise ValueError("expected an object with dealer and hands (or address)")
        dealer = entry.get("dealer")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < rules.players:
            raise ValueError(f"dealer must be a seat 0..{rules.players - 1}, got {str(dealer)[:20]}")
        if "address" in entry:
            if set(entry) - {"dealer", "address"}:
                raise ValueError("give either address or hands, not both")
            return BookDeal(dealer, _addressed(entry["address"], rules))
        return BookDeal(dealer, game_named(rules.game).book_deck(rules, entry, dealer))
    except (ValueError, CribsimError) as e:
        msg = str(e).removeprefix("cribsim: ")
        raise BookError(f"cribsim: {where}: {msg}" + (f" (rules '{rules.name}')" if rules.name else "")) from None


def _addressed(address: Any, rules: Rules) -> tuple[int, ...]:
    ok = isinstance(address, list) and len(address) == 4 and \
        all(isinstance(x, int) and not isinstance(x, bool) and -2 ** 63 <= x < 2 ** 63 for x in address)
    if not ok:
        raise ValueError("address must be [seed, match key, game, deal]: four whole numbers")
    seed, match, game, deal = address
    return game_named(rules.game).addressed_deck(rules, seed, (match, game), deal)


def write_book(rules: Rules, count: int, seed: int) -> list[str]:
    """``count`` book lines of random deals of ``rules`` (the deck of line ``i`` is addressed by
    (seed, i, 0, 0); the dealer rotates seat by seat)."""
    lines = []
    for i in range(count):
        dealer = i % rules.players
        deck = _addressed([seed, i, 0, 0], rules)
        lines.append(json.dumps(book_line(rules, dealer, deck)))
    return lines


def book_line(rules: Rules, dealer: int, deck: Sequence[int]) -> dict[str, Any]:
    """A deal as a book line (cards or tiles written out, as the game writes them)."""
    return game_named(rules.game).book_line(rules, dealer, deck)


# ---- start positions ------------------------------------------------------------------------------

def read_starts(source: str, spec: Any, variants: Sequence[Rules], line: int | None = None) -> list[Start]:
    """``start:`` of a config (one position, or a list to take in turn), checked against every
    variant: a score per side, each below that side's target in every game, a dealer seat."""
    where = f"{source}, line {line}" if line else source
    items = spec if isinstance(spec, list) else [spec]
    if not items or len(items) > 10_000:
        raise ConfigError(where, "start", "expected a position {scores: [..], dealer: ..} or a list of 1..10000")
    out = []
    for i, item in enumerate(items):
        key = f"start[{i}]" if isinstance(spec, list) else "start"
        if not isinstance(item, dict) or set(item) - {"scores", "dealer"} or "scores" not in item:
            raise ConfigError(where, key, "expected {scores: [115, 110], dealer: 1} (dealer optional)")
        scores = item["scores"]
        if not isinstance(scores, list) or not all(isinstance(s, int) and not isinstance(s, bool) and
                                                     0 <= s <= MAX_SCORE for s in scores):
            raise ConfigError(where, f"{key}.scores", f"expected a list of whole numbers 0..{MAX_SCORE:,}")
        dealer = item.get("dealer")
        for rules in variants:
            if dealer is not None and (not isinstance(dealer, int) or isinstance(dealer, bool)
                                       or not 0 <= dealer < rules.players):
                raise ConfigError(where, f"{key}.dealer", f"expected a seat 0..{rules.players - 1}, got "
                                                          f"{str(dealer)[:20]}")
            _check_scores(where, f"{key}.scores", scores, rules)
        out.append(Start(tuple(scores), dealer))
    return out


def _check_scores(where: str, key: str, scores: list[int], rules: Rules) -> None:
    for sides, targets in game_named(rules.game).layouts(rules, LAYOUTS_CHECKED):
        if len(scores) != len(sides):
            raise ConfigError(where, key, f"gives {len(scores)} scores; '{rules.name}' has {len(sides)} sides")
        for side, (s, t) in enumerate(zip(scores, targets)):
            if s >= t:
                raise ConfigError(where, key, f"side {side} starts at {s}, at or past its target {t:g} in "
                                              f"'{rules.name}': the game would be over")
