"""The Python host: one ``module:Class`` plug-in strategy in a process of its own, speaking the
player protocol (:mod:`cribsim.isolation.protocol`) on its standard input and output.

The engine starts it with :data:`BOOT` (the parent's ``sys.path`` first, so it imports the same
cribsim, games and plug-in modules). The host is the only code that imports the plug-in: it
checks the class with the loader's own checks (:func:`cribsim.strategy.factory`: the spec, the
import, the decisions the rule sets need, the parameters against ``params`` or the constructor),
reports what the class can do, makes a fresh instance per match, seeds its ``self.rng`` per game
as the engine would in-process, and answers each decision by calling the method on a real
Observation rebuilt from the message. Nothing of the engine is in this process:
a strategy that walks its caller's frames or the garbage collector finds only this host.

The protocol's file descriptors are private: standard input reads /dev/null and standard output
goes to standard error, so a plug-in that prints cannot break the protocol. The host ignores
Ctrl-C (the run decides when to stop) and, on Linux, is killed when its parent dies."""

from __future__ import annotations

import ctypes
import json
import os
import random
import signal
import sys
from typing import Any

from ..errors import CribsimError, without_addresses
from ..game import Rules
from ..games import default_name, game_named
from ..params import declared_params, params_to_json
from ..ruleset import rules_from_dict
from ..strategy import answer_fn, answers, factory, resolve
from .protocol import MAX_LINE, PROTOCOL, decode, encode, plain, tuples

# how the engine starts a host: ``python -c BOOT PATHS PARENT_PID``
BOOT = ("import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
        "from cribsim.isolation.host import main; main(int(sys.argv[2]))")


def new_observation(game: str, rules: Rules, d: dict[str, Any]) -> Any:
    """A fresh observation of ``game`` for the seat ``d`` describes (its fields set by the caller)."""
    side_of = tuples(d.get("side_of")) if d.get("side_of") is not None else None
    return game_named(game).observation(rules, d["seat"], d["side"], side_of)


def _fields(obs: Any) -> frozenset[str]:
    cls = type(obs)
    names = cls.fields() if hasattr(cls, "fields") else cls.__slots__
    return frozenset(names) - {"rules"}


