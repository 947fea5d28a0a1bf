"""Rule variants (docs/rules.md, Part 2) that are data: each rules file's specific rule exercised on a
scripted deal, or on the variant's hook directly, with the score checked at each step."""

import random

import pytest

from cribsim.errors import ConfigError, IllegalMove
from cribsim.games.cribbage.cards import card_str
from cribsim.games.cribbage.engine import GameOver, GameState
from cribsim.games.cribbage.engine.events import CRIB, HAND
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.helpers import C, Scripted, c1, game_result, run_scripted

run = run_scripted


def bare_state(rules, scores=None):
    """A game state at its first deal, to call a variant's hook on directly."""
    return GameState(rules, 0, (0, 0), 0, log=True, scores=scores)


def after_count(g, seat, points, source):
    """Every after-count hook of the rules (the show's penalties), as the show calls them."""
    for f in g.hooks.after_count:
        f(g, seat, points, source)


def observe(rules, seat=1, side=None):
    """A blank observation of these rules (with the fields their variants add)."""
    return rules.program.observation(seat, rules.side_of[seat] if side is None else side, rules)


def events(g, *sources):
    return [(e.seat, e.points, e.reason) for e in g.events if e.source in sources]


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


# ---- V-NINETEEN, V-BACKTEN ------------------------------------------------------------------------

# Every hand and the crib score nothing with the starter KC: Bob 2C 4D 6H 8S, Alice 2H 4C 6S 8D,
# crib (Alice's) 9H AC 3D 7S. The play pegs pairs; the show then counts 0, 0, 0.
ZERO = dict(hands=["2H 4C 6S 8D 9H AC", "2C 4D 6H 8S 3D 7S"], discards=["9H AC", "3D 7S"],
            plays=["2H 4C 6S 8D", "2C 4D 6H 8S"], starter="KC")


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


# ---- V-LOWBALL ------------------------------------------------------------------------------------

def test_lowball_reaching_the_target_loses():
    # V-LOWBALL: Alice on 119 pegs a pair (2C on Bob's 2H would be Bob's; here Alice's 2H answers
    # Bob's 2C lead: 2 for the pair) and reaches 121: the game stops at once (R-SHOW-2) and Bob wins
    rules = load_rules("lowball")
    g, over = run(rules, 0, scores=[119, 50], **ZERO)
    assert over == 0 and g.scores[0] == 121
    assert rules.program.rank_sides(over, g.scores) == ((1, 0), None)
    assert load_rules("standard").program.rank_sides(over, g.scores) == ((0, 1), None)


def test_lowball_with_three_players_lowest_wins_ties_share():
    # V-LOWBALL: with more than two sides the lowest score when someone reaches the target wins;
    # tied low scores share the win, each credited with the game in match play
    from cribsim.games.cribbage.match import winners

    rules = rules_from_mapping({"extends": "three_player", "variants": ["lowball"]}, "x.yaml")
    assert rules.program.rank_sides(0, [121, 80, 60]) == ((2, 1, 0), None)
    assert rules.program.rank_sides(0, [121, 70, 70]) == ((1, 2, 0), (1, 2))
    shared = game_result(rules, 1, (121, 70, 70), shared=(1, 2))
    assert winners(rules, shared) == (1, 2)
    assert shared.record(0).shared == [1, 2]
    with pytest.raises(ConfigError, match="unknown variant"):
        rules_from_mapping({"extends": "standard", "variants": ["nosuch"]}, "x.yaml")


