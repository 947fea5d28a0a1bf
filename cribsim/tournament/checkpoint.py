"""A resume checkpoint: what reading the first ``good_end`` bytes of a run's records file found,
so that a resumed run reads only what was written after.

A resumed run needs the sums of every result on disk and a bit for every match done. Reading
them from ``matches.jsonl.gz`` costs about 145 us a match (14 minutes for 5.8 million, hours at
10^8). ``resume.ckpt`` (gzip'd JSON, written whole or not at all) holds that reading's outcome up
to a batch boundary: the counts of :class:`~.folder.Records`, its two bitmaps, and the exact
sums of the results (:class:`~.aggregate.Partial`, failed matches left out as a resumed run
plays them again), with the BLAKE2b digest of the file's bytes up to there, all signed with
the folder's key (an HMAC: :mod:`.resumekey`), since the tables are made from its sums. The run
writes it when a session ends and every few minutes while it plays; a resume writes it after
its reading. A resume whose checkpoint is not signed with the folder's key (forged, from
another folder, an older cribsim's, or its key missing or not the owner's), is damaged or of
another schedule reads the whole file, and says so (:func:`start_from`); so, without a word
(the whole reading reports what it finds), does one whose file does not start with the bytes
it read (an edited, cut or foreign file), and one that meets a record of a match the
checkpoint already has a result of. Runs with a sequential test (``stop:``, small by design)
have none."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import stat
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..nofollow import open_fd, open_read
from . import resumekey
from .aggregate import ColumnSums, Exact, ForfeitRow, PairedSums, Partial, VariantShape, VariantSums
from .atomic import atomic_write_bytes
from .folder import CHECKPOINT, Records, schedule_of
from .manifest import Manifest
from .schedule import Schedule, Seen

if TYPE_CHECKING:
    from ..game import Ints

NAME = CHECKPOINT
FORMAT = "cribsim-resume-2"  # (1: unsigned, before issue 38)
CHUNK = 1 << 20


def hasher() -> Any:
    return hashlib.blake2b(digest_size=32)


def digest_of(path: Path, end: int, h: Any = None, start: int = 0) -> Any:
    """``h`` (a new BLAKE2b) fed the bytes of ``path`` from ``start`` to ``end``; None if the
    file is shorter."""
    h = hasher() if h is None else h
    left = end - start
    with open_read(path) as f:
        f.seek(start)
        while left > 0:
            chunk = f.read(min(CHUNK, left))
            if not chunk:
                return None
            h.update(chunk)
            left -= len(chunk)
    return h


@dataclass
class Checkpoint:
    """The reading of a records file up to ``records.good_end`` and the sums of its results."""

    records: Records
    partial: Partial
    digest: str


def _schedule_key(manifest: Manifest) -> str:
    return hashlib.blake2b(json.dumps([manifest.tables, manifest.matches, manifest.paired, manifest.config_hash],
                                      sort_keys=True).encode(), digest_size=16).hexdigest()


class Refused(Exception):
    """Why a folder's checkpoint is not used, in a few words."""


def save(out: Path, manifest: Manifest, ck: Checkpoint, key: bytes) -> None:
    """Write the checkpoint signed with ``key``: a first line saying the format and the HMAC of
    the second, the checkpoint's JSON."""
    r = ck.records
    assert r.seen is not None and r.used is not None
    data = {"schedule": _schedule_key(manifest), "end": r.good_end, "digest": ck.digest,
            "lines": r.lines, "unreadable": r.unreadable, "unreadable_lines": r.unreadable_lines,
            "damaged": r.damaged, "foreign": r.foreign, "foreign_lines": r.foreign_lines,
            "disputed": sorted(r.disputed), "repeats": r.repeats, "results": r.results, "failed": r.failed,
            "seen": _bits(r.seen), "used": _bits(r.used), "partial": partial_to_json(ck.partial)}
    body = json.dumps(data, separators=(",", ":")).encode()
    head = json.dumps({"format": FORMAT, "mac": resumekey.sign(key, body)}, separators=(",", ":")).encode()
    atomic_write_bytes(out / NAME, gzip.compress(head + b"\n" + body, 6, mtime=0))


