"""Worlds a seat cannot tell from the real one: the engine's own game, put at the seat's
decision with every card it has not seen drawn at random (for search that samples what it
cannot see: an OpenSpiel bot in a cribsim seat, :mod:`cribsim.env.spielbot`).

A world is a :class:`~cribsim.games.cribbage.engine.state.GameState` at the view's deal and
dealer, whose deck gives the seat its own cards, every other seat the cards it has laid plus
unseen ones, and the starter the view shows. The deal is replayed through the generic interface
(the other seats' discards drawn from their hidden cards, the play as the view saw it), so
each seat's view of the world is its own view. The cards a seat still holds are drawn among
those that agree with every go it said this deal; a draw the public play still contradicts is
drawn again. The scores at the deal's start are the view's
less what the replayed deal pegged.

The rule sets it can sample: decisions ``discard`` and ``play`` only, no phase before the deal or
between its steps, no wild cards, no rule binding the discards (toss fives), no sides of a game's
own and no continued play (:func:`sampleable` says why not). The seats whose gos bind their cards
most draw first; the draw is not exactly uniform over the deals that agree with the view, and it
reads nothing but the view."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .cards import VALUE
from .engine.state import GameState
from .rules import Rules

TRIES = 200


def sampleable(rules: Rules) -> str | None:
    """Why worlds cannot be drawn for ``rules``, or None."""
    program = rules.program
    if set(program.decisions) != {"discard", "play"}:
        return f"it asks {', '.join(sorted(set(program.decisions) - {'discard', 'play'}))}"
    extra = [p.slot for p in program.phases if p.slot not in ("deal", "discard", "starter", "play", "show")]
    if extra or program.phases[0].run.__name__ != "deal_cards":
        return "a variant adds a phase to the deal"
    if rules.deck_size != 52:
        return "its deck has wild cards"
    if program.hooks.discard_rule is not None:
        return "a variant binds the discards (what a seat threw would have to be inferred from its play)"
    if program.hooks.layout is not None or rules.match.places(len(rules.sides)) > 1:
        return "its sides or places change within a match"
    return None


def world(view: Any, decision: str, rng: random.Random) -> GameState:
    """A game at ``view``'s ``decision`` (discard or play), the unseen cards drawn (see the
    module doc); ValueError if no draw of ``TRIES`` agrees with the public play."""
    rules: Rules = view.rules
    why = sampleable(rules)
    if why is not None:
        raise ValueError(f"cannot sample {rules.name}: {why}")
    for _ in range(TRIES):
        deck, discards = _draw(view, decision, rng)
        g = _replayed(view, decision, deck, discards, [0] * len(view.scores), rng)
        if g is None:
            continue
        start = [s - p for s, p in zip(view.scores, g.scores)]  # the scores as the deal began
        g = _replayed(view, decision, deck, discards, start, rng)
        if g is not None:
            return g
    raise ValueError(f"no world of {TRIES} drawn agrees with seat {view.seat}'s view")


def _draw(view: Any, decision: str, rng: random.Random) -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """A deck in dealing order and each other seat's discards."""
    r, n, seat, dealer = view.rules, view.players, view.seat, view.dealer
    laid: dict[int, list[int]] = {s: [] for s in range(n)}
    for s, c in view.played:
        laid[s].append(c)
    # the seat's cards as dealt: at its discard the hand; in the play what it holds, threw and laid
    own = list(view.hand) if decision == "discard" else list(view.hand) + list(view.discarded) + laid[seat]
    seen = set(own) | {c for s in laid for c in laid[s]} | ({view.starter} if view.starter is not None else set())
    unseen = [c for c in range(52) if c not in seen]
    rng.shuffle(unseen)
    others = [(dealer + i) % n for i in range(1, n + 1) if (dealer + i) % n != seat]
    size = {s: r.dealer_deal if s == dealer else r.deal for s in range(n)}
    thrown = {s: r.dealer_discard if s == dealer else r.discard for s in range(n)}
    held: dict[int, list[int]] = {}
    if decision == "play":  # the seats whose gos bind their cards most draw first
        for s in sorted(others, key=lambda s: _floor(view, s), reverse=True):
            held[s] = _held(unseen, size[s] - thrown[s] - len(laid[s]), view, s)
    deck: list[int] = []
    discards: dict[int, tuple[int, ...]] = {}
    for i in range(1, n + 1):
        s = (dealer + i) % n
        if s == seat:
            deck += own
            continue
        if decision == "discard":
            hidden = [unseen.pop() for _ in range(size[s])]
            discards[s] = tuple(hidden[:thrown[s]])
        else:
            discards[s] = tuple(unseen.pop() for _ in range(thrown[s]))
            hidden = list(discards[s]) + held[s]
        deck += laid[s] + hidden
    deck += [unseen.pop() for _ in range(r.crib_from_deck)]
    deck.append(view.starter if view.starter is not None else unseen.pop())
    return deck, discards


def _floor(view: Any, seat: int) -> int:
    """Every card ``seat`` still holds is worth more than this: none fitted under the limit at
    the lowest count at which it said go this deal (0: it said none)."""
    gos = [c for s, c in view.gos if s == seat]
    return int(view.rules.scorer.limit - min(gos)) if gos else 0


def _held(unseen: list[int], count: int, view: Any, seat: int) -> list[int]:
    """``count`` cards ``seat`` still holds, taken from ``unseen`` (shuffled), each worth more
    than its floor (:func:`_floor`)."""
    floor = _floor(view, seat)
    taken = [c for c in unseen if VALUE[c] > floor][:count]
    for c in taken:
        unseen.remove(c)
    return taken


def _replayed(view: Any, decision: str, deck: list[int], discards: dict[int, tuple[int, ...]],
              scores: Sequence[int], rng: random.Random) -> GameState | None:
    """The deal replayed to the view's decision, or None if the draw contradicts the play."""
    g = GameState(view.rules, rng.getrandbits(63), (rng.getrandbits(31), view.game_no), view.dealer,
                  decks={view.deal_no: deck}, deal_no=view.deal_no, scores=scores, shown=view.shown).start()
    plays = list(view.played)
    try:
        while not g.is_terminal:
            if g.actor == view.seat and g.decision == decision and (decision == "discard" or not plays):
                return g if tuple(g.observation().hand) == tuple(view.hand) else None
            if g.decision == "discard":
                g.apply(view.discarded if g.actor == view.seat else discards[g.actor])
            elif plays and plays[0][0] == g.actor and plays[0][1] in g.observation().legal:
                g.apply(plays.pop(0)[1])
            else:
                return None
    except Exception:  # noqa: BLE001 - a draw the rules refuse is a draw that disagrees
        return None
    return None
