"""The player protocol, version 3: JSON lines between the engine and a player process (version 2
had no request ids; version 1 had no ``result`` request and no ``games`` or ``variants`` in the
capabilities).

The engine starts the player process and writes one request per line to its standard input;
the player writes exactly one reply per request, one line, to its standard output. Every line
is one JSON object (UTF-8, no NaN or Infinity) ending in a newline. Every request carries an
``id`` (a whole number: 1, 2, ... from the process's start) and its reply carries the same
``id`` (shown below without it). The player's standard error
is free for its own messages. Nothing else is shared: the player sees only what the requests
carry. The Python host (:mod:`cribsim.isolation.host`) speaks it for ``module:Class`` plug-ins;
a bot in another language speaks the same lines.

Requests (``kind``) and their replies:

``hello``      ``{"kind": "hello", "protocol": 3, "game": "cribbage", "strategy": "mybots:LowCard",
               "params": {...}, "rules": [rules, ...]}``: the first request. ``rules`` lists every
               rule set of the run (``Rules.to_dict()``). Reply ``{"kind": "capabilities",
               "protocol": 3, "name": "lowcard", "decisions": ["discard", "play"],
               "understands": ["objective"]}``, or an ``error`` reply: the player refuses (a bad
               parameter, a rule set it cannot play); the lineup is then refused.
``match``      ``{"kind": "match", "game": ..., "rules": {...}, "seat": 0, "params": {...}}``: a new
               match begins (the Python host makes a fresh instance). Reply ``{"kind": "ok"}``.
``seed``       ``{"kind": "seed", "seed": 1234}``: the engine's per-game seed for this seat (an
               unsigned 64-bit integer; the Python host calls ``self.rng.seed(seed)`` exactly as the
               engine does in-process). Reply ``{"kind": "ok"}``.
``decide``     ``{"kind": "decide", "decision": "play", "obs": {...}}``: one decision; ``obs`` is the
               seat's observation (``Observation.to_dict()``: every field but the rules, tuples
               as arrays). Reply ``{"kind": "reply", "answer": ...}``.
``result``     ``{"kind": "result", "winner": 0, "game_points": [2, 0], "forfeit": null}``: the match
               is over (``winner`` a side, -1 for none; ``forfeit`` ``{"side": 1, "kind":
               "timeout"}`` or null). Reply ``{"kind": "ok"}``; a fault here costs nothing.

The capabilities may also say what the player plays: ``"games": ["cribbage"]`` and
``"variants": ["muggins", ...]`` (the variant modules it knows; a rule set naming another is
refused, naming the player and the variant). Without them it is offered every rule set its
decisions can play.

Any request may instead be answered ``{"kind": "error", "message": "RuntimeError: boom"}`` (the
player's own failure: the match is forfeited, an ``error``), with ``"illegal": true`` when the
answer could not be sent as JSON (an ``illegal`` forfeit). End of input means the engine is done:
the player exits.

Answers are JSON: cards and tiles are whole numbers (cards 0-51 as ``rank * 4 + suit``, jokers 52
and up; tiles 0-27), a set of cards a list, a joker laid as a card ``[joker, named card]``, a
domino move ``[tile, end]``, a pass ``null``. The engine reads arrays back as tuples and checks
every answer with its own rules; anything else (a number that is not whole, ``true``, a string,
an object) is an illegal move.

Faults are charged to the player's lineup entry as a forfeit of the match: no reply within the
time limit (measured by the engine, wall clock, per request) is a ``timeout`` and the process is
killed; a process that ends (exit, signal, closed output) is a ``crash``; a line that is not a
reply of this protocol is an ``error``, and so is a reply without its request's ``id``, or a
second reply to a request: that one is found at the next request, whenever it was written (so
the fault is the same in every run). The engine starts the process again for the next match.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import without_addresses
from ..escape import terminal_text

PROTOCOL = 3
MAX_LINE = 1 << 20  # a reply longer than this (1 MB) is not a reply of this protocol

# one compact encoder for every line; NaN and Infinity are not JSON
_dumps = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode
_loads = json.loads


def encode(msg: dict[str, Any]) -> bytes:
    """One message as one line."""
    return _dumps(msg).encode("ascii") + b"\n"


def decode(line: bytes) -> Any:
    return _loads(line)


def tuples(v: Any) -> Any:
    """JSON arrays back to tuples, recursively (the engine's observations and answers are
    tuples)."""
    if type(v) is list:
        return tuple([tuples(x) if type(x) is list else x for x in v])
    return v


def plain(v: Any) -> Any:
    """A Python answer as JSON data: tuples and lists as arrays; anything else that is not a
    number, a string, true/false or null raises TypeError. Whole numbers of other types (say a
    numpy integer) are sent as numbers; a float is sent as it is (not a card: the engine refuses
    it)."""
    if v is None or type(v) in (int, bool, str):
        return v
    if type(v) is float:
        if not math.isfinite(v):
            raise TypeError(f"{v!r} is not a finite number")
        return v
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    index = getattr(type(v), "__index__", None)
    if index is not None and not isinstance(v, bool):
        return index(v)
    raise TypeError(f"a {type(v).__name__} ({_short(v)}) is not JSON data")


def well_formed(v: Any, depth: int = 0) -> bool:
    """Whether an answer (after :func:`tuples`) holds only whole numbers, None and tuples of
    them: what a card, a set of cards, a joker's name, a bid or a domino move can be."""
    t = type(v)
    if t is int or v is None:
        return True
    if t is tuple and depth < 4:
        return all(well_formed(x, depth + 1) for x in v)
    return False


def shown(text: str, limit: int = 200) -> str:
    """A player's own text as data for a terminal or a message (:func:`cribsim.escape.terminal_text`),
    cut at ``limit`` characters."""
    out = terminal_text(text)
    return out if len(out) <= limit else out[:limit - 3] + "..."


def quoted(line: bytes, limit: int = 200) -> str:
    """A line a player wrote, quoted for a message: as text (a byte that is not UTF-8 as
    ``\\xff``), without memory addresses (the same in every run), escaped and cut by :func:`shown`."""
    return "'" + shown(without_addresses(line[:4 * limit].decode("utf-8", "backslashreplace")), limit) + "'"


def _short(v: Any, limit: int = 60) -> str:
    try:
        text = without_addresses(repr(v))
    except Exception:
        text = f"<{type(v).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."
