"""V-TEAM3-2, "two against one, inspecting": after the discards and before the cut, the lone
player picks up the crib, looks at all eight cards (own four plus the crib's four) and puts
four of them back into the crib, keeping the other four. From then on the lone player's view
counts all four crib cards as its own laid away, and the others' views none of theirs (any may
now be in the lone player's hand). Both sides need the game's ``target``
(121), whatever team3's ``lone_target`` and ``team_target`` say (team3's layout). Used with
``team3``; strategies answer ``inspect(obs)`` with the four cards to keep (``obs.hand``: own
four, ``obs.crib``: the crib's). A strategy without ``inspect`` keeps its own four."""

from __future__ import annotations

from collections.abc import Generator
from itertools import combinations
from typing import TYPE_CHECKING, Any

from cribsim.errors import IllegalMove

from ..cards import cards_str
from ..engine.phases import without
from ..engine.variant import Decision, Feature, Phase, Variant

if TYPE_CHECKING:
    from ..engine.events import Event
    from ..engine.state import GameState
    from ..observation import Observation


def keep_error(obs: Observation, keep: Any) -> str | None:
    eight = list(obs.hand) + list(obs.crib)
    try:
        keep = list(keep)
    except TypeError:
        keep = None
    if keep is None or without(eight, keep) is None or len(keep) != len(obs.hand):
        return f"kept {keep!r} of {cards_str(eight)}: expected {len(obs.hand)} of those cards"
    return None


def keep_own(strategy: Any, obs: Observation) -> tuple[int, ...]:
    """The default answer: keep the hand as it is."""
    return tuple(obs.hand)


def inspect(g: GameState) -> Generator[int, Any, None]:
    ask = g.answers["inspect"] if g.answers is not None else None  # answered in place by the tournament
    lone = next(side[0] for side in g.sides if len(side) == 1)
    own, crib = list(g.kept[lone]), list(g.crib)
    obs = g.obs[lone]
    obs.hand, obs.crib = tuple(own), tuple(crib)
    obs.dealer, obs.crib_owner, obs.scores = g.dealer, g.crib_owner, tuple(g.scores)
    g.asked += 1
    keep = ask[lone](obs) if ask is not None else (yield lone)
    msg = keep_error(obs, keep)
    if msg:
        raise IllegalMove(f"seat {lone} {msg}", lone)
    keep = list(keep)
    g.kept[lone] = tuple(keep)
    g.hands[lone] = list(keep)
    g.crib = without(own + crib, keep)  # type: ignore[assignment]
    # what each seat knows of the crib now: the lone player all four it put back, the others
    # none of theirs for sure (any may be in the lone player's hand)
    for seat, o in enumerate(g.obs):
        o.discarded = tuple(g.crib) if seat == lone else ()
    g.log(lone, "inspect", "keeps", cards=keep)


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("inspect", 1, ("variant:inspect",), "V-TEAM3-2: the lone player keeps any four of its hand and the crib"),
)


class Inspect(Variant):
    name = "inspect"
    rule = "V-TEAM3-2"
    players = (3,)
    summary = "the lone player keeps any four of its hand and the crib"
    requires = ("team3",)
    phases = (Phase("after_discard", inspect, "inspect"),)
    private = ("inspect",)
    decisions = (Decision("inspect", "the 4 cards to keep of obs.hand + obs.crib",
                          legal=lambda obs: list(combinations(obs.hand + obs.crib, len(obs.hand))),
                          check=keep_error, default=keep_own,
                          prompt=lambda obs: f"your hand {cards_str(obs.hand)}, the crib {cards_str(obs.crib)}: "
                                             f"keep {len(obs.hand)} of them"),)
    observation = {"crib": ()}
    features = (Feature("crib", "cards"),)
    # the native lane plays it with random, greedy and ev inspecting (_lane.c ``inspect_crib``)
    native = staticmethod(lambda rules: {"inspect": 1})

    @classmethod
    def narrate(cls, e: Event, names: list[str]) -> str | None:
        if e.source == "inspect":
            return f"  {names[e.seat]} picks up the crib and keeps {cards_str(e.cards)}"
        return None


VARIANT = Inspect
