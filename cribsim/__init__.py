"""cribsim: a tournament simulator and rules-variant testbed for games scored on a cribbage
board (cribbage and its variants, Fives and Threes)."""

from . import rng

__version__ = "0.1.0"


def compiled() -> bool:
    """Whether the hot modules run compiled (the optional mypyc lane, see setup.py) or as pure
    Python: the addressed random streams are compiled with the engines, so they tell."""
    return not rng.__file__.endswith(".py")