def test_lowball_strategies_minimise():
    # V-LOWBALL: greedy keeps the four cards worth least (5-5-5-J is 14 points; it keeps a hand
    # worth 0); ev throws its 5s into the opponents' crib and keeps a hand of nothing
    from itertools import combinations

    from cribsim.games.cribbage.scoring import show_points

    rules = load_rules("lowball")
    hand = C("5S 5D 5H JC 2D 9C")
    for name in ("greedy", "ev", "hoyle"):
        o = observe(rules)
        o.hand, o.discards, o.dealer, o.crib_owner, o.scores = tuple(hand), 2, 0, 0, (0, 0)
        thrown = factory(name)(random.Random(1)).discard(o)
        kept = [c for c in hand if c not in thrown]
        assert show_points(kept, None) == min(show_points(k, None) for k in combinations(hand, 4)), name
    o = observe(rules)
    o.hand, o.discards, o.dealer, o.crib_owner, o.scores = tuple(hand), 2, 0, 0, (0, 0)
    thrown = {card_str(c) for c in factory("ev")(random.Random(1)).discard(o)}
    assert len(thrown & {"5S", "5D", "5H"}) == 2  # two 5s into the opponents' crib


# ---- V-MUGGINS --------------------------------------------------------------------------------------

def _match(rules_name, counters, key=3):
    from cribsim.games.cribbage.match import play_match

    return play_match(load_rules(rules_name), [factory("ev"), factory("ev")], 9, key, log=True, counters=counters)


def test_muggins_with_perfect_counters_is_the_standard_game():
    # V-MUGGINS: "with perfect counting, muggins plays exactly like the standard game"
    for key in range(5):
        a = _match("muggins", [(0.0, 1.0), (0.0, 0.3)], key)
        b = _match("standard", None, key)
        assert [g.events for g in a.games] == [g.events for g in b.games]
        assert a.winner == b.winner and a.game_points == b.game_points


def test_missed_points_are_lost_without_muggins_and_taken_with_it():
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies

    def game(name, counters):
        return play_game(load_rules(name), make_strategies([factory("ev")] * 2), 4, (1, 0), log=True,
                         counters=counters)

    # seat 0 overlooks everything it could count in the play and the show (not his heels)
    lost = game("standard", [(1.0, 1.0), (0.0, 1.0)])
    counted = {e.source for e in lost.events if e.seat == 0 and e.points > 0}
    assert counted <= {"heels"}
    assert any(e.source == "overlooked" and e.seat == 0 for e in lost.events)
    # with muggins and a vigilant opponent, every overlooked point goes to the opponent
    taken = game("muggins", [(1.0, 1.0), (0.0, 1.0)])
    for i, e in enumerate(taken.events):
        if e.source == "overlooked":
            follow = [x for x in taken.events[i + 1:] if x.source != "overlooked"][0]
            assert follow.seat == 1 and follow.reason == "muggins"
    # an opponent who never notices takes nothing
    blind = game("muggins", [(1.0, 1.0), (0.0, 0.0)])
    assert not any(e.reason == "muggins" for e in blind.events)


def test_counting_model_in_the_lineup(tmp_path):
    from cribsim.tournament.config import load_experiment

    cfg = tmp_path / "x.yaml"
    cfg.write_text("name: x\nvariants: [muggins]\nlineup: [{name: sloppy, strategy: greedy, miss_rate: 0.05, "
                   "vigilance: 0.5}, greedy]\nmatches: 4\n")
    exp = load_experiment(cfg)
    assert (exp.lineup[0].miss_rate, exp.lineup[0].vigilance) == (0.05, 0.5)
    cfg.write_text("name: x\nlineup: [{strategy: greedy, miss_rate: 1.5}, random]\n")
    with pytest.raises(ConfigError) as err:
        load_experiment(cfg)
    assert err.value.key == "lineup[0].miss_rate"


# ---- V-AUCTION --------------------------------------------------------------------------------------

class Bidder(Scripted):
    def __init__(self, rng, discards=(), plays=(), bids=()):
        super().__init__(rng, discards, plays)
        self.bids = list(bids)

    def bid(self, obs):
        return self.bids.pop(0)


def run_auction(rules, bids, scores=None):
    d = ZERO
    strategies = [Bidder(random.Random(0), C(d["discards"][s]), C(d["plays"][s]), bids[s]) for s in range(2)]
    return run(rules, 0, scores=scores, strategies=strategies, **d)[0]


