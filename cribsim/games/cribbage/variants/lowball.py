"""V-LOWBALL (misere, "loser's crib"): all rules apply and scoring is compulsory, but the first
side to reach the target loses; with two sides the other wins. Strategies must say they read
``rules.objective`` (it is -1 here: they minimise their own side's points).

With more sides the lowest score at that moment wins; tied lowest sides share the win (each is
credited in match play). Every match format orders the sides by lowest score (docs/rules.md, Part 2):
the game is decided the moment a side reaches the target (no playing on for places), the match
points of winner-takes-all and continued play follow that order, and there are no skunks (the
side at the target is a loser, never below a skunk line). In match play the side that reached
the target deals first in the next game (it lost, R-MATCH-3)."""

from __future__ import annotations

from typing import Any

from ..engine.variant import Variant, no_knobs


def rank_sides(rules: Any, side: int, scores: list[int]) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """Every side ranked best first: the lowest scores first (ties clockwise from the side that
    reached the target), that side last; the sides tied lowest share the win."""
    k = len(scores)
    others = [(side + i) % k for i in range(1, k)]
    order = tuple(sorted(others, key=lambda s: scores[s])) + (side,)
    low = scores[order[0]]
    tied = tuple(s for s in others if scores[s] == low)
    return order, tied if len(tied) > 1 else None


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = ()
# the keys its port carries through core fields: the lane reads the core ``objective`` field (-1 here)
LANE_KEYS: tuple[str, ...] = ("variant:lowball",)


class Lowball(Variant):
    name = "lowball"
    rule = "V-LOWBALL"
    summary = "the first side to reach the target loses"
    objective = -1
    needs = ("objective",)
    rank_sides = staticmethod(rank_sides)
    native = staticmethod(no_knobs)  # the native lane reads the objective from the rules


VARIANT = Lowball
