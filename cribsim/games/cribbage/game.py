"""Cribbage as a game of the kernel (see :mod:`cribsim.game`): its rules, engine, match play,
narration, strategies, deal books and commands, behind the one protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cribsim.game import FastLane, Game, PlayedGame
from cribsim.gamelog import GameLog, GameTape, MatchTape
from cribsim.matchplay import MatchResult
from cribsim.opening import Opening
from cribsim.records import Column

from . import book, engine, match, narrate, strategy
from .native import lane
from .rules import Rules, build_rules
from .variants import VARIANTS, outside_modules

# the built-in strategies whose searches of the play run in the lane where it plays the play
# (``EVStrategy.lane_searches``: a designer's hooks of the show included)
SEARCHERS = ("mc", "expert", "adaptive")

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


class Cribbage(Game[Rules]):
    name = "cribbage"
    title = "Cribbage"
    default = True
    default_rules = "standard"
    builtins = strategy.BUILTIN
    core_decisions = strategy.CORE_DECISIONS
    counting_model = True
    presets_by_players = {(2, False): "standard", (3, False): "three_player", (4, False): "four_player",
                          (4, True): "four_player_partners", (5, False): "five_player"}
    columns = COLUMNS
    commands = "cribsim.games.cribbage.commands"
    human = "cribsim.games.cribbage.human"
    env = "cribsim.games.cribbage.env"

    def build_rules(self, data: dict[str, Any], source: str) -> Rules:
        return build_rules(data, source)

    def play_game(self, rules: Rules, strategies: Sequence[Any], seed: int, address: tuple[int, int],
                  first: int | None = None, log: bool = False, start_scores: Sequence[int] | None = None,
                  tape: GameTape | None = None,
                  counters: Sequence[tuple[float, float]] | None = None,
                  events: list[Any] | None = None) -> PlayedGame:
        return engine.play_game(rules, strategies, seed, address, first, log=log, counters=counters,
                                start_scores=start_scores, tape=tape, live=events)

    def replay_game(self, rules: Rules, log: GameLog, seed: int, address: tuple[int, int],
                    counters: Sequence[tuple[float, float]] | None, where: str, partial: bool = False) -> PlayedGame:
        return engine.replay_game(rules, log, seed, address, counters, where, partial=partial)

    def narrate(self, rules: Rules, result: Any, names: list[str] | None = None) -> list[str]:
        return narrate.narrate(rules, result, names)

    def play_match(self, rules: Rules, factories: Sequence[Any], seed: int, match_key: int,
                   first_dealer: int | None = None, log: bool = False, opening: Opening | None = None,
                   tape: MatchTape | None = None,
                   counters: Sequence[tuple[float, float]] | None = None) -> MatchResult:
        return match.play_match(rules, factories, seed, match_key, first_dealer, log=log, counters=counters,
                                opening=opening, tape=tape)

    def after_game(self, rules: Rules, game: Any, points: list[int], played: int) -> tuple[int, int | None]:
        return match.after_game(rules, game, points, played)

    def summary_info(self, rules: Rules) -> dict[str, Any]:
        """The number of sides, the objective (-1: lower scores rank higher) and the summary
        columns (the game's, then the active variants')."""
        return {"sides": len(rules.sides), "objective": rules.objective, "target": rules.target,
                "players": rules.players, "checkpoints": 2,
                "columns": [c.to_json() for c in COLUMNS + tuple(rules.program.columns)]}

    def decisions(self) -> frozenset[str]:
        return frozenset(self.core_decisions) | {d.name for v in VARIANTS.values() for d in v.decisions}

    def missing_for(self, cls: type[Any], rules: Rules) -> list[str]:
        return strategy.missing_for(cls, rules)

    def observation(self, rules: Rules, seat: int, side: int, side_of: tuple[int, ...] | None) -> Any:
        return rules.program.observation(seat, side, rules, side_of)

    def book_deck(self, rules: Rules, entry: dict[str, Any], dealer: int) -> tuple[int, ...]:
        return book.book_deck(rules, entry, dealer)

    def addressed_deck(self, rules: Rules, seed: int, address: tuple[int, int], deal: int) -> tuple[int, ...]:
        return book.addressed_deck(rules, seed, address, deal)

    def book_line(self, rules: Rules, dealer: int, deck: Sequence[int]) -> dict[str, Any]:
        return book.book_line(rules, dealer, deck)

    def layouts(self, rules: Rules, games: int) -> list[tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]]:
        return [rules.program.layout(g) for g in range(games)]

    def code_modules(self, rules: Rules) -> list[str]:
        return outside_modules(rules.modules)

    def changes(self, rules: Rules) -> dict[str, tuple[str, ...]]:
        out = {v.name: v.changes() for v in rules.modules if v.changes()}
        if not rules.scoring.standard:
            out["scoring"] = tuple(sorted(rules.scoring.to_dict()))
        return out

    def fast_lane(self, rules: Rules, strategies: Sequence[tuple[str, dict[str, Any]]]) -> FastLane | None:
        return lane.fast_lane(rules, strategies)

    def slow_note(self, rules: Rules) -> str | None:
        return lane.refusal(rules) if lane.module() is not None else None

    def search_note(self, rules: Rules, strategies: Sequence[str]) -> str | None:
        searching = [s for s in strategies if s in SEARCHERS]
        if not searching or not lane.searches_play(rules):
            return None  # (a variant that changes the show alone keeps its games out, not their searches)
        if lane.rollouts_for(rules):
            return f"{' and '.join(searching)} search in the native lane"
        # (its games, and what runs on to a show there, a keep's count or the board's deals, are the engine's)
        return f"{' and '.join(searching)} search the play in the native lane ({rules.name}: its games in Python)"

    def allow_fast(self, allowed: bool) -> bool:
        return lane.allow_rollouts(allowed)

    def lane_status(self) -> str | None:
        return lane.status()

    def catalogue(self) -> list[str]:
        lines = []
        for v in VARIANTS.values():
            lines.append(f"{v.name:<30} {v.rule}: {v.summary}")
            lines += [f"{'':<32}{p.describe()}" for p in v.params]
        return lines



GAME = Cribbage()
