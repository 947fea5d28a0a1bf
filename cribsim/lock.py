"""One writer per results folder: an exclusive ``flock`` on ``FOLDER/.cribsim.lock``.

The lock belongs to the open file, so it goes away with the process however it ends (SIGKILL,
a crash): no stale locks to clean up. The file holds who took it (pid, host, command, time) for
the message a second run gets. It is opened close-on-exec, so processes the run starts (Ray's)
never inherit it, and removed by its holder on release; a taker that finds the file replaced
between opening and locking it tries again."""

from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import socket
from pathlib import Path
from typing import Any, Literal

from .errors import CribsimError
from .nofollow import open_fd, open_read

LOCK_NAME = ".cribsim.lock"


class FolderLock:
    def __init__(self, folder: str | os.PathLike[str], command: str = "run") -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.command = command
        self.fd: int | None = None

    def acquire(self) -> FolderLock:
        for _ in range(10):
            try:
                fd = open_fd(self.path, os.O_RDWR | os.O_CREAT)  # a link there is refused, never truncated
            except OSError as e:
                raise CribsimError(f"cribsim: cannot lock {self.folder} ({e.strerror or e})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                os.close(fd)
                if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise CribsimError(f"cribsim: {self.folder} is in use: {describe_holder(self.path)}; "
                                       "wait for it to end, or use another --out") from None
                raise CribsimError(f"cribsim: cannot lock {self.folder} ({e.strerror or e})") from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                break
            os.close(fd)  # the holder removed it as we opened it: take the new one
        else:
            raise CribsimError(f"cribsim: cannot lock {self.folder} (the lock file keeps changing)")
        info = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                "since": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
        try:
            os.ftruncate(self.fd, 0)
            os.write(self.fd, (json.dumps(info) + "\n").encode())
        except OSError:
            pass  # the lock holds without the note
        return self

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)  # while still holding it (see the module's docstring)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> Literal[False]:
        self.release()
        return False


def holder(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Who holds the folder's lock (a dict, possibly empty), or None if nobody does."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = open_fd(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _info(path)
        return None
    finally:
        os.close(fd)


def describe_holder(path: str | os.PathLike[str]) -> str:
    info = _info(path)
    if not info:
        return "another cribsim holds its lock"
    return (f"cribsim {info.get('command', 'run')} (pid {info.get('pid', '?')} on {info.get('host', '?')}, "
            f"since {info.get('since', '?')})")


def _info(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        with open_read(path) as f:
            data = json.loads(f.read(4096) or b"{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, CribsimError):
        return {}
