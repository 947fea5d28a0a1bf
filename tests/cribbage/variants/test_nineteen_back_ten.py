"""Nineteen and back ten (V-NINETEEN, V-BACKTEN): the zero-hand penalties."""



import pytest

from cribsim.games.cribbage.engine import GameOver
from cribsim.games.cribbage.engine.events import CRIB, HAND
from cribsim.ruleset import load_rules, rules_from_mapping
from tests.cribbage.variants.helpers import ZERO, after_count, bare_state, events, run

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-NINETEEN, V-BACKTEN ------------------------------------------------------------------------

# Every hand and the crib score nothing with the starter KC: Bob 2C 4D 6H 8S, Alice 2H 4C 6S 8D,
# crib (Alice's) 9H AC 3D 7S. The play pegs pairs; the show then counts 0, 0, 0.


def test_nineteen_each_zero_hand_or_crib_gives_the_opponent_one():
    # V-NINETEEN: Bob's hand 0 -> Alice 1; Alice's hand 0 -> Bob 1; Alice's crib 0 -> Bob 1
    g, _ = run(load_rules("nineteen"), 0, **ZERO)
    assert [e[:2] for e in events(g, "other")] == [(0, 1), (1, 1), (1, 1)]
    assert all("nineteen" in e[2] for e in events(g, "other"))


def test_nineteen_partnership_gets_one_point_once():
    rules = rules_from_mapping({"extends": "four_player_partners", "null_penalty": True})
    g = bare_state(rules)
    after_count(g, 0, 0, HAND)  # seat 0 (side 0) counted nothing
    assert g.scores == [0, 1] and [e.seat for e in g.events] == [1]


def test_back_ten_each_sends_every_zero_hand_or_crib_back_not_below_the_floor():
    # V-BACKTEN (when: each): from 50 each, the three zero counts send Bob back 10 and Alice back 20
    rules = load_rules("back_ten_each")
    assert rules.back_ten == "each"
    g, _ = run(rules, 0, scores=[50, 50], **ZERO)
    backs = [e[:2] for e in events(g, "other")]
    assert backs == [(1, -10), (0, -10), (0, -10)]
    g = bare_state(rules, scores=[4, 30])
    after_count(g, 1, 0, HAND)
    assert g.scores == [4, 20]
    after_count(g, 0, 0, HAND)
    assert g.scores == [0, 20]  # not below the floor (0)
    after_count(g, 1, 5, HAND)
    assert g.scores == [0, 20]  # a hand that scores is not penalised


def test_back_ten_floor_is_a_knob():
    rules = rules_from_mapping({"extends": "back_ten_each", "score_floor": -20})
    g = bare_state(rules, scores=[4, 0])
    for _ in range(3):
        after_count(g, 0, 0, HAND)
    assert g.scores == [-20, 0]


def test_back_ten_default_is_both_hand_and_own_crib_must_score():
    # V-BACKTEN's default (when: both, seed 000 "if neither hand scores"): a player goes back 10
    # when their hand scores 0 and, if they own the crib this deal, their crib scores 0 too.
    # From 50 each: Bob (no crib) goes back for his zero hand; Alice's hand and crib both score 0.
    rules = load_rules("back_ten")
    assert rules.back_ten == "both" and load_rules("back_ten_each").back_ten == "each"
    assert rules_from_mapping({"variants": ["back_ten"]}).back_ten == "both"
    g, _ = run(rules, 0, scores=[50, 50], **ZERO)
    assert [e[:2] for e in events(g, "other")] == [(1, -10), (0, -10)]
    g = bare_state(rules, scores=[50, 50])  # Alice (seat 0) deals and owns the crib
    after_count(g, 0, 0, HAND)
    after_count(g, 0, 4, CRIB)  # her crib scored: no penalty
    assert g.scores == [50, 50]


def test_back_ten_comes_before_nineteen_on_one_zero_hand():
    """Part 2 (2026-12-01): when nineteen and back ten both apply to one zero-scoring hand or crib,
    the owner goes back ten first and then the opposing side pegs the nineteen point."""
    rules = rules_from_mapping({"extends": "back_ten_each", "null_penalty": True})
    g, _ = run(rules, 0, scores=[50, 50], **ZERO)
    # Bob's hand, then Alice's hand and Alice's crib: each time back ten, then the opponent's 1
    assert [e[:2] for e in events(g, "other")] == [(1, -10), (0, 1), (0, -10), (1, 1), (0, -10), (1, 1)]
    g = bare_state(rules, scores=[5, 120])  # the order matters at the edges: the floor, the target
    with pytest.raises(GameOver):
        after_count(g, 0, 0, HAND)
    assert g.scores == [0, 121]
    assert [(e.seat, e.points) for e in g.events] == [(0, -5), (1, 1)]
