"""Events: every point scored (and, when a log is kept, every action) with its reason."""

from collections import namedtuple

# sources of points (indexes into the per-role tallies kept in bulk runs)
PEG, HAND, CRIB, HEELS, OTHER = range(5)
SOURCES = ("peg", "hand", "crib", "heels", "other")

Event = namedtuple("Event", "deal seat points source reason cards count")
Event.__new__.__defaults__ = ((), None)
Event.__doc__ = """One thing that happened in a deal.

``source`` is one of SOURCES for points, or an action: 'cut', 'deal', 'discard', 'starter',
'lay', 'go', 'reset', 'show'.  ``reason`` says why in words ('fifteen', 'pair', 'run', 'go',
'last card', 'thirty-one', 'his heels', 'flush', 'nobs').  Scores equal the sum of ``points``."""
