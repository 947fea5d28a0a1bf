"""Hostile plug-ins for tests/kernel/test_sandbox.py: what a bot author bent on cheating or harm
would try from inside a decision. Each plays like ``greedy`` otherwise."""

import json
import os
import signal
import socket
import subprocess
import time
from itertools import combinations

from cribsim.games.cribbage.book import addressed_deck, deal_positions
from cribsim.games.cribbage.scoring import show_points
from cribsim.rng import STRATEGY, derive
from strategies.greedy import GreedyStrategy


class Honest(GreedyStrategy):
    """``greedy`` as a plug-in: the control."""

    name = "honest"


class DeckReader(GreedyStrategy):
    """Knows the run's seed (public, or read from the config) and re-derives every deck: it finds
    its match from the per-game seed it is given, reads the starter, and keeps the four cards
    that score most with it."""

    name = "deck_reader"

    def __init__(self, rng, seed=0, tables=1, groups=400):
        super().__init__(rng)
        self.run_seed, self.tables, self.groups = seed, tables, groups
        self.address = None
        self.rng = _Spy(self)

    def found(self, value):
        keys = (derive(self.run_seed, t, g) >> 1 for t in range(self.tables) for g in range(self.groups))
        for key in keys:
            for game in range(3):
                for seat in range(2):
                    if derive(self.run_seed, key, game, STRATEGY, seat) == value:
                        self.address = (key, game)
                        return
        self.address = None

    def discard(self, obs):
        if self.address is None:
            return super().discard(obs)
        deck = addressed_deck(obs.rules, self.run_seed, self.address, obs.deal_no)
        starter = deck[deal_positions(obs.rules, obs.dealer)[2]]
        keep = len(obs.hand) - obs.discards
        best = max(combinations(obs.hand, keep), key=lambda kept: show_points(kept, starter))
        return tuple(c for c in obs.hand if c not in best)


class _Spy:
    """A generator that watches the seed the engine gives it."""

    def __init__(self, owner):
        self.owner = owner

    def seed(self, value):
        self.owner.found(value)

    def __getattr__(self, name):
        import random

        return getattr(random.Random(0), name)


def findings(engine_pid=0, folder="", port=0):
    """What a bot can reach from where it runs, as a dict of booleans and counts."""
    seen = {}
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    seen["processes_visible"] = len(pids)
    seen["engine_visible"] = engine_pid in pids and os.path.exists(f"/proc/{engine_pid}/cmdline")
    try:
        with open(f"/proc/{engine_pid}/environ", "rb") as f:
            seen["engine_memory_read"] = bool(f.read(1))
    except OSError:
        seen["engine_memory_read"] = False
    seen["config_read"] = bool(folder) and os.path.exists(os.path.join(folder, "exp.yaml"))
    try:
        with open(os.path.join(folder or "/", "escaped.txt"), "w") as f:
            f.write("out")
        seen["wrote_outside"] = True
    except OSError:
        seen["wrote_outside"] = False
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        seen["network"] = True
    except OSError:
        seen["network"] = False
    killed = 0
    for pid in pids:
        if pid not in (os.getpid(), 1):
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    seen["others_killed"] = killed
    return seen


class Spy(GreedyStrategy):
    """On its first play, looks around (the engine's /proc, the config, a write outside its
    folder, the network, killing every process it sees) and reports it as its failure."""

    name = "spy"

    def __init__(self, rng, engine_pid=0, folder="", port=0):
        super().__init__(rng)
        self.args = (engine_pid, folder, port)

    def play(self, obs):
        raise RuntimeError("findings " + json.dumps(findings(*self.args), sort_keys=True))


class Killer(GreedyStrategy):
    """Kills every process it can see (the other bot, the engine) at each play, then plays on."""

    name = "killer"

    def play(self, obs):
        for p in os.listdir("/proc"):
            if p.isdigit() and int(p) not in (os.getpid(), 1):
                try:
                    os.kill(int(p), signal.SIGKILL)
                except OSError:
                    pass
        return super().play(obs)


class KillAll(GreedyStrategy):
    """Signals every process it may (``kill(-1)``) from a child, then plays on (if it still can)."""

    name = "kill_all"

    def play(self, obs):
        try:
            if os.fork() == 0:
                try:
                    os.kill(-1, signal.SIGKILL)
                finally:
                    os._exit(0)
        except OSError:
            pass
        return super().play(obs)


class Spawner(GreedyStrategy):
    """Starts children that leave its session (setsid) and a fork bomb, then plays on."""

    name = "spawner"
    MARK = "987.654"

    def discard(self, obs):
        for _ in range(3):
            try:
                subprocess.Popen(["sleep", self.MARK], start_new_session=True)
            except OSError:
                pass
        forks = 0
        for _ in range(10_000):
            try:
                if os.fork() == 0:
                    time.sleep(1000)
                    os._exit(0)
                forks += 1
            except OSError:
                break
        return super().discard(obs)


class MemoryBomb(GreedyStrategy):
    """Allocates without end on its first play."""

    name = "memory_bomb"

    def play(self, obs):
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
