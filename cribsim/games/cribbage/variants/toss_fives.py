"""V-TOSSFIVES: every 5 a player holds must go into the crib, whoever owns it; a player holding
more 5s than they discard tosses as many as they can (only 5s then). The rule binds every
discard to the crib, Canadian doubles' two thrown cards included (docs/rules.md, Part 2).

Strategies see the constraint as ``obs.discard_rule`` ((must, pool): the discards include
``must`` and come from ``pool``) and must say they read it (``understands`` has
``"discard_rule"``); the engine refuses a discard that breaks it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cribsim.params import Param

from ..engine.variant import Variant

FIVE = 4  # rank index of the 5


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("toss_fives", 1, ("variant:toss_fives", "toss_fives"), "V-TOSSFIVES: every 5 held goes to the crib"),
)


class TossFives(Variant):
    name = "toss_fives"
    rule = "V-TOSSFIVES"
    summary = "every 5 held goes to the crib"
    params = (Param("toss_fives", bool, False, "every 5 a player holds must go into the crib", on=True),)
    enabled_by = ("toss_fives",)
    needs = ("discard_rule",)
    native = staticmethod(lambda rules: {"toss_fives": 1})

    @staticmethod
    def discard_rule(rules: Any, hand: Sequence[int], k: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(must, pool): the ``k`` discards must include ``must`` and come from ``pool``; None
        when any ``k`` cards will do."""
        fives = tuple(c for c in hand if c >> 2 == FIVE)
        if not fives:
            return None
        return (fives, tuple(hand)) if len(fives) <= k else ((), fives)


VARIANT = TossFives
