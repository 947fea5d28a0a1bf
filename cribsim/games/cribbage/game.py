"""Cribbage as a game of the tournament machinery (see ``cribsim.games``): its rules builder,
match function, built-in strategies, and what the report needs to know of a rule set
(``summary_info``: its sides, whether lower scores rank higher, its summary columns)."""

from __future__ import annotations

from typing import Any

from cribsim.records import Column
from cribsim.strategy import BUILTIN

from .engine import replay_game
from .match import after_game, play_match
from .narrate import narrate
from .rules import rules_from_mapping

__all__ = ["after_game", "BUILTIN", "COLUMNS", "narrate", "play_match", "replay_game", "rules_from_mapping",
           "summary_info"]

COLUMNS = (
    Column("games", "count"),
    Column("first dealer wins", "rate", "first_dealer_won", plot=True),
    Column("deals/game", "mean", "deals", plot=True),
    Column("dealer peg/deal", "ratio", "points.peg.0"),
    Column("dealer hand/deal", "ratio", "points.hand.0"),
    Column("dealer crib/deal", "ratio", "points.crib.0"),
    Column("pone peg/deal", "ratio", "points.peg.1"),
    Column("pone hand/deal", "ratio", "points.hand.1"),
    Column("heels/deal", "ratio", "points.heels.0"),
    Column("skunk rate", "rate", "skunk", at_least=1, plot=True),
    Column("double skunk rate", "rate", "skunk", at_least=2),
)


def summary_info(rules: Any) -> dict[str, Any]:
    """For the manifest: the number of sides, the objective (-1: lower scores rank higher) and
    the summary columns (the game's, then the active variants')."""
    return {"sides": len(rules.sides), "objective": rules.objective, "target": rules.target, "players": rules.players,
            "checkpoints": 2, "columns": [c.to_json() for c in COLUMNS + tuple(rules.program.columns)]}
