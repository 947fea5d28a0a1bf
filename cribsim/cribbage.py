"""Cribbage as a game of the tournament machinery (see ``cribsim.games``): its rules builder,
match function, built-in strategies and per-variant summary columns."""

from .engine.events import CRIB, HAND, HEELS, PEG
from .match import play_match
from .rules import rules_from_mapping
from .strategy import BUILTIN
from .tournament import stats

__all__ = ["BUILTIN", "play_match", "rules_from_mapping", "variant_headers", "variant_row"]

variant_headers = ["games", "first dealer wins", "deals/game",
                   "dealer peg/deal", "dealer hand/deal", "dealer crib/deal",
                   "pone peg/deal", "pone hand/deal", "heels/deal",
                   "skunk rate", "double skunk rate"]


def variant_row(rules, games):
    """Cells for ``variant_headers`` from a variant's game records
    [winner, scores, deals, first_dealer, skunk level, points by role and source]."""
    side_of = _side_of(rules)
    ng = len(games)
    fd = sum(1 for g in games if game_side_of(rules, g, side_of)[g[3]] == g[0])
    deals = [g[2] for g in games]
    row = [ng, (*stats.wilson(fd, ng), ng), stats.mean_ci(deals)]
    for role in (0, 1):
        for src in (PEG, HAND, CRIB):
            if role == 1 and src == CRIB:
                continue
            row.append(stats.ratio_ci([g[5][role][src] for g in games], deals))
    row.append(stats.ratio_ci([g[5][0][HEELS] for g in games], deals))
    row.append((*stats.wilson(sum(1 for g in games if g[4] >= 1), ng), ng))
    row.append((*stats.wilson(sum(1 for g in games if g[4] >= 2), ng), ng))
    return row


def game_side_of(rules, g, default):
    """The side of every seat in the game of record ``g``: its own sides (V-TEAM3), if any."""
    extra = g[6] if len(g) > 6 else None
    if extra and "sides" in extra:
        return _side_of({"players": rules["players"], "sides": extra["sides"]})
    return default


def _side_of(rules):
    out = [0] * rules["players"]
    for i, side in enumerate(rules["sides"]):
        for seat in side:
            out[seat] = i
    return out
