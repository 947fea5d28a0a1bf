"""The sandbox of an untrusted bot's process (Linux, bubblewrap).

Every bot that is not a built-in and not marked ``trusted: true`` runs in a sandbox made of what
the kernel gives, through bubblewrap (``bwrap``, the Debian package ``bubblewrap``):

- namespaces of its own (``--unshare-all``): a PID namespace (it sees, signals and reads no other
  process, the engine's /proc included), no network (loopback only), its own IPC, UTS and user;
- a file system that holds the system's programs and libraries (``/usr``, read-only), the folders
  it is given read-only (its program's folder, or a Python plug-in's module and the interpreter
  with cribsim's package), a private scratch folder (``/tmp``, a tmpfs of bounded size, also its
  ``HOME``) and nothing else: no config, no results folder, no other bot;
- resource limits set inside (``prlimit``): address space, processes and file size;
- an end: bubblewrap's PID 1 dies with the engine's end of the link (``--die-with-parent``), and
  when it dies the kernel kills every process of the namespace, those started with ``setsid()``
  too, so nothing a bot starts outlives its link.

When the engine runs as root, the sandbox has no user namespace (root's own would exempt the
bot from the process limit) and the bot runs under a user id of its own instead. Where
bubblewrap is missing or cannot make namespaces, an untrusted bot is refused with
one line saying how to enable the sandbox or to mark the entry ``trusted: true``; on a system
that is not Linux, bots run unsandboxed and the run says so in one line."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import CribsimError
from . import seccomp

SCRATCH = "/tmp"  # the bot's private, writable folder (and HOME) inside the sandbox


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed bot (the config's ``sandbox:`` block)."""

    memory_mb: int = 1024  # the memory of all its processes together, and each one's address space
    processes: int = 64  # processes and threads of the bot, all told
    file_mb: int = 64  # the largest file it may write, and its scratch folder's size
    hello_limit: float = 10.0  # seconds to start and answer hello (the config's hello_limit)

    def to_dict(self) -> dict[str, int]:
        """The ``sandbox:`` block (the start-up's limit is a key of its own)."""
        return {"memory_mb": self.memory_mb, "processes": self.processes, "file_mb": self.file_mb}


DEFAULT_LIMITS = Limits()

HOW_TO_ENABLE = ("install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap) and allow unprivileged user "
                 "namespaces, or mark the entry trusted: true to run it unsandboxed")


def platform_note() -> str | None:
    """One line for a run with untrusted bots where no sandbox exists at all (not Linux)."""
    if sys.platform.startswith("linux"):
        return None
    return f"cribsim: bots run unsandboxed on {sys.platform} (the sandbox needs Linux namespaces)"


