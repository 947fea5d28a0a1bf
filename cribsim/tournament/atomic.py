"""Files written whole or not at all: write a scratch file beside the target, flush it to disk,
rename it into place. A reader (or a crash) sees the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def atomic_write(path: Path, text: str) -> None:
    """``text`` (UTF-8) into ``path``, whole or not at all (see :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode())


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """The scratch file is made anew (an old one, or a link planted there, is removed first and
    never followed), and renaming it replaces ``path`` itself, never what a link there points to."""
    tmp = path.with_name(path.name + ".tmp") if path.suffix != ".json" else path.with_suffix(".tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def save_figure(fig: Figure, path: Path, dpi: int) -> None:
    """A matplotlib figure as a PNG at ``path``, written whole (never through a link there)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    atomic_write_bytes(path, buf.getvalue())


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON with sorted keys (the same data: the same bytes)."""
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
