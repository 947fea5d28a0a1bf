"""Lookup tables filled on first use (a plain Python module, kept apart from the hot modules when
a mypyc lane compiled those: ordinary dictionaries with ``__missing__``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class LazyTable(dict[Any, Any]):
    """A dict that computes a missing entry with ``fill(key)`` and keeps it; with a ``limit``
    it is emptied when it holds that many entries (a bound on memory)."""

    def __init__(self, fill: Callable[[Any], Any], limit: int | None = None) -> None:
        super().__init__()
        self.fill = fill
        self.limit = limit

    def __missing__(self, key: Any) -> Any:
        v = self.fill(key)
        if self.limit is not None and len(self) >= self.limit:
            self.clear()
        self[key] = v
        return v
