"""Environments over the engine's own state machine, for agents written against the standard
APIs: :mod:`cribsim.env.aec` (PettingZoo, ``pip install cribsim[rl]``) and
:mod:`cribsim.env.spiel` (OpenSpiel, ``pip install cribsim[openspiel]``), both thin adapters of
one :class:`cribsim.env.table.Table` per game. A game may add its own: cribbage's
:mod:`cribsim.games.cribbage.vector` steps many games at once in the native lane with numpy
arrays (Gymnasium's vector conventions).

``from cribsim.env import env, raw_env`` gives the PettingZoo environment; the framework is
imported only then, so the plain install never needs it."""

from __future__ import annotations

import importlib
from typing import Any

_AEC = ("env", "raw_env", "CribsimEnv")


def __getattr__(name: str) -> Any:
    if name in _AEC:
        return getattr(importlib.import_module("cribsim.env.aec"), name)
    raise AttributeError(f"module 'cribsim.env' has no attribute {name!r}")
