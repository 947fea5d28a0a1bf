"""V-TEAM3-1, "two against one": three players; in each game one plays alone against a
partnership of the other two, who share a score. The lone seat is fixed for a game and rotates
game by game (game g: seat g mod 3), so a three-game match ("captain's cribbage") gives each
player the lone seat once; the match then goes to the most games won (``match: {games: 3}``),
each partner of a winning partnership being credited with the game. Targets are knobs:
``lone_target`` (61) and ``team_target`` (121), since sources disagree.

The rules' ``sides`` stay three individual players (the lineup entries); the game's own sides
and targets come from ``layout``. Strategies see them in ``obs.side_of`` and ``obs.scores``."""

from ..errors import ConfigError


def check(rules, source):
    if rules.players != 3 or len(rules.sides) != 3:
        raise ConfigError(source, "variants", "two against one (team3) is for three players, each a side of "
                                              "their own (the partnership changes game by game)")


def layout(rules, g):
    lone = g % 3
    team = tuple(s for s in range(3) if s != lone)
    sides = ((lone,), team) if lone < team[0] else (team, (lone,))
    targets = tuple(rules.lone_target if side == (lone,) else rules.team_target for side in sides)
    return sides, targets
