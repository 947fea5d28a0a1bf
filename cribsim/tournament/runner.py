"""Run an experiment: check and lock its results folder, play what is missing (serially or on
Ray, see :mod:`.executors`), append each match's record as it arrives (:mod:`.sink`), and record
how the run ended.

One error boundary: the results folder is checked (cribsim's own, or empty) and locked before
anything is written; whatever goes wrong after the run started (an exception, a full disk, Ray
going away, Ctrl-C) ends with every finished match kept, the manifest saying how it ended and
why, and one ``cribsim:`` line (exit 1 for a failed run, 130 for an interrupted one)."""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CribsimError, Interrupted, RunFailed, describe
from ..gamelog import GAMES_FILE
from ..games import game_named
from ..isolation.bots import shown_of
from ..lock import FolderLock, describe_holder, holder
from ..nofollow import refuse_links
from ..owncode import OwnCodeError
from ..records import MatchRecord
from ..strategy import notes as strategy_notes
from ..strategy import unmodelled
from . import checkpoint, resumekey
from . import folder as fld
from .aggregate import SUM_ERRORS, Partial, VariantShape
from .batch import engine_line, make_context, play_places, release
from .executors import IN_FLIGHT_PER_WORKER, StopFlag, run_ray, run_serial
from .manifest import (
    MANIFEST,
    RUN_LOG,
    LineupEntry,
    Manifest,
    Session,
    Stop,
    SweepRecord,
    VariantInfo,
    end_running_session,
    legacy_session,
    log_session,
    now,
    read_sessions,
)
from .programs import program_of
from .raycluster import RAY_LOG, init_ray, joined_cluster, ray_messages_to_log, ray_or_bug, shutdown
from .report import Sums, write_report
from .schedule import Pending, Seen, Span, groups_for
from .secret import SECRET_FILE, commitment, run_secret, secret_seed
from .sink import Sink, closed_streams, verdict, wanted, warn
from .summary import SprtUnits, sprt_streams, used_by

if TYPE_CHECKING:
    from .config import Entry, Experiment

# what a run plays with: (context, pending matches, sink) -> the nodes that played them
Play = Callable[[dict[str, Any], Pending, Sink], set[str]]
ENDED_WELL = ("complete", "stopped by the SPRT")


def manifest_for(exp: Experiment) -> Manifest:
    """The manifest of a run of ``exp`` before it plays (status "running")."""
    return Manifest(
        name=exp.name, config_hash=exp.config_hash(), seed=exp.seed, variants=[r.to_dict() for r in exp.variants],
        lineup=[_lineup_entry(e, exp.plugin_dir) for e in exp.lineup],
        tables=[[list(t) for t in ts] for ts in exp.tables], matches=exp.matches, paired=exp.paired,
        per_group=[groups_for(exp, v)[1] for v in range(len(exp.variants))], time_limit=exp.time_limit,
        variant_info=[VariantInfo.from_json(game_named(r.game).summary_info(r)) for r in exp.variants],
        stop=None if exp.sprt is None else Stop(exp.sprt.test, exp.sprt.mu0, exp.sprt.mu1, exp.sprt.alpha,
                                                exp.sprt.beta, exp.sprt.baseline, dict(exp.sprt.settings)),
        # every file cribsim writes here: --fresh removes only these
        files=list(fld.BASE_FILES) + ([GAMES_FILE] if exp.record.mode != "none" else []),
        record=exp.record.to_json() if exp.record.mode != "none" else None,
        deals=exp.deals_spec or None,
        start=[{"scores": list(s.scores), "dealer": s.dealer} for s in exp.starts] if exp.starts else None,
        sweeps=[SweepRecord(list(s.knobs), [p.to_json() for p in points]) for s, points in exp.sweeps],
        notes=_strategy_notes(exp), unmodelled=unmodelled_by_variant(exp))


def unmodelled_by_variant(exp: Experiment) -> dict[str, dict[str, list[str]]]:
    """{variant: {entry: lines}} where a variant changes what an entry's strategy values without
    its knowing (cribsim.strategy.unmodelled); the empty left out."""
    out: dict[str, dict[str, list[str]]] = {}
    for r in exp.variants:
        for e in exp.lineup:
            said = unmodelled(e.strategy, r, exp.game)
            if said:
                out.setdefault(r.name, {})[e.name] = said
    return out


def warn_unmodelled(manifest: Manifest) -> None:
    """The run's first lines: each strategy that plays a rule set changing what it values
    without its knowing, once per strategy and what it misses."""
    seen: dict[str, list[str]] = {}
    for variant, entries in manifest.unmodelled.items():
        for line in dict.fromkeys(x for lines in entries.values() for x in lines):
            seen.setdefault(line, []).append(variant)
    for line, variants in seen.items():
        warn(f"{line} (in {', '.join(variants)}): its table there describes a player who does not know that rule")


