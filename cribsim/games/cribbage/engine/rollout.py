"""Play a deal's play out from one seat's view, under the rules being played: for search
strategies (``mc``) that sample the cards they cannot see; and count a show on a scratch game
(:class:`ShowCount`), for strategies that learn what hands and cribs are worth under any rules.

A :class:`PlayRollout` is built once per decision from the seat's observation; each
:meth:`PlayRollout.run` deals the given hands to the seats (the seat's own from its view), lays
the first card, lets a policy answer every later decision of every seat through the engine's own
play phase (so go, 31, last card, a variant's "play to 31 once" or named cards all apply), and
returns the points each side pegged from there to the end of the play."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .events import CRIB, HAND
from .phases import Resume, counted, play
from .state import INF, GameOver, GameState


class _FirstThen:
    """The root seat's answers: the card being tried, then the policy."""

    __slots__ = ("first", "policy")

    def __init__(self, policy: Callable[[Any], Any]) -> None:
        self.first: Any = None
        self.policy = policy

    def __call__(self, obs: Any) -> Any:
        first = self.first
        if first is not None:
            self.first = None
            return first
        return self.policy(obs)


class PlayRollout:
    """Rollouts of the rest of a play from ``view`` (the root seat's observation at a play or a
    discard decision); ``policy(obs)`` answers every simulated decision. The simulated seats
    see what they would see: their own (sampled) cards and the public play; the root seat also
    keeps what it knows (its discards). A policy with a ``reset()`` method is told when each
    rollout starts. With ``from_start`` the rollouts start at the play's first card whatever
    the view has seen (for a strategy that replays the play so far with hands it supposes)."""

    def __init__(self, view: Any, policy: Callable[[Any], Any], from_start: bool = False) -> None:
        rules = view.rules
        g = self.g = GameState(rules, 0, (0, 0), view.dealer)
        g.side_of = tuple(view.side_of)
        self.sides = max(g.side_of) + 1
        g.targets = g.game_targets = (INF,) * self.sides  # no side wins a rollout
        for o in g.obs:
            o.side_of = g.side_of
            o.side = g.side_of[o.seat]
        g.crib_owner = view.crib_owner
        g.starter = view.starter
        self.seat = view.seat
        g.obs[view.seat].discarded = tuple(view.discarded)
        self.root = _FirstThen(policy)
        self.reset = getattr(policy, "reset", None)  # a policy that keeps track of a rollout
        fns = [policy] * rules.players
        fns[view.seat] = self.root
        g.answers = {"play": fns}
        self.count, self.pile = view.count, tuple(view.pile)
        self.played, self.gos = tuple(view.played), tuple(view.gos)
        self.at_start = view.starter is None and not view.played  # a discard decision: the play from its start
        if from_start:
            self.count, self.pile, self.played, self.gos, self.at_start = 0, (), (), (), True

    def run(self, hands: Sequence[Sequence[int]], first: Any = None,
            discarded: Sequence[Sequence[int]] | None = None) -> list[int]:
        """Points pegged by each side from here to the end of the play, with ``hands`` held
        (lists, by seat) and ``first`` laid by the root seat (None: the policy chooses it);
        ``discarded``: what each other seat is to know it threw (by seat; the root seat keeps
        its own)."""
        g = self.g
        if discarded is not None:
            for o in g.obs:
                if o.seat != self.seat:
                    o.discarded = tuple(discarded[o.seat])
        g.scores = [0] * self.sides
        turn = self.seat if not self.at_start else (g.dealer + 1) % g.n
        g.resume = Resume([list(h) for h in hands], turn, self.count, self.pile, self.played, self.gos, -1)
        self.root.first = first
        if self.reset is not None:
            self.reset()
        for _ in play(g):
            raise RuntimeError("a rollout asked a decision it had an answer for")
        return g.scores


