"""Run an experiment: serially or on Ray, appending each match's record as it arrives.

Both executors call :func:`cribsim.tournament.batch.play_batch`. Ray gets the context once
(``ray.put``), batches sized to last about ``batch_seconds``, at most one task in flight per
worker (``ray.wait`` for back-pressure), and tasks retried if a worker dies.

One error boundary: the results folder is checked (cribsim's own, or empty) and locked before
anything is written; whatever goes wrong after the run started (an exception, a full disk, Ray
going away, Ctrl-C) ends with every finished match kept, the manifest saying how it ended and
why, and one ``cribsim:`` line (exit 1 for a failed run, 130 for an interrupted one)."""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal, TextIO

from .. import __version__, compiled
from ..errors import CribsimError, Interrupted, RunFailed, describe
from ..gamelog import GAMES_FILE, RecordFileError, append_logs, cut_torn_member, recorded_ids
from ..games import GAMES
from ..lock import FolderLock, describe_holder, holder
from ..records import Forfeit, MatchRecord
from . import folder as fld
from .batch import make_context, play_batch, release
from .schedule import MatchSpec, build_schedule, groups_for
from .summary import sprt_streams

if TYPE_CHECKING:
    from .config import Experiment

    # what a run plays with: (context, pending matches, sink) -> the nodes that played them
    Play = Callable[[dict[str, Any], deque[MatchSpec], "_Sink"], set[str]]
    # an SPRT stream that has decided: (variant, table), or (variant, None) for the first-dealer test
    Stream = tuple[int, int | None]

RESULT_FILES = fld.BASE_FILES


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _git_commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        r = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _write_json(path: Path, data: Any) -> None:
    """Write-then-rename, fsynced: a reader (or a crash) sees the old file or the new one."""
    tmp = path.with_suffix(".tmp")
    try:
        with open(tmp, "w") as f:
            f.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def manifest_for(exp: Experiment, workers: int | None, mode: str) -> dict[str, Any]:
    return {
        "name": exp.name, "cribsim_version": __version__, "git_commit": _git_commit(),
        "config": exp.source, "config_hash": exp.config_hash(), "seed": exp.seed,
        "variants": [r.to_dict() for r in exp.variants],
        "lineup": [{"name": e.name, "strategy": e.strategy, "params": dict(e.params),
                    **({"miss_rate": e.miss_rate, "vigilance": e.vigilance} if e.miss_rate or e.vigilance != 1 else {})}
                   for e in exp.lineup],
        "tables": [[list(t) for t in ts] for ts in exp.tables],
        "matches": exp.matches, "paired": exp.paired,
        "per_group": [groups_for(exp, v)[1] for v in range(len(exp.variants))],
        "time_limit": exp.time_limit,
        "record_schema": 2,
        "variant_info": [GAMES[r.game].summary_info(r) for r in exp.variants],
        "stop": None if exp.sprt is None else {
            "test": exp.sprt.test, "mu0": exp.sprt.mu0, "mu1": exp.sprt.mu1, "alpha": exp.sprt.alpha,
            "beta": exp.sprt.beta, "baseline": exp.sprt.baseline, "settings": dict(exp.sprt.settings)},
        "workers": workers, "mode": mode, "python": sys.version.split()[0],
        "engine": "compiled" if compiled() else "pure Python",
        "started": _now(), "ended": None, "status": "running", "played": 0, "nodes": [],
        "files": list(fld.BASE_FILES) + ([GAMES_FILE] if exp.record.mode != "none" else []),
        # (every file cribsim writes here: --fresh removes only these)
        **({"record": exp.record.to_json()} if exp.record.mode != "none" else {}),
        **({"deals": exp.deals_file} if exp.book else {}),
        **({"start": [{"scores": list(s.scores), "dealer": s.dealer} for s in exp.starts]} if exp.starts else {}),
    }


def load_done(path: Path) -> list[MatchRecord]:
    """Records already in matches.jsonl (see :func:`folder.scan_records`). A half-written last
    line (an interrupted write) is cut off, so its match is replayed; lines that cannot be read
    elsewhere in the file are left as they are, counted and reported (their matches are played
    again). Returns the records."""
    recs = fld.scan_records(path)
    _note_damage(path, recs)
    if path.exists():
        fld.cut_torn_tail(path, recs)
    return recs.records


