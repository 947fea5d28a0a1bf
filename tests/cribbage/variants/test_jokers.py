"""Jokers (V-JOKERS): wild cards named as they are laid and shown."""

import random

import pytest

from cribsim.errors import IllegalMove
from cribsim.games.cribbage.cards import card_str
from cribsim.ruleset import load_rules, rules_from_mapping
from tests.cribbage.helpers import C, Scripted, c1
from tests.cribbage.variants.helpers import events, run

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

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


def _show_game(rules_name, scoring=None):
    # Alice (dealer) keeps JC QC KC 2C; Bob keeps 5H 5C 5S TD; the starter is a joker.
    rules = rules_from_mapping({"extends": rules_name, "scoring": scoring}) if scoring else load_rules(rules_name)
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


@pytest.mark.parametrize("preset", ["jokers", "jokers_non_dealer"])
@pytest.mark.parametrize("heels", [3, 0])
def test_a_joker_starter_gives_the_blocks_heels(preset, heels):
    """V-JOKERS (edition of 2026-12-06) and S-DATA-5: a joker turned as the starter gives the
    dealer the ``heels`` value of the scoring block, as a jack would: 3 under ``heels: 3``, and
    nothing under ``heels: 0``; the show is counted as before."""
    g = _show_game(preset, {"heels": heels})
    assert events(g, "heels") == ([(0, heels, "his heels")] if heels else [])
    assert sum(e.points for e in g.events if e.source == "hand" and e.seat == 1) == 28


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


def test_a_joker_named_as_the_jack_of_a_jack_starters_suit_scores_nobs(capsys):
    """R-SHOW-7 (2026-12-01 example): the starter itself never scores nobs, but a jack of its suit
    held in the hand or crib does, even when the starter is that jack and the held one a named
    joker: 5H JK 7S AH with starter JS, the joker named JS, counts 7 as a crib (the referee's
    finding: it counted 6)."""
    from cribsim.cli.main import main
    from cribsim.games.cribbage.scoring import show_points

    named = C("5H JS 7S AH")
    assert show_points(named, c1("JS"), crib=True) == 7  # 15-2, 15-4, the pair of jacks, nobs
    assert show_points(C("5H JC 7S AH"), c1("JS"), crib=True) == 6  # another suit's jack: no nobs
    assert main(["score", "--rules", "jokers", "5H", "JK", "7S", "AH", "--starter", "JS", "--crib"]) == 0
    out = capsys.readouterr().out
    assert "his nobs is 1" in out and out.rstrip().endswith("total 7")
