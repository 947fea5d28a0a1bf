"""Where a game starts: a deal book's opening deals and an end-game start position.

An :class:`Opening` is given to every game of a match (``deals:`` and ``start:`` in an
experiment config, see ``cribsim.book``): the first dealer (leader) instead of the cut, the
scores by side to start from instead of 0 each, and the decks of the first deals (in dealing
order) instead of the addressed draw."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Opening:
    dealer: int | None = None
    scores: tuple[int, ...] | None = None
    decks: tuple[tuple[int, ...], ...] = ()

    def deck_map(self) -> dict[int, list[int]] | None:
        """The opening decks by deal number (None: none given)."""
        return {i: list(d) for i, d in enumerate(self.decks)} if self.decks else None
