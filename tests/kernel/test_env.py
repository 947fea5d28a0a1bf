"""The PettingZoo bridge (cribsim.env): PettingZoo's own API and seed tests for every shipped
rules file, the same games as cribsim's for the same seed address, tokens, rewards, and the
engines' chance mode (the draws as steps) against their addressed decks."""

import functools
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cribsim.env import env, raw_env
from cribsim.env.table import CHANCE, Chooser, StrategySeat, load_table
from cribsim.games import game_named
from cribsim.games.fives_threes.engine import hand_tiles
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, preset_names
from cribsim.strategy import factory

pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")  # api_test's hints about dict observations
RULES = preset_names()


@pytest.mark.parametrize("name", RULES)
def test_pettingzoos_api_test_passes_for_every_shipped_rules_file(name):
    api_test(env(name), num_cycles=1000)


@pytest.mark.parametrize("name", ["standard", "canadian_doubles", "fives_threes_partners"])
def test_seeded_resets_repeat_themselves(name):
    seed_test(functools.partial(env, name), num_cycles=200)


def play_with(e, seats):
    for agent in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else seats[e.possible_agents.index(agent)].token())


@pytest.mark.parametrize("name,strategy", [("standard", "greedy"), ("auction", "greedy"), ("jokers", "greedy"),
                                           ("canadian_doubles", "greedy"), ("three_player_team_inspect", "greedy"),
                                           ("lowball", "ev"), ("fives_threes_three", "greedy"),
                                           ("jokers", "random"), ("auction", "random")])
def test_the_environment_plays_cribsims_game_at_the_same_seed_address(name, strategy):
    """Every seat a cribsim strategy answering through tokens: the same final scores and winner
    as cribsim's own play_game at (seed, match key, game). (random names a joker in any suit, plays
    either joker, and passes a bid as 0: each is spelled as the choice that means the same.)"""
    rules = load_rules(name)
    e = raw_env(name)
    seats = [StrategySeat(e.table, strategy, s, rules) for s in range(rules.players)]
    maker = factory(strategy, rules=(rules,), game=rules.game)
    for seed, key in [(5, 3), (11, 0)] + [(7, k) for k in range(30 if strategy == "random" else 0)]:
        e.reset(seed=seed, options={"match": key})
        for s in seats:
            s.new_game(seed, (key, 0))
        play_with(e, seats)
        ref = game_named(rules.game).play_game(rules, make_strategies([maker] * rules.players), seed, (key, 0))
        assert (e.table.scores(), e.table.winner()) == (tuple(ref.scores), ref.winner)


def test_every_answer_has_its_own_tokens_and_none_begins_another():
    """Canadian doubles' 3,150 ways to pass and throw, a discard, a joker's names."""
    for name, answers in (("canadian_doubles", 3150), ("standard", 15), ("jokers", 15)):
        t = load_table(name)
        t.reset(3, (0, 0))
        spelled = [c.tokens for c in t.choices()]
        assert len(set(spelled)) == len(spelled) == answers
        assert not any(a != b and b[:len(a)] == a for a in spelled for b in spelled)


def test_a_multi_token_answer_is_picked_token_by_token_with_the_mask():
    e = raw_env("standard")
    e.reset(seed=2)
    agent = e.agent_selection
    first = e.observe(agent)["action_mask"]
    hand = set(e.table.state.obs[e.table.actor].hand)
    assert set(np.flatnonzero(first)) == {c for c in hand if c != max(hand)}  # the lower card of a pair comes first
    low = min(hand)
    e.step(low)
    assert e.agent_selection == agent  # the same agent picks the second card
    second = set(np.flatnonzero(e.observe(agent)["action_mask"]))
    assert second == {c for c in hand if c > low}
    other = [a for a in e.agents if a != agent][0]
    assert not e.observe(other)["action_mask"].any()
    with pytest.raises(ValueError):
        e.step(low)  # already picked: no legal answer begins with it twice


def test_an_illegal_action_ends_the_wrapped_game_with_minus_one():
    e = env("standard")
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    agent = e.agent_selection
    e.step(bad)
    assert all(e.terminations.values()) and e.rewards[agent] == -1


