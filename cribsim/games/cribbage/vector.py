"""A vector environment over the native lane: many games of cribbage stepped at once, in C, with
numpy arrays in and out (docs/environments.md, "The vector environment").

``VectorEnv(rules="standard", num_envs=N, reward="game", seed=S)`` holds N games. Each game is
paused at the decision of an agent's seat; ``step(actions)`` answers one token in every game
(int array of N) and returns, as Gymnasium's vector environments do, ``(observations, rewards,
terminations, truncations, infos)``:

- ``observations``: a dict of arrays, ``observation`` (float32 [N, size]: what the seat to act
  sees, laid out as the AEC environment's), ``action_mask`` (int8 [N, tokens]: the tokens that
  lead to a legal answer) and ``actor`` (int64 [N]: the seat to act);
- ``rewards``: float64 [N, players], what the step gave each seat (the AEC environment's two
  rewards, ``"game"`` and ``"points"``);
- ``terminations`` and ``truncations``: bool [N] (a game longer than ``max_steps`` steps, its
  agents' tokens, is truncated);
- ``infos``: ``scores`` (int64 [N, sides]: each game's scores after the step, the finished game's
  where one ended), ``winner`` (int64 [N]: the winning side where a game ended, else -1) and
  ``_winner`` (where it is set).

The same tokens and observation vector as the AEC environment (``cribsim.env.raw_env``), so an
agent trained on one plays the other; at the same seed address and answers, the same games,
step for step (tests/kernel/test_vector_env.py).

Autoreset: Gymnasium's same-step mode (``AutoresetMode.SAME_STEP``): a game that ends (or is
truncated) in a step is replaced in that same step by the env's next game, whose first
observation is returned with the finished game's rewards, termination and scores; no final
observation is kept (a finished game asks nothing more). Env i plays the games at (seed, match key
K + i, game 0), then K + i + N, K + i + 2N, ... as its games end; ``reset(seed=S, options={"match":
K})`` (K defaults to 0) starts them again, and ``reset()`` without a seed starts every env at a
match key none has played yet at the last seed.

``opponents={seat: "random"}`` seats the lane's built-in strategies (``random``, ``greedy``,
``ev``, ``hoyle``), played in C as ``StrategySeat`` plays them in the AEC environment: the envs
then stop only at the agents' seats, and a step's rewards are what the seats got from that answer
up to the agent's next decision.

It plays the rules files whose decisions are the discard and the play with no wild cards and no
observation fields of a variant's, which the native lane plays without Python hooks (standard,
61 points, five and seven card, three to five players, partnerships, back ten, nineteen, toss
fives, muggins, lowball, continued play; :func:`refusal` says why any other is not)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cribsim.errors import CribsimError
from cribsim.ruleset import load_rules

from .engine.state import side_of_seats
from .env import CribbageTable
from .native import lane
from .rules import Rules

REWARDS = ("game", "points")
AGENT = 255  # an agent's seat, as the lane's kinds say (lane_env.c OUTSIDE)
MAXP = 5  # the lane's seats (the scores array's width)
SAME_STEP = "SameStep"  # gymnasium.vector.AutoresetMode.SAME_STEP's value


def autoreset_mode() -> Any:
    """Gymnasium's ``AutoresetMode.SAME_STEP`` where Gymnasium is installed, else its value."""
    try:
        from gymnasium.vector import AutoresetMode
    except ImportError:
        return SAME_STEP
    return AutoresetMode.SAME_STEP


def refusal(rules: Rules) -> str | None:
    """Why the vector environment does not play ``rules``, or None."""
    if rules.game != "cribbage":
        return f"it plays cribbage, not {rules.game}"
    if lane.module() is None:
        return lane.status()
    why = lane.refusal(rules)
    if why is not None:
        return why
    program = rules.program
    extra = sorted(set(program.decisions) - {"discard", "play"})
    if extra:
        return f"its decision {extra[0]!r} is not the discard or the play"
    if program.hooks.play_answers is not None or rules.deck_size > 52:
        return "it has wild cards"
    if program.features:
        return f"its observation field {program.features[0].field!r}"
    if lane.hooked(rules):
        return f"the variant {lane.hooked(rules)[0].name}'s hook in Python"
    return None


def layout_of(table: CribbageTable) -> tuple[int, ...]:
    """The observation's offsets as the lane writes them (lane_env.c ``O_*``): each part's, the
    discard's and the play's flags, then the size and the tokens."""
    lay = table.layout
    return (lay.hand, lay.chosen, lay.picked, lay.discarded, lay.starter, lay.pile, lay.played, lay.count,
            lay.scores, lay.dealer, lay.crib_owner, lay.gos, lay.decision + lay.index["discard"],
            lay.decision + lay.index["play"], table.size, table.tokens)


