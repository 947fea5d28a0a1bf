"""The deal secret of a run with untrusted bots.

A bot that knows a run's config and seed could re-derive every deck, since decks are addressed
by (seed, match, game, deal). So a run with any untrusted bot draws 32 random bytes when it
starts and keeps them in its results folder (``deal-secret``, readable by its owner only, never
inside a sandbox); every stream of the run (decks, the cut, the strategies' seeds) takes its seed
from the config's seed and the secret, so nothing a bot sees or reads gives it a deck, and its
own per-game seed reveals nothing of the match. ``--resume`` and the game records' replays use
the folder's secret; ``cribsim run CONFIG --deal-secret FOLDER`` plays the same decks elsewhere.
The manifest records a commitment (a SHA-256 of the secret), so a published secret can be
checked against the results it claims to have made."""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

from ..errors import CribsimError

SECRET_FILE = "deal-secret"
_BYTES = 32


def secret_seed(seed: int, secret: bytes) -> int:
    """The run's seed for every stream, from the config's seed and the secret (0..2**63-1)."""
    digest = hashlib.blake2b(seed.to_bytes(8, "little"), key=secret, digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def commitment(secret: bytes) -> str:
    """What the manifest records of a secret: ``sha256:`` and its first 32 hex digits."""
    return "sha256:" + hashlib.sha256(secret).hexdigest()[:32]


def read_secret(folder: Path) -> bytes | None:
    """The secret kept in a results folder (None: there is none); a damaged or linked file is a
    CribsimError naming it."""
    path = folder / SECRET_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CribsimError(f"cribsim: cannot read {path} ({_why(e)})") from None
    with os.fdopen(fd, "rb") as f:
        secret = hex_bytes(f.read(200), _BYTES)
    if secret is None:
        raise CribsimError(f"cribsim: {path} is not a deal secret ({_BYTES * 2} hex digits)")
    return secret


def hex_bytes(text: bytes, size: int) -> bytes | None:
    """``size`` bytes written as hex digits (a secret's or a key's file), or None."""
    try:
        value = bytes.fromhex(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return value if len(value) == size else None


def write_secret(folder: Path, secret: bytes) -> None:
    """Keep ``secret`` in ``folder`` (a new file, owner-only; never through a link)."""
    path = folder / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as e:
        raise CribsimError(f"cribsim: cannot write {path} ({_why(e)})") from None
    with os.fdopen(fd, "w") as f:
        f.write(secret.hex() + "\n")


def run_secret(folder: Path, source: Path | None, committed: str | None) -> bytes:
    """The secret of the run in ``folder``: the one kept there (a resumed run), else the one of
    ``source`` (``--deal-secret FOLDER``, copied in), else a new one. ``committed``: the
    commitment of the folder's earlier run, which the secret must match."""
    kept = read_secret(folder)
    given = None
    if source is not None:
        given = read_secret(source)
        if given is None:
            raise CribsimError(f"cribsim: --deal-secret: {source} holds no {SECRET_FILE}")
    if kept is not None and given is not None and kept != given:
        raise CribsimError(f"cribsim: --deal-secret: {folder} already has another deal secret; "
                           "use another folder or --fresh")
    secret = kept or given
    if secret is None:
        if committed is not None:
            raise CribsimError(f"cribsim: {folder / SECRET_FILE} is missing, but its matches were dealt with it: "
                               "put it back, or start again with --fresh")
        secret = os.urandom(_BYTES)
    if committed is not None and commitment(secret) != committed:
        raise CribsimError(f"cribsim: {folder / SECRET_FILE} is not the secret its matches were dealt with "
                           f"(the manifest says {committed}); put the right one back, or use --fresh")
    if kept is None:
        write_secret(folder, secret)
    return secret


def _why(e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "it is a symbolic link; cribsim does not follow links in a results folder"
    return e.strerror or str(e)
