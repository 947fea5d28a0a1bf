"""V-TEAM3-1, "two against one": three players; in each game one plays alone against a
partnership of the other two, who share a score. The lone seat is fixed for a game and rotates
game by game (game g: seat g mod 3), so a three-game match ("captain's cribbage") gives each
player the lone seat once; the match then goes to the most games won (``match: {games: 3}``),
each partner of a winning partnership being credited with the game. Targets are knobs:
``lone_target`` (61) and ``team_target`` (121), since sources disagree.

The rules' ``sides`` stay three individual players (the lineup entries); each game's own sides
and targets come from ``layout``, strategies see them in ``obs.side_of`` and ``obs.scores``, and
each game's record carries them. With inspecting (V-TEAM3-2) both sides play to the game's
``target`` (121), whatever ``lone_target`` and ``team_target`` say (the rule book, Part 2). The
three-player match formats (winner takes all, continued play) are for three sides and are
refused here (docs/rules.md, Part 2)."""

from __future__ import annotations

from typing import Any

from cribsim.errors import ConfigError
from cribsim.params import Param

from ..engine.variant import Variant, no_knobs


def layout(rules: Any, g: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Game ``g``'s sides, always in the order (the lone player, the partnership), so a side's
    index means the same role in every game (start positions, records, strategies)."""
    lone = g % 3
    team = tuple(s for s in range(3) if s != lone)
    if any(v.name == "inspect" for v in rules.modules):  # V-TEAM3-2: both sides need the target
        return ((lone,), team), (rules.target, rules.target)
    return ((lone,), team), (rules.lone_target, rules.team_target)


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = ()
# the keys its port carries through core fields: the lane reads each game's sides and targets
# from the core ``side_target`` field
LANE_KEYS: tuple[str, ...] = ("variant:team3", "lone_target", "team_target")


class Team3(Variant):
    name = "team3"
    rule = "V-TEAM3-1"
    players = (3,)
    summary = "two against one: a lone player against a partnership, rotating game by game"
    params = (
        Param("lone_target", int, 61, "the lone player's target (with inspect both play to target)",
              lo=1, hi=10_000),
        Param("team_target", int, 121, "the partnership's target (with inspect both play to target)",
              lo=1, hi=10_000),
    )
    layout = staticmethod(layout)
    native = staticmethod(no_knobs)  # the native lane plays each game's sides and targets from its layout

    @staticmethod
    def check(rules: Any, source: str) -> None:
        if rules.players != 3 or len(rules.sides) != 3:
            raise ConfigError(source, "variants", "two against one (team3) is for three players, each a side of "
                                                  "their own (the partnership changes game by game)")
        if rules.match.scoring != "table":
            raise ConfigError(source, "match.scoring", f"team3 (two against one) and {rules.match.scoring} "
                                                       "cannot be combined: a game has two sides, and that "
                                                       "format (R-MATCH-4, R-MATCH-5) is for three")


VARIANT = Team3
