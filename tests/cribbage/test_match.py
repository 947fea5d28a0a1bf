"""Match play: skunk lines, game points, first to N or fixed games, loser deals first
(R-MATCH-1..3)."""

import pytest

from cribsim.games.cribbage.match import game_skunk, next_first_dealer, play_match, skunk_level
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.helpers import game_result

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

RULES = {}


def gr(winner, scores, first_dealer=0):
    players = {2: "standard", 3: "three_player"}[len(scores)]
    return game_result(RULES.setdefault(players, load_rules(players)), winner, scores, first_dealer)


@pytest.mark.parametrize("loser,level", [(91, 0), (90, 1), (61, 1), (60, 2), (31, 2), (30, 3), (0, 3)])
def test_skunk_lines_121(loser, level):
    assert skunk_level(load_rules("standard"), loser) == level  # R-MATCH-1: 91 / 61 / 31


@pytest.mark.parametrize("loser,level", [(46, 0), (45, 1), (30, 2), (15, 3)])
def test_skunk_lines_scale_for_61(loser, level):
    assert skunk_level(rules_from_mapping({"target": 61}), loser) == level  # 46 / 31 / 16


def test_multi_side_skunk_needs_every_opponent_below_the_line():
    r = load_rules("three_player")
    assert game_skunk(r, gr(0, [121, 80, 95])) == 0
    assert game_skunk(r, gr(0, [121, 80, 85])) == 1


def test_loser_deals_first_next_game():
    """R-MATCH-3 (and R-DEAL-1's last sentence): the loser of a game deals first in the next."""
    r = load_rules("standard")
    assert next_first_dealer(r, gr(0, [121, 100], first_dealer=0), 0) == 1
    assert next_first_dealer(r, gr(1, [100, 121], first_dealer=0), 0) == 0
    rt = load_rules("four_player_partners")
    # side 1 (seats 1, 3) lost; the seat nearest clockwise after the previous first dealer (2)
    assert next_first_dealer(rt, game_result(rt, 0, [121, 90], first_dealer=2), 2) == 3


def test_match_first_to_n_with_game_points_and_loser_deals():
    r = rules_from_mapping({"match": {"first_to": 5, "game_points": "default"}})
    table = r.match.points_table()
    for key in range(20):
        m = play_match(r, [factory("random")] * 2, 1, key)
        pts = [0, 0]
        for g, level in zip(m.games, m.skunks):
            pts[g.winner] += table[("win", "skunk", "double_skunk", "triple_skunk")[level]]
            assert level == game_skunk(r, g)
        assert pts == m.game_points
        assert max(pts) >= 5 and pts[m.winner] == max(pts)
        assert sum(1 for g in m.games if pts[g.winner] >= 5) >= 1
        for prev, nxt in zip(m.games, m.games[1:]):
            assert nxt.first_dealer == 1 - prev.winner  # R-MATCH-3


def test_match_fixed_games_and_acc_table():
    r = rules_from_mapping({"match": {"games": 3, "game_points": "acc"}})
    m = play_match(r, [factory("random")] * 2, 2, 0)
    assert len(m.games) == 3
    assert sum(m.game_points) == sum(3 if s else 2 for s in m.skunks)


def test_triple_skunk_can_win_the_match_outright():
    r = rules_from_mapping({"target": 121, "skunk_lines": [121, 121, 121],
                            "match": {"first_to": 99, "triple_skunk_wins_match": True}})
    m = play_match(r, [factory("random")] * 2, 3, 0)
    assert len(m.games) == 1 and m.winner == m.games[0].winner


def test_first_dealer_given_is_used():
    r = load_rules("standard")
    assert play_match(r, [factory("random")] * 2, 1, 0, first_dealer=1).games[0].first_dealer == 1
