"""What the benchmarks share: a games-per-second rate over consecutive match keys, in the Python
engine or in the native lane."""

from __future__ import annotations

import time
from typing import Any

from cribsim.games.cribbage.engine import play_game


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
