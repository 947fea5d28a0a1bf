"""Variants combined (docs/rules.md, Part 2): every pair of variants either plays, with the engine's
invariants checked, or is refused in one line naming both; the combinations the rule book
defines play by it; the order of ``variants:`` never changes the game."""

import random
from itertools import combinations

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.match import game_points, game_skunk, play_match
from cribsim.games.cribbage.variants import VARIANTS
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.helpers import C, game_result
from tests.cribbage.test_engine_random import Checked, check_game

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# pairs the rule book leaves undefined, or the engine cannot play exactly: refused
REFUSED = {("auction", "canadian"), ("canadian", "jokers"), ("canadian", "inspect"), ("canadian", "team3")}


def pair_rules(a, b, order=1):
    """Rules playing variants a and b (and what they require), on a table that suits them."""
    names = {a, b} | {r for v in (a, b) for r in VARIANTS[v].requires}
    if "canadian" in names:
        base = "canadian_doubles"
    elif names & {"team3", "inspect"}:
        base = "three_player_team"
    else:
        base = "standard"
    data = {"extends": base, "variants": sorted(names)[::order], "name": f"{a}+{b}"}
    if "auction" in names:
        data.update(score_floor=0, max_bid=8)  # lowball with the auction needs a floor (and low bids)
    return rules_from_mapping(data, "pair.yaml")


# the shipped variants (one's own, registered by module:Class when a test loads them, are not ours to pair)
PAIRS = list(combinations(sorted(v for v in VARIANTS if ":" not in v), 2))


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}+{b}" for a, b in PAIRS])
def test_every_pair_of_variants_plays_or_is_refused_naming_both(a, b):
    if (a, b) in REFUSED:
        with pytest.raises(ConfigError) as err:
            pair_rules(a, b)
        msg = str(err.value)
        assert a in msg and b in msg and "\n" not in msg, msg
        return
    rules = pair_rules(a, b)
    assert {a, b} <= {v.name for v in rules.modules}
    counters = [(0.1, 0.7)] * rules.players if "muggins" in {a, b} else None
    for i in range(3):
        res = play_game(rules, [Checked(random.Random(i)) for _ in range(rules.players)], 3, (i, 0), log=True,
                        counters=counters)
        check_game(rules, res)
    res = play_game(rules, make_strategies([factory("ev")] * rules.players), 3, (9, 0), log=True, counters=counters)
    check_game(rules, res)


@pytest.mark.parametrize("a,b", [p for p in PAIRS if p not in REFUSED][:12])
def test_the_order_of_variants_does_not_change_the_game(a, b):
    one, two = pair_rules(a, b, 1), pair_rules(a, b, -1)
    assert one.fingerprint() == two.fingerprint() and one.variants == two.variants
    x = play_game(one, make_strategies([factory("random")] * one.players), 5, (1, 0), log=True)
    y = play_game(two, make_strategies([factory("random")] * two.players), 5, (1, 0), log=True)
    assert x.events == y.events


def test_two_variants_filling_one_slot_or_one_hook_are_refused_naming_both(monkeypatch):
    from cribsim.games.cribbage.engine.variant import Phase, Variant

    class Rival(Variant):
        name = "rival"
        rule = "(a test variant)"
        phases = (Phase("after_deal", lambda g: None),)

    monkeypatch.setitem(VARIANTS, "rival", Rival)
    with pytest.raises(ConfigError, match="auction and rival both fill the after_deal slot"):
        rules_from_mapping({"variants": ["auction", "rival"]}, "x.yaml")

    class Judge(Variant):
        name = "judge"
        rule = "(a test variant)"

        @staticmethod
        def rank_sides(rules, side, scores):
            return (side,), None

    monkeypatch.setitem(VARIANTS, "judge", Judge)
    with pytest.raises(ConfigError, match="(judge and lowball|lowball and judge) both change rank sides"):
        rules_from_mapping({"variants": ["lowball", "judge"]}, "x.yaml")


def test_extends_adds_variants_to_the_parents():
    # lowball_auction.yaml extends lowball.yaml and names only the auction
    r = rules_from_mapping({"extends": "lowball", "variants": ["auction"], "score_floor": 0}, "x.yaml")
    assert r.variants == ("auction", "lowball")
    assert load_rules("lowball_auction").variants == ("auction", "lowball")


# ---- the combinations docs/rules.md, Part 2 defines --------------------------------------------------

LOW3 = {"extends": "three_player", "variants": ["lowball"]}