class Host:
    """The state of one host: the plug-in's loader, the current match's instance and rules."""

    def __init__(self) -> None:
        self.spec: str | None = None
        self.game = ""
        self.makers: dict[str, Any] = {}  # params (as JSON) -> make(rng)
        self.decisions: frozenset[str] = frozenset()
        self.rules_cache: dict[str, Rules] = {}
        self.inst: Any = None
        self.rules: Rules | None = None
        self.obs: Any = None
        self.obs_fields: frozenset[str] = frozenset()

    # ---- requests ---------------------------------------------------------------------------
    def handle(self, msg: Any) -> dict[str, Any]:
        if not isinstance(msg, dict):
            return _error("a request is a JSON object")
        kind = msg.get("kind")
        if kind == "hello":
            return self.hello(msg)
        if self.spec is None:
            return _error("the first request must be hello")
        if kind == "decide":
            return self.decide(msg)
        if kind == "seed":
            if self.inst is None:
                return _error("seed before match")
            self.inst.rng.seed(msg["seed"])
            self.obs = None  # a new game: a new observation, as in-process
            return {"kind": "ok"}
        if kind == "match":
            return self.match(msg)
        if kind == "result":
            self.inst = self.obs = None
            return {"kind": "ok"}
        return _error(f"unknown request kind {kind!r}")

    def hello(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg.get("protocol") != PROTOCOL:
            return _error(f"protocol {msg.get('protocol')!r} is not {PROTOCOL}")
        spec, game, params = msg["strategy"], msg.get("game") or default_name(), msg.get("params") or {}
        try:
            rules = [self.rules_of(r) for r in msg.get("rules", ())]
            make = factory(spec, params, rules=rules, game=game)
        except CribsimError as e:
            return _error(str(e).removeprefix("cribsim: "))
        cls = resolve(spec, game)
        self.spec, self.game = spec, game
        self.decisions = frozenset(d for d in game_named(game).decisions() if answers(cls, d))
        self.makers[_key(params)] = make
        return {"kind": "capabilities", "protocol": PROTOCOL, "name": str(getattr(cls, "name", cls.__name__)),
                "decisions": sorted(self.decisions),
                "understands": sorted(str(u) for u in getattr(cls, "understands", ())),
                "parameters": params_to_json(declared_params(cls))}

    def match(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.inst = self.obs = None
        self.rules = self.rules_of(msg["rules"])
        params = msg.get("params") or {}
        make = self.makers.get(_key(params))
        if make is None:
            make = self.makers[_key(params)] = factory(self.spec, params, game=self.game)
        self.inst = make(random.Random())
        return {"kind": "ok"}

    def decide(self, msg: dict[str, Any]) -> dict[str, Any]:
        name = msg.get("decision")
        if self.inst is None or self.rules is None:
            return _error("decide before match")
        if name not in self.decisions:
            return _error(f"{self.spec} does not make the decision {name!r}")
        d = msg["obs"]
        obs = self.obs
        if obs is None:
            obs = self.obs = new_observation(self.game, self.rules, d)
            self.obs_fields = _fields(obs)
        fields = self.obs_fields
        for k, v in d.items():
            if k in fields:
                setattr(obs, k, tuples(v) if type(v) is list else v)
        fn = answer_fn(self.inst, name)
        assert fn is not None  # (``name`` is one of self.decisions)
        answer = fn(obs)
        try:
            return {"kind": "reply", "answer": plain(answer)}
        except TypeError as e:
            return {"kind": "error", "illegal": True, "message": f"answered {name} with {e}"}

    def rules_of(self, d: dict[str, Any]) -> Rules:
        key = _key(d)
        r = self.rules_cache.get(key)
        if r is None:
            if len(self.rules_cache) > 1000:
                self.rules_cache.clear()
            r = self.rules_cache[key] = rules_from_dict(d, "<protocol>")
        return r


def _key(d: Any) -> str:
    return json.dumps(d, sort_keys=True)


def _error(message: str) -> dict[str, Any]:
    return {"kind": "error", "message": message}


def _failure(e: BaseException) -> str:
    """``Type: message``, as the tournament writes an in-process strategy's exception."""
    if isinstance(e, SystemExit):
        return f"SystemExit: it called sys.exit({e.code!r})"[:1000]
    try:
        text = str(e)
    except BaseException:
        text = "<unprintable>"
    return without_addresses(f"{type(e).__name__}: {text}")[:1000]


def _private_fds() -> tuple[int, int]:
    """The protocol's own descriptors; 0 then reads /dev/null and 1 writes to standard error."""
    inp, out = os.dup(0), os.dup(1)  # not inheritable (PEP 446)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return inp, out


def _tie_to_parent(parent: int) -> None:
    """Ignore Ctrl-C; die with the parent (Linux: PR_SET_PDEATHSIG), also if it is gone already."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent and os.getppid() != parent:  # 0: in a sandbox (another PID namespace; it ends the host)
        os._exit(0)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def main(parent: int) -> None:
    _tie_to_parent(parent)
    inp, out = _private_fds()
    reader = os.fdopen(inp, "rb")
    host = Host()
    while True:
        line = reader.readline(MAX_LINE)
        if not line:
            os._exit(0)  # the engine is done (also: no atexit of the plug-in's runs)
        msg: Any = None
        try:
            msg = decode(line)
            reply = host.handle(msg)
        except BaseException as e:  # the plug-in's own failure, whatever it is: a reply, not an exit
            reply = _error(_failure(e))
        reply = {"id": msg.get("id") if isinstance(msg, dict) else None, **reply}  # the request's id
        try:
            data = encode(reply)
        except (TypeError, ValueError) as e:
            data = encode({"id": reply["id"], **_error(_failure(e))})
        try:
            _write(out, data)
        except OSError:
            os._exit(0)  # the engine is gone


if __name__ == "__main__":  # pragma: no cover - started through BOOT
    main(os.getppid())
    sys.exit(0)
