"""Exact expectations for strategies: the show value of kept cards over every starter the
player has not seen. The fifteens/pairs/runs part is cached by rank pattern (kept ranks, held
ranks); flush and nobs are added by suit with exact probabilities."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import JACK, RANK, SUIT
from .scoring import RANK_POINTS, RBIT

_RB = tuple(1 << (3 * r) for r in range(13))
_RANK_EV: dict[int, float] = {}


def rank_ev(kkey: int, hkey: int, unseen: int) -> float:
    """Sum over starter ranks of (cards of that rank not held) x rank points of keep+starter."""
    k = (kkey << 40) | hkey  # both keys are under 2**39
    v = _RANK_EV.get(k)
    if v is None:
        v = 0
        for r in range(13):
            left = 4 - ((hkey >> (3 * r)) & 7)
            if left:
                v += left * RANK_POINTS[kkey + _RB[r]]
        v /= unseen
        if len(_RANK_EV) > 2_000_000:
            _RANK_EV.clear()
        _RANK_EV[k] = v
    return v


def expected_show(keep: Sequence[int], held: Sequence[int], crib: bool = False) -> float:
    """Expected show points of ``keep`` over every starter not in ``held`` (the cards this player
    has seen, including ``keep``). With ``crib`` a flush needs the starter's suit (R-SHOW-6)."""
    unseen = 52 - len(held)
    kkey = hkey = 0
    for c in keep:
        kkey += RBIT[c]
    for c in held:
        hkey += RBIT[c]
    v = rank_ev(kkey, hkey, unseen)
    s = SUIT[keep[0]]
    if all(SUIT[c] == s for c in keep):
        same = 13 - sum(1 for c in held if SUIT[c] == s)
        v += (0 if crib else len(keep)) + (len(keep) + 1 if crib else 1) * same / unseen
    for c in keep:
        if RANK[c] == JACK:
            s = SUIT[c]
            # starters of the jack's suit that are not jacks and not held
            left = 12 - sum(1 for x in held if SUIT[x] == s and RANK[x] != JACK)
            v += left / unseen
    return v