def test_auction_winner_pegs_back_the_bid_and_owns_the_crib():
    # V-AUCTION: Alice (0) deals; Bob (left of the dealer) bids first: Bob 2, Alice 3, Bob 4,
    # Alice passes. Bob pegs back 4 at once and owns the crib this hand, still counted last.
    rules = load_rules("auction")
    g = run_auction(rules, [[3, None], [2, 4]])
    assert [(e.seat, e.reason) for e in g.events if e.source == "bid"] == \
        [(1, "2"), (0, "3"), (1, "4"), (0, "pass"), (1, "wins the crib for 4")]
    assert events(g, "other")[0] == (1, -4, "pegs back the bid of 4")
    shows = [(e.seat, e.reason) for e in g.events if e.source == "show"]
    assert shows[-1] == (1, "crib")  # Bob's crib, still counted last
    assert shows[:2] == [(1, "hand"), (0, "hand")]
    # the score may go negative (no floor set): Bob's pegging and the show came after the bid
    assert min(s for s in _running(g)[1]) == -4


def _running(g):
    run_ = {0: [0], 1: [0]}
    for e in g.events:
        if e.points:
            side = e.seat
            run_[side].append(run_[side][-1] + e.points)
    return run_


def test_auction_nobody_bids_the_dealer_keeps_the_crib_free():
    g = run_auction(load_rules("auction"), [[None], [None]])
    assert events(g, "other") == []
    assert [(e.seat, e.reason) for e in g.events if e.source == "show"][-1] == (0, "crib")


def test_auction_floor_and_illegal_bids():
    rules = rules_from_mapping({"extends": "auction", "score_floor": 0})
    g = run_auction(rules, [[None], [5]], scores=[0, 3])
    assert events(g, "other")[0] == (1, -3, "pegs back the bid of 5")  # not below 0
    with pytest.raises(IllegalMove, match="bid"):
        run_auction(load_rules("auction"), [[2], [2]])  # not above the standing bid


def test_variant_decisions_have_defaults_and_needs_are_refused_naming_the_variant(tmp_path):
    # a strategy with only discard and play: the auction's bid defaults to a pass, Canadian
    # doubles' pass to the hands worth most, the inspection to keeping one's own four, a joker
    # laid bare is named for the player; lowball (minimising) and toss fives (a discard rule)
    # need a strategy that says it reads them, and a lineup without one is refused
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies
    from cribsim.tournament.config import load_experiment

    cfg = tmp_path / "x.yaml"
    for variant in ("auction", "canadian_doubles", "jokers", "three_player_team_inspect", "standard"):
        lineup = "[ev, random, {name: p, strategy: 'tests.bad_strategies:Plain'}]"
        cfg.write_text(f"name: x\nvariants: [{variant}]\nlineup: {lineup}\n")
        exp = load_experiment(cfg)
        rules = exp.variants[0]
        play_game(rules, make_strategies([factory("tests.bad_strategies:Plain")] * rules.players), 3, (0, 0))
    for variant, need, owner in (("lowball", "objective", "lowball"), ("toss_fives", "discard_rule", "toss_fives")):
        cfg.write_text(f"name: x\nvariants: [{variant}]\nlineup: [ev, {{name: p, strategy: "
                       f"'tests.bad_strategies:Plain'}}]\nformat: pairings\npairings: [[ev, p]]\n")
        with pytest.raises(ConfigError, match=f"'{need}'.*which {owner} needs"):
            load_experiment(cfg)


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


# ---- V-JOKERS -----------------------------------------------------------------------------------------

J1, J2 = 52, 53


class ScriptedWild(Scripted):
    """Plays its script; an entry may be (joker, named card)."""

    def play(self, obs):
        c = self.plays.pop(0)
        assert (c[0] if isinstance(c, tuple) else c) in obs.legal
        return c


