"""What cribsim learns or builds once and keeps: tables and models a strategy computes for a rule
set (ev's crib tables for a new scoring, adaptive's models) live in the cache folder,
``$XDG_CACHE_HOME/cribsim`` or ``~/.cache/cribsim``. A file is read back when it is valid; a
missing, damaged or stale one is made again (with a progress line on stderr) and written
atomically (a scratch file, then a rename), so two processes never read half a file; a folder
that cannot be written costs only the next run's work, said in one line."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/cribsim``, else ``~/.cache/cribsim``."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "cribsim"


def kept(name: str, valid: Callable[[object], bool], make: Callable[[], T], making: str) -> T:
    """The JSON file ``name`` of the cache folder when ``valid`` says it is what is wanted; else
    ``make()``'s, after the line ``cribsim: {making} (kept in PATH)``, written there for next
    time."""
    path = cache_folder() / name
    try:
        got = json.loads(path.read_text())
    except (OSError, ValueError):
        got = None
    if valid(got):
        return got  # type: ignore[no-any-return]
    print(f"cribsim: {making} (kept in {path})", file=sys.stderr, flush=True)
    made = make()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f".{path.name}.{os.getpid()}")
        scratch.write_text(json.dumps(made, sort_keys=True) + "\n")
        os.replace(scratch, path)
    except OSError as e:  # a read-only home: what was made still serves this process
        print(f"cribsim: could not keep it in {path.parent} ({e.strerror}); it is made again next time",
              file=sys.stderr, flush=True)
    return made
