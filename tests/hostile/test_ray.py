"""The hostile corpus on two Ray workers, in one run (Ray's start is the costly part): shadow
modules beside the config (G5: Ray put the driver's working directory and the config's folder
on every worker's module path), the stderr killer beside an honest bot that logs (G2: a worker's
standard error is a file, so every later write of another sandboxed bot passed its file-size
limit), an untrusted plug-in among them. Serially: test_codepath.py and test_harm.py."""

from __future__ import annotations

import subprocess

from tests.hostile.arena import marks, needs_cc, needs_sandbox


@needs_sandbox
@needs_cc
def test_on_ray_workers_no_shadow_runs_and_no_bot_harms_another_through_standard_error(shadowed):
    shadowed.config("name: onray\nlineup:\n  - {name: mine, strategy: 'mybot:Bot'}\n"
                 "  - {name: killer, command: [./bots/hostile, stderr_killer]}\n"
                 "  - {name: logger, command: [./bots/hostile, logger]}\n  - greedy\nmatches: 2\n")
    log = shadowed.base / "organiser.log"
    with open(log, "w") as f:
        done = subprocess.run(shadowed.command("root", "run", "exp.yaml", "--quiet", "--out", str(shadowed.out),
                                            "--workers", "2"),
                              stdout=subprocess.PIPE, stderr=f, text=True, timeout=600, cwd=shadowed.cfg,
                              env=shadowed.environ())
    assert done.returncode == 0, log.read_text()[-2000:]
    assert marks(shadowed) == [] and shadowed.forfeits() == {}
    assert len(shadowed.records()) == 6 * 2
    assert log.stat().st_size < 10_000 and "forged" not in log.read_text()
    assert "forged by the stderr killer" in (shadowed.out / "bots" / "killer.stderr").read_text()
    assert "logger: request" in (shadowed.out / "bots" / "logger.stderr").read_text()
