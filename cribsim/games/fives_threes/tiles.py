"""Double-six tiles as ints 0..27 (F-SET-1): tile ``t`` is ``[A[t]|B[t]]`` with A <= B.

Tables, not objects, on the hot path: ``A``, ``B``, ``DOUBLE``, ``PIPS`` (both halves) and
``HAS[p]`` (the set of tiles showing pip ``p``)."""

from __future__ import annotations

from collections.abc import Iterable

from cribsim.errors import CribsimError

TILES = tuple((a, b) for a in range(7) for b in range(a, 7))
N_TILES = len(TILES)  # 28
INDEX = {ab: t for t, ab in enumerate(TILES)}
A = tuple(a for a, _ in TILES)
B = tuple(b for _, b in TILES)
DOUBLE = tuple(a == b for a, b in TILES)
PIPS = tuple(a + b for a, b in TILES)
HAS = tuple(frozenset(t for t, (a, b) in enumerate(TILES) if p in (a, b)) for p in range(7))


def tile(a: int, b: int) -> int:
    """The tile [a|b] (either order)."""
    return INDEX[(a, b) if a <= b else (b, a)]


def tile_str(t: int) -> str:
    return f"[{A[t]}|{B[t]}]"


def tiles_str(ts: Iterable[int]) -> str:
    return " ".join(tile_str(t) for t in ts)


def parse_tile(text: str) -> int:
    """``[1|4]``, ``1|4``, ``1-4``, ``4:1`` or ``14`` -> a tile; one-line error otherwise."""
    s = text.strip().strip("[]")
    for sep in "|-:/":
        if sep in s:
            parts = s.split(sep)
            break
    else:
        parts = list(s)
    if len(parts) != 2 or not all(p.strip().isdigit() and 0 <= int(p) <= 6 for p in parts):
        raise CribsimError(f"cribsim: cannot read tile {text!r} (expected two pips 0-6, e.g. [1|4] or 1-4)")
    return tile(int(parts[0]), int(parts[1]))
