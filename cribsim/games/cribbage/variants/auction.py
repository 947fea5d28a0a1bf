"""V-AUCTION: after the deal and before the discards the players bid for the crib, starting left
of the dealer and going round the table, dealer included. A bid is a whole number, at least
``min_bid`` and above the standing bid (and, a modelling cap, at most ``max_bid``); a player who
passes drops out; the auction ends when every other player has passed. The winner at once pegs
back the bid (the score may go negative unless ``score_floor`` is set) and owns the crib this
hand, still counted last. If nobody bids, the dealer keeps the crib for free.

Strategies answer ``bid(obs)`` with a whole number or None (pass); a strategy without ``bid``
always passes. The observation adds the dealt hand (``obs.hand``), ``bid_standing``, ``bid_by``
(the seat holding it, or -1) and ``bids`` (the auction so far: (seat, bid or None))."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from cribsim.errors import ConfigError, IllegalMove
from cribsim.params import Param
from cribsim.records import Column

from ..engine.events import OTHER
from ..engine.variant import Decision, Feature, Phase, Variant

if TYPE_CHECKING:
    from ..engine.events import Event
    from ..engine.state import GameState
    from ..observation import Observation


def lowest_bid(obs: Observation) -> int:
    lowest: int = max(obs.rules.min_bid, obs.bid_standing + 1)
    return lowest


def bid_error(obs: Observation, b: Any) -> str | None:
    if b is None or (isinstance(b, int) and not isinstance(b, bool) and b == 0):
        return None
    lo, hi = lowest_bid(obs), obs.rules.max_bid
    if not isinstance(b, int) or isinstance(b, bool) or not lo <= b <= hi:
        return f"bid {b!r}: a bid is a whole number from {lo} to {hi}, or None to pass"
    return None


def bid_choices(obs: Observation) -> list[Any]:
    return [None] + list(range(lowest_bid(obs), obs.rules.max_bid + 1))


def pass_always(strategy: Any, obs: Observation) -> None:
    """The default answer: never bid."""
    return None


def raise_to(obs: Observation, worth: float) -> int | None:
    """The lowest legal bid if it is worth no more than ``worth`` points to us, else a pass."""
    b = lowest_bid(obs)
    return b if b <= worth and b <= obs.rules.max_bid else None


def floor_worth(obs: Observation, crib_estimate: float) -> float:
    """With a reversed objective a bid is welcome as far as the floor lets it peg us back, less
    the crib's points we would then have to take."""
    side_score: int = obs.scores[obs.side] if obs.scores else 0
    floor = obs.rules.score_floor
    assert floor is not None, "a reversed objective with the auction has a score floor (V-AUCTION)"
    return side_score - floor - crib_estimate


def auction(g: GameState) -> Generator[int, Any, None]:
    ask = g.answers["bid"] if g.answers is not None else None  # answered in place by the tournament
    r = g.rules
    n = g.n
    standing, holder = 0, -1
    bids: list[tuple[int, int | None]] = []
    active = [True] * n
    seat = (g.dealer + 1) % n
    scores = tuple(g.scores)
    while True:
        others = [s for s in range(n) if active[s] and s != holder]
        if holder >= 0 and not others:
            break
        if holder < 0 and not any(active):
            break
        if active[seat] and seat != holder:
            obs = g.obs[seat]
            obs.hand = tuple(g.hands[seat])
            obs.dealer, obs.crib_owner, obs.scores = g.dealer, g.dealer, scores
            obs.starter, obs.count, obs.pile, obs.played, obs.legal, obs.gos = None, 0, (), (), (), ()
            obs.discarded = ()  # (nothing of the last deal)
            obs.bid_standing, obs.bid_by, obs.bids = standing, holder, tuple(bids)
            g.asked += 1
            b = ask[seat](obs) if ask is not None else (yield seat)
            msg = bid_error(obs, b)
            if msg:
                raise IllegalMove(f"seat {seat} {msg}", seat)
            if b is None or b == 0:
                active[seat] = False
                bids.append((seat, None))
                g.log(seat, "bid", "pass")
            else:
                standing, holder = b, seat
                bids.append((seat, b))
                g.log(seat, "bid", str(b))
        seat = (seat + 1) % n
    if holder < 0:
        g.log(g.dealer, "bid", "nobody bid: the dealer keeps the crib")
        return
    g.crib_owner = holder
    floor = r.score_floor
    side = g.side_of[holder]
    pay = standing if floor is None else min(standing, max(0, g.scores[side] - floor))
    g.log(holder, "bid", f"wins the crib for {standing}", cards=())
    g.metric("crib_bought")
    g.metric("price_paid", pay)
    if pay:
        g.award(holder, -pay, OTHER, f"pegs back the bid of {standing}")


