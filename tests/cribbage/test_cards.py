"""Cards: integer encoding and parsing (R-CARD-1, R-CARD-2)."""

import pytest

from cribsim.errors import CribsimError
from cribsim.games.cribbage.cards import RANK, SUIT, VALUE, card_str, make_deck, parse_card, parse_cards
from cribsim.games.cribbage.scoring import peg_breakdown, show_breakdown
from cribsim.ruleset import load_rules
from tests.cribbage.helpers import C, c1

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)


@pytest.mark.parametrize("text,expected", [
    ("5H", "5H"), ("TD", "TD"), ("10D", "TD"), ("jd", "JD"), ("aS", "AS"), ("kc", "KC"), (" qh ", "QH"),
])
def test_parse(text, expected):
    assert card_str(parse_card(text)) == expected


@pytest.mark.parametrize("bad", ["1Z", "11H", "5X", "", "ZZ", "5", "10"])
def test_parse_errors_are_one_clear_line(bad):
    with pytest.raises(CribsimError) as e:
        parse_card(bad)
    assert str(e.value) == f"cribsim: invalid card '{bad}' (expected rank A,2-10,T,J,Q,K and suit C,D,H,S)"


def test_duplicate_card_is_an_error():
    with pytest.raises(CribsimError, match="twice"):
        parse_cards(["5H", "5h"])


def test_values_and_ranks():
    """R-CARD-2: the count values, and T J Q K four different ranks."""
    # R-CARD-2: A=1, 2..9 face, T J Q K = 10; ranks distinct for J Q K
    assert [VALUE[parse_card(t)] for t in "AS 2S 9S TS JS QS KS".split()] == [1, 2, 9, 10, 10, 10, 10]
    assert len({RANK[parse_card(t)] for t in "TS JS QS KS".split()}) == 4
    assert SUIT[parse_card("5C")] == 0 and SUIT[parse_card("5S")] == 3


def test_deck_room_for_jokers():
    assert make_deck() == list(range(52))
    assert make_deck(2)[-2:] == [52, 53]
    assert card_str(52) == "JK"
    assert parse_cards(["JK", "JK", "5H"])[:2] == [52, 53]


def points(items, reason=None):
    return sum(i.points for i in items if reason is None or i.reason == reason)


def test_one_pack_of_52_and_aces_low():
    """R-CARD-1: one 52-card pack, 13 ranks in each of 4 suits, jokers only with V-JOKERS; the
    ace is the lowest rank and ranks do not wrap round: A-2-3 is a run, Q-K-A is not."""
    deck = make_deck()
    assert len(set(deck)) == 52 and "JK" not in {card_str(c) for c in deck}
    assert sorted((RANK[c], SUIT[c]) for c in deck) == [(r, s) for r in range(13) for s in range(4)]
    assert load_rules("standard").deck_size == 52 and load_rules("jokers").deck_size == 54
    assert [RANK[parse_card(r + "S")] for r in "A23456789TJQK"] == list(range(13))  # A lowest, K highest
    # the play: A-2-3 pegs 3 for the run; Q-K-A (count 21) pegs nothing
    assert points(peg_breakdown(C("AH 2C 3D"))) == 3
    assert points(peg_breakdown(C("QH KC AD"))) == 0
    # the show: AH 2C 3D 7S + KC is the run A-2-3 (3) and the fifteen 2+3+K (2): 5;
    # QH KC AS 7D + 8C has no run (and 7+8 is its one fifteen: 2)
    up = show_breakdown(C("AH 2C 3D 7S"), c1("KC"))
    assert points(up, "run") == 3 and points(up) == 5
    wrap = show_breakdown(C("QH KC AS 7D"), c1("8C"))
    assert points(wrap, "run") == 0 and points(wrap) == 2


def test_ten_cards_count_ten_but_pair_only_by_rank():
    """R-CARD-2: a J and a Q both count 10, so each makes a fifteen with a 5, yet they are no
    pair: pairs go by rank, never by value."""
    # the play: J then Q is 20 and scores nothing; J then 5 is 15 (2); J then J is a pair (2)
    assert [points(peg_breakdown(C(s))) for s in ("JH QC", "JH 5C", "JH JC")] == [0, 2, 2]
    # the show: JH QC 2D 8S + 5C: fifteens J+5, Q+5 and 2+8+5 (6), no pair, no run, no nobs
    items = show_breakdown(C("JH QC 2D 8S"), c1("5C"))
    assert points(items, "pair") == 0 and points(items, "fifteen") == 6 and points(items) == 6
