"""Executors: play pending matches in this process (serial) or on Ray, in batches sized to take
about ``batch_seconds`` each (longer where the driver would be busy more than a tenth of the
time), and hand each batch's records to the sink as it finishes.

Both call :func:`cribsim.tournament.batch.play_places`: a batch travels as a span of the playing
order (:class:`~.schedule.Span`: a few numbers, whatever its size), its specs are made where it
is played, and it comes back as the same span with its records' bytes and sums. Ray gets the context
once (``ray.put``), two tasks in flight per worker (``ray.wait`` for back-pressure), tasks
retried if a worker dies, a batch past its deadline cancelled and its matches played one by
one. Ctrl-C asks the run to stop after the results in hand are written."""

from __future__ import annotations

import contextlib
import pickle
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal

from .. import codepath
from ..errors import CribsimError, RunFailed, describe
from ..owncode import OwnCodeError
from ..records import Forfeit, MatchRecord
from .batch import Sealed, play_places, release, seal, spec_at
from .schedule import MatchSpec, Pending, Span
from .sink import Sink

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopFlag:
    """Ctrl-C (SIGINT) while a run plays, or SIGTERM (a kill, a batch system's stop) or SIGHUP (a
    closed terminal): the first one asks the run to stop once the results in hand are written
    (so nothing is torn and the count is exact); a second stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self.old: dict[int, Callable[[int, FrameType | None], Any] | int | signal.Handlers | None] = {}

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> StopFlag:
        if threading.current_thread() is threading.main_thread():
            self.old = {sig: signal.signal(sig, self._handler) for sig in STOP_SIGNALS}
        return self

    def rearm(self) -> None:
        """Take the signals back (Ray installs its own handlers while it starts)."""
        for sig in self.old:
            signal.signal(sig, self._handler)

    def __exit__(self, *exc: object) -> Literal[False]:
        for sig, handler in self.old.items():
            signal.signal(sig, handler)
        return False


def _take(pending: Pending, sink: Sink, size: int) -> Span:
    """Up to ``size`` pending matches, as a span of the playing order."""
    return pending.take(size, sink.wanted if sink.closed else None)


def run_serial(ctx: dict[str, Any], pending: Pending, sink: Sink, batch_seconds: float,
               stop: StopFlag | None = None) -> set[str]:
    """The driver's own time (handing out, writing, merging: all but playing) is counted in
    ``sink.busy``."""
    nodes: set[str]
    size, nodes = 4, set()
    t0 = time.perf_counter()
    playing = 0.0
    try:
        while pending and not (stop and stop.requested):
            batch = _take(pending, sink, size)
            if not batch:
                break
            p0 = time.perf_counter()
            sealed = play_places(ctx, batch)
            playing += time.perf_counter() - p0
            sink.add(sealed)
            size = _next_size(sealed.info["seconds"], len(batch), batch_seconds, len(pending), 1)
    finally:
        release()  # isolated plug-ins' player processes end with the run
        wall = time.perf_counter() - t0
        sink.busy = (wall - playing, wall)
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


# A batch is at most LARGEST matches (a worker holds its records' text, about 500 bytes a
# one-game match, before it compresses them), and lasts at least what keeps the driver's cost a
# batch under BUSY of the time: with W workers each handing it a batch every T seconds, and a
# batch costing it d seconds (Ray's round trip, the merge, the append and fsync), T >= W d /
# BUSY. Half of the tenth the driver may be busy: the rest for its cost a match and the tail's
# smaller batches.
LARGEST = 50_000
BUSY = 0.05


def _next_size(seconds: float, n: int, target: float, remaining: int, workers: int, driver: float = 0.0) -> int:
    """The next batch's size: ``target`` seconds of play at the last batch's pace (``seconds``
    for ``n`` matches), or longer if the driver's cost a batch (``driver`` seconds) would keep it
    busy more than BUSY of the time, at most LARGEST, the tail spread over the workers."""
    per = max(seconds / max(n, 1), 1e-6)
    size = int(max(target, workers * driver / BUSY) / per)
    share = -(-remaining // max(workers, 1))  # spread the tail over the workers
    return max(1, min(size, LARGEST, max(share, 1)))


@dataclass(frozen=True)
class Shipped:
    """A run's context as its workers get it: pickled by the driver (``blob``, so that Ray
    reads bytes, and the modules of one's own the run uses can be made importable before it is
    unpickled: no folder of theirs is on a worker's path, :mod:`cribsim.codepath`), with the
    run's own ``key`` (a worker unpickles it once per run) and those modules (``exposed``)."""

    key: str
    exposed: dict[str, str]


_SHIPPED: dict[str, dict[str, Any]] = {}  # the context of the run this worker plays (one at a time)


def ship(ctx: dict[str, Any]) -> tuple[Shipped, bytes]:
    """(how a worker knows the context, its pickled bytes for ray.put)."""
    from ray import cloudpickle

    blob: bytes = cloudpickle.dumps(ctx)  # type: ignore[no-untyped-call]
    return Shipped(uuid.uuid4().hex, dict(ctx.get("exposed", {}))), blob


def unpacked(shipped: Shipped, blob: bytes) -> dict[str, Any]:
    """The context on a worker: unpickled once per run, after its modules are made importable."""
    ctx = _SHIPPED.get(shipped.key)
    if ctx is None:
        codepath.install(shipped.exposed)
        _SHIPPED.clear()
        ctx = _SHIPPED[shipped.key] = pickle.loads(blob)
    return ctx


def _ray_batch(blob: bytes, shipped: Shipped, places: Span | list[int]) -> Sealed:
    """A batch on a worker (``blob`` and ``shipped``: :func:`ship`)."""
    import ray

    return play_places(unpacked(shipped, blob), places, ray.get_runtime_context().get_node_id())


IN_FLIGHT_PER_WORKER = 2  # one running, one waiting behind it


def run_ray(ctx: dict[str, Any], pending: Pending, sink: Sink, workers: int, batch_seconds: float,
            stop: StopFlag | None = None) -> set[str]:
    """``IN_FLIGHT_PER_WORKER`` tasks per worker are in flight, so that a worker that finishes a
    batch starts the next at once rather than idling while the driver writes results and sends
    it another (on a cluster as with an embedded Ray). A task that
    raises (our code, not a dying worker) fails the run; a task past its deadline
    (:func:`batch_deadline`) is cancelled and its matches played one by one; after Ctrl-C
    nothing new is sent, the tasks in flight are cancelled and their matches left to a resumed
    run."""
    import ray

    # SPREAD: batches go to every node of a cluster rather than filling the head node first
    remote = ray.remote(max_retries=3, retry_exceptions=False, scheduling_strategy="SPREAD")(_ray_batch)
    single = ray.remote(max_retries=3, retry_exceptions=False)(_ray_batch)
    shipped, blob = ship(ctx)
    ctx_ref = ray.put(blob)
    limit = ctx["time_limit"]
    inflight: dict[Any, tuple[Span, float]] = {}  # ref -> (batch's places, the time it is cancelled)
    nodes: set[str]
    size, nodes = 4, set()
    t0 = time.perf_counter()
    waiting = 0.0  # the driver's time in ray.wait: not busy
    per_batch = 0.0  # the driver's seconds a batch, its latest (sizes the batches: _next_size)
    try:
        while pending or inflight:
            if stop is not None and stop.requested:
                break
            i0 = time.perf_counter()
            while pending and len(inflight) < IN_FLIGHT_PER_WORKER * workers:
                batch = _take(pending, sink, size)
                if not batch:
                    break
                inflight[remote.remote(ctx_ref, shipped, batch)] = (
                    batch, time.monotonic() + 2 * batch_deadline(limit, len(batch)))
            if not inflight:
                break
            w0 = time.perf_counter()
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.5)
            w1 = time.perf_counter()
            waiting += w1 - w0
            for ref in ready:
                batch, _ = inflight.pop(ref)
                try:
                    sealed = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    if stop is not None and stop.requested:
                        continue  # interrupted along with us
                    raise _task_failed(e, f"match {spec_at(ctx, _places(ctx, batch)[0]).id}..") from None
                except ray.exceptions.RayError:
                    if stop is None or not stop.requested:
                        _salvage(ray, single, ctx, (ctx_ref, shipped), batch, sink, stop)
                    continue
                nodes.add(sealed.info.get("node", ""))
                sink.add(sealed)
                size = _next_size(sealed.info["seconds"], len(batch), batch_seconds, len(pending), workers,
                                  per_batch)
            now = time.monotonic()
            for ref, (batch, due) in list(inflight.items()):
                if now > due and not (stop is not None and stop.requested) and not ray.wait([ref], timeout=0)[0]:
                    del inflight[ref]  # hung: cancelled, then its matches one by one
                    with contextlib.suppress(Exception):
                        ray.cancel(ref, force=True)
                    _salvage(ray, single, ctx, (ctx_ref, shipped), batch, sink, stop)
            if ready:  # (the driver's time this round but its wait, a batch: its submit, get and merge)
                per_batch = (time.perf_counter() - i0 - (w1 - w0)) / len(ready)
    finally:
        wall = time.perf_counter() - t0
        sink.busy = (wall - waiting, wall)
        for ref in inflight:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
    return nodes