@functools.lru_cache(maxsize=1)
def unavailable() -> str | None:
    """Why untrusted bots cannot be sandboxed here (None: they can, or the platform has no
    sandbox at all and bots run unsandboxed with a note). Tried once per process: bubblewrap
    must start a command in fresh namespaces."""
    if not sys.platform.startswith("linux"):
        return None
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed: {HOW_TO_ENABLE}"
    launch = wrap([sys.executable, "-c", "pass"], read_only=[sys.base_prefix, sys.prefix], limits=DEFAULT_LIMITS)
    try:
        done = run(launch, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap cannot start a sandbox ({e}): {HOW_TO_ENABLE}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap cannot start a sandbox ({why[-1][:200] if why else f'exit {done.returncode}'}): " \
               f"{HOW_TO_ENABLE}"
    return None


def require() -> None:
    """Raise the one-line refusal where untrusted bots cannot be sandboxed; where no system has a
    sandbox (not Linux), say once on standard error that bots run unsandboxed."""
    why = unavailable()
    if why is not None:
        raise CribsimError(f"cribsim: cannot sandbox untrusted bots: {why}")
    note = platform_note()
    if note is not None and not _NOTED:
        _NOTED.append(note)
        print(note, file=sys.stderr)


_NOTED: list[str] = []


def run(launch: Launch, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """Run a launch to its end (input from /dev/null), its output captured."""
    fd = filter_fd(launch.seccomp)
    try:
        return subprocess.run(launch.command(fd), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                              env=launch.env, cwd=launch.cwd, pass_fds=() if fd is None else (fd,))
    finally:
        if fd is not None:
            os.close(fd)


def filter_fd(program: bytes | None) -> int | None:
    """A pipe's read end holding ``program`` (bubblewrap reads it to the end), or None."""
    if program is None:
        return None
    r, w = os.pipe()
    try:
        os.write(w, program)  # a few hundred bytes: within any pipe's buffer
    finally:
        os.close(w)
    return r


def _system() -> list[str]:
    """The system's programs and libraries, read-only: /usr, and /bin, /lib, ... as the links or
    folders they are here."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--perms", "0755", "--dir", "/etc"]
    for f in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/ssl"):
        if os.path.exists(f):
            args += ["--ro-bind", f, f]
    return args


def _read_only(paths: Iterable[str]) -> list[str]:
    """Bind ``paths`` read-only at their own places: the outermost of nested ones, each parent
    folder made traversable (bubblewrap would copy a parent's mode, and /root is 0700)."""
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.exists(p)})
    kept: list[str] = []
    for p in real:
        if p == "/" or p == "/usr" or p.startswith("/usr/") or any(p.startswith(k + "/") for k in kept):
            continue
        kept.append(p)
    args: list[str] = []
    made: set[str] = set()
    for p in kept:
        parts = p.split("/")[1:-1]
        for i in range(len(parts)):
            parent = "/" + "/".join(parts[:i + 1])
            if parent not in made:
                made.add(parent)
                args += ["--perms", "0755", "--dir", parent]
        args += ["--ro-bind", p, p]
    return args


def live_uids() -> set[int]:
    """The real user ids of every process on the machine (what /proc shows)."""
    uids: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        uids.add(int(line.split()[1]))
                        break
        except (OSError, ValueError, IndexError):
            pass
    return uids


# A root engine gives each bot process a user id of its own, so that the process limit (which the
# kernel counts per user) is that bot's alone. Each engine process draws from a window of its own
# (by its pid) and never takes an id that any live process holds, so no bot started later can
# meet an earlier one's processes, in this engine or another on the machine.
UID_BASE, UID_WINDOW = 1 << 31, 1000
_next_uid = [0]


def sandbox_uid(live: set[int] | None = None) -> int:
    """A fresh user id for one bot process: in this process's window, held by no live process."""
    window = UID_BASE + (os.getpid() % (1 << 21)) * UID_WINDOW
    live = live_uids() if live is None else live
    for _ in range(UID_WINDOW):
        uid = window + _next_uid[0] % UID_WINDOW
        _next_uid[0] += 1
        if uid not in live:
            return uid
    raise CribsimError(f"cribsim: no free sandbox user id: {UID_WINDOW} bots of this process still live")


@dataclass(frozen=True)
class Launch:
    """How to start one player process: ``argv`` (with :data:`SECCOMP_FD` where the sandbox's
    system-call filter's descriptor goes), the environment it is started with, its working
    folder outside a sandbox, and the filter (None: unsandboxed, or no filter for this
    machine)."""

    argv: tuple[str, ...]
    env: dict[str, str] | None = None
    cwd: str | None = None
    seccomp: bytes | None = None
    sandboxed: bool = False
    memory_mb: int = 0  # the memory all its processes may hold together (0: no limit of the engine's)

    def command(self, fd: int | None) -> list[str]:
        """The argument list, the filter's descriptor ``fd`` in its place."""
        return [str(fd) if a == SECCOMP_FD else a for a in self.argv]


SECCOMP_FD = "{seccomp-fd}"


def wrap(argv: Sequence[str], read_only: Iterable[str], limits: Limits, cwd: str | None = None,
         env: dict[str, str] | None = None, hidden: Iterable[str] = ()) -> Launch:
    """How to run ``argv`` in a sandbox showing ``read_only`` (files or folders, at their own
    paths) and a scratch folder, starting in ``cwd`` (default the scratch folder); ``hidden``:
    folders covered by an empty one wherever a bound folder holds them (a results folder).

    Bubblewrap is started with an empty environment (its own process holds nothing of the
    organiser's), the bot's with PATH, HOME, TMPDIR, LANG and ``env`` only."""
    mb = 1 << 20
    root = os.geteuid() == 0
    # as root: no user namespace (root's own would keep root's exemption from the process limit);
    # the bot drops to a user id of its own inside, under bubblewrap's root-owned PID 1. As an
    # ordinary user: a user namespace in which no further one can be made, and the bot itself as
    # PID 1 (no other process in its namespace for it to read)
    spaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"] \
        if root else ["--unshare-all", "--unshare-user", "--disable-userns", "--as-pid-1", "--cap-drop", "ALL"]
    seccomp = filter_program()
    box = [shutil.which("bwrap") or "bwrap", *spaces, "--die-with-parent", "--new-session",
           *(["--seccomp", SECCOMP_FD] if seccomp is not None else []),
           # the scratch folder first: folders to show under /tmp are bound on top of it
           "--perms", "1777", "--size", str(limits.file_mb * mb), "--tmpfs", SCRATCH,
           *_system(), *_read_only(read_only), *_hide(read_only, hidden),
           "--proc", "/proc", "--dev", "/dev",
           "--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
           "--setenv", "HOME", SCRATCH, "--setenv", "TMPDIR", SCRATCH, "--setenv", "LANG", "C.UTF-8"]
    for k, v in sorted((env or {}).items()):
        box += ["--setenv", k, v]
    if cwd:
        box += _folder(os.path.realpath(cwd), read_only)
    box += ["--chdir", os.path.realpath(cwd) if cwd else SCRATCH]
    drop: list[str] = []
    if root:
        uid = sandbox_uid()
        drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--"]
    limit = ["prlimit", f"--as={limits.memory_mb * mb}", f"--nproc={limits.processes}",
             f"--fsize={limits.file_mb * mb}", "--core=0", "--"]
    return Launch((*box, "--", *limit, *drop, *argv), env={}, seccomp=seccomp, sandboxed=True,
                  memory_mb=limits.memory_mb)


def filter_program() -> bytes | None:
    """The system-call filter for this machine (None: none for its architecture)."""
    return seccomp.program()


def _folder(path: str, shown: Iterable[str]) -> list[str]:
    """Make ``path`` (a working folder) where no folder shown holds it: empty, with traversable
    parents."""
    real = [os.path.realpath(p) for p in shown if p]
    if any(path == r or path.startswith(r.rstrip("/") + "/") for r in real if os.path.isdir(r)):
        return []
    args: list[str] = []
    parts = path.split("/")[1:]
    for i in range(len(parts)):
        args += ["--perms", "0755", "--dir", "/" + "/".join(parts[:i + 1])]
    return args


def _hide(shown: Iterable[str], hidden: Iterable[str]) -> list[str]:
    """An empty, read-only folder over each of ``hidden`` that lies inside a folder shown."""
    real = {os.path.realpath(p) for p in shown if p and os.path.isdir(p)}
    args: list[str] = []
    for h in sorted({os.path.realpath(h) for h in hidden if h}):
        if any(h == r or h.startswith(r.rstrip("/") + "/") for r in real):
            args += ["--tmpfs", h, "--remount-ro", h]
    return args
