"""Names that become file names (an experiment's results folder, a variant's CSV and plot) or
appear in tables (a lineup entry): checked before anything is written."""

from __future__ import annotations

import re

MAX_NAME = 64
MAX_VARIANT_NAME = 160  # a sweep's point names its base and every knob's value
_NAME = re.compile(r"[A-Za-z0-9_.+-]+")
_ENTRY = re.compile(r"[A-Za-z0-9_.+:-]+")  # entries may keep a module:Class spec as their name
_VARIANT = re.compile(r"[A-Za-z0-9_.+=,\[\]-]+")  # a sweep's point: standard[pair=3,target=91]


def check_name(name: object, entry: bool = False, variant: bool = False) -> str | None:
    """None for a good name, else what is wrong with it (for an error message). A name is 1 to
    64 characters, letters, digits and ``_-.+`` (and ``:`` for a lineup entry, ``[]=,`` for a
    variant: a sweep's points), not ``.`` or ``..`` (so it is always a plain file name in the
    folder it is written to)."""
    if not isinstance(name, str):
        return f"expected a name, got {type(name).__name__}"
    if not name:
        return "expected a name, got an empty string"
    most = MAX_VARIANT_NAME if variant else MAX_NAME
    if len(name) > most:
        return f"a name has at most {most} characters, got {len(name)}"
    if name in (".", ".."):
        return f"{name!r} is not a name"
    allowed = "letters, digits and _-.+" + (":" if entry else "") + ("[]=," if variant else "")
    pattern = _ENTRY if entry else _VARIANT if variant else _NAME
    if not pattern.fullmatch(name):
        bad = next(ch for ch in name if not pattern.fullmatch(ch))
        return f"a name has only {allowed}, got {name!r} (with {bad!r})"
    return None


def file_stem(name: str) -> str:
    """A variant's name as a file name holds it: a sweep's point ``standard[pair=3,target=91]``
    becomes ``standard_pair=3,target=91``, with none of the shell's glob characters (``[]*?``: a
    name can hold no other), so ``ls heatmap_standard_pair=3.png`` needs no quotes; any other
    name is itself. (Results folders written before hold the name as it is:
    :func:`cribsim.tournament.folder.variant_files` names both.)"""
    inner = name[:-1] if name.endswith("]") and "[" in name else name
    return inner.replace("[", "_").replace("]", "_")

