"""A designer's variant, written outside cribsim: the dealer's hand counts double.

After the dealer's own hand (not the crib) is counted, the dealer pegs its points once more.
One hook, ``after_count``; a rules file names it ``variants: ["dealer_double:DealerDouble"]``."""

from __future__ import annotations

from typing import Any

from cribsim.games.cribbage.engine.events import HAND, OTHER
from cribsim.games.cribbage.engine.variant import Variant


class DealerDouble(Variant):
    name = "dealer_double"
    rule = "DEALER-DOUBLE-1"
    summary = "the dealer's hand counts double"

    @staticmethod
    def after_count(g: Any, seat: int, points: int, source: int) -> None:
        if source == HAND and seat == g.dealer and points:
            g.award(seat, points, OTHER, "the dealer's hand again")
