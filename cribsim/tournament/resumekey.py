"""The key a results folder's resume checkpoint is signed with, ``resume.key``.

``resume.ckpt`` holds sums that a resumed run takes instead of reading every record again, so
anyone who could write into the folder could otherwise make the run write false tables. The
first run that keeps a checkpoint draws 32 random bytes into ``resume.key``, a new file only
its owner can read (mode 0600, never through a link), and every checkpoint carries an
HMAC-SHA256 of its contents under that key (:mod:`.checkpoint`). Someone who can write into the
folder but is not its owner can neither read the key nor put one of their own in its place: a
key file that is not a regular file of one name, owned by the user running cribsim and closed to
everyone else, holding 64 hex digits, is not trusted. A run or a resume never replaces or
removes such a file (it may not have written it; ``--fresh`` removes it with the run's other
files): the run keeps no checkpoint until it is removed.

Why not the deal secret (``deal-secret``): only runs with untrusted bots have one, and
``--deal-secret FOLDER`` copies it from folder to folder; a key of its own is one per folder."""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import stat
from pathlib import Path

from .secret import hex_bytes

KEY_FILE = "resume.key"
_BYTES = 32
_DOMAIN = b"cribsim resume checkpoint\n"  # (the key signs nothing else)


class Untrusted(Exception):
    """A key file cribsim cannot take as its owner's: why, in a few words."""


def read_key(folder: Path) -> bytes | None:
    """The folder's key (None: there is none); Untrusted if the file is not one cribsim can trust."""
    try:
        fd = os.open(folder / KEY_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise Untrusted(_why(e)) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise Untrusted("not a file of its own")
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise Untrusted("not a file only you can read and write (another user's, or open to others)")
        key = hex_bytes(f.read(4 * _BYTES), _BYTES)
    if key is None:
        raise Untrusted(f"not a key ({_BYTES * 2} hex digits)")
    return key


def folder_key(folder: Path) -> tuple[bytes, bool]:
    """(the folder's key, whether it was made now): the one kept there, else a new one written
    there. Untrusted if the file there is not one cribsim can trust."""
    key = read_key(folder)
    if key is not None:
        return key, False
    key = os.urandom(_BYTES)
    try:
        fd = os.open(folder / KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # (made meanwhile, by someone else)
        raise Untrusted("made by someone else as cribsim was making it") from None
    except OSError as e:
        raise Untrusted(f"cannot be written ({_why(e)})") from None
    with os.fdopen(fd, "w") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    return key, True


def sign(key: bytes, data: bytes) -> str:
    """The HMAC-SHA256 of ``data`` under ``key``, as hex."""
    return hmac.new(key, _DOMAIN + data, hashlib.sha256).hexdigest()


def signed(key: bytes, data: bytes, mac: object) -> bool:
    """Whether ``mac`` is :func:`sign`'s of ``data`` under ``key`` (compared in constant time)."""
    return isinstance(mac, str) and mac.isascii() and hmac.compare_digest(sign(key, data), mac)


def _why(e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "a symbolic link"
    return e.strerror or str(e)
