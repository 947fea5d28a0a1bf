"""V-CANADIAN (Canadian doubles): four players in two partnerships; only the dealer and the
player to the dealer's left are dealt, 10 cards each. Each keeps 4, passes 4 face down to their
partner and discards 2 to the crib. Play and show are as usual.

The plug-in replaces the deal and the discard phases with one phase. Strategies answer
``pass_cards(obs)`` with (the 4 cards for the partner, the 2 for the crib); ``obs.hand`` holds
the 10 dealt cards, ``obs.discards`` is 2 and ``obs.passes`` 4."""

from ..cards import cards_str
from ..errors import ConfigError, IllegalMove
from ..rng import DECK, addressed_draw
from ..engine.phases import deal_cards, discard

NEEDS = ("pass_cards",)
DEALT, PASS, THROW = 10, 4, 2


def check(rules, source):
    partners = rules.players == 4 and sorted(sorted(s) for s in rules.sides) == [[0, 2], [1, 3]]
    if not partners:
        raise ConfigError(source, "variants", "Canadian doubles needs four players in partnerships "
                                              "(players: 4, sides: [[0, 2], [1, 3]])")
    if rules.jokers:
        raise ConfigError(source, "jokers", "Canadian doubles with jokers is not supported yet")
    if rules.hand_size != DEALT - PASS - THROW or rules.crib_size != 2 * THROW or rules.crib_from_deck:
        raise ConfigError(source, "variants", "Canadian doubles keeps hands of 4 and a crib of 4 "
                                              "(deal: 5, discard: 1, no crib_from_deck)")


def canadian_deal(g, d):
    n, dealer = g.n, d.dealer
    dealt = (dealer, (dealer + 1) % n)
    cards = addressed_draw(g.rules.deck_size, 2 * DEALT + 1, g.seed, *g.address, g.deal_no, DECK)
    hands = {dealt[0]: cards[DEALT:2 * DEALT], dealt[1]: cards[:DEALT]}  # the left is dealt first
    d.stock = cards[2 * DEALT:]
    for s in range(n):
        d.hands[s] = []
    if g.events is not None:
        for s in dealt:
            g.log(s, "deal", cards=hands[s])
    scores = tuple(g.scores)
    kept = {}
    for seat in dealt:
        hand = hands[seat]
        obs = g.obs[seat]
        obs.hand, obs.discards, obs.passes = tuple(hand), THROW, PASS
        obs.dealer, obs.crib_owner, obs.scores = dealer, d.crib_owner, scores
        obs.starter, obs.count, obs.pile, obs.played, obs.legal = None, 0, (), (), ()
        obs.discard_rule = None
        choice = g.strategies[seat].pass_cards(obs)
        try:
            to_partner, to_crib = (list(x) for x in choice)
            rest = list(hand)
            for c in to_partner + to_crib:
                rest.remove(c)
        except (ValueError, TypeError):
            rest = None
        if rest is None or len(to_partner) != PASS or len(to_crib) != THROW:
            raise IllegalMove(f"seat {seat} answered {choice!r} for {cards_str(hand)}: expected "
                              f"({PASS} cards for the partner, {THROW} for the crib), all its own", seat)
        kept[seat] = rest
        kept[(seat + 2) % n] = to_partner
        d.crib.extend(to_crib)
        g.log(seat, "pass", "to partner", cards=to_partner)
        g.log(seat, "discard", cards=to_crib)
    for s in range(n):
        d.hands[s] = kept[s]
        d.kept[s] = tuple(kept[s])
        if g.events is not None and s not in dealt:
            g.log(s, "deal", "from partner", cards=kept[s])


def phases(rules, phases):
    out = []
    for p in phases:
        if p is deal_cards:
            out.append(canadian_deal)
        elif p is discard:
            continue
        else:
            out.append(p)
    return out
