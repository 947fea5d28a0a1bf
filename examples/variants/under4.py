"""A designer's variant, written outside cribsim: a hand of fewer than four points scores nothing.

After a hand (not the crib) is counted, a count of 1 to 3 points is taken back. One hook,
``after_count``; a rules file names it ``variants: ["under4:UnderFour"]``."""

from __future__ import annotations

from typing import Any

from cribsim.games.cribbage.engine.events import HAND, OTHER
from cribsim.games.cribbage.engine.variant import Variant


class UnderFour(Variant):
    name = "under4"
    rule = "UNDER4-1"
    summary = "a hand of fewer than four points scores nothing"

    @staticmethod
    def after_count(g: Any, seat: int, points: int, source: int) -> None:
        if source == HAND and 0 < points < 4:
            g.award(seat, -points, OTHER, "under four: nothing")
