"""A PettingZoo AEC environment for any rules file (``pip install cribsim[rl]``).

``env(rules="standard")`` is wrapped as PettingZoo's classic games are (an illegal action ends
the game with -1 for the agent that took it; actions out of range and calls out of order are
refused); ``raw_env`` is the bare environment. Agents are ``player_0`` .. ``player_{n-1}``,
one per seat. Each agent's observation is a dict: ``observation`` (a fixed-size float32 vector
in 0..1, laid out by the game's table: docs/environments.md) and ``action_mask`` (int8, 1 for
each token that leads to a legal answer; all 0 for an agent not to act). An answer of several
tokens (a discard of two cards) takes that many steps of the same agent.

Rewards: ``reward="game"`` (default) gives, when the game ends, +1 to each seat of the winning
side and -1/(sides - 1) to each other seat (the sides of that game, as the rules rank them:
lowball's winner is the side with fewer points). ``reward="points"`` gives after every step
the change in (own side's points - the average of the other sides'), times -1 under a reversed
objective: the sum over a game is the final margin.

Resets are seeded: ``reset(seed=S, options={"match": K, "game": G})`` plays the very deals
cribsim plays at seed S, match key K, game G (both default 0), the first dealer cut as cribsim
cuts (for G > 0 the deals of that game, but the first dealer cut afresh: a match's later games,
whose first dealer follows the last game, R-MATCH-3, are not modelled). A reset without a seed
plays the next match key of the last seed. A game longer than
``max_steps`` steps is truncated."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:  # a plain install: say what to install
    raise ImportError("PettingZoo is not installed: pip install 'cribsim[rl]'") from e

from .table import Chooser, Table, game_rewards, load_table, margins

REWARDS = ("game", "points")
RENDER_MODES = ("human", "ansi")


class CribsimEnv(AECEnv):  # type: ignore[misc]
    """The bare environment (see the module doc)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "cribsim_v0", "is_parallelizable": False}

    def __init__(self, rules: str | Any = "standard", reward: str = "game", max_steps: int = 100_000,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}")
        self.table: Table = load_table(rules)
        self.reward_mode, self.max_steps, self.render_mode = reward, max_steps, render_mode
        self.possible_agents = [f"player_{s}" for s in range(self.table.players)]
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.table.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.table.tokens,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.table.tokens) for a in self.possible_agents}
        self._seed, self._match, self._game = 0, -1, 0
        self.chooser: Chooser | None = None
        self.steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- the episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        if seed is not None:
            self._seed, self._match = seed, int(options.get("match", 0))
        else:
            self._match = int(options.get("match", self._match + 1))
        self._game = int(options.get("game", 0))
        self.table.reset(self._seed, (self._match, self._game))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.steps = 0
        self._standing = [0.0] * self.table.players  # points given as the game starts count on the first answer
        self._next()

    def _next(self) -> None:
        """Point at the seat to act and open its answer (or end the game)."""
        actor = self.table.actor
        if actor < 0:
            self._finish()
            return
        self.chooser = Chooser(self.table.choices())
        self.agent_selection = self.possible_agents[actor]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.chooser is not None
        choice = self.chooser.pick(int(action))  # type: ignore[arg-type]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.steps += 1
        if choice is not None:
            self.table.apply(choice.answer)
            if self.reward_mode == "points":
                now = margins(self.table)
                self.rewards = {a: now[i] - self._standing[i] for i, a in enumerate(self.possible_agents)}
                self._standing = now
            self._next()
        if self.steps >= self.max_steps and not self.terminations[self.agent_selection]:
            self.truncations = {a: True for a in self.agents}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        t = self.table
        winner = t.winner()
        if self.reward_mode == "game":
            self.rewards = dict(zip(self.possible_agents, game_rewards(t)))
        self.terminations = {a: True for a in self.agents}
        self.infos = {a: {"winner": winner, "scores": t.scores()} for a in self.agents}
        self.chooser = None

    # ---- what an agent sees -------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        vec = np.zeros(self.table.size, np.float32)
        mask = np.zeros(self.table.tokens, np.int8)
        acting = self.chooser is not None and agent == self.agent_selection
        chosen = self.chooser.chosen if acting and self.chooser is not None else []
        self.table.observe(seat, chosen, vec)
        if acting and self.chooser is not None:
            mask[self.chooser.next_tokens()] = 1
        return {"observation": vec, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode")
            return None
        text = self.table.describe()
        if self.chooser is not None and self.chooser.chosen:
            text += "; picked " + " ".join(self.table.token_name(t) for t in self.chooser.chosen)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(rules: str | Any = "standard", reward: str = "game", max_steps: int = 100_000,
            render_mode: str | None = None) -> CribsimEnv:
    """The bare environment of a rules file or preset name (see the module doc)."""
    return CribsimEnv(rules, reward, max_steps, render_mode)


def env(rules: str | Any = "standard", reward: str = "game", max_steps: int = 100_000,
        render_mode: str | None = None) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are (see the module doc)."""
    e: AECEnv = raw_env(rules, reward, max_steps, render_mode)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
