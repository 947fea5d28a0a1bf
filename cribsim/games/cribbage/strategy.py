"""Cribbage's side of the strategy protocol: its built-in strategies, the discard rule's helpers
for strategies, and what a rule set needs of a strategy (its decisions, and what its variants
need it to understand).

Every cribbage strategy answers ``discard(obs)`` (``obs.discards`` cards of ``obs.hand``) and
``play(obs)`` (one of ``obs.legal``); variants add decisions with defaults, and may need a
strategy to understand more of the rules (``understands``: ``"objective"`` reads
``rules.objective`` and minimises when it is -1; ``"discard_rule"`` obeys
``obs.discard_rule``)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import TYPE_CHECKING, Any

from cribsim.strategy import answers, capabilities

from .engine.phases import obeys

if TYPE_CHECKING:
    from .observation import Observation
    from .rules import Rules

BUILTIN = {
    "random": "strategies.random_play:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
    "hoyle": "strategies.hoyle:HoyleStrategy",
    "ev": "strategies.ev:EVStrategy",
    "mc": "strategies.mc:MCStrategy",
    "expert": "strategies.expert:ExpertStrategy",
    "adaptive": "strategies.adaptive:AdaptiveStrategy",
    "openspiel:ismcts": "cribsim.games.cribbage.spielbots:ISMCTS",  # pip install cribsim[openspiel]
}

# decisions every rule set asks: a strategy must implement them
CORE_DECISIONS = ("discard", "play")


def allowed(obs: Observation, thrown: Any) -> bool:
    """Whether a set of discards obeys ``obs.discard_rule`` (always, without one)."""
    return obeys(obs.discard_rule, thrown)


def allowed_keeps(obs: Observation) -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """(keep, thrown) for every legal discard, in ``combinations(hand, kept)`` order."""
    hand = obs.hand
    for keep in combinations(hand, len(hand) - obs.discards):
        thrown = [c for c in hand if c not in keep]
        if allowed(obs, thrown):
            yield keep, thrown


def missing_for(cls: type[Any], rules: Rules) -> list[str]:
    """What ``rules`` need that strategy class ``cls`` lacks, as phrases naming the variant."""
    caps = capabilities(cls)
    prog = rules.program
    out = []
    for core in CORE_DECISIONS:
        if core not in caps:
            out.append(f"the {core} decision")
    for name, d in prog.decisions.items():
        if d.default is None and not answers(cls, name):
            out.append(f"the {name} decision of {prog.decision_owner[name]}")
    for need in prog.needs:
        if need not in caps:
            owners = [v.name for v in rules.modules if need in v.needs]
            out.append(f"'{need}' (declare it in understands), which {' and '.join(owners)} needs")
    return out
