"""The hostile corpus on two Ray workers, in one run (Ray's start is the costly part): shadow
modules beside the config (G5: Ray put the driver's working directory and the config's folder
on every worker's module path), the stderr killer beside an honest bot that logs (G2: a worker's
standard error is a file, so every later write of another sandboxed bot passed its file-size
limit), an untrusted plug-in among them. Serially: test_codepath.py and test_harm.py."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.hostile.arena import Arena, arena_folder, needs_cc, needs_sandbox
from tests.hostile.test_codepath import BOT, MARK, SHADOWS, marks


@pytest.fixture
def arena():
    base = arena_folder()
    a = Arena(base)
    for name in SHADOWS:
        (a.cfg / f"{name}.py").write_text(MARK.format(folder=str(base)) + "raise SystemExit('a shadow ran')\n")
    (a.cfg / "mybot.py").write_text(BOT.format(folder=str(base)))
    yield a
    shutil.rmtree(base, ignore_errors=True)


@needs_sandbox
@needs_cc
def test_on_ray_workers_no_shadow_runs_and_no_bot_harms_another_through_standard_error(arena):
    arena.config("name: onray\nlineup:\n  - {name: mine, strategy: 'mybot:Bot'}\n"
                 "  - {name: killer, command: [./bots/hostile, stderr_killer]}\n"
                 "  - {name: logger, command: [./bots/hostile, logger]}\n  - greedy\nmatches: 2\n")
    log = arena.base / "organiser.log"
    with open(log, "w") as f:
        done = subprocess.run(arena.command("root", "run", "exp.yaml", "--quiet", "--out", str(arena.out),
                                            "--workers", "2"),
                              stdout=subprocess.PIPE, stderr=f, text=True, timeout=600, cwd=arena.cfg,
                              env=arena.environ())
    assert done.returncode == 0, log.read_text()[-2000:]
    assert marks(arena) == [] and arena.forfeits() == {}
    assert len(arena.records()) == 6 * 2
    assert log.stat().st_size < 10_000 and "forged" not in log.read_text()
    assert "forged by the stderr killer" in (arena.out / "bots" / "killer.stderr").read_text()
    assert "logger: request" in (arena.out / "bots" / "logger.stderr").read_text()
