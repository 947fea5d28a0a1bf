"""The state machine every driver uses (issue "Engine core, second edition"): the generic
interface (start, actor, decision, legal_actions, apply, observation, clone) plays the same game
as the tournament's driver; search rollouts run on the engine's own play phase, so they follow
the variant being played; strategies see what a player sees (their own discards, the match
state, the last show)."""

import random

import pytest

from cribsim.errors import IllegalMove
from cribsim.games.cribbage.engine import GameState, play_game
from cribsim.games.cribbage.engine.rollout import PlayRollout
from cribsim.games.cribbage.match import play_match
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, preset_names
from cribsim.strategy import factory
from tests.cribbage.helpers import C

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

CRIBBAGE = [n for n in preset_names() if load_rules(n).game == "cribbage"]


@pytest.mark.parametrize("preset", CRIBBAGE)
def test_the_generic_interface_plays_the_tournaments_game(preset):
    # the same strategies answering through start/apply give the same events as play_game
    rules = load_rules(preset)
    for key in range(3):
        strategies = make_strategies([factory("random")] * rules.players)
        want = play_game(rules, strategies, 7, (key, 0), first_dealer=1, log=True)
        strategies = make_strategies([factory("random")] * rules.players)
        from cribsim.games.cribbage.engine import seed_strategies

        seed_strategies(strategies, 7, (key, 0))
        g = GameState(rules, 7, (key, 0), 1, log=True).start()
        steps = 0
        while not g.is_terminal:
            obs = g.observation()
            assert obs.seat == g.actor
            legal = g.legal_actions()
            answer = getattr(strategies[g.actor], g.decision, None)
            action = answer(obs) if answer else g.program.decisions[g.decision].default(strategies[g.actor], obs)
            if g.decision == "play":
                assert (action if not isinstance(action, tuple) else action) in legal or \
                    rules.deck_size > 52
            g.apply(action)
            steps += 1
        assert g.events == want.events and g.over.side >= 0 and steps > 10


def test_an_illegal_action_leaves_the_state_as_it_was_and_clone_replays():
    rules = load_rules("standard")
    g = GameState(rules, 3, (0, 0), 0, log=True).start()
    assert g.decision == "discard" and len(g.legal_actions()) == 15  # 6 choose 2
    hand = g.observation().hand
    with pytest.raises(IllegalMove):
        g.apply([hand[0], hand[0]])
    with pytest.raises(IllegalMove):
        g.apply([99, 98])
    g.apply(list(hand[:2]))
    twin = g.clone()
    assert (twin.actor, twin.decision, twin.observation().hand) == (g.actor, g.decision, g.observation().hand)
    twin.apply(twin.legal_actions()[0])
    assert twin.history != g.history  # independent copies


def test_a_five_card_rollout_never_plays_past_the_first_31_or_go():
    # V-FIVECARD: "the play goes to 31 only once"; mc's rollouts run the engine's own play phase
    rules = load_rules("five_card")
    view = rules.program.observation(0, 0, rules)
    view.dealer, view.crib_owner, view.starter = 1, 1, C("KD")[0]
    view.hand = view.legal = tuple(C("TH 9S 8C"))
    laid = []

    def policy(obs):
        laid.append(obs.legal[0])
        return obs.legal[0]

    rollout = PlayRollout(view, policy)
    pegged = rollout.run([C("TH 9S 8C"), C("TS 9D 7C")], C("TH")[0])
    # Bob leads... here Alice (seat 0) lays TH, Bob TS (20, pair 2), Alice 9S (29), Bob go,
    # Alice go: 1 for the go to Alice, and the play is over: nobody lays again
    assert laid == [C("TS")[0], C("9S")[0]]
    assert pegged == [1, 2]
    standard = load_rules("standard")
    v2 = standard.program.observation(0, 0, standard)
    v2.dealer, v2.crib_owner, v2.starter = 1, 1, C("KD")[0]
    laid.clear()
    PlayRollout(v2, policy).run([C("TH 9S 8C"), C("TS 9D 7C")], C("TH")[0])
    assert len(laid) == 5  # the standard game plays on after the go: 9D, 8C, 7C


