"""The OpenSpiel bridge (cribsim.env.spiel): OpenSpiel's own random simulation test for every
shipped rules file, the chance nodes (first player, each card, the starter after the
discards), the players' legal actions, and copies of a state made by OpenSpiel."""

import random

import pyspiel
import pytest

from cribsim.env.spiel import register
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
