"""V-NINETEEN, the null penalty: each hand or crib that scores 0 at the show gives each
opponent (or the opposing partnership once) 1 point, in turn order from the counter's left."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cribsim.params import Param
from cribsim.records import Column

from ..engine.events import OTHER
from ..engine.variant import Variant

if TYPE_CHECKING:
    from ..engine.state import GameState


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("nineteen", 1, ("variant:nineteen", "null_penalty"),
     "V-NINETEEN: a hand or crib of nothing gives each opposing side 1"),
)


class Nineteen(Variant):
    name = "nineteen"
    rule = "V-NINETEEN"
    summary = "a hand or crib of nothing gives each opposing side 1"
    params = (Param("null_penalty", bool, False, "a hand or crib scoring 0 gives each opposing side 1", on=True),)
    enabled_by = ("null_penalty",)
    columns = (Column("nineteen points/deal", "ratio", "metrics.nineteen"),)
    native = staticmethod(lambda rules: {"nineteen": 1})

    @staticmethod
    def after_count(g: GameState, seat: int, points: int, source: int) -> None:
        if points:
            return
        side_of = g.side_of
        done = {side_of[seat]}
        for i in range(1, g.n):
            s = (seat + i) % g.n
            if side_of[s] not in done:
                done.add(side_of[s])
                g.metric("nineteen")
                g.award(s, 1, OTHER, "nineteen (a hand of nothing)")


VARIANT = Nineteen
