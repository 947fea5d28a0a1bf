"""Fives and Threes (the rules reference's Part 3) as a game of the kernel (see
:mod:`cribsim.game`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cribsim.errors import ConfigError
from cribsim.game import Game, PlayedGame
from cribsim.gamelog import GameLog, GameTape, MatchTape
from cribsim.matchplay import MatchResult
from cribsim.opening import Opening

from . import book, engine, match
from .metrics import COLUMNS
from .narrate import narrate
from .rules import DominoRules, build_rules
from .strategy import BUILTIN


class FivesThrees(Game[DominoRules]):
    name = "fives_threes"
    title = "Fives and Threes"
    default_rules = "fives_threes"
    builtins = BUILTIN
    human = "cribsim.games.fives_threes.human"
    env = "cribsim.games.fives_threes.env"
    columns = COLUMNS

    def build_rules(self, data: dict[str, Any], source: str) -> DominoRules:
        return build_rules(data, source)

    def play_game(self, rules: DominoRules, strategies: Sequence[Any], seed: int, address: tuple[int, int],
                  first: int | None = None, log: bool = False, start_scores: Sequence[int] | None = None,
                  tape: GameTape | None = None,
                  counters: Sequence[tuple[float, float]] | None = None,
                  events: list[Any] | None = None) -> PlayedGame:
        if counters is not None:
            raise ConfigError("<inline>", "miss_rate", "Fives and Threes has no counting model")
        return engine.play_game(rules, strategies, seed, address, first, log=log or events is not None,
                                start_scores=start_scores, tape=tape, events=events)

    def replay_game(self, rules: DominoRules, log: GameLog, seed: int, address: tuple[int, int],
                    counters: Sequence[tuple[float, float]] | None, where: str, partial: bool = False) -> PlayedGame:
        return engine.replay_game(rules, log, seed, address, counters, where, partial=partial)

    def narrate(self, rules: DominoRules, result: Any, names: list[str] | None = None) -> list[str]:
        return narrate(rules, result, names)

    def play_match(self, rules: DominoRules, factories: Sequence[Any], seed: int, match_key: int,
                   first_dealer: int | None = None, log: bool = False, opening: Opening | None = None,
                   tape: MatchTape | None = None,
                   counters: Sequence[tuple[float, float]] | None = None) -> MatchResult:
        return match.play_match(rules, factories, seed, match_key, first_dealer, log=log, opening=opening,
                                tape=tape)

    def after_game(self, rules: DominoRules, game: Any, points: list[int], played: int) -> tuple[int, int | None]:
        return match.after_game(rules, game, points, played)

    def observation(self, rules: DominoRules, seat: int, side: int, side_of: tuple[int, ...] | None) -> Any:
        return engine.Observation(seat, side, rules)

    def book_deck(self, rules: DominoRules, entry: dict[str, Any], dealer: int) -> tuple[int, ...]:
        return book.book_deck(rules, entry, dealer)

    def addressed_deck(self, rules: DominoRules, seed: int, address: tuple[int, int], deal: int) -> tuple[int, ...]:
        return book.addressed_deck(rules, seed, address, deal)

    def book_line(self, rules: DominoRules, dealer: int, deck: Sequence[int]) -> dict[str, Any]:
        return book.book_line(rules, dealer, deck)


GAME = FivesThrees()
