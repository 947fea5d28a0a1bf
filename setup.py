"""Build script for the optional compiled lane (everything else is in pyproject.toml).

A plain ``pip install .`` (or ``-e .``) is pure Python. ``CRIBSIM_COMPILE=1 pip install
--no-build-isolation .`` (with ``mypy`` installed) also compiles the hot modules (the engine's
state machine and phases, scoring, cards, the addressed random streams and the built-in random,
ev and mc strategies) with mypyc into C extensions: the same source, the same games and tables
(a test checks it), about 1.7x the speed. Use it for a non-editable install only: an editable
install would put the compiled modules beside the sources, where they would go stale.

``CRIBSIM_COMPILE_OPT`` sets the C compiler's optimisation level (default 3). The test of the
lane builds at 0, which takes half the time: what it checks, that mypyc's translation plays the
same games, does not depend on how hard the C compiler then optimises."""

from __future__ import annotations

import os

from setuptools import setup

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

ext_modules = []
if os.environ.get("CRIBSIM_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level=os.environ.get("CRIBSIM_COMPILE_OPT", "3"))

setup(ext_modules=ext_modules)
