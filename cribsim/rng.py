"""Randomness addressed, not consumed.

Every random draw is a function of the run's seed and an address of small ints (which match,
game, deal, stream): decks come straight from a BLAKE2b stream keyed by them
(:func:`addressed_draw`); the cut for deal and the strategies' generators are
``random.Random`` seeded by ``derive(seed, *address)``. The deck of deal k of game g of match m
is therefore the same whichever worker plays it, in whichever order."""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Callable, Iterable
from typing import TypeVar

_T = TypeVar("_T")

# streams: what a generator is for (part of the address)
DECK = 0
CUT_FOR_DEAL = 1
STRATEGY = 2
COUNTING = 3  # V-MUGGINS: who overlooks and who notices


def derive(seed: int, *address: int) -> int:
    """A 64-bit key from a seed and an address of ints (any size, any sign)."""
    data = struct.pack(f"<{len(address) + 1}q", *((seed,) + tuple(address)))
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


_PACKS: dict[int, Callable[..., bytes]] = {}
_blake = hashlib.blake2b
_WORDS = struct.Struct("<8Q").unpack


def addressed_draw(n: int, k: int, seed: int, *address: int) -> list[int]:
    """``k`` distinct items of ``range(n)`` in random order, drawn straight from a keyed
    stream: BLAKE2b of (seed, address, block counter) gives eight 64-bit words per block, and a
    partial Fisher-Yates shuffle takes index ``i + floor(u * (n - i))`` from each 53-bit
    ``u`` (uniform to within n / 2**53, as with ``random()``). Twice as fast as seeding a
    Mersenne Twister per deck, and the deck depends on nothing but its address."""
    pack = _PACKS.get(len(address))
    if pack is None:
        pack = _PACKS[len(address)] = struct.Struct(f"<{len(address) + 2}q").pack
    pool = list(range(n))
    i = 0
    for block in range((k + 7) >> 3):  # eight 64-bit words per BLAKE2b block
        for w in _WORDS(_blake(pack(seed, *address, block), digest_size=64).digest()):
            if i == k:
                break
            j = i + (((w >> 11) * (n - i)) >> 53)
            pool[i], pool[j] = pool[j], pool[i]
            i += 1
    return pool[:k]


def rng_at(seed: int, *address: int) -> random.Random:
    """A fresh ``random.Random`` for one address."""
    return random.Random(derive(seed, *address))


def draw(rng: random.Random, population: Iterable[_T], k: int) -> list[_T]:
    """``k`` distinct items of ``population`` in random order (a partial Fisher-Yates shuffle).

    Uses ``rng.random()``, three times cheaper than ``Random.sample`` here; the index
    ``int(u * m)`` is uniform to within m / 2**53 (about 1e-14 for a 54-card deck)."""
    pool = list(population)
    rnd = rng.random
    m = len(pool)
    for i in range(k):
        j = i + int(rnd() * (m - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]
