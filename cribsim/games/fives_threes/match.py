"""Match play for Fives and Threes: games until a side has ``first_to`` game points (or a fixed
number of games). There are no skunks; the lead keeps rotating clockwise from game to game
(F-LEAD-1), the first game's leader drawn for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from cribsim.matchplay import MatchResult, make_strategies, settled

from .engine import play_game

if TYPE_CHECKING:
    import random

    from cribsim.gamelog import MatchTape
    from cribsim.opening import Opening

    from .rules import DominoRules


def after_game(rules: DominoRules, game: Any, points: list[int], played: int,
               table: dict[str, int] | None = None) -> tuple[int, int | None]:
    """Score a finished game into the match (no skunks): (0, the match's winner once settled)."""
    points[game.winner] += rules.match.points_table()["win"]
    return 0, settled(rules.match, points, played, game.winner)


def play_match(rules: DominoRules, factories: Sequence[Callable[[random.Random], Any]], seed: int, match_key: int,
               first_dealer: int | None = None, log: bool = False, opening: Opening | None = None,
               tape: MatchTape | None = None) -> MatchResult:
    """Play one match; an ``opening`` (a deal book's first hands, a start position: the first
    leader and the scores) starts every game, a ``tape`` records every game (game records)."""
    strategies = make_strategies(factories)
    points = [0] * len(rules.sides)
    result = MatchResult(-1, points)
    leader = first_dealer
    start = opening.scores if opening is not None else None
    hands = [list(d) for d in opening.decks] if opening is not None and opening.decks else None
    g = 0
    while True:
        if opening is not None and opening.dealer is not None:
            leader = opening.dealer
        t = tape.game() if tape is not None else None
        if t is not None:
            t.match_score = list(points)
        game = play_game(rules, strategies, seed, (match_key, g), leader, log=log, start_scores=start, tape=t,
                         hands=hands)
        result.games.append(game)
        result.skunks.append(0)
        g += 1
        _, over = after_game(rules, game, points, g)
        if over is not None:
            result.winner = over
            return result
        leader = (game.last_leader + 1) % rules.players
