"""A program bot's record in the manifest: its command, the files it is shown and the hash of
their contents, so a results folder says which program made it (the entry's name alone, as
``program:NAME``, does not)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence

from ..errors import CribsimError
from .config import Entry
from .manifest import Program

CHUNK = 1 << 20


def program_of(entry: Entry, base: str) -> Program | None:
    """The program of a lineup entry (None: not a program); ``base`` is the config's folder."""
    if not entry.command:
        return None
    bot = entry.bot(base)
    files = [os.path.relpath(f, bot.cwd) for f in bot.files]
    try:
        digest = shown_sha256(bot.cwd, files)
    except OSError as e:
        raise CribsimError(f"cribsim: bot {entry.name!r}: cannot read {e.filename} to record its hash "
                           f"({e.strerror or e})") from None
    return Program(list(entry.command), files, digest)


def shown_sha256(cwd: str, files: Sequence[str]) -> str:
    """The SHA-256 of what ``sha256sum`` prints for every file shown (a folder's at any depth), in
    the order of their paths relative to ``cwd``: ``cd CWD && find FILES -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`` gives the same."""
    listing = hashlib.sha256()
    for path in sorted(set(_every_file(cwd, files))):
        listing.update(f"{_file_sha256(os.path.join(cwd, path))}  {path}\n".encode())
    return listing.hexdigest()


def _every_file(cwd: str, files: Sequence[str]) -> Iterator[str]:
    """Every file of ``files`` (paths relative to ``cwd``), a folder's at any depth."""
    for f in files:
        path = os.path.join(cwd, f)
        if os.path.isdir(path):
            for folder, _, names in os.walk(path):
                yield from (os.path.relpath(os.path.join(folder, n), cwd) for n in names)
        elif os.path.exists(path):
            yield f


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()
