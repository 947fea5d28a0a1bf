"""Plug-in strategies for tests/test_hardening.py (importable by Ray workers as tests.*)."""

from strategies.random_play import RandomStrategy


class SecondTimeUnlucky(RandomStrategy):
    """Made once when the lineup is checked (fine), then fails when a match makes it: an error
    outside any decision, so not a forfeit but a failed run."""

    made = 0

    def __init__(self, rng):
        super().__init__(rng)
        type(self).made += 1
        if type(self).made > 1:
            raise KeyError(2)
