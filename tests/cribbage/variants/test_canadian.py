"""Canadian doubles (V-CANADIAN)."""

import random

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage.cards import card_str
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.helpers import C
from tests.cribbage.variants.helpers import observe

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-CANADIAN ---------------------------------------------------------------------------------

def test_canadian_doubles_deal_pass_and_discard():
    # V-CANADIAN: only the dealer and the dealer's left get cards (10 each); each keeps 4, passes 4
    # to the partner and throws 2 to the crib; every hand is then 4 cards and the crib 4
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies

    rules = load_rules("canadian_doubles")
    for name in ("random", "greedy", "hoyle", "ev"):
        res = play_game(rules, make_strategies([factory(name)] * 4), 5, (1, 0), log=True)
        for k in range(res.deals - 1):
            ev_ = [e for e in res.events if e.deal == k]
            dealer = (res.first_dealer + k) % 4
            dealt = {e.seat: e.cards for e in ev_ if e.source == "deal" and e.reason != "from partner"}
            assert set(dealt) == {dealer, (dealer + 1) % 4} and all(len(c) == 10 for c in dealt.values())
            passed = {e.seat: e.cards for e in ev_ if e.source == "pass"}
            received = {e.seat: e.cards for e in ev_ if e.reason == "from partner"}
            for s, cards in passed.items():
                assert received[(s + 2) % 4] == cards and set(cards) <= set(dealt[s])
            shows = {(e.seat, e.reason): e.cards for e in ev_ if e.source == "show"}
            assert all(len(c) == 4 for c in shows.values()) and len(shows) == 5


def test_canadian_ev_split_is_the_best_of_all_3150():
    # ev's pass_cards is the best split by its definition: expected show of our hand plus the
    # partner's (both count for the side) plus the crib value of the two thrown. Here that means
    # 5-5-J-K (10 before the starter) and 4-4-5-6 (12: a double run and two fifteens) rather
    # than the obvious 5-5-5-J (14) and 4-4-6-6 (4): 22 beats 18.
    from itertools import combinations

    from cribsim.games.cribbage.expect import expected_show

    rules = load_rules("canadian_doubles")
    o = observe(rules, 0)
    o.hand = tuple(C("5S 5D 5H JC 4S 4D 6H 6C KS 9D"))
    o.discards, o.passes, o.dealer, o.crib_owner, o.scores = 2, 4, 1, 1, (0, 0)
    ev = factory("ev")(random.Random(0))
    passed, thrown = ev.pass_cards(o)
    kept = [c for c in o.hand if c not in passed and c not in thrown]

    def value(keep, pas, thr):
        return expected_show(keep, o.hand) + expected_show(pas, o.hand) + ev.crib_value(o, thr)

    best = max(value(k, p, [c for c in o.hand if c not in k and c not in p])
               for k in combinations(o.hand, 4) for p in combinations([c for c in o.hand if c not in k], 4))
    assert value(kept, passed, thrown) == pytest.approx(best)
    assert {frozenset(map(card_str, kept)), frozenset(map(card_str, passed))} == \
        {frozenset(["5S", "5D", "JC", "KS"]), frozenset(["4S", "4D", "5H", "6H"])}


def test_canadian_needs_four_players_in_partnerships():
    with pytest.raises(ConfigError, match="Canadian doubles needs four players"):
        rules_from_mapping({"extends": "three_player", "variants": ["canadian"]}, "x.yaml")
    with pytest.raises(ConfigError, match="Canadian doubles needs four players"):
        rules_from_mapping({"extends": "four_player", "variants": ["canadian"]}, "x.yaml")
