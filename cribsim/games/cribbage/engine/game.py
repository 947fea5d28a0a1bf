"""Play one game with strategies: the tournament's driver of the state machine.

:func:`play_game` cuts for the first deal (R-DEAL-1), then drives :meth:`GameState.flow`,
answering every decision with the seat's strategy (or the variant's default answer for a
strategy that does not make that decision), and returns a :class:`GameResult`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from cribsim.errors import IllegalMove
from cribsim.gamelog import RecordFileError
from cribsim.records import GameRecord
from cribsim.rng import CUT_FOR_DEAL, STRATEGY, derive, rng_at
from cribsim.strategy import answer_fn

from ..cards import RANK
from .events import SOURCES, Event
from .state import GameOver, GameState

if TYPE_CHECKING:
    from cribsim.gamelog import GameLog, GameTape

    from ..rules import Rules


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
    start_scores: tuple[int, ...] | None = None  # a game started from a later position (by side)
    trail: list[tuple[int, ...]] = field(default_factory=list)  # scores: start, each play and show, end
    decisions: int = 0  # decisions asked of the seats
    stopped: str | None = None  # a replay of a game that did not finish (a forfeit): why (winner is -1)

    @property
    def side_of(self) -> tuple[int, ...]:
        out = [0] * sum(len(s) for s in self.sides)
        for i, side in enumerate(self.sides):
            for seat in side:
                out[seat] = i
        return tuple(out)

    def record(self, skunk: int, rules: Rules | None = None) -> GameRecord:
        """The :class:`cribsim.records.GameRecord` the tournament keeps for this game."""

        n = len(self.by_role)
        return GameRecord(
            winner=self.winner, scores=list(self.scores), deals=self.deals, first_dealer=self.first_dealer,
            first_dealer_won=self.side_of[self.first_dealer] == self.winner, skunk=skunk,
            sides=[list(s) for s in self.sides], order=list(self.order),
            points={src: [self.by_role[r][i] for r in range(n)] for i, src in enumerate(SOURCES)},
            targets=[int(t) for t in self.targets] if self.own_layout else None,
            shared=list(self.shared) if self.shared is not None else None,
            first_scores=list(self.first_scores) if self.first_scores is not None else None,
            metrics=dict(self.metrics), trail=[list(s) for s in self.trail], decisions=self.decisions)


def cut_for_deal(rules: Rules, seed: int, address: Sequence[int], events: list[Event] | None = None) -> int:
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
    """For each decision of the rules, each seat's answer function: the strategy's own
    (:func:`cribsim.strategy.answer_fn`), or the variant's default answer."""
    out: dict[str, list[Callable[[Any], Any]]] = {}
    for name, d in program.decisions.items():
        fns = []
        for s in strategies:
            fn = answer_fn(s, name)
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


def ranked(program: Any, placed: Sequence[int], places: int, side: int,
           scores: list[int]) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """(every side ranked best first, the sides sharing the win or None) of a game that
    ``side`` has just decided, ``placed`` the places taken before (R-MATCH-5: those, then the
    rest by score), else as the rules rank sides."""
    if placed and places > 1:
        rest = sorted((s for s in range(len(scores)) if s not in placed), key=lambda s: -scores[s])
        return (*placed, *rest), None
    return program.rank_sides(side, scores)  # type: ignore[no-any-return]


def result_of(g: GameState, over: GameOver, log: bool) -> GameResult:
    """The :class:`GameResult` of a finished game."""
    order, shared = ranked(g.program, g.placed, g.places, over.side, g.scores)
    for hook in g.hooks.metrics:
        g.metrics.update(hook(g))
    return GameResult(order[0], tuple(g.scores), g.first_dealer, g.deal_no + 1, g.by_role, g.sides, g.game_targets,
                      tuple(order), g.own_layout, shared, tuple(g.placed) if g.placed else None, g.first_scores,
                      g.metrics, g.events if log else None, g.start_scores if any(g.start_scores) else None,
                      [*g.trail, tuple(g.scores)], g.asked)


