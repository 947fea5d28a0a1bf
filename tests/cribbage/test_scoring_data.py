"""Scoring as data (the rule book's Part 4, S-DATA-1..7): the ``scoring:`` block, hand-worked.

Each case names the scoring, the cards, the points the rule book gives and why; the fast path
(``Scorer.show``, ``Scorer.peg``) and the explanatory path (``show_items``, ``peg_items``) must
both give them. Every key is moved at least once, some together."""

import json
import random

import pytest

from cribsim.cli.main import main
from cribsim.errors import ConfigError
from cribsim.games.cribbage.cards import RANK
from cribsim.games.cribbage.points import STANDARD, Scoring
from cribsim.games.cribbage.scoring import peg_points, scorer_for, show_points
from cribsim.ruleset import load_rules, rules_from_dict, rules_from_mapping
from tests.cribbage.helpers import C, c1
from tests.cribbage.variants.helpers import events, run

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

SHOW_CASES = [
    # (scoring, hand, starter, crib, points, rule, why)
    ({"fifteen": 3, "pair": 3}, "5H 5C 5S JD", "5D", False, 43, "S-DATA-1, S-DATA-2",
     "the 29 hand: eight fifteens at 3, six pairs at 3, nobs 1"),
    ({"pair": 0}, "5H 5C 5S JD", "5D", False, 17, "S-DATA-2", "pairs worth nothing: 16 for fifteens, nobs 1"),
    ({"run_min": 2, "run_card": 2}, "2C 3D 9H KS", "6C", False, 8, "S-DATA-3",
     "fifteens 2-3-K and 9-6 (4), the run of two 2-3 at 2 a card (4)"),
    ({"run_min": 2}, "2C 3D 4H 8S", "7C", False, 9, "S-DATA-3",
     "every distinct maximal run: 2-3-4 (3) and 7-8 (2) both score; fifteens 7-8 and 3-4-8 (4)"),
    ({"run_min": 2}, "AC 2D 5H 6S", "TC", False, 6, "S-DATA-3", "two separate runs of two, A-2 and 5-6 (4); 5-T (2)"),
    ({"run_min": 2}, "2C 3D 3H 8S", "7C", True, 12, "S-DATA-3",
     "a double run of two, 2-3 twice (4), beside 7-8 (2); the pair 2; fifteens 7-8 and 2-3-3-7 (4)"),
    ({"hand_flush": 6, "flush_starter": 3, "nobs": 4}, "2H 4H 6H JH", "9H", False, 17, "S-DATA-4, S-DATA-5",
     "fifteens 2-4-9 and 6-9 (4), a flush with the starter 6 + 3, nobs 4"),
    ({"hand_flush": 6, "flush_starter": 3, "nobs": 4}, "2H 4H 6H JH", "9H", True, 15, "S-DATA-4",
     "hand_flush is the hand's alone: the crib's flush with the starter is one a card and flush_starter, 4 + 3"),
    ({"hand_flush": 6, "crib_flush": 9, "nobs": 4}, "2H 4H 6H JH", "9H", True, 17, "S-DATA-4",
     "crib_flush names the crib's flush with the starter: 9; fifteens 4, nobs 4"),
    ({"hand_flush": 6, "crib_flush": 9, "nobs": 4}, "2H 4H 6H JH", "9H", False, 15, "S-DATA-4",
     "crib_flush leaves the hand's flush alone: 6 + 1; fifteens 4, nobs 4"),
    ({"crib_flush": 9}, "2H 4H 6H JH", "9C", True, 4, "S-DATA-4", "the crib's flush still needs the starter's suit"),
    ({"crib_flush": 0}, "2H 4H 6H 8H", "9H", True, 4, "S-DATA-4", "a crib's flush of nothing: 6-9, 2-4-9 (4)"),
    ({"hand_flush": 6, "flush_starter": 3, "nobs": 4}, "2H 4H 6H JH", "9C", False, 10, "S-DATA-4",
     "the hand's flush alone 6, fifteens 4, no nobs (the starter is a club)"),
    ({"hand_flush": 6, "flush_starter": 3, "nobs": 4}, "2H 4H 6H JH", "9C", True, 4, "S-DATA-4",
     "a crib needs the starter's suit: fifteens only"),
]


def _worked(scoring):
    s = Scoring(**scoring)
    return s, scorer_for(s)


@pytest.mark.parametrize("scoring, hand, starter, crib, points, rule, why", SHOW_CASES)
def test_show_under_a_scoring(scoring, hand, starter, crib, points, rule, why):
    s, scorer = _worked(scoring)
    assert scorer.show(C(hand), c1(starter), crib) == points, f"{rule}: {why}"
    assert sum(i.points for i in scorer.show_items(C(hand), c1(starter), crib)) == points


