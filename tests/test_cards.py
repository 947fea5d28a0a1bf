"""Cards: integer encoding and parsing (R-CARD-1, R-CARD-2)."""

import pytest

from cribsim.errors import CribsimError
from cribsim.games.cribbage.cards import RANK, SUIT, VALUE, card_str, make_deck, parse_card, parse_cards


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
    # R-CARD-2: A=1, 2..9 face, T J Q K = 10; ranks distinct for J Q K
    assert [VALUE[parse_card(t)] for t in "AS 2S 9S TS JS QS KS".split()] == [1, 2, 9, 10, 10, 10, 10]
    assert len({RANK[parse_card(t)] for t in "TS JS QS KS".split()}) == 4
    assert SUIT[parse_card("5C")] == 0 and SUIT[parse_card("5S")] == 3


def test_deck_room_for_jokers():
    assert make_deck() == list(range(52))
    assert make_deck(2)[-2:] == [52, 53]
    assert card_str(52) == "JK"
    assert parse_cards(["JK", "JK", "5H"])[:2] == [52, 53]
