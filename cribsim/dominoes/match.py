"""Match play for Fives and Threes: games until a side has ``first_to`` game points (or a fixed
number of games). There are no skunks; the lead keeps rotating clockwise from game to game
(F-LEAD-1), the first game's leader drawn for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..match import MatchResult, make_strategies, settled
from .engine import play_game

if TYPE_CHECKING:
    import random

    from .rules import DominoRules


def play_match(rules: DominoRules, factories: Sequence[Callable[[random.Random], Any]], seed: int, match_key: int,
               first_dealer: int | None = None, log: bool = False) -> MatchResult:
    fmt = rules.match
    win_points = fmt.points_table()["win"]
    strategies = make_strategies(factories)
    points = [0] * len(rules.sides)
    result = MatchResult(-1, points)
    leader = first_dealer
    g = 0
    while True:
        game = play_game(rules, strategies, seed, (match_key, g), leader, log=log)
        result.games.append(game)
        result.skunks.append(0)
        points[game.winner] += win_points
        g += 1
        over = settled(fmt, points, g, game.winner)
        if over is not None:
            result.winner = over
            return result
        leader = (game.last_leader + 1) % rules.players
