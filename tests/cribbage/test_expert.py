"""The ``expert`` strategy (issue 14) and what it stands on: ``ev``'s keep values (the exact
expected show, R-SHOW-1..8, plus the crib tables), the pegging table, the board table's
recursion (the pone counts first, R-SHOW-1; the game ends the instant a side reaches its
target, R-WIN-1) and the engine's deal rollouts, which run the rules' own phases."""

import random
from itertools import combinations

import pytest

from cribsim.games.cribbage.engine.rollout import DealRollout, PlayRollout
from cribsim.games.cribbage.scoring import show_points
from cribsim.records import unflat_trail
from cribsim.ruleset import load_rules
from strategies.boardtable import load as board
from strategies.boardtable import solve
from strategies.ev import PAIRS, EVStrategy
from strategies.expert import ExpertStrategy, kept_cells
from strategies.pegtable import cell_index, cells
from strategies.pegtable import load as peg
from tests.cribbage.helpers import C
from tests.cribbage.test_strategies import obs_for
from tests.kernel.matchfile import match_dicts

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)


def random_discard_obs(rng, dealer):
    o = obs_for("AS 2S 3S 4S 5S 6S", dealer=dealer, discards=2)
    o.hand = tuple(rng.sample(range(52), 6))
    return o


def test_the_hot_path_values_every_keep_as_the_definition_does():
    """R-SHOW-1..8 through ``expected_show`` (every starter not seen) plus the crib tables, for
    hands with jacks, flushes and neither, both roles: the unrolled path gives the same values."""
    ev = EVStrategy(random.Random(0))
    rng = random.Random(1)
    hands = ["JS 5S 9S 2S KH 3S", "JH JD 5C 5S QH 4D", "AS 2D 3C 4H 9S KD"]
    for k in range(60):
        o = random_discard_obs(rng, k % 2)
        if k < 6:
            o.hand = tuple(C(hands[k % 3]))
        values = ev.two_card_values(o)
        for v, (i, j) in zip(values, PAIRS[6]):
            keep = [c for n, c in enumerate(o.hand) if n not in (i, j)]
            assert v == pytest.approx(ev.keep_value(o, keep, [o.hand[i], o.hand[j]]), abs=1e-9)


def test_expert_without_its_ideas_is_ev():
    """peg_weight 0 and no board: every discard and every card is ev's (one copy of the rules)."""
    rules = load_rules("standard")
    from cribsim.games.cribbage.engine import play_game

    for i in range(4):
        a = play_game(rules, [ExpertStrategy(random.Random(i), peg_weight=0, board_from=0, rollouts=0),
                              EVStrategy(random.Random(i))], 9, (i, 0), log=True)
        b = play_game(rules, [EVStrategy(random.Random(i)), EVStrategy(random.Random(i))], 9, (i, 0), log=True)
        assert a.events == b.events


def test_the_pegging_table_covers_every_keep():
    t = peg()
    assert len(cells()) == 1820 and all(len(t[role]) == 1820 for role in ("dealer", "pone"))
    dealer = sum(t["dealer"].values()) / 1820
    pone = sum(t["pone"].values()) / 1820
    assert dealer > 0.5 and pone < -0.5  # the dealer pegs more: the pone leads, the dealer has the last card
    ranks = (9, 4, 4, 10, 0, 12)
    for cell, (i, j) in zip(kept_cells(ranks), PAIRS[6]):
        assert cell == cell_index([r for n, r in enumerate(ranks) if n not in (i, j)])


def test_the_board_recursion_by_hand():
    """Target 10, every deal the dealer pegs 1 and each show is 9: the dealer at 0 with the pone
    at 0 reaches 10 in its show (the pone's 9 does not reach), so wins; with the pone at 1 the
    pone's show reaches 10 first (R-SHOW-1) and the pone wins. Both reaching 10 in the play is
    counted half (the order within the play is not kept)."""
    win = solve([(1, 0, 9, 9)], target=10)
    assert win[0][0] == 1.0
    assert win[0][1] == 0.0
    assert solve([(5, 5, 0, 0)], target=10)[5][5] == 0.5