def test_jokers_laid_as_a_fifth_and_sixth_five_peg_20_and_30():
    # V-JOKERS: Bob leads 5H (5); Alice 5S (10: pair 2); Bob 5C (15: 2 + pair royal 6);
    # Alice 5D (20: double pair royal 12); Bob's joker named 5S (25: five of a kind 20);
    # Alice's joker named 5H (30: six of a kind 30); then go (1) and 9H, 2C (last card 1)
    rules = load_rules("jokers")
    alice = C("5S 5D 2C 3C 4C") + [J1]
    bob = C("5H 5C 9H 7C 8C") + [J2]
    s = [ScriptedWild(random.Random(0), C("3C 4C"), [c1("5S"), c1("5D"), (J1, c1("5H")), c1("2C")]),
         ScriptedWild(random.Random(0), C("7C 8C"), [c1("5H"), c1("5C"), (J2, c1("5S")), c1("9H")])]
    g, _ = run(rules, 0, None, None, None, None, strategies=s, deck=bob + alice + [c1("KD")])
    pegs = [(e.seat, e.points, e.reason) for e in g.events if e.source == "peg"]
    assert pegs[:7] == [(0, 2, "pair"), (1, 2, "fifteen"), (1, 6, "pair royal"), (0, 12, "double pair royal"),
                        (1, 20, "5 of a kind"), (0, 30, "6 of a kind"), (0, 1, "go")]
    lays = [e for e in g.events if e.source == "lay" and len(e.cards) == 2]
    assert [(e.cards, e.count) for e in lays] == [((J2, c1("5S")), 25), ((J1, c1("5H")), 30)]


def test_a_joker_is_named_when_laid():
    # V-JOKERS: a joker's name must be a standard card that fits under 31; a joker laid bare is
    # named for its player, to the most points now (here on Bob's 5H lead: a 5, a pair)
    rules = load_rules("jokers")
    deck = C("5H 5C 9H 7C 8C") + [J2] + C("5S 5D 2C 3C 4C") + [J1] + [c1("KD")]
    for bad in ((J1, 60), (J1, "5S"), (J1, J2), (J1, c1("5S"), 1)):
        s = [ScriptedWild(random.Random(0), C("3C 4C"), [bad]), ScriptedWild(random.Random(0), C("7C 8C"), [c1("5H")])]
        with pytest.raises(IllegalMove, match="joker"):
            run(rules, 0, None, None, None, None, strategies=s, deck=deck)
    s = [ScriptedWild(random.Random(0), C("3C 4C"), [J1, c1("5S"), c1("2C"), c1("5D")]),
         ScriptedWild(random.Random(0), C("7C 8C"), [c1("5H"), c1("5C"), c1("9H"), J2])]
    g, _ = run(rules, 0, None, None, None, None, strategies=s, deck=deck)
    first = [e for e in g.events if e.source == "lay"][1]
    assert first.cards[0] == J1 and card_str(first.cards[1])[0] == "5"
    assert events(g, "peg")[0] == (0, 2, "pair")


def _show_game(rules_name):
    # Alice (dealer) keeps JC QC KC 2C; Bob keeps 5H 5C 5S TD; the starter is a joker.
    rules = load_rules(rules_name)
    s = [ScriptedWild(random.Random(0), C("7D 8D"), C("JC QC KC 2C")),
         ScriptedWild(random.Random(0), C("9S AS"), C("5H 5C 5S TD"))]
    return run(rules, 0, None, None, None, None, strategies=s,
               deck=C("5H 5C 5S TD 9S AS") + C("JC QC KC 2C 7D 8D") + [J1])[0]


def test_joker_starter_is_heels_and_each_player_names_it_for_themself():
    # V-JOKERS: a joker starter gives the dealer 2 for his heels; at the show Bob names it a 5
    # (5-5-5-5 and TD: fifteens 8 x 2 = 16, pairs 12: 28); Alice, independently, a club (her
    # J-Q-K-2 of clubs then make a five-card flush with the run)
    g = _show_game("jokers")
    assert events(g, "heels") == [(0, 2, "his heels")]
    names = {e.seat: e.cards for e in g.events if e.source == "name"}
    assert card_str(names[1][-1])[0] == "5"
    assert card_str(names[0][-1])[1] == "C"  # Alice's naming: a club
    shown = sum(e.points for e in g.events if e.source == "hand" and e.seat == 1)
    assert shown == 28


