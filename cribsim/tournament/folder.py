"""Results folders: which files cribsim owns there, reading (never trusting) the manifest, and
reading the records with every unreadable line counted.

A folder is cribsim's when its ``manifest.json`` is a cribsim manifest. Only the files that
manifest lists (or, for a manifest from before the list existed, the files cribsim's naming
scheme gives it) are ever removed (``--fresh``), and a folder that holds files but no cribsim
manifest is never written into."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..errors import CribsimError
from ..gamelog import GAMES_DIR, GAMES_FILE
from ..lock import LOCK_NAME
from ..records import MatchRecord, RecordError, match_from_json
from .manifest import MANIFEST, RUN_LOG, Manifest, ManifestError

RECORDS = "matches.jsonl"
SUMMARY = "summary.md"
SCRATCH = ("manifest.tmp", "matches.tmp", "run.tmp")  # written then renamed into place
BASE_FILES = (MANIFEST, RECORDS, SUMMARY, RUN_LOG)
FIXED_TABLES = ("entries", "variants", "paired", "sprt", "forfeits")
FIXED_PLOTS = ("winrates", "variants")
MAX_MANIFEST = 10_000_000  # bytes


class Damaged(CribsimError):
    """A results folder cribsim cannot trust (exit 2): nothing is written to it."""


def read_manifest(out: str | os.PathLike[str]) -> Manifest | None:
    """The folder's manifest, or None if there is none. Raises Damaged for one that cannot be
    read, is not JSON, is not cribsim's, or has the wrong shape."""
    path = Path(out) / MANIFEST
    if not path.exists():
        return None
    try:
        if not path.is_file():
            raise Damaged(f"cribsim: {path}: not a file")
        with open(path, "rb") as f:
            data = f.read(MAX_MANIFEST + 1)
    except OSError as e:
        raise Damaged(f"cribsim: {path}: cannot read ({e.strerror or e})") from None
    if len(data) > MAX_MANIFEST:
        raise Damaged(f"cribsim: {path}: larger than {MAX_MANIFEST:,} bytes; not a cribsim manifest")
    try:
        m = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise Damaged(f"cribsim: {path}: not UTF-8 text (damaged); nothing was changed") from None
    except json.JSONDecodeError as e:
        raise Damaged(f"cribsim: {path}: not valid JSON ({e.msg} at line {e.lineno}; truncated or damaged); "
                      "nothing was changed") from None
    except RecursionError:
        raise Damaged(f"cribsim: {path}: nested too deep (damaged); nothing was changed") from None
    if not isinstance(m, dict):
        raise Damaged(f"cribsim: {path}: expected a JSON object, got a {type(m).__name__} (damaged, or not "
                      "cribsim's); nothing was changed")
    if "cribsim_version" not in m or "config_hash" not in m:
        raise Damaged(f"cribsim: {path}: not a cribsim manifest (another tool's?); cribsim does not write into "
                      "this folder: use another --out")
    try:
        return Manifest.from_json(m)
    except ManifestError as e:
        raise Damaged(f"cribsim: {path}: damaged manifest ({e}); nothing was changed") from None


def owned_files(manifest: Manifest) -> set[str]:
    """File names (in the folder) that cribsim wrote for this manifest's run: the ones it lists,
    else those cribsim's naming scheme gives (older manifests). Only plain names are kept."""
    names = {MANIFEST, RECORDS, SUMMARY} | set(SCRATCH)  # the run log only when the manifest lists it
    if manifest.files:
        names.update(manifest.files)
    else:
        names.update(f"{t}.csv" for t in FIXED_TABLES)
        names.update(f"{p}.png" for p in FIXED_PLOTS)
        for n in manifest.variant_names:
            names.update({f"matrix_{n}.csv", f"heatmap_{n}.png"})
    return {n for n in names if _plain_name(n) or n == GAMES_FILE}


def _plain_name(name: object) -> bool:
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name
            and "\0" not in name and len(name) <= 255)


def foreign_files(out: str | os.PathLike[str], manifest: Manifest | None = None) -> list[str]:
    """Files in the folder that are not cribsim's (its lock and scratch files aside)."""
    ours = owned_files(manifest) if manifest else set(SCRATCH)
    ours.add(LOCK_NAME)
    if GAMES_FILE in ours:  # the game records' folder
        ours.add(GAMES_DIR)
    return sorted(f.name for f in Path(out).iterdir() if f.name not in ours)


