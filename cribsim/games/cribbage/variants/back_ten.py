"""V-BACKTEN, "hand and crib must score": when a player's hand scores 0 and, if they own the crib
this deal, their crib scores 0 too, they go back 10 (``back_ten: both``, the default, the seed's
reading "if neither hand scores"); ``back_ten: each`` sends the owner back 10 for every zero hand
or crib. The score does not go below ``score_floor`` (0 unless the rules say otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cribsim.params import Param
from cribsim.records import Column

from ..engine.events import CRIB, OTHER
from ..engine.variant import Variant

if TYPE_CHECKING:
    from ..engine.state import GameState


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("back_ten", 1, ("variant:back_ten", "back_ten"), "V-BACKTEN: 0 off, 1 both (hand and own crib), 2 each"),
)


class BackTen(Variant):
    name = "back_ten"
    rule = "V-BACKTEN"
    summary = "a hand (and crib) of nothing sends its owner back 10"
    params = (Param("back_ten", str, "", "both: back 10 when a player's hand and own crib both score 0; "
                    "each: for every zero hand or crib", choices=("", "both", "each"), on="both"),)
    enabled_by = ("back_ten",)
    columns = (Column("back ten points/deal", "ratio", "metrics.back_ten"),)
    native = staticmethod(lambda rules: {"back_ten": 1 if rules.back_ten == "both" else 2})

    @staticmethod
    def after_count(g: GameState, seat: int, points: int, source: int) -> None:
        rules = g.rules
        if rules.back_ten == "both":  # a crib owner is judged once both are counted
            if source == CRIB:
                if points or seat not in g.notes.get("zero_hand", ()):
                    return
            elif points:
                return
            elif seat == g.crib_owner:
                g.notes.setdefault("zero_hand", set()).add(seat)
                return
        elif points:
            return
        floor = 0 if rules.score_floor is None else rules.score_floor
        side = g.side_of[seat]
        back = max(floor, g.scores[side] - 10) - g.scores[side]
        if back:
            g.metric("back_ten", back)
            g.award(seat, back, OTHER, "back ten")


VARIANT = BackTen
