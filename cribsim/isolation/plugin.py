"""Plug-in strategies in the engine's process: a stand-in (proxy) per seat, and the checks at load.

The parent never imports a plug-in's module. :func:`check` asks a host process to load and
check it (the loader's own checks run there) and returns its capabilities; :class:`Isolated`
makes, for one lineup entry, a proxy per seat and match whose decision methods are exactly those
the plug-in implements (so a variant's default answers the rest, as in-process), whose ``rng``
forwards ``seed`` to the host, and whose decisions are requests with the experiment's time limit.
One host per seat, started on first use and again after a fault, serves every match of this
process. A fault raises :class:`PluginFault` (timeout, crash, error) or ``IllegalMove``, charged
to the seat."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import Any

from ..errors import CribsimError, IllegalMove, without_addresses
from ..game import Observation, Rules
from ..strategy import builtins, missing_for, resolve
from .bots import Bot, sandbox_on
from .link import Died, Garbled, Late, Link, Stale
from .protocol import PROTOCOL, shown, tuples, well_formed
from .sandbox import DEFAULT_LIMITS

RETIRE_AFTER = 3  # starts in a row that fail, after which an entry's bot is retired from the run
_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


class PluginFault(Exception):
    """A plug-in's fault in a match: ``kind`` is timeout, crash or error; ``message`` says what,
    the same in every run. ``stale``: a second reply to an earlier request."""

    def __init__(self, seat: int, kind: str, message: str, stale: bool = False) -> None:
        super().__init__(seat, kind, message)
        self.seat, self.kind, self.message, self.stale = seat, kind, message, stale

    def __str__(self) -> str:
        return self.message


def timeout_message(limit: float) -> str:
    """The forfeit message of a decision over the time limit (the same as the in-process guard's)."""
    return f"a decision took over {limit} s"


def is_plugin(spec: Any, game: str | None = None) -> bool:
    """Whether a lineup strategy is a plug-in: a ``module:Class`` that is not a built-in (neither
    a built-in's short name nor the class it names) of ``game`` (the default game)."""
    table = builtins(game)
    return isinstance(spec, str) and spec not in table and spec not in table.values()


def who(spec: str) -> str:
    """How messages name a bot: a plug-in's spec, or a program's lineup name."""
    return f"bot {spec.removeprefix('program:')!r}" if spec.startswith("program:") else f"strategy {spec!r}"


def new_link(bot: Bot) -> Link:
    return Link(bot.launch)


def python_bot(spec: str, trusted: bool = False) -> Bot:
    """A Python plug-in's host, sandboxed unless trusted (or where the platform has none)."""
    return Bot(spec=spec, sandboxed=sandbox_on(trusted))


def hello(link: Link, spec: str, params: dict[str, Any], rules: Sequence[Rules], game: str,
          limit: float = DEFAULT_LIMITS.hello_limit) -> dict[str, Any]:
    """Start the player (if it is not running) and load the plug-in: its capabilities, or a
    CribsimError with the loader's one-line message. ``spec`` is a plug-in's ``module:Class``,
    or ``program:NAME`` for a program (sent as its lineup name)."""
    msg = {"kind": "hello", "protocol": PROTOCOL, "game": game, "strategy": spec.removeprefix("program:"),
           "params": params, "rules": [r.to_dict() for r in rules]}
    who_ = who(spec)
    try:
        reply = link.request(msg, limit)
    except Late:
        raise CribsimError(f"cribsim: {who_}: loading it took over {limit:g} s (the config's hello_limit)") from None
    except Died as e:
        raise CribsimError(f"cribsim: {who_}: {e} while loading it{last_words(link)}") from None
    except Garbled as e:
        raise CribsimError(f"cribsim: {who_}: {e} (the player protocol, see docs/protocol.md)") from None
    except OSError as e:  # the program or the interpreter could not be started
        raise CribsimError(f"cribsim: {who_}: cannot start its process ({e.strerror or e})") from None
    if reply.get("kind") == "error":
        link.close()
        message = str(reply.get("message"))[:1000]
        if spec.startswith("program:"):
            message = f"{who_}: {message}"
        raise CribsimError(f"cribsim: {message}")
    caps = _capabilities(reply)
    if caps is None:
        link.kill()
        raise CribsimError(f"cribsim: {who_}: its hello reply is not capabilities of protocol {PROTOCOL}")
    return caps


def last_words(link: Link) -> str:
    """The last line a player wrote on its standard error, for a message (escaped, cut short)."""
    lines = [ln for ln in link.take_errors().decode("utf-8", "replace").splitlines() if ln.strip()]
    if not lines:
        return ""
    return f"; its last words on standard error: {shown(lines[-1], 200)}"


def _capabilities(reply: dict[str, Any]) -> dict[str, Any] | None:
    if reply.get("kind") != "capabilities" or reply.get("protocol") != PROTOCOL:
        return None
    name, decisions, understands = reply.get("name"), reply.get("decisions"), reply.get("understands", [])
    if not isinstance(name, str) or not isinstance(decisions, list) or not isinstance(understands, list):
        return None
    if not all(isinstance(d, str) and d.isidentifier() and not d.startswith("_") for d in decisions):
        return None
    if not all(isinstance(u, str) for u in understands):
        return None
    caps: dict[str, Any] = {"name": name, "decisions": sorted(set(decisions)), "understands": sorted(set(understands))}
    parameters = reply.get("parameters")
    if parameters is not None:  # what it declares (for cribsim tune), if it says
        if not isinstance(parameters, list) or len(parameters) > 1000:
            return None
        caps["parameters"] = parameters
    for key in ("games", "variants"):  # what it plays, if it says (absent: anything its decisions allow)
        listed = reply.get(key)
        if listed is None:
            continue
        if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
            return None
        caps[key] = sorted(set(listed))
    return caps


def refusal(spec: str, caps: dict[str, Any], rules: Sequence[Rules], game: str) -> str | None:
    """Why a bot cannot play these rules by what its hello says it plays (None: it can)."""
    games = caps.get("games")
    if games is not None and game not in games:
        return f"{who(spec)} plays {', '.join(games) or 'no game'}, not {game}"
    known = caps.get("variants")
    if known is None:
        return None
    for r in rules:
        extra = [v for v in getattr(r, "variants", ()) if v not in known]
        if extra:
            return f"{who(spec)} cannot play {r.name}: it does not know the variant {', '.join(extra)} " \
                   f"(it knows {', '.join(known) or 'none'})"
    return None


def check(spec: str, params: dict[str, Any], rules: Sequence[Rules], game: str,
          bot: Bot | None = None) -> dict[str, Any]:
    """Start a bot (a plug-in's host, or a program: ``bot``), check it against every rule set,
    and end it; returns its capabilities. Every failure is one CribsimError."""
    if bot is None or not bot.is_program:
        if not isinstance(spec, str) or not _SPEC.fullmatch(spec):
            resolve(spec, game)  # the loader's message for a malformed spec (it imports nothing)
    link = new_link(bot if bot is not None else python_bot(spec))
    try:
        caps = hello(link, spec, dict(params or {}), rules, game, bot.limits.hello_limit if bot else
                     DEFAULT_LIMITS.hello_limit)
    finally:
        link.close()
    why = refusal(spec, caps, rules, game)
    if why is not None:
        raise CribsimError(f"cribsim: {why}")
    cls = proxy_class(spec, game, caps)
    for r in rules:  # the engine's own check of what the player says it can do
        missing = missing_for(cls, r)
        if missing:
            raise CribsimError(f"cribsim: {who(spec)} cannot play {r.name}: it lacks {'; '.join(missing)}")
    return caps


class _RemoteRng:
    """``strategy.rng`` of a proxy: the engine's per-game ``seed`` goes to the player."""

    __slots__ = ("_proxy",)

    def __init__(self, proxy: Proxy) -> None:
        self._proxy = proxy

    def seed(self, value: Any) -> None:
        self._proxy._ask({"kind": "seed", "seed": value})


class Proxy:
    """Stands in for a plug-in in the engine: the decision methods the plug-in implements
    (added by :func:`proxy_class`), each a request to its player process."""

    name = "plugin"
    game = ""  # set per class by proxy_class
    timed_by_link = True  # each decision is a request with the time limit as its deadline
    understands: frozenset[str] = frozenset()
    params = ()

    def __init__(self, link: Link, seat: int, limit: float) -> None:
        self._link, self._seat, self._limit = link, seat, limit
        self.rng = _RemoteRng(self)

    def _ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        seat = self._seat
        try:
            reply = self._link.request(msg, self._limit)
        except Late:
            raise PluginFault(seat, "timeout", timeout_message(self._limit)) from None
        except Died as e:
            raise PluginFault(seat, "crash", str(e)) from None
        except Garbled as e:
            raise PluginFault(seat, "error", f"{e} (the player protocol)", isinstance(e, Stale)) from None
        if reply.get("kind") == "error":
            message = str(reply.get("message"))[:1000]
            if reply.get("illegal"):
                raise IllegalMove(f"seat {seat} {message}", seat)
            raise PluginFault(seat, "error", message)
        return reply

    def tell_result(self, msg: dict[str, Any]) -> None:
        """The match is over: the player hears how it ended. Its faults here cost nothing (the
        match is decided); a player that fails is restarted for the next match."""
        if not self._link.alive:
            return
        try:
            reply = self._link.request(msg, self._limit)
        except (Late, Died, Garbled):
            return
        if reply.get("kind") != "ok":
            self._link.kill()

    def _decide(self, decision: str, obs: Observation) -> Any:
        to_dict = getattr(obs, "to_dict", None)
        d = to_dict() if to_dict is not None else _slots(obs)
        reply = self._ask({"kind": "decide", "decision": decision, "obs": d})
        if reply.get("kind") != "reply" or "answer" not in reply:
            self._link.kill()
            raise PluginFault(self._seat, "error", f"its reply to {decision} is not a reply (the player protocol)")
        answer = tuples(reply["answer"])
        if not well_formed(answer):
            raise IllegalMove(f"seat {self._seat} answered {decision} with {_short(answer)}: not a card, a set of "
                              "cards or null (whole numbers, lists and null)", self._seat)
        return answer


def _slots(obs: Observation) -> dict[str, Any]:
    """A view without ``to_dict`` (a game's own observation class with slots), as plain data."""
    slots: tuple[str, ...] = getattr(type(obs), "__slots__", ())
    return {k: getattr(obs, k) for k in slots if k != "rules"}


def _short(v: Any, limit: int = 80) -> str:
    text = without_addresses(repr(v))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _decision(name: str) -> Any:
    def decide(self: Proxy, obs: Observation) -> Any:
        return self._decide(name, obs)

    decide.__name__ = decide.__qualname__ = name
    return decide


_CLASSES: dict[tuple[Any, ...], type[Proxy]] = {}


def proxy_class(spec: str, game: str, caps: dict[str, Any]) -> type[Proxy]:
    """The proxy class for a plug-in with these capabilities (made once)."""
    key = (spec, game, caps["name"], tuple(caps["decisions"]), tuple(caps["understands"]))
    cls = _CLASSES.get(key)
    if cls is None:
        ns: dict[str, Any] = {"name": caps["name"], "game": game, "understands": frozenset(caps["understands"]),
                              "spec": spec, "__module__": __name__}
        for d in caps["decisions"]:
            ns[d] = _decision(d)
        cls = _CLASSES[key] = type("Isolated", (Proxy,), ns)
    return cls


class Isolated:
    """One lineup entry's plug-in, isolated: ``bind(seat, rules)`` is the ``make(rng)`` of that
    seat (a fresh proxy per match, on the seat's own player process)."""

    def __init__(self, spec: str, params: dict[str, Any], game: str, rules: Sequence[Rules], limit: float,
                 caps: dict[str, Any] | None = None, bot: Bot | None = None) -> None:
        self.spec, self.params, self.game, self.rules, self.limit = spec, dict(params), game, tuple(rules), limit
        self.bot = bot if bot is not None else python_bot(spec)
        self.caps = caps if caps is not None else check(spec, self.params, self.rules, game, self.bot)
        self.cls = proxy_class(spec, game, self.caps)
        self.links: dict[int, Link] = {}
        self.started = False  # whether a player of this entry has started in this process
        self.failed_starts = 0  # starts in a row that failed since it last started
        self.retired = ""  # why it is retired from the run ("": it is not)
        self.news = ""
        self.wire: dict[int, tuple[Any, dict[str, Any]]] = {}  # id(rules) -> (rules, to_dict())

    def __call__(self, rng: Any) -> Any:
        raise TypeError("an isolated plug-in is made for a seat: bind(seat, rules) first")

    def bind(self, seat: int, rules: Rules) -> Any:
        return partial(self.make, seat, rules)

    def make(self, seat: int, rules: Rules, rng: Any = None) -> Proxy:
        """A proxy for the seat's player, told of the new match. A player whose output from its
        last match (decided: a second reply to its last decision or to the result) comes where
        this match's first reply is due is started again, and this match is not charged: so
        which match pays never depends on which one the process happened to play next."""
        try:
            return self._begin(seat, rules)
        except PluginFault as e:
            if not e.stale:
                raise
            return self._begin(seat, rules)  # (the link is dead: a fresh player)

    def _begin(self, seat: int, rules: Rules) -> Proxy:
        if self.retired:
            raise PluginFault(seat, "crash", self.retired)
        link = self.links.get(seat)
        if link is None:
            link = self.links[seat] = new_link(self.bot)
        if not link.alive:  # first use, or after a fault: a fresh player
            try:
                caps = hello(link, self.spec, self.params, self.rules, self.game, self.bot.limits.hello_limit)
            except CribsimError as e:
                if not self.started:  # never started in this process: it cannot run here (the run fails)
                    raise
                raise self._failed_start(seat, str(e).removeprefix("cribsim: ")) from None
            self.started, self.failed_starts = True, 0

            if caps != self.caps:
                link.close()
                raise CribsimError(f"cribsim: {who(self.spec)} says it can do {caps} here, but {self.caps} "
                                   "when the lineup was checked")
        proxy = self.cls(link, seat, self.limit)
        wired = self.wire.get(id(rules))
        if wired is None or wired[0] is not rules:
            wired = self.wire[id(rules)] = (rules, rules.to_dict())
        proxy._ask({"kind": "match", "game": self.game, "rules": wired[1], "seat": seat, "params": self.params})
        return proxy

    def _failed_start(self, seat: int, why: str) -> PluginFault:
        """A start that failed after the bot had run here: its own fault. After
        :data:`RETIRE_AFTER` in a row it is retired: its later matches are forfeits at once,
        without a start that would stall the run (a hello that hangs costs its limit each time)."""
        self.failed_starts += 1
        if self.failed_starts >= RETIRE_AFTER:
            self.retired = f"retired from the run: it could not be started {RETIRE_AFTER} times in a row ({why})"[:300]
            self.news = self.retired
        return PluginFault(seat, "crash", f"it could not be started again: {why}")

    def retired_news(self) -> str:
        """The retirement's message, once (for the run's one line about it); "" otherwise."""
        news, self.news = self.news, ""
        return news

    def take_errors(self) -> bytes:
        """What this entry's player processes wrote on their standard error since the last call
        (each seat's, bounded: :class:`~.link.StderrBuffer`)."""
        return b"".join(link.take_errors() for _, link in sorted(self.links.items()))

    def close(self) -> None:
        for link in self.links.values():
            link.close()
        self.links.clear()
