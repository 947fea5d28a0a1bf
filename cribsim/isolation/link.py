"""The engine's end of a player process: start it, ask one request at a time with a wall-clock
deadline, and kill it (with anything it started) when it is late, dead or done."""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .host import BOOT
from .procs import Group
from .protocol import MAX_LINE, decode, encode, quoted
from .sandbox import Launch, filter_fd

_now = time.monotonic

# a sandboxed bot's memory is measured each time its turns add up to this many seconds (and as a
# long turn goes on): between its turns its processes are stopped and cannot grow
MEASURE_EVERY = 0.05
ERRORS_KEPT = 64 * 1024  # bytes of a player's standard error kept between two takes


class StderrBuffer:
    """A player's standard error between two takes: the first :data:`ERRORS_KEPT` bytes, and a
    count of those left out."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = ERRORS_KEPT - len(self.data)
        self.data += chunk[:max(room, 0)]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def take(self) -> bytes:
        out = bytes(self.data)
        if self.dropped:
            out += f"\n[cribsim: {self.dropped:,} more bytes of standard error left out]\n".encode()
        self.data = bytearray()
        self.dropped = 0
        return out


class Late(Exception):
    """No reply within the deadline (the process has been killed)."""


class Died(Exception):
    """The process ended, or closed its output (the message says how; no pid, nothing variable)."""


class Garbled(Exception):
    """A line that is not a reply of the protocol (the process has been killed)."""


class Stale(Garbled):
    """A second reply to an earlier request, read where the reply to this one was due."""

    def __init__(self) -> None:
        super().__init__("it wrote a second reply to an earlier request")


def host_argv(tied: bool = True, extra: Sequence[str] = ()) -> list[str]:
    """The command that starts the Python host: this interpreter, with this process's module path
    (cribsim's own folder first, so the host imports this very cribsim) and then ``extra`` (the
    folders of the plug-in's and the variants' modules). ``tied``: the host exits if this
    process is not its parent (false in a sandbox, whose end ends the host)."""

    root = str(Path(__file__).resolve().parents[2])
    paths: list[str] = []
    for p in [*sys.path, *extra]:
        p = os.getcwd() if p == "" else p
        if p not in paths:
            paths.append(p)
    if not any(_same(root, p) for p in paths):  # cribsim came through an import hook (an editable install)
        paths.insert(0, root)
    return [sys.executable, "-c", BOOT, json.dumps(paths), str(os.getpid() if tied else 0)]


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


_LIVE: weakref.WeakSet[Link] = weakref.WeakSet()


class Link:
    """One player process. :meth:`request` sends one message and returns the reply (a dict);
    it raises :class:`Late`, :class:`Died` or :class:`Garbled`, after which the process is gone
    and the next request starts a new one (the caller says hello again: see ``alive``).

    Every request carries an ``id`` (1, 2, ... from the process's start) and its reply must
    carry the same. Output beyond a reply is kept for the next request, where it is the first
    line read: a second reply to an earlier request (an ``id`` it does not answer) is found
    there whenever it was written, so the fault, and the match it costs, never depend on how
    the lines happened to arrive."""

    def __init__(self, launcher: Callable[[], Launch] | Sequence[str] | None = None, cwd: str | None = None) -> None:
        if launcher is None or callable(launcher):
            self.launcher = launcher
        else:  # a plain command (unsandboxed)
            fixed = Launch(tuple(launcher), cwd=cwd)
            self.launcher = lambda: fixed
        self.proc: subprocess.Popen[bytes] | None = None
        self.group: Group | None = None
        self.buf = b""
        self.sent = 0  # the id of the last request
        self.errors = StderrBuffer()
        self.memory_mb = 0
        self.checked = 0.0  # when the memory of a sandboxed bot was last measured (its turns' time)
        self.turns = 0.0  # the time its turns took since then

    @property
    def alive(self) -> bool:
        return self.proc is not None

    def start(self) -> None:
        launch = self.launcher() if self.launcher is not None else Launch(tuple(host_argv()))
        fd = filter_fd(launch.seccomp)
        # a session of its own: Ctrl-C at the terminal is the run's, and killing the group takes
        # whatever the player started; its standard error is a pipe of the engine's (never the
        # run's own), kept in a bounded buffer
        try:
            self.proc = subprocess.Popen(launch.command(fd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, close_fds=True, start_new_session=True, bufsize=0,
                                         cwd=launch.cwd, env=launch.env, pass_fds=() if fd is None else (fd,))
        finally:
            if fd is not None:
                os.close(fd)
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.wfd, self.rfd, self.efd = self.proc.stdin.fileno(), self.proc.stdout.fileno(), self.proc.stderr.fileno()
        os.set_blocking(self.wfd, False)
        os.set_blocking(self.efd, False)
        self.group = Group(self.proc.pid) if launch.sandboxed else None
        self.memory_mb = launch.memory_mb
        self.buf = b""
        self.sent = 0
        self.turns = 0.0
        _LIVE.add(self)

    def request(self, msg: dict[str, Any], limit: float) -> dict[str, Any]:
        if self.proc is None:
            self.start()
        began = _now()
        deadline = began + limit
        self.sent += 1
        if self.group is not None:
            self.group.resume()
        try:
            self._send(encode({"id": self.sent, **msg}), deadline)
            line = self._line(deadline)
        except (Late, Died, Garbled):
            raise
        except BaseException:  # interrupted (a watchdog, Ctrl-C): the exchange is torn, so is the process
            self.kill()
            raise
        self._pause(_now() - began)
        try:
            reply = decode(line)
        except (ValueError, RecursionError):
            self.kill()
            raise Garbled(f"its reply is not JSON: {quoted(line)}") from None
        if not isinstance(reply, dict):
            self.kill()
            raise Garbled(f"its reply is not a JSON object: {quoted(line)}")
        answered = reply.get("id")
        if answered != self.sent or type(answered) is not int:
            self.kill()
            if type(answered) is int and 0 < answered < self.sent:
                raise Stale()
            raise Garbled("its reply does not carry its request's id")
        return reply

    def _pause(self, took: float) -> None:
        """Its turn is over: a sandboxed bot's processes are stopped until its next request, and
        measured once its turns since the last measure add up to :data:`MEASURE_EVERY`. (Its
        standard error is read as it comes, while the engine waits: :meth:`_line`.)"""
        group = self.group
        if group is None:
            return
        group.stop()
        self.turns += took
        if self.turns >= MEASURE_EVERY:
            self._measure()

    def _measure(self) -> None:
        """Kill a sandboxed bot whose processes hold more memory together than its limit."""
        group = self.group
        self.turns = 0.0
        if group is None or not self.memory_mb:
            return
        held = group.resident_mb()
        if held > self.memory_mb:
            processes = group.processes()
            self.kill()
            raise Died(f"its processes held {held:.0f} MiB together, over its memory limit of {self.memory_mb} MiB "
                       f"({processes} process{'es' if processes != 1 else ''})")

    def _send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        poller = select.poll()
        poller.register(self.wfd, select.POLLOUT)
        while view:
            try:
                view = view[os.write(self.wfd, view):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                self._drain()
                if b"\n" in self.buf:  # it wrote a line past its last reply, then ended: that line is
                    return             # read (and judged) first, as when it is still running
                raise Died(self._ended()) from None
            left = deadline - _now()
            if left <= 0:
                self.kill()
                raise Late()
            poller.poll(max(left * 1000, 1))

    def _line(self, deadline: float) -> bytes:
        poller = select.poll()
        poller.register(self.rfd, select.POLLIN)
        poller.register(self.efd, select.POLLIN)
        buf = self.buf
        waited = 0.0
        while True:
            end = buf.find(b"\n")
            if end >= 0:  # anything after it is read by the next request (see the class doc)
                self.buf = buf[end + 1:]
                return buf[:end]
            if len(buf) > MAX_LINE:
                self.kill()
                raise Garbled(f"its reply is longer than {MAX_LINE:,} bytes")
            now = _now()
            left = deadline - now
            if left <= 0:
                self.kill()
                raise Late()
            step = min(left, MEASURE_EVERY) if self.group is not None else left
            events = poller.poll(max(step * 1000, 1))
            waited += _now() - now
            if self.group is not None and waited >= MEASURE_EVERY:  # a long turn: measured as it goes
                waited = 0.0
                self._measure()
            if not events:
                continue
            if any(fd == self.efd for fd, _ in events):
                self._drain_errors()
            if not any(fd == self.rfd for fd, _ in events):
                continue
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                self.buf = b""
                raise Died(self._ended())
            buf += chunk
            self.buf = buf

    def _drain_errors(self) -> None:
        """Read what the player wrote on its standard error so far (never waiting)."""
        if self.proc is None:
            return
        while True:
            try:
                chunk = os.read(self.efd, 1 << 16)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if not chunk:
                return
            self.errors.add(chunk)

    def take_errors(self) -> bytes:
        """What the player wrote on its standard error since the last call (bounded)."""
        self._drain_errors()
        return self.errors.take()

    def _drain(self) -> None:
        """Read what a process that stopped reading left in its output (without waiting)."""
        poller = select.poll()
        poller.register(self.rfd, select.POLLIN)
        while len(self.buf) <= MAX_LINE and poller.poll(0):
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                break
            self.buf += chunk

    def _ended(self) -> str:
        """How the process ended (it is reaped; a process that closed its output but lives on is
        killed): a message without pids or times."""
        proc = self.proc
        assert proc is not None
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
            return "its process closed its output"
        self._forget()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"its process was killed by {name}"
        return f"its process ended (exit code {code})"

    def kill(self) -> None:
        """Kill the process and its group at once (a player that is late, dead or garbled)."""
        proc = self.proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            try:
                proc.kill()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._forget()

    def close(self) -> None:
        """End the process: end of input (it exits by itself), then kill whatever is left."""
        proc = self.proc
        if proc is None:
            return
        if self.group is not None:
            self.group.resume()
        try:
            proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def _forget(self) -> None:
        self._drain_errors()
        proc, self.proc = self.proc, None
        self.buf = b""
        self.group = None
        _LIVE.discard(self)
        if proc is not None:
            for f in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    f.close()  # type: ignore[union-attr]
                except OSError:
                    pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # anything the player left behind in its group
            except OSError:
                pass


def close_all() -> None:
    """Every live player process of this process: ended (at exit, and when a run is done)."""
    links = list(_LIVE)
    for link in links:
        if link.group is not None:
            link.group.resume()
        if link.proc is not None:
            try:
                link.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
    for link in links:
        link.close()


atexit.register(close_all)
