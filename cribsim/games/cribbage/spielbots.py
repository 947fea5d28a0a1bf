"""``openspiel:ismcts``: OpenSpiel's information-set MCTS, searching worlds drawn from its seat's view.

OpenSpiel's bots as cribbage strategies (``pip install cribsim[openspiel]``):
:class:`cribsim.env.spielbot.SpielBot` answering cribbage's decisions, for the rule sets whose
unseen cards it can draw (:func:`cribsim.games.cribbage.worlds.sampleable`)."""

from __future__ import annotations

from typing import Any

from cribsim.env.spielbot import SpielBot
from cribsim.errors import CribsimError

from .observation import Observation
from .worlds import sampleable


class ISMCTS(SpielBot):
    """OpenSpiel's information-set MCTS (see :mod:`cribsim.env.spielbot`)."""

    game = "cribbage"
    understands = frozenset({"objective"})  # its leaves are valued by the engine's own ranking and margins

    @classmethod
    def prepare_rules(cls, rules: Any, params: dict[str, Any]) -> None:
        why = sampleable(rules)
        if why is not None:
            raise CribsimError(f"cribsim: strategy openspiel:ismcts cannot play {rules.name}: {why}")

    def discard(self, obs: Observation) -> Any:
        return self.answer(obs, "discard")

    def play(self, obs: Observation) -> Any:
        return self.answer(obs, "play")
