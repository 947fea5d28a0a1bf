"""The rule variants: one module each, found here by name.

A module of this package is a variant when it defines ``VARIANT``, a subclass of
:class:`cribsim.engine.variant.Variant` (its knobs, phases, hooks, decisions, observation
fields, narration and summary columns; see that class). Adding a variant is adding its module
here, its YAML under ``configs/rules/`` and its tests: nothing else names it.

``VARIANTS`` maps each variant's name to its class, in the canonical order (by name) in which
variants are assembled, so the order of a rules file's ``variants:`` list never matters.
``PARAMS`` maps every variant knob to (its variant, its :class:`cribsim.params.Param`).
A rules file may also name a variant of one's own, ``module:Class`` (:func:`variant_named`): it
joins both maps under that name when it is first named."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from cribsim.errors import ConfigError
from cribsim.params import Param
from cribsim.suggest import closest, did_you_mean

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

BUILT_IN = frozenset(VARIANTS)


RESERVED: set[str] = set()  # the rules' core keys (filled by the rules module): no variant knob may take one


def variant_named(spec: str, source: str = "<inline>", key: str = "variants") -> type[Variant]:
    """The variant a rules file names: a built-in (``auction``) or a module of one's own,
    ``module:Class`` (beside the rules file, in the working directory or on ``PYTHONPATH``), which
    is then registered like a built-in under that spec: its knobs, phases, hooks and decisions
    declared, checked, combined, narrated, recorded and replayed the same way (docs: a
    designer's variant). Every failure is one :class:`ConfigError` naming ``source`` and ``key``."""
    if spec in VARIANTS:
        return VARIANTS[spec]
    if not isinstance(spec, str) or not _SPEC.fullmatch(spec):
        raise ConfigError(source, key, f"unknown variant {spec!r}{did_you_mean(str(spec), VARIANTS)} (known: "
                                       f"{', '.join(sorted(BUILT_IN))}; or module:Class for a variant of one's own)")
    cls = _import(spec, source, key)
    _register(spec, cls, source, key)
    return cls


_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def _import(spec: str, source: str, key: str) -> type[Variant]:
    mod_name, _, cls_name = spec.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except KeyboardInterrupt:
        raise
    except ModuleNotFoundError as e:
        raise ConfigError(source, key, f"variant {spec}: no module named {e.name!r} (run from its folder, or put "
                                       "it beside the rules file or on PYTHONPATH)") from None
    except BaseException as e:  # a syntax error, or raised or exited while importing
        raise ConfigError(source, key, f"variant {spec}: importing module {mod_name!r} failed "
                                       f"({type(e).__name__}: {str(e)[:160]})") from None
    cls = getattr(mod, cls_name, None)
    if cls is None:
        raise ConfigError(source, key, f"variant {spec}: no class {cls_name} in {mod_name}{_near(cls_name, mod)}")
    if not (isinstance(cls, type) and issubclass(cls, Variant)) or cls is Variant:
        raise ConfigError(source, key, f"variant {spec}: {cls_name!r} of module {mod_name!r} is not a Variant "
                                       "subclass (cribsim.games.cribbage.engine.variant.Variant)")
    return cls


def _near(name: str, mod: ModuleType) -> str:
    """`` (did you mean CribDouble?)`` for a near miss among the module's variants, else ``
    (its variants: ...)``, or nothing when it has none."""
    found = sorted(k for k, v in vars(mod).items()
                   if isinstance(v, type) and issubclass(v, Variant) and v is not Variant)
    near = closest(name, found)
    if near:
        return f" (did you mean {near[0]}?)"
    return f" (its variants: {', '.join(found)})" if found else ""


def _register(spec: str, cls: type[Variant], source: str, key: str) -> None:
    names = {v.name: k for k, v in VARIANTS.items()}
    if not cls.name or not isinstance(cls.name, str):
        raise ConfigError(source, key, f"variant {spec}: the class declares no name")
    if cls.name in names:
        raise ConfigError(source, key, f"variant {spec}: its name {cls.name!r} is already {names[cls.name]}'s")
    for p in cls.params:
        if p.name in PARAMS:
            raise ConfigError(source, key, f"variant {spec}: its knob {p.name!r} is already a knob of "
                                           f"{PARAMS[p.name][0].name}")
        if p.name in RESERVED:
            raise ConfigError(source, key, f"variant {spec}: its knob {p.name!r} is a key of the rules themselves")
        if p.recorded:  # recorded knobs appear in every rule set's JSON: only the built-ins' may
            raise ConfigError(source, key, f"variant {spec}: its knob {p.name!r} is declared recorded=True, which "
                                           "only built-in variants may be (it would change every rule set's "
                                           "fingerprint)")
    for p in cls.params:
        PARAMS[p.name] = (cls, p)
    VARIANTS[spec] = cls
    ordered = sorted(VARIANTS.items())  # the canonical order, whatever order variants were loaded in
    VARIANTS.clear()
    VARIANTS.update(ordered)


def outside_modules(classes: Iterable[type[Variant]]) -> list[str]:
    """The modules of the variants of one's own among ``classes``: each top-level module's file,
    or its package's folder."""
    out = []
    for cls in classes:
        if cls.__module__.startswith(__name__ + "."):
            continue
        module = sys.modules.get(cls.__module__)
        file = getattr(module, "__file__", None)
        if file:
            home = Path(file).resolve()
            if home.name == "__init__.py":  # the module is a package: its folder
                home = home.parent
            for _ in range(cls.__module__.count(".")):  # inside a package: the top package's folder
                home = home.parent
            if str(home) not in out:
                out.append(str(home))
    return out
