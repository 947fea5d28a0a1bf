"""Fives and Threes (RULES.md Part 3) on cribsim's tournament machinery.

The game interface (see ``cribsim.games``): ``rules_from_mapping``, ``play_match``,
``BUILTIN`` strategies, and the per-variant summary ``variant_headers`` / ``variant_row``."""

from .engine import play_game
from .match import play_match
from .narrate import narrate
from .metrics import variant_headers, variant_row
from .rules import DominoRules, rules_from_mapping
from .strategy import BUILTIN

__all__ = ["BUILTIN", "DominoRules", "narrate", "play_game", "play_match", "rules_from_mapping", "variant_headers", "variant_row"]