def test_the_shipped_board_table_is_sane():
    w = board()["dealer_wins"]
    assert len(w) == 121 and all(len(row) == 121 for row in w)
    assert 0.54 < w[0][0] < 0.58  # the first dealer's edge (ev self-play: 0.565)
    assert w[120][0] == 1.0  # one point wins; the pone cannot reach 121 from 0 before the dealer scores
    # more points never hurt: allow the sampling noise of a few hundredths
    assert all(w[d + 5][p] >= w[d][p] - 0.03 for d in range(0, 115, 5) for p in range(0, 121, 5))
    assert all(w[d][p + 5] <= w[d][p] + 0.03 for d in range(0, 121, 5) for p in range(0, 115, 5))


def discard_view(rules, seat, dealer, thrown, scores):
    view = rules.program.observation(seat, seat, rules, (0, 1))
    view.dealer, view.crib_owner, view.discarded, view.scores = dealer, dealer, tuple(thrown), tuple(scores)
    return view


def test_a_deal_rollout_scores_the_play_heels_and_show_as_the_rules_do():
    rules = load_rules("standard")
    ev = EVStrategy(random.Random(0))
    rng = random.Random(4)
    for _ in range(30):
        deck = rng.sample(range(52), 13)
        kept = [deck[0:4], deck[4:8]]
        crib, starter = deck[8:12], deck[12]
        view = discard_view(rules, 1, 0, crib[:2], (0, 0))
        side, scores = DealRollout(view, ev.one_ply, (10_000, 10_000)).run(kept, kept, crib, starter)
        view.starter = starter
        play = PlayRollout(view, ev.one_ply)
        play.at_start = True
        play.g.obs[0].discarded = tuple(crib[2:])  # the other seat knows its own discards in both
        pegged = play.run(kept)
        heels = 2 if starter >> 2 == 10 else 0  # R-START-2: a jack turned gives the dealer 2
        assert side == -1
        assert scores == [pegged[0] + heels + show_points(kept[0], starter) + show_points(crib, starter, True),
                          pegged[1] + show_points(kept[1], starter)]


def test_the_pone_counts_first_in_a_rollout():
    """R-SHOW-1, R-WIN-1: both would pass 121 in the show; the pone's hand is counted first."""
    rules = load_rules("standard")
    ev = EVStrategy(random.Random(0))
    pone, dealer = C("4C 4D 6C 6D"), C("7C 7D 8C 8D")  # with the 5S: 24 and 12 (with 5-7-8 runs: more)
    crib = C("KS QS 2H 9H")
    view = discard_view(rules, 0, 0, crib[:2], (105, 105))
    kept = [dealer, pone]
    side, scores = DealRollout(view, ev.one_ply, (121, 121)).run(kept, kept, crib, C("5S")[0])
    assert side == 1 and scores[1] >= 121 and scores[0] < 121


def test_the_board_takes_the_points_that_win():
    """At 119 against 120 the card that makes fifteen (2 points, R-PEG-4) wins the game now
    (R-WIN-1): the board lays it even where the points rule would not, and so does the expert."""
    o = obs_for("8D KC 2H 4S", seat=0, dealer=0, count=7, pile="7S", played=((1, C("7S")[0]),), starter="3C")
    o.scores = (119, 120)
    o.discarded = tuple(C("AC QD"))
    e = ExpertStrategy(random.Random(0), board_samples=8)
    assert e.on_board(o)
    assert e.board_play(o, C("KC")[0]) == C("8D")[0]
    assert e.play(o) == C("8D")[0]


def test_no_board_outside_the_tables_rules():
    for name in ("five_card", "short_game_61", "three_player"):
        r = load_rules(name)
        o = r.program.observation(0, r.side_of[0], r)
        o.scores = tuple(r.target - 1 for _ in r.sides)
        assert not ExpertStrategy(random.Random(0)).on_board(o)