@pytest.mark.parametrize("name", ["standard", "lowball", "three_player", "five_card"])
def test_rewards_game_and_points(name):
    """reward=game: +1 to the winner's seats, -1/(sides-1) to the others (lowball's winner has
    fewer points); reward=points: the rewards of a game add up to the final margin (the five-card
    game's three for last, given as the game starts, included)."""
    rng = random.Random(0)
    totals = {}
    for mode in ("game", "points"):
        e = raw_env(name, reward=mode)
        e.reset(seed=4)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            total[agent] += reward
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        totals[mode] = total
        t = e.table
        scores, sides = t.scores(), len(t.scores())
        for s, agent in enumerate(e.possible_agents):
            own = t.side_of(s)
            if mode == "game":
                assert total[agent] == pytest.approx(1.0 if own == t.winner() else -1 / (sides - 1))
            else:
                margin = scores[own] - (sum(scores) - scores[own]) / (sides - 1)
                assert total[agent] == pytest.approx(t.objective() * margin)
    if name == "lowball":
        assert totals["game"]["player_0"] == (1.0 if e.table.scores()[0] < e.table.scores()[1] else -1.0)


def test_the_observation_shows_the_seats_own_cards_and_not_the_others():
    e = raw_env("standard")
    e.reset(seed=8)
    seat = e.table.actor
    vec = e.observe(e.agent_selection)["observation"]
    lay = e.table.layout
    hand = e.table.state.hands[seat]
    assert set(np.flatnonzero(vec[lay.hand:lay.hand + 56])) == set(hand)
    other = e.table.state.hands[1 - seat]
    assert not vec[[lay.hand + c for c in other]].any()


@pytest.mark.parametrize("name", ["standard", "canadian_doubles", "jokers", "fives_threes"])
def test_chance_mode_draws_the_addressed_decks_into_the_same_game(name):
    """The engines' chance mode (OpenSpiel's deals): drawing each deal's cards (tiles) in the
    order of the addressed deck plays the game cribsim plays there."""
    rules = load_rules(name)
    game = game_named(rules.game)
    strategy = factory("greedy", rules=(rules,), game=rules.game)
    ref = game.play_game(rules, make_strategies([strategy] * rules.players), 6, (2, 0))
    t = load_table(rules)
    t.reset(6, (2, 0), chance=True)
    seats = [StrategySeat(t, "greedy", s, rules) for s in range(rules.players)]
    for s in seats:
        s.new_game(6, (2, 0))
    deal, drawn, answer = -1, 0, None
    while t.actor != -1:
        if t.actor == CHANCE:
            number = _deal_number(t)
            if number != deal:
                deal, drawn = number, 0
                deck = game.addressed_deck(rules, 6, (2, 0), deal) if rules.game == "cribbage" else None
            card = deck[drawn] if deck is not None else _tile(rules, deal, drawn)
            assert card in t.outcomes()
            t.draw(card)
            drawn += 1
        else:
            seat = seats[t.actor]
            chooser = Chooser(t.choices())
            while (answer := chooser.pick(seat.token())) is None:
                pass
            t.apply(answer.answer)
    assert t.scores() == tuple(ref.scores) and t.winner() == ref.winner


def _deal_number(t):
    return t.state.deal_no if hasattr(t.state, "deal_no") else t.state.hand_no


def _tile(rules, hand, k):
    return hand_tiles(rules.players * rules.hand_size, 6, (2, 0), hand)[k]


def test_fives_and_threes_shows_an_empty_line_at_the_lead():
    e = raw_env("fives_threes")
    e.reset(seed=1)
    t = e.table
    vec = e.observe(e.agent_selection)["observation"]
    nothing = [t.ends + 7, t.ends + 2 * 8 - 1]  # each end's "nothing laid yet" slot
    doubles = [t.ends + 2 * 8, t.ends + 2 * 8 + 1]
    assert vec[nothing].tolist() == [1.0, 1.0] and vec[doubles].tolist() == [0.0, 0.0]
