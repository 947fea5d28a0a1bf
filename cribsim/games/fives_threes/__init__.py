"""Fives and Threes (RULES.md Part 3) on cribsim's tournament machinery.

The game interface (see ``cribsim.games``): ``rules_from_mapping``, ``play_match``,
``BUILTIN`` strategies, and what the report needs (``summary_info``)."""

from .engine import play_game, replay_game
from .match import after_game, play_match
from .metrics import COLUMNS, summary_info
from .narrate import narrate
from .rules import DominoRules, rules_from_mapping
from .strategy import BUILTIN

__all__ = ["after_game", "BUILTIN", "DominoRules", "narrate", "play_game", "play_match", "replay_game",
           "rules_from_mapping", "summary_info", "COLUMNS"]
