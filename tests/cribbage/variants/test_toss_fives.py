"""Toss fives (V-TOSSFIVES)."""

import random

import pytest

from cribsim.errors import IllegalMove
from cribsim.games.cribbage.cards import card_str
from cribsim.ruleset import load_rules
from cribsim.strategy import factory
from tests.cribbage.helpers import C
from tests.cribbage.variants.helpers import observe, run

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-TOSSFIVES -------------------------------------------------------------------------------

def test_toss_fives_a_five_kept_is_an_illegal_discard():
    rules = load_rules("toss_fives")
    hands = ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"]
    with pytest.raises(IllegalMove, match="the discards must include 5S"):
        run(rules, 0, hands, ["KC KD", "QS QH"], ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="AS")


@pytest.mark.parametrize("name", ["random", "greedy", "hoyle", "ev", "mc"])
def test_toss_fives_every_strategy_throws_its_fives(name):
    # V-TOSSFIVES: one 5 held: it must be among the two discards (even into the opponents'
    # crib); three 5s held: the two discards are both 5s
    rules = load_rules("toss_fives")
    s = factory(name, {"rollouts": 4, "discard_rollouts": 4} if name == "mc" else None)(random.Random(1))
    for hand, want in (("5S 5D 6H 4C JD KC", None), ("5S JD 6H 4C 9D KC", {"5S"}), ("5S 5D 5H 4C JD KC", "fives")):
        o = observe(rules)
        o.hand, o.discards, o.dealer, o.crib_owner, o.scores = tuple(C(hand)), 2, 0, 0, (0, 0)
        o.discard_rule = rules.program.hooks.discard_rule(rules, o.hand, 2)
        thrown = {card_str(c) for c in s.discard(o)}
        fives = {w for w in hand.split() if w[0] == "5"}
        if want == "fives":
            assert thrown <= fives and len(thrown) == 2
        else:
            assert fives <= thrown
