"""Cribbage as a person sees it at the table (``cribsim play --human SEAT``; the terminal loop
is :mod:`cribsim.human`). The legal answers are the engine's own (``Decision.legal``), the
reason an answer is refused the engine's own (``Decision.check``), the news the game's own
narration of the events so far without the cards this seat may not see, and the hint
``expert``'s answer with ``ev``'s expected points of the best discards, and why ``expert``
differs from ``ev`` where it does (``ExpertStrategy.explain``: from what its decision computed)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cribsim.errors import CribsimError
from cribsim.human import SHOWN, Option
from cribsim.seats import seat_names, side_names
from cribsim.strategy import factory

from .cards import RANK, WILD_BASE, card_str, cards_str, parse_cards
from .engine.variant import Decision
from .narrate import narrate
from .rules import Rules

HIDDEN = ("deal", "discard")  # events whose cards only their seat sees (the crib: nobody, until the show)
# (a variant adds its own: Variant.private)


def label(decision: Decision, answer: Any) -> str:
    """An answer as a person reads (and may type) it: the decision's own words, else cards (a
    card laid as another, ``(card, named)``: ``JK as 5H``)."""
    if decision.show is not None:
        return decision.show(answer)
    if answer is None:
        return "pass"
    if isinstance(answer, int):
        return card_str(answer)
    if decision.name == "play" and len(answer) == 2:
        return f"{card_str(answer[0])} as {card_str(answer[1])}"
    return cards_str(answer)


OPPONENT = "ev"  # who sits at the other seats unless --against says


@dataclass
class _Partial:
    """What the narration needs of a game in progress (it reads a finished game's result)."""

    events: list[Any]
    first_dealer: int
    sides: tuple[tuple[int, ...], ...]
    side_of: tuple[int, ...]
    targets: tuple[int, ...]
    start_scores: Any = None
    winner: int = -1
    stopped: str = ""


class CribbageView:
    """The :class:`cribsim.human.View` of a cribbage rule set."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.decisions = frozenset(rules.program.decisions)
        self.names = seat_names(rules)
        self._strategies: dict[str, Any] = {}  # the hint's, made once
        self.hidden = frozenset(HIDDEN) | {src for v in rules.modules for src in getattr(v, "private", ())}

    # ---- what the seat sees ------------------------------------------------------------------
    def situation(self, obs: Any, decision: str) -> list[str]:
        names = self.names
        sides = side_names(self.rules, names, _sides(obs))
        score = ", ".join(f"{s} {v}" for s, v in zip(sides, obs.scores))
        out = [f"-- {names[obs.seat]} to {decision.replace('_', ' ')} (deal {obs.deal_no + 1}, {names[obs.dealer]} "
               f"deals; score {score})"]
        d = self.rules.program.decisions[decision]
        if decision == "play":
            out.append(f"   starter {card_str(obs.starter) if obs.starter is not None else '-'}, count {obs.count}, "
                       f"pile {cards_str(obs.pile) or '-'}; your cards {cards_str(obs.hand)}")
        else:
            out.append(f"   your hand {cards_str(obs.hand)}")
        if decision == "discard":
            out.append(f"   lay away {obs.discards} to {names[obs.crib_owner]}'s crib" +
                       (f" (the rules: {_rule(obs.discard_rule)})" if obs.discard_rule else ""))
        if d.prompt is not None:
            out.append(f"   {d.prompt(obs)}")
        return out

    def options(self, obs: Any, decision: str) -> list[Option]:
        d = self.rules.program.decisions[decision]
        return [Option(a, label(d, a)) for a in d.legal(obs)]

    def numbered(self, decision: str) -> bool:
        """Whether the answers are listed with numbers: not where they are numbers (a bid)."""
        return self.rules.program.decisions[decision].numbers is None

    def how(self, decision: str, listed: bool) -> str:
        d = self.rules.program.decisions[decision]
        return d.how or ("a number or by name" if listed else "by name")

    def read(self, text: str, obs: Any, decision: str, options: Sequence[Option]) -> Option | str:
        """By number where the answers are numbered (a bare number is never a name there), else
        by name: cards (``5h 6h``), a card laid as another (``jk as 5h``, any card of the rank
        named), ``pass``, or the decision's own words (a bid by its value)."""
        d = self.rules.program.decisions[decision]
        words = text.replace(",", " ").split()
        if not words:
            return f"type {d.how or 'an answer (its number or its cards)'}, ? for a hint or q to leave"
        if d.numbers is None and len(words) == 1 and words[0].isdecimal():
            return _by_number(words[0], options)
        try:
            answer = d.read(words, obs) if d.read is not None else _cards_answer(words, decision, obs)
        except (CribsimError, ValueError) as e:
            return str(e).removeprefix("cribsim: ")
        play = decision == "play"
        for o in options:
            if _same(o.answer, answer, play):
                return Option(answer, label(d, answer)) if play and _laid_as(answer) else o
        return f"{label(d, answer)} is not a legal {decision.replace('_', ' ')} now"

    # ---- help ------------------------------------------------------------------------------------
    def hint(self, obs: Any, decision: str) -> list[str]:
        """``expert``'s answer; for a discard ``ev``'s expected points of the best three; and in
        one line why ``expert`` differs from ``ev``'s choice by points, when it does."""
        expert = self._strategy("expert")
        answer, why = expert.explain(obs, decision)
        d = self.rules.program.decisions[decision]
        out = [f"  expert would {decision.replace('_', ' ')} {label(d, _tupled(answer))}"]
        if decision == "discard":
            out.append(self._ev_discards(obs))
        return out + ([f"  why: {why}"] if why else [])

    def _ev_discards(self, obs: Any) -> str:
        ev = self._strategy("ev")
        ranked = sorted(((ev.keep_value(obs, [c for c in obs.hand if c not in set(o.answer)], list(o.answer)),
                          o.label) for o in self.options(obs, "discard")), reverse=obs.rules.objective > 0)
        return "  ev's expected points (hand and crib) of the best discards: " + \
            "; ".join(f"{lab} {v:+.2f}" for v, lab in ranked[:3])

    def _strategy(self, name: str) -> Any:
        if name not in self._strategies:
            self._strategies[name] = factory(name, {}, rules=(self.rules,), game="cribbage")(random.Random(0))
        return self._strategies[name]

    # ---- what happened -----------------------------------------------------------------------
    def news(self, events: Sequence[Any], obs: Any) -> list[str]:
        """The narration of the events so far, without another seat's dealt or discarded cards
        (nor the crib's from the deck)."""
        seat = obs.seat
        seen = [e for e in events if e.source not in self.hidden or (e.seat == seat and e.reason != "crib")]
        if not seen:
            return []
        r = self.rules
        first = (obs.dealer - obs.deal_no) % r.players  # (the deal passes left each deal)
        sides, targets = r.program.layout(obs.game_no)
        game = _Partial(seen, first, tuple(sides), tuple(obs.side_of), tuple(int(t) for t in targets))
        return narrate(r, game, self.names)[:-2]  # (it ends with a blank line and where play stopped)


def _cards_answer(words: list[str], decision: str, obs: Any) -> Any:
    """A core decision's answer typed as cards: ``pass``; a card to lay, or a wild card laid as
    another (``jk as 5h``); the cards of a discard (or of an inspection). ``JK`` is whichever
    wild card this seat holds."""
    if [w.lower() for w in words] == ["pass"]:
        return None
    held = [c for c in (*obs.hand, *getattr(obs, "crib", ())) if c >= WILD_BASE]
    if decision != "play":
        return _as_held(parse_cards(words), held)
    if len(words) == 3 and words[1].lower() == "as":
        card, named = _as_held(parse_cards([words[0]]), held)[0], parse_cards([words[2]])[0]
        return card, named
    if len(words) != 1:
        raise CribsimError("cribsim: lay one card (one laid as another: jk as 5h)")
    card = _as_held(parse_cards(words), held)[0]
    if card >= WILD_BASE and card in held:
        raise CribsimError("cribsim: name the wild card as you lay it: jk as 5h (any card that fits the count)")
    return card


def _as_held(cards: list[int], held: list[int]) -> list[int]:
    """Typed cards with each ``JK`` (numbered 52, 53, ... as typed) made one of the wild cards
    held, in order: the second joker of the deck is typed ``JK`` too."""
    wild = iter(held)
    return [next(wild, c) if c >= WILD_BASE else c for c in cards]


def _by_number(word: str, options: Sequence[Option]) -> Option | str:
    """The option a number typed names."""
    if len(options) > SHOWN:
        return "type the answer by name: the answers are too many to number"
    n = int(word) if len(word) < 6 else 0
    return options[n - 1] if 1 <= n <= len(options) else f"{word} is not one of 1 to {len(options)}"


def view(rules: Rules) -> CribbageView:
    return CribbageView(rules)


def _sides(obs: Any) -> list[list[int]]:
    n = max(obs.side_of) + 1
    return [[s for s, side in enumerate(obs.side_of) if side == k] for k in range(n)]


def _rule(rule: Any) -> str:
    must, pool = rule
    return f"include {cards_str(must)}, from {cards_str(pool)}"


def _same(a: Any, b: Any, play: bool) -> bool:
    """Whether a typed answer is this option: sets of cards in any order (also a tuple of sets),
    in the ``play`` a card laid as another of the same rank (the suit never counts there)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        if all(isinstance(x, (list, tuple)) for x in (*a, *b)):
            return all(sorted(x) == sorted(y) for x, y in zip(a, b))
        if all(isinstance(x, int) for x in (*a, *b)):
            if play and _laid_as(a):
                return a[0] == b[0] and RANK[a[1]] == RANK[b[1]]
            return sorted(a) == sorted(b)
    return bool(a == b)


def _laid_as(answer: Any) -> bool:
    """Whether an answer is a wild card laid as another, ``(card, named)``."""
    return isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], int) and answer[0] >= WILD_BASE


def _tupled(answer: Any) -> Any:
    return tuple(answer) if isinstance(answer, list) else answer

