"""The OpenSpiel bridge (cribsim.env.spiel): OpenSpiel's own random simulation test for every
shipped rules file, the chance nodes (first player, each card, the starter after the
discards), the players' legal actions, copies of a state made by OpenSpiel, and OpenSpiel's own
information-set MCTS and evaluate_bots on a registered game (the state resamples what a player
cannot see)."""

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

from cribsim.env.spiel import register
from cribsim.errors import CribsimError
from cribsim.ruleset import preset_names

NAMES = register()


@pytest.mark.parametrize("name", preset_names())
def test_openspiels_random_simulation_test_passes_for_every_shipped_rules_file(name):
    game = pyspiel.load_game(f"cribsim_{name}", {"max_steps": 3000})  # random bids can go on for ever
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_every_rules_file_is_registered_and_any_file_loads_through_the_rules_parameter():
    assert set(NAMES) == {"cribsim"} | {f"cribsim_{n}" for n in preset_names()}
    assert pyspiel.load_game("cribsim", {"rules": "four_player_partners"}).num_players() == 4
    assert "cribsim_auction" in pyspiel.registered_names()


def test_chance_nodes_deal_each_card_and_turn_the_starter_after_the_discards():
    game = pyspiel.load_game("cribsim_standard")
    s = game.new_initial_state()
    assert s.is_chance_node() and [o for o, _ in s.chance_outcomes()] == [0, 1]  # who deals first
    s.apply_action(1)
    dealt = 0
    while s.is_chance_node():
        outcomes = s.chance_outcomes()
        assert len(outcomes) == 52 - dealt and abs(sum(p for _, p in outcomes) - 1) < 1e-9
        s.apply_action(outcomes[dealt][0] if dealt < 1 else random.Random(dealt).choice(outcomes)[0])
        dealt += 1
    assert dealt == 12  # two hands of six; the starter waits
    assert s.current_player() == 0 and s.legal_actions(1) == []
    for _ in range(2):  # each seat's two discards: two tokens each
        for _ in range(2):
            s.apply_action(s.legal_actions()[0])
    assert s.is_chance_node() and len(s.chance_outcomes()) == 40  # the starter, from the 40 unseen cards


def test_a_copy_made_by_openspiel_plays_on_as_the_original():
    game = pyspiel.load_game("cribsim_jokers")
    s = game.new_initial_state()
    rng = random.Random(4)
    copies = []
    while not s.is_terminal():
        if rng.random() < 0.03:
            copies.append((s.clone(), len(s.history())))
        s.apply_action(rng.choice([o for o, _ in s.chance_outcomes()]) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))
    assert copies
    for twin, at in copies:
        for a in s.history()[at:]:
            twin.apply_action(a)
        assert twin.returns() == s.returns() and str(twin) == str(s)


# ---- OpenSpiel's own algorithms on a registered game -----------------------------------------------

def _random_states(name, seed):
    """Every decision state of a random game of ``name``, with a copy of each."""
    game = pyspiel.load_game(name)
    s, rng = game.new_initial_state(), random.Random(seed)
    while not s.is_terminal():
        if not s.is_chance_node():
            yield s
        s.apply_action(rng.choice([o for o, _ in s.chance_outcomes()]) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))


def _others(state, player):
    """The cards the other seats hold."""
    g = state.table.state
    return [sorted(g.hands[s]) for s in range(g.n) if s != player]


@pytest.mark.parametrize("name", ["cribsim_standard", "cribsim_three_player"])
def test_a_resampled_state_is_one_the_player_cannot_tell_from_the_real_one(name):
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    hidden_differ = 0
    for s in _random_states(name, 3):
        p = s.current_player()
        w = s.resample_from_infostate(p, sampler)
        assert w.current_player() == p and w.information_state_string(p) == s.information_state_string(p)
        assert w.observation_tensor(p) == s.observation_tensor(p) and w.legal_actions() == s.legal_actions()
        hidden_differ += _others(w, p) != _others(s, p)
        w.apply_action(w.legal_actions()[-1])  # it plays on
    assert hidden_differ > 0


def test_a_state_is_resampled_only_for_the_player_to_act_and_where_worlds_can_be_drawn():
    s = next(_random_states("cribsim_standard", 1))
    with pytest.raises(CribsimError, match=r"^cribsim: a state is resampled for the player to act only"):
        s.resample_from_infostate(1 - s.current_player(), pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
    s = next(_random_states("cribsim_auction", 1))
    with pytest.raises(CribsimError, match=r"^cribsim: cannot resample: cannot sample auction: it asks bid"):
        s.resample_from_infostate(s.current_player(), pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))


def _ismcts(game, seed, simulations=4):
    rs = np.random.RandomState(seed)
    return ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, simulations, random_state=rs)


def test_openspiels_own_ismcts_bot_plays_whole_games_on_a_registered_game():
    """OpenSpiel's ISMCTSBot, unwrapped: it draws its worlds with the state's own
    resample_from_infostate (no resampler set)."""
    game = pyspiel.load_game("cribsim_short_game_61")
    for g in range(3):
        bots, s, rng = [_ismcts(game, g), _ismcts(game, g + 10)], game.new_initial_state(), random.Random(g)
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice([o for o, _ in s.chance_outcomes()]))
            else:
                action = bots[s.current_player()].step(s)
                assert action in s.legal_actions()
                s.apply_action(action)
        assert sorted(s.returns()) == [-1.0, 1.0]


class RestartingISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTSBot with the restart_at Python's evaluate_bots calls (it has none)."""

    def restart_at(self, state):
        self.reset()


def test_evaluate_bots_plays_ismcts_on_a_registered_game():
    game = pyspiel.load_game("cribsim_short_game_61")
    for g in range(2):
        returns = pyspiel.evaluate_bots(game.new_initial_state(), [_ismcts(game, g), _ismcts(game, g + 10)], g)
        assert sorted(returns) == [-1.0, 1.0]
    bots = [RestartingISMCTS(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(s)), 2.0, 4,
                             random_state=np.random.RandomState(s)) for s in (1, 2)]
    assert sorted(evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))) == [-1, 1]
