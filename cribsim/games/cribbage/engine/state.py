"""One game of cribbage as a state machine.

A :class:`GameState` holds the scores, the deal in progress and whose decision it is. Its flow
(:meth:`GameState.flow`) runs the deals: each phase of the rules' program in turn, the
automatic steps (dealing, the starter, gos, the show) inline, and at each decision it yields the
seat to act, whose observation is ready, and receives that seat's answer. Every driver uses this
one flow:

- the tournament loop (``play_game``) answers with the seats' strategies;
- the generic interface (:meth:`start`, :attr:`actor`, :attr:`decision`, :meth:`legal_actions`,
  :meth:`apply`, :meth:`observation`, :meth:`clone`) serves narration, tests, replays and any
  environment or human player;
- search strategies build a state from one seat's view with the unseen cards sampled
  (:func:`cribsim.engine.rollout.play_state_from_view`) and play it out under the same rules.

Chance comes from the addressed random streams (``rng.addressed_draw`` keyed by the game's
address and the deal number), or from explicit decks (``decks``), so a state, its address and
its list of actions are a full record of a game. In chance mode (``chance``: an environment
whose framework deals, OpenSpiel) every card is a step of its own instead: the flow yields
:data:`CHANCE` for each card of a deal as the deal needs them, and for the starter when it is
turned, after the discards (``chance_outcomes`` lists the cards that may come)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..rules import Rules

from collections.abc import Callable, Generator, Sequence
from typing import Any

from cribsim.errors import EndlessGame, IllegalMove
from cribsim.rng import DECK, addressed_draw

from .counting import Counting
from .events import SOURCES, Event
from .variant import Hooks

MAX_DEALS = 10_000  # a safety net for variants with penalties; standard games last ~9 deals
INF = float("inf")
CHANCE = -2  # the actor of a draw, in chance mode
UNDRAWN = 1 << 20  # the starter's place in a deck drawn in chance mode, until its own draw (not a card)


class Draw(Exception):
    """In chance mode: a deal needs ``cards`` cards that have not been drawn yet."""

    def __init__(self, cards: int) -> None:
        super().__init__(cards)
        self.cards = cards


class GameOver(Exception):
    """Raised the instant the game is decided (R-SHOW-2): nothing after it is scored."""

    def __init__(self, side: int) -> None:
        super().__init__(side)
        self.side = side


def deck_at(deck_size: int, needed: int, seed: int, address: Sequence[int], deal_no: int) -> list[int]:
    """The first ``needed`` cards of the deck of deal ``deal_no`` of the game at ``address``
    (match key, game number): the one place a deck's address is formed."""
    return addressed_draw(deck_size, needed, seed, *address, deal_no, DECK)


def side_of_seats(sides: Sequence[Sequence[int]], n: int) -> tuple[int, ...]:
    """The side index of every seat."""
    out = [0] * n
    for i, side in enumerate(sides):
        for seat in side:
            out[seat] = i
    return tuple(out)


class DealStart:
    """What a game driven through the generic interface was at the start of its current deal:
    a copy replays only that deal's actions (:meth:`GameState.clone`)."""

    __slots__ = ("deal_no", "dealer", "scores", "placed", "targets", "first_scores", "shown", "moves", "trail",
                 "by_role", "metrics", "asked", "views")

    def __init__(self, g: GameState) -> None:
        self.deal_no, self.dealer, self.scores = g.deal_no, g.dealer, tuple(g.scores)
        self.placed, self.targets, self.first_scores = tuple(g.placed), g.targets, g.first_scores
        self.shown, self.moves, self.trail = g.shown, len(g.history), list(g.trail)
        self.by_role = [list(r) for r in g.by_role]
        self.metrics, self.asked = dict(g.metrics), g.asked
        self.views = [o.to_dict() for o in g.obs]  # what each seat had seen (a seat not yet asked this deal)

    def restore(self, twin: GameState, history: list[Any]) -> None:
        """Put ``twin`` (made at this deal's number, dealer and scores) where the game was."""
        twin.placed, twin.targets, twin.first_scores = list(self.placed), self.targets, self.first_scores
        twin.shown, twin.trail = self.shown, list(self.trail)
        twin.by_role = [list(r) for r in self.by_role]
        twin.metrics, twin.asked = dict(self.metrics), self.asked
        for o, view in zip(twin.obs, self.views):
            for k, v in view.items():
                setattr(o, k, v)
        twin.history = history[:self.moves]
        twin.deal_start = self


