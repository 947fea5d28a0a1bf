"""A program bot's record in the manifest: its command, the files it is shown and the hash of
their contents, so a results folder says which program made it (the entry's name alone, as
``program:NAME``, does not)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import CribsimError
from .config import Entry, Experiment
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


def programs_part(exp: Experiment) -> dict[str, Any]:
    """What of a study's hash (tune, balance) comes from the program bots its steps play: each
    one's files' hash by its name (empty: none), so that a changed program is another study, as
    a changed module of one's own is (:func:`config.code_part`)."""
    shown = {e.name: p.sha256 for e in exp.lineup if (p := program_of(e, exp.plugin_dir)) is not None}
    return {"programs": shown} if shown else {}


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


_SEEN: dict[tuple[str, int, int, int, int], str] = {}  # this process's hashes, by path and what stat says


def _file_sha256(path: str) -> str:
    """The file's SHA-256, read once a process while its size and modification time stand (a run
    checks a program's files at its folder's checks and again for its manifest)."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        key = (os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        got = _SEEN.get(key)
        if got is None:
            h = hashlib.sha256()
            for chunk in iter(lambda: f.read(CHUNK), b""):
                h.update(chunk)
            got = _SEEN[key] = h.hexdigest()
    return got