def test_runs_of_four_at_least_and_sums_of_twenty():
    """S-DATA-3 with run_min 4 (3-4-5 no longer scores) and S-DATA-1 with fifteen_total 20."""
    _, scorer = _worked({"run_min": 4})
    items = scorer.show_items(C("3C 4D 5H KS"), c1("9C"))
    assert [i.reason for i in items] == ["fifteen"] and scorer.show(C("3C 4D 5H KS"), c1("9C")) == 2  # 5-K
    assert scorer.show(C("3C 4D 5H 6S"), c1("9C")) == 4 + 4  # 6-9, 4-5-6 (15), and the run of four 3-4-5-6
    _, twenty = _worked({"fifteen_total": 20})
    # 20 from TH 5C 5S KD QC: T-K, T-Q, K-Q, 5-5-T, 5-5-K, 5-5-Q: six combinations at 2; the pair of fives 2
    items = twenty.show_items(C("TH 5C 5S KD"), c1("QC"))
    assert sum(1 for i in items if i.reason == "fifteen") == 6
    assert twenty.show(C("TH 5C 5S KD"), c1("QC")) == 12 + 2
    # TH 5C 4S 6D, starter 2C: standard T-5 and 4-5-6 (4) and the run (3); to 20 only T-4-6 (2) and the run
    assert show_points(C("TH 5C 4S 6D"), c1("2C")) == 7 and twenty.show(C("TH 5C 4S 6D"), c1("2C")) == 5


def test_the_standard_values_are_the_standard_game():
    """S-DATA-7: a block of the default values is the standard game, fast and explained."""
    s = Scoring(fifteen=2, pair=2, count_limit=31)
    assert s is not STANDARD and s == STANDARD and scorer_for(s).show is show_points
    rng = random.Random(5)
    generic = scorer_for(Scoring(fifteen=2, run_card=1, pair=2, hand_flush=5))  # not standard: the generic path
    for _ in range(300):
        cards = rng.sample(range(52), 5)
        hand, starter = cards[:4], cards[4]
        base = show_points(hand, starter)
        flush = len({c & 3 for c in hand}) == 1
        assert generic.show(hand, starter) == base + (1 if flush else 0)  # a hand flush worth 5, not 4


PEG_CASES = [
    # (scoring, cards laid since the reset, points for the last, rule, why)
    ({"fifteen": 3}, "7H 8S", 3, "S-DATA-1", "a count of 15 at 3"),
    ({"pair": 5}, "9H 9S 9C", 15, "S-DATA-2", "a pair royal is three pairs: 3 x 5"),
    ({"run_card": 3}, "2H 4S 3C", 9, "S-DATA-3", "a run of three at 3 a card"),
    ({"run_min": 2}, "9H 8S", 2, "S-DATA-3", "a run of two when runs need two cards"),
    ({"count_limit": 41, "hit_limit": 5}, "KH QS JC TD AH", 5, "S-DATA-6", "41 exactly: 5, no run (A after T)"),
    ({"count_limit": 41}, "KH QS JC AD", 0, "S-DATA-6", "31 is no longer the limit: nothing"),
    ({"fifteen_total": 12, "fifteen": 4}, "7H 5S", 4, "S-DATA-1", "a count of 12 is the fifteen"),
]


@pytest.mark.parametrize("scoring, cards, points, rule, why", PEG_CASES)
def test_peg_under_a_scoring(scoring, cards, points, rule, why):
    _, scorer = _worked(scoring)
    laid = C(cards)
    count = sum(min(10, RANK[c] + 1) for c in laid)
    assert scorer.peg([RANK[c] for c in laid], count) == points, f"{rule}: {why}"
    assert sum(i.points for i in scorer.peg_items(laid)) == points


def test_peg_generic_matches_the_standard_on_random_piles():
    rng = random.Random(3)
    generic = scorer_for(Scoring(last_card=2))  # the play's values unchanged, but the generic peg
    assert generic.peg is not peg_points
    for _ in range(2000):
        pile, count = [], 0
        for c in rng.sample(range(52), 8):
            v = min(10, RANK[c] + 1)
            if count + v > 31:
                break
            pile.append(RANK[c])
            count += v
            assert generic.peg(pile, count) == peg_points(pile, count)


