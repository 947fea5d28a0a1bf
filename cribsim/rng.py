"""Randomness addressed, not consumed.

Every random draw comes from a generator seeded by ``derive(seed, *address)``: a 64-bit hash of
the run's seed and an address of small ints (which match, game, deal, stream).  The deck of deal
k of game g of match m is therefore the same whichever worker plays it, in whichever order."""

import hashlib
import random
import struct

# streams: what a generator is for (part of the address)
DECK = 0
CUT_FOR_DEAL = 1
STRATEGY = 2


def derive(seed, *address):
    """A 64-bit key from a seed and an address of ints (any size, any sign)."""
    data = struct.pack(f"<{len(address) + 1}q", *((seed,) + tuple(address)))
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def rng_at(seed, *address):
    """A fresh ``random.Random`` for one address."""
    return random.Random(derive(seed, *address))


def draw(rng, population, k):
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