class GameState:
    """The mutable state of one game (see the module doc).

    ``address`` is (match key, game number): it addresses every deck of the game. ``decks``
    (deal number -> the deck's cards in dealing order) replaces the addressed draw for those
    deals. ``log`` keeps every action and scoring item as :class:`Event` objects in ``events``.
    ``counters`` (per seat: miss rate, vigilance) models players who overlook points.
    A game may start at a later position: deal number ``deal_no`` with ``scores`` by side, and
    may stop after deal ``until_deal`` (the flow then returns without a winner)."""

    def __init__(self, rules: Rules, seed: int, address: tuple[int, int], dealer: int, *, log: bool = False,
                 decks: dict[int, list[int]] | None = None, match_score: tuple[int, ...] = (),
                 counters: Sequence[tuple[float, float]] | None = None, deal_no: int = 0,
                 scores: Sequence[int] | None = None, until_deal: int | None = None, chance: bool = False,
                 shown: tuple[Any, ...] = ()) -> None:
        self.rules = rules
        self.chance = chance
        self.drawing: list[int] = []  # chance mode: the cards drawn so far of the deck being drawn
        program = self.program = rules.program
        self.hooks: Hooks = program.hooks
        n: int = rules.players
        self.n = n
        self.seed: int = seed
        self.address: tuple[int, ...] = tuple(address)
        self.game_no: int = self.address[1] if len(self.address) > 1 else 0
        # this game's sides and targets: the rules' own, or a variant's for this game
        sides, targets = program.layout(self.game_no)
        self.sides: tuple[tuple[int, ...], ...] = sides
        self.targets: tuple[float, ...] = targets
        self.own_layout: bool = self.sides is not rules.sides
        self.side_of: tuple[int, ...] = rules.side_of if not self.own_layout else side_of_seats(self.sides, n)
        self.game_targets: tuple[float, ...] = self.targets
        # sides to place before the game ends: one, or more with continued play (R-MATCH-5); a
        # reversed objective decides the game the moment a side reaches the target
        self.places: int = rules.match.places(len(self.sides)) if program.objective > 0 else 1
        self.placed: list[int] = []
        self.first_scores: tuple[int, ...] | None = None
        self.dealer: int = dealer
        self.first_dealer: int = dealer
        self.deal_no: int = deal_no
        self.until_deal: int | None = until_deal
        self.scores: list[int] = list(scores) if scores is not None else [0] * len(self.sides)
        counting = counters is not None and any(miss > 0 for miss, _ in counters)
        # the items of every score are logged when a player may overlook some of them
        self.events: list[Event] | None = [] if log or counting else None
        self.by_role: list[list[int]] = [[0] * len(SOURCES) for _ in range(n)]  # points by role (0 dealer) and source
        self.metrics: dict[str, float] = {}
        self.decks = {} if chance else decks
        self.given_only: bool = False  # a replay: every deck must be given, none drawn
        self.dealt: list[list[int]] | None = None  # a game record: each deal's deck is kept here
        obs_cls = program.observation
        self.obs: list[Any] = [obs_cls(s, self.side_of[s], rules, self.side_of) for s in range(n)]
        for o in self.obs:
            o.game_no, o.match_score = self.game_no, tuple(match_score)
        self.counting: Counting | None = None
        if counting:
            self.counting = Counting(self, counters)  # type: ignore[arg-type]
        self.decision: str | None = None
        self.actor: int = -1
        self.over: GameOver | None = None
        self.history: list[Any] = []
        self.notes: dict[str, Any] = {}
        self.shown: tuple[Any, ...] = shown  # the last deal's show (a game started at a later deal: given)
        self.start_shown = shown
        self.answers: dict[str, list[Callable[[Any], Any]]] | None = None  # see run()
        self.start_deal, self.start_scores = deal_no, tuple(self.scores)
        # the scores at the start and after the play and the show of every deal (see GameRecord.trail)
        self.trail: list[tuple[int, ...]] = [self.start_scores]
        self.asked: int = 0  # decisions asked of the seats
        self._flow: Generator[int, Any, None] | None = None
        self.deal_start: DealStart | None = None  # kept when driven through the generic interface
        self.new_deal()

    # ---- the deal -----------------------------------------------------------------------
    def new_deal(self) -> None:
        """Empty the table for the next deal (the dealer and deal number are already set); the
        observations learn the deal number and the last deal's show."""
        n = self.n
        self.hands: list[list[int]] = [[]] * n  # each seat's list is replaced when dealt
        self.kept: list[tuple[int, ...]] = [()] * n
        self.crib: list[int] = []
        self.crib_owner = self.dealer  # R-DEAL-3
        self.starter: int | None = None
        self.stock: list[int] = []
        if self.notes:
            self.notes = {}  # per-deal state of variants
        self.resume: Any = None  # a play to resume mid-way (a rollout), see rollout.py
        deal_no, shown = self.deal_no, self.shown
        for o in self.obs:
            o.deal_no, o.shown = deal_no, shown
        extra = self.obs[0].EXTRA  # the variants' fields start each deal afresh (an inspected crib)
        if extra:
            for o in self.obs:
                for k, v in extra.items():
                    setattr(o, k, v)

    def deck(self, needed: int) -> list[int]:
        """The first ``needed`` cards of this deal's deck: addressed by (seed, match, game,
        deal), or the explicit deck given for this deal (a replay gives every deck:
        ``given_only``); kept in ``dealt`` when a game record is made."""
        if self.chance and self.deal_no not in self.decks:  # type: ignore[operator]
            raise Draw(needed)
        if self.decks is not None and self.deal_no in self.decks:
            cards = list(self.decks[self.deal_no])
            if len(cards) < needed:
                raise ValueError(f"deal {self.deal_no}: the deck given has {len(cards)} cards, {needed} needed")
            cards = cards[:needed]
        elif self.given_only:
            raise ValueError(f"deal {self.deal_no + 1}: no deck given for it")
        else:
            cards = deck_at(self.rules.deck_size, needed, self.seed, self.address, self.deal_no)
        if self.dealt is not None:
            self.dealt.append(cards)
        return cards

    def flow(self) -> Generator[int, Any, None]:
        """The game: deal after deal until it is decided; yields the seat to act at each
        decision (``self.decision`` says which) and receives its answer."""
        steps = self.program.steps
        trail = self.trail
        chance = self.chance
        while self.deal_no < MAX_DEALS:
            for run, decision, keep, slot in steps:
                if decision is None:
                    if chance:
                        yield from self.drawn(run, slot)
                    else:
                        run(self)
                else:
                    self.decision = decision
                    yield from run(self)
                if keep:
                    if keep == 1:
                        trail.append(tuple(self.scores))
                    elif self.deal_no == self.start_deal:
                        trail[0] = tuple(self.scores)  # the game's start, after points given as it starts
            if not self.next_deal():
                return
        raise EndlessGame(self.rules.name, MAX_DEALS, "deals")

    def drawn(self, run: Callable[[GameState], None], slot: str) -> Generator[int, Any, None]:
        """Chance mode: run a step, drawing first what it needs: the cards of a deal (all but
        the starter, which keeps its place at the end of the deck) or the starter."""
        if slot == "starter" and self.stock and self.stock[-1] == UNDRAWN:
            self.decision, self.drawing = "starter", self.decks[self.deal_no][:-1]  # type: ignore[index]
            self.stock[-1] = yield CHANCE
        try:
            run(self)
        except Draw as need:
            self.decision, self.drawing = "deal", []
            for _ in range(need.cards - 1):
                self.drawing.append((yield CHANCE))
            self.decks[self.deal_no] = [*self.drawing, UNDRAWN]  # type: ignore[index]
            run(self)

    def chance_outcomes(self) -> list[int]:
        """At a draw: the cards that may come, each equally likely."""
        seen = set(self.drawing)
        return [c for c in range(self.rules.deck_size) if c not in seen]

    def run(self, answers: dict[str, list[Callable[[Any], Any]]]) -> None:
        """The same game with every decision answered in place by ``answers[decision][seat]``
        (the tournament's driver: each phase calls the seat's answer where it would yield, so
        the flow never yields and there is no round trip per decision). Returns when stopped
        after ``until_deal``; a decided game raises GameOver."""
        self.answers = answers
        for _ in self.flow():
            raise RuntimeError(f"a phase asked for a {self.decision} decision it was given answers for")

    def next_deal(self) -> bool:
        """Pass the deal to the left for the next deal; False when the game stops here."""
        if self.deal_no == self.until_deal:
            return False
        self.dealer = self.dealer + 1 if self.dealer + 1 < self.n else 0  # the deal passes left
        self.deal_no += 1
        self.new_deal()
        if self._flow is not None:
            self.deal_start = DealStart(self)
        return True

    # ---- points ---------------------------------------------------------------------------
    def award(self, seat: int, points: int, source: int, reason: str = "", cards: Sequence[int] = ()) -> None:
        """Give ``points`` to ``seat``'s side; the game ends the instant a side reaches its
        target (R-WIN-1, R-SHOW-2). The one place points are given."""
        if self.counting is not None and self.counting.overlooks(seat, points, source, reason, cards):
            return
        side = self.side_of[seat]
        scores = self.scores
        scores[side] += points
        self.by_role[seat - self.dealer][source] += points  # role: seats from the dealer (a negative index wraps)
        if self.events is not None:
            self.events.append(Event(self.deal_no, seat, points, SOURCES[source], reason, tuple(cards)))
        if scores[side] >= self.targets[side]:
            self.reached(side)

    def award_items(self, seat: int, items: Sequence[Any], source: int) -> None:
        """Award a breakdown (``scoring.*_breakdown`` items) as one scoring act, checked once.
        A player who overlooks items (``counters``) loses them, or an opponent takes them."""
        missed = 0
        if self.counting is not None:
            items, missed = self.counting.split(seat, items)
        if items:
            total = 0
            for reason, pts, cards in items:
                total += pts
                if self.events is not None:
                    self.events.append(Event(self.deal_no, seat, pts, SOURCES[source], reason, cards))
            side = self.side_of[seat]
            self.scores[side] += total
            self.by_role[(seat - self.dealer) % self.n][source] += total
            if self.scores[side] >= self.targets[side]:
                self.reached(side)
        if missed:
            self.counting.missed(seat, missed)  # type: ignore[union-attr]

    def reached(self, side: int) -> None:
        """``side`` has just reached its target: the game ends (R-WIN-1), unless the match plays
        on for more places (R-MATCH-5 continued play): then the side is placed, its later
        points no longer matter, and the game ends when the last place is taken."""
        if self.places == 1:
            raise GameOver(side)
        if not self.placed:
            self.first_scores = tuple(self.scores)
        self.placed.append(side)
        self.targets = tuple(INF if s in self.placed else t for s, t in enumerate(self.targets))
        if self.events is not None:
            self.events.append(Event(self.deal_no, -1, 0, "place", f"{len(self.placed)}", (side,)))
        if len(self.placed) >= self.places:
            raise GameOver(self.placed[0])

    def log(self, seat: int, action: str, reason: str = "", cards: Sequence[int] = (),
            count: int | None = None) -> None:
        if self.events is not None:
            self.events.append(Event(self.deal_no, seat, 0, action, reason, tuple(cards), count))

    def metric(self, name: str, amount: float = 1) -> None:
        """Add to one of this game's named figures (a variant's summary columns)."""
        self.metrics[name] = self.metrics.get(name, 0) + amount

    # ---- the generic interface --------------------------------------------------------------
    def start(self) -> GameState:
        """Run to the first decision (``actor``, ``decision``); returns self."""
        self._flow = self.flow()
        self._step(lambda: next(self._flow))  # type: ignore[arg-type]
        return self

    def _step(self, go: Callable[[], int]) -> None:
        try:
            self.actor = go()
        except GameOver as over:
            self.over, self.actor, self.decision = over, -1, None
        except StopIteration:  # stopped after ``until_deal``: no winner
            self.over, self.actor, self.decision = GameOver(-1), -1, None

    @property
    def is_terminal(self) -> bool:
        return self.over is not None

    def observation(self, seat: int | None = None) -> Any:
        """The observation of ``seat`` (default: the seat to act), as of its last decision;
        the actor's is complete for the decision asked."""
        return self.obs[self.actor if seat is None else seat]

    def legal_actions(self) -> list[Any]:
        """Every legal answer to the decision asked of ``actor``."""
        if self.over is not None or self.decision is None:
            return []
        if self.actor == CHANCE:
            return self.chance_outcomes()
        legal: list[Any] = self.program.decisions[self.decision].legal(self.obs[self.actor])
        return legal

    def apply(self, action: Any) -> None:
        """Answer the decision asked of ``actor``; runs to the next decision or the end. An
        illegal answer raises IllegalMove and leaves the state unchanged."""
        if self.over is not None or self._flow is None or self.decision is None:
            raise IllegalMove("the game is over" if self.over is not None else "call start() first", self.actor)
        if self.actor == CHANCE:
            ok = type(action) is int and 0 <= action < self.rules.deck_size and action not in self.drawing
            msg = None if ok else f"{action!r} cannot be drawn now"
        else:
            msg = self.program.decisions[self.decision].check(self.obs[self.actor], action)
        if msg:
            raise IllegalMove(f"seat {self.actor}: {msg}", self.actor)
        self.history.append(action)
        flow = self._flow
        self._step(lambda: flow.send(action))

    def clone(self) -> GameState:
        """An independent copy at the same point: the current deal replayed from its start (the
        whole game when it is still in its first deal, or keeps events or a counting model),
        same address or decks, same answers and draws."""
        start = self.deal_start
        if start is None or self.events is not None or self.counting is not None:
            return self._replayed()
        twin = GameState(self.rules, self.seed, (self.address[0], self.game_no), start.dealer,
                         decks=None if self.chance else self.decks, chance=self.chance,
                         match_score=self.obs[0].match_score, deal_no=start.deal_no, scores=start.scores,
                         until_deal=self.until_deal)
        twin.first_dealer, twin.start_deal, twin.start_scores = self.first_dealer, self.start_deal, self.start_scores
        start.restore(twin, self.history)
        twin.start()
        for a in self.history[start.moves:]:
            twin.apply(a)
        return twin

    def _replayed(self) -> GameState:
        twin = GameState(self.rules, self.seed, (self.address[0], self.game_no), self.first_dealer,
                         log=self.events is not None,
                         decks=None if self.chance else self.decks, chance=self.chance,
                         match_score=self.obs[0].match_score,
                         counters=self.counting.counters if self.counting is not None else None,
                         deal_no=self.start_deal, scores=self.start_scores, until_deal=self.until_deal,
                         shown=self.start_shown)
        twin.start()
        for a in self.history:
            twin.apply(a)
        return twin
