"""``random``: uniformly random legal choices."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation
    from cribsim.games.cribbage.rules import Rules

from typing import Any, cast

from cribsim.games.cribbage.native.lane import NativeSeat
from cribsim.games.cribbage.variants.auction import floor_worth, raise_to
from cribsim.games.cribbage.variants.jokers import play_names
from cribsim.rng import draw
from cribsim.strategy import Strategy


class RandomStrategy(Strategy):
    name = "random"
    # minimises when rules.objective is -1; obeys obs.discard_rule
    understands = frozenset({"objective", "discard_rule"})

    @classmethod
    def native(cls, rules: Rules, params: dict[str, Any]) -> NativeSeat | None:
        """The native lane plays it as it is (cribsim/games/cribbage/native/)."""
        return None if params else NativeSeat(cls.name)

    def inspect(self, obs: Observation) -> list[int]:
        """V-TEAM3-2: a random four of the eight."""
        return draw(self.rng, obs.hand + obs.crib, len(obs.hand))

    def pass_cards(self, obs: Observation) -> tuple[list[int], list[int]]:
        """V-CANADIAN: a random 4 for the partner and 2 for the crib."""
        rule = obs.discard_rule
        if rule is None:
            cards = draw(self.rng, obs.hand, obs.passes + obs.discards)
            return cards[:obs.passes], cards[obs.passes:]
        thrown = RandomStrategy.discard(self, obs)  # a discard rule binds the cards for the crib (toss fives)
        rest = [c for c in obs.hand if c not in thrown]
        return draw(self.rng, rest, obs.passes), thrown

    def bid(self, obs: Observation) -> int | None:
        """A pass or the lowest legal bid, at even odds (V-AUCTION)."""
        if self.rng.random() >= 0.5:
            return None
        if obs.rules.objective < 0:  # lowball: not past what the floor allows
            return raise_to(obs, floor_worth(obs, 0))
        return raise_to(obs, obs.rules.max_bid)

    def discard(self, obs: Observation) -> list[int]:
        rule = obs.discard_rule
        if rule is None:
            return draw(self.rng, obs.hand, obs.discards)
        must, pool = rule  # V-TOSSFIVES: the forced cards, the rest at random from the pool
        rest = [c for c in pool if c not in must]
        return list(must) + draw(self.rng, rest, obs.discards - len(must))

    def play(self, obs: Observation) -> int | tuple[int, int]:
        legal = obs.legal
        c = legal[int(self.rng.random() * len(legal))]
        if c >= 52:  # V-JOKERS: a random name that fits

            names = play_names(obs.rules.scoring.count_limit - obs.count)
            return c, names[int(self.rng.random() * len(names))]
        return cast("int | tuple[int, int]", c)
