"""The cribbage engine: the state machine of a game, its phases, events and drivers. Knows
nothing of Ray or tournaments, and names no variant (they fill its slots and hooks)."""

from .events import CRIB, HAND, HEELS, OTHER, PEG, SOURCES, Event
from .game import GameResult, answerers, cut_for_deal, drive, play_game, replay_game, result_of, seed_strategies
from .state import GameOver, GameState

__all__ = ["CRIB", "HAND", "HEELS", "OTHER", "PEG", "SOURCES", "Event", "GameResult", "GameOver", "GameState",
           "answerers", "cut_for_deal", "drive", "play_game", "replay_game", "result_of", "seed_strategies"]