# a scripted deal: Alice deals; Bob leads. Bob 2C 4D 6H 8S, Alice 2H 4C 6S 8D, crib 9H AC 3D 7S
ZERO = dict(hands=["2H 4C 6S 8D 9H AC", "2C 4D 6H 8S 3D 7S"], discards=["9H AC", "3D 7S"],
            plays=["2H 4C 6S 8D", "2C 4D 6H 8S"], starter="KC")


def test_the_play_obeys_the_scoring_go_last_card_and_limit():
    """S-DATA-2 and S-DATA-6 in a played deal: pairs at 4, no go or last card points at the
    standard limit; then a limit of 41 that the play never reaches."""
    rules = rules_from_mapping({"extends": "standard", "scoring": {"pair": 4, "go": 0, "last_card": 3}})
    g, _ = run(rules, 0, **ZERO)
    pegs = events(g, "peg")
    # 2C, 2H (pair 4), 4D, 4C (pair 4) = 12; 6H (18), 6S (pair 4) = 24; 8S 32 > 31: nobody can lay,
    # the go is worth 0 (no event); reset, Bob leads 8S, Alice 8D (pair 4), last card 3
    assert [(s, p, r) for s, p, r in pegs] == [(0, 4, "pair"), (0, 4, "pair"), (0, 4, "pair"), (0, 4, "pair"),
                                               (0, 3, "last card")]
    standard, _ = run(load_rules("standard"), 0, **ZERO)
    assert [p for _, p, _ in events(standard, "peg")] == [2, 2, 2, 1, 2, 1]  # with the go and last card at 1


def test_a_higher_limit_plays_on_past_31():
    rules = rules_from_mapping({"extends": "standard", "scoring": {"count_limit": 41}})
    g, _ = run(rules, 0, **ZERO)
    lays = [e.count for e in g.events if e.source == "lay"]
    assert lays == [2, 4, 8, 12, 18, 24, 32, 40]  # no go at 32: the count runs on to 40
    assert [(p, r) for _, p, r in events(g, "peg")][-1] == (1, "last card")


def test_heels_and_nobs_values():
    """S-DATA-5: his heels and his nobs take the scoring's values."""
    rules = rules_from_mapping({"extends": "standard", "scoring": {"heels": 5}})
    g, _ = run(rules, 0, **{**ZERO, "starter": "JC"})
    assert [(e.seat, e.points) for e in g.events if e.source == "heels"] == [(0, 5)]


def test_a_default_block_keeps_the_fingerprint_and_a_changed_one_is_recorded():
    """S-DATA-7: a block of the standard values is the standard game, down to the fingerprint."""
    standard = load_rules("standard")
    same = rules_from_mapping({"extends": "standard", "scoring": {
        "fifteen": 2, "fifteen_total": 15, "pair": 2, "run_min": 3, "run_card": 1, "hand_flush": 4,
        "flush_starter": 1, "nobs": 1, "heels": 2, "go": 1, "count_limit": 31, "hit_limit": 2, "last_card": 1}})
    assert same.fingerprint() == standard.fingerprint() and "scoring" not in same.to_dict()
    four = rules_from_mapping({"extends": "four_player", "scoring": {"hand_flush": 4, "crib_flush": 5}})
    assert four.fingerprint() == load_rules("four_player").fingerprint()  # hands and crib of 4: one a card
    pairs = rules_from_mapping({"extends": "standard", "scoring": {"pair": 3}})
    assert pairs.to_dict()["scoring"] == {"pair": 3} and pairs.fingerprint() != standard.fingerprint()
    again = rules_from_dict(json.loads(json.dumps(pairs.to_dict())))
    assert again.fingerprint() == pairs.fingerprint()  # a record's rules rebuild the same rules


def test_hand_flush_is_the_hands_alone_in_the_five_card_game():
    """S-DATA-4: hands of 3 and a crib of 4 (V-FIVECARD). ``hand_flush: 3`` is one a card, the
    default, so the file is five_card itself; any ``hand_flush`` leaves the crib's five-card flush
    at 4 + 1; ``crib_flush`` alone sets it, and equal to 4 + flush_starter it is the default too."""
    five_card = load_rules("five_card")
    crib, starter = C("2H 6H TH KH"), c1("4H")
    three = rules_from_mapping({"extends": "five_card", "scoring": {"hand_flush": 3}})
    assert three.fingerprint() == five_card.fingerprint() and "scoring" not in three.to_dict()
    assert three.scorer.show(crib, starter, True) == 4 + 1 == five_card.scorer.show(crib, starter, True)
    named = rules_from_mapping({"extends": "five_card", "scoring": {"hand_flush": 5, "flush_starter": 2}})
    assert named.scorer.show(crib, starter, True) == 4 + 2  # the crib's flush: one a card and flush_starter
    assert named.scorer.show(C("2H 6H TH"), starter) == 5 + 2 and named.scorer.show(C("2H 6H TH"), c1("4C")) == 5
    own = rules_from_mapping({"extends": "five_card", "scoring": {"hand_flush": 5, "crib_flush": 8}})
    assert own.scorer.show(crib, starter, True) == 8 and own.scorer.show(crib, c1("4C"), True) == 0
    assert [i.points for i in own.scorer.show_items(crib, starter, True)] == [8]
    assert own.to_dict()["scoring"] == {"hand_flush": 5, "crib_flush": 8}
    same = rules_from_mapping({"extends": "five_card", "scoring": {"crib_flush": 5}})
    assert same.fingerprint() == five_card.fingerprint()


