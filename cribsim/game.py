"""The game protocol: what a game gives the kernel, and the kernel's typed view of rules, results
and observations.

A game is a package under ``cribsim/games/`` (or a module outside cribsim named
``module:attribute`` in a config) exposing ``GAME``, an instance of a :class:`Game` subclass.
The kernel (the tournament, the records, isolation, the command line) reaches a game only
through this class, so it never names one; :mod:`cribsim.games` finds and loads them.

A subclass must give :attr:`Game.name`, :attr:`Game.title`, :attr:`Game.default_rules`,
:attr:`Game.builtins` and the four methods marked abstract (rules, one game, its replay, its
narration). Everything else has a default that fits a simple game: a match is games until the
match format is settled, every game's winner scores the win's game points, the next game is
led by the seat after the last one's first, and the summary shows games, the first player's
win rate and deals per game."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeAlias, TypeVar

from .matchplay import MatchResult, make_strategies, settled
from .records import Column, GameRecord

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from .gamelog import GameLog, GameTape, MatchTape
    from .opening import Opening
    from .ruleset import MatchFormat

JSON = Any  # a value of parsed JSON (typing cannot say it exactly)


class Rules(Protocol):
    """What the kernel reads of any game's rules (a frozen, fingerprinted object)."""

    @property
    def name(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def sides(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def match(self) -> MatchFormat: ...
    @property
    def target(self) -> int: ...
    @property
    def side_of(self) -> tuple[int, ...]: ...
    def to_dict(self) -> dict[str, JSON]: ...
    def fingerprint(self) -> str: ...
    def describe(self) -> str: ...


class Observation(Protocol):
    """What the kernel reads of a seat's view (each game adds its own fields)."""

    seat: int
    side: int


class PlayedGame(Protocol):
    """What the kernel reads of a finished (or replayed) game."""

    winner: int
    scores: tuple[int, ...]
    stopped: str | None

    @property
    def deals(self) -> int: ...
    def record(self, skunk: int, rules: Any) -> GameRecord: ...


Ints: TypeAlias = "NDArray[np.int64]"  # (numpy is imported where the arrays are made: a game loads without it)


@dataclass(frozen=True)
class LaneMatches:
    """A batch of matches a faster lane played whole, in one call (:meth:`FastLane.play_matches`):
    every match's line of the records file (``text``: what ``json.dumps`` writes of
    ``MatchRecord.to_json()``, a line a match, in the order asked, each ending at its ``ends``),
    and what the summary sums read of them: each game's figures by field path (``games``, as
    :meth:`cribsim.records.GameRecord.value` reads them: ``deals``, ``points.peg.0``; ``game_match``
    the match of each game), and by match the winning side (-1: drawn), the game points by side
    and the last game's scores by side (rows of ``game_points`` and ``last_scores``)."""

    text: bytes
    ends: Ints
    game_match: Ints
    games: Mapping[str, Ints]
    winner: Ints
    game_points: Ints
    last_scores: Ints


class FastLane(Protocol):
    """A game's faster lane for one rule set and lineup (:meth:`Game.fast_lane`): the same
    matches, record for record, as the game's own ``play_match`` with those strategies."""

    name: str  # said in the run's start line and run.json

    def batch_fields(self) -> frozenset[str] | None:
        """The per-game figures :meth:`play_matches` gives (field paths), or None where it plays
        no whole batches of its rules (the matches are played one by one)."""
        ...

    def play_matches(self, seed: int, deal_seed: int, specs: Ints) -> LaneMatches:
        """Whole matches without a counting model, an opening or a game record, a row of
        ``specs`` each (variant, table, group, seating, then the lineup entry at each side; every
        one a match it :meth:`plays`), the first dealer of each cut for, every deck addressed by
        the match key ``derive(deal_seed, table, group) >> 1`` (:meth:`cribsim.tournament.schedule.Schedule.spec`)."""
        ...

    def plays(self, entries: Sequence[int]) -> bool:
        """Whether it plays a match with these lineup entries seated (by seat)."""
        ...

    def play_match(self, seed: int, match_key: int, entries: Sequence[int],
                   counters: Sequence[tuple[float, float]] | None = None) -> MatchResult:
        """One match, ``entries[seat]`` the lineup entry in each seat, the first dealer cut for;
        ``counters`` (per seat: miss rate, vigilance) where the game has a counting model."""
        ...


Factory = Callable[[random.Random], Any]  # makes one seat's strategy for a match
R = TypeVar("R", bound=Rules)  # a game's own rules class


class Game(ABC, Generic[R]):
    """One game on the tournament machinery (see the module doc), over its own rules class ``R``."""

    name: str = ""  # the package's name (an outside game: its module:attribute spec)
    title: ClassVar[str] = ""  # for people: "Cribbage"
    default: ClassVar[bool] = False  # the game of a config or rules file without game:
    default_rules: ClassVar[str] = ""  # the preset an experiment without variants: plays
    builtins: ClassVar[Mapping[str, str]] = {}  # built-in strategies: short name -> module:Class
    core_decisions: ClassVar[tuple[str, ...]] = ("play",)  # every strategy of the game makes these
    counting_model: ClassVar[bool] = False  # lineup entries may give miss_rate and vigilance
    presets_by_players: ClassVar[Mapping[tuple[int, bool], str]] = {}  # cribsim play --players N [--teams]
    # the module of the game's own commands (cribbage's score, peg, dealstats): its
    # add_commands(subparsers) adds them; the command line alone imports it, so a game loads light
    commands: ClassVar[str | None] = None
    # the module of the game's table for a person (cribsim play --human): its view(rules) gives
    # a cribsim.human.View; None: nobody can sit at this game's table yet
    human: ClassVar[str | None] = None
    # the module of the game's table for environments (cribsim.env: PettingZoo, OpenSpiel): its
    # table(rules) gives a cribsim.env.table.Table; None: the game has none
    env: ClassVar[str | None] = None
    columns: ClassVar[tuple[Column, ...]] = (
        Column("games", "count"),
        Column("first player wins", "rate", "first_dealer_won", plot=True),
        Column("deals/game", "mean", "deals", plot=True),
    )

    # ---- what every game gives -------------------------------------------------------------
    @abstractmethod
    def build_rules(self, data: dict[str, JSON], source: str) -> R:
        """Rules from a rules file's mapping (``extends:`` already followed), validated: an
        unknown key or a bad value is a one-line ConfigError naming ``source`` and the key."""

    @abstractmethod
    def play_game(self, rules: R, strategies: Sequence[Any], seed: int, address: tuple[int, int],
                  first: int | None = None, log: bool = False, start_scores: Sequence[int] | None = None,
                  tape: GameTape | None = None,
                  counters: Sequence[tuple[float, float]] | None = None,
                  events: list[Any] | None = None) -> PlayedGame:
        """One game: ``address`` is (match key, game number), from which every random draw is
        derived; ``first`` None draws for the first player; ``log`` keeps the events for
        :meth:`narrate`; ``events`` (a list of the caller's; implies ``log``) is where they are
        kept as they happen (a person at the table sees them so); a ``tape`` records decks and
        answers (a game record); ``counters`` (per seat: miss rate, vigilance) only for a game
        with a counting model."""

    @abstractmethod
    def replay_game(self, rules: R, log: GameLog, seed: int, address: tuple[int, int],
                    counters: Sequence[tuple[float, float]] | None, where: str, partial: bool = False) -> PlayedGame:
        """A recorded game played again from its decks and answers, each checked by the rules
        (RecordFileError naming ``where`` for one they refuse); with ``partial`` a forfeited
        game as far as it went."""

    @abstractmethod
    def narrate(self, rules: R, result: Any, names: list[str] | None = None) -> list[str]:
        """Lines of text for a game played or replayed with its events."""

    # ---- matches: defaults for a simple game ----------------------------------------------
    def play_match(self, rules: R, factories: Sequence[Factory], seed: int, match_key: int,
                   first_dealer: int | None = None, log: bool = False, opening: Opening | None = None,
                   tape: MatchTape | None = None,
                   counters: Sequence[tuple[float, float]] | None = None) -> MatchResult:
        """Games until the match format is settled (``after_game``)."""
        strategies = make_strategies(factories)
        points = [0] * len(rules.sides)
        result = MatchResult(-1, points)
        first = first_dealer
        start = opening.scores if opening is not None else None
        g = 0
        while True:
            if opening is not None and opening.dealer is not None:
                first = opening.dealer
            game = self.play_game(rules, strategies, seed, (match_key, g), first, log, start,
                                  tape.game() if tape is not None else None, counters)
            g += 1
            result.games.append(game)
            result.skunks.append(0)
            _, over = self.after_game(rules, game, points, g)
            if over is not None:
                result.winner = over
                return result
            first = self.next_first(rules, game)

    def after_game(self, rules: R, game: Any, points: list[int], played: int) -> tuple[int, int | None]:
        """Score a finished game into the match: (its skunk level, the match's winner once
        settled, else None); ``points`` (game points by side) is updated."""
        points[game.winner] += rules.match.points_table()["win"]
        return 0, settled(rules.match, points, played, game.winner)

    def next_first(self, rules: R, game: Any) -> int:
        """Who plays first in the next game of a match."""
        first: int = game.first_dealer
        players: int = rules.players
        return (first + 1) % players

    # ---- a faster lane for some rules and lineups ------------------------------------------
    def fast_lane(self, rules: R, strategies: Sequence[tuple[str, dict[str, JSON]]]) -> FastLane | None:
        """A lane that plays ``rules`` with a lineup (each entry's strategy name and parameters)
        faster than the Python engine, game for game the same (None: no such lane)."""
        return None

    def slow_note(self, rules: R) -> str | None:
        """Why the faster lane does not play ``rules`` (a variant without a port to it, say), for
        the start line; None where it does, or the game has no faster lane."""
        return None

    def search_note(self, rules: R, strategies: Sequence[str]) -> str | None:
        """Which of these strategies search in the faster lane under ``rules`` (for the start
        line and run.json), or None."""
        return None

    def allow_fast(self, allowed: bool) -> bool:
        """Whether the game's strategies may search in its faster lane in this process (a run
        with ``--no-fast``: no; the same decisions either way); returns the setting before."""
        return True

    def lane_status(self) -> str | None:
        """One line on the faster lane where the game has one (``cribsim --version``)."""
        return None

    # ---- what the kernel asks of a game's rules and strategies -----------------------------
    def summary_info(self, rules: R) -> dict[str, JSON]:
        """For the manifest: sides, objective (-1: lower scores rank higher), target, players,
        trail checkpoints per deal and the summary columns."""
        return {"sides": len(rules.sides), "objective": 1, "target": rules.target, "players": rules.players,
                "checkpoints": 1, "columns": [c.to_json() for c in self.columns]}

    def decisions(self) -> frozenset[str]:
        """Every decision a rule set of this game may ask of a strategy."""
        return frozenset(self.core_decisions)

    def missing_for(self, cls: type[Any], rules: R) -> list[str]:
        """What ``rules`` need that strategy class ``cls`` lacks (phrases for an error)."""
        return []

    def changes(self, rules: R) -> dict[str, tuple[str, ...]]:
        """What ``rules`` change of the game's standard rules that a player's values may rest
        on, by the name of what changes it (a variant's name, ``scoring`` for a block of point
        values) and how (a variant's hooks, decisions and phases, the keys of the block); a
        strategy's :class:`~cribsim.strategy.Models` names those it takes into account."""
        return {}

    def code_modules(self, rules: R) -> list[str]:
        """The modules of code of one's own that ``rules`` name, such as a designer's variant
        (each a file or a package folder): what a sandboxed bot's host must import to rebuild them."""
        return []

    def observation(self, rules: R, seat: int, side: int, side_of: tuple[int, ...] | None) -> Any:
        """A fresh observation of ``seat`` (the plug-in host rebuilds the view it is sent)."""
        raise NotImplementedError(f"{self.name} cannot play isolated plug-ins")

    # ---- deal books, start positions and the command line -----------------------------------
    def book_deck(self, rules: R, entry: dict[str, JSON], dealer: int) -> tuple[int, ...]:
        """A deal book line (``hands``, ...) as the deck of the first deal (ValueError: why not)."""
        raise ValueError(f"{self.title or self.name} has no deal books")

    def addressed_deck(self, rules: R, seed: int, address: tuple[int, int], deal: int) -> tuple[int, ...]:
        """The deck the random streams give at (seed, match key, game, deal)."""
        raise ValueError(f"{self.title or self.name} has no deal books")

    def book_line(self, rules: R, dealer: int, deck: Sequence[int]) -> dict[str, JSON]:
        """A deck written out as a deal book line."""
        raise ValueError(f"{self.title or self.name} has no deal books")

    def layouts(self, rules: R, games: int) -> list[tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]]:
        """The sides and targets of the first ``games`` games of a match (a start position is
        checked against them)."""
        return [(rules.sides, (rules.target,) * len(rules.sides))] * games

    def catalogue(self) -> list[str]:
        """Lines for ``cribsim list`` about the game's variants (none by default)."""
        return []

