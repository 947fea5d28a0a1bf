"""Names for the seats and sides of any game, as narrations and replays show them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Rules

NAMES = ("Alice", "Bob", "Claire", "David", "Eve")  # the seeds' players


def seat_names(rules: Rules) -> list[str]:
    return [NAMES[s] if s < len(NAMES) else f"P{s + 1}" for s in range(rules.players)]


def side_names(rules: Rules, names: list[str], sides: Sequence[Sequence[int]] | None = None) -> list[str]:
    return [" & ".join(names[s] for s in side) for side in (sides or rules.sides)]
