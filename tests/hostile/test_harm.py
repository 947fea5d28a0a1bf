"""What a stranger's bot can do to the others and to the organiser (issue 38: G2, G3, G8, G9): a
bot's standard error is a pipe of the engine's, kept per entry in the results folder and
bounded, never the run's own; each bot's processes count against its own limits (its own user
id as root, its own user namespace otherwise); its memory is measured over all its processes;
and it computes only in its own turns."""

from __future__ import annotations

import subprocess

import pytest

from tests.hostile.arena import MODES, findings, needs_cc, needs_python3, needs_sandbox

CAP = 1 << 20  # cribsim.tournament.botlogs.CAP


@needs_sandbox
@needs_cc
def test_a_bot_cannot_kill_the_others_or_forge_the_log_through_standard_error(arena):
    """The stderr killer grows its standard error to 64 MiB and writes a forged line at its end;
    where that was the organiser's log (a file, as on Ray always), every later write of another
    sandboxed bot passed its file-size limit. Now it writes into its own pipe: the logger plays
    every match, the log holds no forged line, and both bots' words are in bots/ (on Ray:
    test_ray.py)."""
    arena.config("name: harm\nlineup:\n  - {name: killer, command: [./bots/hostile, stderr_killer]}\n"
                 "  - {name: logger, command: [./bots/hostile, logger]}\n  - greedy\nmatches: 4\n")
    log = arena.base / "organiser.log"
    with open(log, "w") as f:
        argv = ["run", "exp.yaml", "--quiet", "--out", str(arena.out), "--serial"]
        done = subprocess.run(arena.command("root", *argv), stdout=subprocess.PIPE, stderr=f, text=True, timeout=600,
                              cwd=arena.cfg, env=arena.environ())
    assert done.returncode == 0, log.read_text()[-2000:]
    assert arena.forfeits() == {}
    assert log.stat().st_size < 10_000 and "forged" not in log.read_text()
    assert "forged by the stderr killer" in (arena.out / "bots" / "killer.stderr").read_text()
    assert "logger: request" in (arena.out / "bots" / "logger.stderr").read_text()


@needs_sandbox
@needs_cc
def test_a_bots_standard_error_is_bounded(arena):
    arena.config("name: flood\nlineup:\n  - {name: flood, command: [./bots/hostile, flood, '100']}\n  - greedy\n"
                 "matches: 3\n")
    done = arena.run("root")
    assert done.returncode == 0, done.stderr
    files = sorted((arena.out / "bots").iterdir())
    assert [f.name for f in files] in (["flood.stderr"], ["flood.stderr", "flood.stderr.1"])
    assert all(f.stat().st_size <= CAP for f in files)
    assert "more bytes of standard error left out" in files[0].read_text()


@needs_sandbox
@needs_cc
@pytest.mark.parametrize("mode", MODES)
def test_a_bot_holding_its_processes_stops_no_later_bot_from_starting(arena, mode):
    """The holder keeps 64 processes, its limit, for the whole run; seventeen bots start after
    it. As root, sandbox user ids came back every 16 bot starts, and the process limit counts per
    user id: one of them could not start and the run failed, blamed on it. (As an ordinary user
    each bot's own user namespace counts its processes apart, on Linux 5.14 and later: that case
    held before too, and is kept so.)"""
    others = [f"b{i}" for i in range(17)]
    lineup = "".join(f"  - {{name: {n}, command: [./bots/hostile]}}\n" for n in others)
    pairings = ", ".join(f"[{n}, greedy]" for n in ["holder", *others])
    arena.config(f"name: uids\nlineup:\n  - {{name: holder, command: [./bots/hostile, holder, '63']}}\n{lineup}"
                 f"  - greedy\nformat: pairings\npairings: [{pairings}]\nmatches: 1\nmatch: {{first_to: 1}}\n")
    done = arena.run(mode)
    assert done.returncode == 0, done.stderr
    assert arena.forfeits() == {}
    assert len(arena.records()) == 36  # (each match and its seat-swapped twin)


@needs_sandbox
@needs_cc
@pytest.mark.parametrize("mode", MODES)
def test_a_bots_memory_is_counted_over_all_its_processes(arena, mode):
    """Twelve processes of 200 MiB each, under a limit of 512 MiB: each process is within it,
    the bot is not. It is charged, and the run goes on."""
    arena.config("name: mem\nlineup:\n  - {name: hog, command: [./bots/hostile, memhog, '200', '12']}\n  - greedy\n"
                 "matches: 2\nsandbox: {memory_mb: 512, processes: 32}\ntime_limit: 20\n")
    done = arena.run(mode)
    assert done.returncode == 0, done.stderr
    charged = arena.forfeits()
    assert list(charged) == ["hog"] and len(charged["hog"]) == 2
    for f in charged["hog"]:
        assert f["kind"] == "crash"
        assert "over its memory limit of 512 MiB" in f["error"], f["error"]


@needs_sandbox
@needs_python3
@pytest.mark.parametrize("mode", MODES)
def test_a_bot_computes_only_in_its_own_turns(arena, mode):
    """A child of the bot computes without end; at its 20th decision the bot reports the child's
    processor time and the wall time since it started it (its opponent takes 20 ms a decision).
    Never stopped, the child had about a core all along; stopped between the bot's turns, it has
    only the bot's own short turns."""
    arena.config("name: bg\nlineup:\n  - {name: bg, command: [python3, bots/hostile.py, background]}\n"
                 "  - {name: slow, command: [python3, bots/hostile.py, slow, '0.02']}\n"
                 "format: pairings\npairings: [[bg, slow]]\nmatches: 1\nmatch: {first_to: 2}\ntime_limit: 20\n")
    done = arena.run(mode)
    assert done.returncode == 0, done.stderr
    charged = arena.forfeits()
    assert list(charged) == ["bg"], charged
    for forfeit in charged["bg"]:
        seen = findings(forfeit["error"])
        assert float(seen["wall"]) > 0.2 and float(seen["cpu"]) < 0.25 * float(seen["wall"]), seen