def test_mc_follows_the_five_card_rule():
    # mc's decisions in five-card games come from rollouts that stop at the first reset: its
    # rollouts never lay a card after the first 31 or go (checked through the engine's events).
    # The engine's rollouts, so the native lane's searches are off here; tests/cribbage/
    # test_native.py holds those to these, five-card included.
    from cribsim.games.cribbage.engine import rollout
    from cribsim.games.cribbage.native import lane

    rules = load_rules("five_card")
    seen = []
    real = rollout.PlayRollout.run

    def run(self, hands, first=None):
        scores = real(self, hands, first)
        seen.append(sum(len(h) for h in self.g.resume.hands))
        return scores

    mc = factory("mc", {"rollouts": 4, "discard_rollouts": 4})
    before = lane.allow_rollouts(False)
    try:
        rollout.PlayRollout.run = run
        play_game(rules, make_strategies([mc, factory("ev")]), 3, (0, 0))
    finally:
        rollout.PlayRollout.run = real
        lane.allow_rollouts(before)
    assert seen and any(left > 0 for left in seen)  # cards were left unplayed: the play stopped


def test_a_strategy_sees_its_discards_the_match_state_and_the_last_show():
    rules = load_rules("match_acc")
    seen = []


    from strategies.random_play import RandomStrategy

    class Spy(RandomStrategy):
        def play(self, obs):
            seen.append((obs.game_no, obs.deal_no, obs.match_score, obs.discarded, obs.shown))
            return super().play(obs)

    m = play_match(rules, [lambda rng: Spy(rng), factory("random")], 2, 0)
    assert len(m.games) >= 2
    games = sorted({s[0] for s in seen})
    assert games == list(range(len(m.games)))
    later = [s for s in seen if s[0] == 1]
    assert later and all(sum(s[2]) > 0 for s in later)  # game points of the first game are known
    assert all(len(s[3]) == 2 for s in seen)  # its own two discards, during the play
    firsts = [s for s in seen if s[1] == 0]
    assert all(s[4] == () for s in firsts if s[0] == 0)
    shown = [s[4] for s in seen if s[1] >= 1]
    assert shown and all(len(x[0]) == 2 and len(x[1]) == 4 for x in shown)  # two hands, the crib, a starter


def test_ev_counts_its_own_discards_as_seen():
    # a card thrown into the crib cannot be in the opponent's hand: holding 7C with 7S and 7D in
    # the crib, only one 7 is left to pair a 7 lead, so ev leads the 7 (not knowing its discards,
    # it fears three 7s and leads the ten)
    rules = load_rules("standard")
    ev = factory("ev")(random.Random(0))
    o = rules.program.observation(0, 0, rules)
    o.dealer, o.crib_owner, o.starter = 1, 1, C("TC")[0]
    o.hand = o.legal = tuple(C("TH QH 7C QD"))
    o.discarded = tuple(C("7S 7D"))
    assert ev.one_ply(o) == C("7C")[0]
    o.discarded = ()
    assert ev.one_ply(o) == C("TH")[0]


def test_a_card_of_the_wrong_type_is_an_illegal_move():
    # 5.0 == 5 in Python, but it is not a card: the engine refuses it as illegal (a forfeit in a
    # tournament), in the play and in the discard, rather than crashing on it later
    rules = load_rules("standard")
    g = GameState(rules, 3, (0, 0), 0).start()
    hand = g.observation().hand
    with pytest.raises(IllegalMove):
        g.apply([float(hand[0]), hand[1]])
    from strategies.random_play import RandomStrategy

    class Floaty(RandomStrategy):
        def play(self, obs):
            return float(super().play(obs))

    with pytest.raises(IllegalMove, match="played"):
        play_game(rules, [Floaty(random.Random(0)), Floaty(random.Random(1))], 1, (0, 0))
