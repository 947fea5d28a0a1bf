"""Files written whole or not at all: write a scratch file beside the target, flush it to disk,
rename it into place. A reader (or a crash) sees the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp") if path.suffix != ".json" else path.with_suffix(".tmp")
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON with sorted keys (the same data: the same bytes)."""
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
