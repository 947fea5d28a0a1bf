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
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import CribsimError
from ..gamelog import GAMES_DIR, GAMES_FILE, MAX_LINE
from ..gzmembers import HEADER, NotGzip, Scan, members
from ..lock import LOCK_NAME
from ..names import file_stem
from ..nofollow import open_read, open_update
from ..records import MatchRecord, RecordError, match_from_json
from .botlogs import BOTS_DIR, log_files
from .manifest import MANIFEST, RUN_LOG, Manifest, ManifestError
from .recordfile import FILE, line_id
from .recordfile import LEGACY as LEGACY
from .resumekey import KEY_FILE
from .schedule import Schedule, Seen

RECORDS = FILE
SUMMARY = "summary.md"
CHECKPOINT = "resume.ckpt"  # a resumed run's head start (tournament.checkpoint)
SCRATCH = ("manifest.tmp", "matches.tmp", "run.tmp", "resume.ckpt.tmp")  # written then renamed into place
UNLISTED = (*SCRATCH, CHECKPOINT, KEY_FILE)  # cribsim's, but never in a manifest's list of files
BASE_FILES = (MANIFEST, RECORDS, SUMMARY, RUN_LOG)
FIXED_TABLES = ("entries", "variants", "paired", "sprt", "forfeits")
FIXED_PLOTS = ("winrates", "variants")
MAX_MANIFEST = 10_000_000  # bytes


class Damaged(CribsimError):
    """A results folder cribsim cannot trust (exit 2): nothing is written to it."""


def refuse_legacy(out: Path) -> None:
    """A folder whose records an older cribsim wrote (``matches.jsonl``, schema 2) is refused,
    never misread: ``cribsim upgrade`` converts it."""
    if (out / LEGACY).exists() and not (out / RECORDS).exists():
        raise CribsimError(f"cribsim: {out}: its records are in {LEGACY}, written by an older cribsim (schema 2); "
                           f"'cribsim upgrade {out}' converts them to {RECORDS} (the same tables), or run it again "
                           "with --fresh")


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
    # (the run log only when the manifest lists it)
    names = {MANIFEST, RECORDS, LEGACY, SUMMARY, CHECKPOINT, KEY_FILE} | set(SCRATCH)
    if manifest.files:
        names.update(manifest.files)
    else:
        names.update(f"{t}.csv" for t in FIXED_TABLES)
        names.update(f"{p}.png" for p in FIXED_PLOTS)
        for n in manifest.variant_names:
            names.update(variant_files(n, older=True))
    return {n for n in names if _plain_name(n) or n == GAMES_FILE}


def variant_files(name: str, older: bool = False) -> set[str]:
    """A variant's win-rate matrix and heatmap, named by :func:`~cribsim.names.file_stem`
    (``matrix_standard_pair=3.csv``); ``older``: and as a cribsim before that named them, by the
    variant's name as it is (``matrix_standard[pair=3].csv``), so that a folder written then is
    still recognised, and its files replaced."""
    stems = {file_stem(name), name} if older else {file_stem(name)}
    return {f"{kind}_{s}.{ext}" for s in stems for kind, ext in (("matrix", "csv"), ("heatmap", "png"))}


def bot_logs(manifest: Manifest) -> set[str]:
    """What the run's bots wrote on standard error (``bots/NAME.stderr``): cribsim's, by its
    naming scheme, never listed in the manifest."""
    return {n for n in log_files([e.name for e in manifest.lineup]) if _plain_name(n.split("/", 1)[1])}


def _plain_name(name: object) -> bool:
    return (isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name
            and "\0" not in name and len(name) <= 255)


def foreign_files(out: str | os.PathLike[str], manifest: Manifest | None = None) -> list[str]:
    """Files in the folder that are not cribsim's (its lock and scratch files aside)."""
    ours = owned_files(manifest) if manifest else set(UNLISTED)
    ours.add(LOCK_NAME)
    if GAMES_FILE in ours:  # the game records' folder
        ours.add(GAMES_DIR)
    if manifest is not None:  # the bots' standard error
        ours.add(BOTS_DIR)
    return sorted(f.name for f in Path(out).iterdir() if f.name not in ours)


