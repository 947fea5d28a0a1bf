"""Build script for the compiled parts (everything else is in pyproject.toml).

**The native lane** (``cribsim/games/cribbage/native/_lane.c``): whole games of cribbage in C for
the rules that are data, built wherever ``pip install`` finds a C compiler, and skipped with a
warning (never a failed install) where it does not: cribsim then plays every game in Python,
the same games, slower. ``python -m cribsim lane`` says which. The module carries a hash of its
source, so an editable install whose ``_lane.c`` has changed since the build is not used until
the install command runs again.

**The mypyc lane** (optional): ``CRIBSIM_COMPILE=1 pip install --no-build-isolation .`` (with
``mypy`` installed) also compiles the hot modules (the engine's state machine and phases,
scoring, cards, the addressed random streams and the built-in random, ev and mc strategies) with
mypyc into C extensions: the same source, the same games and tables (a test checks it), about
1.7x the speed, for the strategies the native lane does not have. Use it for a non-editable
install only: an editable install would put the compiled modules beside the sources, where they
would go stale.

``CRIBSIM_COMPILE_OPT`` sets the C compiler's optimisation level (default 3). The test of the
lane builds at 0, which takes half the time: what it checks, that mypyc's translation plays the
same games, does not depend on how hard the C compiler then optimises."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup

COMPILED = [
    "cribsim/games/cribbage/cards.py",
    "cribsim/games/cribbage/scoring.py",
    "cribsim/games/cribbage/expect.py",
    "cribsim/rng.py",
    "cribsim/games/cribbage/engine/phases.py",
    "cribsim/games/cribbage/engine/state.py",
    "cribsim/games/cribbage/engine/game.py",
    "cribsim/games/cribbage/engine/rollout.py",
    "strategies/random_play.py",
    "strategies/ev.py",
    "strategies/mc.py",
    "strategies/expert.py",
]

LANE = "cribsim/games/cribbage/native/_lane.c"
lane_hash = hashlib.sha256((Path(__file__).parent / LANE).read_bytes()).hexdigest()[:16]  # lane.source_hash
ext_modules = [Extension("cribsim.games.cribbage.native._lane", [LANE], optional=True,
                         define_macros=[("LANE_SOURCE", f'"{lane_hash}"')],
                         extra_compile_args=["-O3", "-std=c11", "-ffp-contract=off"])]
if os.environ.get("CRIBSIM_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules += mypycify(COMPILED, opt_level=os.environ.get("CRIBSIM_COMPILE_OPT", "3"))

setup(ext_modules=ext_modules)
