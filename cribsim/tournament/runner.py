"""Run an experiment: serially or on Ray, appending each match's record as it arrives.

Both executors call :func:`cribsim.tournament.batch.play_batch`. Ray gets the context once
(``ray.put``), batches sized to last about ``batch_seconds``, at most one task in flight per
worker (``ray.wait`` for back-pressure), and tasks retried if a worker dies."""

import datetime
import json
import logging
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

from .. import __version__
from ..errors import CribsimError
from ..games import GAMES
from ..records import Forfeit, MatchRecord, RecordError, match_from_json
from .batch import make_context, play_batch
from .schedule import build_schedule, groups_for
from .summary import sprt_streams

RESULT_FILES = ("manifest.json", "matches.jsonl", "summary.md")


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _git_commit():
    root = Path(__file__).resolve().parents[2]
    try:
        r = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _write_json(path, data):
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def manifest_for(exp, workers, mode):
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
        "started": _now(), "ended": None, "status": "running", "played": 0, "nodes": [],
    }


def load_done(path):
    """Records already in matches.jsonl; a half-written or corrupt line is cut off (and so
    replayed). Returns the records, rewriting the file if anything was cut."""
    if not path.exists():
        return []
    data = path.read_bytes()
    good, records = [], []
    for no, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        try:
            records.append(match_from_json(rec))
        except RecordError as e:
            raise CribsimError(f"cribsim: {path}: line {no}: {e}") from None
        good.append(line)
    clean = b"".join(x + b"\n" for x in good)
    if clean != data:
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(clean)
        os.replace(tmp, path)
    return records


def prepare_out(exp, out, resume, fresh):
    """Check the output folder; returns the records already done. A folder holding a run of the
    same config (same hash: same rules, lineup, seed, ...) is continued, which is safe because
    every match is a pure function of the config; a different config is refused unless
    ``fresh``. ``resume`` insists on continuing (an error if the configs differ)."""
    jsonl = out / "matches.jsonl"
    has_run = jsonl.exists() and jsonl.stat().st_size > 0
    if fresh and out.exists():
        for f in out.iterdir():
            if f.name in RESULT_FILES or f.suffix in (".csv", ".png", ".tmp"):
                f.unlink()
        return []
    if not has_run:
        return []
    try:
        old = json.loads((out / "manifest.json").read_text())
    except (OSError, json.JSONDecodeError):
        raise CribsimError(f"cribsim: {out}: matches.jsonl has no readable manifest.json; use --fresh") from None
    if old.get("config_hash") != exp.config_hash():
        raise CribsimError(f"cribsim: {out} already holds a run of a different config (hash "
                           f"{old.get('config_hash')}, now {exp.config_hash()}); use another --out or --fresh")
    return load_done(jsonl)


class _Sink:
    """Appends records to matches.jsonl, tracks the SPRT, reports progress."""

    def __init__(self, path, manifest, done, total, progress):
        self.f = open(path, "a")
        self.manifest = manifest
        self.keep = bool(manifest.get("stop"))  # records stay in memory only for the SPRT
        self.records = list(done) if self.keep else []
        self.played = {r.id for r in done}
        self.closed = set()
        self.bar = None
        if progress:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=len(done), unit="match", dynamic_ncols=True,
                            disable=not sys.stderr.isatty(), smoothing=0.1)
        self.update_sprt()

    def add(self, records):
        self.f.write("".join(json.dumps(r.to_json(), separators=(",", ":")) + "\n" for r in records))
        self.f.flush()
        os.fsync(self.f.fileno())
        self.played.update(r.id for r in records)
        if self.keep:
            self.records.extend(records)
        if self.bar is not None:
            self.bar.update(len(records))
        if self.manifest.get("stop"):
            self.update_sprt()

    def update_sprt(self):
        streams = sprt_streams(self.manifest, self.records)
        decided = {(s["variant"], s["table"]) for s in streams if s["result"]["decision"]}
        if self.manifest.get("stop", {}) and self.manifest["stop"]["test"] == "first_dealer" and \
                len(decided) == len(streams):
            decided.add((self.manifest["stop"]["baseline"], None))
        self.closed = decided

    def wanted(self, spec):
        if not self.closed:
            return True
        key = (spec.variant, spec.table) if self.manifest["stop"]["test"] == "elo" else (spec.variant, None)
        return key not in self.closed

    def close(self):
        if self.bar is not None:
            self.bar.close()
        self.f.close()


def _take(pending, sink, size):
    batch = []
    while pending and len(batch) < size:
        spec = pending.popleft()
        if sink.wanted(spec):
            batch.append(spec)
    return batch


def run_serial(ctx, pending, sink, batch_seconds):
    size, nodes = 4, set()
    while pending:
        batch = _take(pending, sink, size)
        if not batch:
            break
        records, info = play_batch(ctx, batch)
        sink.add(records)
        size = _next_size(info["seconds"], len(batch), batch_seconds, len(pending), 1)
    return nodes