def remove_owned(out: str | os.PathLike[str], manifest: Manifest) -> None:
    """``--fresh``: remove the files of the earlier run that its manifest lists, nothing else;
    the manifest goes last, so an interrupted removal leaves a folder that is still cribsim's."""
    out = Path(out)
    names = owned_files(manifest)
    for name in sorted(names - {MANIFEST}) + [MANIFEST]:
        p = out / name
        if name == GAMES_FILE and p.parent.is_symlink():
            continue  # the records' folder replaced by a link: not ours to follow
        if p.is_symlink() or p.is_file():  # a link is removed, never what it points to
            p.unlink()
            if name == GAMES_FILE:
                with contextlib.suppress(OSError):  # the records' folder, if nothing else is in it
                    p.parent.rmdir()


class Records:
    """The records of matches.jsonl (:class:`cribsim.records.MatchRecord` objects), by id, with
    the lines that could not be read counted (torn writes, damaged bytes, JSON that is not a
    record of the right shape). ``torn_tail`` is a last line with
    no newline that does not parse: an interrupted write, which a resumed run cuts off."""

    def __init__(self) -> None:
        self.by_id: dict[str, MatchRecord] = {}
        self.unreadable = 0
        self.unreadable_lines: list[int] = []
        self.torn_tail = False
        self.good_end = 0  # byte offset just after the last line that is whole

    @property
    def records(self) -> list[MatchRecord]:
        return list(self.by_id.values())


def scan_records(path: str | os.PathLike[str]) -> Records:
    r = Records()
    path = Path(path)
    if not path.exists():
        return r
    if not path.is_file():
        raise Damaged(f"cribsim: {path}: not a file")
    offset = 0
    try:
        with open(path, "rb") as f:
            for no, line in enumerate(f, 1):
                end = offset + len(line)
                whole = line.endswith(b"\n")
                body = line.strip()
                if body:
                    rec = None
                    try:
                        rec = json.loads(body)
                    except (ValueError, RecursionError):
                        pass
                    match = None
                    if isinstance(rec, dict) and isinstance(rec.get("id"), str):
                        try:
                            match = match_from_json(rec)
                        except RecordError as e:
                            if "schema" not in rec and "v" in rec:
                                raise Damaged(f"cribsim: {path}: written by an older cribsim (record schema 1); "
                                              "this one reads schema 2: run again with --fresh (or another --out) "
                                              "to replay it") from None
                            raise Damaged(f"cribsim: {path}: line {no}: a record of the wrong shape ({e}); "
                                          "nothing was changed") from None
                    if match is not None:
                        r.by_id[match.id] = match
                    elif not whole and not isinstance(rec, dict):
                        r.torn_tail = True  # not counted: the interrupted last write
                        break
                    else:
                        r.unreadable += 1
                        if len(r.unreadable_lines) < 5:
                            r.unreadable_lines.append(no)
                if whole:
                    r.good_end = end
                elif body and not r.torn_tail:
                    r.good_end = end  # a whole record missing only its newline
                offset = end
    except OSError as e:
        raise Damaged(f"cribsim: {path}: cannot read ({e.strerror or e})") from None
    return r


def unreadable_note(path: str | os.PathLike[str], recs: Records) -> str:
    if not recs.unreadable:
        return ""
    lines = ", ".join(str(n) for n in recs.unreadable_lines) + (", ..." if recs.unreadable > 5 else "")
    return (f"{path}: {recs.unreadable:,} unreadable line{'s' if recs.unreadable != 1 else ''} skipped "
            f"(line{'s' if recs.unreadable != 1 else ''} {lines}: torn or damaged)")


def cut_torn_tail(path: str | os.PathLike[str], recs: Records) -> None:
    """Cut an interrupted last write (and add a missing final newline) before appending."""
    path = Path(path)
    size = path.stat().st_size
    if recs.good_end < size:
        with open(path, "r+b") as f:
            f.truncate(recs.good_end)
            f.flush()
            os.fsync(f.fileno())
    if recs.good_end:
        with open(path, "rb") as f:
            f.seek(recs.good_end - 1)
            last = f.read(1)
        if last != b"\n":
            with open(path, "ab") as f:
                f.write(b"\n")
                f.flush()
                os.fsync(f.fileno())
