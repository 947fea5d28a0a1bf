"""Shared test helpers: card parsing shorthand and scripted deals."""

from cribsim.cards import parse_cards
from cribsim.strategy import Strategy


def C(text):
    """'5H 5C JD' -> list of card ints."""
    return parse_cards(text.split())


def c1(text):
    return parse_cards([text])[0]


class Scripted(Strategy):
    """Plays a fixed script: discards, then cards in order (each must be legal)."""

    name = "scripted"

    def __init__(self, rng, discards=(), plays=()):
        self.rng = rng
        self.discards = list(discards)
        self.plays = list(plays)

    def discard(self, obs):
        return self.discards

    def play(self, obs):
        c = self.plays.pop(0)
        assert c in obs.legal, f"scripted card {c} not legal in {obs.legal}"
        return c


def scripted_deal(hands, starter, crib_from_deck=()):
    """A phase that deals the given hands (by seat) and starter instead of a shuffled deck."""

    def deal(g, d):
        for seat, h in enumerate(hands):
            d.hands[seat] = list(h)
        d.crib = list(crib_from_deck)
        d.stock = [starter]

    return deal
