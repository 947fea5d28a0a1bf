"""Fives and Threes deal book lines: each seat's tiles (``"hands": [["1-4", "6-6", ...], ...]``;
the ``dealer`` is the leader)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .engine import hand_tiles
from .tiles import parse_tile, tile_str

if TYPE_CHECKING:
    from .rules import DominoRules


def addressed_deck(rules: DominoRules, seed: int, address: tuple[int, int], deal: int) -> tuple[int, ...]:
    return tuple(hand_tiles(rules.players * rules.hand_size, seed, address, deal))


def book_deck(rules: DominoRules, entry: dict[str, Any], dealer: int) -> tuple[int, ...]:
    """A book line's tiles, seat after seat."""
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


def book_line(rules: DominoRules, dealer: int, deck: Sequence[int]) -> dict[str, Any]:
    """A deal as a book line (tiles written out)."""
    hs = rules.hand_size
    hands = [deck[s * hs:(s + 1) * hs] for s in range(rules.players)]
    return {"dealer": dealer, "hands": [[tile_str(t).strip("[]").replace("|", "-") for t in h] for h in hands]}
