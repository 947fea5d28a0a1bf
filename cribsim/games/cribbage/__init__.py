"""Cribbage: the rules, the engine and its variants (a game on the kernel, see cribsim.games)."""