def _lineup_entry(e: Entry, base: str) -> LineupEntry:
    """A lineup entry as the manifest records it: a perfect counter's model left out, a
    program's command and files' hash in (``base``: the config's folder)."""
    counting = e.miss_rate or e.vigilance != 1
    return LineupEntry(e.name, e.strategy, dict(e.params), e.miss_rate if counting else None,
                       e.vigilance if counting else None, program_of(e, base))


def _strategy_notes(exp: Experiment) -> dict[str, dict[str, list[str]]]:
    """{variant: {entry: what the built-in says of how it plays that variant}}, the empty left out."""
    out: dict[str, dict[str, list[str]]] = {}
    for r in exp.variants:
        for e in exp.lineup:
            said = strategy_notes(e.strategy, e.param_dict(), r, exp.game)
            if said:
                out.setdefault(r.name, {})[e.name] = said
    return out


# ---- the folder ----------------------------------------------------------------------------------

def _out_unseen(exp: Experiment, out: Path) -> None:
    """Refuse a results folder that a sandboxed bot's own files would show it."""
    for e in exp.lineup:
        if not e.isolated(exp.game):
            continue
        bot = e.bot(exp.plugin_dir, exp.limits, exp.code_modules())
        seen = shown_of(bot.own_files(), [str(out.resolve())]) if bot.sandboxed else None
        if seen is not None:
            raise CribsimError(f"cribsim: --out {out}: the bot {e.name!r} would see it (it is shown {seen[0]}): a bot "
                               "is shown only its own files; put the results elsewhere, or give the bot a folder of "
                               "its own (cwd) or list its files (files)")


def check_out(exp: Experiment, out: Path, resume: bool, fresh: bool, locked: bool = False) -> Manifest | None:
    """Everything about the results folder that can be checked without writing: a folder (or
    nothing yet), cribsim's own or empty, not in use (unless ``locked``: we hold it), holding
    this config's run unless ``fresh``. Returns the earlier manifest (None if none)."""
    if fresh and resume:
        raise CribsimError("cribsim run: --fresh discards an earlier run and --resume continues it; give one of them")
    if out.exists() and not out.is_dir():
        raise CribsimError(f"cribsim: --out {out}: not a folder (a file is there)")
    _out_unseen(exp, out)
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise CribsimError(f"cribsim: --out {out}: {parent} is a file, not a folder")
    if not out.exists():
        if resume:
            raise CribsimError(f"cribsim: --resume: {out} does not exist; nothing to resume")
        return None
    if not locked and holder(out) is not None:
        raise CribsimError(f"cribsim: {out} is in use: {describe_holder(out / '.cribsim.lock')}; wait for it to "
                           "end, or use another --out")
    try:
        old = fld.read_manifest(out)
    except fld.Damaged as e:
        raise CribsimError(f"{e}; cribsim cannot tell its files there from others: move the folder aside or use "
                           "another --out") from None
    if old is None:
        _check_unowned(out, resume)
        refuse_links(out)  # (its scratch files or lock)
        return None
    refuse_links(out)
    if not fresh:
        fld.refuse_legacy(out)
    if old.config_hash != exp.config_hash() and not fresh:
        raise CribsimError(f"cribsim: {out} already holds a run of a different config (hash "
                           f"{old.config_hash}, now {exp.config_hash()}); use another --out or --fresh")
    if not fresh:
        _refuse_changed_programs(exp, out, old)
    return old


def _refuse_changed_programs(exp: Experiment, out: Path, old: Manifest) -> None:
    """A folder whose run played a program bot whose files have changed since (the hash of the
    files it is shown, :func:`programs.program_of`): resumed, its matches would mix two programs
    under one name; complete, it would report the old program's tables as this one's."""
    was = {e.name: e.program.sha256 for e in old.lineup if e.program is not None}
    for e in exp.lineup:
        now = program_of(e, exp.plugin_dir) if e.name in was else None
        if now is not None and now.sha256 != was[e.name]:
            raise CribsimError(f"cribsim: {out} holds a run of the program bot {e.name!r} as its files were then "
                               f"(hash {was[e.name][:12]}, now {now.sha256[:12]}): its matches and the new program's "
                               "are not mixed; use another --out or --fresh")


def _check_unowned(out: Path, resume: bool) -> None:
    """A folder without a manifest: empty (or cribsim's scratch files) only."""
    others = fld.foreign_files(out)
    for name in (fld.RECORDS, fld.LEGACY):
        if (out / name).exists():
            raise CribsimError(f"cribsim: {out}: {name} has no manifest.json beside it; cribsim cannot tell "
                               "what it holds: move it aside or use another --out")
    if others:
        raise CribsimError(f"cribsim: {out} holds files that are not cribsim's ({_few(others)}) and no cribsim "
                           "manifest: not a results folder; use a new or empty --out")
    if resume:
        raise CribsimError(f"cribsim: --resume: {out} holds no run to resume")


