"""The error types users see: each is a single line on stderr (``cribsim: ...``), no traceback.

Exit codes: 2 for bad input (a config, an argument, a results folder that cannot be used), 1 for a
run that started and failed (a bug, a full disk, Ray going away), 130 for an interrupted run."""

from __future__ import annotations

import re
from os import PathLike

from .escape import terminal_text


class CribsimError(Exception):
    """A user-facing error. ``str(err)`` is the whole one-line message."""

    exit_code = 2


class ConfigError(CribsimError):
    """A bad config: names the file, the key and what was expected."""

    def __init__(self, source: str | PathLike[str], key: str | None, expected: str) -> None:
        self.source, self.key, self.expected = source, key, expected
        where = f"{source}: " if source else ""
        keypart = f"key '{key}': " if key else ""
        super().__init__(f"{where}{keypart}{expected}")


class RunFailed(CribsimError):
    """A run that started and could not finish (exit code 1); what was written is kept."""

    exit_code = 1


class Interrupted(CribsimError):
    """A run stopped by Ctrl-C (exit code 130); every finished match is kept."""

    exit_code = 130


class EndlessGame(CribsimError):
    """A game that did not end within the engine's bound on its deals or hands: its rules leave
    too few points to reach the target (S-DATA-7 refuses the blocks in which none can end; a
    block that scores very rarely may still play this long)."""

    def __init__(self, rules_name: str, most: int, unit: str) -> None:
        super().__init__(f"cribsim: a game of {rules_name} did not end within {most:,} {unit}: its rules leave too "
                         "few points to reach the target; raise some point values or lower the target")


class IllegalMove(CribsimError):
    """A strategy returned a move the rules do not allow."""

    def __init__(self, message: str, seat: int = -1) -> None:
        super().__init__(message)
        self.seat = seat


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def without_addresses(text: str) -> str:
    """``text`` without the memory addresses of Python's default reprs (``<Foo object at
    0x7f...>`` becomes ``<Foo object>``): a message that goes into results is the same in
    every run."""
    return _ADDRESS.sub("", text)


def one_line(text: object, limit: int = 300) -> str:
    """The first line of ``text``, shortened, without memory addresses, its control characters
    shown as escapes (:func:`~cribsim.escape.terminal_text`): error messages from elsewhere (Ray,
    the OS, a bot) must not break the one-line rule, act on the terminal, nor make a results
    file differ between runs."""
    lines = [ln.strip() for ln in without_addresses(str(text)).splitlines() if ln.strip()]
    first = terminal_text(lines[0] if lines else "")
    return first if len(first) <= limit else first[:limit - 3] + "..."


def describe(exc: BaseException, limit: int = 300) -> str:
    """``Type: first line of the message`` for an exception from code we do not control."""
    msg = one_line(exc, limit)
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
