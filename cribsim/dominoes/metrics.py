"""Per-variant summary columns for Fives and Threes, from the game records
[winner, scores, hands, first leader, 0, tallies in ``engine.STATS`` order]."""

from ..tournament import stats
from .engine import STATS

H, BLOCKED, EVENTS, CANCELLED, PLACE, DOMINO, LEADER, OTHER, LAID = range(len(STATS))

variant_headers = ["games", "first leader wins", "hands/game", "blocked hands",
                   "points/hand (all sides)", "lay points/hand", "domino points/hand",
                   "leader's side points/hand", "other side points/hand",
                   "cancelled events (exact finish)"]


def variant_row(rules, games):
    side_of = [0] * rules["players"]
    for i, side in enumerate(rules["sides"]):
        for seat in side:
            side_of[seat] = i
    others = len(rules["sides"]) - 1
    ng = len(games)
    tallies = [g[5] for g in games]
    hands = [t[H] for t in tallies]
    first = sum(1 for g in games if side_of[g[3]] == g[0])

    def per_hand(i, scale=1.0):
        return stats.ratio_ci([t[i] / scale for t in tallies], hands)

    return [
        ng,
        (*stats.wilson(first, ng), ng),
        stats.mean_ci(hands),
        per_hand(BLOCKED),
        stats.ratio_ci([t[LEADER] + t[OTHER] for t in tallies], hands),
        per_hand(PLACE),
        per_hand(DOMINO),
        per_hand(LEADER),
        per_hand(OTHER, others),
        stats.ratio_ci([t[CANCELLED] for t in tallies], [t[EVENTS] for t in tallies]),
    ]
