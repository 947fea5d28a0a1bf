"""Deal books and start positions: where the games of an experiment begin (``deals:`` and
``start:`` in a config; ``cribsim deals`` writes a book).

A deal book is a JSON-lines file, one opening deal per line::

    {"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"], [...]], "starter": "5D"}
    {"dealer": 1, "address": [20261130, 7, 0, 0]}

``hands`` are the cards of every seat as dealt (a ``crib`` list when the rules deal cards
straight to the crib), ``starter`` the card turned up; ``address`` (seed, match key, game, deal)
names the deck cribsim's random streams give at that address instead. Fives and Threes books
give each seat's tiles (``"hands": [["1-4", "6-6", ...], ...]``) and the ``dealer`` is the
leader. The matches of each table take the book's lines in order (group ``g`` plays line
``g mod lines``; paired play replays the same line with the seats swapped); the line is the first
deal of every game of the match, and the later deals are drawn as usual.

Where the cards land is not written here a second time: :func:`deal_positions` runs the rules'
own deal phase on a marked deck and reads where each position went."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError, CribsimError
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

def read_book(path: str | Path, variants: Sequence[Any]) -> tuple[str, list[list[BookDeal]]]:
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


def book_deal(entry: Any, rules: Any, where: str) -> BookDeal:
    """One book line as a deal of ``rules``."""
    try:
        if not isinstance(entry, dict):
            raise ValueError("expected an object with dealer and hands (or address)")
        extra = set(entry) - {"dealer", "hands", "crib", "starter", "address"}
        if extra:
            raise ValueError(f"unknown field {sorted(extra)[0]!r} (expected dealer, hands, crib, starter or address)")
        dealer = entry.get("dealer")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < rules.players:
            raise ValueError(f"dealer must be a seat 0..{rules.players - 1}, got {str(dealer)[:20]}")
        if "address" in entry:
            if set(entry) - {"dealer", "address"}:
                raise ValueError("give either address or hands, not both")
            return BookDeal(dealer, _addressed(entry["address"], rules))
        if rules.game == "cribbage":
            return BookDeal(dealer, _cribbage_deck(entry, rules, dealer))
        return BookDeal(dealer, _domino_hands(entry, rules))
    except (ValueError, CribsimError) as e:
        msg = str(e).removeprefix("cribsim: ")
        raise BookError(f"cribsim: {where}: {msg}" + (f" (rules '{rules.name}')" if rules.name else "")) from None


def _addressed(address: Any, rules: Any) -> tuple[int, ...]:
    ok = isinstance(address, list) and len(address) == 4 and \
        all(isinstance(x, int) and not isinstance(x, bool) and -2 ** 63 <= x < 2 ** 63 for x in address)
    if not ok:
        raise ValueError("address must be [seed, match key, game, deal]: four whole numbers")
    seed, match, game, deal = address
    if rules.game == "cribbage":
        from cribsim.games.cribbage.engine.state import deck_at

        return tuple(deck_at(rules.deck_size, rules.deck_size, seed, (match, game), deal))
    from cribsim.games.fives_threes.engine import hand_tiles

    return tuple(hand_tiles(rules.players * rules.hand_size, seed, (match, game), deal))


def deal_positions(rules: Any, dealer: int) -> tuple[list[list[int]], list[int], int]:
    """Where the rules' deal puts each position of the deck: per seat the positions of its hand,
    the positions dealt to the crib, and the position of the starter (the stock's top card)."""
    from cribsim.games.cribbage.engine.state import GameState

    phase = next(p for p in rules.program.phases if p.slot == "deal")
    g = GameState(rules, 0, (0, 0), dealer, decks={0: list(range(rules.deck_size))})
    phase.run(g)
    if len(g.stock) != 1:
        raise ValueError(f"the deal leaves {len(g.stock)} cards in the stock; a book gives the starter only")
    return [list(h) for h in g.hands], list(g.crib), g.stock[-1]


def _cribbage_deck(entry: dict[str, Any], rules: Any, dealer: int) -> tuple[int, ...]:
    from cribsim.games.cribbage.cards import card_str, parse_cards

    hands = entry.get("hands")
    if not isinstance(hands, list) or len(hands) != rules.players or not all(isinstance(h, list) for h in hands):
        raise ValueError(f"hands must list the cards of each of the {rules.players} seats")
    crib = entry.get("crib", [])
    starter = entry.get("starter")
    if not isinstance(crib, list) or not isinstance(starter, str):
        raise ValueError("starter must be one card, crib a list of cards")
    cards = parse_cards([c for h in hands for c in h] + crib + [starter])
    big = [c for c in cards if c >= rules.deck_size]
    if big:
        raise ValueError(f"card {card_str(big[0])} is not in these rules' {rules.deck_size}-card deck")
    seats, crib_pos, starter_pos = deal_positions(rules, dealer)
    deck: list[int] = [-1] * (max([starter_pos, *crib_pos, *(i for s in seats for i in s)]) + 1)
    pos = 0
    for seat, (want, hand) in enumerate(zip(seats, hands)):
        if len(hand) != len(want):
            raise ValueError(f"seat {seat} is dealt {len(want)} cards{' (the dealer)' if seat == dealer else ''}, "
                             f"the book gives {len(hand)}")
        for i in want:
            deck[i] = cards[pos]
            pos += 1
    if len(crib) != len(crib_pos):
        raise ValueError(f"the crib is dealt {len(crib_pos)} cards from the deck, the book gives {len(crib)}")
    for i in crib_pos:
        deck[i] = cards[pos]
        pos += 1
    deck[starter_pos] = cards[pos]
    return tuple(deck)


def _domino_hands(entry: dict[str, Any], rules: Any) -> tuple[int, ...]:
    from cribsim.games.fives_threes.tiles import parse_tile, tile_str

    if set(entry) - {"dealer", "hands"}:
        raise ValueError("a Fives and Threes deal has dealer (the leader) and hands only")
    hands = entry.get("hands")
    if not isinstance(hands, list) or len(hands) != rules.players or not all(isinstance(h, list) for h in hands):
        raise ValueError(f"hands must list the tiles of each of the {rules.players} seats")
    tiles: list[int] = []
    for seat, hand in enumerate(hands):
        if len(hand) != rules.hand_size:
            raise ValueError(f"seat {seat} holds {rules.hand_size} tiles, the book gives {len(hand)}")
        for t in hand:
            tile = parse_tile(t) if isinstance(t, str) else -1
            if tile < 0:
                raise ValueError(f"cannot read tile {str(t)[:20]!r}")
            if tile in tiles:
                raise ValueError(f"tile {tile_str(tile)} appears twice")
            tiles.append(tile)
    return tuple(tiles)


def write_book(rules: Any, count: int, seed: int) -> list[str]:
    """``count`` book lines of random deals of ``rules`` (the deck of line ``i`` is addressed by
    (seed, i, 0, 0); the dealer rotates seat by seat)."""
    lines = []
    for i in range(count):
        dealer = i % rules.players
        deck = _addressed([seed, i, 0, 0], rules)
        lines.append(json.dumps(book_line(rules, dealer, deck)))
    return lines


def book_line(rules: Any, dealer: int, deck: Sequence[int]) -> dict[str, Any]:
    """A deal as a book line (cards and tiles written out)."""
    if rules.game != "cribbage":
        from cribsim.games.fives_threes.tiles import tile_str

        hs = rules.hand_size
        hands = [deck[s * hs:(s + 1) * hs] for s in range(rules.players)]
        return {"dealer": dealer, "hands": [[tile_str(t).strip("[]").replace("|", "-") for t in h] for h in hands]}
    from cribsim.games.cribbage.cards import card_str

    seats, crib_pos, starter_pos = deal_positions(rules, dealer)
    line: dict[str, Any] = {"dealer": dealer, "hands": [[card_str(deck[i]) for i in s] for s in seats]}
    if crib_pos:
        line["crib"] = [card_str(deck[i]) for i in crib_pos]
    line["starter"] = card_str(deck[starter_pos])
    return line


# ---- start positions ------------------------------------------------------------------------------

def read_starts(source: str, spec: Any, variants: Sequence[Any], line: int | None = None) -> list[Start]:
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


def _check_scores(where: str, key: str, scores: list[int], rules: Any) -> None:
    layout = getattr(getattr(rules, "program", None), "layout", None)
    games = [layout(g) for g in range(LAYOUTS_CHECKED)] if layout is not None else \
        [(rules.sides, (rules.target,) * len(rules.sides))]
    for sides, targets in games:
        if len(scores) != len(sides):
            raise ConfigError(where, key, f"gives {len(scores)} scores; '{rules.name}' has {len(sides)} sides")
        for side, (s, t) in enumerate(zip(scores, targets)):
            if s >= t:
                raise ConfigError(where, key, f"side {side} starts at {s}, at or past its target {t:g} in "
                                              f"'{rules.name}': the game would be over")
