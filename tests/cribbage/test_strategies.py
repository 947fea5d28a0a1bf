"""Built-in strategies: legal moves in every player count, reproducible choices, and decisions
whose right answer is clear (worked out by hand in the comments)."""

import random

import pytest

from cribsim.errors import CribsimError
from cribsim.games.cribbage.cards import RANK, VALUE
from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.strategy import BUILTIN, allowed
from cribsim.games.cribbage.worlds import sampleable
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory
from tests.cribbage.helpers import C

PRESETS = ["standard", "three_player", "four_player", "four_player_partners", "five_player"]
# rules files that change what a strategy decides on (hand sizes, the discard constraint)
VARIANTS = ["three_player_dealer_six", "five_card", "seven_card", "toss_fives", "nineteen", "back_ten", "lowball",
            "auction", "jokers", "jokers_non_dealer",
            "lowball_partners", "lowball_three", "canadian_doubles", "three_player_team", "three_player_team_inspect",
            "three_player_continued", "five_player_continued"]
CHEAP = {"mc": {"rollouts": 4, "discard_rollouts": 2}, "expert": {"board_samples": 4, "rollouts": 4},
         "openspiel:ismcts": {"simulations": 2},
         "adaptive": {"rollouts": 4, "discard_rollouts": 2, "worlds": 2, "candidates": 3, "learn_deals": 20,
                      "learn_samples": 20}}
# built-ins that play only some rule sets, and say which: the reason a rule set is refused, or None
LIMITED = {"openspiel:ismcts": sampleable}


def make(name, seed=0):
    return factory(name, CHEAP.get(name))(random.Random(seed))


@pytest.mark.parametrize("name", sorted(BUILTIN))
@pytest.mark.parametrize("preset", PRESETS + VARIANTS)
def test_every_strategy_plays_legally_in_every_player_count(name, preset):
    # the engine raises IllegalMove on any illegal discard or card (R-PEG-2, R-DEAL-2)
    rules = load_rules(preset)
    if name in LIMITED and LIMITED[name](rules) is not None:
        with pytest.raises(CribsimError, match="cannot play"):  # refused in one line when the lineup loads
            factory(name, CHEAP.get(name), rules=(rules,))
        return
    games = 2 if name == "mc" else 1 if name in LIMITED else 6
    checked = factory(name, CHEAP.get(name), rules=(rules,))  # accepted for these rules when the lineup loads
    for i in range(games):
        strategies = make_strategies([checked, factory("random")] * 3)[:rules.players]
        res = play_game(rules, strategies, 17, (i, 0), log=True)
        targets = res.targets
        if res.placings:  # R-MATCH-5
            assert all(res.scores[s] >= targets[s] for s in res.placings) and res.winner == res.placings[0]
            continue
        reached = next(s for s in range(len(res.scores)) if res.scores[s] >= targets[s])
        assert res.winner == rules.program.rank_sides(reached, list(res.scores))[0][0]


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_same_seed_same_choices(name):
    rules = load_rules("standard")
    a = play_game(rules, make_strategies([factory(name, CHEAP.get(name))] * 2), 5, (1, 0), log=True)
    b = play_game(rules, make_strategies([factory(name, CHEAP.get(name))] * 2), 5, (1, 0), log=True)
    assert a.events == b.events


def obs_for(hand, rules="standard", seat=0, dealer=1, discards=0, count=0, pile=(), played=(), starter=None):
    r = load_rules(rules)
    o = r.program.observation(seat, r.side_of[seat], r)
    o.dealer = o.crib_owner = dealer
    o.scores = tuple(0 for _ in r.sides)
    o.hand = tuple(C(hand))
    o.discards = discards
    o.count = count
    o.pile = tuple(C(pile)) if pile else ()
    o.played = tuple(played)
    if starter is None and not discards:
        starter = "8S"  # the play always has a starter; one that none of these hands holds
    o.starter = C(starter)[0] if starter else None
    o.legal = tuple(c for c in o.hand if count + VALUE[c] <= 31) if not discards else ()
    return o


@pytest.mark.parametrize("dealer", [0, 1])
def test_ev_keeps_three_fives_and_a_ten_card(dealer):
    # 5H 5C 5S TD JD QC: keeping 5-5-5-ten is 14 for certain (5+5+5 and three 5+ten fifteens: 8;
    # three pairs of 5s: 6); 5-5 with two ten-cards is 10 (four fifteens 8, one pair 2). Whoever
    # owns the crib, the two ten-cards thrown are worth far less than the 4 points lost.
    o = obs_for("5H 5C 5S TD JD QC", dealer=dealer, discards=2)
    thrown = make("ev").discard(o)
    assert len(thrown) == 2 and all(VALUE[c] == 10 for c in thrown)


