"""Files derived from a results folder (``cribsim compare``, ``positions``, ``dealstats``): where
they go, the locks while they are written, and the list of what was written.

An analysis is written into the run's own folder when you ask for it (``--out`` names that
folder) or when the folder already holds it (its manifest lists the files: a refresh, which
writes the same bytes for the same records). Otherwise it goes to a folder of its own beside
the run, ``<run>-<command>/`` (``results/quickstart-compare/``), so that a committed or shared
results folder is never changed behind its owner's back. A folder of its own holds a small
``.cribsim-analysis.json`` saying what wrote its files; cribsim writes into no other folder that
holds files."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CribsimError
from ..lock import LOCK_NAME, FolderLock
from ..nofollow import refuse_links
from ..records import MatchRecord
from . import folder as fld
from .atomic import atomic_write, write_json
from .manifest import MANIFEST, Manifest
from .summary import SprtUnits, sprt_streams, used_by

MARK = ".cribsim-analysis.json"


def read_manifest_of(out: Path) -> Manifest:
    """The manifest of a results folder whose records can be read, refusing one that cannot:
    no folder, a link inside, no or a damaged manifest, records from an older cribsim
    (``cribsim upgrade`` converts them), no records (a folder of committed summaries, whose
    records were not kept)."""
    if not out.exists():
        raise CribsimError(f"cribsim: {out}: no such folder")
    if not out.is_dir():
        raise CribsimError(f"cribsim: {out}: not a folder")
    refuse_links(out)
    manifest = fld.read_manifest(out)
    if manifest is None:
        raise CribsimError(f"cribsim: {out}: no manifest.json (not a results folder)")
    fld.refuse_legacy(out)
    if not (out / fld.RECORDS).exists():
        raise CribsimError(f"cribsim: {out}: no {fld.RECORDS}, so nothing to rebuild the summary from (its "
                           "summary files are left as they are; run the experiment again to rebuild them)")
    return manifest


def read_folder(out: Path) -> tuple[Manifest, fld.Records]:
    """(manifest, records) of a results folder (see :func:`read_manifest_of`), with the records
    used kept in a list (for the analyses that look at matches one by one). Lines that cannot
    be read are counted in the records, never silently dropped."""
    manifest = read_manifest_of(out)
    return manifest, fld.scan_records(out / fld.RECORDS, fld.schedule_of(manifest))


def each_used(path: Path, manifest: Manifest,
              each: Callable[[MatchRecord], None]) -> tuple[fld.Records, list[dict[str, Any]]]:
    """Hand ``each`` every record of ``path`` that the run's tables use, read as a stream (memory
    does not grow with the records); returns how the file read and the sequential test's
    streams. With a test, a first reading finds where each stream decided, a second hands over
    the groups up to there."""
    schedule = fld.schedule_of(manifest)
    if manifest.stop is None:
        return fld.read_records(path, schedule, each), []
    sprt = SprtUnits()
    fld.read_records(path, schedule, sprt.add)
    streams = sprt_streams(manifest, sprt)
    used = used_by(manifest, streams)

    def if_used(r: MatchRecord) -> None:
        if used(r.variant, r.table, r.group):
            each(r)
    return fld.read_records(path, schedule, if_used), streams


def read_results(out_dir: str | os.PathLike[str]) -> tuple[Manifest, list[MatchRecord]]:
    """(manifest, records) of a results folder (see :func:`read_folder`)."""
    manifest, recs = read_folder(Path(out_dir))
    return manifest, recs.records


def lock_folder(out: Path, command: str) -> FolderLock:
    """The folder's lock, after checking it can be read (a folder that cannot be is refused
    before anything, not even a lock file, is written)."""
    read_manifest_of(out)
    return FolderLock(out, command).acquire()


def list_files(out: Path, manifest: Manifest, written: Sequence[str], removed: Sequence[str] = ()) -> None:
    """Add the files written to the manifest's list (what --fresh may remove later), and take
    out those removed."""
    files = set(manifest.files or fld.owned_files(manifest) - set(fld.UNLISTED))
    if set(written) <= files and not files & set(removed):
        return
    manifest.files = sorted(files - set(removed) | set(written))
    with contextlib.suppress(OSError):  # the files are still recognised by name (folder.owned_files)
        manifest.write(out)


def csv_text(head: Sequence[str], body: Sequence[Sequence[object]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    w.writerows(body)
    return buf.getvalue()


@dataclass
class Derived:
    """An analysis being written: the run it reads and the folder it writes (``dest``)."""

    run: Path
    manifest: Manifest
    records: fld.Records | None  # (None: the analysis reads them as a stream itself)
    dest: Path
    written: list[str] = field(default_factory=list)

    def write_text(self, name: str, text: str) -> None:
        atomic_write(self.dest / name, text)
        self.written.append(name)

    def write_with(self, name: str, writer: Callable[[Path], object]) -> None:
        """A file written by ``writer(path)`` (a plot, a CSV)."""
        writer(self.dest / name)
        self.written.append(name)

    @property
    def in_place(self) -> bool:
        return self.dest == self.run


def destination(run: Path, manifest: Manifest, command: str, files: Sequence[str], out: str | None,
                older: Sequence[str] = ()) -> Path:
    """Where an analysis goes: ``out``; else the run folder if it already holds these files (or
    holds them by the ``older`` names an earlier cribsim gave them); else ``<run>-<command>``
    beside it."""
    if out is not None:
        return Path(out)
    if set(files) <= set(manifest.files) or (older and set(older) <= set(manifest.files)):
        return run
    whole = run.resolve()  # (a run given as ".": named by its real folder)
    return whole.parent / f"{whole.name}-{command}"


@contextlib.contextmanager
def derived(run_dir: str | os.PathLike[str], command: str, files: Sequence[str],
            out: str | None = None, listed: bool = True, older: Sequence[str] = ()) -> Iterator[Derived]:
    """Read the run (locked, so no run writes meanwhile) and open the destination (see the
    module doc); yields the :class:`Derived` to write with, and lists what was written. Its
    records are read into a list when ``listed``; otherwise the analysis reads them as a stream
    (:func:`each_used`), or not at all. ``older``: the names an earlier cribsim gave these
    files, removed from the run's folder once the files are written there again."""
    run = Path(run_dir)
    lock = lock_folder(run, command)
    dest_lock = None
    try:
        manifest, recs = read_folder(run) if listed else (read_manifest_of(run), None)
        dest = destination(run, manifest, command, files, out, older)
        same = dest.resolve() == run.resolve()
        if not same and run.resolve() in dest.resolve().parents:
            raise CribsimError(f"cribsim {command}: --out {dest}: a folder inside the run's; give the run's own "
                               "folder or one outside it")
        d = Derived(run, manifest, recs, run if same else dest)
        if not same:
            dest_lock = _own_folder(dest, run, command)
        try:
            yield d
        except OSError as e:
            raise CribsimError(f"cribsim: cannot write in {d.dest} ({e.strerror or e})") from None
        finally:
            if same:
                list_files(run, manifest, d.written, _replaced(run, manifest, older, d.written))
            elif d.written:
                _mark(d.dest, run, command, d.written)
    finally:
        if dest_lock is not None:
            dest_lock.release()
        lock.release()


