"""The rule variants: one module each, found here by name.

A module of this package is a variant when it defines ``VARIANT``, a subclass of
:class:`cribsim.engine.variant.Variant` (its knobs, phases, hooks, decisions, observation
fields, narration and summary columns; see that class). Adding a variant is adding its module
here, its YAML under ``configs/rules/`` and its tests: nothing else names it.

``VARIANTS`` maps each variant's name to its class, in the canonical order (by name) in which
variants are assembled, so the order of a rules file's ``variants:`` list never matters.
``PARAMS`` maps every variant knob to (its variant, its :class:`cribsim.params.Param`)."""

from __future__ import annotations

import importlib
import pkgutil

from cribsim.params import Param

from ..engine.variant import Variant


def _discover() -> dict[str, type[Variant]]:
    found: dict[str, type[Variant]] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        v = getattr(mod, "VARIANT", None)
        if v is None:
            continue
        if not v.name or v.name in found:
            raise ImportError(f"variant module {info.name}: missing or duplicate name {v.name!r}")
        found[v.name] = v
    return dict(sorted(found.items()))


VARIANTS: dict[str, type[Variant]] = _discover()

PARAMS: dict[str, tuple[type[Variant], Param]] = {}
for _v in VARIANTS.values():
    for _p in _v.params:
        if _p.name in PARAMS:
            raise ImportError(f"variant knob {_p.name!r} is declared by {PARAMS[_p.name][0].name} and {_v.name}")
        PARAMS[_p.name] = (_v, _p)
