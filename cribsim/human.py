"""A person at the table: a seat whose decisions are asked in the terminal (``cribsim play
--human SEAT``).

The seat is a strategy like any other to the engine: the engine asks it each decision with the
seat's observation, and checks the answer with its own rules. What a person needs around that
comes from the game's :class:`View` (``Game.human``, a module of the game's package): what to
show (the hand, the table, the scores), the legal answers by name, reading an answer typed by
name or by number, a hint from the game's best strategy with its values, and what happened
since the last decision, from the game's own narration of the events so far, without the cards
this seat may not see. A typed number is never two things: the answers are numbered only where
no answer is itself a number (a bid is typed as its value, and bids are not numbered). ``?``
asks for the hint, ``q`` leaves the game; an answer that is not legal
is asked again with a one-line reason."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

SHOWN = 40  # answers listed (and taken by number) up to this many; more are typed by name


class Quit(Exception):
    """The person left the game: how (``q``, or the end of input) is its message."""


@dataclass(frozen=True)
class Option:
    """A legal answer and how it is shown (and may be typed)."""

    answer: Any
    label: str


class View(Protocol):
    """A game's table as one seat sees it in the terminal."""

    decisions: frozenset[str]

    def situation(self, obs: Any, decision: str) -> list[str]:
        """Lines showing what the seat sees before this decision."""

    def options(self, obs: Any, decision: str) -> list[Option]:
        """Every legal answer, in a fixed order."""

    def read(self, text: str, obs: Any, decision: str, options: Sequence[Option]) -> Option | str:
        """The option ``text`` names (by number or by name), or why it names none."""

    def numbered(self, decision: str) -> bool:
        """Whether the answers to ``decision`` are listed with numbers to type (False where a
        typed number is an answer itself: a bid)."""

    def how(self, decision: str, listed: bool) -> str:
        """How an answer to ``decision`` is typed (``listed``: its answers are shown numbered)."""

    def hint(self, obs: Any, decision: str) -> list[str]:
        """The game's best strategy's answer, with its values where it has them."""

    def news(self, events: Sequence[Any], obs: Any) -> list[str]:
        """Lines narrating ``events`` (the game's so far) as the seat of ``obs`` may see them."""


class HumanSeat:
    """The strategy of a seat a person plays: asks each decision in the terminal."""

    name = "human"

    def __init__(self, view: View, seat: int, events: list[Any], ask: Callable[[str], str],
                 say: Callable[[str], None]) -> None:
        self.view, self.seat, self.events = view, seat, events
        self.ask_line, self.say = ask, say
        self.rng = random.Random()  # (seeded by the engine like any strategy's; a person needs none)
        self.told = 0  # lines of the narration already shown
        self.last: Any = None  # the observation of the last decision

    def __getattr__(self, decision: str) -> Callable[[Any], Any]:
        if decision.startswith("_") or decision not in self.view.decisions:
            raise AttributeError(decision)
        return lambda obs: self.decide(decision, obs)

    def catch_up(self, obs: Any) -> None:
        """Show what happened since the last time."""
        lines = self.view.news(self.events, obs)
        for line in lines[self.told:]:
            self.say(line)
        self.told = max(self.told, len(lines))

    def finish(self) -> None:
        """After the game: what happened since the last decision."""
        if self.last is not None:
            self.catch_up(self.last)

    def decide(self, decision: str, obs: Any) -> Any:
        self.last = obs
        self.catch_up(obs)
        for line in self.view.situation(obs, decision):
            self.say(line)
        options = self.view.options(obs, decision)
        listed = self.view.numbered(decision) and len(options) <= SHOWN
        if listed:
            for i, o in enumerate(options, 1):
                self.say(f"  {i:>2}) {o.label}")
        how = self.view.how(decision, listed)
        while True:
            text = self.ask_line(f"Your {decision.replace('_', ' ')} ({how}; ? for a hint, q to leave): ")
            text = text.strip()
            if text.lower() in ("q", "quit"):
                raise Quit("q")
            if text == "?":
                for line in self.view.hint(obs, decision):
                    self.say(line)
                continue
            got = self.view.read(text, obs, decision, options)
            if isinstance(got, Option):
                return got.answer
            self.say(f"  {got}")


def terminal(stream_in: TextIO, stream_out: TextIO) -> tuple[Callable[[str], str], Callable[[str], None]]:
    """(ask, say) on a pair of text streams; the end of input leaves the game."""
    def ask(prompt: str) -> str:
        stream_out.write(prompt)
        stream_out.flush()
        line = stream_in.readline()
        if not line:
            raise Quit("the end of input")
        return line

    def say(line: str) -> None:
        stream_out.write(line + "\n")
        stream_out.flush()
    return ask, say
