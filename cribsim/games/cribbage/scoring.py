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
from typing import Any, NamedTuple, Protocol

from cribsim.tables import LazyTable

from .cards import JACK, NUM_STANDARD, RANK, RANK_CHARS, RANK_VALUE, SUIT, VALUE, card
from .points import STANDARD, Scoring

# multiset key: 3 bits of count per rank (counts up to 7, enough for six of a kind with jokers)
RBIT = tuple(1 << (3 * RANK[c]) for c in range(NUM_STANDARD))
SBIT = tuple(1 << SUIT[c] for c in range(NUM_STANDARD))
# what a show counts (its ``crib``), for the flush (R-SHOW-6, S-DATA-4): a hand; a crib, whose
# flush needs the starter's suit (True); a crib whose flush does not (crib_flush_needs_starter: false)
SHOW_HAND, SHOW_CRIB, SHOW_OPEN_CRIB = 0, 1, 2
# the jack of the starter's suit, which scores nobs when held (R-SHOW-7: the starter itself never
# does; with a jack starter only a named joker can be that jack in a hand or crib)
NOB = tuple(card(JACK, SUIT[c]) for c in range(NUM_STANDARD))


def counts_of_key(key: int) -> list[int]:
    return [(key >> (3 * r)) & 7 for r in range(13)]


