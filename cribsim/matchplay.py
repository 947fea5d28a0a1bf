"""Matches of any game: the outcome of a match, when a match format is settled, and fresh
strategies for each match (the parts of match play that no game's rules change)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ruleset import MatchFormat


@dataclass
class MatchResult:
    """The winning side (-1: a drawn fixed-length match), game points by side, and every game
    with its skunk level."""

    winner: int
    game_points: list[int]
    games: list[Any] = field(default_factory=list)  # GameResult per game
    skunks: list[int] = field(default_factory=list)  # skunk level per game


def settled(fmt: MatchFormat, points: list[int], games_played: int, last_winner: int) -> int | None:
    """The match's winner once its format says it is over, else None: after a fixed number of
    games the most game points (-1 for a tie); first to N game points the leader (ties broken
    by the last game's winner)."""
    best = max(points)
    leaders = [s for s, p in enumerate(points) if p == best]
    if fmt.games:
        if games_played < fmt.games:
            return None
        return leaders[0] if len(leaders) == 1 else -1
    if best < fmt.first_to:
        return None
    return leaders[0] if len(leaders) == 1 else last_winner


def make_strategies(factories: Sequence[Callable[[random.Random], Any]]) -> list[Any]:
    """Fresh strategy instances for one match; generators are seeded per game by the engine."""
    return [make(random.Random()) for make in factories]
