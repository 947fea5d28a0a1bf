"""The hostile corpus's arena: a folder laid out as an organiser's (a config, its rules, earlier
results, other bots' files), the corpus's bots built into it, and ``cribsim run`` played there
as a command, in either mode of the sandbox: as root (bubblewrap without a user namespace, each
bot under a user id of its own) and as an ordinary user (``nobody``: bubblewrap in a user
namespace of the bot's own). The ordinary user's run needs root to start it (``setpriv``) and a
mount namespace in which the interpreter's folders can be reached (``unshare -m``); where the
machine allows neither, those cases are skipped, saying why."""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cribsim.isolation import sandbox
from tests.kernel.matchfile import match_dicts

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"
NOBODY = 65534
TOKEN = "organiser-token-5f1c0e7d2a9b"  # what the organiser exports (as the cluster guide exports RAY_AUTH_TOKEN)

needs_sandbox = pytest.mark.skipif(not sys.platform.startswith("linux") or sandbox.unavailable() is not None,
                                   reason=f"no sandbox here: {sandbox.unavailable()}")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine")
needs_python3 = pytest.mark.skipif(not os.path.exists("/usr/bin/python3"),
                                   reason="no system python3 (/usr/bin/python3) for the Python program bots")


def _blocked(path: Path) -> Path | None:
    """The outermost folder on the way to ``path`` that others cannot pass through."""
    for parent in reversed(path.parents):
        if parent != Path("/") and not os.stat(parent).st_mode & stat.S_IXOTH:
            return parent
    return None


def _as_nobody(argv: list[str]) -> list[str]:
    """``argv`` run as nobody, in a mount namespace where the interpreter and the project are
    reached through folders that hide them from others here (say /root, mode 0700): each such
    folder is covered by an empty one and the paths needed are bound back in."""
    needed = sorted({str(Path(p).resolve()) for p in (sys.base_prefix, sys.prefix, ROOT)})
    script = ["set -e"]
    for i, p in enumerate(needed):
        script.append(f'D{i}=$(mktemp -d /tmp/arenaXXXXXX); mount --bind "{p}" "$D{i}"')
    for top in sorted({str(b) for p in needed if (b := _blocked(Path(p))) is not None}):
        script.append(f'mount -t tmpfs -o mode=755 tmpfs "{top}"')
    for i, p in enumerate(needed):
        script.append(f'mkdir -p "{p}"; mount --bind "$D{i}" "{p}"')
    script.append(f'exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups --inh-caps=-all "$@"')
    return ["unshare", "-m", "sh", "-c", "; ".join(script), "sh", *argv]


@functools.lru_cache(maxsize=1)
def user_mode_unavailable() -> str | None:
    """Why this machine cannot run the ordinary user's cases (None: it can)."""
    if os.geteuid() != 0:
        return "the tests do not run as root, which starting a run as another user needs"
    for tool in ("unshare", "setpriv", "mount"):
        if shutil.which(tool) is None:
            return f"no {tool} here"
    probe = [sys.executable, "-c", "from cribsim.isolation import sandbox; print(sandbox.unavailable())"]
    try:
        done = subprocess.run(_as_nobody(probe), capture_output=True, text=True, timeout=60, cwd="/tmp")
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot start a process as nobody ({e})"
    if done.returncode != 0 or done.stdout.strip() != "None":
        return f"an ordinary user cannot make the sandbox here ({(done.stdout + done.stderr).strip()[-200:]})"
    return None


MODES = [pytest.param("root", id="root"),
         pytest.param("user", id="user", marks=pytest.mark.skipif(user_mode_unavailable() is not None,
                                                                  reason=str(user_mode_unavailable())))]


