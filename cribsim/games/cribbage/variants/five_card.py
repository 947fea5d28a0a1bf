"""V-FIVECARD, the "old game": two players get 5 cards and discard 2 (hands of 3, a crib of 4);
at the start of each game the non-dealer pegs 3 ("three for last"); the play goes to 31 (or a
go) only once. The deal sizes and the target (61) are plain rules data (``five_card.yaml``);
this module adds the two knobs:

- ``first_pone_points``: what the first pone of each game pegs before the first deal (3);
- ``play_once``: the play stops at its first reset (after a 31 or a go, no more cards)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cribsim.errors import ConfigError
from cribsim.params import Param

from ..engine.events import OTHER
from ..engine.variant import Phase, Variant

if TYPE_CHECKING:
    from ..engine.state import GameState


def three_for_last(g: GameState) -> None:
    """At the start of each game the first pone pegs ``first_pone_points``."""
    if g.deal_no == 0 and g.rules.first_pone_points:
        g.award((g.dealer + 1) % g.n, g.rules.first_pone_points, OTHER, "three for last")


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("first_pone_points", 1, ("first_pone_points",), "V-FIVECARD: what the first pone pegs as the game starts"),
    ("play_once", 1, ("variant:five_card", "play_once"), "V-FIVECARD: the play stops at its first reset"),
)


class FiveCard(Variant):
    name = "five_card"
    rule = "V-FIVECARD"
    summary = "three for last at the start of each game; the play goes to 31 only once"
    params = (
        Param("first_pone_points", int, 0, "points the first pone of each game pegs before the first deal",
              lo=0, hi=1000, on=3),
        Param("play_once", bool, False, "the play stops after the first 31 or go", on=True),
    )
    enabled_by = ("first_pone_points", "play_once")
    phases = (Phase("opening", three_for_last),)
    native = staticmethod(lambda rules: {"first_pone_points": rules.first_pone_points,
                                         "play_once": int(rules.play_once)})

    @staticmethod
    def stops_at_reset(rules: Any) -> bool:
        return bool(rules.play_once)

    @staticmethod
    def check(rules: Any, source: str) -> None:
        if rules.first_pone_points >= rules.target:
            raise ConfigError(source, "first_pone_points", f"expected less than the target ({rules.target}), "
                                                           f"got {rules.first_pone_points}")


VARIANT = FiveCard