def _replaced(run: Path, manifest: Manifest, older: Sequence[str], written: Sequence[str]) -> list[str]:
    """Remove the files listed under an older name once their new ones are written."""
    if not written:
        return []
    gone = [n for n in older if n in manifest.files and n not in written]
    for n in gone:
        with contextlib.suppress(FileNotFoundError):
            (run / n).unlink()
    return gone


def _own_folder(dest: Path, run: Path, command: str) -> FolderLock:
    """A folder of the analysis's own: created, or one that holds only an analysis's files."""
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise CribsimError(f"cribsim {command}: --out {dest}: not a folder of cribsim's")
    if (dest / MANIFEST).exists():
        raise CribsimError(f"cribsim {command}: {dest} is another run's results folder; give --out {run} to write "
                           "into the run's own folder, or another folder")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CribsimError(f"cribsim: cannot create {dest} ({e.strerror or e})") from None
    refuse_links(dest)
    ours = set(_marked(dest)) | {MARK, LOCK_NAME}
    ours |= {f"{name}.tmp" for name in ours} | {Path(MARK).with_suffix(".tmp").name}  # interrupted writes' scratch
    foreign = sorted(f.name for f in dest.iterdir() if f.name not in ours)
    if foreign:
        raise CribsimError(f"cribsim {command}: {dest} holds files that are not cribsim's ({', '.join(foreign[:3])}); "
                           "give another --out")
    return FolderLock(dest, command).acquire()


def _marked(dest: Path) -> list[str]:
    try:
        data = json.loads((dest / MARK).read_text())
        return [f for f in data.get("files", []) if isinstance(f, str) and "/" not in f]
    except (OSError, ValueError, AttributeError):
        return []


def _mark(dest: Path, run: Path, command: str, written: Sequence[str]) -> None:
    with contextlib.suppress(OSError):
        write_json(dest / MARK, {"format": "cribsim-analysis", "of": run.name, "command": command,
                                 "files": sorted(set(_marked(dest)) | set(written))})
