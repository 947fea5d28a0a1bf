"""Show (R-SHOW-3..7) and pegging (R-PEG-5) scoring: a table of cases, including the traps,
and the fast table-driven path checked against the enumerating breakdown."""

import random
from itertools import combinations_with_replacement

import pytest

from cribsim.games.cribbage.cards import card
from cribsim.games.cribbage.scoring import (
    peg_breakdown,
    peg_points,
    rank_points_from_counts,
    show_breakdown,
    show_points,
    show_words,
)
from tests.cribbage.helpers import C, c1

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

SHOW_CASES = [
    # (hand, starter, crib, expected, rule, why)
    ("5H 5C 5S JD", "5D", False, 29, "R-SHOW-8", "the 29 hand: 16 in fifteens, 12 in pairs, nobs"),
    ("5H 5C 5S 5D", "JD", False, 28, "R-SHOW-7", "28: a jack starter gives no nobs"),
    ("5H 5C 5S JC", "5D", False, 28, "R-SHOW-7", "jack of another suit than the starter: no nobs"),
    ("3H 3C 4S 5D", "6H", False, 14, "R-SHOW-5", "double run of four 8, pair 2, fifteens 4+5+6 and 3+3+4+5: 4"),
    ("4H 4C 5S 6D", "2C", False, 14, "R-SHOW-5",
     "double run of three 6 + pair 2 = 8; fifteens 4+5+6 twice and 4+4+5+2: 6"),
    ("4H 4C 4S 5D", "6C", False, 21, "R-SHOW-5", "triple run 15 (9 + 6 pairs) + 3 fifteens"),
    ("4H 4C 5S 5D", "6C", False, 24, "R-SHOW-5", "double double run 16 (12 + 4 pairs) + 4 fifteens"),
    ("JH QC KS 2D", "9C", False, 3, "R-SHOW-5", "J-Q-K is a run"),
    ("QH KC AS 2D", "8C", False, 0, "R-CARD-1", "Q-K-A is not a run, no wrap-around; no fifteens"),
    ("2H 4H 6H 8H", "KC", False, 4, "R-SHOW-6", "hand flush of 4 without the starter"),
    ("2H 4H 6H 8H", "KH", False, 5, "R-SHOW-6", "hand flush of 5 with the starter"),
    ("2H 4H 6H 8H", "KC", True, 0, "R-SHOW-6", "a four-card crib flush with an off-suit starter scores nothing"),
    ("2H 4H 6H 8H", "KH", True, 5, "R-SHOW-6", "crib flush needs all five"),
    ("JH 3C 9D 8S", "AH", False, 1, "R-SHOW-7", "nobs: jack of the starter's suit; no fifteen or run"),
    ("JH 3C 9D 8S", "JS", False, 2, "R-SHOW-7", "a jack starter never gives nobs: only the pair of jacks"),
    ("AH 2C 3D 4S", "5C", False, 7, "R-SHOW-5", "run of five 5 + 1-4-... fifteen (1+2+3+4+5) 2"),
    ("TH JC QD KS", "5C", False, 13, "R-SHOW-3", "each ten-card with the 5: 8; run of four 4; JC nobs 1"),
    ("9H 9C 9S 6D", "6C", False, 20, "R-SHOW-3", "fifteens 9+6 six times (12) + pairs 8"),
    ("AH 3C 7D 9S", "KC", False, 0, "R-SHOW-3", "nineteen hand: nothing"),
    ("7H 8H 8C 9S", "6D", False, 16, "R-SHOW-5", "double run of four 8, pair 2, fifteens 7+8 twice and 6+9: 6"),
]


@pytest.mark.parametrize("hand,starter,crib,expected,rule,why", SHOW_CASES,
                         ids=[f"{c[4]}:{c[0]}+{c[1]}{'(crib)' if c[2] else ''}" for c in SHOW_CASES])
def test_show_cases(hand, starter, crib, expected, rule, why):
    h, s = C(hand), c1(starter)
    items = show_breakdown(h, s, crib)
    assert sum(i.points for i in items) == expected, (rule, why, items)
    assert show_points(h, s, crib) == expected, (rule, why)


def test_29_breakdown_in_words():
    words = show_words(show_breakdown(C("5H 5C 5S JD"), c1("5D")))
    assert words[:2] == ["fifteen two", "fifteen four"]
    assert words.count("a pair is 2") == 6
    assert words[-1] == "his nobs is 1"
    assert "fifteen sixteen" in words


def test_run_counts_once_per_combination_and_no_shorter_runs():
    # R-SHOW-5: 3-4-5-6-7: one run of five; no runs of 3 or 4 inside it
    items = show_breakdown(C("3H 4C 5D 6S"), c1("7C"))
    runs = [i for i in items if i.reason == "run"]
    assert [r.points for r in runs] == [5]


