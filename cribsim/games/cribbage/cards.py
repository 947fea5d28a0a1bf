"""Integer cards.

A card is an int: ``rank * 4 + suit`` for the 52 standard cards (rank 0 = ace ... 12 = king,
suit 0..3 = C, D, H, S), and 52, 53, ... for wild cards (jokers, written ``JK``; a variant
gives them their meaning).  Everything hot indexes the small tuples below instead of doing
arithmetic or string work.
"""

from __future__ import annotations

from collections.abc import Iterable

from cribsim.errors import CribsimError

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
JACK = 10  # rank index of the jack
WILD_BASE = 52  # the first wild card
MAX_WILD = 4

NUM_STANDARD = 52
_ALL = NUM_STANDARD + MAX_WILD

# rank index 0..12 (wild cards: -1), suit 0..3 (wild: -1), count value 1..10 (wild: 0)
RANK = tuple(c >> 2 if c < NUM_STANDARD else -1 for c in range(_ALL))
SUIT = tuple(c & 3 if c < NUM_STANDARD else -1 for c in range(_ALL))
VALUE = tuple(min(c // 4 + 1, 10) if c < NUM_STANDARD else 0 for c in range(_ALL))
RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))


def card(rank: int, suit: int) -> int:
    """The card of rank index 0..12 and suit index 0..3."""
    return rank * 4 + suit


def make_deck(wild: int = 0) -> list[int]:
    """The deck as a list of ints: 52 standard cards then ``wild`` wild cards."""
    if not 0 <= wild <= MAX_WILD:
        raise CribsimError(f"cribsim: wild cards must be 0..{MAX_WILD}, got {wild}")
    return list(range(NUM_STANDARD + wild))


def card_str(c: int) -> str:
    if c >= WILD_BASE:
        return "JK"
    return RANK_CHARS[c >> 2] + SUIT_CHARS[c & 3]


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(card_str(c) for c in cards)


def _bad(text: object) -> CribsimError:
    return CribsimError(
        f"cribsim: invalid card '{text}' (expected rank A,2-10,T,J,Q,K and suit C,D,H,S)"
    )


def parse_card(text: object) -> int:
    """Parse ``5H``, ``TD``, ``10D``, ``jd`` (any case) or ``JK`` (a wild card, numbered by
    the caller).  Anything else raises a one-line CribsimError."""
    if not isinstance(text, str):
        raise _bad(text)
    s = text.strip().upper()
    if s == "JK":
        return WILD_BASE
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANK_CHARS or s[1] not in SUIT_CHARS:
        raise _bad(text)
    return card(RANK_CHARS.index(s[0]), SUIT_CHARS.index(s[1]))


def parse_cards(words: Iterable[object]) -> list[int]:
    """Parse several cards; wild cards (JK) get distinct ids 52, 53, ...; duplicates are an error."""
    out, wild = [], 0
    for w in words:
        c = parse_card(w)
        if c == WILD_BASE:
            c += wild
            wild += 1
            if wild > MAX_WILD:
                raise CribsimError(f"cribsim: at most {MAX_WILD} wild cards (JK)")
        elif c in out:
            raise CribsimError(f"cribsim: card '{w}' appears twice")
        out.append(c)
    return out
