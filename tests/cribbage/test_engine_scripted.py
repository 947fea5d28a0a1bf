"""Scripted deals, card by card, with the score checked after every card.

R-PEG-6 gives the seeds' example plays for two and three players; a four-player partnership deal
checks R-TEAM-1. Each deal is injected through the engine's phase list (the same extension point
variants use), so the real discard / play / show phases run unchanged."""

import pytest

from cribsim.ruleset import load_rules, rules_from_mapping
from tests.cribbage.helpers import c1, run_scripted

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

run_deal = run_scripted  # every deal here is scripted through the rules' own phases


def play_by_card(g):
    """[(seat, card text, count, points for this card incl. a go/last point that follows)]."""
    from cribsim.games.cribbage.cards import card_str
    out = []
    for e in g.events:
        if e.source == "lay":
            out.append([e.seat, card_str(e.cards[0]), e.count, 0])
        elif e.source == "peg":
            assert out and out[-1][0] == e.seat or e.reason in ("go", "last card")
            out[-1][3] += e.points
    return [tuple(x) for x in out]


def test_r_peg_6_two_players():
    """R-PEG-6, the two-player example card by card: counts, points, Bob's go and the reset."""
    # Alice (seat 0) deals, Bob (seat 1) leads. Hands chosen to play exactly as the seeds' example.
    rules = load_rules("standard")
    hands = ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"]  # Alice, Bob; each lays away two
    discards = ["KC KD", "QS QH"]
    plays = ["5S 6D 2C 4H", "TH 7C 6C 4S"]
    g, over = run_deal(rules, 0, hands, discards, plays, starter="AS")
    assert over is None
    A, B = 0, 1
    assert play_by_card(g) == [
        (B, "TH", 10, 0),
        (A, "5S", 15, 2),   # fifteen 2
        (B, "7C", 22, 0),
        (A, "6D", 28, 3),   # run 5-7-6
        # Bob says go
        (A, "2C", 30, 1),   # nobody can play: 1 for the go
        (B, "6C", 6, 0),    # reset: Bob (left of Alice) leads
        (A, "4H", 10, 0),
        (B, "4S", 14, 3),   # pair 2 + last card 1
    ]
    gos = [e.seat for e in g.events if e.source == "go"]
    assert gos[0] == B
    peg = [0, 0]
    for e in g.events:
        if e.source == "peg":
            peg[e.seat] += e.points
    assert peg == [6, 3]


def test_r_peg_6_three_players():
    """R-PEG-6, the three-player example card by card: pair royal, 31s, two gos, last card."""
    # Claire deals (seat 2), David (seat 0) leads, then Eve (seat 1), then Claire.
    rules = load_rules("three_player")
    D, E, Cl = 0, 1, 2
    hands = ["7S 5D TS 4C KH", "7H 5C TH 3S KD", "7D 8D TC 9S KC"]
    discards = ["KH", "KD", "KC"]
    plays = ["7S 5D TS 4C", "7H 5C TH 3S", "7D 8D TC 9S"]
    g, over = run_deal(rules, Cl, hands, discards, plays, starter="2S", crib_from_deck="QC")
    assert over is None
    assert play_by_card(g) == [
        (D, "7S", 7, 0),
        (E, "7H", 14, 2),    # pair
        (Cl, "7D", 21, 6),   # pair royal
        (D, "5D", 26, 0),
        (E, "5C", 31, 4),    # pair 2 + 31 for 2
        (Cl, "8D", 8, 0),    # reset: Claire, left of Eve, leads
        (D, "TS", 18, 0),
        (E, "TH", 28, 2),    # pair; then Claire go, David go
        (E, "3S", 31, 2),    # 31 for 2 (Eve plays again)
        (Cl, "TC", 10, 0),   # reset: Claire leads (Eve, left... Claire is left of Eve)
        (D, "4C", 14, 0),
        (Cl, "9S", 23, 1),   # Eve has no cards; Claire's 9 is the last card: 1
    ]
    assert [e.seat for e in g.events if e.source == "go"] == [Cl, D]


