"""A designer's variant, written outside cribsim: the crib scores nothing.

The players still throw two cards each to the crib, and it is still shown, but nobody pegs its
points: the discard becomes a choice of the best four to keep. One hook, ``count_hand``: the
crib is shown and counted as nothing. A rules file names it ``variants: ["no_crib:NoCrib"]``.
No built-in strategy knows it: ``ev`` still spends points of its hand to feed or starve a crib
that will score nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cribsim.games.cribbage.engine.events import CRIB
from cribsim.games.cribbage.engine.phases import count_hand
from cribsim.games.cribbage.engine.variant import Variant


def count_no_crib(g: Any, seat: int, cards: Sequence[int], crib: Any, source: int) -> int:
    """A hand as usual; the crib shown and worth nothing."""
    if source == CRIB:
        if g.events is not None:
            g.log(seat, "show", "crib (scores nothing)", cards=cards)
        return 0
    return count_hand(g, seat, cards, crib, source)


class NoCrib(Variant):
    name = "no_crib"
    rule = "NO-CRIB-1"  # a designer's own rule number
    summary = "the crib scores nothing"
    count_hand = staticmethod(count_no_crib)