class VectorEnv:
    """``num_envs`` games of one rules file, stepped at once (see the module doc)."""

    def __init__(self, rules: str | Rules = "standard", num_envs: int = 64, reward: str = "game", seed: int = 0,
                 opponents: Mapping[int, str] | None = None, max_steps: int = 100_000, copy: bool = True) -> None:
        self.rules: Rules = load_rules(rules) if isinstance(rules, str) else rules
        why = refusal(self.rules)
        if why is not None:
            raise CribsimError(f"cribsim: the vector environment does not play {self.rules.name}: {why} "
                               "(the AEC environment plays every rules file: cribsim.env.raw_env)")
        if reward not in REWARDS:
            raise CribsimError(f"cribsim: reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if num_envs < 1 or max_steps < 1:
            raise CribsimError("cribsim: num_envs and max_steps must be at least 1")
        table = CribbageTable(self.rules)
        self.num_envs, self.players, self.size, self.tokens = num_envs, table.players, table.size, table.tokens
        sides = self.rules.program.layout(0)[0]  # game 0's (a variant's layout may give each game its own)
        self.sides, self.side_of = len(sides), np.array(side_of_seats(sides, self.players), np.int64)
        self.copy, self.reward_mode, self.max_steps = copy, reward, max_steps
        self.metadata = {"autoreset_mode": autoreset_mode(), "name": "cribsim_vector_v0"}
        c = lane.module()
        assert c is not None
        self._c = c
        kinds, values = self._seats(opponents or {})
        self.agents = tuple(s for s in range(self.players) if kinds[s] == AGENT)
        self._arrays = (np.zeros((num_envs, self.size), np.float32), np.zeros((num_envs, self.tokens), np.int8),
                        np.zeros(num_envs, np.int64), np.zeros((num_envs, self.players), np.float64),
                        np.zeros(num_envs, np.bool_), np.zeros(num_envs, np.bool_),
                        np.zeros((num_envs, MAXP), np.int64), np.full(num_envs, -1, np.int64))
        self._envs = c.envs(lane.pack_rules(self.rules), kinds, values, num_envs, layout_of(table),
                            reward == "points", max_steps, self._arrays)
        self._seed, self._first = seed, 0
        self._played = np.zeros(num_envs, np.int64)  # games each env has finished since the last reset
        self._started = False

    def _seats(self, opponents: Mapping[int, str]) -> tuple[bytes, tuple[Any, ...]]:
        """Each seat's kind for the lane (AGENT for an agent's) and its ev values (or None)."""
        bad = [s for s in opponents if not 0 <= s < self.players]
        if bad or len(opponents) >= self.players:
            raise CribsimError(f"cribsim: opponents take some of seats 0..{self.players - 1}, not all")
        kinds, values = [AGENT] * self.players, [None] * self.players
        names: tuple[str, ...] = self._c.KINDS
        for seat, name in opponents.items():
            native = lane.seat_for(self.rules, name, {})
            if native is None or native.kind not in names:
                raise CribsimError(f"cribsim: the vector environment's opponents are the lane's built-ins "
                                   f"({', '.join(names)}), not {name!r}")
            kinds[seat] = names.index(native.kind)
            if native.values is not None:
                values[seat] = lane.ev_capsule(self.rules, native.values)
        return bytes(kinds), tuple(values)

    # ---- the episodes ------------------------------------------------------------------------
    def reset(self, seed: int | None = None,
              options: Mapping[str, int] | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Every env at a new game (see the module doc): (observations, infos)."""
        if seed is not None:
            self._seed, self._first = seed, int((options or {}).get("match", 0))
        elif self._started:  # past every match key an env has played
            self._first += self.num_envs * (int(self._played.max()) + 1)
        self._started = True
        self._played[:] = 0
        self._c.envs_reset(self._envs, self._seed, self._first)
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, np.ndarray]]:
        """Each env's seat to act answers its token: (observations, rewards, terminations,
        truncations, infos)."""
        if not self._started:
            raise CribsimError("cribsim: reset() the vector environment first")
        a = np.ascontiguousarray(actions, dtype=np.int64)
        if a.shape != (self.num_envs,):
            raise CribsimError(f"cribsim: step takes one action an env ({self.num_envs}), got shape {a.shape}")
        try:
            self._c.envs_step(self._envs, a)
        except ValueError as e:
            raise CribsimError(f"cribsim: {e}") from None
        _, _, _, rewards, term, trunc, _, _ = self._arrays
        self._played += term | trunc
        return self._observations(), self._out(rewards), self._out(term), self._out(trunc), self._infos()

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a

    def _observations(self) -> dict[str, np.ndarray]:
        obs, mask, actor = self._arrays[:3]
        return {"observation": self._out(obs), "action_mask": self._out(mask), "actor": self._out(actor)}

    def _infos(self) -> dict[str, np.ndarray]:
        term, scores, winner = self._arrays[4], self._arrays[6], self._arrays[7]
        return {"scores": self._out(scores[:, :self.sides]), "winner": self._out(winner), "_winner": self._out(term)}

    def close(self) -> None:
        """Nothing to release: the games are freed with the environment."""

    # ---- Gymnasium's spaces (where Gymnasium is installed) -----------------------------------
    @property
    def single_observation_space(self) -> Any:
        from gymnasium import spaces

        return spaces.Dict({"observation": spaces.Box(0.0, 1.0, (self.size,), np.float32),
                            "action_mask": spaces.Box(0, 1, (self.tokens,), np.int8),
                            "actor": spaces.Discrete(self.players)})

    @property
    def single_action_space(self) -> Any:
        from gymnasium import spaces

        return spaces.Discrete(self.tokens)

