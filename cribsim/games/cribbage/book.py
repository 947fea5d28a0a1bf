"""Cribbage's deal book lines: a line's cards as the deck of a deal, a deck written out as a
line, and the deck the random streams give at an address.

Where the cards land is not written here a second time: :func:`deal_positions` runs the rules'
own deal phase on a marked deck and reads where each position went."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .cards import card_str, parse_cards
from .engine.state import GameState, deck_at

if TYPE_CHECKING:
    from .rules import Rules

FIELDS = {"dealer", "hands", "crib", "starter", "address"}


def deal_positions(rules: Rules, dealer: int) -> tuple[list[list[int]], list[int], int]:
    """Where the rules' deal puts each position of the deck: per seat the positions of its hand,
    the positions dealt to the crib, and the position of the starter (the stock's top card)."""
    phase = next(p for p in rules.program.phases if p.slot == "deal")
    g = GameState(rules, 0, (0, 0), dealer, decks={0: list(range(rules.deck_size))})
    phase.run(g)
    if len(g.stock) != 1:
        raise ValueError(f"the deal leaves {len(g.stock)} cards in the stock; a book gives the starter only")
    return [list(h) for h in g.hands], list(g.crib), g.stock[-1]


def addressed_deck(rules: Rules, seed: int, address: tuple[int, int], deal: int) -> tuple[int, ...]:
    return tuple(deck_at(rules.deck_size, rules.deck_size, seed, address, deal))


def book_deck(rules: Rules, entry: dict[str, Any], dealer: int) -> tuple[int, ...]:
    """A book line's cards placed where the rules' deal puts them."""
    extra = set(entry) - FIELDS
    if extra:
        raise ValueError(f"unknown field {sorted(extra)[0]!r} (expected dealer, hands, crib, starter or address)")
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


def book_line(rules: Rules, dealer: int, deck: Sequence[int]) -> dict[str, Any]:
    """A deal as a book line (cards written out)."""
    seats, crib_pos, starter_pos = deal_positions(rules, dealer)
    line: dict[str, Any] = {"dealer": dealer, "hands": [[card_str(deck[i]) for i in s] for s in seats]}
    if crib_pos:
        line["crib"] = [card_str(deck[i]) for i in crib_pos]
    line["starter"] = card_str(deck[starter_pos])
    return line