def test_joker_starter_named_by_the_non_dealer_holds_for_everyone():
    g = _show_game("jokers_non_dealer")
    named = [e for e in g.events if e.source == "name" and "starter" in e.reason]
    assert len(named) == 1 and named[0].seat == 1 and card_str(named[0].cards[0])[0] == "5"
    # Alice must count her hand with Bob's 5: J-Q-K-2 of clubs and a 5: fifteens 3 x 2, flush
    # only if Bob's 5 is a club (he named it for his own hand)
    assert not [e for e in g.events if e.source == "name" and e.seat == 0 and e.cards[-1] != named[0].cards[0]]


def test_joker_show_matches_a_brute_force_over_every_name():
    # V-JOKERS: best_show (fast path) against the enumerating scorer over all 52 names
    from cribsim.games.cribbage.scoring import show_breakdown
    from cribsim.games.cribbage.variants.jokers import best_show

    rng = random.Random(5)
    for _ in range(25):
        cards = rng.sample(range(52), 4)
        hand, starter = cards[:3] + [J1], cards[3]
        brute = max(sum(i.points for i in show_breakdown(hand[:3] + [n], starter)) for n in range(52))
        assert best_show(hand, starter)[0] == brute
    # five of a kind: 10 pairs (20) + 10 fifteens (20); six (a seven-card game's hand of 5 and a
    # joker starter): 15 pairs (30) + 20 fifteens (40)
    five = best_show(C("5H 5C 5S") + [J1], c1("5D"))[0]
    six = best_show(C("5H 5C 5S 5D") + [J1], J2)[0]
    assert (five, six) == (40, 70)
    # lowball names for the worst: the four 5s still score 20, the joker adds nothing (an 8, say)
    assert best_show(C("5H 5C 5S") + [J1], c1("5D"), objective=-1)[0] == 20


# ---- V-TEAM3-1, V-TEAM3-2 ---------------------------------------------------------------------------

def test_two_against_one_layout_rotates_the_lone_seat():
    """V-TEAM3-1: the lone seat rotates game by game; targets 61 (lone) and 121 (pair), both knobs."""
    # V-TEAM3-1: the lone seat is fixed for a game and rotates game by game; the lone player
    # needs 61 and the partnership 121 by default (both knobs); a game's sides are always in the
    # order (lone player, partnership), so a side index names the same role in every game
    rules = load_rules("three_player_team")
    assert [rules.program.layout(g) for g in range(4)] == [
        (((0,), (1, 2)), (61, 121)), (((1,), (0, 2)), (61, 121)), (((2,), (0, 1)), (61, 121)),
        (((0,), (1, 2)), (61, 121))]
    knobs = rules_from_mapping({"extends": "three_player_team", "lone_target": 91, "team_target": 151})
    assert knobs.program.layout(0)[1] == (91, 151)


def test_two_against_one_each_side_wins_on_its_own_target():
    """V-TEAM3-1: the partners share one score to 121, the lone player wins on reaching 61."""
    # V-TEAM3-1: in game 0 Alice is alone (61) against Bob and Claire (121, one shared score)
    rules = load_rules("three_player_team")
    g = bare_state(rules, scores=[59, 119])
    g.award(0, 1, HAND)  # Alice 60: not yet
    with pytest.raises(GameOver) as over:
        g.award(2, 2, HAND)  # Claire scores for the partnership: 121, they win
    assert over.value.side == 1 and g.scores == [60, 121]
    g = bare_state(rules, scores=[59, 119])
    with pytest.raises(GameOver) as over:
        g.award(0, 2, HAND)  # Alice reaches 61 alone and wins
    assert over.value.side == 0


