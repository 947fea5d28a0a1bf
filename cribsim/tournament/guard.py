"""Fault isolation for strategies in the engine's process: blame, hangs, and the time limit.

The batch registers each match's strategy instances with a :class:`Watchdog`; then
* an exception whose traceback passes through a method of a registered strategy is that
  strategy's fault (an exception raised only in engine code is a bug and is not hidden);
* every decision is timed by the clock a bot's decisions are timed by (the monotonic clock,
  from the call to its answer): a decision that took longer than the time limit is charged
  as a timeout when it returns, whatever its strategy (a built-in, a trusted plug-in), as a
  sandboxed bot's reply after its deadline is. The decision methods of each instance are
  wrapped when it is registered (two clock reads a decision);
* a hang that never returns is interrupted: a SIGALRM tick, armed once per batch and firing
  every quarter of the time limit, walks the interrupted stack: if the same strategy call
  frame is still running a time limit after it was first seen, it raises
  :class:`DecisionTimeout` inside it (within 1 to 1.25 limits of its start).
Strategies that answer through the player protocol are timed by their link (its deadline),
not wrapped (``timed_by_link``)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any, Literal, TypeVar

_now = time.monotonic  # the clock a bot's deadline is kept by (cribsim.isolation.link)

_S = TypeVar("_S")


class DecisionTimeout(Exception):
    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


def _owner(frame: FrameType, owners: dict[int, int]) -> int | None:
    """The registered strategy whose method this frame runs, or None."""
    s = frame.f_locals.get("self")
    return owners.get(id(s)) if s is not None else None


def _timed(method: Callable[..., Any], seat: int, limit: float) -> Callable[..., Any]:
    """``method`` charged with a timeout when a call of it returns after more than ``limit``
    (a decision method takes the observation; ``decide`` takes the decision's name first)."""
    def decide(*args: Any) -> Any:
        began = _now()
        answer = method(*args)
        if _now() - began > limit:
            raise DecisionTimeout(seat)
        return answer
    return decide


class Watchdog:
    """Context manager for one batch: register strategies with ``track``; call ``blame`` on an
    exception; hangs raise DecisionTimeout (main thread only: elsewhere hangs are not caught)."""

    def __init__(self, limit: float, decisions: Iterable[str] = ()) -> None:
        self.limit = limit
        self.decisions = tuple(sorted(decisions))  # the names of the methods timed
        self.owners: dict[int, int] = {}  # id(strategy) -> seat
        self.keep: list[Any] = []  # the instances, so their ids stay theirs
        self.frame: FrameType | None = None
        self.since = 0.0
        self.active = False

    def track(self, strategy: _S, seat: int) -> _S:
        self.owners[id(strategy)] = seat
        self.keep.append(strategy)
        if not getattr(type(strategy), "timed_by_link", False):
            for name in self.decisions + (("decide",) if getattr(strategy, "decides_any", False) else ()):
                method = getattr(strategy, name, None)
                if callable(method):
                    try:
                        setattr(strategy, name, _timed(method, seat, self.limit))
                    except AttributeError:  # (an instance without a __dict__: caught as a hang only)
                        break
        return strategy

    def reset(self) -> None:
        self.owners.clear()
        self.keep.clear()
        self.frame = None

    def blame(self, exc: BaseException) -> int | None:
        """The seat whose strategy code the exception came through, or None."""
        tb = exc.__traceback__
        seat = None
        while tb is not None:
            who = _owner(tb.tb_frame, self.owners)
            if who is not None:
                seat = who
                break
            tb = tb.tb_next
        return seat

    def _tick(self, signum: int, frame: FrameType | None) -> None:
        outer = None
        f = frame
        while f is not None:
            if _owner(f, self.owners) is not None:
                outer = f  # keep walking: the outermost strategy frame is the decision
            f = f.f_back
        if outer is None:
            self.frame = None
            return
        if outer is not self.frame:
            self.frame, self.since = outer, _now()
            return
        if _now() - self.since >= self.limit:
            seat = self.owners[id(outer.f_locals["self"])]
            self.frame = None
            raise DecisionTimeout(seat)

    def __enter__(self) -> Watchdog:
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            self.old = signal.signal(signal.SIGALRM, self._tick)
            period = min(max(self.limit / 4, 0.01), 1.0)
            signal.setitimer(signal.ITIMER_REAL, period, period)
            self.active = True
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        self.reset()
        return False
