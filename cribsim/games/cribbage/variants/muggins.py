"""V-MUGGINS: points a player fails to claim may be claimed by an opponent who calls "muggins".
Who overlooks and who notices is a model of each player, set per lineup entry (``miss_rate``,
``vigilance``; see ``cribsim.engine.counting``): each opponent, in turn order from the
claimer's left, notices with its vigilance, and the first who does pegs all the missed points
of that claim. Without muggins, overlooked points are lost. With perfect counting, muggins plays
exactly like the standard game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cribsim.records import Column

from ..engine.events import OTHER
from ..engine.variant import Variant

if TYPE_CHECKING:
    from ..engine.events import Event
    from ..engine.state import GameState


def missed(g: GameState, seat: int, points: int) -> None:
    """The first vigilant opponent from the claimer's left takes the points missed."""
    counting = g.counting
    assert counting is not None
    side_of = g.side_of
    for i in range(1, g.n):
        s = (seat + i) % g.n
        if side_of[s] != side_of[seat] and counting.random() < counting.vigilance(s):
            g.metric("muggins", points)
            g.award(s, points, OTHER, "muggins")
            return


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("muggins", 1, ("variant:muggins",), "V-MUGGINS: an opponent who notices takes the points overlooked"),
)


class Muggins(Variant):
    name = "muggins"
    rule = "V-MUGGINS"
    summary = "overlooked points may be taken by an opponent"
    missed = staticmethod(missed)
    columns = (Column("muggins points/deal", "ratio", "metrics.muggins"),)
    # the native lane plays it, the seats' counting models included (_lane.c ``missed``)
    native = staticmethod(lambda rules: {"muggins": 1})

    @classmethod
    def narrate(cls, e: Event, names: list[str]) -> str | None:
        return None


VARIANT = Muggins