def test_pegging_value_moves_the_discard():
    """A huge peg_weight makes the table decide: the keep with the best pegging value wins."""
    rng = random.Random(2)
    e = ExpertStrategy(random.Random(0), peg_weight=1000, board_from=0, rollouts=0)
    table = peg()
    for k in range(20):
        o = random_discard_obs(rng, k % 2)
        role = "dealer" if o.seat == o.dealer else "pone"
        thrown = e.discard(o)
        kept = sorted(c >> 2 for c in o.hand if c not in thrown)
        best = max(table[role][",".join(map(str, sorted(c >> 2 for c in keep)))]
                   for keep in combinations(o.hand, 4))
        assert table[role][",".join(map(str, kept))] == pytest.approx(best, abs=0.01)


def test_dealstats_counts_every_deal_as_the_summary_does_and_open_deals_by_their_start(tmp_path, capsys):
    """``cribsim dealstats``: over every deal its figures are the summary's (points by role and
    source over deals, from the engine's tallies); the open deals are those that start with both
    scores at 70 or less, which the end of the game (R-WIN-1) cannot cut short."""
    import csv
    import json

    from cribsim.cli.main import main
    from cribsim.tournament.config import load_experiment
    from cribsim.tournament.runner import run_experiment

    cfg = tmp_path / "d.yaml"
    cfg.write_text("name: d\nlineup: [ev, greedy]\nmatches: 12\nseed: 2\nrecord: all\n")
    out = tmp_path / "d"
    run_experiment(load_experiment(cfg), out, serial=True, quiet=True, progress=False, report=False)
    assert main(["dealstats", str(out), "--quiet"]) == 0
    table = {r["points per deal"]: r for r in csv.DictReader(open(tmp_path / "d-dealstats" / "dealstats.csv"))}
    games = [g for d in match_dicts(out) for g in d["games"]]
    deals = sum(g["deals"] for g in games)
    for role, key in ((0, "dealer"), (1, "pone")):
        for src in ("peg", "hand"):
            every = sum(g["points"][src][role] for g in games) / deals
            assert float(table[f"{key} {src}"]["every deal"]) == pytest.approx(every, abs=1e-3)
    starts = [unflat_trail(g["trail"], g)[2 * k] for g in games for k in range(g["deals"])]
    assert int(table["dealer hand"]["open deals counted"]) == sum(max(s) <= 70 for s in starts)
    assert "dealstats.md" in json.loads((tmp_path / "d-dealstats" / ".cribsim-analysis.json").read_text())["files"]
    assert main(["dealstats", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.startswith("cribsim: ")


class _Spy(EVStrategy):
    """ev, telling the test what it keeps and throws."""

    def __init__(self, rng, seen):
        super().__init__(rng)
        self.seen = seen

    def discard(self, obs):
        thrown = super().discard(obs)
        self.seen["thrown"], self.seen["kept"] = thrown, [c for c in obs.hand if c not in thrown]
        return thrown


def test_the_reading_never_refuses_the_hand_an_ev_player_holds():
    """Replaying the play so far (R-PEG-1..5: go, 31, the reset) with the cards an ``ev``
    player really kept has it lay, at every turn, what it laid; hands drawn at random are often
    refused (the reading tells something). Ties between cards of equal value (a jack, a king)
    are read either way: the order a player holds its cards in is not seen."""
    from cribsim.games.cribbage.engine import play_game
    from strategies.expert import Reader, ReadingMC
    from strategies.mc import unseen_cards

    rules = load_rules("standard")
    seen: dict = {}
    checked, refused, drawn = [0], [0], [0]

    class Checker(ReadingMC):
        def play(self, obs):
            other = 1 - obs.seat
            laid = [c for s, c in obs.played if s == other]
            if laid:
                reader = Reader(obs, unseen_cards(obs), self)
                held = [c for c in seen["kept"] if c not in laid]
                assert reader.plays_as_ev(held, seen["thrown"])
                checked[0] += 1
                for _ in range(5):  # any hand holding the laid cards, thrown as ev would
                    six = laid + self.rng.sample(reader.pool, 6 - len(laid))
                    reader.view.hand = tuple(six)
                    thrown = reader.discard(reader.view)
                    if not any(c in thrown for c in laid):
                        drawn[0] += 1
                        refused[0] += not reader.plays_as_ev([c for c in six if c not in thrown + laid], thrown)
            return super().play(obs)

    for i in range(12):
        play_game(rules, [Checker(random.Random(i), 2, True, 0.0), _Spy(random.Random(i), seen)], 9, (i, 0))
    assert checked[0] > 200
    assert 0.2 * drawn[0] < refused[0] < drawn[0]


def test_the_reading_refuses_a_hand_that_would_not_have_said_go():
    """The pone (us, seat 0) laid 8D and 8S, the dealer QD; at 26 both said go (R-PEG-2), the
    dealer holding nothing worth 5 or less; after the reset (R-PEG-3) it led QH. A drawn hand
    with the 3H could have played at 26: it is refused even when every difference from ``ev``'s
    rule may pass (slack 1), and a hand of high cards stands."""
    from strategies.expert import Reader, ReadingMC
    from strategies.mc import unseen_cards

    laid = ((0, C("8D")[0]), (1, C("QD")[0]), (0, C("8S")[0]), (1, C("QH")[0]))
    o = obs_for("KC KH", seat=0, dealer=1, count=10, pile="QH", played=laid, starter="9C")
    o.gos = ((1, 26), (0, 26))
    o.discarded = tuple(C("AC 2C"))
    reader = Reader(o, unseen_cards(o), ReadingMC(random.Random(0), 2, True, 1.0))
    assert not reader.plays_as_ev(C("3H QC"), C("4D 5D"))
    assert reader.plays_as_ev(C("JC KS"), C("4D 5D"))
    for _ in range(50):  # every draw holds nothing the gos rule out, and none of the cards seen
        held = reader.draw(24)
        assert held is not None and len(held) == 2 and all(c >> 2 >= 5 for c in held)
        assert not set(held) & set(C("KC KH 8D 8S QD QH AC 2C 9C"))


def test_a_deal_rollout_starts_the_deals_variant_state_afresh():
    """V-BACKTEN (both): a run where the dealer's hand scored nothing must not send the dealer
    back ten in the next run, whose hand scores: each run is a deal of its own (the variants'
    per-deal notes are emptied, as a new deal empties them)."""
    rules = load_rules("back_ten")
    ev = EVStrategy(random.Random(0))
    view = discard_view(rules, 0, 0, C("9C 7S"), (60, 60))
    roll = DealRollout(view, ev.one_ply, (121, 121))
    crib, starter = C("9C 7S JH 4C"), C("KS")[0]  # a crib of nothing with the KS
    nothing, something = [C("TD 2H 6C AD"), C("3C 3D 6H 8S")], [C("5C 5D 5H QD"), C("3C 3D 6H 8S")]
    fresh = DealRollout(view, ev.one_ply, (121, 121)).run(something, something, crib, starter)
    side, scores = roll.run(nothing, nothing, crib, starter)  # the dealer's hand and crib: nothing
    assert scores[0] < 60  # back ten
    assert roll.run(something, something, crib, starter) == fresh


def test_a_score_below_zero_is_read_on_the_board_as_zero():
    """A bid paid (the auction) can take a score below zero: the board reads it as 0, in Python
    and in the lane alike (tests/cribbage/test_native.py holds the two boards equal)."""
    from cribsim.ruleset import load_rules
    from cribsim.strategy import factory
    from tests.cribbage.variants.helpers import observe

    e = factory("expert")(random.Random(1))
    obs = observe(load_rules("auction"), seat=0)
    obs.dealer, obs.scores = 0, (90, -6)
    assert e.on_board(obs)
    # (not read from the end of a row, as an index of -6 would: 115)
    assert e.chance(obs, -1, [90, -6]) == e.chance(obs, -1, [90, 0]) != e.chance(obs, -1, [90, 115])
