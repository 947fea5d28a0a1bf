"""Sweeps: an experiment's ``sweep:`` plays its rule sets along any rules knob (a core knob such
as ``target``, a ``scoring.`` value, a variant's knob): one knob or a grid of several, or a list
of such sweeps.

Each rule set of ``variants:`` (a base) becomes one named rule set per point of each grid,
``standard[pair=3]`` or ``standard[pair=3,target=91]``, built as ``{extends: base, the knobs}``
and checked like any rules file; a point that is the base's own rules keeps the base's name and
is played once, whichever sweeps pass through it. The points are ordinary variants of the run, so
they are played on the same deals, and the report reads them from the manifest's ``sweep``
record."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..game import JSON

MAX_KNOBS = 3
MAX_VALUES = 50  # values of one knob
MAX_POINTS = 100  # points of one grid (the run's variants are capped too)
MAX_SWEEPS = 10  # sweeps in a list
_PATH_PART = "abcdefghijklmnopqrstuvwxyz0123456789_"


@dataclass(frozen=True)
class Sweep:
    """The knobs swept (dotted paths into a rules file) and their values, in the config's order."""

    knobs: tuple[str, ...]
    values: tuple[tuple[JSON, ...], ...]

    def points(self) -> list[tuple[JSON, ...]]:
        """Every point of the grid, the first knob varying slowest."""
        return list(itertools.product(*self.values))

    def label(self, point: tuple[JSON, ...]) -> str:
        """``pair=3,target=91``: each knob by its last name, each value as YAML writes it."""
        return ",".join(f"{k.rsplit('.', 1)[-1]}={_word(v)}" for k, v in zip(self.knobs, point))

    def overrides(self, point: tuple[JSON, ...]) -> dict[str, Any]:
        """The point as a rules mapping: ``scoring.pair: 3`` -> ``{scoring: {pair: 3}}``."""
        out: dict[str, Any] = {}
        for knob, value in zip(self.knobs, point):
            *parents, leaf = knob.split(".")
            node = out
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = value
        return out


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: the variant that plays it, its base's name and the knobs' values."""

    variant: str
    base: str
    values: tuple[JSON, ...]
    is_base: bool  # the base's own rules (every knob at the base's value): the baseline

    def to_json(self) -> dict[str, JSON]:
        return {"variant": self.variant, "base": self.base, "values": list(self.values), "is_base": self.is_base}


def _word(v: JSON) -> str:
    return json.dumps(v) if isinstance(v, bool) or v is None else str(v)


def parse_sweeps(source: str, spec: Any) -> list[Sweep]:
    """``sweep:`` as one sweep (a mapping) or a list of them."""
    if isinstance(spec, list):
        if not spec or len(spec) > MAX_SWEEPS:
            raise ConfigError(source, "sweep", f"expected 1 to {MAX_SWEEPS} sweeps, got {len(spec)}")
        return [parse_sweep(source, s, f"sweep[{i}]") for i, s in enumerate(spec)]
    return [parse_sweep(source, spec)]


def parse_sweep(source: str, spec: Any, where: str = "sweep") -> Sweep:
    """``sweep: {scoring.pair: [1, 2, 3], target: [91, 121]}``, checked: 1 to 3 knobs, each a
    dotted path with 1 to 50 distinct plain values (numbers, true/false, words), at most 100
    points in all. The values themselves are checked by the rules they build."""
    if not isinstance(spec, dict) or not spec:
        raise ConfigError(source, where, "expected a mapping of knobs to lists of values, e.g. "
                                         "{scoring.pair: [1, 2, 3]}, or a list of such mappings")
    if len(spec) > MAX_KNOBS:
        raise ConfigError(source, where, f"at most {MAX_KNOBS} knobs (a grid), got {len(spec)}")
    knobs, values = [], []
    for knob, vals in spec.items():
        key = f"{where}.{knob}"
        if not isinstance(knob, str) or not knob or any(not part or set(part) - set(_PATH_PART)
                                                        for part in knob.split(".")):
            raise ConfigError(source, where, f"expected a knob's name or dotted path (target, scoring.pair), "
                                             f"got {knob!r}")
        if knob in ("name", "extends", "variants", "game", "description") or knob.startswith(("name.", "extends.")):
            raise ConfigError(source, key, "not a knob a sweep can move")
        if not isinstance(vals, list) or not vals:
            raise ConfigError(source, key, f"expected a list of values, got {vals!r}")
        if len(vals) > MAX_VALUES:
            raise ConfigError(source, key, f"at most {MAX_VALUES} values, got {len(vals)}")
        for v in vals:
            if not (v is None or isinstance(v, (bool, int, float, str))) or (isinstance(v, str) and len(v) > 40):
                raise ConfigError(source, key, f"expected plain values (numbers, true/false, short words), got {v!r}")
        if len({json.dumps(v) for v in vals}) != len(vals):
            raise ConfigError(source, key, f"a value is listed twice in {vals!r}")
        knobs.append(knob)
        values.append(tuple(vals))
    sweep = Sweep(tuple(knobs), tuple(values))
    if len(sweep.points()) > MAX_POINTS:
        raise ConfigError(source, where, f"the grid has {len(sweep.points())} points; at most {MAX_POINTS}")
    return sweep