def remove_owned(out: str | os.PathLike[str], manifest: Manifest) -> None:
    """``--fresh``: remove the files of the earlier run that its manifest lists, nothing else;
    the manifest goes last, so an interrupted removal leaves a folder that is still cribsim's."""
    out = Path(out)
    names = owned_files(manifest) | bot_logs(manifest)
    for name in sorted(names - {MANIFEST}) + [MANIFEST]:
        p = out / name
        if "/" in name and p.parent.is_symlink():
            continue  # the records' (or the bots') folder replaced by a link: not ours to follow
        if p.is_symlink() or p.is_file():  # a link is removed, never what it points to
            p.unlink()
            if "/" in name:
                with contextlib.suppress(OSError):  # the records' (or the bots') folder, if nothing else is in it
                    p.parent.rmdir()


class Records:
    """What reading ``matches.jsonl.gz`` found, counted, never silently dropped (the records
    themselves go to the reader's callback, or, from :func:`scan_records`, to ``records``):

    - ``unreadable``: lines that could not be read (JSON that is not a record, or a line past the
      limit: it costs itself, not its batch);
    - ``damaged``: batches (gzip members) that do not decompress, skipped to the next one;
    - ``foreign``: records of no match of the run's schedule (an id it does not have, or sides
      other than its id stands for);
    - ``disputed``: ids recorded twice with different results: every record of such an id is
      left out (which one is right cannot be told from the file);
    - ``repeats``: a record written again, the same: used once.

    A failed match (no result: its worker kept dying) disputes nothing: a later record of it (a
    resumed run plays it again) replaces it, and a failed record after a result is not used.

    ``torn_tail`` is an unfinished last batch (an interrupted write), which a resumed run cuts
    off at ``good_end``; ``seen`` marks the matches a resumed run does not play again (those
    with a result, and the disputed ones)."""

    def __init__(self, seen: Seen | None = None) -> None:
        self.records: list[MatchRecord] = []  # (scan_records only)
        self.unreadable = 0
        self.unreadable_lines: list[int] = []
        self.damaged: list[int] = []
        self.foreign = 0
        self.foreign_lines: list[int] = []
        self.disputed: set[str] = set()
        self.repeats = 0
        self.torn_tail = False
        self.good_end = 0  # byte offset just after the last whole batch
        self.results = 0  # matches with a result
        self.failed = 0  # matches whose only records are failed ones
        self.seen = seen
        self.used: Seen | None = None  # every match with a record (a result, or failed): the reading's own
        self.lines = 0  # lines read up to ``good_end``

    @property
    def accounted(self) -> int:
        """How many matches a resumed run does not play again: recorded with a result, or
        disputed (their lines stay in the file, so another record would not settle them)."""
        return self.results + len(self.disputed)

    def _unreadable(self, line: int) -> None:
        self.unreadable += 1
        if len(self.unreadable_lines) < 5:
            self.unreadable_lines.append(line)

    def _foreign(self, line: int) -> None:
        self.foreign += 1
        if len(self.foreign_lines) < 5:
            self.foreign_lines.append(line)


def schedule_of(manifest: Manifest) -> Schedule:
    """The schedule a run's records are checked against."""
    return Schedule(manifest.tables, manifest.matches, manifest.paired)


class NotContinued(Exception):
    """A reading from a checkpoint met a record of a match the checkpoint has a result of: only
    a reading from the start can settle it."""


