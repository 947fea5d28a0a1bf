"""cribsim: a tournament simulator and rules-variant testbed for cribbage."""

__version__ = "0.1.0"


def compiled() -> bool:
    """Whether the engine runs compiled (the optional mypyc lane, see setup.py) or as pure Python."""
    from cribsim.games.cribbage.engine import state

    return not state.__file__.endswith(".py")
