"""Shared test helpers: card parsing shorthand and scripted deals through the public state
machine (a scripted deal is an explicit deck: the engine's own deal phase deals it)."""

from cribsim.games.cribbage.cards import parse_cards
from cribsim.games.cribbage.engine import GameState, answerers, drive
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


def scripted_deck(rules, dealer, hands, starter, crib_from_deck=()):
    """The deck that deals ``hands`` (by seat) in the standard order (clockwise from the
    dealer's left), then the cards straight to the crib, then ``starter`` (the cut card)."""
    n = rules.players
    deck = []
    for i in range(1, n + 1):
        deck += list(hands[(dealer + i) % n])
    return deck + list(crib_from_deck) + [starter]


def run_scripted(rules, dealer, hands, discards, plays, starter, crib_from_deck="", scores=None, deal_no=0,
                 strategies=None, deck=None):
    """Play one scripted deal under ``rules`` through the public state machine; returns (state,
    winning side or None). ``deck`` replaces the standard dealing order (a variant's own deal)."""
    import random

    if strategies is None:
        strategies = [Scripted(random.Random(0), C(discards[s]), C(plays[s])) for s in range(rules.players)]
    if deck is None:
        deck = scripted_deck(rules, dealer, [C(h) if isinstance(h, str) else h for h in hands],
                             c1(starter) if isinstance(starter, str) else starter, C(crib_from_deck))
    g = GameState(rules, 0, (0, 0), dealer, log=True, decks={deal_no: deck}, deal_no=deal_no, scores=scores,
                  until_deal=deal_no)
    over = drive(g, answerers(g.program, strategies))
    return g, (over.side if over is not None else None)


def game_result(rules, winner, scores, first_dealer=0, deals=9, placings=None, first_scores=None, shared=None):
    """A GameResult as the engine makes it: the rules' sides, the sides ranked (the places
    taken, or the winner and then the rest by score; a reversed objective ranks the lowest)."""
    from cribsim.games.cribbage.engine import GameResult

    k = len(scores)
    if placings:
        order = tuple(placings) + tuple(sorted((s for s in range(k) if s not in placings), key=lambda s: -scores[s]))
    elif rules.objective < 0:
        reached = max(range(k), key=lambda s: scores[s])
        order = rules.program.rank_sides(reached, list(scores))[0]
    else:
        order = (winner,) + tuple(sorted((s for s in range(k) if s != winner), key=lambda s: -scores[s]))
    return GameResult(winner, tuple(scores), first_dealer, deals, [[0] * 5 for _ in range(rules.players)],
                      rules.sides, (rules.target,) * k, order, shared=shared,
                      placings=tuple(placings) if placings else None,
                      first_scores=tuple(first_scores) if first_scores else None)