def play_game(rules: Rules, strategies: Sequence[Any], seed: int, address: tuple[int, int],
              first_dealer: int | None = None, log: bool = False,
              counters: Sequence[tuple[float, float]] | None = None,
              decks: dict[int, list[int]] | None = None, match_score: tuple[int, ...] = (),
              start_scores: Sequence[int] | None = None, tape: GameTape | None = None,
              live: list[Event] | None = None) -> GameResult:
    """Play one game. ``address`` is (match key, game number); decks are derived from it (or
    given in ``decks``). ``first_dealer`` None means cut for it (R-DEAL-1). With ``log`` the
    result carries the events; ``live`` (a list of the caller's, which implies ``log``) is the
    list they are kept in, so the caller sees each event as it happens (a person at the
    table). ``counters`` (per seat: miss rate, vigilance) models players who overlook points.
    ``start_scores`` (by side) starts the game from a later position. A ``tape`` records the
    cut, the decks, the counting draws and every answer (a game record)."""
    log = log or live is not None
    events: list[Event] | None = [] if log or tape is not None else None
    if first_dealer is None:
        first_dealer = cut_for_deal(rules, seed, address, events)
    g = GameState(rules, seed, address, first_dealer, log=log, decks=decks, match_score=match_score,
                  counters=counters, scores=start_scores)
    if events and g.events is not None:
        g.events[:0] = events
    if live is not None and g.events is not None:
        live[:] = g.events
        g.events = live
    seed_strategies(strategies, seed, address)
    asks = answerers(g.program, strategies)
    if tape is not None:
        tape.cuts = [[e.seat, e.cards[0]] for e in events or ()]
        tape.first_dealer = first_dealer
        tape.start_scores = list(start_scores) if start_scores is not None else None
        tape.match_score = list(match_score)
        g.dealt = tape.decks
        if g.counting is not None:
            g.counting.random = tape.drawing(g.counting.random)
        asks = {name: [tape.wrap(fn) for fn in fns] for name, fns in asks.items()}
    over = drive(g, asks)
    if over is None:
        raise RuntimeError("a whole game stopped without a winner")
    result = result_of(g, over, log)
    if tape is not None:
        tape.finish(result.winner, result.scores, result.deals)
    return result


def replay_game(rules: Rules, log: GameLog, seed: int, address: tuple[int, int],
                counters: Sequence[tuple[float, float]] | None = None, where: str = "record",
                partial: bool = False) -> GameResult:
    """Play a recorded game again through the state machine's generic interface: its decks, its
    first dealer, its counting draws and its answers, each checked by the rules. Returns the
    result with the events (the cut included). Raises RecordFileError (naming ``where``) for a
    record the rules refuse, that ends before (or after) the game, or leaves decks or draws
    unused. With ``partial`` (a match that ended in a forfeit) a record that stops early, or
    whose last answer the rules refuse, gives the game as far as it went (``stopped`` says why)."""

    _check_log(rules, log, where)
    draws = iter(log.chance)
    g = GameState(rules, seed, address, log.first_dealer, log=True, decks=dict(enumerate(log.decks)),
                  match_score=tuple(log.match_score), counters=counters, scores=log.start_scores)
    if g.counting is not None:
        g.counting.random = lambda: _next(draws, where, "counting draws")
    g.given_only = True
    stopped = _apply_all(g, log.actions, where, partial)
    if stopped is not None:
        return GameResult(-1, tuple(g.scores), g.first_dealer, g.deal_no + 1, g.by_role, g.sides, g.game_targets, (),
                          g.own_layout, events=g.events, start_scores=g.start_scores if any(g.start_scores) else None,
                          stopped=stopped)
    assert g.over is not None
    result = result_of(g, g.over, True)
    if next(draws, None) is not None or len(log.decks) != result.deals:
        raise RecordFileError(f"cribsim: {where}: the record has decks or counting draws the game never used")
    if log.cuts and result.events is not None:
        result.events[:0] = [Event(-1, seat, 0, "cut", "", (card,)) for seat, card in log.cuts]
    return result


def _check_log(rules: Rules, log: GameLog, where: str) -> None:
    if not log.first_dealer < rules.players or any(not 0 <= s < rules.players or not 0 <= c < rules.deck_size
                                                   for s, c in log.cuts):
        raise RecordFileError(f"cribsim: {where}: a first dealer or a cut that is not a seat and a card of these "
                              "rules")
    for k, deck in enumerate(log.decks):
        if len(set(deck)) != len(deck) or not all(0 <= c < rules.deck_size for c in deck):
            raise RecordFileError(f"cribsim: {where}: the deck of deal {k + 1} has a repeated card or one that "
                                  f"is not in the {rules.deck_size}-card deck")


def _apply_all(g: GameState, actions: Sequence[Any], where: str, partial: bool) -> str | None:
    """Run ``g`` with ``actions``; None when the game ended with the last of them, else (with
    ``partial``) why it stopped."""

    try:
        g.start()
        for i, a in enumerate(actions):
            if g.is_terminal:
                raise RecordFileError(f"cribsim: {where}: the game ended after {i} of {len(actions)} answers")
            try:
                g.apply(a)
            except (IllegalMove, TypeError, KeyError, IndexError, AttributeError) as e:
                why = f"answer {i + 1} ({str(a)[:60]}) is refused by the rules: {str(e)[:200]}"
                if partial and i == len(actions) - 1:
                    return why
                raise RecordFileError(f"cribsim: {where}: {why}") from None
    except ValueError as e:  # a deck missing or too short
        raise RecordFileError(f"cribsim: {where}: {e}") from None
    if g.over is None:
        if partial:
            return f"the record ends here, at a {g.decision} decision of seat {g.actor}"
        raise RecordFileError(f"cribsim: {where}: the record ends before the game does "
                              f"({len(actions)} answers recorded)")
    return None


def _next(it: Any, where: str, what: str) -> Any:
    try:
        return next(it)
    except StopIteration:
        raise RecordFileError(f"cribsim: {where}: the record has too few {what}") from None