def test_captains_cribbage_credits_both_partners_and_gives_everyone_the_lone_seat():
    """V-TEAM3-1: a three-game match, each player alone once, each winning partner credited."""
    from cribsim.games.cribbage.match import play_match

    rules = load_rules("three_player_team")
    m = play_match(rules, [factory("ev"), factory("random"), factory("random")], 3, 7)
    assert len(m.games) == 3 and [g.sides for g in m.games] == [rules.program.layout(k)[0] for k in range(3)]
    from cribsim.games.cribbage.match import SKUNK_NAMES, game_skunk

    table = rules.match.points_table()
    want = [0, 0, 0]
    for g in m.games:  # each member of the winning side is credited with the game's points
        for seat in g.sides[g.winner]:
            want[seat] += table[SKUNK_NAMES[game_skunk(rules, g)]]
    assert m.game_points == want


def test_inspecting_lone_player_keeps_four_of_eight():
    # V-TEAM3-2: Alice (lone) holds 5S 5D 2C 9H; the crib (Claire deals: the partnership's crib)
    # holds 5H JC KD 3S. ev keeps 5-5-5-J (14 before the starter) and puts the junk back into
    # the partnership's crib.
    rules = load_rules("three_player_team_inspect")
    o = observe(rules, 0, 0)
    o.side_of = (0, 1, 1)
    o.hand, o.crib, o.dealer, o.crib_owner, o.scores = tuple(C("5S 5D 2C 9H")), tuple(C("5H JC KD 3S")), 2, 2, (0, 0)
    for name in ("ev", "greedy", "hoyle"):
        kept = {card_str(c) for c in factory(name)(random.Random(0)).inspect(o)}
        assert kept == {"5S", "5D", "5H", "JC"}, name
    with pytest.raises(ConfigError, match="inspect .V-TEAM3-2. needs team3"):
        rules_from_mapping({"extends": "three_player", "variants": ["inspect"]}, "x.yaml")
    with pytest.raises(ConfigError, match="three players"):
        rules_from_mapping({"extends": "standard", "variants": ["team3"]}, "x.yaml")


class Inspector(Scripted):
    """Plays its script; as the lone player keeps the four cards ``keep`` and notes what it saw."""

    def __init__(self, rng, discards=(), plays=(), keep=()):
        super().__init__(rng, discards, plays)
        self.keep, self.seen = list(keep), None

    def inspect(self, obs):
        self.seen = (obs.hand, obs.crib, obs.starter)
        return self.keep


def test_inspecting_lone_player_takes_up_the_crib_before_the_cut():
    """V-TEAM3-2: after the discards and before the starter is cut, the lone player sees its four
    and the crib's four, keeps any four as its hand and puts the other four back as the crib; the
    three_player_team_inspect rules file gives both sides 121."""
    # Game 0: Alice (seat 0) alone against Bob and Claire; Claire (2) deals. Dealt: Alice 5S 5D 2C
    # 9H 7C, Bob 5H 6C 8D TD 4S, Claire JC 3H 9S KS QD, KD from the pack to the crib; they throw
    # 7C, 5H, JC. Alice sees 5S 5D 2C 9H and the crib KD 7C 5H JC, keeps 5S 5D 5H JC: the crib
    # is 2C 9H KD 7C. The starter is KH. The play (Alice leads):
    #  5S 5; 4S 9; 3H 12 (run 3, Claire); 5D 17 (run 4-3-5, 3 Alice); 6C 23 (run 3-4-5-6, 4 Bob);
    #  Claire go; 5H 28; Bob go; Alice holds JC only: 1 for the go to Alice. Bob leads: 8D 8; 9S
    #  17; JC 27; nobody can lay: 1 for the go to Alice. Bob leads: TD 10; KS 20; QD 30, last
    #  card 1 to Claire. Pegging: Alice 5, Bob 4, Claire 4.
    # The show with KH: Alice 5S 5D 5H JC: fifteens 5+J x3, 5+K x3, 5+5+5 (14), pair royal (6):
    #  20; Bob 6C 8D TD 4S: 0; Claire 3H 9S KS QD: pair of kings 2; crib 2C 9H KD 7C: pair of
    #  kings 2. Alice 5 + 20 = 25; the partnership 4 + 4 + 0 + 2 + 2 = 12.
    rules = load_rules("three_player_team_inspect")
    assert rules.program.layout(0) == (((0,), (1, 2)), (121, 121))
    s = [Inspector(random.Random(0), C("7C"), C("5S 5D 5H JC"), keep=C("5S 5D 5H JC")),
         Inspector(random.Random(0), C("5H"), C("4S 6C 8D TD")),
         Inspector(random.Random(0), C("JC"), C("3H 9S KS QD"))]
    g, over = run(rules, 2, ["5S 5D 2C 9H 7C", "5H 6C 8D TD 4S", "JC 3H 9S KS QD"], None, None, "KH",
                  crib_from_deck="KD", strategies=s)
    assert over is None
    hand, crib, starter = s[0].seen
    assert set(hand) == set(C("5S 5D 2C 9H")) and set(crib) == set(C("KD 7C 5H JC")) and starter is None
    assert s[1].seen is None and s[2].seen is None  # only the lone player inspects
    shown = {(e.seat, e.reason): set(e.cards) for e in g.events if e.source == "show"}
    assert shown[(0, "hand")] == set(C("5S 5D 5H JC")) and shown[(2, "crib")] == set(C("2C 9H KD 7C"))
    pegged = [0, 0, 0]
    for e in g.events:
        if e.source == "peg":
            pegged[e.seat] += e.points
    assert pegged == [5, 4, 4]
    counted = {}
    for e in g.events:
        if e.source in ("hand", "crib"):
            counted[(e.seat, e.source)] = counted.get((e.seat, e.source), 0) + e.points
    assert counted == {(0, "hand"): 20, (2, "hand"): 2, (2, "crib"): 2}  # Bob's hand: nothing
    assert g.scores == [25, 12]