def load(out: Path, manifest: Manifest, schedule: Schedule, key: bytes) -> Checkpoint:
    """The folder's checkpoint if it is signed with ``key``, is one of this run's schedule, reads
    whole and agrees with itself (its digest is checked by the caller); Refused otherwise. A
    results folder may come from someone else: only a regular file is read, within sizes the
    schedule allows (no pipe to block on, no small file that decompresses into gigabytes), its
    JSON is parsed only once its signature checks, and counts that contradict each other or
    name what the run has not are refused."""
    try:
        head, _, body = _read_capped(out / NAME, schedule).partition(b"\n")
        said = json.loads(head)
        if not isinstance(said, dict) or said.get("format") != FORMAT:
            raise Refused("is not signed (an older cribsim's, or not a checkpoint)")
        if not resumekey.signed(key, body, said.get("mac")):
            raise Refused("is not signed with the folder's key (changed since cribsim wrote it, or another folder's)")
        d = json.loads(body)
        if d["schedule"] != _schedule_key(manifest):
            raise Refused("is of another schedule")
        ck = _checkpoint(d, manifest, schedule)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile, ValueError, KeyError, TypeError, IndexError,
            AttributeError, ZeroDivisionError, RecursionError, OverflowError):
        raise Refused("cannot be read (damaged, or not a checkpoint)") from None
    if not _agrees(ck, manifest, schedule):
        raise Refused("contradicts itself")
    return ck


def _checkpoint(d: dict[str, Any], manifest: Manifest, schedule: Schedule) -> Checkpoint:
    r = Records(_seen(schedule, d["seen"]))
    r.used = _seen(schedule, d["used"])
    r.good_end, r.lines = _count(d["end"]), _count(d["lines"])
    r.unreadable, r.foreign, r.repeats = _count(d["unreadable"]), _count(d["foreign"]), _count(d["repeats"])
    r.results, r.failed = _count(d["results"]), _count(d["failed"])
    r.unreadable_lines = [_count(x) for x in d["unreadable_lines"]]
    r.foreign_lines = [_count(x) for x in d["foreign_lines"]]
    r.damaged = [_count(x) for x in d["damaged"]]
    r.disputed = {str(x) for x in d["disputed"]}
    return Checkpoint(r, partial_from_json(VariantShape.of(manifest), d["partial"]), str(d["digest"]))


@dataclass
class Start:
    """Where a resume starts reading the records: from ``ck`` (and ``h``, the digest of the bytes
    it read, to go on from), else from the start; ``key``: the folder's (None: none it can
    trust, so no checkpoint is kept); ``note``: why a checkpoint there is not used."""

    ck: Checkpoint | None = None
    h: Any = None
    key: bytes | None = None
    note: str | None = None


def start_from(path: Path, manifest: Manifest) -> Start:
    """How a resume of the run whose records are ``path`` starts: from the folder's checkpoint
    if it is signed with the folder's key, is this run's and the file starts with the bytes it
    read; else from the start, saying why when the checkpoint or the key is not to be trusted
    (not when there is none, nor when the records file changed since). A missing key is made
    (for the checkpoints to come)."""
    out = path.parent
    there = os.path.lexists(out / NAME)
    try:
        key, made = resumekey.folder_key(out)
    except resumekey.Untrusted as e:
        return Start(note=f"{out / resumekey.KEY_FILE} is {e}: cribsim neither trusts nor replaces it, so "
                          f"{NAME} is not used (every record is read) and none is kept until it is removed")
    if not there:
        return Start(key=key)
    try:
        if made:
            raise Refused(f"cannot be checked ({resumekey.KEY_FILE}, the key it is signed with, is missing)")
        ck = load(out, manifest, schedule_of(manifest), key)
    except Refused as e:
        return Start(key=key, note=f"{out / NAME} {e}: not used; every record is read again")
    h = digest_of(path, ck.records.good_end) if path.is_file() else None
    if h is None or h.hexdigest() != ck.digest:
        return Start(key=key)  # (a true checkpoint of records changed since: the whole reading says what it finds)
    return Start(ck, h, key)


