"""A designer's variant, written outside cribsim: pairs score nothing in the show.

Pairs still score in the play, but a hand or crib counts only its fifteens, runs, flush and his
nobs. One hook, ``count_hand``, which counts each hand and the crib its own way
(docs/guide-designers.md): the rules' count less its pairs (at the rules' points for a pair:
two in the standard game, six for three of a kind, twelve for four). A rules file names it
``variants: ["no_pairs:NoPairs"]``. No built-in strategy knows it: ``ev`` still keeps and throws
pairs for the points they no longer score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cribsim.games.cribbage.engine.variant import Variant


def pair_points(cards: Sequence[int], starter: int, pair: int) -> int:
    """What the pairs among ``cards`` and the starter score at ``pair`` points a pair (the rules'
    own: two in the standard count, three of a kind three pairs, four of a kind six)."""
    ranks = [c >> 2 for c in cards] + [starter >> 2]
    return pair * sum(k * (k - 1) // 2 for k in (ranks.count(r) for r in set(ranks)))


def count_without_pairs(g: Any, seat: int, cards: Sequence[int], crib: Any, source: int) -> int:
    """A hand or the crib by the standard count, its pairs left out; awarded to ``seat``."""
    scorer = g.rules.scorer
    if g.events is not None:  # a recorded or narrated game: the breakdown, without its pairs
        g.log(seat, "show", "crib" if crib else "hand", cards=cards)
        items = [i for i in scorer.show_items(cards, g.starter, crib) if i.reason != "pair"]
        if items:
            g.award_items(seat, items, source)
        return sum(i.points for i in items)
    pts: int = scorer.show(cards, g.starter, crib) - pair_points(cards, g.starter, g.rules.scoring.pair)
    if pts:
        g.award(seat, pts, source)
    return pts


class NoPairs(Variant):
    name = "no_pairs"
    rule = "NO-PAIRS-1"  # a designer's own rule number
    summary = "pairs score nothing in the show"
    count_hand = staticmethod(count_without_pairs)
