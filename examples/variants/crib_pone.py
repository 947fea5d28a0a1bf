"""A designer's variant, written outside cribsim: the crib scores for the pone.

The dealer still has the crib (the cards go to it as usual, and it is shown last), but its
points are pegged by the dealer's opponent, to take the dealer's edge away. One hook,
``count_hand``, which counts each hand and the crib its own way (docs/guide-designers.md): the
crib is counted, by the standard count, for the other player. A rules file names it
``variants: ["crib_pone:CribForThePone"]``. No built-in strategy knows it: ``ev`` throws its best
cards to a crib it believes its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cribsim.games.cribbage.engine.events import CRIB
from cribsim.games.cribbage.engine.phases import count_hand
from cribsim.games.cribbage.engine.variant import Variant


def count_for_the_pone(g: Any, seat: int, cards: Sequence[int], crib: Any, source: int) -> int:
    """A hand as usual; the crib counted for the seat after its owner (two players: the pone)."""
    if source != CRIB:
        return count_hand(g, seat, cards, crib, source)
    pone = (seat + 1) % g.n
    scorer = g.rules.scorer
    if g.events is not None:  # a recorded or narrated game: the dealer's crib, its points the pone's
        g.log(seat, "show", "crib (it scores for the pone)", cards=cards)
        items = scorer.show_items(cards, g.starter, crib)
        if items:
            g.award_items(pone, items, source)
        return sum(i.points for i in items)
    pts: int = scorer.show(cards, g.starter, crib)
    if pts:
        g.award(pone, pts, source)
    return pts


class CribForThePone(Variant):
    name = "crib_pone"
    rule = "CRIB-PONE-1"  # a designer's own rule number
    summary = "the crib scores for the pone"
    players = (2,)
    count_hand = staticmethod(count_for_the_pone)
