"""Cribbage's table for the environment bridges (:mod:`cribsim.env.table`): the engine's own
:class:`~cribsim.games.cribbage.engine.state.GameState`, driven decision by decision.

Tokens (the action space, the same for every rules file but for the numbers):

==========  =====================================================================
0..55       a card (``rank * 4 + suit``; 52 and up: jokers)
56..107     "as" a standard card: the card a joker is named when it is laid
108         pass (a bid)
109..       the whole numbers 0..N of a decision that answers numbers (a bid up to
            the rules' ``max_bid``)
==========  =====================================================================

An answer's tokens: a card is its token; a set of cards (a discard, the cards kept at an
inspection) its cards in increasing order; Canadian doubles' passes the partner's cards then
the crib's, each in increasing order; a joker laid as a card the joker then the name.

The observation (floats in 0..1; seats and sides counted from the observer's): own cards, the
cards picked so far of the answer (each valued by its place in it, k/8) and how many, own cards
laid away, the starter, the pile since the last reset (as the cards count), the cards each seat
has laid this deal, the count, the scores (a share of the target, from 0 up), the dealer, the
crib's owner, the lowest count at which each seat said go this deal, the decision asked, and
the fields the rules' variants declare (:class:`~cribsim.games.cribbage.engine.variant.Feature`:
a standing bid, its bidder, the crib an inspecting player sees)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from cribsim.env.table import CHANCE, Choice, Vector
from cribsim.strategy import answer_fn

from . import worlds
from .cards import NUM_STANDARD, RANK, WILD_BASE, card_str
from .cards import card as card_of
from .engine.game import cut_for_deal
from .engine.state import CHANCE as ENGINE_CHANCE
from .engine.state import GameState
from .rules import Rules

CARDS = NUM_STANDARD + 4  # every card a deck may hold (jokers included)
NAMED = CARDS  # "as" a standard card
PASS = NAMED + NUM_STANDARD
NUMBER = PASS + 1
GO_SLOTS = 8  # how many tokens may be picked of one answer (one-hot of the count picked)
SPADES = 3  # the suit a joker's name is spelled in (V-JOKERS: in the play only the rank counts)


class Layout:
    """Where each part of the observation starts (see the module doc)."""

    def __init__(self, rules: Rules) -> None:
        n = rules.players
        program = rules.program
        self.index = {d: i for i, d in enumerate(sorted(program.decisions))}  # one flag per decision, in name order
        at = 0

        def part(width: int) -> int:
            nonlocal at
            at += width
            return at - width
        self.hand, self.chosen, self.picked = part(CARDS), part(CARDS), part(GO_SLOTS)
        self.discarded, self.starter, self.pile = part(CARDS), part(CARDS), part(CARDS)
        self.played = part(n * CARDS)
        self.count, self.scores = part(1), part(n)  # a game may have its own sides (two against one)
        self.dealer, self.crib_owner, self.gos = part(n), part(n), part(n)
        self.decision = part(len(self.index))
        self.features = []
        for f in program.features:
            width = {"cards": CARDS, "seat": n, "number": 1}[f.kind]
            self.features.append((f, part(width)))
        self.size = at


class CribbageTable:
    """One game of a cribbage rules file for an environment (see the module doc)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.players = rules.players
        self.sides = len(rules.sides)
        self.layout = Layout(rules)
        self.size = self.layout.size
        bounds = [getattr(rules, d.numbers) for d in rules.program.decisions.values() if d.numbers]
        self.tokens = NUMBER + (max(bounds) + 1 if bounds else 0)
        self.draws = rules.deck_size
        self.plain_play = rules.program.hooks.play_answers is None  # no card laid as another
        self.zero_sum = rules.program.hooks.layout is None and len({len(s) for s in rules.sides}) == 1
        self.g: GameState | None = None
        self.actor = -1

    # ---- driving the engine ---------------------------------------------------------------
    def reset(self, seed: int, address: tuple[int, int], chance: bool = False, first: int | None = None) -> None:
        dealer = cut_for_deal(self.rules, seed, address) if first is None else first  # R-DEAL-1, as cribsim cuts
        self.g = GameState(self.rules, seed, address, dealer, chance=chance).start()
        self._moved()

    def __deepcopy__(self, memo: Any) -> CribbageTable:
        """A copy at the same point: the game replayed (a generator cannot be copied)."""
        twin = CribbageTable(self.rules)
        if self.g is not None:
            twin.g = self.g.clone()
            twin._moved()
        return twin

    def _moved(self) -> None:
        g = self.state
        self.actor = -1 if g.is_terminal else CHANCE if g.actor == ENGINE_CHANCE else g.actor

    @property
    def state(self) -> GameState:
        if self.g is None:
            raise RuntimeError("reset() the table first")
        return self.g

    def choices(self) -> list[Choice]:
        g = self.state
        legal = g.legal_actions()
        if g.decision == "play" and self.plain_play:  # every answer a card: one token
            return [Choice((c,), c) for c in legal]
        if g.decision == "discard":
            return [Choice(tuple(sorted(a)), a) for a in legal]
        numbers = g.program.decisions[g.decision].numbers is not None  # type: ignore[index]
        return [Choice(self.spell(a, numbers), a) for a in legal]

    def answer_of(self, strategy: Any) -> Any:
        g = self.state
        assert g.decision is not None
        method = answer_fn(strategy, g.decision)
        if method is not None:
            return method(g.obs[g.actor])
        default = g.program.decisions[g.decision].default
        if default is None:
            raise TypeError(f"{type(strategy).__name__} cannot answer {g.decision!r}")
        return default(strategy, g.obs[g.actor])

    def spell(self, answer: Any, numbers: bool | None = None) -> tuple[int, ...]:
        """An answer's tokens (see the module doc)."""
        if numbers is None:
            g = self.state
            numbers = g.decision is not None and g.program.decisions[g.decision].numbers is not None
        if numbers and not answer:  # None, or a bid of 0: a pass
            return (PASS,)
        g = self.state
        name_card = g.hooks.name_card
        if g.decision == "play" and name_card is not None:  # the answer as the choices spell it
            card, named = name_card(answer, g.obs[g.actor])
            if card < WILD_BASE:
                return (card,)
            first = next(c for c in g.obs[g.actor].legal if c >= WILD_BASE)  # any joker: the first one held
            return (first, NAMED + card_of(RANK[named], SPADES))  # a name's suit never matters in the play
        if isinstance(answer, int):
            return (NUMBER + answer,) if numbers else (answer,)
        parts = list(answer)
        if parts and not isinstance(parts[0], int):  # groups of cards (to the partner, to the crib)
            return tuple(c for group in parts for c in sorted(group))
        return tuple(sorted(parts))

    def apply(self, answer: Any) -> None:
        self.state.apply(answer)
        self._moved()

    def outcomes(self) -> list[int]:
        return self.state.chance_outcomes()

    def draw(self, outcome: int) -> None:
        self.apply(outcome)

    def view(self, seat: int) -> tuple[Any, str]:
        g = self.state
        return g.obs[seat], g.decision or ""

    def world(self, view: Any, decision: str, rng: random.Random) -> None:
        self.g = worlds.world(view, decision, rng)
        self._moved()

    def deal(self) -> int:
        return self.state.deal_no

    # ---- what a seat sees -----------------------------------------------------------------
    def observe(self, seat: int, chosen: Sequence[int], out: Vector) -> None:
        g, lay = self.state, self.layout
        obs = g.obs[seat]
        n, sides = self.players, len(g.scores)
        side = g.side_of[seat]
        at = lay.hand
        ones = [at + c for c in obs.hand]
        ones.append(lay.picked + min(len(chosen), GO_SLOTS - 1))
        at = lay.discarded
        ones += [at + c for c in obs.discarded]
        if obs.starter is not None:
            ones.append(lay.starter + obs.starter)
        at = lay.pile
        ones += [at + c for c in obs.pile]
        at = lay.played
        ones += [at + (s - seat) % n * CARDS + c for s, c in obs.played]
        ones.append(lay.dealer + (obs.dealer - seat) % n)
        ones.append(lay.crib_owner + (obs.crib_owner - seat) % n)
        if g.actor == seat and g.decision in lay.index:
            ones.append(lay.decision + lay.index[g.decision])
        out[ones] = 1.0
        for i, t in enumerate(chosen):  # the cards picked so far, each by its place in the answer
            if t < CARDS:
                out[lay.chosen + t] = (i + 1) / GO_SLOTS
        limit = self.rules.scorer.limit
        out[lay.count] = min(obs.count / limit, 1.0)
        for k in range(sides):
            s = (side + k) % sides
            out[lay.scores + k] = min(max(g.scores[s] / g.game_targets[s], 0.0), 1.0)  # a bid may cost points
        lowest: dict[int, int] = {}  # the lowest count at which a seat said go binds what it holds
        for s, count in obs.gos:
            lowest[s] = min(count, lowest.get(s, count))
        for s, count in lowest.items():
            out[lay.gos + (s - seat) % n] = min(max(count / limit, 0.0), 1.0)
        for f, at in lay.features:
            value = getattr(obs, f.field)
            if f.kind == "cards":
                for c in value:
                    out[at + c] = 1.0
            elif f.kind == "seat":
                if value >= 0:
                    out[at + (value - seat) % n] = 1.0
            else:
                out[at] = min(max(value / f.scale, 0.0), 1.0)

    def info_key(self, seat: int) -> str:
        """What ``seat`` has seen: its observation's fields, the deal's history as it saw it,
        and the scores (the earlier deals are public: each ends with every card shown)."""
        g = self.state
        obs = g.obs[seat]
        parts = [f"seat {seat} deal {obs.deal_no} dealer {obs.dealer} scores {obs.scores}",
                 f"hand {obs.hand} out {obs.discarded} starter {obs.starter}",
                 f"played {obs.played} gos {obs.gos} shown {obs.shown}"]
        parts += [f"{f.field} {getattr(obs, f.field)}" for f in g.program.features]
        if g.actor == seat:
            parts.append(f"to {g.decision}")
        return "; ".join(parts)

    # ---- the end --------------------------------------------------------------------------
    def scores(self) -> tuple[int, ...]:
        return tuple(self.state.scores)

    def side_of(self, seat: int) -> int:
        return self.state.side_of[seat]

    def objective(self) -> int:
        return self.rules.objective

    def winner(self) -> int:
        """The winning side as cribsim ranks it (lowball: not the side that reached the target)."""
        g = self.state
        if g.over is None:
            return -1
        if g.placed and g.places > 1:  # R-MATCH-5: continued play, the first place taken
            return g.placed[0]
        return g.program.rank_sides(g.over.side, g.scores)[0][0]

    # ---- for people ---------------------------------------------------------------------------
    def outcome_name(self, outcome: int) -> str:
        return _name(outcome)

    def token_name(self, token: int) -> str:
        if token < CARDS:
            return _name(token)
        if token < PASS:
            return f"as {card_str(token - NAMED)}"
        return "pass" if token == PASS else f"{token - NUMBER}"

    def describe(self) -> str:
        g = self.state
        if g.is_terminal:
            return f"game over: side {self.winner()} wins, scores {list(g.scores)}"
        if self.actor == CHANCE:
            return f"deal {g.deal_no + 1}: drawing ({g.decision})"
        obs = g.obs[g.actor]
        return (f"deal {g.deal_no + 1}, dealer {g.dealer}, scores {list(g.scores)}; seat {g.actor} to {g.decision}; "
                f"count {obs.count}; hand {' '.join(card_str(c) for c in obs.hand)}")


def _name(card: int) -> str:
    """A card's name, each joker numbered (JK1, JK2): action names must differ."""
    return card_str(card) if card < WILD_BASE else f"JK{card - WILD_BASE + 1}"


def table(rules: Rules) -> CribbageTable:
    """The table of a cribbage rules object."""
    return CribbageTable(rules)
