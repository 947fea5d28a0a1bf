"""``mc``: determinised Monte Carlo search for the play, ``ev`` discards refined by rollouts.

Play: ``rollouts`` times, deal the unseen cards (not in our hand, not played, not our discards,
not the starter) into the other seats' remaining hands, consistent with what has been seen:
their hand sizes, and every go (a seat that said go at count k holds nothing worth 31 - k or
less). For each legal card, play the rest of the deal out and score our side's pegging minus the
others'. The same samples serve every candidate (common random numbers).

Rollouts run on the engine's own play phase (``cribsim.engine.rollout``), so they follow the
rules being played (go, 31, last card, the five-card game's single play to 31, jokers named when
laid). Every simulated player follows ``ev``'s one-ply rule from what that player could know
(points now minus the expected best reply, from the ranks they have not seen). An earlier policy
let each simulated player see the others' sampled cards; it made the rollouts too optimistic
about dodging replies and played level with ``ev`` (0.501 over 20,000 matches).

Discard: the ``ev`` value of every keep, then for the ``discard_top`` best keeps within
``discard_margin`` points of the best, a pegging term from ``discard_rollouts`` rollouts
(opponent hands sampled, the same samples for each keep). ``rollouts`` and
``discard_rollouts`` are the budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation

import random
from collections.abc import Callable
from itertools import combinations
from typing import Any, ClassVar

from cribsim.games.cribbage.cards import VALUE
from cribsim.games.cribbage.engine.rollout import PlayRollout
from cribsim.games.cribbage.native import lane
from cribsim.games.cribbage.native.lane import NativePlayRollout
from cribsim.games.cribbage.strategy import allowed
from cribsim.games.cribbage.variants.jokers import play_options
from cribsim.params import Param
from strategies.ev import EVStrategy


def unseen_cards(obs: Observation) -> list[int]:
    """The cards a seat in the play has not seen: not in its hand, not laid, not its own
    discards, not the starter (in deck order)."""
    seen = set(obs.hand)
    seen.update(c for _, c in obs.played)
    seen.update(obs.discarded)
    if obs.starter is not None:  # (always, in the play)
        seen.add(obs.starter)
    return [c for c in range(obs.rules.deck_size) if c not in seen]


def sampler(obs: Observation, unseen: list[int], rng: random.Random) -> Callable[[], list[list[int]]]:
    """A function returning one deal of ``unseen`` to the other seats, consistent with what
    ``obs`` has seen: their hand sizes, and every go (a seat that said go at count k holds
    nothing worth limit - k or less, 31 in the standard game)."""
    n, me = obs.players, obs.seat
    sizes = [obs.rules.hand_size - sum(1 for x, _ in obs.played if x == s) for s in range(n)]
    floor = [0] * n  # every card a seat holds is worth more than floor[seat]
    limit = obs.rules.scoring.count_limit
    for s, k in obs.gos:
        floor[s] = max(floor[s], limit - k)
    order = sorted((s for s in range(n) if s != me and sizes[s] > 0), key=lambda s: -floor[s])

    def sample() -> list[list[int]]:
        pool = list(unseen)
        rng.shuffle(pool)
        hands: list[list[int]] = [[] for _ in range(n)]
        for s in order:
            f, need = floor[s], sizes[s]
            took = [c for c in pool if VALUE[c] > f][:need] if f else pool[:need]
            if len(took) < need:  # cannot honour the gos (should not happen): take any
                took += [c for c in pool if c not in took][:need - len(took)]
            hands[s] = took
            taken = set(took)
            pool = [c for c in pool if c not in taken]
        return hands

    return sample


def samples_natively(cls: type) -> bool:
    """Whether the native lane's search reproduces ``cls``'s sampler: the class that defines
    ``sampler_for`` says so itself (``native_samples``), so a subclass with a sampler of its own
    searches in Python."""
    owner = next(c for c in cls.__mro__ if "sampler_for" in vars(c))
    return vars(owner).get("native_samples", False) is True


class MCStrategy(EVStrategy):
    name = "mc"
    native_samples: ClassVar[bool] = True  # its sampler_for is the lane's plain sampler
    # while a decision is explained (``ExpertStrategy.explain``): what its search computed, the
    # rollouts played here in Python (the native lane's search returns only its choice)
    trace: dict[str, Any] | None = None
    params: ClassVar[tuple[Param, ...]] = EVStrategy.params + (
        Param("rollouts", int, 64, "play rollouts per decision", lo=1, hi=100_000),
        Param("discard_rollouts", int, 48, "pegging rollouts per discard candidate (0: ev's discard)",
              lo=0, hi=100_000),
        Param("discard_top", int, 3, "discard candidates refined by rollouts", lo=1, hi=100),
        Param("discard_margin", float, 1.0, "only candidates within this many points of ev's best", lo=0, hi=100),
    )

    def __init__(self, rng: random.Random, rollouts: int = 64, discard_rollouts: int = 48, discard_top: int = 3,
                 discard_margin: float = 1.0, crib_weight: float = 1.0, reply_weight: float = 1.0,
                 tables: str = "rules") -> None:
        super().__init__(rng, crib_weight, reply_weight, tables)
        self.rollouts = rollouts
        self.discard_rollouts = discard_rollouts
        self.discard_top = discard_top
        self.discard_margin = discard_margin

    def play_rollout(self, view: Observation, native: bool = True) -> PlayRollout | NativePlayRollout:
        """The rollouts of a decision from ``view``: in the native lane where it plays these
        rules and the policy is ev's own one-ply rule (the same points, faster; ``native``
        False: not there, as where a keep is more than a hand, :func:`lane.keeps_a_hand`), else
        on the engine's play phase."""
        return (self.native_rollout(view) if native else None) or PlayRollout(view, self.one_ply)

    def sampler_for(self, obs: Observation, unseen: list[int]) -> Callable[[], list[list[int]]]:
        """How the other seats' cards are dealt in the rollouts (a subclass may read them)."""
        return sampler(obs, unseen, self.rng)

    def native_reading(self) -> tuple[bool, float, int] | None:
        """What the native search reads of the other player (``ReadingMC``: by_play, slack, tries)."""
        return None

    def play(self, obs: Observation) -> Any:
        legal = obs.legal
        wild = obs.rules.deck_size > 52
        if len(legal) == 1 and not wild:
            return legal[0]
        # every distinct answer: a card, or a joker once per name that fits (counted as the name)
        options = play_options(obs) if wild else [(c, c) for c in legal]
        if len(options) == 1:
            return options[0][0]
        fits = lane.holds_a_hand(obs)  # (a designer's phase may have moved cards: then on the engine)
        if samples_natively(type(self)) and self.trace is None:
            parts = self._native_parts(obs)  # the whole search in C, where the lane can
            if parts is not None and fits:
                chosen = lane.mc_play(obs, parts[1], parts[2], self.rollouts, self.rng, self.native_reading(),
                                      options if wild else None)
                return options[chosen][0]
        sample = self.sampler_for(obs, unseen_cards(obs))
        me = obs.seat
        rollout = self.play_rollout(obs, fits)
        totals = [0] * len(options)
        mine = obs.side
        for _ in range(self.rollouts):
            dealt = sample()
            dealt[me] = list(obs.hand)
            for i, (answer, _) in enumerate(options):
                pegged = rollout.run(dealt, answer)
                totals[i] += 2 * pegged[mine] - sum(pegged)
        obj = obs.rules.objective  # lowball: the fewest points for our side
        best = max(range(len(options)), key=lambda i: (obj * totals[i], VALUE[options[i][1]]))
        if self.trace is not None:
            self.trace["rollouts"] = (options, totals, self.rollouts, best)
        return options[best][0]

    def discard(self, obs: Observation) -> list[int]:
        hand = obs.hand
        if not self.discard_rollouts:
            return super().discard(obs)
        scored = []
        for keep in combinations(hand, len(hand) - obs.discards):
            thrown = [c for c in hand if c not in keep]
            if not allowed(obs, thrown):
                continue
            scored.append((obs.rules.objective * self.keep_value(obs, keep, thrown), keep, thrown))
        scored.sort(key=lambda t: -t[0])
        top = [t for t in scored[:self.discard_top] if t[0] >= scored[0][0] - self.discard_margin]
        if len(top) == 1:
            return top[0][2]
        n, me = obs.players, obs.seat
        size = obs.rules.hand_size
        unseen = [c for c in range(obs.rules.deck_size) if c not in hand]
        rollouts = []
        native = lane.keeps_a_hand(obs)
        for _, _keep, thrown in top:
            view = obs.rules.program.observation(me, obs.side, obs.rules, obs.side_of)
            view.dealer, view.crib_owner, view.discarded = obs.dealer, obs.crib_owner, tuple(thrown)
            view.game_no = obs.game_no  # a variant's layout: this game's sides (the native lane packs them)
            rollouts.append(self.play_rollout(view, native))
        pegs = [0] * len(top)
        for _ in range(self.discard_rollouts):
            self.rng.shuffle(unseen)
            pos, others = 0, []
            for s in range(n):
                others.append(unseen[pos:pos + size] if s != me else None)
                pos += size if s != me else 0
            for i, (_, keep, _) in enumerate(top):
                hands = [h if h is not None else list(keep) for h in others]
                pegged = rollouts[i].run(hands)
                pegs[i] += 2 * pegged[obs.side] - sum(pegged)
        obj = obs.rules.objective
        best = max(range(len(top)), key=lambda i: top[i][0] + obj * pegs[i] / self.discard_rollouts)
        return top[best][2]
