"""V-LOWBALL (misere, "loser's crib"): all rules apply and scoring is compulsory, but the first
side to reach the target loses; with two sides the other wins. Strategies see
``rules.objective == -1`` and minimise their own side's points (and maximise the others').

With more sides the lowest score at that moment wins; tied lowest sides share the win (each
is credited with the game in match play; the game's record names the first of them, clockwise
from the side that reached the target, and lists them all). A lowball game has no skunks (the
losing side is the one at the target); in match play the side that reached the target deals
first in the next game (it lost, R-MATCH-3)."""

OBJECTIVE = -1
NEEDS = ("lowball",)  # a strategy must say it minimises


def co_winners(rules, side, scores):
    """Every side with the lowest score, clockwise from the side that reached the target."""
    k = len(scores)
    others = [(side + i) % k for i in range(1, k)]
    low = min(scores[s] for s in others)
    return tuple(s for s in others if scores[s] == low)


def winner(rules, side, scores):
    return co_winners(rules, side, scores)[0]
