"""How a bot's process is started: a Python plug-in's host or a program of any language, each in
the sandbox (:mod:`.sandbox`) unless its lineup entry is trusted."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .link import host_argv
from .sandbox import DEFAULT_LIMITS, Limits, wrap

# cribsim's own top-level packages: a Python host imports them (the built-in strategies too)
_OWN = ("cribsim", "strategies")


@dataclass(frozen=True)
class Bot:
    """One lineup entry's player process. ``spec`` is a Python plug-in's ``module:Class`` (its
    host is started), else ``command`` is a program's argument list, started in ``cwd``.
    ``sandboxed``: run in the sandbox (every untrusted bot; it is false for trusted entries and
    where the platform has no sandbox). ``extra``: more folders a Python host must read (a game's
    or a variant's modules from outside the package)."""

    spec: str = ""
    command: tuple[str, ...] = ()
    cwd: str = ""
    sandboxed: bool = True
    limits: Limits = DEFAULT_LIMITS
    extra: tuple[str, ...] = field(default=())

    @property
    def is_program(self) -> bool:
        return not self.spec

    def argv(self) -> list[str]:
        """The command line that starts it."""
        if self.is_program:
            argv = list(self.command)
            if not self.sandboxed:
                return argv
            return wrap(argv, [self.cwd], self.limits, cwd=self.cwd)
        argv = host_argv(tied=not self.sandboxed)
        if not self.sandboxed:
            return argv
        return wrap(argv, host_folders(self.spec, self.extra), self.limits, env={"PYTHONDONTWRITEBYTECODE": "1"})

    def popen_cwd(self) -> str | None:
        """The working folder to start the process in (a sandbox sets its own)."""
        return self.cwd if self.is_program and not self.sandboxed and self.cwd else None


def sandbox_on(trusted: bool) -> bool:
    """Whether an entry's bot runs sandboxed: untrusted, on Linux. A machine there that cannot
    make the sandbox (a cluster node without bubblewrap) fails to start the bot, never runs it
    unsandboxed; the lineup's check refuses it at load (:func:`.sandbox.require`)."""
    return not trusted and sys.platform.startswith("linux")


def host_folders(spec: str, extra: tuple[str, ...] = ()) -> list[str]:
    """What a sandboxed Python host may read: the interpreter and its installed packages,
    cribsim's packages, the plug-in's own top-level module or package (found without importing
    it), and ``extra``; nothing else of the machine's folders (no config, no results)."""
    paths = [sys.base_prefix, sys.prefix]
    paths += [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p)]
    for top in (*_OWN, spec.partition(":")[0].split(".")[0]):
        home = module_home(top)
        if home is not None:
            paths.append(home)
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