def _few(names: list[str], n: int = 3) -> str:
    shown = ", ".join(names[:n])
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")


@dataclass
class Earlier:
    """What an earlier run left in the folder: how its records read (:class:`folder.Records`,
    with the bit per match of those a resumed run does not play again), the sums of its
    results, and for a run with ``stop:`` the sequential test's view of them. Its failed
    matches are played again, so neither the sums nor the test count them. ``digest``: the
    BLAKE2b of the file's bytes read (a run without ``stop:``, read to be resumed), which the
    run's checkpoints go on from (:mod:`.checkpoint`), signed with ``key``."""

    records: fld.Records
    partial: Partial
    sprt: SprtUnits | None
    digest: Any = None
    key: bytes | None = None  # the folder's resume key, the checkpoints' (None: the run makes it, or keeps none)


def load_done(path: Path, manifest: Manifest, cut: bool = True) -> Earlier:
    """The results already in matches.jsonl.gz, checked against the run's schedule (see
    :func:`folder.read_records`), read as a stream, from the folder's resume checkpoint on when
    it is signed with the folder's key and the file starts with the bytes it read
    (:mod:`.checkpoint`; one that is there but not used is said, in a line). An unfinished last
    batch (an interrupted write) is cut off (``cut``), so its matches are replayed; every other
    line that is not used stays in the file, counted and reported: the matches of damaged batches
    and unreadable lines are played again, records of no match of the schedule are left out, and
    a match recorded twice with different results is left out and not played again (another
    record would not settle it). Reading to resume (``cut``), it saves a checkpoint after."""
    keep = cut and manifest.stop is None
    start = checkpoint.start_from(path, manifest) if keep else checkpoint.Start()
    if start.note:
        warn(start.note)
    ck, h = start.ck, start.h
    try:
        try:
            earlier = _read_done(path, manifest, ck)
        except (fld.NotContinued, fld.Damaged):
            if ck is None:
                raise
            ck, h = None, None  # what follows the checkpoint needs a whole reading to settle
            earlier = _read_done(path, manifest, None)
    except SUM_ERRORS as e:
        raise fld.Damaged(f"cribsim: {path}: cannot summarise its records ({describe(e, 200)}: damaged records or "
                          "manifest); nothing was changed") from None
    recs = earlier.records
    if cut and recs.torn_tail:
        warn(f"{path}: cut an unfinished last batch (an interrupted write); its matches are played again")
    note = fld.unreadable_note(path, recs)
    if cut and note:
        warn(note + "; those lines stay in the file")
    if cut and path.exists():
        fld.cut_torn_tail(path, recs)
        recs.torn_tail = False  # (cut off: the report has nothing to say of it)
    if keep and start.key is not None:
        _keep_checkpoint(path, manifest, earlier, start.key, h, 0 if ck is None else ck.records.good_end)
    return earlier


def _keep_checkpoint(path: Path, manifest: Manifest, earlier: Earlier, key: bytes, h: Any, start: int) -> None:
    """After a resume's reading: the digest of the bytes read (``h`` fed up to ``start``, fed on
    to the end of the last whole batch), which the run's checkpoints go on from, and a
    checkpoint of the reading, signed with ``key``."""
    recs = earlier.records
    earlier.digest = checkpoint.digest_of(path, recs.good_end, h, start) if path.exists() else checkpoint.hasher()
    if path.exists() and path.stat().st_size != recs.good_end:
        earlier.digest = None  # (damaged bytes after the last whole batch stay: no checkpoint covers them)
    if earlier.digest is not None:
        earlier.key = key
        with contextlib.suppress(OSError):
            checkpoint.save(path.parent, manifest, checkpoint.Checkpoint(recs, earlier.partial,
                                                                        earlier.digest.hexdigest()), key)


def _read_done(path: Path, manifest: Manifest, ck: checkpoint.Checkpoint | None) -> Earlier:
    """Read the records (from the checkpoint on, if given), summing the results."""
    partial = ck.partial if ck is not None else Partial(VariantShape.of(manifest))
    sprt = SprtUnits() if manifest.stop is not None else None

    def fold(rec: MatchRecord) -> None:
        if not rec.failed:
            partial.add(rec)
            if sprt is not None:
                sprt.add(rec)

    recs = fld.read_records(path, fld.schedule_of(manifest), fold, ck.records if ck is not None else None)
    return Earlier(recs, partial, sprt)