def test_show_order_and_crib_after_play():
    """R-SHOW-1 show order; R-DEAL-3: the crib, both players' discards, is the dealer's."""
    # R-SHOW-1: pone's hand, then dealer's hand, then the crib (dealer's).
    rules = load_rules("standard")
    g, _ = run_deal(rules, 0, ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"], ["KC KD", "QS QH"],
                    ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="AS")
    shows = [(e.seat, e.reason) for e in g.events if e.source == "show"]
    assert shows == [(1, "hand"), (0, "hand"), (0, "crib")]
    # Bob: TH 7C 6C 4S + AS: fifteens 10+4+A, 7+4+... (7+4+A=12 no), 6+4+... no, T+4+A=15 -> 2;
    # 6+7+... no; run 6-7 (no 5): 0; so 2.  Alice: 5S 6D 2C 4H + AS: 5+6+4=15, 6+4+5 same;
    # A+2+... runs A-2 (no 3) none; 4-5-6 run 3; fifteens: 5+6+4, 6+4+5 (same set) -> 2; 2+...
    # Alice: fifteens {5,6,4} 2; run 4-5-6 3 -> 5. Crib KC KD QS QH + AS: pairs 4, no fifteen -> 4.
    totals = {}
    for e in g.events:
        if e.source in ("hand", "crib"):
            totals[(e.seat, e.source)] = totals.get((e.seat, e.source), 0) + e.points
    assert totals == {(1, "hand"): 2, (0, "hand"): 5, (0, "crib"): 4}
    assert g.scores == [6 + 5 + 4, 3 + 2]


def test_partnership_deal():
    """R-TEAM-1: partners facing each other play as four players do and share one score."""
    # R-TEAM-1: seats 0 & 2 against 1 & 3; seat 3 deals, seat 0 leads; partners share a score.
    rules = load_rules("four_player_partners")
    hands = ["5H 5C 9D 2S KD", "TH 4C 6S 8D KH", "5S 3D 7C AD KS", "JD 2H 8C 9C KC"]
    discards = ["KD", "KH", "KS", "KC"]
    plays = ["5H 5C 9D 2S", "TH 4C 6S 8D", "5S AD 3D 7C", "JD 2H 8C 9C"]
    g, over = run_deal(rules, 3, hands, discards, plays, starter="QD")
    assert over is None
    # Worked by hand:
    #  5H 5; TH 15 (fifteen 2); 5S 20; JD 30; seats 0 and 1 go; seat 2 must play AD: 31 (2).
    #  reset, seat 3 (left of seat 2) leads: 2H 2; 5C 7; 4C 11; 3D 14 (run 2-5-4-3 of four: 4);
    #  8C 22; 9D 31 (2). reset, seat 1 leads: 6S 6; 7C 13; 9C 22; 2S 24; seat 1 cannot lay 8D
    #  and seats 2, 3, 0 hold nothing: 1 for the go to seat 0. reset, seat 1: 8D 8, last card 1.
    assert play_by_card(g) == [
        (0, "5H", 5, 0), (1, "TH", 15, 2), (2, "5S", 20, 0), (3, "JD", 30, 0), (2, "AD", 31, 2),
        (3, "2H", 2, 0), (0, "5C", 7, 0), (1, "4C", 11, 0), (2, "3D", 14, 4), (3, "8C", 22, 0),
        (0, "9D", 31, 2), (1, "6S", 6, 0), (2, "7C", 13, 0), (3, "9C", 22, 0), (0, "2S", 24, 1),
        (1, "8D", 8, 1),
    ]
    # go said once per series by a seat holding cards; empty hands are skipped silently (R-PEG-2)
    assert [e.seat for e in g.events if e.source == "go"] == [0, 1, 1]
    # The show with starter QD (R-SHOW-1: seats 0, 1, 2, dealer 3, then the crib):
    #  seat 0 5H 5C 9D 2S: 5+Q twice 4, pair 2 = 6; seat 1 TH 4C 6S 8D: 0;
    #  seat 2 5S 3D 7C AD: 5+Q, 7+5+3 = 4; seat 3 JD 2H 8C 9C: nobs (JD, starter QD) 1;
    #  crib KD KH KS KC: four of a kind 12.
    shows = {}
    for e in g.events:
        if e.source in ("hand", "crib"):
            shows[(e.seat, e.source)] = shows.get((e.seat, e.source), 0) + e.points
    assert shows == {(0, "hand"): 6, (2, "hand"): 4, (3, "hand"): 1, (3, "crib"): 12}
    # pegging: side 0&2 2+4+2+1 = 9, side 1&3 2+1 = 3
    assert g.scores == [9 + 6 + 4, 3 + 1 + 12]
    side_pts = [0, 0]
    for e in g.events:
        side_pts[rules.side_of[e.seat]] += e.points
    assert side_pts == g.scores


