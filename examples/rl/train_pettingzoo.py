"""Train a small agent on cribsim's PettingZoo environment, on the CPU, then measure it.

The learner is the plainest there is: a linear softmax policy over the observation vector
(one weight per token and feature), trained by REINFORCE with a running baseline on the
per-point rewards (``reward="points"``: each step's change in the agent's margin), playing
against cribsim's own ``random`` strategy in both seats. It is then frozen (it takes its most
likely token) and plays 2,000 games against ``random`` and 2,000 against ``greedy``, half in
each seat, on deals the training never saw.

    python examples/rl/train_pettingzoo.py --minutes 3

Needs ``pip install cribsim[rl]``. Prints the win rates last, with 95% Wilson intervals."""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from cribsim.env import raw_env
from cribsim.env.table import StrategySeat
from cribsim.ruleset import load_rules

RULES = "standard"


class LinearPolicy:
    """Softmax over the legal tokens of ``W @ x + b``."""

    def __init__(self, size: int, tokens: int, rng: np.random.Generator) -> None:
        self.W = np.zeros((tokens, size), np.float32)
        self.b = np.zeros(tokens, np.float32)
        self.rng = rng

    def probs(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.W @ x + self.b
        z = np.where(mask > 0, z, -np.inf)
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def sample(self, x: np.ndarray, mask: np.ndarray) -> int:
        return int(self.rng.choice(len(mask), p=self.probs(x, mask)))

    def best(self, x: np.ndarray, mask: np.ndarray) -> int:
        return int(np.argmax(np.where(mask > 0, self.W @ x + self.b, -np.inf)))

    def update(self, steps: list[tuple[np.ndarray, np.ndarray, int]], advantages: np.ndarray, lr: float) -> None:
        for (x, mask, a), adv in zip(steps, advantages):
            grad = -self.probs(x, mask)
            grad[a] += 1.0  # d log pi(a) / d logits
            self.W += lr * adv * np.outer(grad, x)
            self.b += lr * adv * grad


def play(env, me: int, policy: LinearPolicy, opponent: StrategySeat, seed: int, key: int, learn: bool):
    """One game; the agent's (observation, mask, token) steps and its reward after each."""
    rules_seed, address = seed, (key, 0)
    env.reset(seed=rules_seed, options={"match": key})
    opponent.new_game(rules_seed, address)
    steps, rewards = [], []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seat = env.possible_agents.index(agent)
        if seat == me and steps:
            rewards[-1] += reward
        if term or trunc:
            env.step(None)
            continue
        if seat != me:
            env.step(opponent.token())
            continue
        x, mask = obs["observation"], obs["action_mask"]
        a = policy.sample(x, mask) if learn else policy.best(x, mask)
        steps.append((x, mask, a))
        rewards.append(0.0)
        env.step(a)
    return steps, rewards, env.table.winner() == env.table.side_of(me)


def returns(rewards: list[float], gamma: float) -> np.ndarray:
    out, g = np.zeros(len(rewards)), 0.0
    for i in range(len(rewards) - 1, -1, -1):
        g = rewards[i] + gamma * g
        out[i] = g
    return out


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    ap.add_argument("--games", type=int, default=2000, help="evaluation games per opponent (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = load_rules(RULES)
    env = raw_env(RULES, reward="points")
    rng = np.random.default_rng(args.seed)
    policy = LinearPolicy(env.table.size, env.table.tokens, rng)
    baseline, lr, gamma = 0.0, 0.01, 0.9
    trainer = {s: StrategySeat(env.table, "random", s, rules) for s in range(2)}
    start, games, won = time.perf_counter(), 0, 0
    while time.perf_counter() - start < args.minutes * 60:
        me = games % 2
        steps, rewards, win = play(env, me, policy, trainer[1 - me], args.seed, games, learn=True)
        g = returns(rewards, gamma)
        baseline += 0.01 * (float(g.mean()) - baseline)
        policy.update(steps, g - baseline, lr)
        games, won = games + 1, won + win
        if games % 1000 == 0:
            print(f"trained {games} games, {time.perf_counter() - start:.0f} s; won {won / games:.3f} while learning")
    print(f"training: {games} games against random in {time.perf_counter() - start:.0f} s")
    for name in ("random", "greedy"):
        seats = {s: StrategySeat(env.table, name, s, rules) for s in range(2)}
        wins = 0
        for k in range(args.games):
            me = k % 2
            wins += play(env, me, policy, seats[1 - me], args.seed + 1, k // 2, learn=False)[2]
        lo, hi = wilson(wins, args.games)
        print(f"the trained agent against {name}: {wins / args.games:.3f} [{lo:.3f}, {hi:.3f}] of {args.games} games")


if __name__ == "__main__":
    main()
