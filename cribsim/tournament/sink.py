"""Where a run's results go as they arrive: ``matches.jsonl.gz`` (a batch of records per gzip
member, appended and flushed to disk), the game records, the merged summary sums, the
sequential test's bookkeeping and the progress shown."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ..errors import RunFailed
from ..gamelog import GAMES_FILE, RecordFileError, append_logs, cut_torn_member, recorded_ids
from ..nofollow import open_append
from .aggregate import Partial
from .batch import Sealed, seal
from .botlogs import BotLogs
from .checkpoint import Tracker
from .folder import Records
from .manifest import Manifest
from .recordfile import decode
from .schedule import Slot
from .summary import SprtUnits, sprt_streams

if TYPE_CHECKING:
    from ..game import Ints

# an SPRT stream that has decided: (variant, table), or (variant, None) for the first-dealer test
Stream = tuple[int, int | None]
PROGRESS_EVERY = 30.0  # seconds between progress lines when standard error is not a terminal


def warn(msg: str) -> None:
    print(f"cribsim: warning: {msg}", file=sys.stderr)


class Progress:
    """A progress bar on a terminal; elsewhere (a log, a redirected run, a batch job) one line
    every ``PROGRESS_EVERY`` seconds: matches done, the rate and the time left."""

    def __init__(self, total: int, done: int) -> None:
        self.total, self.done, self.start_done = total, done, done
        self.t0 = self.last = time.monotonic()
        self.bar: Any = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit="match", dynamic_ncols=True, smoothing=0.1)

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            return
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            print(self.line(now), file=sys.stderr, flush=True)

    def line(self, now: float) -> str:
        rate = (self.done - self.start_done) / max(now - self.t0, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = f"about {_duration(left)} left" if left != float("inf") else "time left unknown"
        return (f"cribsim: {self.done:,} of {self.total:,} matches ({100 * self.done / max(self.total, 1):.0f}%), "
                f"{rate:,.1f} matches/s, {eta}")

    def close(self) -> None:
        if self.bar is not None:
            with contextlib.suppress(Exception):
                self.bar.close()
            self.bar = None


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def verdict(counts: dict[tuple[int, int], list[int]], first_failure: str, max_failed: float,
            variant_names: Sequence[str], tables: Sequence[Sequence[Sequence[int]]],
            entry_names: Sequence[str]) -> str | None:
    """Why a run that played to its end failed (None: it did not), from its matches and failed
    matches by (variant, table): a table whose every match failed, or more failed matches than
    the share ``max_failed``."""
    failed = sum(f for _, f in counts.values())
    played = sum(n for n, _ in counts.values())
    if not failed:
        return None
    for (v, t), (n, f) in sorted(counts.items()):
        if n and f == n:
            table = " vs ".join(entry_names[e] for e in tables[v][t])
            return (f"every match of {table} in {variant_names[v]} failed ({n:,}; {failed:,} of {played:,} in "
                    f"all; the first, {first_failure})")
    if failed > max_failed * played:
        return (f"{failed:,} of {played:,} matches failed ({failed / played:.1%}, more than max_failed "
                f"{max_failed:g}; the first, {first_failure})")
    return None


class Deaths:
    """A pairing (a table of a variant) whose first matches all fail (no result: their worker
    died, or was stopped past its deadline) stops the run once ``limit`` of them have, rather
    than let every match of it kill its worker in turn. A pairing that has a result (on disk
    before, or in this run) is judged at the end only (:func:`verdict`)."""

    def __init__(self, limit: int, manifest: Manifest, earlier: Partial) -> None:
        self.limit, self.manifest = limit, manifest
        self.alive = {key for key, (n, failed) in earlier.tables.items() if n > failed}
        self.failed: dict[tuple[int, int], int] = {}

    def add(self, batch: Partial) -> None:
        """Count a written batch; raises RunFailed when a pairing reaches the limit."""
        for key, (n, failed) in sorted(batch.tables.items()):
            if key in self.alive:
                continue
            if n > failed:
                self.alive.add(key)
                continue
            self.failed[key] = self.failed.get(key, 0) + failed
            if self.failed[key] >= self.limit:
                raise RunFailed(f"cribsim: run failed: {self._said(key)} ({batch.first_failure()}); the run stopped "
                                f"there rather than play the rest (max_worker_deaths: {self.limit})")

    def _said(self, key: tuple[int, int]) -> str:
        m, (v, t) = self.manifest, key
        table = " vs ".join(m.entry_names[e] for e in m.tables[v][t])
        return f"the first {self.failed[key]:,} matches of {table} in {m.variant_names[v]} all failed"


class Sink:
    """Appends each sealed batch to matches.jsonl.gz (and its game records to games/), merges
    its sums, tracks the SPRT, reports progress. What it keeps does not grow with the matches
    played: a bit per match of the schedule (``seen``), the merged sums (``partial``), and for a
    run with ``stop:`` the sequential test's outcomes (``sprt``)."""

    def __init__(self, path: Path, manifest: Manifest, earlier: Records, partial: Partial,
                 sprt: SprtUnits | None, total: int, progress: bool, tracker: Tracker | None = None,
                 max_worker_deaths: int = 3) -> None:
        self.path = path
        self.games: Path | None = None  # the game records (record:), appended before the results
        self.logged: set[str] = set()
        private = manifest.deal_secret is not None  # a run with untrusted bots: its records are its owner's
        if manifest.record is not None:
            self.games, self.logged = open_games(path.parent, private)
        self.f: BinaryIO | None = open_append(path)
        if private:
            os.fchmod(self.f.fileno(), 0o600)
        self.manifest = manifest
        assert earlier.seen is not None
        self.seen = earlier.seen  # the matches on disk (with a result, or disputed)
        self.partial = partial  # the sums of every result on disk, and of every new record
        self.sprt = sprt
        self.played = earlier.results  # matches with a record (a result, or failed) on disk
        self.results = earlier.results  # of which with a result (what a resumed run keeps)
        self.batches: list[int] = []  # the size of each batch written (for the run log)
        self.closed: set[Stream] = set()
        self.progress = Progress(total, earlier.accounted) if progress else None
        self.tracker = tracker  # the resume checkpoint, kept up to date
        self.bot_logs = BotLogs(path.parent, [e.name for e in manifest.lineup])
        self.retired: set[int] = set()
        self.deaths = Deaths(max_worker_deaths, manifest, partial)
        self.busy: tuple[float, float] | None = None  # (the driver's seconds not waiting on workers, of the run's)
        self.update_sprt()

    def add(self, batch: Sealed) -> None:
        f = self.f
        assert f is not None, "a batch added to a closed sink"
        for entry, data in sorted(batch.stderr.items()):
            self.bot_logs.add(entry, data)
        for entry, why in sorted(batch.retired.items()):
            if entry not in self.retired:  # (once, whichever worker retired it first)
                self.retired.add(entry)
                warn(f"bot {self.manifest.lineup[entry].name!r} is {why}; its later matches are forfeits")
        fresh = self._places(batch)
        if (fresh < 0).any() or self.seen.marked(fresh).any():  # (a batch salvaged twice: written once)
            batch = self._without_seen(batch)
            fresh = self._places(batch)
        n = batch.size
        if not n:
            return
        self.batches.append(n)
        if self.games is not None:
            logs = [m for m in batch.logs if m.id not in self.logged]
            append_logs(self.games, logs)
            self.logged.update(m.id for m in logs)
        f.write(batch.data)
        f.flush()
        os.fsync(f.fileno())
        # (a failed match marked too: this run does not play it again; a resumed one does)
        if batch.span is not None:
            self.seen.add_all(fresh)  # (distinct places, none marked: checked above)
        else:
            for i in fresh.tolist():
                if i >= 0:
                    self.seen.add(i)
        self.played += n
        failed = {f.match for f in batch.partial.forfeits if f.failed}
        self.results += n - len(failed)
        self.partial.merge(batch.partial)
        if self.tracker is not None:
            self.tracker.add(batch.data, fresh, {i for m in failed if (i := self.seen.index(m)) is not None},
                             batch.span is not None)
            now = time.monotonic()
            if self.tracker.due(now):
                self.tracker.save(self.partial, now)
        if self.progress is not None:
            self.progress.update(n)
        if self.sprt is not None and batch.sprt is not None:
            self.sprt.merge(batch.sprt)
            self.update_sprt()
        self.deaths.add(batch.partial)  # (last: what the batch holds is written and counted)

    def _places(self, batch: Sealed) -> Ints:
        """Each match's place in the schedule (-1: none of it), in the order of the batch's
        records: from its span, as arrays, or as the worker had it from the spec, or from its id."""
        import numpy as np

        schedule = self.seen.schedule
        if batch.span is not None:
            return schedule.places_at(batch.span.positions())
        size = schedule.size
        return np.array([p if 0 <= p < size else -1 if (j := self.seen.index(i)) is None else j
                         for i, p in zip(batch.ids, batch.places)], dtype=np.int64)

    def _without_seen(self, batch: Sealed) -> Sealed:
        """The batch without the matches already on disk, sealed again (a rare path: the records
        are read back from the batch's own bytes)."""
        kept = [r for r in decode(batch.data) if (i := self.seen.index(r.id)) is not None and not self.seen.has(i)]
        ids = {r.id for r in kept}
        ctx = {"shapes": self.partial.shapes, "sprt": self.sprt is not None}
        sealed = seal(ctx, kept, batch.info)
        sealed.logs = [m for m in batch.logs if m.id in ids]
        return sealed

    def update_sprt(self) -> None:
        self.closed = closed_streams(self.manifest, self.sprt) if self.sprt is not None else set()

    def wanted(self, place: int) -> bool:
        """Whether the match at ``place`` is still to play (its stream not decided by the SPRT)."""
        return not self.closed or wanted(self.manifest, self.closed, self.seen.schedule.at(place))

    def close(self) -> None:
        """Close the file; an error here (a full disk on the last flush) is raised after the
        progress bar is gone."""
        if self.progress is not None:
            self.progress.close()
            self.progress = None
        if self.f is not None:
            f, self.f = self.f, None  # closed: the sink is not used after
            f.close()
            if self.tracker is not None:
                self.tracker.save(self.partial, time.monotonic())


