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


def with_deal(rules, deal):
    """The rules' own phase list (variants included) with the deal replaced by ``deal``."""
    from cribsim.engine.phases import deal_cards

    return tuple(deal if p is deal_cards else p for p in rules.phases)


def run_scripted(rules, dealer, hands, discards, plays, starter, crib_from_deck="", scores=None, deal_no=0):
    """Play one scripted deal under ``rules``; returns (state, winning side or None)."""
    import random

    from cribsim.engine import GameOver, GameState, play_deal

    strategies = [Scripted(random.Random(0), C(discards[s]), C(plays[s])) for s in range(rules.players)]
    g = GameState(rules, strategies, 0, (0, 0), dealer, events=[])
    g.deal_no = deal_no
    if scores:
        g.scores = list(scores)
    try:
        play_deal(g, with_deal(rules, scripted_deal([C(h) for h in hands], c1(starter), C(crib_from_deck))))
        return g, None
    except GameOver as e:
        return g, e.side


def scripted_deal(hands, starter, crib_from_deck=()):
    """A phase that deals the given hands (by seat) and starter instead of a shuffled deck."""

    def deal(g, d):
        for seat, h in enumerate(hands):
            d.hands[seat] = list(h)
        d.crib = list(crib_from_deck)
        d.stock = [starter]

    return deal
