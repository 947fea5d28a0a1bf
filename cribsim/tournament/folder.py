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
from ..nofollow import open_append, open_read, open_update
from ..records import MatchRecord, RecordError, match_from_json
from .manifest import MANIFEST, RUN_LOG, Manifest, ManifestError
from .schedule import Schedule

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
        with open_read(path) as f:
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
    every line that is not used counted, never silently dropped:

    - ``unreadable``: lines that could not be read (torn writes, damaged bytes, JSON that is not
      a record);
    - ``foreign``: records of no match of the run's schedule (an id it does not have, or sides
      other than its id stands for);
    - ``disputed``: ids recorded twice with different results: every record of such an id is
      left out (which one is right cannot be told from the file);
    - ``repeats``: a record written again, the same: used once.

    A failed match (no result: its worker kept dying) disputes nothing: a later record of it (a
    resumed run plays it again) replaces it, and a failed record after a result is not used.

    ``torn_tail`` is a last line with no newline that does not parse: an interrupted write,
    which a resumed run cuts off."""

    def __init__(self) -> None:
        self.by_id: dict[str, MatchRecord] = {}
        self.unreadable = 0
        self.unreadable_lines: list[int] = []
        self.foreign = 0
        self.foreign_lines: list[int] = []
        self.disputed: set[str] = set()
        self.repeats = 0
        self.torn_tail = False
        self.good_end = 0  # byte offset just after the last line that is whole

    @property
    def records(self) -> list[MatchRecord]:
        return list(self.by_id.values())

    @property
    def results(self) -> list[MatchRecord]:
        """The records with a result: the matches a resumed run keeps (it plays failed ones again)."""
        return [r for r in self.by_id.values() if not r.failed]

    @property
    def accounted(self) -> set[str]:
        """The ids a resumed run does not play again: those recorded with a result, and the
        disputed ones (whose lines stay in the file, so another record would not settle them)."""
        return {r.id for r in self.results} | self.disputed

    def add(self, match: MatchRecord, line: int, schedule: Schedule | None) -> None:
        if schedule is not None and not schedule.holds(match):
            self.foreign += 1
            if len(self.foreign_lines) < 5:
                self.foreign_lines.append(line)
        elif match.id in self.disputed:
            pass
        elif match.id not in self.by_id or (self.by_id[match.id].failed and not match.failed):
            self.by_id[match.id] = match
        elif self.by_id[match.id] == match or match.failed:
            self.repeats += 1
        else:
            del self.by_id[match.id]
            self.disputed.add(match.id)


def schedule_of(manifest: Manifest) -> Schedule | None:
    """The schedule a run's records are checked against (None: a manifest too old to say)."""
    return Schedule(manifest.tables, manifest.matches, manifest.paired) if manifest.matches >= 1 else None


def scan_records(path: str | os.PathLike[str], schedule: Schedule | None) -> Records:
    """The records of ``path`` checked against ``schedule`` (see :class:`Records`)."""
    r = Records()
    path = Path(path)
    if not path.exists():
        return r
    if not path.is_file():
        raise Damaged(f"cribsim: {path}: not a file")
    offset = 0
    try:
        with open_read(path) as f:
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
                        r.add(match, no, schedule)
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


def _lines(count: int, first: list[int]) -> str:
    shown = ", ".join(str(n) for n in first) + (", ..." if count > len(first) else "")
    return f"line{'s' if count != 1 else ''} {shown}"


def unreadable_note(path: str | os.PathLike[str], recs: Records) -> str:
    """What was not used of matches.jsonl, and why (empty if everything was): one line."""
    parts = []
    if recs.unreadable:
        parts.append(f"{recs.unreadable:,} unreadable line{'s' if recs.unreadable != 1 else ''} skipped "
                     f"({_lines(recs.unreadable, recs.unreadable_lines)}: torn or damaged)")
    if recs.foreign:
        parts.append(f"{recs.foreign:,} record{'s' if recs.foreign != 1 else ''} of no match of this run's schedule "
                     f"left out ({_lines(recs.foreign, recs.foreign_lines)}: an unknown id, or sides other than "
                     "its id stands for)")
    if recs.disputed:
        shown = ", ".join(sorted(recs.disputed)[:3]) + (", ..." if len(recs.disputed) > 3 else "")
        parts.append(f"{len(recs.disputed):,} match{'es' if len(recs.disputed) != 1 else ''} recorded twice with "
                     f"different results left out ({shown}; cribsim run --fresh plays them again)")
    return f"{path}: " + "; ".join(parts) if parts else ""


def cut_torn_tail(path: str | os.PathLike[str], recs: Records) -> None:
    """Cut an interrupted last write (and add a missing final newline) before appending."""
    path = Path(path)
    size = path.stat().st_size
    if recs.good_end < size:
        with open_update(path) as f:
            f.truncate(recs.good_end)
            f.flush()
            os.fsync(f.fileno())
    if recs.good_end:
        with open_read(path) as f:
            f.seek(recs.good_end - 1)
            last = f.read(1)
        if last != b"\n":
            with open_append(path) as f:
                f.write(b"\n")
                f.flush()
                os.fsync(f.fileno())
