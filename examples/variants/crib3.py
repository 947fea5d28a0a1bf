"""A designer's variant, written outside cribsim: the crib counts three times.

After the crib is counted its owner pegs its points twice more. A rules file names it
``variants: ["crib3:CribThrice"]`` with this file beside it. The whole variant is one hook,
``after_count``, which the engine calls after every hand and crib is counted (docs/guide-designers.md).
No built-in strategy knows it: ``ev`` throws to the crib as if it counted once, and a run says
so in its first lines."""

from __future__ import annotations

from typing import Any

from cribsim.games.cribbage.engine.events import CRIB, OTHER
from cribsim.games.cribbage.engine.variant import Variant


class CribThrice(Variant):
    name = "crib3"
    rule = "CRIB3-1"  # a designer's own rule number
    summary = "the crib counts three times"

    @staticmethod
    def after_count(g: Any, seat: int, points: int, source: int) -> None:
        if source == CRIB and points:
            g.award(seat, 2 * points, OTHER, "the crib again, twice")
