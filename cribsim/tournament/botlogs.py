"""What bots write on their standard error, kept per lineup entry in the results folder.

A bot's standard error is never the run's own: the engine reads it through a pipe of its own
(:class:`cribsim.isolation.link.Link`), a worker sends each batch's share back with the batch
(bounded, :data:`cribsim.isolation.link.ERRORS_KEPT` a player process), and the driver appends
it to ``bots/NAME.stderr``. That file is capped at :data:`CAP` bytes: when a write would pass
it, the file is renamed ``bots/NAME.stderr.1`` (replacing the one before) and a new one begun,
so an entry's log never takes more than twice the cap. Nothing here follows a symbolic link."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..nofollow import LinkRefused, link_message, open_fd

BOTS_DIR = "bots"
CAP = 1 << 20  # bytes of one entry's standard error before its file is rotated


def log_files(names: Sequence[str]) -> list[str]:
    """The files (relative to a results folder) that the bots named may be given."""
    return [f"{BOTS_DIR}/{n}{suffix}" for n in names for suffix in (".stderr", ".stderr.1")]


class BotLogs:
    """Appends each entry's standard error to its file in ``out``/bots (``names``: the lineup's
    entry names, by entry index)."""

    def __init__(self, out: Path, names: Sequence[str]) -> None:
        self.folder = out / BOTS_DIR
        self.names = list(names)

    def add(self, entry: int, data: bytes) -> None:
        if not data:
            return
        self._ready()
        name = f"{self.names[entry]}.stderr"
        path = self.folder / name
        dirfd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            try:
                size = os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(data) > CAP:
                os.replace(name, name + ".1", src_dir_fd=dirfd, dst_dir_fd=dirfd)
            data = data[:CAP]
        finally:
            os.close(dirfd)
        fd = open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode=0o600, levels=1)
        with os.fdopen(fd, "ab") as f:
            f.write(data)

    def _ready(self) -> None:
        if self.folder.is_symlink() or (self.folder.exists() and not self.folder.is_dir()):
            raise LinkRefused(link_message(self.folder))
        self.folder.mkdir(mode=0o700, exist_ok=True)
