"""Fives and Threes (the rules reference's Part 3), a game on the kernel (:mod:`cribsim.games`
finds it here as ``GAME``)."""

from .game import GAME

__all__ = ["GAME"]
