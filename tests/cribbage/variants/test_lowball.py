"""Lowball (V-LOWBALL): the fewest points win."""

import random

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage.cards import card_str
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.helpers import C, game_result
from tests.cribbage.variants.helpers import ZERO, observe, run

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-LOWBALL ------------------------------------------------------------------------------------

def test_lowball_reaching_the_target_loses():
    # V-LOWBALL: Alice on 119 pegs a pair (2C on Bob's 2H would be Bob's; here Alice's 2H answers
    # Bob's 2C lead: 2 for the pair) and reaches 121: the game stops at once (R-SHOW-2) and Bob wins
    rules = load_rules("lowball")
    g, over = run(rules, 0, scores=[119, 50], **ZERO)
    assert over == 0 and g.scores[0] == 121
    assert rules.program.rank_sides(over, g.scores) == ((1, 0), None)
    assert load_rules("standard").program.rank_sides(over, g.scores) == ((0, 1), None)


def test_lowball_with_three_players_lowest_wins_ties_share():
    # V-LOWBALL: with more than two sides the lowest score when someone reaches the target wins;
    # tied low scores share the win, each credited with the game in match play
    from cribsim.games.cribbage.match import winners

    rules = rules_from_mapping({"extends": "three_player", "variants": ["lowball"]}, "x.yaml")
    assert rules.program.rank_sides(0, [121, 80, 60]) == ((2, 1, 0), None)
    assert rules.program.rank_sides(0, [121, 70, 70]) == ((1, 2, 0), (1, 2))
    shared = game_result(rules, 1, (121, 70, 70), shared=(1, 2))
    assert winners(rules, shared) == (1, 2)
    assert shared.record(0).shared == [1, 2]
    with pytest.raises(ConfigError, match="unknown variant"):
        rules_from_mapping({"extends": "standard", "variants": ["nosuch"]}, "x.yaml")


def test_lowball_strategies_minimise():
    # V-LOWBALL: greedy keeps the four cards worth least (5-5-5-J is 14 points; it keeps a hand
    # worth 0); ev throws its 5s into the opponents' crib and keeps a hand of nothing
    from itertools import combinations

    from cribsim.games.cribbage.scoring import show_points

    rules = load_rules("lowball")
    hand = C("5S 5D 5H JC 2D 9C")
    for name in ("greedy", "ev", "hoyle"):
        o = observe(rules)
        o.hand, o.discards, o.dealer, o.crib_owner, o.scores = tuple(hand), 2, 0, 0, (0, 0)
        thrown = factory(name)(random.Random(1)).discard(o)
        kept = [c for c in hand if c not in thrown]
        assert show_points(kept, None) == min(show_points(k, None) for k in combinations(hand, 4)), name
    o = observe(rules)
    o.hand, o.discards, o.dealer, o.crib_owner, o.scores = tuple(hand), 2, 0, 0, (0, 0)
    thrown = {card_str(c) for c in factory("ev")(random.Random(1)).discard(o)}
    assert len(thrown & {"5S", "5D", "5H"}) == 2  # two 5s into the opponents' crib


def test_lowball_ranks_lower_scores_higher_in_pairwise_results():
    # V-LOWBALL with three sides: after the winner, a lower score is the better place
    from cribsim.records import GameRecord, MatchRecord
    from cribsim.tournament.aggregate import side_ranking

    game = GameRecord(2, [121, 80, 60], 9, 0, False, 0, [[0], [1], [2]], [2, 1, 0])
    rec = MatchRecord("0.0.0.0", 0, 0, 0, 0, [0, 1, 2], 2, [0, 0, 1], None, [game])
    assert side_ranking(rec, 3, objective=-1) == [2, 1, 0]
    assert side_ranking(rec, 3) == [1, 2, 0]


def test_lowball_continued_play_places_tied_later_sides_clockwise_from_the_finisher():
    """Part 2 (2026-12-01): in continued play with lowball, sides tied for a later place are placed
    clockwise from the side that reached the target first; the lowest share the win."""
    rules = rules_from_mapping({"extends": "five_player_continued", "variants": ["lowball"]}, "x.yaml")
    assert rules.match.scoring == "continued"
    # seat 2 reached the target; clockwise from it: 3, 4, 0, 1; 3 and 0 tie lowest, 4 and 1 tie next
    assert rules.program.rank_sides(2, [40, 60, 121, 40, 60]) == ((3, 0, 4, 1, 2), (3, 0))
    assert rules.program.rank_sides(0, [121, 60, 60, 30, 60]) == ((3, 1, 2, 4, 0), None)
