"""V-AUCTION: after the deal and before the discards the players bid for the crib, starting
left of the dealer and going round the table, dealer included. A bid is a whole number, at least
``min_bid`` and above the standing bid (and, a modelling cap, at most ``max_bid``); a player who
passes drops out; the auction ends when every other player has passed. The winner at once pegs
back the bid (the score may go negative unless ``score_floor`` is set) and owns the crib this
hand, still counted last. If nobody bids, the dealer keeps the crib for free.

Strategies answer ``bid(obs)`` with a whole number or None (pass); the Observation carries the
dealt hand, ``bid_standing``, ``bid_by`` (the seat holding it, or -1) and ``bids`` (the auction so
far: (seat, bid or None))."""

from ..engine.events import OTHER
from ..engine.phases import deal_cards
from ..errors import ConfigError, IllegalMove
from . import insert_after

NEEDS = ("bid",)


def check(rules, source):
    if rules.objective < 0 and rules.score_floor is None:
        raise ConfigError(source, "score_floor", "lowball with the auction needs a score_floor: a bid pegs "
                                                 "the winner back, which lowball rewards, so without a floor "
                                                 "bids could lower scores without end")


def lowball_worth(obs, crib_estimate):
    """In lowball a bid is welcome as far as the floor lets it peg us back, less the crib's
    points we would then have to take."""
    side_score = obs.scores[obs.side] if obs.scores else 0
    return side_score - obs.rules.score_floor - crib_estimate


def auction(g, d):
    r = g.rules
    n = g.n
    standing, holder = 0, -1
    bids = []
    active = [True] * n
    seat = (d.dealer + 1) % n
    scores = tuple(g.scores)
    while True:
        others = [s for s in range(n) if active[s] and s != holder]
        if holder >= 0 and not others:
            break
        if holder < 0 and not any(active):
            break
        if active[seat] and seat != holder:
            obs = g.obs[seat]
            obs.hand = tuple(d.hands[seat])
            obs.dealer, obs.crib_owner, obs.scores = d.dealer, d.dealer, scores
            obs.bid_standing, obs.bid_by, obs.bids = standing, holder, tuple(bids)
            b = g.strategies[seat].bid(obs)
            if b is None or b == 0:
                active[seat] = False
                bids.append((seat, None))
                g.log(seat, "bid", "pass")
            else:
                if not isinstance(b, int) or isinstance(b, bool) or b < max(r.min_bid, standing + 1) or b > r.max_bid:
                    raise IllegalMove(f"seat {seat} bid {b!r}: a bid is a whole number from "
                                      f"{max(r.min_bid, standing + 1)} to {r.max_bid}, or None to pass", seat)
                standing, holder = b, seat
                bids.append((seat, b))
                g.log(seat, "bid", str(b))
        seat = (seat + 1) % n
    if holder < 0:
        g.log(d.dealer, "bid", "nobody bid: the dealer keeps the crib")
        return
    d.crib_owner = holder
    floor = r.score_floor
    side = g.side_of[holder]
    pay = standing if floor is None else min(standing, max(0, g.scores[side] - floor))
    g.log(holder, "bid", f"wins the crib for {standing}", cards=())
    if pay:
        g.award(holder, -pay, OTHER, f"pegs back the bid of {standing}")


def phases(rules, phases):
    """The auction right after the deal (before the discards)."""
    return insert_after(phases, deal_cards, auction)