def _note_damage(path: Path, recs: fld.Records) -> None:
    if recs.torn_tail:
        _warn(f"{path}: cut a half-written last line (an interrupted write); its match is played again")
    note = fld.unreadable_note(path, recs)
    if note:
        _warn(note + "; they stay in the file and their matches are played again")


def _warn(msg: str) -> None:
    print(f"cribsim: warning: {msg}", file=sys.stderr)


def check_out(exp: Experiment, out: Path, resume: bool, fresh: bool, locked: bool = False) -> dict[str, Any] | None:
    """Everything about the results folder that can be checked without writing: a folder (or
    nothing yet), cribsim's own or empty, not in use (unless ``locked``: we hold it), holding
    this config's run unless ``fresh``. Returns the earlier manifest (None if none)."""
    if fresh and resume:
        raise CribsimError("cribsim run: --fresh discards an earlier run and --resume continues it; give one of them")
    if out.exists() and not out.is_dir():
        raise CribsimError(f"cribsim: --out {out}: not a folder (a file is there)")
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise CribsimError(f"cribsim: --out {out}: {parent} is a file, not a folder")
    if not out.exists():
        if resume:
            raise CribsimError(f"cribsim: --resume: {out} does not exist; nothing to resume")
        return None
    who = None if locked else holder(out)
    if who is not None:
        raise CribsimError(f"cribsim: {out} is in use: {describe_holder(out / '.cribsim.lock')}; wait for it to "
                           "end, or use another --out")
    try:
        old = fld.read_manifest(out)
    except fld.Damaged as e:
        raise CribsimError(f"{e}; cribsim cannot tell its files there from others: move the folder aside or use "
                           "another --out") from None
    if old is None:
        others = fld.foreign_files(out)
        if (out / fld.RECORDS).exists():
            raise CribsimError(f"cribsim: {out}: matches.jsonl has no manifest.json beside it; cribsim cannot tell "
                               "what it holds: move it aside or use another --out")
        if others:
            raise CribsimError(f"cribsim: {out} holds files that are not cribsim's ({_few(others)}) and no cribsim "
                               "manifest: not a results folder; use a new or empty --out")
        if resume:
            raise CribsimError(f"cribsim: --resume: {out} holds no run to resume")
        return None
    if old.get("config_hash") != exp.config_hash() and not fresh:
        raise CribsimError(f"cribsim: {out} already holds a run of a different config (hash "
                           f"{old.get('config_hash')}, now {exp.config_hash()}); use another --out or --fresh")
    return old


def _few(names: list[str], n: int = 3) -> str:
    shown = ", ".join(names[:n])
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")


def prepare_out(exp: Experiment, out: Path, resume: bool, fresh: bool) -> list[MatchRecord]:
    """Check the output folder; returns the records already done. A folder holding a run of the
    same config (same hash: same rules, lineup, seed, ...) is continued, which is safe because
    every match is a pure function of the config; a different config is refused unless
    ``fresh``, which removes the files the earlier run's manifest lists and nothing else.
    ``resume`` insists on continuing."""
    old = check_out(exp, out, resume, fresh)
    if fresh and old is not None:
        fld.remove_owned(out, old)
        return []
    return load_done(out / fld.RECORDS) if old is not None else []


class _Sink:
    """Appends records to matches.jsonl, tracks the SPRT, reports progress."""

    def __init__(self, path: Path, manifest: dict[str, Any], done: Sequence[MatchRecord], total: int,
                 progress: bool) -> None:
        self.path = path
        self.games: Path | None = None  # the game records (record:), appended before the results
        self.logged: set[str] = set()
        if manifest.get("record", "none") != "none":
            self.games, self.logged = open_games(path.parent)
        self.f: TextIO | None = open(path, "a")
        self.manifest = manifest
        self.keep = bool(manifest.get("stop"))  # records stay in memory only for the SPRT
        self.records = list(done) if self.keep else []
        self.played = {r.id for r in done}
        self.closed: set[Stream] = set()
        self.bar: Any = None  # a tqdm progress bar
        if progress:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=len(done), unit="match", dynamic_ncols=True,
                            disable=not sys.stderr.isatty(), smoothing=0.1)
        self.update_sprt()

    def add(self, records: Sequence[MatchRecord]) -> None:
        f = self.f
        assert f is not None, "records added to a closed sink"
        if self.games is not None:
            logs = [r.log for r in records if r.log is not None and r.id not in self.logged]
            append_logs(self.games, logs)
            self.logged.update(m.id for m in logs)
        for r in records:
            r.log = None  # written: not kept in memory (the SPRT keeps the records)
        f.write("".join(json.dumps(r.to_json(), separators=(",", ":")) + "\n" for r in records))
        f.flush()
        os.fsync(f.fileno())
        self.played.update(r.id for r in records)
        if self.keep:
            self.records.extend(records)
        if self.bar is not None:
            self.bar.update(len(records))
        if self.manifest.get("stop"):
            self.update_sprt()

    def update_sprt(self) -> None:
        self.closed = closed_streams(self.manifest, self.records)

    def wanted(self, spec: MatchSpec) -> bool:
        return wanted(self.manifest, self.closed, spec)

    def close(self) -> None:
        """Close the file; an error here (a full disk on the last flush) is raised after the
        progress bar is gone."""
        if self.bar is not None:
            with contextlib.suppress(Exception):
                self.bar.close()
            self.bar = None
        if self.f is not None:
            f, self.f = self.f, None  # closed: the sink is not used after
            f.close()


