"""Three- and five-player match formats: winner takes all (R-MATCH-4) and continued play (R-MATCH-5)."""


import pytest

from cribsim.errors import ConfigError
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.helpers import game_result

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- R-MATCH-4 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("scores, want", [
    ((121, 100, 95), {0: 2}),            # nobody skunked: the winner 2
    ((121, 100, 80), {0: 3, 1: 1}),      # only the third below 91: winner 3, second 1
    ((121, 85, 80), {0: 3}),             # both skunked: winner 3, second 0
])
def test_winner_takes_all_match_points(scores, want):
    """R-MATCH-4: 2 to the winner; 3 and 1 when only the third is skunked; 3 and 0 when both are."""
    from cribsim.games.cribbage.match import game_points, game_skunk

    rules = load_rules("three_player_winner_takes_all")
    g = game_result(rules, 0, scores)
    assert game_points(rules, g, game_skunk(rules, g), rules.match.points_table()) == want


def test_winner_takes_all_needs_three_players():
    """R-MATCH-4's modelling choice: winner takes all is refused with other than three sides."""
    with pytest.raises(ConfigError) as err:
        rules_from_mapping({"extends": "standard", "match": {"scoring": "winner_takes_all"}}, "x.yaml")
    assert err.value.key == "match.scoring"
    assert "scoring" not in load_rules("standard").to_dict()["match"]  # old hashes hold


# ---- R-MATCH-5 ----------------------------------------------------------------------------------

def test_continued_play_places_and_match_points():
    """R-MATCH-5: three players 2 (+ skunk bonus) and 1; five players 4, 2 and 1."""
    # R-MATCH-5: three players: the first winner 2 plus skunk bonuses (default table: a skunk is
    # worth 2, so +1), the second 1; five players: 4, 2 and 1 for the third
    from cribsim.games.cribbage.match import game_points, game_skunk

    r3 = load_rules("three_player_continued")
    assert r3.match.places(3) == 2
    g = game_result(r3, 0, (125, 121, 70), placings=(0, 1), first_scores=(121, 95, 60))
    assert game_skunk(r3, g) == 0 and game_points(r3, g, 0, r3.match.points_table()) == {0: 2, 1: 1}
    g = game_result(r3, 0, (125, 121, 70), placings=(0, 1), first_scores=(121, 85, 60))
    assert game_skunk(r3, g) == 1 and game_points(r3, g, 1, r3.match.points_table()) == {0: 3, 1: 1}
    r5 = load_rules("five_player_continued")
    g = game_result(r5, 2, (100, 121, 130, 121, 50), placings=(2, 1, 3), first_scores=(90, 100, 121, 95, 40))
    assert game_points(r5, g, 0, r5.match.points_table()) == {2: 4, 1: 2, 3: 1}
    with pytest.raises(ConfigError, match="three or five"):
        rules_from_mapping({"extends": "four_player", "match": {"scoring": "continued"}}, "x.yaml")


def test_continued_play_game_goes_on_after_the_first_winner():
    """R-MATCH-5: after the first player reaches the target the others play on for second place."""
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies

    rules = load_rules("three_player_continued")
    res = play_game(rules, make_strategies([factory("ev")] * 3), 2, (0, 0), log=True)
    places = [e for e in res.events if e.source == "place"]
    assert [e.cards[0] for e in places] == list(res.placings) and len(places) == 2
    after = [e for e in res.events[res.events.index(places[0]):] if e.source == "lay"]
    assert after or places[0] is places[-1]  # play went on (unless both placed in one act)
