"""V-TEAM3-2, "two against one, inspecting": after the discards and before the cut, the lone
player picks up the crib, looks at all eight cards (own four plus the crib's four) and puts
four of them back into the crib, keeping the other four. Both sides need 121 by default
(``lone_target``, ``team_target``). Used with ``team3``; strategies answer
``inspect(obs)`` with the four cards to keep (``obs.hand``: own four, ``obs.crib``: the crib's)."""

from ..cards import cards_str
from ..engine.phases import discard
from ..errors import ConfigError, IllegalMove
from . import insert_after

NEEDS = ("inspect",)


def check(rules, source):
    if "team3" not in rules.variants:
        raise ConfigError(source, "variants", "inspect (V-TEAM3-2) goes with team3 (two against one)")


def inspect(g, d):
    lone = next(side[0] for side in g.sides if len(side) == 1)
    own, crib = list(d.kept[lone]), list(d.crib)
    obs = g.obs[lone]
    obs.hand, obs.crib = tuple(own), tuple(crib)
    obs.dealer, obs.crib_owner, obs.scores = d.dealer, d.crib_owner, tuple(g.scores)
    keep = list(g.strategies[lone].inspect(obs))
    eight = own + crib
    rest = list(eight)
    try:
        for c in keep:
            rest.remove(c)
    except (ValueError, TypeError):
        rest = None
    if rest is None or len(keep) != len(own):
        raise IllegalMove(f"seat {lone} kept {keep!r} of {cards_str(eight)}: expected {len(own)} of those cards", lone)
    d.kept[lone] = tuple(keep)
    d.hands[lone] = list(keep)
    d.crib = rest
    g.log(lone, "inspect", "keeps", cards=keep)


def phases(rules, phases):
    """The inspection right after the discards (before the starter)."""
    return insert_after(phases, discard, inspect)
