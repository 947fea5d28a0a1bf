"""A sandboxed bot's processes as one group: stopped between its turns, measured as a whole.

The engine starts bubblewrap (the bot's *outer* process, in a session of its own); bubblewrap's
one child starts a session and process group of its own (``--new-session``) in the bot's PID
namespace, and every process the bot makes stays in that group (the sandbox's system-call filter
refuses ``setsid`` and ``setpgid``: :mod:`.seccomp`). So:

- :meth:`Group.stop` and :meth:`Group.resume` are one ``killpg`` each (``SIGSTOP``, ``SIGCONT``):
  a bot computes only while the engine waits for its reply, never between its turns;
- :meth:`Group.resident_mb` is the resident memory of every process of the bot, found by walking
  the process tree down from the outer process (``/proc/PID/task/TID/children``): every process
  of a PID namespace descends from its first process, orphans included.

The group is orphaned from its start (its members' parents are in it or in another session), so
the kernel never sends it SIGHUP and SIGCONT when one of its members exits while the others are
stopped."""

from __future__ import annotations

import os
import signal

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / (1 << 20) if hasattr(os, "sysconf") else 4096 / (1 << 20)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (those of every thread); [] if it is gone."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out += [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            pass
    return out


def tree(root: int) -> list[int]:
    """``root`` and every process below it."""
    seen, todo = [], [root]
    while todo:
        pid = todo.pop()
        seen.append(pid)
        todo += children(pid)
    return seen


def resident_pages(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            pass
    return total


class Group:
    """The processes of one sandboxed bot, below its outer process ``outer``."""

    def __init__(self, outer: int) -> None:
        self.outer = outer
        self.leader = 0  # the bot's group (its first process in the sandbox), once it exists
        self.stopped = False

    def _leader(self) -> int:
        if not self.leader:
            first = children(self.outer)
            if first:
                self.leader = first[0]
        return self.leader

    def stop(self) -> None:
        """Stop every process of the bot (until :meth:`resume`)."""
        leader = self._leader()
        if leader:
            try:
                os.killpg(leader, signal.SIGSTOP)
                self.stopped = True
            except OSError:
                pass

    def resume(self) -> None:
        if self.stopped:
            self.stopped = False
            try:
                os.killpg(self.leader, signal.SIGCONT)
            except OSError:
                pass

    def resident_mb(self) -> float:
        """The resident memory of all the bot's processes, in MiB (bubblewrap's own included: a
        few hundred KiB)."""
        return resident_pages(tree(self.outer)) * _PAGE_MB

    def processes(self) -> int:
        return max(0, len(tree(self.outer)) - 1)