def test_game_ends_the_instant_the_target_is_reached_in_the_play():
    """R-WIN-1, R-SHOW-2: reaching 121 mid-play wins at once; nothing after it is scored."""
    # Alice (the dealer) at 120 pegs 2 for a fifteen and wins; nothing after that is scored,
    # not Bob's remaining plays nor any show.
    rules = load_rules("standard")
    g, over = run_deal(rules, 0, ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"], ["KC KD", "QS QH"],
                       ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="AS", scores=[120, 0])
    assert over == 0
    assert g.scores == [122, 0]
    assert g.events[-1].reason == "fifteen" and g.events[-1].seat == 0
    assert not [e for e in g.events if e.source in ("show", "hand", "crib")]


def test_his_heels_can_win_and_nothing_follows():
    """R-START-2: a jack starter gives the dealer 2 on the spot, and those 2 can win the game."""
    # R-START-2: a jack starter gives the dealer 2 at once, which can end the game.
    rules = load_rules("standard")
    g, over = run_deal(rules, 1, ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"], ["KC KD", "QS QH"],
                       ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="JS", scores=[0, 119])
    assert over == 1 and g.scores == [0, 121]
    assert g.events[-1].reason == "his heels"
    assert not [e for e in g.events if e.source == "lay"]


def test_the_short_game_is_won_the_instant_a_side_reaches_61():
    """R-WIN-1: in the short game (target 61) the first side to reach 61 wins that instant."""
    # Alice (dealer) on 59, Bob on 60. Bob leads TH (10, nothing, still 60); Alice's 5S makes 15:
    # 2 for the fifteen takes her to 61 and the game ends there, before Bob's next card.
    rules = rules_from_mapping({"target": 61})
    g, over = run_deal(rules, 0, ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"], ["KC KD", "QS QH"],
                       ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="AS", scores=[59, 60])
    assert over == 0 and g.scores == [61, 60]
    assert [e.seat for e in g.events if e.source == "lay"] == [1, 0]
    assert (g.events[-1].seat, g.events[-1].reason, g.events[-1].points) == (0, "fifteen", 2)


def test_the_starter_is_turned_after_the_discards_and_counts_in_every_hand_and_the_crib():
    """R-START-1: the dealer turns the starter once both have discarded; it is never laid in the
    play, and at the show it belongs to each hand and to the crib."""
    # The R-PEG-6 deal (Alice deals; pegging: Alice 6, Bob 3) with the starter 5H:
    #  Bob TH 7C 6C 4S + 5H: fifteens T+5, 6+4+5 (4), run 4-5-6-7 (4): 8 (2 with the starter AS);
    #  Alice 5S 6D 2C 4H + 5H: fifteens 5S+6+4, 5H+6+4 (4), pair of 5s (2), double run 4-5-6 (6): 12;
    #  crib KC KD QS QH + 5H: each ten-card with the 5 (8), two pairs (4): 12.
    rules = load_rules("standard")
    g, over = run_deal(rules, 0, ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"], ["KC KD", "QS QH"],
                       ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="5H")
    assert over is None
    sources = [e.source for e in g.events]
    turned = sources.index("starter")
    assert sources.count("discard") == 2 and max(i for i, src in enumerate(sources) if src == "discard") < turned
    assert (g.events[turned].seat, g.events[turned].cards) == (0, (c1("5H"),))
    assert c1("5H") not in [e.cards[0] for e in g.events if e.source == "lay"]
    totals = {}
    for e in g.events:
        if e.source in ("hand", "crib"):
            totals[(e.seat, e.source)] = totals.get((e.seat, e.source), 0) + e.points
    assert totals == {(1, "hand"): 8, (0, "hand"): 12, (0, "crib"): 12}
    assert g.scores == [6 + 12 + 12, 3 + 8]


def test_count_out_in_show_order():
    # R-SHOW-2 / R-SHOW-1: both need points; pone counts first and wins with its hand, so the
    # dealer's bigger hand and crib are never counted.
    rules = load_rules("standard")
    g, over = run_deal(rules, 0, ["5S 6D 2C 4H KC KD", "TH 7C 6C 4S QS QH"], ["KC KD", "QS QH"],
                       ["5S 6D 2C 4H", "TH 7C 6C 4S"], starter="AS", scores=[100, 116])
    # Bob (pone) pegs 3 in the play -> 119, then his hand 2 -> 121 before Alice counts.
    assert over == 1 and g.scores == [100 + 6, 121]
    assert [e.reason for e in g.events if e.source == "show"] == ["hand"]