def _task_failed(e: BaseException, match: str) -> CribsimError:
    """The run's error for a Ray task that raised while playing ``match``: code of one's own
    that raised says so itself (it names its match)."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, OwnCodeError):
        return OwnCodeError(str(cause))
    return RunFailed(f"cribsim: run failed: {match}: {_task_error(e)}")


def _task_error(e: BaseException) -> str:
    """The exception a Ray task raised, as ``Type: message`` (not Ray's multi-line wrapper)."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, CribsimError):
        return str(cause).removeprefix("cribsim: ")
    if isinstance(cause, BaseException):
        return describe(cause, 200)
    return f"{getattr(e, 'cause_cls', type(e)).__name__}"


def _places(ctx: dict[str, Any], batch: Span) -> list[int]:
    """A batch's places in the schedule, in its order."""
    return [int(p) for p in ctx["schedule"].places_at(batch.positions()).tolist()]


def _salvage(ray: Any, single: Any, ctx: dict[str, Any], sent: tuple[Any, Shipped], batch: Span,
             sink: Sink, stop: StopFlag | None = None) -> None:
    """A batch whose worker kept dying, or that hung: play its matches one by one, each given to
    the sink as it ends (which stops the run when a pairing's first matches all fail:
    ``max_worker_deaths``); a match that still kills its worker, or does not finish by its
    deadline, is recorded as failed (no result), not fatal to the run, with a message that is
    the same in every run. A match that raises is a bug: the run fails. A stop (Ctrl-C) leaves
    the matches not yet played to a resumed run."""
    due = batch_deadline(ctx["time_limit"], 1)
    for place in _places(ctx, batch):
        spec = spec_at(ctx, place)
        ref = single.remote(*sent, [place])
        until = time.monotonic() + due
        while not ray.wait([ref], timeout=0.5)[0] and time.monotonic() < until:
            if stop is not None and stop.requested:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
                return
        try:
            sink.add(ray.get(ref, timeout=max(0.0, until - time.monotonic())))
        except ray.exceptions.RayTaskError as e:
            raise _task_failed(e, f"match {spec.id}") from None
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayError) as e:
            sink.add(seal(ctx, [_failed(spec, _why(ray, ref, e, due))], {"seconds": 0.0}, [spec]))


def _why(ray: Any, ref: Any, e: BaseException, due: float) -> str:
    """Why a match salvaged one by one has no result: it did not finish in time (its worker is
    stopped), or its worker died."""
    if isinstance(e, ray.exceptions.GetTimeoutError):
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=True)
        return f"it did not finish within {due:g} s, so its worker was stopped"
    return _worker_died(e)


def _failed(spec: MatchSpec, why: str) -> MatchRecord:
    """The record of a match with no result (failed: no side charged)."""
    return MatchRecord(spec.id, spec.variant, spec.table, spec.group, spec.seating, list(spec.sides), -1,
                       None, Forfeit(None, None, "crash", why))


def _worker_died(e: BaseException) -> str:
    """A failed match's message: what happened, by the error's class only (Ray's own text
    carries pids, addresses and colour codes, which would differ from run to run)."""
    cause = getattr(e, "cause", None)
    kind = type(cause).__name__ if isinstance(cause, BaseException) else type(e).__name__
    return f"its worker process died ({kind}), also when the match was retried"
