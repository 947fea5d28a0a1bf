"""The game's side of every environment bridge: a :class:`Table` drives one game of the
engine's own state machine decision by decision, encodes what a seat sees as a fixed-size
vector, and spells every legal answer as a short sequence of tokens.

Why tokens: a framework's agent picks one action out of a fixed set, but a game's answers may
be compound (several cards laid away at once, a wild card and what it stands for). Each answer
is a sequence of tokens from one fixed vocabulary, and no
answer's sequence begins another's (prefix-free); an agent picks one token at a time, masked to
those that lead to some legal answer (:class:`Chooser`), and the answer is applied when its
last token is picked. A single-token answer is one step. This module
imports no framework: the PettingZoo and OpenSpiel bridges both build on it."""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from ..errors import CribsimError
from ..games import game_named
from ..rng import STRATEGY, derive
from ..ruleset import load_rules
from ..strategy import factory

CHANCE = -2  # the "seat" a table in chance mode names when the next step is a draw


class Vector(Protocol):
    """Where an observation is written: a float32 numpy array, zeroed (written by index, and by
    a list of indices at once)."""

    def __setitem__(self, index: Any, value: float) -> None: ...


class Choice(NamedTuple):
    """One legal answer and its tokens (a named tuple: one is made for every legal answer)."""

    tokens: tuple[int, ...]
    answer: Any  # the answer as the game's engine takes it


class Table(Protocol):
    """One game of the engine, driven from outside (see the module doc). ``actor`` is the
    seat to act, :data:`CHANCE` for a draw (chance mode only), -1 once the game is over."""

    players: int
    sides: int
    zero_sum: bool  # every game's sides are of one size (the game rewards of its seats add up to 0)
    draws: int  # how many different things a draw may give (the deck's cards)
    tokens: int  # the size of the token vocabulary (the action space)
    size: int  # the length of an observation vector
    actor: int

    def reset(self, seed: int, address: tuple[int, int], chance: bool = False, first: int | None = None) -> None:
        """A new game: the one cribsim plays at (seed, match key, game number), the first player
        ``first`` or cut (drawn) as cribsim does; with ``chance`` the draws are steps
        (:meth:`outcomes`)."""

    def choices(self) -> list[Choice]:
        """Every legal answer of ``actor``, each with its tokens (prefix-free)."""

    def apply(self, answer: Any) -> None:
        """Answer for ``actor`` (an answer of :meth:`choices`); runs to the next decision."""

    def spell(self, answer: Any) -> tuple[int, ...]:
        """The tokens of one of ``actor``'s legal answers."""

    def answer_of(self, strategy: Any) -> Any:
        """What a cribsim strategy answers for ``actor`` now (from the engine's own view)."""

    def outcomes(self) -> list[int]:
        """At a draw (``actor`` is CHANCE): what may be drawn, each equally likely."""

    def draw(self, outcome: int) -> None:
        """At a draw: what was drawn (one of :meth:`outcomes`)."""

    def observe(self, seat: int, chosen: Sequence[int], out: Vector) -> None:
        """Write what ``seat`` sees into ``out`` (zeroed, ``size`` long); ``chosen`` are the
        tokens it has picked so far of its answer."""

    def view(self, seat: int) -> tuple[Any, str]:
        """What ``seat`` sees (its observation, complete when it is to act) and the decision it
        is asked or was last asked: what :meth:`world` takes."""

    def world(self, view: Any, decision: str, rng: random.Random) -> None:
        """Put the table at a game ``view`` (a seat's observation at ``decision``) cannot be told
        from, what the seat has not seen drawn with ``rng`` (ValueError for rules it cannot
        sample): what a searching bot in a cribsim seat plays in."""

    def deal(self) -> int:
        """The deal (hand) in play."""

    def scores(self) -> tuple[int, ...]:
        """The scores by side."""

    def side_of(self, seat: int) -> int:
        """The side of ``seat`` in this game."""

    def objective(self) -> int:
        """1: more points are better; -1: fewer."""

    def winner(self) -> int:
        """The side that won as the rules rank sides (once the game is over; -1 before)."""

    def info_key(self, seat: int) -> str:
        """A string naming everything ``seat`` has seen (its information state)."""

    def outcome_name(self, outcome: int) -> str:
        """What a draw gave, for people."""

    def token_name(self, token: int) -> str:
        """A token for people (``7H``, ``pass``)."""

    def describe(self) -> str:
        """The table as text (for ``render``)."""


