"""Two against one (V-TEAM3-1, V-TEAM3-2)."""

import random

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage.cards import card_str
from cribsim.games.cribbage.engine import GameOver
from cribsim.games.cribbage.engine.events import HAND
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from strategies.mc import unseen_cards
from tests.cribbage.helpers import C, Scripted
from tests.cribbage.variants.helpers import bare_state, observe, run
from tests.kernel.matchfile import match_dicts

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

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


class Watcher(Inspector):
    """An :class:`Inspector` that notes its view at each of its plays."""

    def __init__(self, rng, discards=(), plays=(), keep=()):
        super().__init__(rng, discards, plays, keep)
        self.views = []

    def play(self, obs):
        self.views.append((set(obs.hand), set(obs.discarded), set(unseen_cards(obs))))
        return super().play(obs)


def test_inspecting_lone_player_sees_the_crib_it_put_back_in_the_play():
    """V-TEAM3-2: after inspecting, the lone player's own cards laid away are the four it put back
    (it has seen them all): none of them is also in its hand, and a search never deals one of
    them to another seat (the deal of the test above)."""
    rules = load_rules("three_player_team_inspect")
    s = [Watcher(random.Random(0), C("7C"), C("5S 5D 5H JC"), keep=C("5S 5D 5H JC")),
         Watcher(random.Random(0), C("5H"), C("4S 6C 8D TD")),
         Watcher(random.Random(0), C("JC"), C("3H 9S KS QD"))]
    run(rules, 2, ["5S 5D 2C 9H 7C", "5H 6C 8D TD 4S", "JC 3H 9S KS QD"], None, None, "KH",
        crib_from_deck="KD", strategies=s)
    crib = set(C("2C 9H KD 7C"))
    assert s[0].views and s[1].views and s[2].views
    for hand, discarded, unseen in s[0].views:
        assert discarded == crib and not hand & discarded and not unseen & crib
    # a partner's thrown card may be in the lone hand now: none counts as laid away, and every
    # card of the crib stays unseen to it
    for seat in (1, 2):
        for _hand, discarded, unseen in s[seat].views:
            assert discarded == set() and crib <= unseen


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
    recs = match_dicts(tmp_path / "out")
    assert all(len(r["games"]) == 3 and all(len(g["sides"]) == 2 for g in r["games"]) for r in recs)


def test_inspecting_plays_both_sides_to_121_whatever_the_two_against_one_targets():
    """V-TEAM3-2 and Part 2: with inspecting both targets are 121, even where the rules file
    extends the plain two against one (lone player to 61); the target knob (V-TARGET) moves both."""
    referee = rules_from_mapping({"extends": "three_player_team", "variants": ["team3", "inspect"]})
    assert referee.lone_target == 61  # the parent's knob, which inspecting overrides
    assert [referee.program.layout(g)[1] for g in range(3)] == [(121, 121)] * 3
    assert load_rules("three_player_team_inspect").program.layout(0)[1] == (121, 121)
    longer = rules_from_mapping({"extends": "three_player_team", "variants": ["team3", "inspect"], "target": 151})
    assert longer.program.layout(1)[1] == (151, 151)
    assert load_rules("three_player_team").program.layout(0)[1] == (61, 121)  # without inspecting
