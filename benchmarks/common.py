"""What the benchmarks share: a games-per-second rate over consecutive match keys, in the Python
engine, in the native lane or in OpenSpiel's C++ loop, and a config of one-game matches."""

from __future__ import annotations

import random
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np

from cribsim.games.cribbage.engine import play_game
from cribsim.tournament.config import Experiment, load_experiment


def rate(rules: Any, strategies: list[Any], seconds: float, start: int, chunk: int = 20) -> tuple[float, int]:
    """(games per second, games played) for ``seconds`` of complete games, the match keys
    counting up from ``start`` so that every game is a new deal sequence."""
    games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(chunk):
            play_game(rules, strategies, 1, (start + games, 0))
            games += 1
    return games / (time.perf_counter() - t0), games


def native_rate(native: Any, seconds: float, start: int, chunk: int) -> tuple[float, int]:
    """The same for a native lane (``NativeLane.games``: ``chunk`` games a call, lineup entries
    0 and 1 in the two seats)."""
    games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        native.games(1, start + games, chunk, (0, 1))
        games += chunk
    return games / (time.perf_counter() - t0), games


def openspiel_cpp_rate(game: Any, bots: Any, seconds: float, start: int) -> tuple[float, int]:
    """Games per second of OpenSpiel's C++ ``evaluate_bots`` on ``game``, seeds from ``start``."""
    import pyspiel

    games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, start + games)
        games += 1
    return games / (time.perf_counter() - t0), games


def one_game_experiment(tmp: Path, name: str, strategy: str, matches: int, seed: int) -> Experiment:
    """``matches`` unpaired one-game standard matches of ``strategy`` against itself."""
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        name: {name}
        variants: [standard]
        lineup: [{{name: a, strategy: {strategy}}}, {{name: b, strategy: {strategy}}}]
        matches: {matches}
        paired: false
        match: {{first_to: 1}}
        seed: {seed}
    """))
    return load_experiment(cfg)


def pettingzoo_rate(env: Any, seconds: float, rng: random.Random, start: int) -> tuple[float, float, int]:
    """(games per second, steps per second, games) of random masked actions in a PettingZoo
    environment, each game at the next match key from ``start``."""
    games = steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=1, options={"match": start + games})
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
    took = time.perf_counter() - t0
    return games / took, steps / took, games
