"""Ray for a run: join a cluster or start an embedded local one (every failure one line), keep
Ray's own messages off the terminal, and shut an embedded Ray down."""

from __future__ import annotations

import atexit
import contextlib
import io
import logging
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import CribsimError, RunFailed, describe
from .sink import warn

TOKEN_HINT = ("set RAY_AUTH_MODE=token and the cluster's token in RAY_AUTH_TOKEN (or a file named by "
              "RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token; `ray get-auth-token` on the head prints it)")


def init_ray(workers: int | None, address: str | None) -> tuple[int, bool]:
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
                with _neutral_folder():
                    ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            else:
                # the workers' module path is cribsim's and the organiser's own (PYTHONPATH): never a
                # config's folder, whose strangers' files could shadow a module (code of one's own
                # comes with each batch: cribsim.codepath)
                path = os.environ.get("PYTHONPATH", "")
                # "local": always a fresh embedded instance, never a cluster that happens to run
                # on this machine (plain ray.init() would join the latest one started there)
                with _neutral_folder():
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
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = max(1, int(resources.get("CPU", 1)))
    except Exception as e:
        raise RunFailed(f"cribsim: Ray started but does not answer ({describe(e, 200)})") from None
    if not workers:
        workers = cpus
    elif embedded and workers > cores:
        warn(f"--workers {workers} is more than the {cores} cores here: the matches run no faster (slower, "
              f"if anything) than with --workers {cores}")
    elif not embedded and workers > cpus:
        warn(f"--workers {workers} is more than the cluster's {cpus} CPUs; at most {cpus} batches run at once")
    return workers, embedded


@contextlib.contextmanager
def _neutral_folder() -> Iterator[None]:
    """Ray puts the driver's working directory on every worker's module path, and starts its
    workers there: a stranger's ``yaml.py`` beside the config would shadow a module in every
    worker. So Ray is started from an empty folder of its own (kept while this process lives:
    the workers' working directory), and the working directory is given back."""
    here = os.getcwd()
    empty = tempfile.mkdtemp(prefix="cribsim-ray-cwd-")
    atexit.register(_remove_empty, empty)
    try:
        os.chdir(empty)
        yield
    finally:
        os.chdir(here)