def test_two_against_one_through_the_tournament(tmp_path):
    # the tournament keeps lineup entries as the three individual sides; the summary reads each
    # game's own sides from its record
    from cribsim.tournament.config import load_experiment
    from cribsim.tournament.runner import run_experiment

    cfg = tmp_path / "x.yaml"
    cfg.write_text("name: x\nvariants: [three_player_team, three_player_team_inspect]\n"
                   "lineup: [ev, random, greedy]\nmatches: 6\nseed: 4\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "Win rate, row against column (three_player_team_inspect)" in summary
    import json
    recs = [json.loads(x) for x in (tmp_path / "out" / "matches.jsonl").read_text().splitlines()]
    assert all(len(r["games"]) == 3 and all(len(g["sides"]) == 2 for g in r["games"]) for r in recs)


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


def test_narrated_muggins_calls(capsys):
    from cribsim.cli.main import main

    assert main(["play", "--rules", "muggins", "--seed", "3", "--strategy", "ev", "--miss-rate", "0.2",
                 "--vigilance", "0.7"]) == 0
    out = capsys.readouterr().out
    assert "overlooks" in out and "(muggins)" in out
    assert main(["play", "--rules", "auction", "--seed", "3", "--strategy", "ev"]) == 0
    assert "for the crib" in capsys.readouterr().out
    assert main(["play", "--rules", "canadian_doubles", "--seed", "3", "--strategy", "ev"]) == 0
    assert "from their partner" in capsys.readouterr().out
    assert main(["play", "--rules", "jokers", "--seed", "11", "--strategy", "ev"]) == 0
    assert "JK named" in capsys.readouterr().out


def test_lowball_ranks_lower_scores_higher_in_pairwise_results():
    # V-LOWBALL with three sides: after the winner, a lower score is the better place
    from cribsim.records import GameRecord, MatchRecord
    from cribsim.tournament.summary import side_ranking

    game = GameRecord(2, [121, 80, 60], 9, 0, False, 0, [[0], [1], [2]], [2, 1, 0])
    rec = MatchRecord("0.0.0.0", 0, 0, 0, 0, [0, 1, 2], 2, [0, 0, 1], None, [game])
    assert side_ranking(rec, 3, objective=-1) == [2, 1, 0]
    assert side_ranking(rec, 3) == [1, 2, 0]