def test_ev_keeps_the_double_run_and_throws_away_from_the_opponents_crib():
    # 3C 4D 4H 5S KC QD as pone: 3-4-4-5 is a double run of three (6) + pair (2) + fifteen
    # 3+... no: 4+5+... no ten kept; 8 for certain, and the K-Q discard is among the least
    # helpful to the dealer (no 5, not a pair, no fifteen).
    o = obs_for("3C 4D 4H 5S KC QD", dealer=1, discards=2)
    assert sorted(RANK[c] for c in make("ev").discard(o)) == [11, 12]


def test_greedy_takes_31():
    # count 21: TD makes 31 for 2; 2C makes 23 for nothing (R-PEG-5)
    o = obs_for("TD 2C", count=21, pile="KH 8S 3C")
    assert make("greedy").play(o) == C("TD")[0]


def test_greedy_keeps_the_most_points_without_the_starter():
    # 5H 5C TD JD 2S 9C: 5-5-T-J holds 5+T, 5+J twice each (8) + pair (2) = 10, the most
    o = obs_for("5H 5C TD JD 2S 9C", discards=2)
    assert sorted(RANK[c] for c in make("greedy").discard(o)) == [1, 8]


@pytest.mark.parametrize("name", ["hoyle", "ev", "mc"])
def test_never_lead_a_five_when_another_card_will_do(name):
    # a 5 led lets any ten-card (16 of 52) make fifteen for 2
    o = obs_for("5H 4C 9D KS")
    c = make(name).play(o)
    assert RANK[c] != 4


def test_hoyle_leads_from_a_pair():
    o = obs_for("3H 3C 9D KS")
    assert RANK[make("hoyle").play(o)] == 2


def test_hoyle_avoids_leaving_21():
    # count 11: TD would leave 21 (any ten-card then makes 31); 9C leaves 20, no points either way
    o = obs_for("TD 9C", count=11, pile="AH KS")
    assert make("hoyle").play(o) == C("9C")[0]


@pytest.mark.parametrize("name", ["greedy", "hoyle", "ev", "mc"])
def test_take_a_pair_royal(name):
    # count 14 after 7-7: a third 7 pegs 6 (pair royal) and makes 21
    o = obs_for("7D 2C", count=14, pile="7H 7C")
    assert make(name).play(o) == C("7D")[0]


@pytest.mark.parametrize("seat,sign", [(2, 1), (1, -1), (3, -1)])
def test_partnership_ev_counts_the_partners_crib_as_its_own(seat, sign):
    # four partners (R-TEAM-1), seat 0 deals: a 5 thrown by seat 2 (the dealer's partner) helps
    # its own side's crib; thrown by seat 1 or 3 it helps the opponents'.
    o = obs_for("5H 9C 9D KS QD", rules="four_player_partners", seat=seat, dealer=0, discards=1)
    v = make("ev").crib_value(o, C("5H"))
    assert v * sign > 0


def test_partnership_ev_takes_points_against_the_next_opponent():
    # seat 0 at count 8, seat 1 (an opponent) next: 7C makes 15 for 2 now; 2D scores nothing
    o = obs_for("7C 2D", rules="four_player_partners", seat=0, dealer=3, count=8, pile="8H")
    assert make("ev").play(o) == C("7C")[0]


@pytest.mark.parametrize("preset", PRESETS + ["three_player_dealer_six", "five_card", "seven_card", "toss_fives"])
def test_ev_fast_discard_equals_the_plain_formula(preset):
    """The optimised discard picks a keep worth exactly the best of expected_show + crib_value
    over every way to keep the hand (the definition of ev's discard)."""
    from itertools import combinations

    from cribsim.games.cribbage.expect import expected_show

    rules = load_rules(preset)
    ev = make("ev")
    rng = random.Random(preset)
    for _ in range(150):
        seat, dealer = rng.randrange(rules.players), rng.randrange(rules.players)
        k = rules.dealer_discard if seat == dealer else rules.discard
        if k == 0:
            continue
        size = rules.dealer_deal if seat == dealer else rules.deal
        o = obs_for("AS", rules=preset, seat=seat, dealer=dealer, discards=k)
        o.hand = tuple(rng.sample(range(52), size))
        rule = rules.program.hooks.discard_rule  # V-TOSSFIVES
        o.discard_rule = rule(rules, o.hand, k) if rule else None
        best = max(expected_show(keep, o.hand) + ev.crib_value(o, [c for c in o.hand if c not in keep])
                   for keep in combinations(o.hand, size - k)
                   if allowed(o, [c for c in o.hand if c not in keep]))
        thrown = ev.discard(o)
        assert allowed(o, thrown)
        kept = [c for c in o.hand if c not in thrown]
        assert expected_show(kept, o.hand) + ev.crib_value(o, thrown) == pytest.approx(best, abs=1e-9)