def _remove_empty(folder: str) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast with one line if a host:port address does not answer (Ray itself would retry
    for minutes). Other forms (``auto``, ``ray://``) are left to Ray."""
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


@dataclass(frozen=True)
class Joined:
    """The Ray cluster a run joined: the address Ray resolved (``auto`` names whichever Ray
    this machine last started), how it was asked for, its live nodes and CPUs."""

    address: str
    asked: str
    nodes: int
    cpus: int

    def line(self) -> str:
        how = f" ({self.asked})" if self.asked and self.asked != self.address else ""
        return (f"cribsim: joined the Ray cluster at {self.address}{how}: {self.nodes} node"
                f"{'s' if self.nodes != 1 else ''}, {self.cpus} CPU{'s' if self.cpus != 1 else ''}")

    def to_json(self) -> dict[str, str | int]:
        return {"address": self.address, "asked": self.asked, "nodes": self.nodes, "cpus": self.cpus}


def joined_cluster(address: str | None) -> Joined:
    """What :func:`init_ray` joined (call it after, for a Ray this process did not start)."""
    import ray

    asked = f"--address {address}" if address else \
        f"RAY_ADDRESS={os.environ['RAY_ADDRESS']}" if os.environ.get("RAY_ADDRESS") else "a Ray already started"
    try:
        resolved = str(getattr(ray.get_runtime_context(), "gcs_address", "") or address or "?")
        listed: list[dict[str, object]] = ray.nodes()  # type: ignore[no-untyped-call]
        nodes = len([n for n in listed if n.get("Alive")])
        cpus = int(ray.cluster_resources().get("CPU", 0))  # type: ignore[no-untyped-call]
    except Exception as e:
        raise RunFailed(f"cribsim: Ray started but does not answer ({describe(e, 200)})") from None
    return Joined(resolved, asked, nodes, cpus)


RAY_LOG = "CRIBSIM_RAY_LOG"


@contextlib.contextmanager
def ray_messages_to_log() -> Iterator[str | None]:
    """Ray's core writes its warnings and errors (auth retries, a dead raylet, a lost node's
    dump, with colour codes) straight to file descriptors 1 and 2. For the Ray part of a run both
    go to a log file, while ``sys.stdout`` and ``sys.stderr`` (our tables, messages and progress
    bar) keep the terminal; the log's path is given when Ray fails. Yields the log's path (None if
    the descriptors could not be redirected)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # (None: a closed descriptor at start)
                stream.flush()
        saved = {1: os.dup(1), 2: os.dup(2)}
    except (OSError, ValueError):
        yield None
        return
    given = os.environ.get(RAY_LOG)  # chosen by a supervising cribsim run (cli._supervise)
    if given:
        log = given
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    else:
        fd, log = tempfile.mkstemp(prefix="cribsim-ray-", suffix=".log")
    streams = {1: "stdout", 2: "stderr"}
    old = {n: getattr(sys, name) for n, name in streams.items()}
    ours: list[io.TextIOWrapper] = []
    undo = None
    try:
        for n, name in streams.items():
            if _uses(old[n], n):  # our own writes keep going where they went
                mine = open(os.dup(saved[n]), "w", buffering=1, errors="backslashreplace",
                            encoding=getattr(old[n], "encoding", None) or "utf-8")
                ours.append(mine)
                setattr(sys, name, mine)
            os.dup2(fd, n)
        to_log = open(os.dup(fd), "w", buffering=1, errors="backslashreplace", encoding="utf-8")
        ours.append(to_log)
        undo = _ray_prints_to(to_log)
        yield log
    finally:
        if undo is not None:
            undo()
        for n, name in streams.items():
            with contextlib.suppress(Exception):
                getattr(sys, name).flush()  # (None: nothing to flush)
            setattr(sys, name, old[n])
            os.dup2(saved[n], n)
            os.close(saved[n])
        os.close(fd)
        for mine in ours:
            with contextlib.suppress(Exception):
                mine.close()


def _ray_prints_to(stream: io.TextIOWrapper) -> Callable[[], None]:
    """Ray's driver also prints, from a thread of its own, what its cluster publishes (a dead
    raylet's last log lines, sent by that node when it goes) through
    ``ray._private.worker.print_to_stdstream``, to ``sys.stdout``: our stream, so it reached the
    terminal. Send those prints to ``stream`` (the log) instead; returns the undo. A Ray
    without that function is left as it is."""
    try:
        import ray._private.worker as ray_worker
    except ImportError:
        return lambda: None
    real = getattr(ray_worker, "print_to_stdstream", None)
    show = getattr(ray_worker, "print_worker_logs", None)
    if real is None or show is None:
        return lambda: None

    def to_log(data: dict[str, Any], ignore_prefix: bool) -> None:
        with contextlib.suppress(Exception):
            show(data, stream, ignore_prefix)

    ray_worker.print_to_stdstream = to_log
    return lambda: setattr(ray_worker, "print_to_stdstream", real)


def _uses(stream: object, fd: int) -> bool:
    try:
        fileno = getattr(stream, "fileno", None)
        return fileno is not None and bool(fileno() == fd)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def shutdown() -> None:
    """Shut down the Ray this process started (an embedded one)."""
    try:
        import ray

        ray.shutdown()
    except Exception:
        pass


def ray_or_bug(e: BaseException) -> str:
    try:
        import ray

        if isinstance(e, ray.exceptions.RayError):
            return f"Ray failed ({describe(e, 200)})"
    except ImportError:
        pass
    return f"{describe(e, 200)} (a bug: please report it with CRIBSIM_DEBUG=1's traceback)"