def open_games(out: Path) -> tuple[Path, set[str]]:
    """The game records file of a run (created if need be), with a torn last member (an
    interrupted append) cut off, and the ids of the matches it already holds."""
    path = out / GAMES_FILE
    if path.parent.is_symlink() or path.is_symlink() or (path.parent.exists() and not path.parent.is_dir()):
        raise RunFailed(f"cribsim: run failed: {path.parent} is a link or not a folder; cribsim writes game records "
                        "only into a folder of its own")
    path.parent.mkdir(exist_ok=True)
    if not path.exists():
        path.touch()
        return path, set()
    try:
        if cut_torn_member(path):
            _warn(f"{path}: cut an unfinished batch of game records (an interrupted write); its matches were not "
                  "saved either, and are played and recorded again")
        return path, recorded_ids(path)
    except RecordFileError as e:
        raise RunFailed(f"cribsim: run failed: {str(e).removeprefix('cribsim: ')}; the records after the damage "
                        "cannot be read: copy the file aside, and remove it to go on without them") from None


def closed_streams(manifest: dict[str, Any], records: Sequence[MatchRecord]) -> set[Stream]:
    """The SPRT streams that have decided: (variant, table) for the elo test, (variant, None)
    for the first-dealer test."""
    streams = sprt_streams(manifest, records)
    decided = {(s["variant"], s["table"]) for s in streams if s["result"]["decision"]}
    if manifest.get("stop", {}) and manifest["stop"]["test"] == "first_dealer" and len(decided) == len(streams):
        decided.add((manifest["stop"]["baseline"], None))
    return decided


def wanted(manifest: dict[str, Any], closed: set[Stream], spec: MatchSpec) -> bool:
    if not closed:
        return True
    key = (spec.variant, spec.table) if manifest["stop"]["test"] == "elo" else (spec.variant, None)
    return key not in closed