def _looks_finished(path: Path, manifest: Manifest) -> bool:
    """A quick look, before the lock and before Ray starts: does the file hold a result for every
    match (read from the start of each line: the records are read in full, once, under the
    lock; a failed match is played again on Ray, where it failed)? With a sequential test,
    whether every stream has decided (its records read in full: such runs are small)."""
    if manifest.stop is not None:
        peek = load_done(path, manifest, cut=False)
        return peek.records.accounted > 0 and not pending_of(manifest, peek)
    schedule = fld.schedule_of(manifest)
    return schedule.size > 0 and fld.count_results(path, schedule) == schedule.size


def count_on_disk(path: Path, manifest: Manifest) -> int:
    """Distinct matches of the schedule whose records are whole in matches.jsonl.gz, with a
    result: what a resumed run keeps."""
    try:
        return fld.read_records(path, fld.schedule_of(manifest)).results
    except CribsimError:
        return 0


def pending_of(manifest: Manifest, earlier: Earlier) -> Pending:
    """The matches still to play, made as they are taken: not on disk (nor disputed there), and
    in no stream the SPRT has decided."""
    seen = earlier.records.seen
    assert seen is not None
    keep = None
    if earlier.sprt is not None:
        closed = closed_streams(manifest, earlier.sprt)
        keep = (lambda slot: wanted(manifest, closed, slot)) if closed else None
    return Pending(fld.schedule_of(manifest), seen, keep)


# ---- a run ---------------------------------------------------------------------------------------

@dataclass
class Run:
    """One invocation: what to play, where, and how it is going."""

    exp: Experiment
    out: Path
    size: int  # matches in the schedule
    manifest: Manifest
    resume: bool
    fresh: bool
    report: bool
    quiet: bool
    progress: bool
    stop: StopFlag
    session: Session
    log: str | None = None  # Ray's own messages
    nodes: set[str] = field(default_factory=set)
    secret_from: Path | None = None  # --deal-secret FOLDER
    committed: str | None = None  # the earlier run's deal secret commitment
    sums: Sums | None = None  # the merged sums of every result, when the run ended well
    looked_finished: bool = False  # the quick look found a line for every match: no Ray was started
    fast: bool = True  # a game's faster lane where it plays a table (--no-fast: the Python engine only)
    own_code: bool = False  # it failed in code of one's own (a variant, a game, a strategy): a resume fails too


def run_experiment(exp: Experiment, out_dir: str | os.PathLike[str] | None = None, workers: int | None = None,
                   address: str | None = None, serial: bool = False, resume: bool = False, fresh: bool = False,
                   progress: bool = True, batch_seconds: float = 1.5, report: bool = True,
                   quiet: bool = False, deal_secret: str | os.PathLike[str] | None = None,
                   fast: bool = True) -> Manifest:
    """Play every missing match of ``exp`` into ``out_dir`` and write the report. A run with
    untrusted bots deals with a secret (:mod:`.secret`): the folder's, else ``deal_secret``'s
    (a folder), else a new one.

    Nothing is written until the folder checks pass and Ray (if used) is up; then the folder is
    locked for the run. ``fast`` plays a table in its game's faster lane where it has one (the
    same records). Raises CribsimError (2: bad input, refused folder, Ray not available),
    RunFailed (1) or Interrupted (130), each one line, with every finished match kept."""
    out = Path(out_dir) if out_dir else Path("results") / exp.name
    old = check_out(exp, out, resume, fresh)
    manifest = manifest_for(exp)
    finished = False
    if old is not None and not fresh:  # a quick look: is anything left to play? (read again under the lock)
        finished = _looks_finished(out / fld.RECORDS, manifest)
    chosen = None
    if not (serial or finished) and workers is None and not address and not os.environ.get("RAY_ADDRESS") \
            and exp.ray == "auto" and not _ray_running():
        chosen = serial_wins(exp, manifest, old.played if old is not None and not fresh else 0, fast)
        if chosen is not None and not quiet:
            print(f"cribsim: {chosen}", file=sys.stderr)
    with StopFlag() as stop:
        session = Session(config=exp.source, mode="serial" if serial or finished or chosen else "ray", chosen=chosen)
        run = Run(exp, out, fld.schedule_of(manifest).size, manifest, resume, fresh, report, quiet, progress, stop,
                  session,
                  secret_from=Path(deal_secret) if deal_secret is not None else None, fast=fast)
        if serial or finished or chosen:
            session.workers = 1
            run.looked_finished = finished and not serial
            return _run_locked(run, lambda ctx, pending, sink: run_serial(ctx, pending, sink, batch_seconds, stop))
        return _run_on_ray(run, workers, address, batch_seconds)


