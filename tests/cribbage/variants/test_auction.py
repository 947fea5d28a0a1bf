"""The auction for the crib (V-AUCTION)."""

import random

import pytest

from cribsim.errors import ConfigError, IllegalMove
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.helpers import C, Scripted
from tests.cribbage.variants.helpers import ZERO, events, run

# ---- V-AUCTION --------------------------------------------------------------------------------------

class Bidder(Scripted):
    def __init__(self, rng, discards=(), plays=(), bids=()):
        super().__init__(rng, discards, plays)
        self.bids = list(bids)

    def bid(self, obs):
        return self.bids.pop(0)


def run_auction(rules, bids, scores=None):
    d = ZERO
    strategies = [Bidder(random.Random(0), C(d["discards"][s]), C(d["plays"][s]), bids[s]) for s in range(2)]
    return run(rules, 0, scores=scores, strategies=strategies, **d)[0]


def test_auction_winner_pegs_back_the_bid_and_owns_the_crib():
    # V-AUCTION: Alice (0) deals; Bob (left of the dealer) bids first: Bob 2, Alice 3, Bob 4,
    # Alice passes. Bob pegs back 4 at once and owns the crib this hand, still counted last.
    rules = load_rules("auction")
    g = run_auction(rules, [[3, None], [2, 4]])
    assert [(e.seat, e.reason) for e in g.events if e.source == "bid"] == \
        [(1, "2"), (0, "3"), (1, "4"), (0, "pass"), (1, "wins the crib for 4")]
    assert events(g, "other")[0] == (1, -4, "pegs back the bid of 4")
    shows = [(e.seat, e.reason) for e in g.events if e.source == "show"]
    assert shows[-1] == (1, "crib")  # Bob's crib, still counted last
    assert shows[:2] == [(1, "hand"), (0, "hand")]
    # the score may go negative (no floor set): Bob's pegging and the show came after the bid
    assert min(s for s in _running(g)[1]) == -4


def _running(g):
    run_ = {0: [0], 1: [0]}
    for e in g.events:
        if e.points:
            side = e.seat
            run_[side].append(run_[side][-1] + e.points)
    return run_


def test_auction_nobody_bids_the_dealer_keeps_the_crib_free():
    g = run_auction(load_rules("auction"), [[None], [None]])
    assert events(g, "other") == []
    assert [(e.seat, e.reason) for e in g.events if e.source == "show"][-1] == (0, "crib")


def test_auction_floor_and_illegal_bids():
    rules = rules_from_mapping({"extends": "auction", "score_floor": 0})
    g = run_auction(rules, [[None], [5]], scores=[0, 3])
    assert events(g, "other")[0] == (1, -3, "pegs back the bid of 5")  # not below 0
    with pytest.raises(IllegalMove, match="bid"):
        run_auction(load_rules("auction"), [[2], [2]])  # not above the standing bid


def test_variant_decisions_have_defaults_and_needs_are_refused_naming_the_variant(tmp_path):
    # a strategy with only discard and play: the auction's bid defaults to a pass, Canadian
    # doubles' pass to the hands worth most, the inspection to keeping one's own four, a joker
    # laid bare is named for the player; lowball (minimising) and toss fives (a discard rule)
    # need a strategy that says it reads them, and a lineup without one is refused
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies
    from cribsim.tournament.config import load_experiment

    cfg = tmp_path / "x.yaml"
    for variant in ("auction", "canadian_doubles", "jokers", "three_player_team_inspect", "standard"):
        lineup = "[ev, random, {name: p, strategy: 'tests.kernel.bad_strategies:Plain'}]"
        cfg.write_text(f"name: x\nvariants: [{variant}]\nlineup: {lineup}\n")
        exp = load_experiment(cfg)
        rules = exp.variants[0]
        play_game(rules, make_strategies([factory("tests.kernel.bad_strategies:Plain")] * rules.players), 3, (0, 0))
    for variant, need, owner in (("lowball", "objective", "lowball"), ("toss_fives", "discard_rule", "toss_fives")):
        cfg.write_text(f"name: x\nvariants: [{variant}]\nlineup: [ev, {{name: p, strategy: "
                       f"'tests.kernel.bad_strategies:Plain'}}]\nformat: pairings\npairings: [[ev, p]]\n")
        with pytest.raises(ConfigError, match=f"'{need}'.*which {owner} needs"):
            load_experiment(cfg)
