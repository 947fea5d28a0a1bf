"""A designer's variant in the native lane (issue 41, item 3): a variant without a port whose
only change is an ``after_count`` hook plays its rules in the lane, which calls the hook in
Python at each count with a state that offers what the engine's offers there (the rules, the
seats, the dealer, the scores, the cards counted, ``award``, ``metric``) and nothing more. The
games are the Python engine's, field by field; a hook that raises stops the game with its own
exception; a hook's state kept after its game refuses to be read."""

import random
from pathlib import Path

import pytest

from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.native import lane
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.test_native import _lineups, _same_games, c_against_python

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
HOOKED = ("crib3", "under4", "dealer_double")

pytestmark = pytest.mark.skipif(lane.module() is None, reason=f"the native lane is {lane.status()}")


@pytest.mark.parametrize("name", HOOKED)
def test_a_hook_variant_plays_the_engines_games_in_the_lane(name):
    rules = load_rules(str(EXAMPLES / f"{name}.yaml"))
    assert lane.refusal(rules) is None and lane.hooked(rules)
    for names in _lineups(2):
        _same_games(rules, names, 20261206, [(m, m % 3) for m in range(12)])


def test_hooks_with_a_counting_model_and_beside_a_built_in_hook_play_the_same_games():
    """After back ten's own after_count (ported) the hook of one's own still sees the points counted;
    seats that overlook points (the counting model) too."""
    rules = rules_from_mapping({"extends": str(EXAMPLES / "under4.yaml"), "name": "under4_back_ten",
                                "back_ten": "both"}, str(EXAMPLES / "x.yaml"))
    assert lane.refusal(rules) is None
    _same_games(rules, ("ev", "greedy"), 7, [(m, 0) for m in range(20)])
    _same_games(load_rules(str(EXAMPLES / "crib3.yaml")), ("greedy", "hoyle"), 7, [(m, 0) for m in range(20)],
                counting=True)


BROKEN = """
from cribsim.games.cribbage.engine.variant import Variant


class Broken(Variant):
    name = "broken_hook"
    rule = "BROKEN-1"
    summary = "a hook that divides by zero"

    @staticmethod
    def after_count(g, seat, points, source):
        if points:
            return points / 0
"""


def test_a_hook_that_raises_stops_the_game_with_its_own_exception(tmp_path):
    (tmp_path / "broken_hook.py").write_text(BROKEN)
    (tmp_path / "broken.yaml").write_text("extends: standard\nname: broken\nvariants: ['broken_hook:Broken']\n")
    rules = load_rules(str(tmp_path / "broken.yaml"))
    native = lane.fast_lane(rules, [("greedy", {}), ("greedy", {})])
    with pytest.raises(ZeroDivisionError):
        native.play_game(1, (0, 0), None, (0, 1))
    with pytest.raises(ZeroDivisionError):
        play_game(rules, [factory("greedy")(random.Random()) for _ in range(2)], 1, (0, 0))


def test_a_hooks_state_is_only_its_games(monkeypatch):
    rules = load_rules(str(EXAMPLES / "crib3.yaml"))
    variant = lane.hooked(rules)[0]
    kept = []
    real = variant.after_count

    def keeping(g, seat, points, source):
        kept.append(g)
        assert set(g.__dict__) <= {"rules", "n", "side_of", "game", "_lane", "_metrics", "notes"}
        assert len(g.kept) == 2 and len(g.crib) == 4 and len(g.scores) == 2 and g.dealer in (0, 1)
        real(g, seat, points, source)

    monkeypatch.setattr(variant, "after_count", staticmethod(keeping))
    native = lane.fast_lane(rules, [("ev", {}), ("ev", {})])
    native.play_game(1, (0, 0), None, (0, 1))
    with pytest.raises(ValueError):
        print(kept[-1].scores)  # the game is over: its state is gone


def test_a_hook_before_a_built_in_one_plays_in_python():
    """The lane counts its own after_count hooks first: rules that name one's own before them are
    refused, and play in Python (the run says why)."""
    rules = rules_from_mapping({"extends": "standard", "name": "first", "variants": ["crib3:CribThrice", "back_ten"]},
                               str(EXAMPLES / "x.yaml"))
    order = [v.name for v in rules.modules if v.after_count is not None]
    assert (lane.refusal(rules) is None) == (order.index("crib3") > order.index("back_ten"))


