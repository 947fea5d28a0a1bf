"""Helpers for the variants' tests: scripted runs, a bare state to call a hook on, observations."""

from cribsim.games.cribbage.engine import GameState
from tests.cribbage.helpers import run_scripted

run = run_scripted


def bare_state(rules, scores=None):
    """A game state at its first deal, to call a variant's hook on directly."""
    return GameState(rules, 0, (0, 0), 0, log=True, scores=scores)


def after_count(g, seat, points, source):
    """Every after-count hook of the rules (the show's penalties), as the show calls them."""
    for f in g.hooks.after_count:
        f(g, seat, points, source)


def observe(rules, seat=1, side=None):
    """A blank observation of these rules (with the fields their variants add)."""
    return rules.program.observation(seat, rules.side_of[seat] if side is None else side, rules)


def events(g, *sources):
    return [(e.seat, e.points, e.reason) for e in g.events if e.source in sources]


# a deal in which both hands and the crib score nothing (the zero-hand variants' deal)
ZERO = dict(hands=["2H 4C 6S 8D 9H AC", "2C 4D 6H 8S 3D 7S"], discards=["9H AC", "3D 7S"],
            plays=["2H 4C 6S 8D", "2C 4D 6H 8S"], starter="KC")