def _read_bid(words: list[str], obs: Any) -> int | None:
    """A bid typed by a person: its value (``1`` bids 1), or ``p`` or ``pass``."""
    if [w.lower() for w in words] in (["p"], ["pass"]):
        return None
    if len(words) != 1 or not words[0].isdigit() or len(words[0]) > 6:
        raise ValueError("a bid is a whole number, or p to pass")
    return int(words[0])


def _bid_prompt(obs: Any) -> str:
    """What a person is asked: the standing bid, and the bids open to them."""
    lo, hi = lowest_bid(obs), obs.rules.max_bid
    held = f" (seat {obs.bid_by})" if obs.bid_by >= 0 else ""
    open_to = f"bid {lo} to {hi}, or p to pass" if lo <= hi else "p to pass (no higher bid is allowed)"
    return f"bid for the crib: the standing bid is {obs.bid_standing}{held}; {open_to}"


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("auction", 1, ("variant:auction",), "V-AUCTION: the players bid for the crib after the deal"),
    ("min_bid", 1, ("min_bid",), "V-AUCTION: the lowest bid"),
    ("max_bid", 1, ("max_bid",), "V-AUCTION: the cap on bids"),
)


class Auction(Variant):
    name = "auction"
    rule = "V-AUCTION"
    summary = "players bid for the crib after the deal"
    params = (
        Param("min_bid", int, 1, "the lowest bid", lo=1, hi=1000),
        Param("max_bid", int, 29, "a cap on bids (the rule book has none; a reversed objective needs one)",
              lo=1, hi=1000),
    )
    phases = (Phase("after_deal", auction, "bid"),)
    decisions = (Decision("bid", "a whole number above obs.bid_standing (at least min_bid, at most max_bid), "
                                 "or None to pass", legal=bid_choices, check=bid_error, default=pass_always,
                          show=lambda a: "pass" if a is None else str(a), read=_read_bid, prompt=_bid_prompt,
                          numbers="max_bid", how="the bid, or p to pass"),)
    observation = {"bid_standing": 0, "bid_by": -1, "bids": ()}
    features = (Feature("bid_standing", "number", 30.0), Feature("bid_by", "seat"))
    columns = (Column("crib bought (share of deals)", "ratio", "metrics.crib_bought"),
               Column("bid paid/deal", "ratio", "metrics.price_paid"))
    # the native lane plays it with random, greedy and ev bidding (_lane.c ``auction``)
    native = staticmethod(lambda rules: {"auction": 1, "min_bid": rules.min_bid, "max_bid": rules.max_bid})

    @staticmethod
    def check(rules: Any, source: str) -> None:
        if rules.min_bid > rules.max_bid:
            raise ConfigError(source, "max_bid", f"expected at least min_bid ({rules.min_bid}), got {rules.max_bid}")
        if rules.objective < 0 and rules.score_floor is None:
            raise ConfigError(source, "score_floor", "with a reversed objective the auction needs a score_floor: "
                                                     "a bid pegs the winner back, which the objective rewards, "
                                                     "so without a floor bids could lower scores without end")

    @classmethod
    def narrate(cls, e: Event, names: list[str]) -> str | None:
        if e.source != "bid":
            return None
        if e.reason == "pass":
            return f"  {names[e.seat]} passes"
        if e.reason.isdigit():
            return f"  {names[e.seat]} bids {e.reason} for the crib"
        return f"  {e.reason}" if e.reason.startswith("nobody") else f"  {names[e.seat]} {e.reason}"


VARIANT = Auction
