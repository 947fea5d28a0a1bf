"""V-LOWBALL (misere, "loser's crib"): all rules apply and scoring is compulsory, but the first
side to reach the target loses; with two sides the other wins. Strategies see
``rules.objective == -1`` and minimise their own side's points (and maximise the others').

With more than two sides the rule book makes the lowest score at that moment the winner, ties
sharing the win; shared wins are not modelled yet, so lowball is refused for more than two
sides. A lowball game has no skunks (the losing side is the one at the target)."""

from ..errors import ConfigError

OBJECTIVE = -1
NEEDS = ("lowball",)  # a strategy must say it minimises


def check(rules, source):
    if len(rules.sides) != 2:
        raise ConfigError(source, "variants", "lowball is implemented for two sides (two players or "
                                              "partnerships); with more, tied low scores would share a "
                                              "win, which is not modelled yet")


def winner(rules, side, scores):
    return 1 - side
