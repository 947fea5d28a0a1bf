"""Fives and Threes' table for the environment bridges (:mod:`cribsim.env.table`): the
engine's own :class:`~cribsim.games.fives_threes.engine.Game`, driven lay by lay.

Tokens: ``tile * 2 + end`` (56): a tile (0..27, ``[a|b]`` in order) laid on end 0 or 1 of the
line; the lead is end 0. Every answer is one token. A forced lay (one legal move) and a knock
are the engine's, as in cribsim: an agent is asked only real decisions.

The observation (floats in 0..1; seats and sides counted from the observer's): own tiles, the
tiles each seat has laid this hand, each open end's pip and whether a double lies there (or
that nothing is laid yet), the end count, the tiles each seat holds, the scores (a share of the
target), the leader, and the pips each seat has knocked on (it holds no tile showing them)."""

from __future__ import annotations

import random
from collections.abc import Generator, Sequence
from typing import Any

from cribsim.env.table import CHANCE, Choice, Vector

from .engine import CHANCE as ENGINE_CHANCE
from .engine import Game, GameOver, draw_for_lead
from .rules import DominoRules
from .tiles import N_TILES, tile_str

TOKENS = N_TILES * 2
PIP_SLOTS = 8  # a pip 0..6, or nothing laid yet
TOTAL_SCALE = 40.0  # end counts stay below it (two doubles of six: 24)


class FivesThreesTable:
    """One game of a Fives and Threes rules file for an environment (see the module doc)."""

    def __init__(self, rules: DominoRules) -> None:
        self.rules = rules
        self.players = n = rules.players
        self.sides = len(rules.sides)
        self.tokens = TOKENS
        self.draws = N_TILES
        self.zero_sum = len({len(s) for s in rules.sides}) == 1
        at = 0

        def part(width: int) -> int:
            nonlocal at
            at += width
            return at - width
        self.hand, self.laid = part(N_TILES), part(n * N_TILES)
        self.ends, self.total, self.counts = part(2 * (PIP_SLOTS + 1)), part(1), part(n)
        self.score_at, self.leader, self.knocks = part(self.sides), part(n), part(n * 7)
        self.size = at
        self.game: Game | None = None
        self.flow: Generator[int, Any, None] | None = None
        self.over = -1
        self.actor = -1

    def reset(self, seed: int, address: tuple[int, int], chance: bool = False, first: int | None = None) -> None:
        if first is None:
            first = draw_for_lead(self.rules, seed, address)  # F-LEAD-1, as cribsim draws
        self.game = Game(self.rules, [], seed, address, driven=True, chance=chance)
        self.flow = self.game.flow(first)
        self.over = -1
        self.started = (seed, address, chance, first)
        self.steps: list[Any] = []
        self._step(None)

    def __deepcopy__(self, memo: Any) -> FivesThreesTable:
        """A copy at the same point: the game replayed (a generator cannot be copied)."""
        twin = FivesThreesTable(self.rules)
        if self.game is not None:
            twin.reset(*self.started)
            for step in self.steps:
                twin._step(step)
        return twin

    def _step(self, answer: Any) -> None:
        flow = self.flow
        assert flow is not None
        if answer is not None:
            self.steps.append(answer)
        try:
            seat = next(flow) if answer is None else flow.send(answer)
        except GameOver as over:
            self.over, self.actor = over.side, -1
            return
        self.actor = CHANCE if seat == ENGINE_CHANCE else seat

    @property
    def state(self) -> Game:
        if self.game is None:
            raise RuntimeError("reset() the table first")
        return self.game

    def choices(self) -> list[Choice]:
        return [Choice((t * 2 + e,), (t, e)) for t, e in self.state.obs[self.actor].legal]

    def spell(self, answer: Any) -> tuple[int, ...]:
        tile, end = answer
        return (tile * 2 + end,)

    def answer_of(self, strategy: Any) -> Any:
        return strategy.play(self.state.obs[self.actor])

    def apply(self, answer: Any) -> None:
        if tuple(answer) not in self.state.obs[self.actor].legal:
            raise ValueError(f"{answer!r} is not a legal lay")
        self._step(tuple(answer))

    def outcomes(self) -> list[int]:
        seen = set(self.state.drawing)
        return [t for t in range(N_TILES) if t not in seen]

    def draw(self, outcome: int) -> None:
        if self.actor != CHANCE or outcome in self.state.drawing or not 0 <= outcome < N_TILES:
            raise ValueError(f"tile {outcome} cannot be drawn now")
        self._step(outcome)

    def view(self, seat: int) -> tuple[Any, str]:
        return self.state.obs[seat], "play"

    def world(self, view: Any, decision: str, rng: random.Random) -> None:
        raise ValueError("Fives and Threes cannot draw a seat's unseen tiles yet")

    def deal(self) -> int:
        return self.state.hand_no

    def observe(self, seat: int, chosen: Sequence[int], out: Vector) -> None:
        g = self.state
        obs = g.obs[seat]
        n = self.players
        for t in obs.hand:
            out[self.hand + t] = 1.0
        for s, t, _ in obs.played:
            out[self.laid + (s - seat) % n * N_TILES + t] = 1.0
        if obs.ends is None:
            out[self.ends + PIP_SLOTS - 1] = out[self.ends + 2 * PIP_SLOTS - 1] = 1.0  # each end: nothing laid
        else:
            for k in range(2):
                out[self.ends + k * PIP_SLOTS + obs.ends[2 * k]] = 1.0
                out[self.ends + 2 * PIP_SLOTS + k] = float(obs.ends[2 * k + 1])
        out[self.total] = min(obs.total / TOTAL_SCALE, 1.0)
        for s, held in enumerate(obs.counts):
            out[self.counts + (s - seat) % n] = held / self.rules.hand_size
        side = obs.side
        for k in range(self.sides):
            out[self.score_at + k] = min(g.scores[(side + k) % self.sides] / self.rules.target, 1.0)
        out[self.leader + (obs.leader - seat) % n] = 1.0
        for s, e0, e1 in obs.knocks:
            out[self.knocks + (s - seat) % n * 7 + e0] = out[self.knocks + (s - seat) % n * 7 + e1] = 1.0

    def info_key(self, seat: int) -> str:
        obs = self.state.obs[seat]
        return (f"seat {seat} hand {obs.hand_no} scores {obs.scores} tiles {obs.hand} played {obs.played} "
                f"knocks {obs.knocks} to lay {self.actor == seat}")

    def scores(self) -> tuple[int, ...]:
        return tuple(self.state.scores)

    def side_of(self, seat: int) -> int:
        side: int = self.rules.side_of[seat]
        return side

    def objective(self) -> int:
        return 1

    def winner(self) -> int:
        return self.over

    def outcome_name(self, outcome: int) -> str:
        return tile_str(outcome)

    def token_name(self, token: int) -> str:
        return f"{tile_str(token // 2)} on end {token % 2}"

    def describe(self) -> str:
        g = self.state
        if self.over >= 0:
            return f"game over: side {self.over} wins, scores {list(g.scores)}"
        if self.actor == CHANCE:
            return f"hand {g.hand_no + 1}: drawing tiles"
        obs = g.obs[self.actor]
        return (f"hand {g.hand_no + 1}, scores {list(g.scores)}; seat {self.actor} to lay; ends {obs.ends}; "
                f"tiles {' '.join(tile_str(t) for t in obs.hand)}")


def table(rules: DominoRules) -> FivesThreesTable:
    """The table of a Fives and Threes rules object."""
    return FivesThreesTable(rules)