def test_a_crib_that_needs_no_starter_keeps_the_cribs_flush():
    """S-DATA-4 with ``crib_flush_needs_starter: false`` (R-SHOW-6's knob): the crib's flush
    without the starter is one a card (not the hand's ``hand_flush``), with it one a card and
    ``flush_starter``; a ``crib_flush`` there would leave the crib's flush without the starter
    undefined, and is refused in one line."""
    rules = rules_from_mapping({"extends": "standard", "crib_flush_needs_starter": False,
                                "scoring": {"hand_flush": 7, "flush_starter": 2}})
    assert rules.scorer.show(C("2H 4H 6H 8H"), c1("KC"), rules.crib_show) == 4
    assert rules.scorer.show(C("2H 4H 6H 8H"), c1("KH"), rules.crib_show) == 4 + 2
    assert rules.scorer.show(C("2H 4H 6H 8H"), c1("KC")) == 7  # a hand: hand_flush
    items = rules.scorer.show_items(C("2H 4H 6H 8H"), c1("KC"), rules.crib_show)
    assert [(i.reason, i.points) for i in items] == [("flush", 4)]
    with pytest.raises(ConfigError) as e:
        rules_from_mapping({"extends": "standard", "crib_flush_needs_starter": False, "scoring": {"crib_flush": 6}},
                           "open.yaml")
    assert str(e.value).startswith("open.yaml: key 'scoring.crib_flush': S-DATA-4") and "\n" not in str(e.value)


@pytest.mark.parametrize("block, message", [
    ({"pair": -1}, "key 'scoring.pair': expected a whole number 0..100, got -1"),
    ({"pair": 2.5}, "scoring.pair"),
    ({"pair": True}, "scoring.pair"),
    ({"fifteen_total": 10}, "scoring.fifteen_total"),
    ({"run_min": 1}, "scoring.run_min"),
    ({"count_limit": 9}, "scoring.count_limit"),
    ({"count_limit": 200}, "'scoring.count_limit': expected at most 80"),
    ({"pairs": 3}, "'scoring.pairs': unknown scoring key (did you mean 'pair'?)"),
    ({"crib_flush": -1}, "scoring.crib_flush"),
    ("pair", "'scoring': expected a mapping"),
])
def test_bad_scoring_values_are_one_line_errors(block, message):
    with pytest.raises(ConfigError) as e:
        rules_from_mapping({"extends": "standard", "scoring": block}, "mine.yaml")
    text = str(e.value)
    assert message in text and "\n" not in text and text.startswith("mine.yaml: key 'scoring")


def test_score_and_peg_commands_say_the_scorings_points(tmp_path, capsys):
    rules = tmp_path / "threes.yaml"
    rules.write_text("extends: standard\nname: threes\nscoring: {fifteen: 3, pair: 3, count_limit: 41}\n")
    assert main(["score", "--rules", str(rules), "5H", "5C", "5S", "JD", "--starter", "5D"]) == 0
    out = capsys.readouterr().out
    assert "fifteen three" in out and "fifteen twenty-four" in out
    assert "a pair is 3" in out and out.rstrip().endswith("total 43")
    assert main(["peg", "--rules", str(rules), "KH", "QS", "JC", "TD", "AH"]) == 0
    out = capsys.readouterr().out
    assert "forty-one" in out and "total 2" in out
    assert main(["peg", "KH", "QS", "JC", "TD", "AH"]) != 0  # the standard game: the count would pass 31
    assert "over 31 (R-PEG-2)" in capsys.readouterr().err


ZEROS = {"fifteen": 0, "pair": 0, "run_card": 0, "hand_flush": 0, "flush_starter": 0, "crib_flush": 0, "go": 0,
         "hit_limit": 0, "last_card": 0}