# What an embedded Ray costs a run beside its matches, on this project's 2-core VM
# (docs/performance.md, "Ray's start-up, and when the runner plays serially"): importing it,
# starting it, its workers' first tasks (each imports cribsim) and its teardown, 4.9 s quiet to
# 9.5 s with other jobs on the cores; CRIBSIM_RAY_START (seconds) declares another machine's.
# RAY_SHARE: the share of a core's pace a Ray worker plays at, its batches' transfer and Ray's
# own threads counted.
RAY_START = 8.0
RAY_SHARE = 0.85
PROBE_SECONDS = 0.1


def _ray_running() -> bool:
    """Whether this process is already connected to a Ray (without importing it)."""
    ray = sys.modules.get("ray")
    return ray is not None and bool(ray.is_initialized())


def ray_start_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("CRIBSIM_RAY_START", RAY_START)))
    except ValueError:
        return RAY_START


def serial_wins(exp: Experiment, manifest: Manifest, done: int, fast: bool) -> str | None:
    """Where no --workers, --address or RAY_ADDRESS was given: the line saying why the run plays
    serially, when its matches would take one core less time than an embedded Ray's start-up
    and teardown (:data:`RAY_START`) and the same matches on every core; None: Ray it is.
    A match's time is measured by playing the first matches of the schedule here for about
    PROBE_SECONDS (a match at least; their results are not kept: the run plays them again).
    ``done``: the matches an earlier run in the folder recorded (its manifest's count: the
    records are read under the lock). A run with bots of other people's (sandboxed, their deals
    secret) is not probed: Ray."""
    cores = os.cpu_count() or 1
    if exp.untrusted() or any(e.isolated(exp.game) for e in exp.lineup):
        return None
    left = fld.schedule_of(manifest).size - max(0, done)
    if left <= 0:
        return None
    start = ray_start_seconds()
    try:
        per = _probe(exp, manifest, fast, left)
    except Exception:  # (its errors are the run's to say, where it plays them)
        release()
        return None
    serial = left * per
    ray = start + left * per / (cores * RAY_SHARE)
    if serial > ray:
        release()  # (the workers make their own)
        return None
    return (f"playing serially, without Ray: {left:,} matches take about {_secs(serial)} on one core here, where "
            f"Ray's start-up and teardown (about {start:g} s) would make it about {_secs(ray)} on {cores} "
            f"core{'s' if cores != 1 else ''}; --workers N (or ray: always in the config) uses Ray anyway")


def _secs(s: float) -> str:
    return f"{s:.1f} s" if s < 60 else f"{s / 60:.1f} min"


def _probe(exp: Experiment, manifest: Manifest, fast: bool, left: int) -> float:
    """Seconds a match of the run, played and sealed here: the schedule's first matches, in
    batches doubling from one, for about PROBE_SECONDS after one played to warm up (a match at
    least)."""
    ctx = worker_context(exp, manifest)
    ctx["fast"] = fast
    size = ctx["schedule"].size
    t0 = time.perf_counter()
    play_places(ctx, Span(((0, 1),)))  # tables built, strategies made
    warm = time.perf_counter() - t0
    at, n, spent, played = 1, 1, 0.0, 0
    while spent < PROBE_SECONDS and warm < PROBE_SECONDS and at < size and played < left:
        c = min(n, size - at)
        t0 = time.perf_counter()
        play_places(ctx, Span(((at, c),)))
        spent += time.perf_counter() - t0
        at, played, n = at + c, played + c, 2 * n
    return spent / played if played else warm