class DealRollout:
    """Rollouts of the rest of a deal, to the end of its show, from the real scores and
    targets: for search strategies that play to the board (``expert``). From a discard decision
    (no card laid yet) a rollout cuts the given starter and runs every phase after the discard
    (his heels, the play, the show, and whatever a variant puts there); from a play decision it
    resumes the play as :class:`PlayRollout` does, then runs the phases after it (the policy
    answers the play; a rule set whose later phases ask other decisions cannot be rolled out
    here). Every other seat knows the crib cards that are not the root seat's as its own
    discards (exact with two players). The game's own
    award ends a rollout the instant a side reaches its target (R-WIN-1, R-SHOW-2), so the
    order in which points come (pegging first, then hands from the dealer's left, the crib
    last) is the rules', not the caller's."""

    def __init__(self, view: Any, policy: Callable[[Any], Any], targets: Sequence[float]) -> None:
        self.base = PlayRollout(view, policy)
        g = self.base.g
        g.targets = g.game_targets = tuple(targets)
        self.scores = tuple(view.scores)
        slots = [p.slot for p in view.rules.program.phases]
        after = slots.index("discard") + 1 if self.base.at_start else slots.index("play")
        self.steps = tuple(view.rules.program.phases[after:])

    def run(self, held: Sequence[Sequence[int]], kept: Sequence[Sequence[int]], crib: Sequence[int],
            starter: int, first: Any = None) -> tuple[int, list[int]]:
        """(the side that reached its target first, or -1; the scores at the end) with ``held``
        the cards each seat still holds, ``kept`` the hands each will show, ``crib`` the crib,
        ``starter`` the starter (used when the rollout starts at the discard) and ``first`` the
        root seat's card (None: the policy chooses it)."""
        base, g = self.base, self.base.g
        g.notes = {}  # the variants' state of this deal (back ten's zero hands): none from another run
        g.scores = list(self.scores)
        g.kept = [tuple(k) for k in kept]
        g.crib = list(crib)
        own = g.obs[base.seat].discarded
        others = tuple(c for c in crib if c not in own)  # with two players: the other seat's discards
        for o in g.obs:
            if o.seat != base.seat:
                o.discarded = others
        if base.at_start:
            g.stock = [starter]
            g.resume = None
        else:
            turn = base.seat
            g.resume = Resume([list(h) for h in held], turn, base.count, base.pile, base.played, base.gos, -1)
        base.root.first = first
        if base.reset is not None:
            base.reset()
        try:
            for p in self.steps:
                if p.decision is None:
                    p.run(g)
                else:
                    for _ in p.run(g):
                        raise RuntimeError("a rollout asked a decision it had an answer for")
        except GameOver as over:
            return over.side, g.scores
        return -1, g.scores


class ShowCount:
    """What the show awards under the rules being played, counted on a scratch game through the
    engine's own show code: every count (a variant's ``count_hand``, the rules' scoring) and
    every ``after_count`` hook takes part (a crib that counts again, a hand that scores nothing
    under four, a dealer's hand that counts double, a penalty for a hand of nothing), so a
    strategy learns what a hand or a crib is worth under any rules, a designer's own included,
    without a table that assumes a scoring. Nothing here reads a real game: the caller gives
    the cards.

    The scratch game is made once (``rules``, the dealer, the sides of game ``game_no``); every
    count starts afresh from ``scores`` (by side: a hook may read them, back ten's floor) with
    no target, so no count ends a game. Each count returns the points each side was awarded."""

    def __init__(self, rules: Any, dealer: int = 0, game_no: int = 0) -> None:
        g = self.g = GameState(rules, 0, (0, game_no), dealer)
        self.sides = len(g.sides)
        g.targets = g.game_targets = (INF,) * self.sides
        self.base = [0] * self.sides
        self.crib_show = rules.crib_show
        self.show_phase = next(p for p in rules.program.phases if p.slot == "show")

    def _reset(self, dealer: int, crib_owner: int, starter: int, scores: Sequence[int] | None) -> None:
        g = self.g
        g.dealer, g.crib_owner, g.starter = dealer, crib_owner, starter
        base = self.base = list(scores) if scores is not None else [0] * self.sides
        g.scores = list(base)
        g.notes = {}  # the variants' state of a deal (back ten's zero hands, a joker starter's name)

    def count(self, seat: int, cards: Sequence[int], starter: int, *, crib: bool = False, dealer: int = 0,
              crib_owner: int | None = None, scores: Sequence[int] | None = None,
              kept: Sequence[Sequence[int]] | None = None) -> list[int]:
        """The points each side is awarded when ``cards`` are counted with ``starter`` as
        ``seat``'s hand (or, with ``crib``, as the crib, ``seat`` owning it), the deal's dealer
        ``dealer``, and the hooks after it. ``kept``: every seat's hand at the show, for a count
        that reads the others' (none: only this hand, where it is a hand)."""
        g = self.g
        self._reset(dealer, seat if crib else (dealer if crib_owner is None else crib_owner), starter, scores)
        if kept is not None:
            g.kept = [tuple(k) for k in kept]
        else:
            g.kept = [()] * g.n
            if not crib:
                g.kept[seat] = tuple(cards)
        counted(g, seat, cards, self.crib_show if crib else False, CRIB if crib else HAND)
        return [a - b for a, b in zip(g.scores, self.base)]

    def show(self, kept: Sequence[Sequence[int]], crib: Sequence[int], starter: int, *, dealer: int = 0,
             crib_owner: int | None = None, scores: Sequence[int] | None = None) -> list[int]:
        """The points each side is awarded by the whole show of a deal (the rules' show phase,
        whichever it is: every hand from the dealer's left, then the crib, with every hook)."""
        g = self.g
        self._reset(dealer, dealer if crib_owner is None else crib_owner, starter, scores)
        g.kept = [tuple(k) for k in kept]
        g.crib = list(crib)
        done = self.show_phase.run(g)
        if done is not None:  # a show that asks a decision cannot be counted on a scratch game
            for _ in done:
                raise RuntimeError("a show that asks a decision cannot be counted here")
        return [a - b for a, b in zip(g.scores, self.base)]
