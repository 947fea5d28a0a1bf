"""Build script for the compiled parts (everything else is in pyproject.toml).

**The native lane** (``cribsim/games/cribbage/native/_lane.c``): whole games of cribbage in C for
the rules that are data, built wherever ``pip install`` finds a C compiler, and skipped with a
warning (never a failed install) where it does not: cribsim then plays every game in Python,
the same games, slower. ``python -m cribsim lane`` says which. The module carries a hash of its
source, so an editable install whose ``_lane.c`` has changed since the build is not used until
the install command runs again.

The mypyc lane that also compiled the hot Python modules is retired (issue 25): the native lane
plays every built-in that does not search, in every shipped cribbage rules file, and the
searches, so there are two lanes, pure Python and native, not three."""

from __future__ import annotations

import runpy
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
NATIVE = "cribsim/games/cribbage/native"
LAYOUT = runpy.run_path(str(HERE / NATIVE / "layout.py"))  # the rules struct, declared once (in Python)
# the struct's C fields, made from that declaration before the lane is compiled
# (written only when it changes, so that an unchanged lane is not compiled again)
header = HERE / NATIVE / "_lane_rules.h"
if not header.exists() or header.read_text() != LAYOUT["header"]():
    header.write_text(LAYOUT["header"]())
lane_hash = LAYOUT["source_hash"](HERE / NATIVE)  # of every part of the C source and the layout (lane.source_hash)
parts = [f"{NATIVE}/{name}" for name in LAYOUT["SOURCES"]]  # _lane.c includes the others
# a build again where the header, the layout or a variant's declared fields change
declared = [f"{NATIVE}/_lane_rules.h", f"{NATIVE}/layout.py",
            *(str(p.relative_to(HERE)) for p in sorted((HERE / NATIVE).parent.glob("variants/*.py")))]
ext_modules = [Extension("cribsim.games.cribbage.native._lane", parts[:1], depends=parts[1:] + declared, optional=True,
                         define_macros=[("LANE_SOURCE", f'"{lane_hash}"')],
                         extra_compile_args=["-O3", "-std=c11", "-ffp-contract=off"])]
setup(ext_modules=ext_modules)