SHOW_AND_PLAY = """
from cribsim.games.cribbage.engine.phases import count_hand
from cribsim.games.cribbage.engine.variant import Variant


class ShowAndHeels(Variant):
    name = "show_and_heels"
    rule = "SHOW-HEELS-1"
    summary = "a show of its own and heels of its own"
    count_hand = staticmethod(count_hand)

    @staticmethod
    def heels(g, card):
        return False
"""


def test_the_play_is_searched_in_the_lane_where_a_variant_changes_the_show_or_what_comes_before_the_play(tmp_path):
    """``lane.play_refusal``: a variant of one's own whose only hooks are of the show (crib_pone's
    and no_pairs' ``count_hand``, crib3's ``after_count``), or whose only changes are phases
    before the play and their decisions (pone_crib's offer of the crib after the deal, a question
    after the discard), leaves the play to the lane's searches, while its games (and whatever
    runs on to a show) stay out of the lane; a variant that also changes anything else (here its
    heels) keeps the searches out too."""
    from tests.cribbage.test_adaptive import LATE_QUESTION
    for name in ("crib_pone", "no_crib", "no_pairs", "pone_crib"):
        rules = load_rules(str(EXAMPLES / f"{name}.yaml"))
        assert lane.play_refusal(rules) is None
        assert lane.refusal(rules) is not None and not lane.rollouts_for(rules)
    assert lane.play_refusal(load_rules(str(EXAMPLES / "crib3.yaml"))) is None
    # (under names of its own: a process registers one module and variant per name; test_adaptive's may be)
    (tmp_path / "late_question_lane.py").write_text(LATE_QUESTION.replace('name = "late_question"',
                                                                          'name = "late_question_lane"'))
    (tmp_path / "late.yaml").write_text('extends: standard\nname: late\nvariants: ["late_question_lane:Late"]\n')
    late = load_rules(str(tmp_path / "late.yaml"))
    assert lane.done_before_the_play(late) >= {"phase after_discard", "decision late"}
    assert lane.play_refusal(late) is None
    (tmp_path / "show_and_heels.py").write_text(SHOW_AND_PLAY)
    (tmp_path / "both.yaml").write_text('extends: standard\nname: both\nvariants: ["show_and_heels:ShowAndHeels"]\n')
    both = load_rules(str(tmp_path / "both.yaml"))
    assert "show_and_heels is not in the native lane" in (lane.play_refusal(both) or "")


@pytest.mark.parametrize("name,example", [("expert", "pone_crib"), ("expert", "crib_pone"), ("adaptive", "pone_crib")])
def test_the_search_in_c_is_the_pythons_decision_by_decision_under_a_variant_of_ones_own(name, example, monkeypatch):
    """Where the lane searches the play of a designer's variant whose games stay in Python (a
    decision before the play, a hook of the show), the search in C answers every play decision
    of real games as the Python search does from the same generator state, and leaves the
    generator in the same state."""
    from strategies.mc import MCStrategy

    decisions = []
    monkeypatch.setattr(MCStrategy, "play", c_against_python(MCStrategy.play, decisions))
    searched = c_searches(monkeypatch)
    rules, m = load_rules(str(EXAMPLES / f"{example}.yaml")), 0
    params = {"rollouts": 6, "board_from": 0}
    if name == "adaptive":
        params.update(learn_deals=20, learn_samples=20)
    while sum(decisions) < 40:
        seats = [factory(name, params, rules=(rules,))(random.Random(m)),
                 factory("ev", rules=(rules,))(random.Random(m))]
        play_game(rules, seats, 6, (m, 0))
        m += 1
    assert len(searched) >= sum(decisions)  # the "native" answers were the C search's


