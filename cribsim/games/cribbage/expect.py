"""Exact expectations for strategies: the show value of kept cards over every starter the
player has not seen, under a rule set's scoring (S-DATA, the standard game's by default). The
fifteens/pairs/runs part is cached by rank pattern (kept ranks, held ranks), per scoring; flush
and nobs are added by suit with exact probabilities."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import JACK, RANK, SUIT
from .scoring import RBIT, STANDARD_SCORER, Scorer

_RB = tuple(1 << (3 * r) for r in range(13))
_RANK_EV: dict[int, float] = {}


def rank_ev(kkey: int, hkey: int, unseen: int, scorer: Scorer = STANDARD_SCORER) -> float:
    """Sum over starter ranks of (cards of that rank not held) x rank points of keep+starter."""
    k = (kkey << 40) | hkey  # both keys are under 2**39
    cache = _RANK_EV if scorer is STANDARD_SCORER else scorer.memo.setdefault("rank_ev", {})
    v = cache.get(k)
    if v is None:
        points = scorer.rank_points
        v = 0
        for r in range(13):
            left = 4 - ((hkey >> (3 * r)) & 7)
            if left:
                v += left * points[kkey + _RB[r]]
        v /= unseen
        if len(cache) > 2_000_000:
            cache.clear()
        cache[k] = v
    return v


def expected_show(keep: Sequence[int], held: Sequence[int], crib: bool = False,
                  scorer: Scorer = STANDARD_SCORER) -> float:
    """Expected show points of ``keep`` over every starter not in ``held`` (the cards this player
    has seen, including ``keep``). With ``crib`` it is a crib: its flush needs the starter's suit
    (R-SHOW-6) and has the crib's value (S-DATA-4)."""
    unseen = 52 - len(held)
    kkey = hkey = 0
    for c in keep:
        kkey += RBIT[c]
    for c in held:
        hkey += RBIT[c]
    v = rank_ev(kkey, hkey, unseen, scorer)
    values = scorer.values
    s = SUIT[keep[0]]
    if all(SUIT[c] == s for c in keep):
        same = 13 - sum(1 for c in held if SUIT[c] == s)
        if crib:
            v += values.crib_flush_points(len(keep)) * same / unseen
        else:
            v += values.flush(len(keep)) + values.flush_starter * same / unseen
    for c in keep:
        if RANK[c] == JACK:
            s = SUIT[c]
            # starters of the jack's suit that are not jacks and not held
            left = 12 - sum(1 for x in held if SUIT[x] == s and RANK[x] != JACK)
            v += values.nobs * left / unseen
    return v
