"""Variants that are data (V-3P-SIX, V-SEVENCARD, V-TARGET, R-MATCH-2): knobs of the rules file."""


import pytest

from cribsim.errors import ConfigError
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-3P-SIX, V-SEVENCARD, V-TARGET, R-MATCH-2 ---------------------------------------------------

def test_three_player_dealer_six_deal():
    """V-3P-SIX: the dealer is dealt 6 and throws 2, the others 5 and 1, nothing from the pack
    goes to the crib, and the crib still holds 4."""
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies

    rules = load_rules("three_player_dealer_six")
    assert (rules.dealer_deal, rules.dealer_discard, rules.deal, rules.discard, rules.crib_from_deck) == (6, 2, 5, 1, 0)
    res = play_game(rules, make_strategies([factory("random")] * 3), 3, (0, 0), log=True)
    first = [e for e in res.events if e.deal == 0 and e.source == "deal"]
    sizes = {e.seat: len(e.cards) for e in first}
    assert sizes[res.first_dealer] == 6 and sorted(sizes.values()) == [5, 5, 6]
    thrown = {e.seat: len(e.cards) for e in res.events if e.deal == 0 and e.source == "discard"}
    assert thrown == {s: 2 if s == res.first_dealer else 1 for s in range(3)}
    assert not [e for e in first if e.reason == "crib"]  # no card from the pack into the crib
    assert rules.crib_size == 4


def test_seven_card_and_target_files():
    r = load_rules("seven_card")
    assert (r.deal, r.discard, r.hand_size, r.target, r.skunk_lines) == (7, 2, 5, 181, (136, 91, 46))
    r = load_rules("short_game_61")
    assert (r.target, r.skunk_lines) == (61, (46, 31, 16))  # V-TARGET, R-MATCH-1
    m = load_rules("match_acc").match
    assert m.first_to == 7 and m.points_table()["win"] == 2 and m.points_table()["skunk"] == 3


@pytest.mark.parametrize("data, key", [
    ({"back_ten": "sometimes"}, "back_ten"),
    ({"score_floor": 1.5}, "score_floor"),
    ({"toss_fives": "yes"}, "toss_fives"),
    ({"first_pone_points": 500}, "first_pone_points"),
])
def test_bad_variant_values_are_one_line_errors(data, key):
    with pytest.raises(ConfigError) as err:
        rules_from_mapping(data, "x.yaml")
    assert err.value.key == key and "\n" not in str(err.value)


def test_a_knob_of_a_variant_not_played_is_an_error_naming_it():
    with pytest.raises(ConfigError, match="a knob of auction .V-AUCTION.") as err:
        rules_from_mapping({"min_bid": 3}, "x.yaml")
    assert err.value.key == "min_bid"
    assert rules_from_mapping({"variants": ["auction"], "min_bid": 3}).min_bid == 3


def test_variant_knobs_keep_old_config_hashes():
    # a variant's knobs are left out of the rules' JSON unless it is played (and at a value
    # other than its default), so results folders of configs that do not use them stay valid
    d = load_rules("standard").to_dict()
    assert "toss_fives" not in d and "back_ten" not in d and d["jokers"] == 0
    assert "toss_fives" in load_rules("toss_fives").to_dict()
    assert load_rules("standard").fingerprint() == "4fca66dfe3b7"  # as before the core's second edition


def test_naming_a_data_variant_turns_its_knobs_on():
    # naming a variant in variants: or setting its knob is the same rule set
    a = rules_from_mapping({"variants": ["jokers"]})
    b = rules_from_mapping({"jokers": 2})
    assert a.fingerprint() == b.fingerprint() and a.jokers == 2 and a.deck_size == 54


def test_score_follows_the_rules_file(capsys):
    # V-FIVECARD: `cribsim score --rules five_card` scores a three-card hand's flush (3; 4 with
    # the starter) and refuses a four-card hand
    import json

    from cribsim.cli.main import main

    assert main(["score", "--rules", "five_card", "2H", "6H", "TH", "--starter", "KS", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 3
    assert main(["score", "--rules", "five_card", "2H", "6H", "TH", "4H", "--starter", "KS"]) == 2
    err = capsys.readouterr().err
    assert "five_card" in err and "3 cards" in err and err.count("\n") == 1


@pytest.mark.parametrize("preset", ["five_card", "nineteen", "back_ten", "toss_fives"])
def test_narrated_variant_game(preset, capsys):
    from cribsim.cli.main import main

    assert main(["play", "--rules", preset, "--seed", "2", "--strategy", "ev"]) == 0
    out = capsys.readouterr().out
    assert "wins" in out.splitlines()[-1]
    if preset == "five_card":
        assert "three for last" in out