def test_the_start_line_says_the_searches_run_in_the_lane_where_only_the_show_is_changed():
    """A run's first line names the strategies whose searches of the play run in the lane: under a
    variant that changes only the show (crib_pone) they do, though its games and what runs on to
    a show (a keep's count, the board) stay in Python, and the line says so; under one with a
    decision of its own before the play (pone_crib) they do too, but not with the lane's searches
    off."""
    from cribsim.games.cribbage.game import GAME
    crib_pone = load_rules(str(EXAMPLES / "crib_pone.yaml"))
    names = ["adaptive", "ev", "expert"]
    assert GAME.search_note(crib_pone, names) == (
        "adaptive and expert search the play in the native lane (crib_pone: its games in Python)")
    assert GAME.search_note(crib_pone, ["ev"]) is None
    assert GAME.search_note(load_rules(str(EXAMPLES / "pone_crib.yaml")), names) == (
        "adaptive and expert search the play in the native lane (pone_crib: its games in Python)")
    assert GAME.search_note(load_rules("standard"), names) == "adaptive and expert search in the native lane"
    before = lane.allow_rollouts(False)
    try:
        assert GAME.search_note(crib_pone, names) is None
    finally:
        lane.allow_rollouts(before)


MOVED_CARDS = '''
from cribsim.games.cribbage.engine.variant import Phase, Variant


def pass_one(g):
    """After the discard the pone passes one kept card to the dealer."""
    pone = (g.dealer + 1) % g.n
    card = g.kept[pone][0]
    g.kept[pone] = tuple(g.kept[pone][1:])
    g.kept[g.dealer] = tuple(g.kept[g.dealer]) + (card,)


def one_more(g):
    """After the deal the dealer takes one of the pone's cards."""
    pone = (g.dealer + 1) % g.n
    g.hands[g.dealer] = list(g.hands[g.dealer]) + [g.hands[pone][-1]]
    g.hands[pone] = list(g.hands[pone][:-1])


class PassOne(Variant):
    name = "pass_one_lane"
    rule = "PASS-1"
    summary = "the pone passes a card to the dealer after the discard"
    players = (2,)
    phases = (Phase("after_discard", pass_one),)


class OneMore(Variant):
    name = "one_more_lane"
    rule = "MORE-1"
    summary = "the dealer takes one of the pone's six"
    players = (2,)
    phases = (Phase("after_deal", one_more),)
'''


def test_a_phase_before_the_play_that_moves_cards_plays_the_same_games_its_searches_in_python_where_a_hand_is_more(
        tmp_path, monkeypatch):
    """A designer's phase before the play that leaves a seat more cards than the rules' hand (a
    card passed after the discard, a seventh card taken after the deal): the lane's search cannot take that
    seat's view, so its searches (the play's, the keeps' rollouts) run on the engine, while the
    other seat's still run in C; every game is the one played with every search on the engine,
    and no match is forfeited (the lane's search raised on such a view)."""
    (tmp_path / "moved_cards_lane.py").write_text(MOVED_CARDS)
    for variant in ("PassOne", "OneMore"):
        (tmp_path / f"{variant}.yaml").write_text(
            f'extends: standard\nname: {variant}\nvariants: ["moved_cards_lane:{variant}"]\n')
        searched = c_searches(monkeypatch)
        _moved_cards_play_as_on_the_engine(load_rules(str(tmp_path / f"{variant}.yaml")))
        assert searched  # (the seat that holds a hand searched in C)
        monkeypatch.undo()


def c_searches(monkeypatch):
    """A list that gets an entry at each call of the lane's search of the play (``lane.mc_play``)."""
    real_mc_play, searched = lane.mc_play, []

    def counted(*args, **kwargs):
        searched.append(1)
        return real_mc_play(*args, **kwargs)

    monkeypatch.setattr(lane, "mc_play", counted)
    return searched


def _moved_cards_play_as_on_the_engine(rules):
    assert lane.play_refusal(rules) is None
    seats = {"mc": {"rollouts": 4, "discard_rollouts": 6}, "expert": {"rollouts": 4, "board_from": 0}}
    for name, params in seats.items():
        for m in range(3):
            def game(name=name, params=params, m=m):
                players = [factory(name, params, rules=(rules,))(random.Random(m)),
                           factory("ev", rules=(rules,))(random.Random(m))]
                return play_game(rules, players, 7, (m, 0))
            native = game()
            before = lane.allow_rollouts(False)
            try:
                python = game()
            finally:
                lane.allow_rollouts(before)
            assert native.__dict__ == python.__dict__, (name, m)
