"""Declared, typed, bounded parameters: one declaration per knob, used to load, validate,
document and record it. The rules' core knobs, every variant module's knobs and strategies'
parameters are declared with :class:`Param`, so a knob is written down once."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

_MISSING: Any = object()


@dataclass(frozen=True)
class Param:
    """One knob: its name, type, default, range and a line of documentation.

    ``kind`` is ``int``, ``float``, ``bool`` or ``str``. Numbers are checked against ``lo`` and
    ``hi`` (inclusive) and must be finite; strings against ``choices``. ``nullable`` admits
    ``None`` (YAML ``null``). ``on`` is the value a variant's enabling knob takes when the
    variant is named in ``variants:`` without it. ``recorded`` keeps the knob in the rules'
    JSON even at its default (knobs that results folders have always recorded)."""

    name: str
    kind: type
    default: Any
    doc: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    on: Any = _MISSING
    recorded: bool = False
    check: Callable[[Any], str | None] | None = None  # extra check: an error message or None
    rules_ref: bool = False  # a rules name or file: a relative path is read from the config's folder

    def parse(self, source: str, value: Any, key: str | None = None) -> Any:
        """The validated value, or a one-line :class:`ConfigError` naming ``source`` and the key."""
        key = key or self.name
        if value is None and self.nullable:
            return None
        if self.choices is not None:
            if value not in self.choices:
                raise ConfigError(source, key, f"expected one of {', '.join(map(str, self.choices))}, got {value!r}")
            return value
        value = check_type(source, key, value, self.kind, self.lo, self.hi)
        if self.check is not None:
            msg = self.check(value)
            if msg:
                raise ConfigError(source, key, msg)
        return value

    def describe(self) -> str:
        """A line for the docs and ``cribsim list``: name, type, default, range, doc."""
        if self.choices is not None:
            rng = " | ".join(str(c) if c != "" else "''" for c in self.choices)
        elif self.lo is not None or self.hi is not None:
            rng = f"{_fmt(self.lo)}..{_fmt(self.hi)}"
        else:
            rng = self.kind.__name__
        on = "" if self.on is _MISSING else f", {self.on!r} when the variant is named"
        return f"{self.name} ({rng}, default {self.default!r}{on}): {self.doc}"

    @property
    def enabled_value(self) -> Any:
        return self.default if self.on is _MISSING else self.on


def _fmt(x: float | None) -> str:
    return "" if x is None else str(int(x)) if float(x).is_integer() else str(x)


def check_type(source: str, key: str, value: Any, kind: type, lo: float | None = None,
               hi: float | None = None) -> Any:
    """``value`` checked to be of ``kind`` (bool, int, float or str) and within [lo, hi]."""
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(source, key, f"expected true or false, got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ConfigError(source, key, f"expected a string, got {value!r}")
        return value
    whole = kind is int
    ok = isinstance(value, int) if whole else isinstance(value, (int, float))
    if not ok or isinstance(value, bool) or (not whole and not math.isfinite(value)) or \
            (lo is not None and value < lo) or (hi is not None and value > hi):
        what = "a whole number" if whole else "a finite number"
        if lo is not None and hi is not None:
            what += f" {_fmt(lo)}..{_fmt(hi)}"
        elif lo is not None:
            what += f" >= {_fmt(lo)}"
        elif hi is not None:
            what += f" <= {_fmt(hi)}"
        raise ConfigError(source, key, f"expected {what}, got {value!r}")
    return value if whole else float(value)


def parse_params(source: str, params: Sequence[Param], data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Values of ``params`` from ``data`` (defaults for those absent), each validated."""
    return {p.name: p.parse(source, data[p.name], prefix + p.name) if p.name in data else p.default for p in params}


def declared_params(cls: type[Any]) -> dict[str, Param]:
    """A strategy's parameters: those it declares (``params``), else those its ``__init__``
    takes with a whole or real number as the default (type from the default, no bounds: a tune
    file gives them)."""
    declared = {p.name: p for p in getattr(cls, "params", ())}
    if declared:
        return declared
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return {}
    return {p.name: Param(p.name, type(p.default), p.default, "taken by __init__")
            for p in sig.parameters.values()
            if type(p.default) in (int, float) and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


_KINDS: dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str}


def params_to_json(params: Mapping[str, Param]) -> list[dict[str, Any]]:
    """Parameters as the player protocol's capabilities carry them (name, kind, default, lo, hi,
    doc; choices are not carried)."""
    return [{"name": p.name, "kind": p.kind.__name__, "lo": p.lo, "hi": p.hi, "doc": p.doc,
             "default": p.default if p.default is None or type(p.default) in _KINDS.values() else None}
            for p in params.values() if p.kind in _KINDS.values()]


def params_from_json(items: Any) -> dict[str, Param]:
    """Parameters from a player's capabilities (what :func:`params_to_json` wrote; anything else
    is left out)."""
    out: dict[str, Param] = {}
    for d in items if isinstance(items, list) else []:
        if not isinstance(d, dict) or not isinstance(d.get("name"), str) or d.get("kind") not in _KINDS:
            continue
        bounds = [d.get(k) if isinstance(d.get(k), (int, float)) and not isinstance(d.get(k), bool) else None
                  for k in ("lo", "hi")]
        out[d["name"]] = Param(d["name"], _KINDS[d["kind"]], d.get("default"), str(d.get("doc", ""))[:200],
                               bounds[0], bounds[1])
    return out


def rules_refs(declared: Mapping[str, Param], params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (name, value) of each ``rules_ref`` parameter given a non-empty string in ``params``."""
    return [(name, value) for name, value in params.items()
            if (p := declared.get(name)) is not None and p.rules_ref and isinstance(value, str) and value]