@pytest.mark.parametrize("scoring", ["continued", "winner_takes_all"])
def test_lowball_with_three_player_formats_credits_the_lowest_scores(scoring):
    # docs/rules.md, Part 2: lowball with any match format orders the sides by lowest score and match
    # points follow that order; V-LOWBALL decides the game the moment a side reaches the target
    rules = rules_from_mapping(dict(LOW3, match={"scoring": scoring}), "x.yaml")
    table = rules.match.points_table()
    g = game_result(rules, 2, (121, 80, 60))  # side 0 reached the target: 2 lowest, then 1
    assert g.order == (2, 1, 0)
    want = {2: 2, 1: 1} if scoring == "continued" else {2: 2}
    assert game_points(rules, g, game_skunk(rules, g), table) == want
    g = game_result(rules, 1, (121, 40, 40), shared=(1, 2))  # tied lowest share the win (no skunk)
    assert game_points(rules, g, game_skunk(rules, g), table) == {1: 2, 2: 2}
    for key in range(6):  # played: the side at the target never scores match points
        m = play_match(rules, [factory("ev")] * 3, 4, key, log=True)
        for game in m.games:
            reached = [s for s, x in enumerate(game.scores) if x >= rules.target]
            assert len(reached) == 1 and game.order[-1] == reached[0] and game.placings is None
        assert sum(m.game_points) > 0


def test_toss_fives_binds_canadian_doubles_crib():
    # docs/rules.md, Part 2: toss fives binds every discard to the crib, Canadian doubles' two thrown
    # cards included: a 5 is never passed to the partner or kept
    rules = rules_from_mapping({"extends": "canadian_doubles", "toss_fives": True}, "x.yaml")
    for name in ("random", "greedy", "hoyle", "ev"):
        res = play_game(rules, make_strategies([factory(name)] * 4), 8, (2, 0), log=True)
        for k in range(res.deals):
            de = [e for e in res.events if e.deal == k]
            for e in de:
                dealt = next((x.cards for x in de if x.source == "deal" and x.seat == e.seat and not x.reason), None)
                if e.source == "discard" and dealt is not None:
                    fives = [c for c in dealt if c >> 2 == 4]
                    thrown = [c for c in e.cards if c >> 2 == 4]
                    assert len(thrown) == min(len(fives), 2), name
    o = rules.program.observation(0, 0, rules)
    o.hand, o.discards, o.passes = tuple(C("5S 5D 5H JC 4S 4D 6H 6C KS 9D")), 2, 4
    o.discard_rule = rules.program.hooks.discard_rule(rules, o.hand, 2)
    from cribsim.games.cribbage.variants.canadian import pass_error
    assert "must include" in pass_error(o, (C("5S 5D 4S 4D"), C("5H JC")))  # only 5s to the crib
    assert pass_error(o, (C("JC 4S 4D 6H"), C("5S 5D"))) is None


@pytest.mark.parametrize("scoring", ["continued", "winner_takes_all"])
def test_two_against_one_with_three_player_formats_is_refused(scoring):
    with pytest.raises(ConfigError, match=f"team3 .two against one. and {scoring} cannot be combined"):
        rules_from_mapping({"extends": "three_player_team", "match": {"scoring": scoring}}, "x.yaml")


def test_a_joker_duplicating_a_nobs_jack_scores_nobs_twice():
    # R-SHOW-7, V-JOKERS: a named joker counts as its card in every rule: two jacks of the
    # starter's suit score his nobs twice (and pair)
    from cribsim.games.cribbage.scoring import show_breakdown, show_points
    from cribsim.games.cribbage.variants.jokers import best_show

    starter = C("AS")[0]
    once = [i.reason for i in show_breakdown(C("JS 2H 3D 9C"), starter)]
    twice = C("JS 3D 9C") + C("JS")  # the second JS is a joker named JS
    reasons = [i.reason for i in show_breakdown(twice, starter)]
    assert once.count("nobs") == 1 and reasons.count("nobs") == 2 and "pair" in reasons
    assert show_points(twice, starter) == sum(i.points for i in show_breakdown(twice, starter)) == 2 + 1 + 1
    # the jokers' show names a joker to the holder's advantage: here as a second JS counts both
    assert best_show(C("JS 3D 9C") + [52], starter)[0] >= show_points(twice, starter)
    assert [i.reason for i in show_breakdown(twice, C("JD")[0])].count("nobs") == 0  # a jack starter: no nobs
