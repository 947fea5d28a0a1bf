"""The vector environment (cribsim.games.cribbage.vector) against the AEC environment: the same games at the
same seed addresses and answers, step for step (observations, masks, actors, rewards, the end
of each game, its scores and winner), with its same-step autoreset, its opponents in the lane,
and the rules it refuses."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

from cribsim.env import raw_env
from cribsim.env.table import StrategySeat
from cribsim.errors import CribsimError
from cribsim.games.cribbage.native import lane
from cribsim.games.cribbage.vector import VectorEnv, refusal
from cribsim.ruleset import load_rules, preset_names

pytestmark = pytest.mark.skipif(lane.module() is None, reason="the native lane is not built")
SUPPORTED = [n for n in preset_names() if refusal(load_rules(n)) is None]


def choose(mask: np.ndarray, u: float) -> int:
    """The legal token a uniform draw ``u`` picks: one policy for both environments."""
    legal = np.flatnonzero(mask)
    return int(legal[int(u * len(legal))])


@dataclass
class Step:
    """One answer of an agent's seat: what it saw, and what the step gave."""

    obs: np.ndarray
    mask: np.ndarray
    actor: int
    reward: np.ndarray
    over: bool = False
    scores: tuple[int, ...] = ()
    winner: int = -1


def aec_game(env, seats: dict[int, StrategySeat], seed: int, match: int, rng: np.random.Generator) -> Iterator[Step]:
    """The AEC environment's game at (seed, match): each agent step with the rewards of the steps up
    to the next agent's (the opponents' answers between; what came before the first counts on it)."""
    env.reset(seed=seed, options={"match": match})
    for s in seats.values():
        s.new_game(seed, (match, 0))
    carry, last = np.zeros(len(env.possible_agents)), None
    while True:
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        if env.terminations[agent] or env.truncations[agent]:
            assert last is not None
            last.over, last.scores, last.winner = True, env.table.scores(), env.table.winner()
            yield last
            return
        if seat in seats:
            env.step(seats[seat].token())
            rewards = np.array([env.rewards[a] for a in env.possible_agents])
            if last is None:
                carry += rewards
            else:
                last.reward += rewards
            continue
        if last is not None:
            yield last
        o = env.observe(agent)
        env.step(choose(o["action_mask"], rng.random()))
        last = Step(o["observation"], o["action_mask"], seat,
                    np.array([env.rewards[a] for a in env.possible_agents]) + carry)
        carry[:] = 0


def vector_steps(v: VectorEnv, seed: int, steps: int) -> list[list[Step]]:
    """Each env's steps under the same policy (env i draws from its own generator, as the AEC
    game of that env does)."""
    rngs = [np.random.default_rng([seed, i]) for i in range(v.num_envs)]
    obs, _ = v.reset(seed=seed)
    out: list[list[Step]] = [[] for _ in range(v.num_envs)]
    for _ in range(steps):
        actions = np.array([choose(obs["action_mask"][i], rngs[i].random()) for i in range(v.num_envs)])
        before = obs
        obs, rewards, term, trunc, infos = v.step(actions)
        assert not trunc.any()
        for i in range(v.num_envs):
            out[i].append(Step(before["observation"][i], before["action_mask"][i], int(before["actor"][i]),
                               rewards[i], bool(term[i]), tuple(int(x) for x in infos["scores"][i]),
                               int(infos["winner"][i])))
    return out


def same_games(name: str, reward: str, seed: int, num_envs: int, steps: int,
               opponents: dict[int, str] | None = None) -> int:
    """Both environments from the same seed and policy, compared step by step; the games ended."""
    rules = load_rules(name)
    opponents = opponents or {}
    v = VectorEnv(name, num_envs=num_envs, reward=reward, opponents=opponents)
    got = vector_steps(v, seed, steps)
    env = raw_env(name, reward=reward)
    seats = {s: StrategySeat(env.table, spec, s, rules) for s, spec in opponents.items()}
    ended = 0
    for i, steps_i in enumerate(got):
        rng = np.random.default_rng([seed, i])
        k, at = 0, 0
        while at < len(steps_i):
            for ref in aec_game(env, seats, seed, i + k * num_envs, rng):
                if at == len(steps_i):
                    break
                mine = steps_i[at]
                where = f"{name} seed {seed} env {i} game {k} step {at}"
                assert mine.actor == ref.actor, where
                assert np.array_equal(mine.mask, ref.mask), where
                assert np.array_equal(mine.obs, ref.obs), where
                assert np.array_equal(mine.reward, ref.reward), (where, mine.reward, ref.reward)
                assert mine.over == ref.over, where
                if ref.over:
                    assert (mine.scores, mine.winner) == (ref.scores, ref.winner), where
                    ended += 1
                at += 1
            k += 1
    return ended


@pytest.mark.parametrize("reward", ["game", "points"])
@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_the_standard_game_steps_as_the_aec_environment(seed, reward):
    assert same_games("standard", reward, seed, num_envs=3, steps=400) >= 3  # each env past its first game


@pytest.mark.parametrize("opponents,reward", [({1: "random"}, "points"), ({0: "greedy"}, "game"),
                                              ({1: "ev"}, "points"), ({0: "hoyle"}, "points")])
def test_opponents_in_the_lane_play_as_strategy_seats(opponents, reward):
    assert same_games("standard", reward, 5, num_envs=2, steps=250, opponents=opponents) >= 2


@pytest.mark.parametrize("name", [n for n in SUPPORTED if n != "standard"])
def test_every_rules_file_it_plays_steps_as_the_aec_environment(name):
    same_games(name, "points", 3, num_envs=2, steps=150)


def test_the_rules_files_it_plays():
    assert {"standard", "short_game_61", "five_card", "seven_card", "toss_fives", "lowball", "three_player",
            "four_player_partners", "five_player_continued", "three_player_team", "back_ten", "nineteen",
            "muggins"} <= set(SUPPORTED)
    for name in ("auction", "jokers", "canadian_doubles", "three_player_team_inspect", "fives_threes"):
        with pytest.raises(CribsimError, match=f"^cribsim: the vector environment does not play {name}: ") as e:
            VectorEnv(name)
        assert "\n" not in str(e.value)


def test_an_illegal_token_is_refused_and_no_game_moves():
    v = VectorEnv("standard", num_envs=2, copy=False)
    obs, _ = v.reset(seed=3)
    before = obs["observation"].copy()
    legal = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
    illegal = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    with pytest.raises(CribsimError, match=f"^cribsim: env 1: token {illegal} is not legal"):
        v.step(np.array([legal[0], illegal]))
    assert np.array_equal(obs["observation"], before)
    with pytest.raises(CribsimError, match="one action an env"):
        v.step(np.array(legal + legal))
    v.step(np.array(legal))


def test_a_reset_without_a_seed_plays_match_keys_not_played_yet():
    """After a seeded reset and some games, reset() starts every env at a new match key: its first
    observation is the AEC environment's there."""
    v = VectorEnv("standard", num_envs=2)
    played = max(sum(s.over for s in steps) for steps in vector_steps(v, 4, 300))
    assert played >= 1
    obs, _ = v.reset()
    env = raw_env("standard")
    for i in range(2):
        env.reset(seed=4, options={"match": 2 * (played + 1) + i})
        assert np.array_equal(obs["observation"][i], env.observe(env.agent_selection)["observation"])
