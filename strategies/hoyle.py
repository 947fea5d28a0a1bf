"""``hoyle``: a human-style heuristic, the way a club player is taught.

Discard: keep the cards worth most in hand for certain (without the starter); into the
opponents' crib avoid giving 5s, pairs, fifteens and near-runs; into one's own crib prefer them.
Play: lead from a pair or a low card (under 5), never a 5; otherwise take any points going
(15, 31, pairs, runs), and without points avoid leaving a count of 5 or 21 and play the card
that leaves the least to answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation
    from cribsim.games.cribbage.rules import Rules

from collections.abc import Sequence
from itertools import combinations
from typing import Any, cast

from cribsim.games.cribbage.cards import RANK, VALUE
from cribsim.games.cribbage.native.lane import NativeSeat
from cribsim.games.cribbage.strategy import allowed
from cribsim.games.cribbage.variants.auction import floor_worth, raise_to
from cribsim.games.cribbage.variants.canadian import best_split
from cribsim.games.cribbage.variants.jokers import play_options, show_value_fn
from cribsim.strategy import Strategy
from strategies.models import HOYLE

FIVE = 4  # rank index of the 5


def crib_feel(thrown: Sequence[int]) -> float:
    """A player's sense of what two (or one) discards give a crib."""
    v = 0.0
    for c in thrown:
        if RANK[c] == FIVE:
            v += 2.0
        elif VALUE[c] == 10:
            v += 0.5  # ten-cards make fifteens with 5s
    for a, b in combinations(thrown, 2):
        if RANK[a] == RANK[b]:
            v += 2.0
        if VALUE[a] + VALUE[b] == 15:
            v += 2.0
        if abs(RANK[a] - RANK[b]) == 1:
            v += 1.0
        elif abs(RANK[a] - RANK[b]) == 2:
            v += 0.5
    return v


class HoyleStrategy(Strategy):
    name = "hoyle"
    models = HOYLE
    # minimises when rules.objective is -1; obeys obs.discard_rule
    understands = frozenset({"objective", "discard_rule"})

    @classmethod
    def native(cls, rules: Rules, params: dict[str, Any]) -> NativeSeat | None:
        """The native lane plays it as it is (cribsim/games/cribbage/native/: hoyle_discard,
        hoyle_play and the rest, the same sums in the same order)."""
        return None if params else NativeSeat(cls.name)

    def inspect(self, obs: Observation) -> tuple[int, ...]:
        """V-TEAM3-2: certain points kept, and the crib by feel (good cards into our own crib,
        bad ones into the partnership's)."""
        eight = obs.hand + obs.crib
        mine = obs.side_of[obs.crib_owner] == obs.side
        obj = obs.rules.objective
        return max(combinations(eight, len(obs.hand)), key=lambda k: obj * (
            show_value_fn(obs.rules)(k, None) + (0.5 if mine else -0.5) * crib_feel([c for c in eight if c not in k])))

    def pass_cards(self, obs: Observation) -> tuple[list[int], list[int]]:
        """V-CANADIAN: certain points in both hands of the side, and the crib by feel."""
        mine = obs.side_of[obs.crib_owner] == obs.side
        obj = obs.rules.objective
        return best_split(obs, lambda keep, passed, thrown: obj * (
            show_value_fn(obs.rules)(keep, None) + show_value_fn(obs.rules)(passed, None)
            + (0.5 if mine else -0.5) * crib_feel(thrown)))

    def bid(self, obs: Observation) -> int | None:
        """A club player's feel: a crib is worth about 4, more with 5s or a pair to throw;
        in lowball any bid is welcome."""
        if obs.rules.objective < 0:
            return raise_to(obs, floor_worth(obs, 4.7))
        feel = max(crib_feel(pair) for pair in combinations(obs.hand, 2))
        return raise_to(obs, 3 + feel)

    def discard(self, obs: Observation) -> list[int] | None:
        hand = obs.hand
        mine = obs.side_of[obs.crib_owner] == obs.side
        best, best_throw = None, None
        for keep in combinations(hand, len(hand) - obs.discards):
            thrown = [c for c in hand if c not in keep]
            if not allowed(obs, thrown):
                continue
            feel = crib_feel(thrown)
            # certain points first; the crib breaks near-ties; low cards help the play
            v = show_value_fn(obs.rules)(keep, None) + (0.5 if mine else -0.5) * feel \
                + 0.01 * sum(VALUE[c] <= 4 for c in keep)
            v *= obs.rules.objective  # lowball: the same judgement, minimised
            if best is None or v > best:
                best, best_throw = v, thrown
        return best_throw

    def play(self, obs: Observation) -> int | tuple[int, int] | None:
        legal = obs.legal
        if obs.count == 0:
            return self.lead(obs)
        ranks = [RANK[c] for c in obs.pile]
        best, choice = None, None
        peg_points = obs.rules.scorer.peg  # the rules' point values (S-DATA-1..6)
        for answer, c in (play_options(obs) if obs.rules.jokers else zip(legal, legal)):
            cnt = obs.count + VALUE[c]
            pts = peg_points(ranks + [RANK[c]], cnt)
            v: float = 10 * pts
            if not pts:
                if cnt in (5, 21):
                    v -= 5
                if 5 < cnt < 15 and 15 - cnt <= 10:
                    v -= 1  # leaves a fifteen within reach
                if RANK[c] == ranks[-1] + 1 or RANK[c] == ranks[-1] - 1:
                    v -= 0.5  # invites a run
            v += 0.01 * VALUE[c]  # keep low cards for the go
            v *= obs.rules.objective  # lowball: give the points away instead
            if best is None or v > best:
                best, choice = v, answer
        return choice

    def lead(self, obs: Observation) -> int | tuple[int, int]:
        legal = [c for c in obs.legal if c < 52]
        if not legal:  # only jokers (V-JOKERS): lead one as a 4, the classic lead
            return obs.legal[0], 15
        not_five = [c for c in legal if RANK[c] != FIVE] or legal
        ranks = [RANK[c] for c in obs.hand]
        paired = [c for c in not_five if ranks.count(RANK[c]) >= 2]
        if paired:
            return cast("int | tuple[int, int]", min(paired, key=lambda c: (VALUE[c], c)))
        low = [c for c in not_five if VALUE[c] < 5]
        if low:
            return cast("int | tuple[int, int]", max(low, key=lambda c: (VALUE[c], c)))  # a 4 is the classic lead)
        return cast("int | tuple[int, int]", max(not_five, key=lambda c: (VALUE[c] != 10, -VALUE[c], c)))
