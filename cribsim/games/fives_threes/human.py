"""Fives and Threes as a person sees it at the table (``cribsim play --human SEAT``; the terminal
loop is :mod:`cribsim.human`): the legal moves are the engine's own (``obs.legal``), the news the
game's own narration of the events so far without another seat's tiles, and the hint ``mc``'s
move."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cribsim.errors import CribsimError
from cribsim.human import Option
from cribsim.seats import seat_names, side_names
from cribsim.strategy import factory

from .narrate import ends_str, narrate
from .rules import DominoRules
from .tiles import parse_tile, tile_str, tiles_str

OPPONENT = "greedy"  # who sits at the other seats unless --against says


@dataclass
class _Partial:
    """What the narration needs of a game in progress."""

    events: list[Any]
    first_leader: int
    start_scores: Any = None
    winner: int = -1
    stopped: str = ""


class FivesThreesView:
    """The :class:`cribsim.human.View` of a Fives and Threes rule set."""

    decisions = frozenset({"play"})

    def __init__(self, rules: DominoRules) -> None:
        self.rules = rules
        self.names = seat_names(rules)
        self._hint: Any = None

    def situation(self, obs: Any, decision: str) -> list[str]:
        sides = side_names(self.rules, self.names)
        score = ", ".join(f"{s} {v}" for s, v in zip(sides, obs.scores))
        ends = f"ends {ends_str(obs.ends)} = {obs.total}" if obs.ends is not None else "you lead"
        return [f"-- {self.names[obs.seat]} to lay (hand {obs.hand_no + 1}; score {score})",
                f"   {ends}; your tiles {tiles_str(obs.hand)}"]

    def options(self, obs: Any, decision: str) -> list[Option]:
        return [Option(m, f"{tile_str(m[0])}" + (f" on end {m[1]}" if obs.ends is not None else "")) for m in obs.legal]

    def numbered(self, decision: str) -> bool:
        return True

    def how(self, decision: str, listed: bool) -> str:
        return "a number, or a tile and its end"

    def read(self, text: str, obs: Any, decision: str, options: Sequence[Option]) -> Option | str:
        """By number (a bare number is always one: a tile is typed with its pips apart), or a
        tile and (when both ends take it) the end: ``5-3``, ``5-3 1``, ``[5|3] on end 1``."""
        words = [w for w in text.split() if w.lower() not in ("on", "end")]
        if not words:
            return "type an answer (its number or its tile), ? for a hint or q to leave"
        if len(words) == 1 and words[0].isdecimal():
            n = int(words[0]) if len(words[0]) < 6 else 0
            if 1 <= n <= len(options):
                return options[n - 1]
            return f"{words[0]} is not one of 1 to {len(options)} (a tile is typed with its pips apart: 1-4)"
        try:
            t = parse_tile(words[0])
        except CribsimError as e:
            return str(e).removeprefix("cribsim: ")
        fits = [o for o in options if o.answer[0] == t and (len(words) == 1 or str(o.answer[1]) == words[1])]
        if len(fits) == 1:
            return fits[0]
        if fits:
            return f"{tile_str(t)} fits both ends: give the end too ({tile_str(t)} 0 or {tile_str(t)} 1)"
        return f"{tile_str(t)} cannot be laid now" if t in obs.hand else f"you do not hold {tile_str(t)}"

    def hint(self, obs: Any, decision: str) -> list[str]:
        if self._hint is None:
            self._hint = factory("mc", {}, rules=(self.rules,), game="fives_threes")(random.Random(0))
        move = tuple(self._hint.play(obs))
        label = next((o.label for o in self.options(obs, decision) if o.answer == move), str(move))
        return [f"  mc would lay {label}"]

    def news(self, events: Sequence[Any], obs: Any) -> list[str]:
        seen = [e for e in events if e.kind != "deal" or e.seat == obs.seat]
        if not seen:
            return []
        first = (obs.leader - obs.hand_no) % self.rules.players  # (the lead passes clockwise)
        return narrate(self.rules, _Partial(seen, first), self.names)[:-2]


def view(rules: DominoRules) -> FivesThreesView:
    return FivesThreesView(rules)
