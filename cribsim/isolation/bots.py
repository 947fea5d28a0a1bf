"""How a bot's process is started: a Python plug-in's host or a program of any language, each in
the sandbox (:mod:`.sandbox`) unless its lineup entry is trusted."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .link import host_argv
from .sandbox import DEFAULT_LIMITS, Launch, Limits, wrap

# cribsim's own top-level packages: a Python host imports them (the built-in strategies too)
_OWN = ("cribsim", "strategies")


@dataclass(frozen=True)
class Bot:
    """One lineup entry's player process. ``spec`` is a Python plug-in's ``module:Class`` (its
    host is started), else ``command`` is a program's argument list, started in ``cwd``.
    ``sandboxed``: run in the sandbox (every untrusted bot; it is false for trusted entries and
    where the platform has no sandbox).

    What a sandboxed bot sees of the machine's files, besides the system's: a program its
    ``files`` (its own program and data, absolute paths); a Python host the interpreter, cribsim,
    the plug-in's own module or package (``home``, found where the lineup was loaded) and
    ``extra`` (the modules of variants of one's own the rules name). ``hidden``: folders covered
    wherever a folder shown would hold them (the run's results folder)."""

    spec: str = ""
    command: tuple[str, ...] = ()
    cwd: str = ""
    sandboxed: bool = True
    limits: Limits = DEFAULT_LIMITS
    extra: tuple[str, ...] = field(default=())
    files: tuple[str, ...] = ()
    home: str = ""
    hidden: tuple[str, ...] = ()

    @property
    def is_program(self) -> bool:
        return not self.spec

    def launch(self) -> Launch:
        """How to start it (a sandbox is made anew at every start: a fresh user id as root)."""
        if self.is_program:
            if not self.sandboxed:
                return Launch(self.command, cwd=self.cwd or None)
            return wrap(self.command, self.files, self.limits, cwd=self.cwd, hidden=self.hidden)
        argv = host_argv(tied=not self.sandboxed, extra=self.module_paths())
        if not self.sandboxed:
            return Launch(tuple(argv))
        return wrap(argv, host_folders(self.spec, self.extra, self.home), self.limits,
                    env={"PYTHONDONTWRITEBYTECODE": "1"}, hidden=self.hidden)

    def module_paths(self) -> list[str]:
        """The folders a Python host imports the plug-in and the variants' modules from: the
        parent of each module file or package (inside a sandbox, each holds only what is shown)."""
        out: list[str] = []
        for home in (self.home, *self.extra):
            if home:
                parent = os.path.dirname(os.path.realpath(home))
                if parent not in out:
                    out.append(parent)
        return out

    def own_files(self) -> tuple[str, ...]:
        """The files and folders of this bot's own code that it is shown."""
        return self.files if self.is_program else tuple(p for p in (self.home,) if p)


def shown_of(shown: Sequence[str], private: Sequence[str]) -> tuple[str, str] | None:
    """The first (shown, private) pair where a path shown is, or holds, a private one (None:
    nothing private is shown)."""
    for s in shown:
        real = os.path.realpath(s)
        for p in private:
            other = os.path.realpath(p)
            if other == real or other.startswith(real.rstrip("/") + "/"):
                return s, p
    return None


def sandbox_on(trusted: bool) -> bool:
    """Whether an entry's bot runs sandboxed: untrusted, on Linux. A machine there that cannot
    make the sandbox (a cluster node without bubblewrap) fails to start the bot, never runs it
    unsandboxed; the lineup's check refuses it at load (:func:`.sandbox.require`)."""
    return not trusted and sys.platform.startswith("linux")


def host_folders(spec: str, extra: tuple[str, ...] = (), home: str = "") -> list[str]:
    """What a sandboxed Python host may read: the interpreter and its installed packages,
    cribsim's packages, the plug-in's own top-level module or package (``home``, else found
    without importing it), and ``extra``; nothing else of the machine's folders (no config, no
    results)."""
    paths = [sys.base_prefix, sys.prefix]
    paths += [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p)]
    for top in _OWN:
        own = module_home(top)
        if own is not None:
            paths.append(own)
    plugin = home or module_home(spec.partition(":")[0].split(".")[0])
    if plugin:
        paths.append(plugin)
    paths += list(extra)
    return paths


def module_home(top: str) -> str | None:
    """The file or package folder a top-level module is imported from, found by the import
    system's finders (sys.path and import hooks) without running any of its code (None: not
    found, or a namespace package)."""
    if not top.isidentifier():
        return None
    importlib.invalidate_caches()  # a module written since the last look (a test's, a new bot's)
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if found is None or found.origin in (None, "namespace", "built-in", "frozen"):
        return None
    path = Path(found.origin)
    return str(path.parent if path.name == "__init__.py" else path)
