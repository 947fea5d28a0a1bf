"""A Ray head of one's own on this machine, started and stopped by the commands that
docs/guide-cluster.md gives ("Stopping a cluster you started, and no other"), read from the page
itself: for ``tests/kernel/test_cluster_stop.py`` and ``benchmarks/ray_stop_own.py``.

Only processes this module started are ever signalled (by the page's commands, which name the
head's own folder or PID); a head left over by a failed check is stopped the same way."""

import os
import re
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide-cluster.md"


def block(name):
    """The bash block after ``<!-- name -->`` in the cluster guide."""
    m = re.search(rf"<!-- {re.escape(name)} -->\n```bash\n(.*?)```", GUIDE.read_text(), re.S)
    assert m, f"no block {name!r} in {GUIDE}"
    return m.group(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env():
    """This process's environment for Ray's commands, without an address to join."""
    return {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_TMP")}


def bash(script, folder=None, timeout=60):
    """Run ``script`` with bash (``RAY_TMP`` set to ``folder``); its standard output."""
    extra = {"RAY_TMP": str(folder)} if folder is not None else {}
    out = subprocess.run(["bash", "-c", script], env={**env(), **extra}, capture_output=True, text=True,
                         timeout=timeout, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"{script}\n{out.stderr[-1500:]}"
    return out.stdout


@dataclass
class Head:
    folder: Path  # its --temp-dir
    start_pid: int  # the ray start --block process (0: started without --block)

    @property
    def session(self):
        return (self.folder / "session_latest").resolve()

    def processes(self):
        """Every process of this head: those whose command line names its session folder, and
        the raylet's children (its agents and workers, which rename themselves ``ray::...``)."""
        named = {p for p in _pids() if f"{self.session}/" in _cmdline(p)}
        return named | {c for p in named for c in _children(p)}


def ports():
    """The options that keep a head of the tests off every other Ray's ports."""
    return f"--dashboard-port={free_port()} --num-cpus=1 --disable-usage-stats"


def start_blocking():
    """A head started by the page's ``ray-start-own`` commands (``--block``), on free ports;
    returns once it is up."""
    script = block("ray-start-own").replace("--port=6379", f"--port={free_port()} {ports()}")
    folder = Path(bash(script + 'echo "$RAY_TMP"\n').strip().splitlines()[-1])
    head = Head(folder, int((folder / "ray-start.pid").read_text()))
    _wait(lambda: "block forever" in _read(folder / "ray-start.log"), 90, folder / "ray-start.log")
    return head


def start_plain():
    """A head of its own folder started without ``--block`` (``ray start`` returns once it is up)."""
    folder = Path(tempfile.mkdtemp(prefix="ray-t-", dir="/tmp"))
    bash(f'ray start --head --port={free_port()} {ports()} --temp-dir="$RAY_TMP"', folder, timeout=120)
    return Head(folder, 0)


def running(pids):
    """Those of ``pids`` that run now."""
    return {p for p in pids if _alive(p)}


def wait_gone(pids, timeout):
    """The pids of ``pids`` still running after ``timeout`` seconds at most."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    return {p for p in pids if _alive(p)}


def _wait(ready, timeout, log):
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"the head did not come up: {_read(log)[-1500:]}"
        time.sleep(0.2)


def _pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _children(pid):
    try:
        return {int(c) for t in os.listdir(f"/proc/{pid}/task")
                for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()}
    except OSError:
        return set()


def _alive(pid):
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _read(path):
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""
