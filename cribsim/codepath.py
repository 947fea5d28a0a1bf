"""Code of one's own: where cribsim finds a module that a config names (a plug-in strategy, a
variant or a game of one's own) without putting any folder on the module path.

A folder beside a config may hold strangers' files (a bot downloaded next to it, with a
``yaml.py`` of its own): on ``sys.path``, any of them could shadow a module cribsim imports, in
the engine or in every Ray worker, and run there unsandboxed. So cribsim never puts such a
folder on the path. A module a config names is found by its top-level name where it may be
(beside the config or the rules file, then the working directory) and only that module, its
file or its package, is *exposed*: an import finder answers for the exposed names alone, and a
name the rest of the path already has (an installed module, the standard library's) cannot be
exposed, so nothing is ever shadowed. Modules on ``PYTHONPATH`` or installed import as usual.

The strategies of untrusted bots are found the same way but never exposed: their file is shown
in their own sandbox (:class:`cribsim.isolation.bots.Bot`'s ``home``), and nothing of them is
imported by the engine. Ray workers receive the exposed names with each batch
(:func:`exposed`, :func:`install`) and install them before the batch's context is read."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

from .errors import CribsimError

_EXPOSED: dict[str, str] = {}  # top-level module name -> its file, or its package's folder
_FOLDERS: list[str] = []  # more places a named module may be (a tune or balance file's folder)


def top_name(spec: str) -> str:
    """The top-level module of ``module:Class`` (or of a dotted module name)."""
    return spec.partition(":")[0].split(".")[0]


def locate(top: str, folders: Sequence[str | os.PathLike[str]]) -> str | None:
    """The file ``top.py`` or the package folder ``top/`` (with ``__init__.py``) in the first of
    ``folders`` that holds one (None: none does)."""
    if not top.isidentifier():
        return None
    for folder in folders:
        package = Path(folder) / top
        if (package / "__init__.py").is_file():
            return str(package.resolve())
        module = Path(folder) / f"{top}.py"
        if module.is_file():
            return str(module.resolve())
    return None


def on_path(top: str) -> str | None:
    """Where the module path (sys.path, installed packages, the standard library) has ``top``,
    found without running any of its code (None: it has none; a namespace package counts as none)."""
    if top in sys.builtin_module_names:
        return "built-in"
    for finder in sys.meta_path:
        if isinstance(finder, _Finder):
            continue
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(top, None)
        except (ImportError, ValueError, AttributeError):
            continue
        if spec is not None and spec.origin not in (None, "namespace"):
            return str(spec.origin)
    return None


def look_in(folder: str | os.PathLike[str]) -> None:
    """Look for named modules in ``folder`` too (after a config's own folder): the folder of a
    tune or balance file, whose steps' configs are written elsewhere."""
    folder = str(Path(folder).resolve())
    if folder in _FOLDERS:
        _FOLDERS.remove(folder)
    _FOLDERS.insert(0, folder)  # the latest study's first


def find(top: str, folders: Sequence[str | os.PathLike[str]] = ()) -> str | None:
    """Where the module ``top`` a config names is: exposed already, on the module path (as
    imported anywhere), else in the first of ``folders``, the folders looked in, or the working
    directory, that holds it (None: nowhere)."""
    if top in _EXPOSED:
        return _EXPOSED[top]
    found = on_path(top)
    if found is not None:
        return _home(found, top)
    return locate(top, [*folders, *_FOLDERS, os.getcwd()])


def _home(origin: str, top: str) -> str:
    """A module's file, or its package's folder, from its spec's origin."""
    path = Path(origin)
    return str(path.parent) if path.name == "__init__.py" and path.parent.name == top else origin


def expose(top: str, location: str) -> None:
    """Make the module ``top`` at ``location`` (a file or a package folder) importable, and only
    it. A name the module path already has elsewhere, or one exposed elsewhere, is refused."""
    location = str(Path(location).resolve())
    if _EXPOSED.get(top) == location:
        return
    if top in _EXPOSED:
        raise CribsimError(f"cribsim: a module named {top!r} is already used from {_EXPOSED[top]}; the one at "
                           f"{location} needs another name")
    elsewhere = on_path(top)
    if elsewhere is not None:
        if _home(str(Path(elsewhere).resolve()), top) == location:
            return  # the module path has this very module: it imports as usual
        raise CribsimError(f"cribsim: {location}: a module named {top!r} is also installed or on the module path "
                           f"({elsewhere}); rename yours, so that neither shadows the other")
    _EXPOSED[top] = location
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())


def expose_named(spec: str, folders: Sequence[str | os.PathLike[str]] = ()) -> str | None:
    """Make the module of ``module:Class`` (or ``module:attribute``) importable: from the first
    of ``folders``, the folders looked in or the working directory that holds it, else as the
    module path has it. Its file or package folder (None: it is nowhere)."""
    top = top_name(spec)
    here = locate(top, [*folders, *_FOLDERS, os.getcwd()]) if top not in _EXPOSED else _EXPOSED[top]
    if here is None:
        found = on_path(top)
        return None if found is None else _home(found, top)
    expose(top, here)
    return here


def forget(*tops: str) -> None:
    """Stop exposing ``tops`` (and drop their loaded modules) and looking in other folders: for
    a process that goes on to load another study, whose modules of those names lie elsewhere."""
    _FOLDERS.clear()
    for top in tops:
        _EXPOSED.pop(top, None)
        for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
            del sys.modules[name]


def exposed() -> dict[str, str]:
    """The modules exposed in this process, to install in a worker."""
    return dict(_EXPOSED)


def install(mapping: Mapping[str, str]) -> None:
    """Expose ``mapping``'s modules here (a worker; those whose files this machine lacks are
    left to the module path, as a cluster's nodes set it)."""
    for top, location in mapping.items():
        if os.path.exists(location) and _EXPOSED.get(top) != location and on_path(top) is None:
            expose(top, location)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the exposed top-level modules (and what their packages hold), nothing else."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        location = _EXPOSED.get(fullname)
        if location is None:
            return None
        if os.path.isdir(location):
            return importlib.util.spec_from_file_location(fullname, os.path.join(location, "__init__.py"),
                                                          submodule_search_locations=[location])
        return importlib.util.spec_from_file_location(fullname, location)