def _next_size(seconds, n, target, remaining, workers):
    per = max(seconds / max(n, 1), 1e-5)
    size = int(target / per)
    share = -(-remaining // max(workers, 1))  # spread the tail over the workers
    return max(1, min(size, 5000, max(share, 1)))


def _ray_batch(ctx, specs):
    import ray

    records, info = play_batch(ctx, specs)
    info["node"] = ray.get_runtime_context().get_node_id()
    return records, info


def init_ray(workers, address):
    """Join a cluster (``address`` or RAY_ADDRESS) or start an embedded local Ray. Returns the
    number of workers to use and whether this process started Ray itself."""
    import ray

    address = address or os.environ.get("RAY_ADDRESS")
    embedded = not ray.is_initialized() and not address
    if address:
        _check_reachable(address)
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            else:
                path = os.pathsep.join(p for p in [os.getcwd(), os.environ.get("PYTHONPATH", "")] if p)
                # "local": always a fresh embedded instance, never a cluster that happens to run
                # on this machine (plain ray.init() would join the latest one started there)
                ray.init(address="local", num_cpus=workers or os.cpu_count(), include_dashboard=False,
                         log_to_driver=False,
                         logging_level=logging.ERROR, runtime_env={"env_vars": {"PYTHONPATH": path}})
        except Exception as e:  # Ray's own errors: one line
            raise CribsimError(f"cribsim: cannot start or join Ray ({type(e).__name__}: {str(e).splitlines()[0]})") from None
    if not workers:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return workers, embedded


def _check_reachable(address, timeout=5.0):
    """Fail fast with one line if a host:port address does not answer (Ray itself would retry
    for minutes). Other forms (``auto``, ``ray://``) are left to Ray."""
    import socket

    hostport = address.split("://", 1)[-1]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or "://" in address and not address.startswith("ray://"):
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as e:
        raise CribsimError(f"cribsim: cannot reach a Ray cluster at {address} ({e.strerror or e})") from None


def run_ray(ctx, pending, sink, workers, batch_seconds, queued=0):
    """``queued`` extra tasks wait behind the running ones (with an embedded Ray, whose CPUs
    equal the workers) so that no worker idles while the driver writes results."""
    import ray

    # SPREAD: batches go to every node of a cluster rather than filling the head node first
    remote = ray.remote(max_retries=3, retry_exceptions=False, scheduling_strategy="SPREAD")(_ray_batch)
    single = ray.remote(max_retries=3, retry_exceptions=False)(_ray_batch)
    ctx_ref = ray.put(ctx)
    inflight = {}
    size, nodes = 4, set()
    while pending or inflight:
        while pending and len(inflight) < workers + queued:
            batch = _take(pending, sink, size)
            if not batch:
                break
            inflight[remote.remote(ctx_ref, batch)] = batch
        if not inflight:
            break
        ready, _ = ray.wait(list(inflight), num_returns=1)
        for ref in ready:
            batch = inflight.pop(ref)
            try:
                records, info = ray.get(ref)
            except ray.exceptions.RayError as e:
                records, info = _salvage(ray, single, ctx_ref, batch, e)
            nodes.add(info.get("node", ""))
            sink.add(records)
            size = _next_size(info["seconds"], len(batch), batch_seconds, len(pending), workers)
    return nodes


def _salvage(ray, single, ctx_ref, batch, error):
    """A batch whose worker kept dying: play its matches one by one; a match that still kills
    its worker is recorded as failed (no result), not fatal to the run."""
    records, info = [], {"seconds": 0.0, "node": ""}
    for spec in batch:
        try:
            recs, inf = ray.get(single.remote(ctx_ref, [spec]))
            records += recs
            info["seconds"] += inf["seconds"]
        except ray.exceptions.RayError as e:
            records.append(MatchRecord(spec.id, spec.variant, spec.table, spec.group, spec.seating, list(spec.sides),
                                       -1, None, Forfeit(None, None, "crash",
                                                         f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")))
    return records, info


def run_experiment(exp, out_dir=None, workers=None, address=None, serial=False, resume=False, fresh=False,
                   progress=True, batch_seconds=1.5, report=True, quiet=False):
    """Play every missing match of ``exp`` into ``out_dir`` and write the report."""
    out = Path(out_dir) if out_dir else Path("results") / exp.name
    done = prepare_out(exp, out, resume, fresh)
    embedded = False
    if not serial:
        workers, embedded = init_ray(workers, address)
    else:
        workers = 1
    out.mkdir(parents=True, exist_ok=True)
    manifest = manifest_for(exp, workers, "serial" if serial else "ray")
    if done:
        old = json.loads((out / "manifest.json").read_text())
        manifest["started"] = old.get("started", manifest["started"])
        manifest["resumed"] = old.get("resumed", 0) + 1
    _write_json(out / "manifest.json", manifest)
    specs = build_schedule(exp)
    have = {r.id for r in done}
    pending = deque(s for s in specs if s.id not in have)
    sink = _Sink(out / "matches.jsonl", manifest, done, len(specs), progress and not quiet)
    ctx = make_context(exp)
    status = "complete"
    try:
        if serial:
            nodes = run_serial(ctx, pending, sink, batch_seconds)
        else:
            nodes = run_ray(ctx, pending, sink, workers, batch_seconds, queued=1 if embedded else 0)
        if sink.closed:
            status = "stopped by the SPRT"
    except KeyboardInterrupt:
        status = "interrupted"
        nodes = set()
    finally:
        sink.close()
        manifest.update(ended=_now(), status=status, played=len(sink.played),
                        nodes=sorted(n for n in nodes if n))
        _write_json(out / "manifest.json", manifest)
    if status == "interrupted":
        raise CribsimError(f"cribsim: interrupted; {manifest['played']} matches saved in {out}; "
                           "continue with --resume")
    if report:
        from .report import write_report

        write_report(out, quiet=quiet)
    return manifest
