"""Scoring: the show (R-SHOW-3..7) and pegging (R-PEG-5), as pure functions.

Two implementations that check each other:

* the fast path (:func:`show_points`, :func:`peg_points`) used by the engine and strategies.
  Fifteens, pairs and runs depend only on the rank multiset, so they come from a table keyed by
  the multiset (3 bits per rank, summed from a per-card tuple); flush and nobs are added by suit.
* the explanatory path (:func:`show_breakdown`, :func:`peg_breakdown`) that enumerates every
  scoring combination with its cards, for the CLI and narrated games.

Cards here are concrete (jokers already named, see the jokers variant).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, product
from math import comb
from typing import Any, NamedTuple

from cribsim.tables import LazyTable

from .cards import JACK, NUM_STANDARD, RANK, RANK_CHARS, RANK_VALUE, SUIT, VALUE, card

# multiset key: 3 bits of count per rank (counts up to 7, enough for six of a kind with jokers)
RBIT = tuple(1 << (3 * RANK[c]) for c in range(NUM_STANDARD))
SBIT = tuple(1 << SUIT[c] for c in range(NUM_STANDARD))
# the jack of the starter's suit, which scores nobs when held (R-SHOW-7: the starter itself never
# does; with a jack starter only a named joker can be that jack in a hand or crib)
NOB = tuple(card(JACK, SUIT[c]) for c in range(NUM_STANDARD))


def counts_of_key(key: int) -> list[int]:
    return [(key >> (3 * r)) & 7 for r in range(13)]


def rank_points_from_counts(counts: Sequence[int]) -> int:
    """Fifteens + pairs + runs of a rank multiset given as 13 counts (R-SHOW-3..5)."""
    # fifteens: number of distinct card subsets summing to 15 (choose k of the c copies)
    ways = [1] + [0] * 15
    for r, c in enumerate(counts):
        if not c:
            continue
        v = RANK_VALUE[r]
        new = ways[:]
        for k in range(1, c + 1):
            step, mult = v * k, comb(c, k)
            if step > 15:
                break
            for s in range(15 - step + 1):
                if ways[s]:
                    new[s + step] += ways[s] * mult
        ways = new
    pts = 2 * ways[15]
    pts += sum(c * (c - 1) for c in counts)  # R-SHOW-4: each pair 2
    r = 0
    while r < 13:  # R-SHOW-5: maximal runs, length x number of card combinations
        if counts[r]:
            start, mult = r, 1
            while r < 13 and counts[r]:
                mult *= counts[r]
                r += 1
            if r - start >= 3:
                pts += (r - start) * mult
        else:
            r += 1
    return pts


def _rank_fill(key: int) -> int:
    return rank_points_from_counts(counts_of_key(key))


# multiset key -> fifteens+pairs+runs points, filled on first use (any hand size)
RANK_POINTS: Any = LazyTable(_rank_fill)


def multiset_key(cards: Iterable[int]) -> int:
    key = 0
    for c in cards:
        key += RBIT[c]
    return key


def show_points(hand: Sequence[int], starter: int | None, crib: bool = False) -> int:
    """Points of ``hand`` (any size) with ``starter`` at the show (R-SHOW-3..7).

    ``starter`` may be None (a hand valued before the cut: no nobs, flush of the hand alone).
    With ``crib`` a flush needs the starter's suit too (R-SHOW-6)."""
    key = suits = 0
    for c in hand:
        key += RBIT[c]
        suits |= SBIT[c]
    flush = not suits & (suits - 1)  # one suit bit set
    if starter is None:
        alone: int = RANK_POINTS[key]
        return alone + (len(hand) if flush and not crib else 0)
    pts: int = RANK_POINTS[key + RBIT[starter]]
    if flush:
        if suits == SBIT[starter]:
            pts += len(hand) + 1
        elif not crib:
            pts += len(hand)
    nob = NOB[starter]
    if nob in hand:  # R-SHOW-7: each jack of the starter's suit held (a named wild card may
        pts += hand.count(nob)  # duplicate one, even a jack starter) scores 1
    return pts


def peg_points(ranks: Sequence[int], count: int) -> int:
    """Points for the card just laid (R-PEG-5): ``ranks`` are the rank indexes laid since the
    last reset, the new card last; ``count`` is the running count including it.
    The go and last card are not included (they depend on what happens next)."""
    n = len(ranks)
    if n < 2:
        return 0  # one card can make neither 15 nor 31 nor a pair
    pts = 2 if count == 15 or count == 31 else 0
    last = ranks[-1]
    i = n - 2
    while i >= 0 and ranks[i] == last:
        i -= 1
    k = n - 1 - i  # cards of a kind at the end of the pile
    if k > 1:
        return pts + k * (k - 1)  # a pair inside the window breaks any run ending here
    if n >= 3:
        lo = hi = last
        seen = 1 << last
        best = 0
        for j in range(n - 2, -1, -1):
            r = ranks[j]
            bit = 1 << r
            if seen & bit:
                break
            seen |= bit
            if r < lo:
                lo = r
            elif r > hi:
                hi = r
            if hi - lo == n - 1 - j and n - j >= 3:
                best = n - j
        pts += best
    return pts


