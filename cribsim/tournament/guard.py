"""Fault isolation for strategies: exceptions, illegal moves and hangs become forfeits.

A :class:`Guard` wraps each strategy. It stamps the start of every decision into a shared
``clock``; a SIGALRM tick armed once per batch (every quarter of the time limit) raises
:class:`DecisionTimeout` inside a decision that has run past the limit. Arming a timer per
decision would cost about 30% of the engine's speed; the tick costs nothing measurable, at the
price of enforcing the limit to within a quarter of it."""

import signal
import threading
import time

_now = time.perf_counter


class StrategyFailure(Exception):
    def __init__(self, seat, kind, error):
        super().__init__(f"{kind}: {error}")
        self.seat, self.kind, self.error = seat, kind, error


class DecisionTimeout(Exception):
    pass


class Guard:
    """Delegates to a strategy, stamping each decision and wrapping its exceptions."""

    __slots__ = ("inner", "seat", "clock", "rng", "_discard", "_play")

    def __init__(self, inner, seat, clock):
        self.inner, self.seat, self.clock = inner, seat, clock
        self.rng = inner.rng
        self._discard, self._play = inner.discard, inner.play

    def discard(self, obs):
        clock = self.clock
        clock[0], clock[1] = _now(), self.seat
        try:
            choice = self._discard(obs)
        except DecisionTimeout:
            raise
        except Exception as e:
            raise StrategyFailure(self.seat, "error", f"{type(e).__name__}: {e}") from None
        clock[1] = -1
        return choice

    def play(self, obs):
        clock = self.clock
        clock[0], clock[1] = _now(), self.seat
        try:
            card = self._play(obs)
        except DecisionTimeout:
            raise
        except Exception as e:
            raise StrategyFailure(self.seat, "error", f"{type(e).__name__}: {e}") from None
        clock[1] = -1
        return card


class Watchdog:
    """Context manager: a periodic SIGALRM that times out over-long decisions (main thread
    only; elsewhere it does nothing and hangs are not caught)."""

    def __init__(self, limit):
        self.limit = limit
        self.clock = [0.0, -1]
        self.active = False

    def _tick(self, signum, frame):
        if self.clock[1] >= 0 and _now() - self.clock[0] > self.limit:
            seat = self.clock[1]
            self.clock[1] = -1
            raise DecisionTimeout(seat)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            self.old = signal.signal(signal.SIGALRM, self._tick)
            period = min(max(self.limit / 4, 0.01), 1.0)
            signal.setitimer(signal.ITIMER_REAL, period, period)
            self.active = True
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        self.clock[1] = -1
        return False
