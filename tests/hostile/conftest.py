"""The hostile corpus's fixtures: an organiser's folder (:class:`tests.hostile.arena.Arena`), and
one with stranger's modules beside the config (:data:`tests.hostile.arena.SHADOWS`)."""

import shutil

import pytest

from tests.hostile.arena import BOT, MARK, SHADOWS, Arena, arena_folder


@pytest.fixture
def arena():
    base = arena_folder()
    yield Arena(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def shadowed(arena):
    """The arena with a ``yaml.py``, a ``tabulate.py``, a ``ray.py`` and a ``numpy.py`` beside the
    config, and the untrusted plug-in ``mybot.py``; each marks where it was imported."""
    mark = MARK.format(folder=str(arena.base))
    for name in SHADOWS:
        (arena.cfg / f"{name}.py").write_text(mark + "raise SystemExit('a shadow ran')\n")
    (arena.cfg / "mybot.py").write_text(BOT.format(folder=str(arena.base)))
    return arena
