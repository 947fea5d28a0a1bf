"""An OpenSpiel bot in a cribsim seat: a strategy that answers each decision by running the bot
on the game's OpenSpiel state (:mod:`cribsim.env.spiel`).

The strategy sees only its seat's observation, like any other. For each decision it asks the
game's table for a world the seat cannot tell from the real one (``Table.world``: the unseen
cards drawn at random, the deal replayed to this decision), wraps it as an OpenSpiel state and
lets the bot pick the answer token by token. Information-set MCTS (``bot: ismcts``, OpenSpiel's
``ISMCTSBot``) draws a new world for each of its simulations from the same observation, so its
search never sees a hidden card. Its leaf evaluator plays random moves to the end of the deal
(``rollout: deal``, the default: a game is long) or of the game (``rollout: game``) and values
a deal's end by the seat's margin, ``tanh(margin / 20)``; a finished game by its returns."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ..params import Param
from ..strategy import Strategy
from .spiel import CribsimGame, CribsimState  # (says what to install when OpenSpiel is missing)
from .table import margins, table_for

try:
    from open_spiel.python.algorithms import ismcts
except ImportError as e:
    raise ImportError("OpenSpiel is not installed: pip install 'cribsim[openspiel]'") from e

MARGIN_SCALE = 20.0  # points of margin at the end of a deal worth tanh(1) = 0.76 of a win


class RolloutEvaluator:
    """OpenSpiel's evaluator protocol: random moves to the end of the deal (or game), then the
    returns, or each seat's margin squashed into -1..1 (see the module doc)."""

    def __init__(self, rng: np.random.RandomState, whole_game: bool) -> None:
        self.rng, self.whole_game = rng, whole_game

    def evaluate(self, state: CribsimState) -> np.ndarray:
        s = state.clone()
        deal = s.table.deal()
        while not s.is_terminal() and (self.whole_game or s.table.deal() == deal):
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[self.rng.randint(len(outcomes))][0])
            else:
                legal = s.legal_actions()
                s.apply_action(legal[self.rng.randint(len(legal))])
        if s.is_terminal():
            return np.array(s.returns())
        return np.array([math.tanh(m / MARGIN_SCALE) for m in margins(s.table)])

    def prior(self, state: CribsimState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class SpielBot(Strategy):
    """OpenSpiel's information-set MCTS in a seat (see the module doc). A game's subclass names
    the decisions it answers (each calls :meth:`answer`)."""

    name = "openspiel:ismcts"
    params: ClassVar[tuple[Param, ...]] = (
        Param("simulations", int, 100, "ISMCTS simulations per token of an answer", lo=1, hi=1_000_000),
        Param("uct_c", float, 2.0, "the UCT exploration constant", lo=0.0, hi=100.0),
        Param("rollout", str, "deal", "how far a leaf's random rollout goes", choices=("deal", "game")),
    )

    def __init__(self, rng: Any, simulations: int = 100, uct_c: float = 2.0, rollout: str = "deal") -> None:
        self.rng = rng
        self.simulations, self.uct_c, self.whole_game = simulations, uct_c, rollout == "game"
        self.games: dict[str, CribsimGame] = {}

    def _game(self, rules: Any) -> CribsimGame:
        key = rules.fingerprint()
        game = self.games.get(key)
        if game is None:
            game = self.games[key] = CribsimGame(rules=rules)
        return game

    def _state(self, game: CribsimGame, view: Any, decision: str, chosen: list[int]) -> CribsimState:
        table = table_for(view.rules)
        table.world(view, decision, self.rng)
        state = game.state_at(table)
        for token in chosen:
            state.apply_action(token)
        return state

    def answer(self, view: Any, decision: str) -> Any:
        """The bot's answer to ``decision`` from what ``view`` shows."""
        game = self._game(view.rules)
        state = self._state(game, view, decision, [])
        seed = self.rng.getrandbits(32)
        npr = np.random.RandomState(seed)
        bot = ismcts.ISMCTSBot(game, RolloutEvaluator(npr, self.whole_game), self.uct_c, self.simulations,
                               random_state=npr, child_selection_policy=ismcts.ChildSelectionPolicy.PUCT)
        bot.set_resampler(lambda root, player: self._state(game, view, decision, list(root.chosen(player))))
        seat = view.seat
        while True:
            action = bot.step(state)
            state.apply_action(action)
            if state.answered is not None:
                return state.answered
            if state.table.actor != seat:
                raise RuntimeError("the answer ended without an answer")