@pytest.mark.parametrize("hand,starter,crib,expected", [
    # V-FIVECARD-style 3-card hands: flush of 3, or 4 with the starter (generic hand-size rule)
    # (2+4+8 is 14, no fifteen with the K)
    ("2H 4H 8H", "KC", False, 3), ("2H 4H 8H", "KH", False, 4), ("2H 4H 8H", "KC", True, 0),
    # 5-card hands (seven-card game): flush of 5, or 6 with the starter; 8+7 is the one fifteen
    ("2H 4H 8H QH KH", "7C", False, 5 + 2), ("2H 4H 8H QH KH", "7H", False, 6 + 2),
])
def test_any_hand_size(hand, starter, crib, expected):
    h, s = C(hand), c1(starter)
    assert show_points(h, s, crib) == expected == sum(i.points for i in show_breakdown(h, s, crib))


def test_fast_table_matches_enumeration_for_every_rank_multiset():
    """Every 5-card rank multiset (6,175 possible with at most 4 of a rank), with suits chosen
    at random: the table path equals the combination-by-combination breakdown."""
    rng = random.Random(1)
    checked = 0
    for ranks in combinations_with_replacement(range(13), 5):
        if any(ranks.count(r) > 4 for r in ranks):
            continue
        suits_of = {}
        cards = []
        for r in ranks:
            free = [s for s in range(4) if s not in suits_of.setdefault(r, [])]
            s = rng.choice(free)
            suits_of[r].append(s)
            cards.append(card(r, s))
        rng.shuffle(cards)
        hand, starter = cards[:4], cards[4]
        for crib in (False, True):
            assert show_points(hand, starter, crib) == sum(i.points for i in show_breakdown(hand, starter, crib))
        checked += 1
    assert checked == 6175


def test_fast_matches_breakdown_random_hands_all_sizes():
    rng = random.Random(2)
    for _ in range(3000):
        k = rng.choice([3, 4, 5, 6])
        cards = rng.sample(range(52), k + 1)
        hand, starter = cards[:k], cards[k]
        crib = rng.random() < 0.5
        assert show_points(hand, starter, crib) == sum(i.points for i in show_breakdown(hand, starter, crib))
        assert show_points(hand, None) == sum(i.points for i in show_breakdown(hand, None))


def test_rank_points_counts():
    counts = [0] * 13
    for r in (4, 4, 4, 10, 4):  # four 5s and a jack: 16 + 12 (nobs aside)
        counts[r] += 1
    assert rank_points_from_counts(counts) == 28


PEG_CASES = [
    # (cards since the last reset, points for the last, rule, why)
    ("TH 5C", 2, "R-PEG-5", "fifteen"),
    ("TH 5C 7D 6S", 3, "R-PEG-5", "run 5-7-6 in any order"),
    ("2H 3C 3D 4S", 0, "R-PEG-5", "2-3-3-4: the pair breaks the run, the 4 scores nothing"),
    ("2H 3C 3D", 2, "R-PEG-5", "pair"),
    ("7H 7C 7D", 6, "R-PEG-5", "pair royal"),
    ("5H 5C 5D 5S", 12, "R-PEG-5", "double pair royal (and 20 is not 15)"),
    ("5H 5C 5D", 8, "R-PEG-5", "pair royal 6 + fifteen 2"),
    ("4C 4D 2S 2H 4H 3C AD", 4, "R-PEG-5", "a run after an earlier pair: A-2-3-4 pegs 4"),
    ("KH QC TD AS", 2, "R-PEG-5", "31 scores 2 (no go point)"),
    ("KH QC JD", 3, "R-PEG-5", "J-Q-K run"),
    ("QH KC AD", 0, "R-CARD-1", "Q-K-A is not a run"),
    ("3H 4C 5D 6S 7H", 5, "R-PEG-5", "run of five"),
    ("3H 4C 5D 4S", 0, "R-PEG-5", "a pair inside the window breaks the run; not a pair with 5"),
    ("6H 4C 5D", 5, "R-PEG-5", "run of three + fifteen"),
    ("AH 2C 3D 4S 5H", 7, "R-PEG-5", "run of five + fifteen"),
    ("9H 9C 3D", 0, "R-PEG-5", "nothing"),
    ("5H", 0, "R-PEG-5", "a single card"),
]


@pytest.mark.parametrize("cards,expected,rule,why", PEG_CASES, ids=[f"{c[2]}:{c[0]}" for c in PEG_CASES])
def test_peg_cases(cards, expected, rule, why):
    cs = C(cards)
    from cribsim.games.cribbage.cards import RANK, VALUE
    assert peg_points([RANK[c] for c in cs], sum(VALUE[c] for c in cs)) == expected, why
    assert sum(i.points for i in peg_breakdown(cs)) == expected, why


def test_peg_2334_scores_only_the_pair():
    # R-PEG-5: 2,3,3 scores the pair; then the 4 (2,3,3,4) scores nothing: the pair breaks the run
    assert [sum(i.points for i in peg_breakdown(C(s))) for s in ("2H 3C", "2H 3C 3D", "2H 3C 3D 4S")] == [0, 2, 0]


def test_peg_fast_matches_breakdown_random_piles():
    from cribsim.games.cribbage.cards import RANK, VALUE
    rng = random.Random(3)
    for _ in range(20000):
        pile, count = [], 0
        deck = rng.sample(range(52), 12)
        for c in deck:
            if count + VALUE[c] > 31:
                break
            pile.append(c)
            count += VALUE[c]
            assert peg_points([RANK[x] for x in pile], count) == sum(i.points for i in peg_breakdown(pile))