def rank_points_from_counts(counts: Sequence[int], s: Scoring = STANDARD) -> int:
    """Fifteens + pairs + runs of a rank multiset given as 13 counts (R-SHOW-3..5, S-DATA-1..3)."""
    total = s.fifteen_total
    # fifteens: number of distinct card subsets summing to the total (choose k of the c copies)
    ways = [1] + [0] * total
    for r, c in enumerate(counts):
        if not c:
            continue
        v = RANK_VALUE[r]
        new = ways[:]
        for k in range(1, c + 1):
            step, mult = v * k, comb(c, k)
            if step > total:
                break
            for t in range(total - step + 1):
                if ways[t]:
                    new[t + step] += ways[t] * mult
        ways = new
    pts = s.fifteen * ways[total]
    pts += s.pair * sum(c * (c - 1) // 2 for c in counts)  # R-SHOW-4: each pair
    r = 0
    while r < 13:  # R-SHOW-5: maximal runs, length x number of card combinations
        if counts[r]:
            start, mult = r, 1
            while r < 13 and counts[r]:
                mult *= counts[r]
                r += 1
            if r - start >= s.run_min:
                pts += s.run_card * (r - start) * mult
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


def show_points(hand: Sequence[int], starter: int | None, crib: int = SHOW_HAND) -> int:
    """Points of ``hand`` (any size) with ``starter`` at the show (R-SHOW-3..7).

    ``starter`` may be None (a hand valued before the cut: no nobs, flush of the hand alone).
    ``crib``: what is counted (``SHOW_CRIB``, or True: a crib, whose flush needs the starter's
    suit too, R-SHOW-6; ``SHOW_OPEN_CRIB``: a crib whose flush does not)."""
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
        elif crib != SHOW_CRIB:  # a hand's flush, or an open crib's: one a card
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


def _trailing_kind(ranks: Sequence[int]) -> int:
    """How many cards of one rank end the pile."""
    n, last = len(ranks), ranks[-1]
    k = 1
    while k < n and ranks[n - 1 - k] == last:
        k += 1
    return k


def _trailing_run(ranks: Sequence[int], shortest: int) -> int:
    """The length of the longest run of at least ``shortest`` cards ending the pile, or 0."""
    n = len(ranks)
    for length in range(n, shortest - 1, -1):
        window = ranks[n - length:]
        if len(set(window)) == length and max(window) - min(window) == length - 1:
            return length
    return 0


class ShowFunction(Protocol):
    """Points of a hand (or crib, with the crib flush rule) with a starter (None: before the cut)."""

    def __call__(self, hand: Sequence[int], starter: int | None, crib: int = SHOW_HAND) -> int: ...


class PegFunction(Protocol):
    """Points for the card just laid: the ranks laid since the reset (it last) and the count."""

    def __call__(self, ranks: Sequence[int], count: int) -> int: ...


def _scoring_functions(s: Scoring, table: LazyTable) -> tuple[ShowFunction, PegFunction]:
    """(show, peg) for a scoring other than the standard game's: the same rules with its values
    (S-DATA-1..7); the rank multiset's points come from ``table``, built for this scoring."""
    nobs, fs, crib_flush = s.nobs, s.flush_starter, s.crib_flush_points

    def show(hand: Sequence[int], starter: int | None, crib: int = SHOW_HAND) -> int:
        key = suits = 0
        for c in hand:
            key += RBIT[c]
            suits |= SBIT[c]
        flush = not suits & (suits - 1)
        if starter is None:
            alone: int = table[key]
            return alone + (s.flush(len(hand)) if flush and not crib else 0)
        pts: int = table[key + RBIT[starter]]
        if flush:  # S-DATA-4: a named hand_flush is the hand's alone
            if suits == SBIT[starter]:
                pts += crib_flush(len(hand)) if crib else s.flush(len(hand)) + fs
            elif not crib:
                pts += s.flush(len(hand))
            elif crib == SHOW_OPEN_CRIB:
                pts += crib_flush(len(hand)) - fs
        nob = NOB[starter]
        if nob in hand:
            pts += nobs * hand.count(nob)
        return pts

    total, limit, fifteen, hit, pair, run_min, run_card = (s.fifteen_total, s.count_limit, s.fifteen, s.hit_limit,
                                                           s.pair, s.run_min, s.run_card)

    def peg(ranks: Sequence[int], count: int) -> int:  # peg_points' loop, with this scoring's values
        pts = (fifteen if count == total else 0) + (hit if count == limit else 0)
        n = len(ranks)
        if n < 2:
            return pts
        last = ranks[-1]
        i = n - 2
        while i >= 0 and ranks[i] == last:
            i -= 1
        k = n - 1 - i
        if k > 1:
            return pts + pair * (k * (k - 1) // 2)  # a pair inside the window breaks any run
        if n >= run_min:
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
                if hi - lo == n - 1 - j and n - j >= run_min:
                    best = n - j
            pts += run_card * best
        return pts

    return show, peg


class Scorer:
    """The scoring of one rule set (S-DATA-1..7), built once per :class:`Scoring` (see
    :func:`scorer_for`): ``show(hand, starter, crib)`` and ``peg(ranks, count)`` count points
    (the standard game's are the module's table-driven :func:`show_points` and
    :func:`peg_points`), ``show_items`` and ``peg_items`` enumerate them, and the play's single
    values are attributes (``limit``, ``go``, ``last_card``, ``heels``). ``rank_points`` is the
    table of a rank multiset's fifteens, pairs and runs; ``memo`` holds what strategies derive
    from this scoring (expected values), filled on first use, so that each scoring's tables are
    built once per process."""

    def __init__(self, s: Scoring) -> None:
        self.values = s
        self.limit, self.go, self.last_card, self.heels = s.count_limit, s.go, s.last_card, s.heels
        self.show: ShowFunction
        self.peg: PegFunction
        self.memo: dict[str, Any] = {}
        if s.standard:
            self.rank_points = RANK_POINTS
            self.show, self.peg = show_points, peg_points
        else:
            self.rank_points = LazyTable(lambda key: rank_points_from_counts(counts_of_key(key), s))
            self.show, self.peg = _scoring_functions(s, self.rank_points)

    def show_items(self, hand: Sequence[int], starter: int | None, crib: int = SHOW_HAND) -> list[Item]:
        return show_breakdown(hand, starter, crib, self.values)

    def peg_items(self, cards: Sequence[int]) -> list[Item]:
        return peg_breakdown(cards, self.values)


_SCORERS: dict[Scoring, Scorer] = {}


def scorer_for(s: Scoring) -> Scorer:
    """The one :class:`Scorer` of a scoring in this process (its tables are built once)."""
    got = _SCORERS.get(s)
    if got is None:
        got = _SCORERS[s] = Scorer(s)
    return got


STANDARD_SCORER = scorer_for(STANDARD)


# ---- explanatory path -------------------------------------------------------------------

# the numbers a show is spoken in (fifteens count in twos; runs, flushes and pairs are small)
NUMBER_WORDS = dict(enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                               "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                               "sixteen", "seventeen", "eighteen"))) | {20: "twenty"}


_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def _word(n: int) -> str:
    """A number as a player says it: "seven", "twenty-four" (digits from 100)."""
    if n in NUMBER_WORDS:
        return NUMBER_WORDS[n]
    if 20 <= n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{NUMBER_WORDS[ones]}" if ones else "")
    return str(n)


class Item(NamedTuple):
    """One scoring item: its reason, points and the cards that make it."""

    reason: str
    points: int
    cards: tuple[int, ...]


def show_breakdown(hand: Sequence[int], starter: int | None, crib: int = SHOW_HAND,
                   s: Scoring = STANDARD) -> list[Item]:
    """Every scoring item of a show, enumerated with its cards. Sum equals the show's points."""
    allc = list(hand) + ([starter] if starter is not None else [])
    items = []
    for size in range(2, len(allc) + 1):  # R-SHOW-3, S-DATA-1
        for combo in combinations(allc, size):
            if sum(VALUE[c] for c in combo) == s.fifteen_total:
                items.append(Item("fifteen", s.fifteen, combo))
    for a, b in combinations(allc, 2):  # R-SHOW-4, S-DATA-2
        if RANK[a] == RANK[b]:
            items.append(Item("pair", s.pair, (a, b)))
    by_rank: dict[int, list[int]] = {}
    for c in allc:
        by_rank.setdefault(RANK[c], []).append(c)
    r = 0
    while r < 13:  # R-SHOW-5, S-DATA-3
        if r in by_rank:
            start = r
            while r in by_rank:
                r += 1
            if r - start >= s.run_min:
                for combo in product(*(by_rank[x] for x in range(start, r))):
                    items.append(Item("run", s.run_card * (r - start), combo))
        else:
            r += 1
    suit = SUIT[hand[0]]
    if all(SUIT[c] == suit for c in hand):  # R-SHOW-6, S-DATA-4
        items += _flush_items(hand, starter, crib, s)
    if starter is not None:  # R-SHOW-7: each jack of the starter's suit held (never the starter)
        nob = card(JACK, SUIT[starter])
        items += [Item("nobs", s.nobs, (nob,)) for c in hand if c == nob]
    return [i for i in items if i.points] if not s.standard else items


def _flush_items(hand: Sequence[int], starter: int | None, crib: int, s: Scoring) -> list[Item]:
    """The flush of ``hand``, all of one suit (R-SHOW-6, S-DATA-4): a hand's values, or a crib's
    (with the starter's suit; an open crib's without it too)."""
    n = len(hand)
    if starter is not None and SUIT[starter] == SUIT[hand[0]]:
        points = s.crib_flush_points(n) if crib else s.flush(n) + s.flush_starter
        return [Item("flush", points, (*hand, starter))]
    if not crib:
        return [Item("flush", s.flush(n), tuple(hand))]
    if crib == SHOW_OPEN_CRIB and starter is not None:
        return [Item("flush", s.crib_flush_points(n) - s.flush_starter, tuple(hand))]
    return []


def item_words(reason: str, points: int, fifteens_before: int = 0, cards: int = 0) -> str:
    """One show item in a player's words; fifteens count on from ``fifteens_before``; ``cards``
    is how many cards make a run or a flush (0: as many as its points, the standard game's)."""
    size = _word(cards or points)
    if reason == "fifteen":
        return f"fifteen {_word(fifteens_before + points)}"
    if reason in ("pair", "nobs"):
        return f"{'a pair' if reason == 'pair' else 'his nobs'} is {points}"
    if reason in ("run", "flush"):
        return f"a {reason} of {size} is {points}"
    return f"{reason} {points}"


def show_words(items: Iterable[Sequence[Any]]) -> list[str]:
    """The breakdown in a player's words: fifteen two, fifteen four, a pair is 2, ..."""
    lines, fifteens = [], 0
    for reason, pts, cards in items:
        lines.append(item_words(reason, pts, fifteens, len(cards)))
        if reason == "fifteen":
            fifteens += pts
    return lines


def peg_breakdown(cards: Sequence[int], s: Scoring = STANDARD) -> list[Item]:
    """Scoring items for the last of ``cards`` (laid since the last reset), R-PEG-5, S-DATA-1..6."""
    if not cards:
        return []
    count = sum(VALUE[c] for c in cards)
    if count > s.count_limit:
        raise ValueError(f"count {count} passes {s.count_limit}")
    ranks = [RANK[c] for c in cards]
    items = []
    if count == s.fifteen_total:
        items.append(Item("fifteen", s.fifteen, tuple(cards)))
    if count == s.count_limit:
        items.append(Item(limit_name(s.count_limit), s.hit_limit, tuple(cards)))
    n = len(ranks)
    k = _trailing_kind(ranks)
    if k > 1:
        name = {2: "pair", 3: "pair royal", 4: "double pair royal"}.get(k, f"{k} of a kind")
        items.append(Item(name, s.pair * (k * (k - 1) // 2), tuple(cards[n - k:])))
    else:
        length = _trailing_run(ranks, s.run_min)
        if length:
            items.append(Item("run", s.run_card * length, tuple(cards[n - length:])))
    return [i for i in items if i.points] if not s.standard else items


def limit_name(limit: int) -> str:
    """The play's limit in words, as its score is called: "thirty-one" (R-PEG-3)."""
    return _word(limit)


def rank_name(r: int) -> str:
    return RANK_CHARS[r]
