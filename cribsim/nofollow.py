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
    """The first symbolic link inside ``folder`` (at any depth, in name order), or a file
    there with other hard links (which cribsim would write elsewhere too), or None. A folder
    inside that cannot be listed is refused (LinkRefused): what it holds cannot be checked."""
    stack = [Path(folder)]
    while stack:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as e:
            if here == Path(folder) and e.errno in (errno.ENOENT, errno.ENOTDIR):
                return None  # no folder yet (or not a folder): the command's own checks say so
            raise LinkRefused(f"cribsim: {here}: cannot look through it ({e.strerror or e}); cribsim uses no "
                              "results folder it cannot check for links") from None
        subfolders = []
        for entry in entries:
            if entry.is_symlink() or (entry.is_file(follow_symlinks=False)
                                      and entry.stat(follow_symlinks=False).st_nlink > 1):
                return Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(Path(entry.path))
        stack.extend(reversed(subfolders))
    return None


def refuse_links(folder: str | os.PathLike[str]) -> None:
    """Raise LinkRefused naming the first symbolic link inside ``folder``, if there is one."""
    link = find_link(folder)
    if link is not None:
        raise LinkRefused(link_message(link) if link.is_symlink() else hard_link_message(link))


_WRITES = os.O_WRONLY | os.O_RDWR


def open_fd(path: str | os.PathLike[str], flags: int, mode: int = 0o644, levels: int = 0) -> int:
    """``os.open`` that never follows a link at ``path``, nor at its last ``levels`` folders
    (``games/`` of ``games/games.jsonl.gz``: a folder swapped for a link while a run plays is
    refused too), and is not inherited by the processes cribsim starts. A file opened for
    writing that has other hard links is refused: writing it would change them too."""
    path = Path(path)
    parent = os.open(path.parents[levels], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # (the folder may be a link)
    try:
        for i in range(levels, 0, -1):
            inner = _open_folder(path.parents[i - 1], path.parents[i - 1].name, parent)
            os.close(parent)
            parent = inner
        fd = _open_at(path, path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, parent)
    finally:
        os.close(parent)
    if flags & _WRITES and os.fstat(fd).st_nlink > 1:
        os.close(fd)
        raise LinkRefused(hard_link_message(path))
    return fd


def hard_link_message(path: str | os.PathLike[str]) -> str:
    return (f"cribsim: {path}: has other hard links; cribsim writes no file inside a results folder that is also "
            "elsewhere: remove the other links, or use another folder")


def _open_folder(path: Path, name: str, parent: int) -> int:
    return _open_at(path, name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, 0, parent)


def _open_at(path: Path, name: str, flags: int, mode: int, parent: int) -> int:
    try:
        return os.open(name, flags, mode, dir_fd=parent)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR) and os.path.islink(path):
            raise LinkRefused(link_message(path)) from None
        raise


def open_read(path: str | os.PathLike[str], levels: int = 0) -> BinaryIO:
    """``path`` opened for reading in binary, never through a link."""
    return os.fdopen(open_fd(path, os.O_RDONLY, levels=levels), "rb")


def open_append(path: str | os.PathLike[str], levels: int = 0) -> BinaryIO:
    """``path`` opened for appending in binary (created if need be), never through a link."""
    return os.fdopen(open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, levels=levels), "ab")


def open_update(path: str | os.PathLike[str], levels: int = 0) -> BinaryIO:
    """``path`` opened for reading and writing in place (to cut a torn tail), never through a link."""
    return os.fdopen(open_fd(path, os.O_RDWR, levels=levels), "r+b")