def _read_capped(path: Path, schedule: Schedule) -> bytes:
    """The checkpoint's JSON: a regular file (opened without blocking on a pipe), at most as big
    as the schedule makes a checkpoint, decompressed to at most as much as it can hold."""
    fd = open_fd(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        limit = (1 << 24) + schedule.size // 2  # (two compressed bitmaps and the sums)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise ValueError("not a checkpoint")
        packed = f.read(limit + 1)
    unpacked = zlib.decompressobj(wbits=31)
    most = (1 << 26) + 400 * schedule.size  # (a forfeit's message at most, a match)
    data = unpacked.decompress(packed, most)
    if unpacked.unconsumed_tail or not unpacked.eof:
        raise ValueError("not a checkpoint")
    return data


def _agrees(ck: Checkpoint, manifest: Manifest, schedule: Schedule) -> bool:
    """Whether the checkpoint's counts agree with each other and name only the run's matches,
    entries and tables."""
    r, p = ck.records, ck.partial
    assert r.seen is not None and r.used is not None
    entries = len(manifest.entry_names)
    tables = {(v, t) for v, ts in enumerate(manifest.tables) for t in range(len(ts))}
    padding = len(r.seen.bits) * 8 - schedule.size
    return (r.seen.count == r.results + len(r.disputed) and r.used.count == r.results + r.failed
            and all(r.seen.index(m) is not None for m in r.disputed)
            and not any(bits[-1] >> (8 - padding) for bits in (r.seen.bits, r.used.bits) if padding and bits)
            and p.matches == r.results == sum(n for n, _ in p.tables.values())
            and set(p.tables) <= tables
            and all(max(k) < entries for v in p.variants for k in v.pair)
            and all(e < entries for v in p.variants for e in v.entries))


def _count(x: Any) -> int:
    if type(x) is not int or x < 0:
        raise ValueError("not a count")
    return x


def _bits(s: Seen) -> str:
    return base64.b64encode(zlib.compress(bytes(s.bits), 1)).decode()


def _seen(schedule: Schedule, text: Any) -> Seen:
    s = Seen(schedule)
    unpacked = zlib.decompressobj()
    bits = unpacked.decompress(base64.b64decode(str(text), validate=True), len(s.bits) + 1)
    if len(bits) != len(s.bits) or unpacked.unconsumed_tail or not unpacked.eof:
        raise ValueError("a bitmap of another schedule")
    s.bits[:] = bits
    s.count = int.from_bytes(bits, "little").bit_count()
    return s


def _copy(r: Records) -> Records:
    """A copy of ``r`` whose bitmaps are its own."""
    assert r.seen is not None
    c = Records(Seen(r.seen.schedule))
    c.__dict__.update({k: v for k, v in r.__dict__.items() if k not in ("seen", "used", "records")})
    c.unreadable_lines, c.foreign_lines, c.damaged = list(r.unreadable_lines), list(r.foreign_lines), list(r.damaged)
    c.disputed = set(r.disputed)
    c.seen = _clone(r.seen)
    c.used = _clone(r.used) if r.used is not None else Seen(r.seen.schedule)
    return c


def _clone(s: Seen) -> Seen:
    c = Seen(s.schedule)
    c.bits[:] = s.bits
    c.count = s.count
    return c


class Tracker:
    """A run's checkpoint kept up to date as its batches are appended to the records file (what
    reading the file would find, batch by batch: see :func:`~.folder.read_records`), saved
    every ``every`` seconds and when the session ends."""

    every = 300.0

    def __init__(self, out: Path, manifest: Manifest, records: Records, h: Any, now: float, key: bytes) -> None:
        self.out, self.manifest, self.h, self.key = out, manifest, h, key
        self.records = _copy(records)
        self.saved_at = now
        self.broken = False  # a batch it cannot follow (a record of no match of the schedule): no more saves

    def add(self, data: bytes, places: Ints | Sequence[int | None], failed: set[int], distinct: bool = False) -> None:
        """A batch appended: its bytes, each record's place (an array, in the order written; -1:
        none of the schedule's; ``distinct``: no place twice) and which of them failed."""
        import numpy as np

        if not isinstance(places, np.ndarray):  # (a list: None for none of the schedule's)
            places = np.array([-1 if p is None else p for p in places], dtype=np.int64)
        r = self.records
        assert r.seen is not None and r.used is not None
        self.h.update(data)
        r.good_end += len(data)
        r.lines += len(places)
        if distinct and not failed and (places >= 0).all() and not r.used.marked(places).any():
            r.used.add_all(places)  # (a batch of new results: as arrays)
            r.seen.add_all(places)
            r.results += len(places)
            return
        used, seen = r.used.bits, r.seen.bits
        for place in places.tolist():  # (Seen.has and Seen.add inline)
            if place < 0:
                self.broken = True
                continue
            byte, bit = place >> 3, 1 << (place & 7)
            if used[byte] & bit:
                if seen[byte] & bit:  # (never: a run writes no match twice)
                    self.broken = True
                    continue
                r.failed -= 1  # failed in an earlier session, played again
                r.repeats += 1
            else:
                used[byte] |= bit
                r.used.count += 1
            if place in failed:
                r.failed += 1
            else:
                r.results += 1
                seen[byte] |= bit
                r.seen.count += 1

    def due(self, now: float) -> bool:
        return not self.broken and now - self.saved_at >= self.every

    def save(self, partial: Partial, now: float) -> None:
        """Save the checkpoint (the run's sums without its failed matches); a failure to write
        it costs only a longer resume."""
        self.saved_at = now
        if self.broken:
            return
        try:
            save(self.out, self.manifest, Checkpoint(self.records, results_only(partial), self.h.hexdigest()), self.key)
        except OSError:
            pass


# ---- the sums as JSON (exact: a Fraction as [numerator, denominator]) -----------------------------

def _x(v: Exact) -> Any:
    return v if type(v) is int else [v.numerator, v.denominator]


def _e(v: Any) -> Exact:
    if type(v) is int:
        return v
    num, den = v
    if type(num) is not int or type(den) is not int or den <= 0:
        raise ValueError("not an exact number")
    return Fraction(num, den)


_COLUMN = ("n", "hits", "nonfinite", "sx", "sxx", "sd", "sdd", "sxd")
_PAIRED = ("units", "su", "suu", "matches", "sm", "smm")


def _variant_to_json(v: VariantSums) -> dict[str, Any]:
    return {"pair": [[a, b, *cell] for (a, b), cell in v.pair.items()],
            "entries": [[e, *row] for e, row in v.entries.items()],
            "columns": {h: [_x(getattr(c, f)) for f in _COLUMN] for h, c in v.columns.items()},
            "forfeited": v.forfeited, "failed": v.failed,
            "paired": [[t, [getattr(p, f) for f in _PAIRED], p.penta, [[g, h] for g, h in p.waiting.items()]]
                       for t, p in v.paired.items()]}


def _variant_from_json(d: dict[str, Any]) -> VariantSums:
    v = VariantSums()
    v.pair = {(_count(a), _count(b)): [_count(h), _count(n)] for a, b, h, n in d["pair"]}
    v.entries = {_count(e): [_count(x) for x in row] for e, *row in d["entries"]}
    for h, values in d["columns"].items():
        c = ColumnSums()
        for f, x in zip(_COLUMN, values, strict=True):
            setattr(c, f, _e(x))
        v.columns[str(h)] = c
    v.forfeited, v.failed = _count(d["forfeited"]), _count(d["failed"])
    for t, counts, penta, waiting in d["paired"]:
        p = PairedSums()
        for f, x in zip(_PAIRED, counts, strict=True):
            setattr(p, f, _count(x))
        p.penta = [_count(x) for x in penta]
        p.waiting = {_count(g): [_count(x) for x in h] for g, h in waiting}
        v.paired[_count(t)] = p
    return v


def partial_to_json(p: Partial) -> dict[str, Any]:
    return {"variants": [_variant_to_json(v) for v in p.variants], "matches": p.matches,
            "tables": [[v, t, *counts] for (v, t), counts in p.tables.items()],
            "forfeits": [[list(f.key), f.match, f.entry, f.kind, f.error, f.failed] for f in p.forfeits]}


def partial_from_json(shapes: Sequence[VariantShape], d: dict[str, Any]) -> Partial:
    p = Partial(shapes)
    variants = [_variant_from_json(v) for v in d["variants"]]
    if len(variants) != len(shapes):
        raise ValueError("sums of another run")
    p.variants = variants
    p.matches = _count(d["matches"])
    p.tables = {(_count(v), _count(t)): [_count(n), _count(f)] for v, t, n, f in d["tables"]}
    p.forfeits = [ForfeitRow((_count(k[0]), _count(k[1]), _count(k[2]), _count(k[3])), str(m),
                             None if e is None else _count(e), str(kind), str(err), bool(failed))
                  for k, m, e, kind, err, failed in d["forfeits"]]
    return p


def results_only(p: Partial) -> Partial:
    """A copy of ``p`` without its failed matches (a resumed run plays them again): what a
    reading of the records file sums."""
    q = partial_from_json(p.shapes, partial_to_json(p))
    failed = sum(counts[1] for counts in q.tables.values())
    q.matches -= failed
    q.tables = {k: [n - f, 0] for k, (n, f) in q.tables.items() if n > f}
    q.forfeits = [f for f in q.forfeits if not f.failed]
    for v in q.variants:
        v.failed = 0
    return q