def read_records(path: str | os.PathLike[str], schedule: Schedule,
                 each: Callable[[MatchRecord], None] | None = None, start: Records | None = None) -> Records:
    """Read ``path`` (see :class:`Records`), handing every record used to ``each``, in memory
    that does not grow with the file: a first pass finds the ids written more than once (one bit
    a match of the schedule), a second parses every line, and only the records of those ids are
    held until the end, where each is settled.

    ``start``: what an earlier reading of the file's first ``start.good_end`` bytes found (a
    resume checkpoint, :mod:`.checkpoint`); the reading goes on from there and adds to it. A
    match whose only records there failed is settled again with the records after (as a
    resumed run replaces a failed record); a record of a match it has a result of raises
    :class:`NotContinued`."""
    path = Path(path)
    recs = start if start is not None else Records(Seen(schedule))
    if recs.used is None:
        recs.used = Seen(schedule)  # every match handed on, failed or not (seen: those with a result, or disputed)
    if not path.exists():
        return recs
    if not path.is_file():
        raise Damaged(f"cribsim: {path}: not a file")
    again = _written_again(path, Seen(schedule), recs.good_end)
    held: dict[str, list[MatchRecord]] = {}
    assert recs.seen is not None
    seen, used = recs.seen, recs.used
    for no, line in _numbered(path, recs):
        match = _parse(path, no, line)
        place = None if match is None else schedule.place(match)
        if match is None:
            recs._unreadable(no)
        elif place is None:
            recs._foreign(no)
        else:
            if start is not None and seen.has(place):
                raise NotContinued(match.id)  # (a result, or disputed, before the checkpoint)
            if start is not None and used.has(place):
                used.discard(place)  # failed before the checkpoint: settled again with what follows
                recs.failed -= 1
                recs.repeats += 1
            if match.id in again:
                held.setdefault(match.id, []).append(match)
            else:
                _use(recs, used, match, place, each)
    for match_id in sorted(held):
        settled = _settle(held[match_id], recs)
        if settled is not None:
            _use(recs, used, settled, schedule.place(settled), each)
    return recs


def _use(recs: Records, used: Seen, match: MatchRecord, place: int | None,
         each: Callable[[MatchRecord], None] | None) -> None:
    if place is None or not used.add(place):
        recs.repeats += 1  # (never: the first pass finds every id written twice, however it is spelled)
        return
    if match.failed:
        recs.failed += 1
    else:
        recs.results += 1
        assert recs.seen is not None
        recs.seen.add(place)
    if each is not None:
        each(match)


FAILED_MARK = b'"forfeit":{"side":null,'  # how cribsim writes a failed match's forfeit


def count_results(path: str | os.PathLike[str], schedule: Schedule) -> int:
    """About how many matches of ``schedule`` have a result in ``path``, from the start of each
    line and whether it is a failed match as cribsim writes one, without parsing the records (a
    quick look: what is used is read in full)."""
    path = Path(path)
    if not path.is_file():
        return 0
    seen = Seen(schedule)
    for _, line in _numbered(path, Records()):
        match_id = line_id(line)
        i = seen.index(match_id) if match_id is not None and FAILED_MARK not in line else None
        if i is not None:
            seen.add(i)
    return seen.count


def _written_again(path: Path, seen: Seen, start: int = 0) -> set[str]:
    """The ids of the schedule that more than one line names from the offset ``start`` on (see
    :func:`_named_id`)."""
    again: set[str] = set()
    scratch = Records()
    scratch.good_end = start
    for _, line in _numbered(path, scratch):
        match_id = _named_id(line)
        if match_id is None:
            continue
        i = seen.index(match_id)
        if i is not None and not seen.add(i):
            again.add(match_id)
    return again


def _named_id(line: bytes) -> str | None:
    """The id a line names: read from its start as cribsim writes it, else (a line written
    otherwise: other spacing, key order or escapes) parsed, so that a second record of a match
    is found however it is spelled. None: not a record."""
    match_id = line_id(line)
    if match_id is not None:
        return match_id
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec["id"] if isinstance(rec, dict) and isinstance(rec.get("id"), str) else None


def _settle(matches: list[MatchRecord], recs: Records) -> MatchRecord | None:
    """The record of a match written more than once: the first result (a failed record before
    it is replaced, as a resumed run replaces it, by a result or by the failure of its replay;
    one after it is a repeat); None if two results differ (the match is disputed)."""
    kept: MatchRecord | None = None
    for m in matches:
        if kept is None or kept.failed:
            if kept is not None:
                recs.repeats += 1
            kept = m
        elif kept == m or m.failed:
            recs.repeats += 1
        else:
            recs.disputed.add(m.id)
            assert recs.seen is not None
            i = recs.seen.index(m.id)
            if i is not None:
                recs.seen.add(i)
            return None
    return kept


