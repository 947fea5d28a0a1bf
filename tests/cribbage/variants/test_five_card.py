"""Five-card cribbage (V-FIVECARD)."""



import pytest

from cribsim.games.cribbage.cards import card_str
from cribsim.ruleset import load_rules
from tests.cribbage.helpers import C, c1
from tests.cribbage.variants.helpers import events, run

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-FIVECARD --------------------------------------------------------------------------------

def test_five_card_three_for_last_and_the_play_goes_to_31_once():
    # V-FIVECARD: Alice (0) deals, Bob (1) pegs 3 at the start of the game ("three for last").
    # Bob leads TH (10); Alice 5S (15: 2); Bob 7C (22); Alice 6D (28: run 5-7-6, 3);
    # Bob cannot lay 6C (34): go; Alice 2C (30); nobody can play: 1 for the go to Alice.
    # The play then stops: Bob's 6C is never laid, and there is no point for last card.
    rules = load_rules("five_card")
    hands = ["5S 6D 2C KC QD", "TH 7C 6C 9H 3D"]
    g, over = run(rules, 0, hands, ["KC QD", "9H 3D"], ["5S 6D 2C", "TH 7C 6C"], starter="AS")
    assert over is None
    assert events(g, "other") == [(1, 3, "three for last")]
    lays = [(e.seat, card_str(e.cards[0])) for e in g.events if e.source == "lay"]
    assert lays == [(1, "TH"), (0, "5S"), (1, "7C"), (0, "6D"), (0, "2C")]
    assert [p for p in events(g, "peg")] == [(0, 2, "fifteen"), (0, 3, "run"), (0, 1, "go")]
    # the show still counts the three-card hands: Bob TH 7C 6C + AS, nothing; Alice 5S 6D 2C + AS
    assert [e.cards for e in g.events if e.source == "show"][0] == tuple(C("TH 7C 6C"))


def test_five_card_three_for_last_only_at_the_start_of_a_game():
    rules = load_rules("five_card")
    hands = ["5S 6D 2C KC QD", "TH 7C 6C 9H 3D"]
    g, _ = run(rules, 0, hands, ["KC QD", "9H 3D"], ["5S 6D 2C", "TH 7C 6C"], starter="AS", deal_no=1)
    assert events(g, "other") == []


def test_five_card_hand_flush_of_three():
    # V-FIVECARD: a hand flush is all 3 hand cards of one suit: 3, or 4 with the starter
    from cribsim.games.cribbage.scoring import show_points
    assert show_points(C("2H 6H TH"), c1("KS")) == 3
    assert show_points(C("2H 6H TH"), c1("KH")) == 4
    assert show_points(C("2H 6H TH 8H"), c1("KS"), crib=True) == 0  # the crib needs all five