def _run_on_ray(run: Run, workers: int | None, address: str | None, batch_seconds: float) -> Manifest:
    with ray_messages_to_log() as log:
        keep_log = False
        embedded = False
        try:
            t0 = time.perf_counter()
            got, embedded = init_ray(workers, address)
            run.session.ray_start_s = round(time.perf_counter() - t0, 2)
            if not embedded:  # say where it runs: RAY_ADDRESS=auto joins whichever Ray started last here
                cluster = joined_cluster(address)
                run.session.cluster = cluster.to_json()
                if not run.quiet:
                    print(cluster.line(), file=sys.stderr)
            run.stop.rearm()
            if run.stop.requested:
                raise Interrupted("cribsim: interrupted while Ray started; nothing was written")
            run.log, run.session.workers = log, got
            return _run_locked(run, lambda ctx, pending, sink: run_ray(ctx, pending, sink, got, batch_seconds,
                                                                       stop=run.stop))
        except CribsimError as e:
            if isinstance(e, RunFailed) or "cannot start" in str(e) or "cannot join" in str(e) \
                    or "does not answer" in str(e):
                msg = _with_log(str(e), log)
                keep_log = msg != str(e)
                raise type(e)(msg) from None
            raise
        finally:
            if embedded:
                t0 = time.perf_counter()
                shutdown()
                if not run.quiet:
                    print(f"cribsim: Ray stopped in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            if log and not keep_log and not os.environ.get(RAY_LOG):  # (else the supervisor's)
                with contextlib.suppress(OSError):
                    os.unlink(log)


def _with_log(msg: str, log: str | None) -> str:
    """``msg`` pointing at the log of Ray's own messages, if Ray wrote any (once: a failed run's
    message already points there when it leaves :func:`_finish`)."""
    try:
        if not log or os.path.getsize(log) == 0:
            return msg
    except OSError:
        return msg
    said = f" (Ray's own messages: {log})"
    return msg if said in msg else msg + said


def _run_locked(run: Run, play: Play) -> Manifest:
    """The part that writes: lock the folder, settle the earlier run, play, record how it ended."""
    created = not run.out.exists()
    try:
        run.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CribsimError(f"cribsim: cannot create {run.out} ({e.strerror or e})") from None
    lock = None
    try:
        lock = FolderLock(run.out, "run").acquire()
        earlier = _settle_earlier(run)
        pending = pending_of(run.manifest, earlier)
        accounted = earlier.records.accounted
        if not pending and accounted:  # finished before: nothing to play (and no Ray was started for it)
            return _finish(run, earlier.records.results, "stopped by the SPRT" if run.manifest.stop is not None and
                           accounted < run.size else "complete", None, earlier.sprt)
        if run.looked_finished:  # lines that looked like results but are not the run's: said, played here
            n = len(pending)
            warn(f"{run.out / fld.RECORDS}: every match has a line, but {n:,} {'is' if n == 1 else 'are'} not a "
                 "result of this run (see the lines left out); played here, serially: run again to use Ray")
        return _play(run, play, earlier, pending)
    finally:
        if lock is not None:
            lock.release()
        if created:  # refused before writing anything: leave no empty folder behind
            with contextlib.suppress(OSError):
                run.out.rmdir()


def _settle_earlier(run: Run) -> Earlier:
    """The earlier run in the folder, now that it is ours: removed (``--fresh``, only the files its
    manifest lists), else its records are the matches done and its files stay listed."""
    old = check_out(run.exp, run.out, run.resume, run.fresh, locked=True)
    try:
        if run.fresh and old is not None:
            fld.remove_owned(run.out, old)
            old = None
        done = load_done(run.out / fld.RECORDS, run.manifest) if old is not None else \
            Earlier(fld.Records(Seen(fld.schedule_of(run.manifest))), Partial(VariantShape.of(run.manifest)),
                    SprtUnits() if run.manifest.stop is not None else None,
                    checkpoint.hasher() if run.manifest.stop is None else None)
    except OSError as e:
        raise RunFailed(f"cribsim: run failed: cannot prepare {run.out} ({e.strerror or e}); nothing was removed "
                        "but what --fresh names") from None
    if old is not None:
        run.committed = old.deal_secret
        gone = set(fld.UNLISTED) | ({fld.LEGACY} if not (run.out / fld.LEGACY).exists() else set())
        run.manifest.files = sorted(set(run.manifest.files) | fld.owned_files(old) - gone)
        legacy = legacy_session(old)
        if legacy is not None and read_sessions(run.out) == []:  # an older folder: its own record first
            log_session(run.out, legacy)
    if read_sessions(run.out) is None:  # a run.json that is not cribsim's: not ours to list (or remove)
        run.manifest.files = [f for f in run.manifest.files if f != RUN_LOG]
    return done


def worker_context(exp: Experiment, manifest: Manifest) -> dict[str, Any]:
    """What the workers play a run's batches by (:func:`cribsim.tournament.batch.play_places`)."""
    ctx = make_context(exp)
    ctx["shapes"] = VariantShape.of(manifest)  # what a worker sums each batch by
    ctx["sprt"] = manifest.stop is not None
    ctx["schedule"] = fld.schedule_of(manifest)  # a worker makes its batch's specs from their places
    ctx["schedule_seed"] = exp.seed  # the deal keys' (ctx["seed"] may take the deal secret)
    return ctx


def _context(run: Run) -> dict[str, Any]:
    """What the workers play by: with untrusted bots (or a secret given), the run's seed takes
    the deal secret."""
    ctx = worker_context(run.exp, run.manifest)
    ctx["fast"] = run.fast
    ctx["hidden"] = (str(run.out.resolve()),)  # never shown in a sandbox, wherever a folder shown holds it
    if run.exp.untrusted() or run.secret_from is not None or run.committed is not None:
        secret = run_secret(run.out, run.secret_from, run.committed)
        ctx["seed"] = secret_seed(run.exp.seed, secret)
        ctx["commitment"] = run.manifest.deal_secret = commitment(secret)
        run.manifest.files = sorted(set(run.manifest.files) | {SECRET_FILE})
    return ctx


def _play(run: Run, play: Play, earlier: Earlier, pending: Pending) -> Manifest:
    jsonl = run.out / fld.RECORDS
    ctx = _context(run)
    run.session.engine = engine_line(ctx, run.exp.tables, run.session.engine)
    if not run.quiet:
        where = "" if run.session.ray_start_s is None else \
            f"; Ray: {run.session.workers} workers, up in {run.session.ray_start_s:.1f} s"
        print(f"cribsim: {run.exp.name}: {run.size:,} matches; engine: {run.session.engine}{where}", file=sys.stderr)
    warn_unmodelled(run.manifest)
    try:
        run.manifest.write(run.out)
        log_session(run.out, run.session)
    except OSError as e:
        raise RunFailed(f"cribsim: run failed: cannot write {run.out / MANIFEST} ({e.strerror or e}); "
                        f"{earlier.records.results:,} matches on disk") from None
    status, error = "complete", None
    sink, verdict = None, None
    stopped = False  # stopped as asked, every batch in hand written: the sink's count is what is on disk
    try:
        tracker = _tracker(run, earlier)
        sink = Sink(jsonl, run.manifest, earlier.records, earlier.partial, earlier.sprt, run.size,
                    run.progress and not run.quiet, tracker, run.exp.max_worker_deaths)
        run.nodes = play(ctx, pending, sink)
        if run.stop.requested:
            status, stopped = "interrupted", True
        else:
            if sink.closed:
                status = "stopped by the SPRT"
            verdict = _verdict(run, sink)
            if verdict is not None:  # played to its end, but too many matches have no result
                status, error = "failed", verdict
    except KeyboardInterrupt:
        status = "interrupted"
    except OwnCodeError as e:  # a variant, a game or a strategy of one's own raised: the same again on a resume
        status, error, run.own_code = "failed", str(e).removeprefix("cribsim: "), True
    except RunFailed as e:
        status, error = "failed", str(e).removeprefix("cribsim: run failed: ")
    except OSError as e:
        status, error = "failed", f"cannot write {jsonl} ({e.strerror or e})" if e.filename is None or \
            str(e.filename) == str(jsonl) else f"{e.strerror or e}: {e.filename}"
    except CribsimError as e:
        status, error = "failed", str(e).removeprefix("cribsim: ")
    except Exception as e:  # a bug, or Ray going away: the run failed, what is written stays
        status, error = "failed", ray_or_bug(e)
    finally:
        if sink is not None:
            try:
                sink.close()
            except OSError as e:
                if status != "failed":
                    status, error = "failed", f"cannot write {jsonl} ({e.strerror or e})"
    # a run that ended cleanly, or stopped as asked with every batch in hand written, wrote (and
    # fsynced) exactly what its sink counted; any other end is counted on disk, as a resumed run
    # will find it
    if sink is not None and sink.busy is not None and sink.busy[1] > 0:
        run.session.driver_busy = round(sink.busy[0] / sink.busy[1], 4)
    if sink is not None and sink.batches:
        sizes = sorted(sink.batches)
        run.session.batches = {"count": len(sizes), "smallest": sizes[0], "median": sizes[len(sizes) // 2],
                               "largest": sizes[-1], "in_flight_per_worker": 1 if run.session.mode == "serial"
                               else IN_FLIGHT_PER_WORKER}
    ended_well = sink is not None and (status in ENDED_WELL or verdict is not None)
    if sink is not None and ended_well:
        played = sink.played
    elif sink is not None and stopped and sink.f is None and status == "interrupted":
        played = sink.results  # (reading the file again would take as long as the run's records are many)
    else:
        played = count_on_disk(jsonl, run.manifest)
    if sink is not None and ended_well and run.manifest.stop is None:
        run.sums = Sums(sink.partial, earlier.records)  # the tables without reading the records again
    return _finish(run, played, status, error, sink.sprt if sink is not None else None,
                   report_failed=verdict is not None, saved=sink.results if ended_well and sink is not None else None)


def _tracker(run: Run, earlier: Earlier) -> checkpoint.Tracker | None:
    """The run's checkpoint, kept as it plays (None: a run with ``stop:``, or a folder whose
    records end in damage or whose key cannot be trusted). A new run makes the folder's key."""
    if earlier.digest is None:
        return None
    key = earlier.key
    if key is None:
        try:
            key, _ = resumekey.folder_key(run.out)
        except resumekey.Untrusted as e:
            warn(f"{run.out / resumekey.KEY_FILE} is {e}: cribsim neither trusts nor replaces it, so no "
                 f"{checkpoint.NAME} is kept (a resume reads every record) until it is removed")
            return None
    return checkpoint.Tracker(run.out, run.manifest, earlier.records, earlier.digest, time.monotonic(), key)


def _verdict(run: Run, sink: Sink) -> str | None:
    """Why a run that played to its end failed (None: it did not): too many failed matches (see
    :func:`~.sink.verdict`), counted, with a sequential test, over the groups its tables use
    (how many more were in flight past a decision depends on the batches); or a failed match
    that keeps a sequential test from deciding."""
    m = run.manifest
    counts = sink.partial.tables
    if sink.sprt is not None:
        streams = sprt_streams(m, sink.sprt)
        counts = sink.sprt.counts(used_by(m, streams))
        for s in streams:
            if s["result"]["decision"] is None:
                stuck = sorted(match_id for (v, t), failed in sink.sprt.failed.items() for _, match_id in failed
                               if v == s["variant"] and (s["table"] is None or t == s["table"]))
                if stuck:
                    return (f"match {stuck[0]} failed, and the sequential test of {m.variant_names[s['variant']]} "
                            f"cannot go past it ({len(stuck):,} failed in that stream)")
    return verdict(counts, sink.partial.first_failure(), run.exp.max_failed, m.variant_names, m.tables,
                   m.entry_names)


def _finish(run: Run, played: int, status: str, error: str | None, sprt: SprtUnits | None = None,
            report_failed: bool = False, saved: int | None = None) -> Manifest:
    """Record how the run ended (the manifest, the run log), say so, and report a run that
    ended well, or that played to its end with too many failed matches (``report_failed``: its
    summary counts them). ``played`` counts the failed matches recorded too (the manifest's
    count); ``saved`` those with a result, what a resume keeps (None: ``played``). A run the
    SPRT stopped counts, in the manifest, the matches its tables use (the groups up to each
    stream's decision): how many more were in flight when it stopped depends on the batches, so
    that count goes to the run log only."""
    m = run.manifest
    counted = played
    if (status == "stopped by the SPRT" or report_failed) and sprt is not None and m.stop is not None:
        counted = sum(n for n, _ in sprt.counts(used_by(m, sprt_streams(m, sprt))).values())
    m.status, m.played, m.error = status, counted, error
    s = run.session
    s.status, s.played, s.ended, s.nodes = status, played, now(), sorted(n for n in run.nodes if n)
    s.peak_rss_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # (kilobytes on Linux)
    note = ""
    try:
        m.write(run.out)
        log_session(run.out, s)
    except OSError as e:
        note = f"; the manifest could not be updated ({e.strerror or e})"
    if status == "interrupted":
        raise Interrupted(f"cribsim: interrupted; {played:,} matches saved in {run.out}; continue with --resume{note}")
    if status == "failed":
        if report_failed and run.report:
            with contextlib.suppress(CribsimError):  # the run's own failure is the one to say
                write_report(run.out, quiet=run.quiet, locked=True, sums=run.sums)
        kept = played if saved is None else saved
        then = ("a resume fails the same way; fix that code, then run again with --fresh: the code is part of the "
                "run, and the fixed code's matches are not mixed with the failed code's") if run.own_code \
            else "continue with --resume"
        raise RunFailed(_with_log(f"cribsim: run failed: {error}; {kept:,} matches saved in {run.out} ({then}){note}",
                                  run.log))
    if note:
        raise RunFailed(f"cribsim: run failed: {note.lstrip('; ')}")
    if run.report:
        _report(run.out, run.quiet, run.sums)
    return m


def record_abrupt_end(out: str | os.PathLike[str], reason: str) -> int | None:
    """After the run's process died without closing its run (Ray's core ends its driver at once
    when a raylet dies): mark the manifest failed with the reason. Returns the matches on disk
    (None if the folder is not a run left running)."""
    out = Path(out)
    try:
        with FolderLock(out, "repair"):
            m = fld.read_manifest(out)
            if m is None or m.status != "running":
                return None
            m.status, m.error, m.played = "failed", reason, count_on_disk(out / fld.RECORDS, m)
            m.write(out)
            end_running_session(out, "failed", m.played)
            return m.played
    except (CribsimError, OSError):
        return None


def _report(out: Path, quiet: bool, sums: Sums | None) -> None:
    """The report of a run whose matches are all on disk (from the run's merged sums when it
    has them); its failure fails the command (1), not the run (``cribsim report`` can be run
    again)."""
    try:
        write_report(out, quiet=quiet, locked=True, sums=sums)
    except RunFailed:
        raise
    except CribsimError as e:
        raise RunFailed(f"cribsim: the matches are all in {out}, but the report failed: "
                        f"{str(e).removeprefix('cribsim: ')}") from None
