"""Results folders that cannot be turned against their owner: cribsim follows no symbolic link
inside one.

A results folder may come from someone else (a shared study, a clone), and a link planted in it
(``summary.md -> ~/.bashrc``, ``.cribsim.lock -> ~/thesis.tex``) would make a report or a run
write or truncate a file outside it. Two layers keep that from happening:

- every command that reads or writes a results folder first looks through it
  (:func:`refuse_links`) and refuses a link anywhere inside, in one line naming it, before it
  writes anything;
- every file cribsim opens there is opened with ``O_NOFOLLOW`` (:func:`open_fd`), and every
  file it replaces is written beside and renamed into place (which replaces a link rather than
  writing through it), so a link planted after the look is refused too, never followed.

The folder itself may be a link (``--out`` names what the user chose); what is inside may not."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import BinaryIO

from .errors import CribsimError


class LinkRefused(CribsimError):
    """A symbolic link inside a results folder (exit 2): nothing was written."""


def link_message(path: str | os.PathLike[str]) -> str:
    return (f"cribsim: {path}: a symbolic link inside a results folder; cribsim follows none there (it could "
            "read or write a file outside the folder): remove the link, or use another folder")


def find_link(folder: str | os.PathLike[str]) -> Path | None:
    """The first symbolic link inside ``folder`` (at any depth, in name order), or None."""
    stack = [Path(folder)]
    while stack:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue  # not a folder, gone, or unreadable: the command's own checks say so
        subfolders = []
        for e in entries:
            if e.is_symlink():
                return Path(e.path)
            if e.is_dir(follow_symlinks=False):
                subfolders.append(Path(e.path))
        stack.extend(reversed(subfolders))
    return None


def refuse_links(folder: str | os.PathLike[str]) -> None:
    """Raise LinkRefused naming the first symbolic link inside ``folder``, if there is one."""
    link = find_link(folder)
    if link is not None:
        raise LinkRefused(link_message(link))


def open_fd(path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
    """``os.open`` that never follows a link at ``path`` (LinkRefused) and is not inherited by
    the processes cribsim starts."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as e:
        if e.errno == errno.ELOOP or (e.errno == errno.EMLINK and os.path.islink(path)):
            raise LinkRefused(link_message(path)) from None
        raise


def open_read(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary, never through a link."""
    return os.fdopen(open_fd(path, os.O_RDONLY), "rb")


def open_append(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for appending in binary (created if need be), never through a link."""
    return os.fdopen(open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab")


def open_update(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading and writing in place (to cut a torn tail), never through a link."""
    return os.fdopen(open_fd(path, os.O_RDWR), "r+b")
