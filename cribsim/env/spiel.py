"""Every rules file as an OpenSpiel game (``pip install cribsim[openspiel]``).

:func:`register` registers ``cribsim_<name>`` for every shipped rules file, and ``cribsim``
whose ``rules`` parameter names any rules file or preset (``pyspiel.load_game("cribsim",
{"rules": "auction"})``). A game is a thin adapter of the game's :class:`~cribsim.env.table.Table`
in chance mode, so OpenSpiel's algorithms and bots run on the engine's own rules:

- chance nodes: the first player (cribbage's first dealer, Fives and Threes' first leader; each
  seat equally likely, as a cut or draw leaves it), every card of a deal as it is dealt, and the
  starter when it is turned after the discards;
- actions are the table's tokens (an answer of two cards is two moves of the same player);
- the observation tensor is the table's vector (docs/environments.md), the observation and
  information state strings name what the player has seen (this deal's cards and play, the last
  show, the scores: the earlier deals are public, every card shown at their end); they are not
  a move-by-move history (perfect recall), and only a player's own view is offered;
- returns at the end: +1 to each seat of the winning side, -1/(sides - 1) to each other seat; a
  game still going after ``max_steps`` moves ends as a draw (0 each);
- ``resample_from_infostate`` draws a state the player to act cannot tell from the real one (a
  world, ``Table.world``): what OpenSpiel's Python ``ISMCTSBot`` searches.

OpenSpiel clones a Python state by deep-copying its attributes; a table copies itself by
replaying its game (the engine's state machine is a generator, which cannot be copied)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # a plain install: say what to install
    raise ImportError("OpenSpiel is not installed: pip install 'cribsim[openspiel]'") from e

from ..errors import CribsimError
from ..ruleset import load_rules, preset_names
from .table import CHANCE, Chooser, Table, game_rewards, table_for

MAX_STEPS = 20_000


def _game_type(short: str, long: str, table: Table, rules_param: str | None) -> Any:
    params: dict[str, Any] = {"max_steps": MAX_STEPS}
    if rules_param is not None:
        params["rules"] = rules_param
    return pyspiel.GameType(
        short_name=short, long_name=long,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if table.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=table.players, min_num_players=table.players,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=params)


def _game_info(table: Table, max_steps: int) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=table.tokens, max_chance_outcomes=max(table.draws, table.players),
        num_players=table.players, min_utility=-1.0, max_utility=1.0,
        utility_sum=0.0 if table.zero_sum else None, max_game_length=max_steps)


class CribsimGame(pyspiel.Game):  # type: ignore[misc]
    """One rules file as an OpenSpiel game (see the module doc)."""

    RULES: str | None = None  # a registered rules file's own game: its name (else the rules parameter)

    def __init__(self, params: dict[str, Any] | None = None, rules: Any = None) -> None:
        """The game of a registered rules file (``RULES``), of the ``rules`` parameter, or of a
        rules object (``rules``: a strategy's own game, not registered)."""
        params = dict(params or {})
        own = self.RULES
        name = own if own is not None else str(params.get("rules", "standard"))
        self.rules = rules if rules is not None else load_rules(name)
        table = table_for(self.rules)
        self.max_steps = int(params.get("max_steps", MAX_STEPS))
        short = f"cribsim_{name}" if own is not None else "cribsim"
        super().__init__(_game_type(short, f"cribsim {self.rules.name}", table, None if own else name),
                         _game_info(table, self.max_steps), params)

    def new_initial_state(self) -> CribsimState:
        return CribsimState(self)

    def state_at(self, table: Table) -> CribsimState:
        """A state at where ``table`` is (a sampled world): its moves so far are not in its
        history, which starts there."""
        state = CribsimState(self)
        state.table, state.started = table, True
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The one view there is: a player's own, private and public (see the module doc)."""
        if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info
                                         != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("cribsim's games give a player's own view only (public and its private information)")
        return Observer(table_for(self.rules).size)


class CribsimState(pyspiel.State):  # type: ignore[misc]
    """A game in progress: first a draw for the first player, then the table's own steps."""

    def __init__(self, game: CribsimGame) -> None:
        super().__init__(game)
        self.max_steps = game.max_steps  # (OpenSpiel clones a state by deep-copying its attributes)
        self.table = table_for(game.rules)
        self.started = False
        self.chooser: Chooser | None = None
        self.answered: Any = None  # the answer the last move completed (None: it completed none)
        self.moves = 0

    # ---- whose move -----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if not self.started or self.table.actor == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return self.table.actor

    def is_terminal(self) -> bool:
        return (self.started and self.table.actor == -1) or self.moves >= self.max_steps

    def _open(self) -> Chooser:
        if self.chooser is None:
            self.chooser = Chooser(self.table.choices())
        return self.chooser

    def _legal_actions(self, player: int) -> list[int]:
        if not self.started or player != self.table.actor or self.is_terminal():
            return []
        return self._open().next_tokens()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self.table.outcomes() if self.started else list(range(self.table.players))
        p = 1.0 / len(outcomes)
        return [(o, p) for o in outcomes]

    def _apply_action(self, action: int) -> None:
        self.moves += 1
        if not self.started:
            self.table.reset(0, (0, 0), chance=True, first=action)
            self.started = True
        elif self.table.actor == CHANCE:
            self.table.draw(action)
        else:
            choice = self._open().pick(action)
            self.answered = None
            if choice is not None:
                self.chooser = None
                self.table.apply(choice.answer)
                self.answered = choice.answer

    def _action_to_string(self, player: int, action: int) -> str:
        if not self.started:
            return f"seat {action} first"
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {self.table.outcome_name(action)}"
        return self.table.token_name(action)

    # ---- the end ----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        t = self.table
        if not self.started or t.actor != -1:
            return [0.0] * t.players
        return game_rewards(t)

    def info_key(self, player: int) -> str:
        if not self.started:
            return f"seat {player}: before the first deal"
        key = self.table.info_key(player)
        if self.table.actor == player:
            key += f"; picked {self.chosen(player)}"
        return key

    def chosen(self, player: int) -> list[int]:
        return self.chooser.chosen if self.chooser is not None and self.table.actor == player else []

    # ---- what a player cannot see -----------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CribsimState:
        """A state ``player_id`` cannot tell from this one, everything it has not seen drawn
        afresh (a world: ``Table.world``), seeded by ``probability_sampler`` (OpenSpiel's: a
        callable giving numbers in 0..1). For the player to act only (whose view is complete);
        before the first draw nothing is hidden, so the state's copy. A CribsimError says why
        not (another player, rules whose worlds cannot be drawn)."""
        if not self.started:
            copy: CribsimState = self.clone()
            return copy
        if self.is_terminal() or player_id != self.table.actor:
            raise CribsimError(f"cribsim: a state is resampled for the player to act only (player {player_id} is not "
                               "to act here)")
        game: CribsimGame = self.get_game()
        chosen = self.chosen(player_id)
        state = game.state_at(self._world(game, player_id, random.Random(int(probability_sampler() * 2 ** 53))))
        state.moves = self.moves - len(chosen)
        for token in chosen:
            state.apply_action(token)
        return state

    def _world(self, game: CribsimGame, player: int, rng: random.Random) -> Table:
        """A table at a world of ``player``'s view (see :meth:`resample_from_infostate`)."""
        table = table_for(game.rules)
        try:
            table.world(*self.table.view(player), rng)
        except ValueError as e:
            raise CribsimError(f"cribsim: cannot resample: {e}") from None
        return table

    def __str__(self) -> str:
        return self.table.describe() if self.started else "before the first deal"


class Observer:
    """OpenSpiel's Python observer: the table's vector (``tensor``) and its information string."""

    def __init__(self, size: int) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CribsimState, player: int) -> None:
        self.tensor.fill(0)
        if state.started:
            state.table.observe(player, state.chosen(player), self.tensor)

    def string_from(self, state: CribsimState, player: int) -> str:
        return state.info_key(player)


_REGISTERED: dict[str, type[CribsimGame]] = {}  # kept for the life of the process: OpenSpiel's registry holds them


def register() -> list[str]:
    """Register ``cribsim`` and ``cribsim_<name>`` for every shipped rules file (once); returns
    the names registered."""
    if not _REGISTERED:
        for name in preset_names():
            table = table_for(load_rules(name))
            cls = type(f"Cribsim_{name}", (CribsimGame,), {"RULES": name})
            pyspiel.register_game(_game_type(f"cribsim_{name}", f"cribsim {name}", table, None), cls)
            _REGISTERED[f"cribsim_{name}"] = cls
        standard = table_for(load_rules("standard"))
        pyspiel.register_game(_game_type("cribsim", "cribsim (any rules file)", standard, "standard"), CribsimGame)
        _REGISTERED["cribsim"] = CribsimGame
    return sorted(_REGISTERED)
