"""Errors in code of one's own: a variant, a game or a trusted strategy that is not cribsim's
raised, and the line that says so names that code, not cribsim.

Code of one's own is *marked* when cribsim loads it (:func:`mark`: its module, and what it is,
``variant crib_triple``), and a function of it may be given its role (``after_count``, the hook
it fills). :func:`where` finds, in an exception's traceback, the innermost frame of a marked
module: ``crib3.py, line 20, in after_count (variant crib_triple)``, with the role cribsim called
it in when its function has another name (``in third (variant crib_triple, its after_count
hook)``). An exception of cribsim's own code (no marked frame) stays a bug: ``internal error``."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import CodeType, TracebackType
from typing import Any

from .errors import CribsimError, describe

OURS = frozenset({"cribsim", "strategies"})  # cribsim's own packages: never code of one's own

_MODULES: dict[str, list[str]] = {}  # module name -> what it holds ("variant crib_triple")
_ROLES: dict[CodeType, tuple[str, str]] = {}  # a function's code -> (whose, the role cribsim calls it in)


class OwnCodeError(CribsimError):
    """Code of one's own raised (its message: :meth:`Place.say`); exit code 1. A run it stops
    fails the same way when resumed, until the code is fixed."""

    exit_code = 1


@dataclass(frozen=True)
class Place:
    """Where code of one's own raised: its file's name, the line, the function, whose code it
    is (``variant crib_triple``) and the role cribsim called it in (``after_count hook``: a
    variant's function, "" for other code)."""

    file: str
    line: int
    function: str
    whose: str
    role: str = ""

    def say(self, exc: BaseException, match: str = "") -> str:
        """The one line: ``crib3.py, line 20, in after_count (variant crib_triple): ZeroDivisionError: ...``."""
        role = f", its {self.role}" if self.role and self.role.split()[0] != self.function else ""
        at = f" (in match {match})" if match else ""
        return f"{self.file}, line {self.line}, in {self.function} ({self.whose}{role}): {describe(exc, 200)}{at}"


def ours(module: str) -> bool:
    """Whether ``module`` is cribsim's own (its package, its built-in strategies)."""
    return module.split(".")[0] in OURS


def mark(module: str, whose: str, roles: Mapping[str, Callable[..., Any] | None] | None = None) -> None:
    """Remember ``module`` as code of one's own holding ``whose`` (``variant crib_triple``), and
    the roles its functions play (``{"after_count hook": fn}``). cribsim's own is never marked."""
    if ours(module):
        return
    held = _MODULES.setdefault(module, [])
    if whose not in held:
        held.append(whose)
    for role, fn in (roles or {}).items():
        fn = getattr(fn, "__func__", fn)
        code = getattr(fn, "__code__", None)
        if isinstance(code, CodeType) and not ours(str(getattr(fn, "__module__", "") or "")):
            _ROLES[code] = (whose, role)


def _held(module: str) -> str:
    """Whose code ``module`` holds ("": not code of one's own): what was marked in it, or in a
    package it is part of; a game's package is the game's (its strategies are part of it: a
    game marked as ``mygame.game`` holds ``mygame.strategies``)."""
    held = []
    for name, whose in _MODULES.items():
        for w in whose:
            scope = (name.rpartition(".")[0] or name) if w.startswith("game ") else name
            if module in (name, scope) or module.startswith(scope + "."):
                held.append(w)
    games = [w for w in held if w.startswith("game ")]
    return ", ".join(games or held)


def where(exc: BaseException) -> Place | None:
    """The innermost frame of code of one's own in ``exc``'s traceback, named by the function
    cribsim called it through (None: none is there, or it is one of cribsim's own errors,
    which say what they mean)."""
    if isinstance(exc, CribsimError):
        return None
    found: Place | None = None
    entry: tuple[str, str] | None = None
    inside = False
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        frame, line = tb.tb_frame, tb.tb_lineno
        whose = _held(str(frame.f_globals.get("__name__", "")))
        if whose and not inside:  # cribsim called into it here: whose function, in which role
            entry = _ROLES.get(frame.f_code)
        if whose:
            found = Place(os.path.basename(frame.f_code.co_filename), line, frame.f_code.co_name,
                          *(entry or (whose, "")))
        inside = bool(whose)
        tb = tb.tb_next
    return found
