"""'Did you mean ...?' for unknown names (variants, strategies, rules, keys, commands)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: object, choices: Iterable[str], n: int = 1) -> list[str]:
    """The known names nearest ``word`` (none if nothing is near)."""
    if not isinstance(word, str) or not word:
        return []
    pool = list(choices)
    lowered = {c.lower(): c for c in pool}
    found = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.7)
    return [lowered[f] for f in found]


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """``" (did you mean 'standard'?)"`` for a near miss, else an empty string (for the end of
    an error message)."""
    near = closest(word, choices)
    return f" (did you mean {near[0]!r}?)" if near else ""