@pytest.mark.parametrize("data, why", [
    ({"scoring": dict(ZEROS, heels=3, nobs=2)}, "every point value of the show and the play is 0"),
    ({"scoring": dict(ZEROS, go=1, count_limit=80)}, "go can never be scored"),  # 8 cards cannot pass 80
    ({"scoring": dict(ZEROS, fifteen=2, fifteen_total=60)}, "fifteen can never be scored"),  # 5 cards, count 31
    ({"deal": 2, "discard": 1, "scoring": dict(ZEROS, run_card=1, run_min=4, count_limit=20)},
     "run_card can never be scored"),  # shows of 3 cards, 2 cards played
    ({"deal": 16, "discard": 2, "scoring": dict(ZEROS, hand_flush=4, flush_starter=1)},
     "hand_flush, flush_starter can never be scored"),  # hands of 14: no suit holds them
])
def test_a_block_in_which_no_game_can_end_is_refused_at_load(data, why):
    """S-DATA-7: every point value of the show and the play 0 (his heels and his nobs alone
    cannot be counted on), or values that no deal of these sizes and limits can score: refused
    when the rules load, in one line naming the file and the block."""
    with pytest.raises(ConfigError) as e:
        rules_from_mapping({"extends": "standard", **data}, "endless.yaml")
    text = str(e.value)
    assert text.startswith("endless.yaml: key 'scoring': no game can end under this block (S-DATA-7): ")
    assert why in text and "\n" not in text


@pytest.mark.parametrize("data", [
    {"scoring": dict(ZEROS, last_card=1)},  # the last card always scores
    {"scoring": dict(ZEROS, go=1)},  # a go, where the hands can pass the limit
    {"scoring": {k: v for k, v in ZEROS.items() if k != "crib_flush"}},  # the crib's flush stays 4 + 0 (S-DATA-4)
    {"scoring": dict(ZEROS, fifteen=2, fifteen_total=60, count_limit=60)},  # a count of 60 in the play
    {"deal": 2, "discard": 1, "scoring": dict(ZEROS, run_card=1, run_min=3, count_limit=20)},  # a show of 3 cards
    {"deal": 16, "discard": 2, "jokers": 2, "scoring": dict(ZEROS, hand_flush=4)},  # two jokers make 14 of a suit
])
def test_a_block_with_something_to_score_loads(data):
    """S-DATA-7 refuses only the blocks in which nothing can ever be scored."""
    assert rules_from_mapping({"extends": "standard", **data}, "scores.yaml").scoring.to_dict()


def test_cribsim_play_and_run_refuse_a_block_of_zeros_before_writing(tmp_path, capsys):
    """S-DATA-7: ``cribsim play --rules FILE`` (which played until the engine gave up after
    10,000 deals) and ``cribsim run`` stop in one line naming the file, and write nothing."""
    rules = tmp_path / "zeros.yaml"
    rules.write_text("extends: standard\nname: zeros\nscoring: {" + ", ".join(f"{k}: 0" for k in ZEROS) + "}\n")
    save = tmp_path / "game.json"
    assert main(["play", "--rules", str(rules), "--seed", "1", "--save", str(save)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and not save.exists()
    assert err.startswith(f"cribsim: {rules}: key 'scoring': no game can end under this block (S-DATA-7)")
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(f"name: zeros_run\nvariants: [{rules}]\nlineup: [random, greedy]\nmatches: 2\n")
    assert main(["run", str(experiment), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "(S-DATA-7)" in err and not (tmp_path / "out").exists()


def test_a_game_that_does_not_end_in_time_is_one_line_not_an_internal_error(tmp_path, capsys):
    """A block S-DATA-7 lets through that scores too rarely (here only the crib's flush with its
    starter, about one deal in 500): the game stops at the engine's bound, 10,000 deals, with one
    line that says why (it said ``internal error``)."""
    rules = tmp_path / "rare.yaml"
    scoring = {**{k: v for k, v in ZEROS.items() if k != "crib_flush"}, "heels": 0, "nobs": 0}
    rules.write_text("extends: standard\nname: rare\nscoring: {" + ", ".join(f"{k}: {v}" for k, v in scoring.items())
                     + "}\n")
    assert main(["play", "--rules", str(rules), "--seed", "1", "--strategy", "random"]) == 2
    out, err = capsys.readouterr()
    assert err == ("cribsim: a game of rare did not end within 10,000 deals: its rules leave too few points to reach "
                   "the target; raise some point values or lower the target\n")
