"""The games cribsim plays, found rather than listed.

Every package in this folder is a game: it exposes ``GAME``, an instance of a
:class:`cribsim.game.Game` subclass, and is known by its package name. A game written outside
cribsim is named ``module:attribute`` in a config or rules file (as plug-in strategies are), is
imported from the config's folder or ``PYTHONPATH``, and is known by that spec everywhere (its
rules, results and records carry it, so any process can load it again). Packages are imported
only when a game is first asked for. Nothing here names a game: the default game (that of a
config or rules file without ``game:``) is the one whose class says ``default = True``."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

from .. import owncode
from ..codepath import expose_named
from ..errors import ConfigError, CribsimError
from ..game import Game
from ..suggest import did_you_mean

_LOADED: dict[str, Game[Any]] = {}
_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def builtin_names() -> list[str]:
    """The games shipped with cribsim: the packages in this folder."""
    return sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.ispkg)


def game_named(name: object, source: str = "<inline>", key: str = "game") -> Game[Any]:
    """The game called ``name`` (a built-in's package name, or ``module:attribute``); a one-line
    ConfigError naming ``source`` and ``key`` for a name that is neither."""
    if isinstance(name, str) and name in _LOADED:
        return _LOADED[name]
    known = builtin_names()
    if isinstance(name, str) and name in known:
        return _load(name, f"{__name__}.{name}", "GAME", source, key)
    if isinstance(name, str) and _SPEC.fullmatch(name):
        module, _, attr = name.partition(":")
        folders = [Path(source).resolve().parent] if source.endswith((".yaml", ".yml")) else []
        try:  # only that module, beside the config or rules file or in the working directory
            expose_named(name, folders)
        except CribsimError as e:
            raise ConfigError(source, key, str(e).removeprefix("cribsim: ")) from None
        return _load(name, module, attr, source, key)
    raise ConfigError(source, key, f"expected one of {', '.join(known)} (or module:attribute for a game of your own), "
                                   f"got {str(name)[:80]!r}{did_you_mean(name, known)}")


def _load(name: str, module: str, attr: str, source: str, key: str) -> Game[Any]:
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        raise ConfigError(source, key, f"game {name!r}: cannot import module {module!r} ({e})") from None
    game = getattr(mod, attr, None)
    if not isinstance(game, Game):
        games = [k for k, v in vars(mod).items() if isinstance(v, Game)]
        hint = did_you_mean(attr, games) if game is None else ""
        raise ConfigError(source, key, f"game {name!r}: {module}.{attr} is not a cribsim.game.Game instance{hint}")
    game.name = name  # known by the name it was found by, in every process
    owncode.mark(module, f"game {name}")  # its exceptions name it (not cribsim's own)
    _LOADED[name] = game
    return game


def all_builtin() -> list[Game[Any]]:
    """Every game shipped with cribsim, loaded."""
    return [game_named(n) for n in builtin_names()]


def default_game() -> Game[Any]:
    """The game of a config or rules file that names none."""
    chosen = [g for g in all_builtin() if g.default]
    if len(chosen) != 1:
        raise RuntimeError(f"exactly one built-in game must say default = True, found {len(chosen)}")
    return chosen[0]


def default_name() -> str:
    return default_game().name
