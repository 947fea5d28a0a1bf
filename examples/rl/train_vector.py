"""Train a small agent on cribsim's vector environment (many games at once over the native lane),
on the CPU, then measure it.

The learner is examples/rl/train_pettingzoo.py's: a linear softmax policy over the observation
vector (one weight per token and feature), trained by REINFORCE with a running baseline on the
per-point rewards (``reward="points"``), against cribsim's ``random`` strategy, here played in C
by the environment itself (``opponents``), the agent in each seat in half of the games. What
changes is the batch: every step answers one token in each of ``--envs`` games a seat, the policy
is evaluated for all of them in one matrix product, and it is updated every ``HORIZON`` steps
from the steps of a window twice that long (the returns of its first half see at least
``HORIZON`` steps ahead, where the discount 0.9 leaves less than 0.1% of a reward).

It is then frozen (it takes its most likely token) and plays 2,000 games against ``random`` and
2,000 against ``greedy``, 1,000 in each seat on the same 1,000 deals, which training never saw.

    python examples/rl/train_vector.py --minutes 3

Needs the native lane (a C compiler at install). Prints the win rates last, with 95% Wilson
intervals."""

from __future__ import annotations

import argparse
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the figures are for one core

import numpy as np

from cribsim.games.cribbage.vector import VectorEnv

RULES = "standard"
HORIZON = 64  # steps between updates; the window of returns is twice as long


class LinearPolicy:
    """Softmax over the legal tokens of ``W @ x + b``, a row of observations at a time."""

    def __init__(self, size: int, tokens: int, rng: np.random.Generator) -> None:
        self.W = np.zeros((tokens, size), np.float32)
        self.b = np.zeros(tokens, np.float32)
        self.rng = rng

    def logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.where(mask > 0, x @ self.W.T + self.b, -np.inf)

    def probs(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.logits(x, mask)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def sample(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        c = self.probs(x, mask).cumsum(axis=1)
        u = self.rng.random(len(x)) * c[:, -1]
        return (c >= u[:, None]).argmax(axis=1)  # the first token whose share reaches u: a legal one

    def best(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.logits(x, mask).argmax(axis=1)

    def update(self, x: np.ndarray, mask: np.ndarray, a: np.ndarray, adv: np.ndarray, lr: float) -> None:
        grad = -self.probs(x, mask)
        grad[np.arange(len(a)), a] += 1.0  # d log pi(a) / d logits, a row a step
        grad *= adv[:, None].astype(np.float32)
        self.W += lr * (grad.T @ x)
        self.b += lr * grad.sum(axis=0)


class Window:
    """The last ``2 * HORIZON`` steps of one vector environment (the agent's seat's)."""

    def __init__(self) -> None:
        self.x: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.a: list[np.ndarray] = []
        self.r: list[np.ndarray] = []
        self.done: list[np.ndarray] = []

    def add(self, x: np.ndarray, mask: np.ndarray, a: np.ndarray, r: np.ndarray, done: np.ndarray) -> None:
        for part, v in ((self.x, x), (self.mask, mask), (self.a, a), (self.r, r), (self.done, done)):
            part.append(v)

    def full(self) -> bool:
        return len(self.a) == 2 * HORIZON

    def first_half(self, gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The first half's steps and their discounted returns (within each game); drops them."""
        g = np.zeros(len(self.r[0]))
        returns = []
        for r, done in zip(reversed(self.r), reversed(self.done)):
            g = r + gamma * g * ~done
            returns.append(g)
        returns.reverse()
        out = (np.concatenate(self.x[:HORIZON]), np.concatenate(self.mask[:HORIZON]),
               np.concatenate(self.a[:HORIZON]), np.concatenate(returns[:HORIZON]))
        for part in (self.x, self.mask, self.a, self.r, self.done):
            del part[:HORIZON]
        return out


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def train(policy: LinearPolicy, envs: list[VectorEnv], seconds: float, lr: float, gamma: float, seed: int) -> int:
    """REINFORCE against the envs' opponents for ``seconds``: the games finished."""
    windows = [Window() for _ in envs]
    obs = [e.reset(seed=seed, options={"match": s * envs[0].num_envs})[0] for s, e in enumerate(envs)]
    baseline, games, won, start, shown = 0.0, 0, 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        for k, (env, w) in enumerate(zip(envs, windows)):
            x, mask = obs[k]["observation"], obs[k]["action_mask"]
            a = policy.sample(x, mask)
            obs[k], rewards, term, trunc, infos = env.step(a)
            seat = env.agents[0]
            w.add(x, mask, a, rewards[:, seat], term | trunc)
            games += int(term.sum())
            won += int((infos["winner"][term] == env.side_of[seat]).sum())
            if w.full():
                bx, bmask, ba, bg = w.first_half(gamma)
                baseline += 0.1 * (float(bg.mean()) - baseline)
                policy.update(bx, bmask, ba, bg - baseline, lr)
        if games >= shown + 20_000:
            shown = games - games % 20_000
            print(f"trained {games} games, {time.perf_counter() - start:.0f} s; won {won / games:.3f} while learning")
    return games


def evaluate(policy: LinearPolicy, name: str, games: int, seed: int) -> int:
    """The frozen policy's wins in ``games`` games against ``name``, half in each seat, on the same
    deals (env i of each seat plays match key i at ``seed``): each env's first game counts."""
    wins = 0
    for seat in (0, 1):
        env = VectorEnv(RULES, num_envs=games // 2, reward="points", opponents={1 - seat: name}, copy=False)
        obs, _ = env.reset(seed=seed)
        pending = np.ones(env.num_envs, bool)
        while pending.any():
            obs, _, term, _, infos = env.step(policy.best(obs["observation"], obs["action_mask"]))
            ended = term & pending
            wins += int((infos["winner"][ended] == env.side_of[seat]).sum())
            pending &= ~term
    return wins


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    ap.add_argument("--games", type=int, default=2000, help="evaluation games per opponent (default 2000)")
    ap.add_argument("--envs", type=int, default=128, help="games stepped at once in each seat (default 128)")
    ap.add_argument("--lr", type=float, default=0.001, help="learning rate a step (default 0.001)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    envs = [VectorEnv(RULES, num_envs=args.envs, reward="points", opponents={1 - seat: "random"})  # (copies: kept)
            for seat in (0, 1)]
    policy = LinearPolicy(envs[0].size, envs[0].tokens, np.random.default_rng(args.seed))
    start = time.perf_counter()
    games = train(policy, envs, args.minutes * 60, args.lr, 0.9, args.seed)
    print(f"training: {games} games against random in {time.perf_counter() - start:.0f} s")
    for name in ("random", "greedy"):
        wins = evaluate(policy, name, args.games, args.seed + 1)
        lo, hi = wilson(wins, args.games)
        print(f"the trained agent against {name}: {wins / args.games:.3f} [{lo:.3f}, {hi:.3f}] of {args.games} games")


if __name__ == "__main__":
    main()