def margins(table: Table) -> list[float]:
    """Each seat's side's score less the other sides' average, times the objective (what a
    seat is ahead by): the per-point rewards and the bot's leaf values."""
    scores = table.scores()
    k = len(scores)
    out = []
    for seat in range(table.players):
        own = table.side_of(seat)
        others = (sum(scores) - scores[own]) / (k - 1) if k > 1 else 0.0
        out.append(table.objective() * (scores[own] - others))
    return out


def game_rewards(table: Table) -> list[float]:
    """At a game's end, per seat: +1 to each seat of the winning side, -1/(sides - 1) to the
    others (the sides of that game, the winner as the rules rank sides)."""
    winner, sides = table.winner(), len(table.scores())
    return [1.0 if table.side_of(s) == winner else -1.0 / (sides - 1) for s in range(table.players)]


class Chooser:
    """The tokens picked so far of one answer, among the legal answers (see the module doc)."""

    def __init__(self, choices: list[Choice]) -> None:
        if not choices:
            raise RuntimeError("a decision without a legal answer")
        self.live = choices
        self.chosen: list[int] = []

    def next_tokens(self) -> list[int]:
        """The tokens that extend what is picked to some legal answer (each once, in order)."""
        k = len(self.chosen)
        return sorted({c.tokens[k] for c in self.live})

    def pick(self, token: int) -> Choice | None:
        """Add ``token``; the answer once it is complete, else None. ValueError if it leads
        to no legal answer."""
        k = len(self.chosen)
        live = [c for c in self.live if c.tokens[k] == token]
        if not live:
            raise ValueError(f"token {token} is not legal here")
        self.live = live
        self.chosen.append(token)
        if len(live[0].tokens) == k + 1:
            if len(live) > 1:
                raise RuntimeError(f"answers {live[0].answer!r} and {live[1].answer!r} have the same tokens")
            return live[0]
        return None


def table_for(rules: Any) -> Table:
    """The table of a rules object's game (a CribsimError if the game has none)."""
    game = game_named(rules.game)
    if game.env is None:
        raise CribsimError(f"cribsim: {game.title or game.name} has no environment table")
    make: Any = importlib.import_module(game.env).table
    table: Table = make(rules)
    return table


def load_table(rules: str | Any) -> Table:
    """The table of a rules file, a preset's name or a rules object."""
    return table_for(load_rules(rules) if isinstance(rules, str) else rules)


class StrategySeat:
    """A cribsim strategy (a built-in's name or ``module:Class``) at an environment's table: the
    tokens of its answers, one at a time. Seeded per game as cribsim seeds it, so a table whose
    every seat is a StrategySeat plays the game cribsim plays at the same address."""

    def __init__(self, table: Table, spec: str, seat: int, rules: Any) -> None:
        self.table, self.seat = table, seat
        self.strategy = factory(spec, rules=(rules,), game=rules.game)(random.Random())
        self.pending: list[int] = []

    def new_game(self, seed: int, address: tuple[int, int]) -> None:
        self.strategy.rng.seed(derive(seed, *address, STRATEGY, self.seat))
        self.pending = []

    def token(self) -> int:
        """The next token of the strategy's answer to the decision asked of its seat."""
        if not self.pending:
            self.pending = list(self.table.spell(self.table.answer_of(self.strategy)))
        return self.pending.pop(0)