def open_games(out: Path, private: bool = False) -> tuple[Path, set[str]]:
    """The game records file of a run (created if need be), with a torn last member (an
    interrupted append) cut off, and the ids of the matches it already holds. ``private``: the
    folder and the file readable by their owner only (a run with untrusted bots)."""
    path = out / GAMES_FILE
    if path.parent.is_symlink() or path.is_symlink() or (path.parent.exists() and not path.parent.is_dir()):
        raise RunFailed(f"cribsim: run failed: {path.parent} is a link or not a folder; cribsim writes game records "
                        "only into a folder of its own")
    path.parent.mkdir(mode=0o700 if private else 0o777, exist_ok=True)
    with open_append(path, levels=1) as f:
        if private:
            os.fchmod(f.fileno(), 0o600)
            os.chmod(path.parent, 0o700)  # (not a link: checked above)
        if not os.fstat(f.fileno()).st_size:
            return path, set()
    try:
        if cut_torn_member(path):
            warn(f"{path}: cut an unfinished batch of game records (an interrupted write); its matches were not "
                  "saved either, and are played and recorded again")
        return path, recorded_ids(path)
    except RecordFileError as e:
        raise RunFailed(f"cribsim: run failed: {str(e).removeprefix('cribsim: ')}; the records after the damage "
                        "cannot be read: copy the file aside, and remove it to go on without them") from None


def closed_streams(manifest: Manifest, units: SprtUnits) -> set[Stream]:
    """The SPRT streams that have decided: (variant, table) for the elo test, (variant, None)
    for the first-dealer test."""
    streams = sprt_streams(manifest, units)
    decided = {(s["variant"], s["table"]) for s in streams if s["result"]["decision"]}
    stop = manifest.stop
    if stop is not None and stop.test == "first_dealer" and len(decided) == len(streams):
        decided.add((stop.baseline, None))
    return decided


def wanted(manifest: Manifest, closed: set[Stream], slot: Slot) -> bool:
    if not closed or manifest.stop is None:
        return True
    key = (slot.variant, slot.table) if manifest.stop.test == "elo" else (slot.variant, None)
    return key not in closed
