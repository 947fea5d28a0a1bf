"""``cribsim upgrade FOLDER``: convert the records an older cribsim wrote (``matches.jsonl``, plain
JSON lines, record schema 2) to ``matches.jsonl.gz`` (schema 3), so that the folder can be
reported and resumed again. Every record is carried over as it was, repeats and disputed ones
included, so the tables come out the same; lines that are not records are counted, and then
the old file is kept beside the new one rather than removed."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import CribsimError
from ..lock import FolderLock
from ..nofollow import open_fd, open_read, refuse_links
from ..records import LEGACY_SCHEMA, MatchRecord, RecordError, match_from_json
from . import folder as fld
from .recordfile import LEGACY, encode

TMP = "matches.tmp"  # (one of the folder's scratch names: written, then renamed into place)
BATCH = 1000  # records a gzip member


def upgrade(out_dir: str | os.PathLike[str]) -> str:
    """Convert the folder's records; one line saying what was done."""
    out = Path(out_dir)
    if not out.is_dir():
        raise CribsimError(f"cribsim: {out}: no such folder")
    refuse_links(out)
    manifest = fld.read_manifest(out)
    if manifest is None:
        raise CribsimError(f"cribsim: {out}: no manifest.json (not a results folder)")
    old, new = out / LEGACY, out / fld.RECORDS
    with FolderLock(out, "upgrade"):
        if not old.exists():
            return f"{out}: nothing to upgrade (no {LEGACY})"
        if new.exists():
            raise CribsimError(f"cribsim: {out}: holds both {LEGACY} and {fld.RECORDS}; cribsim reads only the "
                               f"second: move {LEGACY} aside")
        try:
            converted, unreadable = _convert(old, out / TMP)
        except BaseException:
            (out / TMP).unlink(missing_ok=True)
            raise
        os.replace(out / TMP, new)
        manifest.files = sorted({f for f in manifest.files or fld.owned_files(manifest) - set(fld.UNLISTED)
                                 if f != LEGACY} | {fld.RECORDS} | ({LEGACY} if unreadable else set()))
        manifest.write(out)
        if not unreadable:
            old.unlink()
    before, after = old.name, new.name
    said = f"{out}: {_count(converted, 'record')} converted from {before} to {after}"
    if unreadable:
        verb = "is" if unreadable == 1 else "are"
        return f"{said}; {_count(unreadable, 'line')} that {verb} not a record left out, so {before} is kept"
    return f"{said} (the tables stay the same)"


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _convert(old: Path, tmp: Path) -> tuple[int, int]:
    """Write ``old``'s records to ``tmp`` as schema 3 members; (records, lines left out)."""
    converted = unreadable = 0
    fd = open_fd(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    with os.fdopen(fd, "wb") as f:
        batch: list[MatchRecord] = []
        for rec in _legacy(old):
            if rec is None:
                unreadable += 1
                continue
            batch.append(rec)
            if len(batch) == BATCH:
                f.write(encode(batch))
                converted += len(batch)
                batch = []
        f.write(encode(batch))
        converted += len(batch)
        f.flush()
        os.fsync(f.fileno())
    return converted, unreadable


def _legacy(path: Path) -> Iterator[MatchRecord | None]:
    """Each line of a schema 2 file as a record (None: not one)."""
    try:
        with open_read(path) as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    d = json.loads(line)
                except (ValueError, RecursionError):
                    yield None
                    continue
                if isinstance(d, dict) and "schema" not in d and "v" in d:
                    raise CribsimError(f"cribsim: {path}: written with record schema 1, too old to convert; run the "
                                       "experiment again with --fresh")
                try:
                    yield match_from_json(d, LEGACY_SCHEMA)
                except RecordError:
                    yield None
    except OSError as e:
        raise CribsimError(f"cribsim: {path}: cannot read ({e.strerror or e})") from None
