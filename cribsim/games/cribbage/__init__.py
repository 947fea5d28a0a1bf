"""Cribbage: the rules, the engine and its variants, a game on the kernel (:mod:`cribsim.games`
finds it here as ``GAME``)."""

from .game import GAME

__all__ = ["GAME"]
