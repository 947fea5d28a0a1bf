"""The cribbage engine: deal phases, game loop, events. Knows nothing of Ray or tournaments."""

from .events import CRIB, HAND, HEELS, OTHER, PEG, SOURCES, Event
from .game import GameResult, cut_for_deal, play_deal, play_game, replay_deal
from .phases import STANDARD_PHASES, Deal
from .state import GameOver, GameState

__all__ = ["CRIB", "HAND", "HEELS", "OTHER", "PEG", "SOURCES", "Event", "GameResult", "cut_for_deal",
           "play_deal", "play_game", "replay_deal", "STANDARD_PHASES", "Deal", "GameOver", "GameState"]