class Arena:
    """An organiser's folder: ``cfg/`` with the config (``exp.yaml``), a rules file, a note the
    organiser keeps there, an earlier run's results (its deal secret and records), and
    ``cfg/bots/`` with the corpus's bots; ``cfg/other/`` holds another bot's program."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.cfg = base / "cfg"
        self.bots = self.cfg / "bots"
        self.other = self.cfg / "other"
        for d in (self.bots, self.other, self.cfg / "results" / "earlier" / "games"):
            d.mkdir(parents=True, exist_ok=True)
        (self.cfg / "notes.txt").write_text("the organiser's own notes\n")
        (self.cfg / "house.yaml").write_text("extends: standard\nname: house\n")
        earlier = self.cfg / "results" / "earlier"
        (earlier / "deal-secret").write_text("ab" * 32 + "\n")
        (earlier / "matches.jsonl.gz").write_bytes(b"\x1f\x8b earlier records")
        (earlier / "games" / "games.jsonl.gz").write_bytes(b"\x1f\x8b earlier game records")
        shutil.copy(CORPUS / "hostile.py", self.bots / "hostile.py")
        shutil.copy(CORPUS / "hostile.py", self.other / "theirs.py")
        if shutil.which("cc"):
            subprocess.run(["cc", "-O2", "-o", str(self.bots / "hostile"), str(CORPUS / "hostile.c")], check=True)

    def planted(self) -> list[str]:
        """Every file a bot must not read (the current run's, under ``out``, once it plays)."""
        out = self.cfg / "results" / "now"
        return [str(p) for p in (self.cfg / "exp.yaml", self.cfg / "house.yaml", self.cfg / "notes.txt",
                                 self.cfg / "results" / "earlier" / "deal-secret",
                                 self.cfg / "results" / "earlier" / "matches.jsonl.gz",
                                 self.cfg / "results" / "earlier" / "games" / "games.jsonl.gz",
                                 self.other / "theirs.py", out / "deal-secret", out / "matches.jsonl.gz",
                                 out / "games" / "games.jsonl.gz", out / "manifest.json", ROOT / "README.md")]

    def config(self, text: str) -> Path:
        path = self.cfg / "exp.yaml"
        path.write_text(text)
        return path

    @property
    def out(self) -> Path:
        return self.cfg / "results" / "now"

    def run(self, mode: str, *args: str, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``cribsim run exp.yaml --serial --quiet --out results/now ARGS`` in ``mode``."""
        return self.cribsim(mode, "run", "exp.yaml", "--serial", "--quiet", "--out", str(self.out), *args, env=env,
                            timeout=timeout)

    def replay(self, mode: str) -> subprocess.CompletedProcess[str]:
        return self.cribsim(mode, "replay", str(self.out), "--match", "1")

    def cribsim(self, mode: str, *args: str, env: dict[str, str] | None = None,
                timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``cribsim ARGS`` in ``mode`` (root or user), from the config's folder, with the
        organiser's token exported."""
        return subprocess.run(self.command(mode, *args), capture_output=True, text=True, timeout=timeout,
                              cwd=self.cfg, env=self.environ(env))

    def command(self, mode: str, *args: str) -> list[str]:
        """The command line of ``cribsim ARGS`` in ``mode`` (the folder made the user's)."""
        argv = [sys.executable, "-m", "cribsim", *args]
        if mode != "user":
            return argv
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(self.base)], check=True)
        return _as_nobody(argv)

    def environ(self, env: dict[str, str] | None = None) -> dict[str, str]:
        """The organiser's environment: the token exported; the tests' own module path kept."""
        environ = {**os.environ, "ORGANISER_TOKEN": TOKEN, "HOME": str(self.base), **(env or {})}
        environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), environ.get("PYTHONPATH", "")) if p)
        environ.pop("CRIBSIM_DEBUG", None)
        return environ

    def records(self) -> list[dict]:
        return match_dicts(self.out)

    def names(self) -> list[str]:
        return [e["name"] for e in json.loads((self.out / "manifest.json").read_text())["lineup"]]

    def forfeits(self) -> dict[str, list[dict]]:
        """Each entry's forfeits (entry name -> forfeit records)."""
        names = self.names()
        out: dict[str, list[dict]] = {}
        for r in self.records():
            f = r["forfeit"]
            if f and f.get("entry") is not None:
                out.setdefault(names[f["entry"]], []).append(f)
        return out


def arena_folder() -> Path:
    """A folder every mode can use (pytest's own is its owner's only)."""
    base = Path(tempfile.mkdtemp(prefix="arena", dir="/tmp"))
    base.chmod(0o755)
    return base


SHADOWS = ("yaml", "tabulate", "ray", "numpy")
MARK = '''
import os
try:
    with open(os.path.join({folder!r}, "ran-" + __name__), "w") as f:
        f.write("imported outside a sandbox")
except OSError:
    pass
'''
BOT = MARK + '''
from strategies.greedy import GreedyStrategy


class Bot(GreedyStrategy):
    name = "mybot"

    def __init__(self, rng, depth=2):
        super().__init__(rng)
        self.depth = depth
'''


def marks(arena: Arena) -> list[str]:
    return sorted(p.name for p in arena.base.glob("ran-*"))


def findings(text: str) -> dict[str, str]:
    """The ``k=v`` pairs after ``findings`` in a bot's message."""
    return dict(kv.split("=", 1) for kv in text.split("findings ", 1)[1].split())
