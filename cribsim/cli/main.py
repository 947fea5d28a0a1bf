"""The ``cribsim`` command: its parser (each command is a module of this package, and a game
adds its own) and its one error boundary (:func:`main`): every failure is one line on stderr
(``cribsim: ...``), exit code 2 for bad input, 1 for a run that failed, 130 for an interrupted
one; never a traceback (``CRIBSIM_DEBUG=1`` adds it, for bug reports)."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn, cast

from .. import __version__, owncode
from ..errors import CribsimError, describe, one_line
from ..games import all_builtin
from ..suggest import did_you_mean
from ..tournament.raycluster import RAY_LOG
from . import catalog, play, records, run, study
from .run import FINISHED_MARK, SUPERVISED


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, with a near miss named
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        hint = did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2))) if m else ""
        raise CribsimError(f"{self.prog}: {message}{hint} (see --help)")


def build_parser() -> _Parser:
    p = _Parser(prog="cribsim", description="Tournament simulator and rules-variant testbed (cribsim list shows "
                                            "the games, rule sets and strategies).")
    lanes = "".join(f"; {game.name}'s {said}" for game in all_builtin() if (said := game.lane_status()))
    p.add_argument("--version", action="version",
                   version=f"cribsim {__version__} (pure Python{lanes})")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for game in all_builtin():  # a game's own commands first (cribbage: score, peg)
        if game.commands is not None:
            importlib.import_module(game.commands).add_commands(sub)
    for module in (play, run, records, study, catalog):
        module.add_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The error boundary: whatever fails, one line on stderr and an exit code (told to a
    supervising ``cribsim run``, :func:`_finished`)."""
    try:
        code = _main(argv)
    except BaseException:  # (past the boundary: its traceback stays in sight)
        _finished(1, after_to_log=False)
        raise
    _finished(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    # (no folder is put on the module path: a module:Class named anywhere is found beside its config
    # or in the working directory by cribsim.codepath, which makes that module alone importable)
    try:
        parser = build_parser()  # inside: a game that cannot be imported is one line too
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return cast("int", args.func(args))
    except CribsimError as e:
        msg = str(e)
        _say(msg if msg.startswith("cribsim") else f"cribsim: {msg}")
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        _say("cribsim: interrupted")
        return 130
    except MemoryError:
        _say("cribsim: out of memory")
        return 1
    except RecursionError:
        _say("cribsim: a structure nested too deep (RecursionError)")
        return 1
    except OSError as e:
        where = f": {e.filename}" if getattr(e, "filename", None) else ""
        _say(f"cribsim: {e.strerror or describe(e)}{where}")
        return 1
    except Exception as e:  # code of one's own that raised, or a bug: one line, the traceback with CRIBSIM_DEBUG=1
        place = owncode.where(e)
        _say(f"cribsim: {place.say(e)}" if place is not None else
             f"cribsim: internal error: {describe(e, 300)} (set CRIBSIM_DEBUG=1 for the traceback)")
        return 1


def _finished(code: int, after_to_log: bool = True) -> None:
    """Tell a supervising ``cribsim run`` (see ``run._supervise``) that this process ended on its
    own, and its exit code (a byte on the pipe): the run is over and has said what it had to.
    What is written to standard error after this (Ray's core ending the process at exit when the
    cluster went away as the run finished, an exit handler's traceback) goes to the supervisor's
    Ray log after :data:`FINISHED_MARK`, which the supervisor names in a note, exiting with this
    code, not the process's. ``after_to_log`` False (an exception past the boundary): standard
    error stays the terminal's."""
    fd = os.environ.pop(SUPERVISED, None)
    if fd is None:
        return
    try:
        os.write(int(fd), bytes([code & 0xFF]))
        os.close(int(fd))
    except (OSError, ValueError):
        return
    log = os.environ.get(RAY_LOG)
    if not log or not after_to_log:
        return
    try:
        sys.stderr.flush()
        with open(log, "a", encoding="utf-8") as f:
            f.write(FINISHED_MARK)
            f.flush()
            os.dup2(f.fileno(), 2)
    except (OSError, ValueError):
        pass


def _say(msg: object) -> None:
    """One line on stderr, whatever the message holds (newlines, control characters, a huge
    key from a config); with CRIBSIM_DEBUG=1 the traceback comes first."""
    if os.environ.get("CRIBSIM_DEBUG") and sys.exc_info()[0] is not None:
        traceback.print_exc()
    line = one_line(" ".join(str(msg).split("\n")), 1000)
    try:
        print(line, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass

