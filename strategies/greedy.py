"""``greedy``: keeps the cards worth most without the starter; pegs the card that scores most now.

Ties are broken at random (its own seeded generator). It ignores whose crib it is and what the
opponents may do next: a baseline one step above random."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation
    from cribsim.games.cribbage.rules import Rules

from itertools import combinations
from typing import Any, cast

from cribsim.games.cribbage.cards import RANK, VALUE
from cribsim.games.cribbage.native.lane import NativeSeat
from cribsim.games.cribbage.strategy import allowed
from cribsim.games.cribbage.variants.auction import floor_worth, raise_to
from cribsim.games.cribbage.variants.canadian import best_split
from cribsim.games.cribbage.variants.jokers import play_options, show_value_fn
from cribsim.strategy import Strategy
from strategies.models import GREEDY


class GreedyStrategy(Strategy):
    name = "greedy"
    models = GREEDY
    # minimises when rules.objective is -1; obeys obs.discard_rule
    understands = frozenset({"objective", "discard_rule"})

    @classmethod
    def native(cls, rules: Rules, params: dict[str, Any]) -> NativeSeat | None:
        """The native lane plays it as it is (cribsim/games/cribbage/native/)."""
        return None if params else NativeSeat(cls.name)

    def inspect(self, obs: Observation) -> tuple[int, ...]:
        """V-TEAM3-2: the four of the eight worth most without the starter."""
        sv, obj = show_value_fn(obs.rules), obs.rules.objective
        return max(combinations(obs.hand + obs.crib, len(obs.hand)), key=lambda k: obj * sv(k, None))

    def pass_cards(self, obs: Observation) -> tuple[list[int], list[int]]:
        """V-CANADIAN: the split whose own and partner's hands are worth most (both count for
        the side), without the starter."""
        obj = obs.rules.objective
        return best_split(obs, lambda keep, passed, thrown: obj * (show_value_fn(obs.rules)(keep, None)
                                                                   + show_value_fn(obs.rules)(passed, None)))

    def bid(self, obs: Observation) -> int | None:
        """The crib as the points its best two cards would show (plus a flat 2 for the rest);
        in lowball any bid is welcome (it pegs our score back)."""
        if obs.rules.objective < 0:
            return raise_to(obs, floor_worth(obs, 4.7))
        best = max(show_value_fn(obs.rules)(pair, None) for pair in combinations(obs.hand, 2))
        return raise_to(obs, best + 2)

    def discard(self, obs: Observation) -> list[int]:
        hand = obs.hand
        keep_n = len(hand) - obs.discards
        best, choices = None, []
        sv, obj, rule = show_value_fn(obs.rules), obs.rules.objective, obs.discard_rule
        for keep in combinations(hand, keep_n):
            if rule is not None and not allowed(obs, [c for c in hand if c not in keep]):
                continue
            pts = sv(keep, None) * obj  # lowball: the fewest
            if best is None or pts > best:
                best, choices = pts, [keep]
            elif pts == best:
                choices.append(keep)
        keep = choices[int(self.rng.random() * len(choices))]
        return [c for c in hand if c not in keep]

    def play(self, obs: Observation) -> int | tuple[int, int]:
        ranks = [RANK[c] for c in obs.pile]
        best, choices = None, []
        obj = obs.rules.objective
        peg_points = obs.rules.scorer.peg  # the rules' point values (S-DATA-1..6)
        for c, shown in (play_options(obs) if obs.rules.jokers else zip(obs.legal, obs.legal)):
            pts = peg_points(ranks + [RANK[shown]], obs.count + VALUE[shown]) * obj
            if best is None or pts > best:
                best, choices = pts, [c]
            elif pts == best:
                choices.append(c)
        return cast("int | tuple[int, int]", choices[int(self.rng.random() * len(choices))])