class _StopFlag:
    """Ctrl-C (SIGINT) while a run plays: the first one asks the run to stop once the results in
    hand are written (so nothing is torn and the count is exact); a second stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self.old: Callable[[int, FrameType | None], Any] | int | signal.Handlers | None = None

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> _StopFlag:
        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGINT, self._handler)
        return self

    def rearm(self) -> None:
        """Take SIGINT back (Ray may install its own handler while it starts)."""
        if self.old is not None:
            signal.signal(signal.SIGINT, self._handler)

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.old is not None:
            signal.signal(signal.SIGINT, self.old)
        return False


def _take(pending: deque[MatchSpec], sink: _Sink, size: int) -> list[MatchSpec]:
    batch: list[MatchSpec] = []
    while pending and len(batch) < size:
        spec = pending.popleft()
        if sink.wanted(spec):
            batch.append(spec)
    return batch


def run_serial(ctx: dict[str, Any], pending: deque[MatchSpec], sink: _Sink, batch_seconds: float,
               stop: _StopFlag | None = None) -> set[str]:
    nodes: set[str]
    size, nodes = 4, set()
    try:
        while pending and not (stop and stop.requested):
            batch = _take(pending, sink, size)
            if not batch:
                break
            records, info = play_batch(ctx, batch)
            sink.add(records)
            size = _next_size(info["seconds"], len(batch), batch_seconds, len(pending), 1)
    finally:
        release()  # isolated plug-ins' player processes end with the run
    return nodes


# A Ray batch that has not finished by its deadline is cancelled (its worker killed): a hang no
# time limit can interrupt (a built-in or the engine looping in C) must not hang the run. The
# deadline is what every decision of every match taking the whole time limit would need, with
# DECISIONS_PER_MATCH decisions a match, at least DEADLINE_FLOOR, doubled for a task that waits
# behind another on its worker.
DEADLINE_FLOOR = 60.0
DECISIONS_PER_MATCH = 2000


def batch_deadline(time_limit: float, matches: int) -> float:
    """Seconds a batch of ``matches`` matches may take before it is cancelled."""
    return max(DEADLINE_FLOOR, time_limit * matches * DECISIONS_PER_MATCH)


def _next_size(seconds: float, n: int, target: float, remaining: int, workers: int) -> int:
    per = max(seconds / max(n, 1), 1e-5)
    size = int(target / per)
    share = -(-remaining // max(workers, 1))  # spread the tail over the workers
    return max(1, min(size, 5000, max(share, 1)))


def _ray_batch(ctx: dict[str, Any], specs: list[MatchSpec]) -> tuple[list[MatchRecord], dict[str, Any]]:
    import ray

    records, info = play_batch(ctx, specs)
    info["node"] = ray.get_runtime_context().get_node_id()
    return records, info


TOKEN_HINT = ("set RAY_AUTH_MODE=token and the cluster's token in RAY_AUTH_TOKEN (or a file named by "
              "RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token; `ray get-auth-token` on the head prints it)")


def init_ray(workers: int | None, address: str | None, plugin_dirs: Sequence[str] = ()) -> tuple[int, bool]:
    """Join a cluster (``address`` or RAY_ADDRESS) or start an embedded local Ray. Returns the
    number of workers to use and whether this process started Ray itself. Every failure is one
    CribsimError (a cluster that does not answer or wants a token fails at once, not after
    Ray's own retries)."""
    import ray

    address = address or os.environ.get("RAY_ADDRESS")
    embedded = not ray.is_initialized() and not address
    cores = os.cpu_count() or 1
    if address:
        _check_reachable(address)
        if not ray.is_initialized():
            _check_token(address)
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            else:
                # plug-in strategies: beside the config, then the working directory
                path = os.pathsep.join(p for p in [*plugin_dirs, os.getcwd(), os.environ.get("PYTHONPATH", "")] if p)
                # "local": always a fresh embedded instance, never a cluster that happens to run
                # on this machine (plain ray.init() would join the latest one started there)
                ray.init(address="local", num_cpus=workers or cores, include_dashboard=False,
                         log_to_driver=False,
                         logging_level=logging.ERROR, runtime_env={"env_vars": {"PYTHONPATH": path}})
        except KeyboardInterrupt:
            raise
        except Exception as e:  # Ray's own errors: one line
            text = f"{type(e).__name__}: {e}"
            if "uthenticat" in text or "auth token" in text.lower():
                raise CribsimError(f"cribsim: the Ray cluster at {address} refused us: it needs its token; "
                                   f"{TOKEN_HINT}") from None
            if address:  # an address that answers but is not a Ray we can join: the input (2)
                raise CribsimError(f"cribsim: cannot join Ray at {address} ({describe(e, 200)})") from None
            raise RunFailed(f"cribsim: cannot start Ray ({describe(e, 200)})") from None
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    except Exception as e:
        raise RunFailed(f"cribsim: Ray started but does not answer ({describe(e, 200)})") from None
    if not workers:
        workers = cpus
    elif embedded and workers > cores:
        _warn(f"--workers {workers} is more than the {cores} cores here: the matches run no faster (slower, "
              f"if anything) than with --workers {cores}")
    elif not embedded and workers > cpus:
        _warn(f"--workers {workers} is more than the cluster's {cpus} CPUs; at most {cpus} batches run at once")
    return workers, embedded


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast with one line if a host:port address does not answer (Ray itself would retry
    for minutes). Other forms (``auto``, ``ray://``) are left to Ray."""
    import socket

    hostport = address.split("://", 1)[-1]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or "://" in address and not address.startswith("ray://"):
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except (OSError, ValueError, OverflowError) as e:
        raise CribsimError(f"cribsim: cannot reach a Ray cluster at {address} "
                           f"({getattr(e, 'strerror', None) or e})") from None


def _check_token(address: str) -> None:
    """One request to the cluster's GCS with the token we would send (none, without
    RAY_AUTH_MODE=token): a cluster with token authentication (Ray 2.52+) refuses it in
    milliseconds, where ray.init retries for 20 s and then says only "Failed to connect"."""
    if "://" in address:
        return
    try:
        from ray._raylet import GcsClient  # type: ignore[attr-defined]  # not in Ray's stub of _raylet
        from ray.exceptions import AuthenticationError
    except ImportError:  # a Ray without token authentication
        return
    try:
        GcsClient(address=address, cluster_id=None)
    except AuthenticationError:
        raise CribsimError(f"cribsim: the Ray cluster at {address} needs its token; {TOKEN_HINT}") from None
    except Exception:
        return  # anything else: let ray.init say it


RAY_LOG = "CRIBSIM_RAY_LOG"


@contextlib.contextmanager
def ray_messages_to_log() -> Iterator[str | None]:
    """Ray's core writes its warnings and errors (auth retries, a dead raylet, ...) straight to
    file descriptor 2. For the Ray part of a run that descriptor goes to a log file, while
    ``sys.stderr`` (our messages, the progress bar) keeps the terminal; the log's path is given
    when Ray fails. Yields the log's path (None if stderr could not be redirected)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield None
        return
    given = os.environ.get(RAY_LOG)  # chosen by a supervising cribsim run (cli._supervise)
    if given:
        log = given
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    else:
        fd, log = tempfile.mkstemp(prefix="cribsim-ray-", suffix=".log")
    old_stderr = sys.stderr
    ours = None
    try:
        try:
            uses_fd2 = old_stderr.fileno() == 2
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            uses_fd2 = False
        if uses_fd2:
            ours = open(os.dup(saved), "w", buffering=1, encoding=getattr(old_stderr, "encoding", None) or "utf-8",
                        errors="backslashreplace")
            sys.stderr = ours
        os.dup2(fd, 2)
        yield log
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        sys.stderr = old_stderr
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
        if ours is not None:
            with contextlib.suppress(Exception):
                ours.close()


def run_ray(ctx: dict[str, Any], pending: deque[MatchSpec], sink: _Sink, workers: int, batch_seconds: float,
            queued: int = 0, stop: _StopFlag | None = None) -> set[str]:
    """``queued`` extra tasks wait behind the running ones (with an embedded Ray, whose CPUs
    equal the workers) so that no worker idles while the driver writes results. A task that
    raises (our code, not a dying worker) fails the run; a task past its deadline
    (:func:`batch_deadline`) is cancelled and its matches played one by one; after Ctrl-C
    nothing new is sent, the tasks in flight are cancelled and their matches left to a resumed
    run."""
    import time

    import ray

    # SPREAD: batches go to every node of a cluster rather than filling the head node first
    remote = ray.remote(max_retries=3, retry_exceptions=False, scheduling_strategy="SPREAD")(_ray_batch)
    single = ray.remote(max_retries=3, retry_exceptions=False)(_ray_batch)
    ctx_ref = ray.put(ctx)
    limit = ctx["time_limit"]
    inflight: dict[Any, tuple[list[MatchSpec], float]] = {}  # ref -> (batch, the time it is cancelled)
    nodes: set[str]
    size, nodes = 4, set()
    try:
        while pending or inflight:
            if stop is not None and stop.requested:
                break
            while pending and len(inflight) < workers + queued:
                batch = _take(pending, sink, size)
                if not batch:
                    break
                inflight[remote.remote(ctx_ref, batch)] = (
                    batch, time.monotonic() + 2 * batch_deadline(limit, len(batch)))
            if not inflight:
                break
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.5)
            for ref in ready:
                batch, _ = inflight.pop(ref)
                try:
                    records, info = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    if stop is not None and stop.requested:
                        continue  # interrupted along with us
                    raise RunFailed(f"cribsim: run failed: match {batch[0].id}..: {_task_error(e)}") from None
                except ray.exceptions.RayError:
                    if stop is not None and stop.requested:
                        continue
                    records, info = _salvage(ray, single, ctx_ref, batch, limit)
                nodes.add(info.get("node", ""))
                sink.add(records)
                size = _next_size(info["seconds"], len(batch), batch_seconds, len(pending), workers)
            now = time.monotonic()
            for ref, (batch, due) in list(inflight.items()):
                if now > due and not (stop is not None and stop.requested) and not ray.wait([ref], timeout=0)[0]:
                    del inflight[ref]  # hung: cancelled, then its matches one by one
                    with contextlib.suppress(Exception):
                        ray.cancel(ref, force=True)
                    records, info = _salvage(ray, single, ctx_ref, batch, limit)
                    sink.add(records)
    finally:
        for ref in inflight:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
    return nodes


def _task_error(e: BaseException) -> str:
    """The exception a Ray task raised, as ``Type: message`` (not Ray's multi-line wrapper)."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, CribsimError):
        return str(cause).removeprefix("cribsim: ")
    if isinstance(cause, BaseException):
        return describe(cause, 200)
    return f"{getattr(e, 'cause_cls', type(e)).__name__}"


def _salvage(ray: Any, single: Any, ctx_ref: Any, batch: list[MatchSpec],
             time_limit: float) -> tuple[list[MatchRecord], dict[str, Any]]:
    """A batch whose worker kept dying, or that hung: play its matches one by one; a match that
    still kills its worker, or does not finish by its deadline, is recorded as failed (no result),
    not fatal to the run, with a message that is the same in every run. A match that raises is a
    bug: the run fails."""
    records: list[MatchRecord]
    info: dict[str, Any]
    records, info = [], {"seconds": 0.0, "node": ""}
    due = batch_deadline(time_limit, 1)
    for spec in batch:
        ref = single.remote(ctx_ref, [spec])
        try:
            recs, inf = ray.get(ref, timeout=due)
            records += recs
            info["seconds"] += inf["seconds"]
        except ray.exceptions.RayTaskError as e:
            raise RunFailed(f"cribsim: run failed: match {spec.id}: {_task_error(e)}") from None
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayError) as e:
            if isinstance(e, ray.exceptions.GetTimeoutError):
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
                why = f"it did not finish within {due:g} s, so its worker was stopped"
            else:
                why = _worker_died(e)
            records.append(MatchRecord(spec.id, spec.variant, spec.table, spec.group, spec.seating, list(spec.sides),
                                       -1, None, Forfeit(None, None, "crash", why)))
    return records, info


def _worker_died(e: BaseException) -> str:
    """A failed match's message: what happened, by the error's class only (Ray's own text
    carries pids, addresses and colour codes, which would differ from run to run)."""
    cause = getattr(e, "cause", None)
    kind = type(cause).__name__ if isinstance(cause, BaseException) else type(e).__name__
    return f"its worker process died ({kind}), also when the match was retried"


def count_on_disk(path: Path) -> int:
    """Distinct matches whose records are whole in matches.jsonl: what a resumed run keeps."""
    try:
        return len(fld.scan_records(path).by_id)
    except CribsimError:
        return 0


def _pending(exp: Experiment, specs: Sequence[MatchSpec], done: Sequence[MatchRecord],
             manifest: dict[str, Any]) -> list[MatchSpec]:
    have = {r.id for r in done}
    pending = [s for s in specs if s.id not in have]
    if pending and manifest.get("stop"):
        closed = closed_streams(manifest, done)
        pending = [s for s in pending if wanted(manifest, closed, s)]
    return pending


def run_experiment(exp: Experiment, out_dir: str | os.PathLike[str] | None = None, workers: int | None = None,
                   address: str | None = None, serial: bool = False, resume: bool = False, fresh: bool = False,
                   progress: bool = True, batch_seconds: float = 1.5, report: bool = True,
                   quiet: bool = False) -> dict[str, Any]:
    """Play every missing match of ``exp`` into ``out_dir`` and write the report.

    Nothing is written until the folder checks pass and Ray (if used) is up; then the folder is
    locked for the run. Raises CribsimError (2: bad input, refused folder, Ray not available),
    RunFailed (1) or Interrupted (130), each one line, with every finished match kept."""
    out = Path(out_dir) if out_dir else Path("results") / exp.name
    old = check_out(exp, out, resume, fresh)
    specs = build_schedule(exp)
    manifest = manifest_for(exp, None, "serial" if serial else "ray")
    finished = False
    if old is not None and not fresh:  # a quick look: is anything left to play? (read again under the lock)
        peek = fld.scan_records(out / fld.RECORDS)
        finished = bool(peek.by_id) and not _pending(exp, specs, peek.records, manifest)
    with _StopFlag() as stop:
        if serial or finished:
            return _run_locked(exp, out, specs, manifest, resume, fresh, report, quiet, progress, stop,
                               lambda ctx, pending, sink: run_serial(ctx, pending, sink, batch_seconds, stop),
                               1 if serial else (workers or 1))
        with ray_messages_to_log() as log:
            keep_log = False
            embedded = False
            try:
                workers, embedded = init_ray(workers, address, [exp.plugin_dir] if exp.plugin_dir else [])
                stop.rearm()
                if stop.requested:
                    raise Interrupted("cribsim: interrupted while Ray started; nothing was written")
                return _run_locked(exp, out, specs, manifest, resume, fresh, report, quiet, progress, stop,
                                   lambda ctx, pending, sink: run_ray(ctx, pending, sink, workers, batch_seconds,
                                                                      queued=1 if embedded else 0, stop=stop),
                                   workers, log)
            except CribsimError as e:
                if isinstance(e, RunFailed) or "cannot start" in str(e) or "cannot join" in str(e) \
                        or "does not answer" in str(e):
                    msg = _with_log(str(e), log)
                    keep_log = msg != str(e)
                    raise type(e)(msg) from None
                raise
            finally:
                _shutdown(embedded)
                if log and not keep_log and not os.environ.get(RAY_LOG):  # (else the supervisor's)
                    with contextlib.suppress(OSError):
                        os.unlink(log)


def _with_log(msg: str, log: str | None) -> str:
    """``msg`` pointing at the log of Ray's own messages, if Ray wrote any."""
    try:
        if not log or os.path.getsize(log) == 0:
            return msg
    except OSError:
        return msg
    return f"{msg} (Ray's own messages: {log})"


def _shutdown(embedded: bool) -> None:
    if not embedded:
        return
    try:
        import ray

        ray.shutdown()
    except Exception:
        pass


def _run_locked(exp: Experiment, out: Path, specs: list[MatchSpec], manifest: dict[str, Any], resume: bool,
                fresh: bool, report: bool, quiet: bool, progress: bool, stop: _StopFlag, play: Play, workers: int,
                log: str | None = None) -> dict[str, Any]:
    """The part that writes: lock the folder, settle the earlier run, play, record how it ended."""
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CribsimError(f"cribsim: cannot create {out} ({e.strerror or e})") from None
    lock = None
    try:
        lock = FolderLock(out, "run").acquire()
        return _run_in(exp, out, specs, manifest, resume, fresh, report, quiet, progress, stop, play, workers, log)
    finally:
        if lock is not None:
            lock.release()
        if created:  # refused before writing anything: leave no empty folder behind
            with contextlib.suppress(OSError):
                out.rmdir()


def _run_in(exp: Experiment, out: Path, specs: list[MatchSpec], manifest: dict[str, Any], resume: bool, fresh: bool,
            report: bool, quiet: bool, progress: bool, stop: _StopFlag, play: Play, workers: int,
            log: str | None) -> dict[str, Any]:
    old = check_out(exp, out, resume, fresh, locked=True)  # again, now that the folder is ours
    jsonl = out / fld.RECORDS
    try:
        if fresh and old is not None:
            fld.remove_owned(out, old)
            old = None
        done = load_done(jsonl) if old is not None else []
    except OSError as e:
        raise RunFailed(f"cribsim: run failed: cannot prepare {out} ({e.strerror or e}); nothing was removed "
                        "but what --fresh names") from None
    manifest["workers"] = workers
    pending = deque(_pending(exp, specs, done, manifest))
    if not pending and done:  # finished before: nothing to play (and no Ray was started for it)
        manifest = dict(old)  # type: ignore[arg-type]  # done is empty unless old is a manifest
        if manifest.get("status") not in ("complete", "stopped by the SPRT"):
            decided = bool(manifest.get("stop")) and len(done) < len(specs)
            manifest.update(status="stopped by the SPRT" if decided else "complete", ended=_now())
            manifest.pop("error", None)
        manifest["played"] = len(done)
        manifest["files"] = sorted(fld.owned_files(old) - set(fld.SCRATCH))  # type: ignore[arg-type]  # (as above)
        note = _write_manifest(out, manifest, "")
        if note:
            raise RunFailed(f"cribsim: run failed: {note.lstrip('; ')}")
        if report:
            _report(out, quiet)
        return manifest
    if old is not None:
        manifest["started"] = old.get("started", manifest["started"])
        if done:
            resumed = old.get("resumed", 0)
            manifest["resumed"] = (resumed if isinstance(resumed, int) else 0) + 1
        manifest["files"] = sorted(set(manifest["files"]) | fld.owned_files(old) - set(fld.SCRATCH))
    try:
        _write_json(out / fld.MANIFEST, manifest)
    except OSError as e:
        raise RunFailed(f"cribsim: run failed: cannot write {out / fld.MANIFEST} ({e.strerror or e}); "
                        f"{len(done):,} matches on disk") from None
    error: str | None
    nodes: set[str]
    status, error, nodes = "complete", None, set()
    sink = None
    try:
        sink = _Sink(jsonl, manifest, done, len(specs), progress and not quiet)
        nodes = play(make_context(exp), pending, sink)
        if stop.requested:
            status = "interrupted"
        elif sink.closed:
            status = "stopped by the SPRT"
    except KeyboardInterrupt:
        status = "interrupted"
    except RunFailed as e:
        status, error = "failed", str(e).removeprefix("cribsim: run failed: ")
    except OSError as e:
        status, error = "failed", f"cannot write {jsonl} ({e.strerror or e})" if e.filename is None or \
            str(e.filename) == str(jsonl) else f"{e.strerror or e}: {e.filename}"
    except CribsimError as e:
        status, error = "failed", str(e).removeprefix("cribsim: ")
    except Exception as e:  # a bug, or Ray going away: the run failed, what is written stays
        status, error = "failed", _ray_or_bug(e)
    finally:
        if sink is not None:
            try:
                sink.close()
            except OSError as e:
                if status != "failed":
                    status, error = "failed", f"cannot write {jsonl} ({e.strerror or e})"
    # a run that ended cleanly wrote (and fsynced) exactly what its sink counted; any other end is
    # counted on disk, as a resumed run will find it
    played = len(sink.played) if sink is not None and status in ("complete", "stopped by the SPRT") \
        else count_on_disk(jsonl)
    manifest.update(ended=_now(), status=status, played=played, nodes=sorted(n for n in nodes if n))
    if error:
        manifest["error"] = error
    note = _write_manifest(out, manifest, "")
    if status == "interrupted":
        raise Interrupted(f"cribsim: interrupted; {played:,} matches saved in {out}; continue with --resume{note}")
    if status == "failed":
        raise RunFailed(_with_log(f"cribsim: run failed: {error}; {played:,} matches saved in {out} "
                                  f"(continue with --resume){note}", log))
    if report:
        _report(out, quiet)
    return manifest


def record_abrupt_end(out: str | os.PathLike[str], reason: str) -> int | None:
    """After the run's process died without closing its run (Ray's core ends its driver at once
    when a raylet dies): mark the manifest failed with the reason. Returns the matches on disk
    (None if the folder is not a run left running)."""
    out = Path(out)
    try:
        with FolderLock(out, "repair"):
            m = fld.read_manifest(out)
            if m is None or m.get("status") != "running":
                return None
            played = count_on_disk(out / fld.RECORDS)
            m.update(status="failed", error=reason, ended=_now(), played=played)
            _write_json(out / fld.MANIFEST, m)
            return played
    except (CribsimError, OSError):
        return None


def _ray_or_bug(e: BaseException) -> str:
    try:
        import ray

        if isinstance(e, ray.exceptions.RayError):
            return f"Ray failed ({describe(e, 200)})"
    except ImportError:
        pass
    return f"{describe(e, 200)} (a bug: please report it with CRIBSIM_DEBUG=1's traceback)"


def _write_manifest(out: Path, manifest: dict[str, Any], note: str) -> str:
    """Write the final manifest; if that fails too (a full disk), say so in the message."""
    try:
        _write_json(out / fld.MANIFEST, manifest)
        return note
    except OSError as e:
        return f"{note}; the manifest could not be updated ({e.strerror or e})"


def _report(out: Path, quiet: bool) -> None:
    """The report of a run whose matches are all on disk; its failure fails the command (1), not
    the run (``cribsim report`` can be run again)."""
    from .report import write_report

    try:
        write_report(out, quiet=quiet, locked=True)
    except RunFailed:
        raise
    except CribsimError as e:
        raise RunFailed(f"cribsim: the matches are all in {out}, but the report failed: "
                        f"{str(e).removeprefix('cribsim: ')}") from None