# ---- explanatory path -------------------------------------------------------------------

# the numbers a show is spoken in (fifteens count in twos; runs, flushes and pairs are small)
NUMBER_WORDS = dict(enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                               "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                               "sixteen", "seventeen", "eighteen"))) | {20: "twenty"}


def _word(n: int) -> str:
    return NUMBER_WORDS.get(n, str(n))


class Item(NamedTuple):
    """One scoring item: its reason, points and the cards that make it."""

    reason: str
    points: int
    cards: tuple[int, ...]


def show_breakdown(hand: Sequence[int], starter: int | None, crib: bool = False) -> list[Item]:
    """Every scoring item of a show, enumerated with its cards. Sum equals show_points."""
    allc = list(hand) + ([starter] if starter is not None else [])
    items = []
    for size in range(2, len(allc) + 1):  # R-SHOW-3
        for combo in combinations(allc, size):
            if sum(VALUE[c] for c in combo) == 15:
                items.append(Item("fifteen", 2, combo))
    for a, b in combinations(allc, 2):  # R-SHOW-4
        if RANK[a] == RANK[b]:
            items.append(Item("pair", 2, (a, b)))
    by_rank: dict[int, list[int]] = {}
    for c in allc:
        by_rank.setdefault(RANK[c], []).append(c)
    r = 0
    while r < 13:  # R-SHOW-5
        if r in by_rank:
            start = r
            while r in by_rank:
                r += 1
            if r - start >= 3:
                for combo in product(*(by_rank[x] for x in range(start, r))):
                    items.append(Item("run", r - start, combo))
        else:
            r += 1
    s = SUIT[hand[0]]
    if all(SUIT[c] == s for c in hand):  # R-SHOW-6
        if starter is not None and SUIT[starter] == s:
            items.append(Item("flush", len(hand) + 1, tuple(allc)))
        elif not crib:
            items.append(Item("flush", len(hand), tuple(hand)))
    if starter is not None:  # R-SHOW-7: each jack of the starter's suit held (never the starter)
        nob = card(JACK, SUIT[starter])
        items += [Item("nobs", 1, (nob,)) for c in hand if c == nob]
    return items


def item_words(reason: str, points: int, fifteens_before: int = 0) -> str:
    """One show item in a player's words; fifteens count on from ``fifteens_before``."""
    if reason == "fifteen":
        return f"fifteen {_word(fifteens_before + points)}"
    if reason == "pair":
        return "a pair is 2"
    if reason == "run":
        return f"a run of {_word(points)} is {points}"
    if reason == "flush":
        return f"a flush of {_word(points)} is {points}"
    if reason == "nobs":
        return "his nobs is 1"
    return f"{reason} {points}"


def show_words(items: Iterable[Sequence[Any]]) -> list[str]:
    """The breakdown in a player's words: fifteen two, fifteen four, a pair is 2, ..."""
    lines, fifteens = [], 0
    for reason, pts, _ in items:
        lines.append(item_words(reason, pts, fifteens))
        if reason == "fifteen":
            fifteens += pts
    return lines


def peg_breakdown(cards: Sequence[int]) -> list[Item]:
    """Scoring items for the last of ``cards`` (laid since the last reset), R-PEG-5."""
    if not cards:
        return []
    count = sum(VALUE[c] for c in cards)
    if count > 31:
        raise ValueError(f"count {count} passes 31")
    ranks = [RANK[c] for c in cards]
    items = []
    if count == 15:
        items.append(Item("fifteen", 2, tuple(cards)))
    if count == 31:
        items.append(Item("thirty-one", 2, tuple(cards)))
    n, last = len(ranks), ranks[-1]
    k = 1
    while k < n and ranks[n - 1 - k] == last:
        k += 1
    if k > 1:
        name = {2: "pair", 3: "pair royal", 4: "double pair royal"}.get(k, f"{k} of a kind")
        items.append(Item(name, k * (k - 1), tuple(cards[n - k:])))
    else:
        for length in range(n, 2, -1):
            window = ranks[n - length:]
            if len(set(window)) == length and max(window) - min(window) == length - 1:
                items.append(Item("run", length, tuple(cards[n - length:])))
                break
    return items


def rank_name(r: int) -> str:
    return RANK_CHARS[r]
