"""Play one game with strategies: the tournament's driver of the state machine.

:func:`play_game` cuts for the first deal (R-DEAL-1), then drives :meth:`GameState.flow`,
answering every decision with the seat's strategy (or the variant's default answer for a
strategy that does not make that decision), and returns a :class:`GameResult`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..cards import RANK
from ..rng import CUT_FOR_DEAL, STRATEGY, derive, rng_at
from .events import SOURCES, Event
from .state import GameOver, GameState


@dataclass
class GameResult:
    """The outcome of one game: the winning side (of this game's ``sides``), final scores by
    side (they may pass the target, R-SHOW-2), the first dealer, deals played, points by role
    (0 = dealer, 1 = dealer's left, ...) and source, every side ranked best first (``order``),
    the sides sharing the win (or None), for continued play the places in order and the scores
    when the first was taken, named per-game figures, and the events when a log was kept."""

    winner: int
    scores: tuple[int, ...]
    first_dealer: int
    deals: int
    by_role: list[list[int]]
    sides: tuple[tuple[int, ...], ...]
    targets: tuple[float, ...]
    order: tuple[int, ...]
    own_layout: bool = False
    shared: tuple[int, ...] | None = None
    placings: tuple[int, ...] | None = None
    first_scores: tuple[int, ...] | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    events: list[Event] | None = None

    @property
    def side_of(self) -> tuple[int, ...]:
        out = [0] * sum(len(s) for s in self.sides)
        for i, side in enumerate(self.sides):
            for seat in side:
                out[seat] = i
        return tuple(out)

    def record(self, skunk: int, rules: Any = None) -> Any:
        """The :class:`cribsim.records.GameRecord` the tournament keeps for this game."""
        from ..records import GameRecord

        n = len(self.by_role)
        return GameRecord(
            winner=self.winner, scores=list(self.scores), deals=self.deals, first_dealer=self.first_dealer,
            first_dealer_won=self.side_of[self.first_dealer] == self.winner, skunk=skunk,
            sides=[list(s) for s in self.sides], order=list(self.order),
            points={src: [self.by_role[r][i] for r in range(n)] for i, src in enumerate(SOURCES)},
            targets=[int(t) for t in self.targets] if self.own_layout else None,
            shared=list(self.shared) if self.shared is not None else None,
            first_scores=list(self.first_scores) if self.first_scores is not None else None,
            metrics=dict(self.metrics))


def cut_for_deal(rules: Any, seed: int, address: Sequence[int], events: list[Event] | None = None) -> int:
    """R-DEAL-1: every player cuts; lowest rank deals; only those tied for lowest cut again.
    Each round of cuts is drawn from a fresh deck addressed by (seed, address, round)."""
    contenders = list(range(rules.players))
    rnd = 0
    while True:
        rng = rng_at(seed, *address, CUT_FOR_DEAL, rnd)
        cuts = rng.sample(range(52), len(contenders))  # wild cards are set aside for the cut
        if events is not None:
            for seat, c in zip(contenders, cuts):
                events.append(Event(-1, seat, 0, "cut", f"round {rnd + 1}", (c,)))
        low = min(RANK[c] for c in cuts)
        contenders = [s for s, c in zip(contenders, cuts) if RANK[c] == low]
        if len(contenders) == 1:
            return contenders[0]
        rnd += 1


def seed_strategies(strategies: Sequence[Any], seed: int, address: Sequence[int]) -> None:
    """Each seat's strategy generator is addressed per game (seeding per deal would cost a
    fifth of the engine's time); decks are addressed per deal."""
    for seat, strat in enumerate(strategies):
        strat.rng.seed(derive(seed, *address, STRATEGY, seat))


def answerers(program: Any, strategies: Sequence[Any]) -> dict[str, list[Callable[[Any], Any]]]:
    """For each decision of the rules, each seat's answer function: the strategy's method of
    that name, or the variant's default answer."""
    out: dict[str, list[Callable[[Any], Any]]] = {}
    for name, d in program.decisions.items():
        fns = []
        for s in strategies:
            fn = getattr(s, name, None)
            if fn is None:
                if d.default is None:
                    raise TypeError(f"strategy {type(s).__name__} cannot answer {name!r} and it has no default")
                fn = partial(d.default, s)
            fns.append(fn)
        out[name] = fns
    return out


def drive(g: GameState, asks: dict[str, list[Callable[[Any], Any]]]) -> GameOver | None:
    """Run ``g`` to its end, each decision answered by ``asks``; returns how it ended (None:
    stopped after ``until_deal`` without a winner)."""
    try:
        g.run(asks)
    except GameOver as over:
        return over
    return None


def result_of(g: GameState, over: GameOver, log: bool) -> GameResult:
    """The :class:`GameResult` of a finished game."""
    if g.placed and g.places > 1:  # R-MATCH-5: the places taken, then the rest by score
        rest = sorted((s for s in range(len(g.scores)) if s not in g.placed), key=lambda s: -g.scores[s])
        order, shared = (*g.placed, *rest), None
    else:
        order, shared = g.program.rank_sides(over.side, g.scores)
    for hook in g.hooks.metrics:
        g.metrics.update(hook(g))
    return GameResult(order[0], tuple(g.scores), g.first_dealer, g.deal_no + 1, g.by_role, g.sides, g.game_targets,
                      tuple(order), g.own_layout, shared, tuple(g.placed) if g.placed else None, g.first_scores,
                      g.metrics, g.events if log else None)


def play_game(rules: Any, strategies: Sequence[Any], seed: int, address: tuple[int, int],
              first_dealer: int | None = None, log: bool = False,
              counters: Sequence[tuple[float, float]] | None = None,
              decks: dict[int, list[int]] | None = None, match_score: tuple[int, ...] = ()) -> GameResult:
    """Play one game. ``address`` is (match key, game number); decks are derived from it (or
    given in ``decks``). ``first_dealer`` None means cut for it (R-DEAL-1). With ``log`` the
    result carries the events. ``counters`` (per seat: miss rate, vigilance) models players who
    overlook points."""
    events: list[Event] | None = [] if log else None
    if first_dealer is None:
        first_dealer = cut_for_deal(rules, seed, address, events)
    g = GameState(rules, seed, address, first_dealer, log=log, decks=decks, match_score=match_score,
                  counters=counters)
    if events and g.events is not None:
        g.events[:0] = events
    seed_strategies(strategies, seed, address)
    over = drive(g, answerers(g.program, strategies))
    if over is None:
        raise RuntimeError("a whole game stopped without a winner")
    return result_of(g, over, log)