def _numbered(path: Path, recs: Records) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of every whole batch from ``recs.good_end`` on (numbered after
    ``recs.lines``), the damaged ones skipped and counted; a line past the limit stands as
    ``LONG_LINE``, an unreadable line (it costs itself, not its batch nor the batches after)."""
    scan = Scan()
    no = recs.lines
    try:
        for _, lines in members(path, scan, resync=True, max_line=MAX_LINE, start=recs.good_end, skip_long=True):
            for line in lines:
                no += 1
                yield no, line
    except NotGzip:
        raise Damaged(f"cribsim: {path}: not a gzip file (damaged, or not cribsim's); nothing was changed") from None
    except OSError as e:
        raise Damaged(f"cribsim: {path}: cannot read ({e.strerror or e})") from None
    recs.damaged, recs.torn_tail = recs.damaged + scan.damaged, scan.torn
    recs.good_end = scan.torn_at if scan.torn else scan.end
    recs.lines = no


def _parse(path: Path, no: int, line: bytes) -> MatchRecord | None:
    """The record on a line; None for a line that is not a record; Damaged for a record of the
    wrong shape (nothing is changed)."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
        return None
    if line_id(line) not in (None, rec["id"]):
        return None  # two ids (its start names one, a later "id" another): the first pass read the first
    try:
        return match_from_json(rec)
    except RecordError as e:
        raise Damaged(f"cribsim: {path}: line {no}: a record of the wrong shape ({e}); nothing was changed") from None


def scan_records(path: str | os.PathLike[str], schedule: Schedule) -> Records:
    """:func:`read_records` keeping the records used (in ``records``): for the analyses
    (compare, positions, tune, balance) that look at matches one by one."""
    kept: list[MatchRecord] = []
    recs = read_records(path, schedule, kept.append)
    recs.records = kept
    return recs


def _lines(count: int, first: list[int]) -> str:
    shown = ", ".join(str(n) for n in first) + (", ..." if count > len(first) else "")
    return f"line{'s' if count != 1 else ''} {shown}"


def unreadable_note(path: str | os.PathLike[str], recs: Records) -> str:
    """What was not used of the records file, and why (empty if everything was): one line."""
    parts = []
    if recs.damaged:
        n = len(recs.damaged)
        parts.append(f"{n:,} damaged batch{'es' if n != 1 else ''} of records skipped (at byte "
                     f"{', '.join(f'{b:,}' for b in recs.damaged[:3])}{', ...' if n > 3 else ''}: they do not "
                     "decompress)")
    if recs.unreadable:
        parts.append(f"{recs.unreadable:,} unreadable line{'s' if recs.unreadable != 1 else ''} skipped "
                     f"({_lines(recs.unreadable, recs.unreadable_lines)}: not a record)")
    if recs.foreign:
        parts.append(f"{recs.foreign:,} record{'s' if recs.foreign != 1 else ''} of no match of this run's schedule "
                     f"left out ({_lines(recs.foreign, recs.foreign_lines)}: an unknown id, or sides other than "
                     "its id stands for)")
    if recs.disputed:
        shown = ", ".join(sorted(recs.disputed)[:3]) + (", ..." if len(recs.disputed) > 3 else "")
        parts.append(f"{len(recs.disputed):,} match{'es' if len(recs.disputed) != 1 else ''} recorded twice with "
                     f"different results left out ({shown}; cribsim run --fresh plays them again)")
    return f"{path}: " + "; ".join(parts) if parts else ""


def cut_torn_tail(path: str | os.PathLike[str], recs: Records) -> bool:
    """Cut an interrupted last batch off before appending (True if one was). An unfinished
    member with another member's header inside it is damage that ran on, not an interrupted
    append: cutting it would cut the whole batches after it, and appending after it would add
    to it, so the run is refused (Damaged) and the file left as it is."""
    path = Path(path)
    if not recs.torn_tail or recs.good_end >= path.stat().st_size:
        return False
    if _holds_header(path, recs.good_end + 1):
        raise Damaged(f"cribsim: {path}: damaged at byte {recs.good_end:,} (a batch of records that does not end, "
                      "with batches after it); nothing was changed: copy the file aside, and cut it at that byte "
                      "to go on without the batches after it")
    with open_update(path) as f:
        f.truncate(recs.good_end)
        f.flush()
        os.fsync(f.fileno())
    return True


def _holds_header(path: Path, start: int) -> bool:
    """Whether a gzip member of cribsim's begins anywhere in ``path`` from ``start`` on."""
    with open_read(path) as f:
        f.seek(start)
        tail = b""
        while chunk := f.read(1 << 16):
            if HEADER in tail + chunk:
                return True
            tail = chunk[-(len(HEADER) - 1):]
    return False
