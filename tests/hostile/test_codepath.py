"""No bot code outside the sandbox (issue 38: G5). A stranger's files beside the config (a
``yaml.py``, a ``tabulate.py``: modules cribsim imports) never run, serially or on Ray workers,
because no folder of a config is ever put on the module path; a plug-in is never imported by
the engine unless its entry is trusted, by ``cribsim run``, ``tune`` or ``play``. Each module here
leaves a mark (a file in the arena's folder) when it is imported where that folder can be
written: anywhere but a sandbox."""

from __future__ import annotations

import pytest

from tests.hostile.arena import Arena, marks, needs_sandbox


@needs_sandbox
def test_modules_beside_the_config_never_run_outside_the_sandbox(shadowed):
    """Serially here; on Ray workers in test_ray.py."""
    shadowed.config("name: shadow\nlineup:\n  - {name: mine, strategy: 'mybot:Bot'}\n  - greedy\nmatches: 4\n")
    args = ["run", "exp.yaml", "--quiet", "--out", str(shadowed.out), "--serial"]
    done = shadowed.cribsim("root", *args, timeout=600)
    assert done.returncode == 0, done.stderr
    assert marks(shadowed) == [] and shadowed.forfeits() == {}
    assert len(shadowed.records()) == 4


@needs_sandbox
def test_a_trusted_plugin_is_imported_and_only_it(shadowed):
    shadowed.config("name: shadow\nlineup:\n  - {name: mine, strategy: 'mybot:Bot', trusted: true}\n  - greedy\n"
                    "matches: 2\n")
    done = shadowed.run("root")
    assert done.returncode == 0, done.stderr
    assert marks(shadowed) == ["ran-mybot"]


@needs_sandbox
def test_tune_asks_the_sandbox_for_an_untrusted_plugins_parameters(shadowed):
    (shadowed.cfg / "tune.yaml").write_text(
        "name: tiny\nvariant: standard\nstrategy: 'mybot:Bot'\nopponent: greedy\n"
        "params:\n  depth: {start: 2, lo: 1, hi: 4, c: 1}\niterations: 1\nmatches: 2\nfinal_matches: 2\n")
    done = shadowed.cribsim("root", "tune", "tune.yaml", "--serial", "--out", str(shadowed.base / "tuned"))
    assert done.returncode == 0, done.stderr
    assert marks(shadowed) == []
    bad = shadowed.cribsim("root", "tune", str(shadowed.cfg / "tune.yaml").replace("tune.yaml", "missing.yaml"))
    assert bad.returncode == 2


@needs_sandbox
@pytest.mark.parametrize("human", [False, True])
def test_play_sandboxes_a_plugin_unless_trusted(shadowed, human):
    seat = ["--human", "0", "--against"] if human else ["--strategy"]
    done = subprocess_input(shadowed, ["play", *seat, "mybot:Bot", "--seed", "3"], "q\n")
    assert done.returncode == 0, done.stderr
    assert marks(shadowed) == []
    trusted = subprocess_input(shadowed, ["play", *seat, "mybot:Bot", "--seed", "3", "--trusted"], "q\n")
    assert trusted.returncode == 0, trusted.stderr
    assert marks(shadowed) == ["ran-mybot"]


def subprocess_input(arena: Arena, args: list[str], text: str):
    import subprocess

    return subprocess.run(arena.command("root", *args), input=text, capture_output=True, text=True, timeout=300,
                          cwd=arena.cfg, env=arena.environ())
