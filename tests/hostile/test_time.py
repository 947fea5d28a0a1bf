"""Time that is fair (issue 38: G9, G10). Every decision is charged by the same clock and rule: a
built-in or a trusted plug-in playing in the engine's process, a sandboxed plug-in and a
program each taking 10% over the time limit are all charged a timeout (in-process decisions
were caught only after 1 to 1.25 limits). Start-up has a limit of its own (``hello_limit``), and
a bot that cannot be started again and again is retired from the run instead of stalling it.
(A bot's processes are stopped between its turns: tests/hostile/test_harm.py.)"""

from __future__ import annotations

import time

import pytest

from cribsim.errors import ConfigError
from cribsim.isolation.bots import Bot
from cribsim.isolation.plugin import RETIRE_AFTER, Isolated, PluginFault, check
from cribsim.isolation.sandbox import Limits
from cribsim.ruleset import load_rules
from cribsim.tournament.config import load_experiment
from tests.hostile.arena import needs_python3, needs_sandbox

SLOW = "tests.hostile.slowpokes:Overrun"


@needs_sandbox
@needs_python3
def test_a_decision_over_the_limit_is_charged_wherever_it_is_played(arena):
    """0.22 s against a limit of 0.2, once a match, four matches each: in the engine's process
    (a trusted plug-in, as built-ins play), in the sandbox (a plug-in), and a program."""
    arena.config(f"name: slow\nlineup:\n  - {{name: inproc, strategy: '{SLOW}', trusted: true}}\n"
                 f"  - {{name: boxed, strategy: '{SLOW}'}}\n"
                 "  - {name: program, command: [python3, bots/hostile.py, slow, '0.22']}\n  - greedy\n"
                 "format: pairings\npairings: [[inproc, greedy], [boxed, greedy], [program, greedy]]\n"
                 "matches: 4\ntime_limit: 0.2\n")
    done = arena.run("root")
    assert done.returncode == 0, done.stderr
    charged = arena.forfeits()
    assert sorted(charged) == ["boxed", "inproc", "program"]
    for name, forfeits in charged.items():
        assert len(forfeits) == 4 and {f["kind"] for f in forfeits} == {"timeout"}, (name, forfeits)
        assert {f["error"] for f in forfeits} == {"a decision took over 0.2 s"}


@needs_sandbox
@needs_python3
def test_start_up_has_its_own_limit(arena):
    arena.config("name: sleepy\nlineup:\n  - {name: sleepy, command: [python3, bots/hostile.py, sleepy_hello, '30']}\n"
                 "  - greedy\nmatches: 1\nhello_limit: 1\n")
    began = time.monotonic()
    with pytest.raises(ConfigError, match=r"bot 'sleepy': loading it took over 1 s \(the config's hello_limit\)"):
        load_experiment(arena.cfg / "exp.yaml")
    assert time.monotonic() - began < 10


class _Relapsing(Bot):
    """A program that starts well once, then hangs at every hello (as a bot that needs
    restarting again and again might)."""

    def launch(self):  # type: ignore[override]
        starts = self.__dict__.setdefault("_starts", [0])
        starts[0] += 1
        bot = self if starts[0] == 1 else Bot(command=(*self.command[:2], "sleepy_hello", "30"), cwd=self.cwd,
                                              files=self.files, limits=self.limits)
        return Bot.launch(bot)


@needs_sandbox
@needs_python3
def test_a_bot_that_cannot_be_started_again_is_retired_instead_of_stalling_the_run(arena):
    rules = load_rules("standard")
    script = str(arena.bots / "hostile.py")
    bot = _Relapsing(command=("python3", script), cwd=str(arena.bots), files=(script,),
                     limits=Limits(hello_limit=0.5))
    caps = check("program:relapsing", {}, (rules,), "cribbage", Bot(command=("python3", script), cwd=str(arena.bots),
                                                                      files=(script,)))
    iso = Isolated("program:relapsing", {}, "cribbage", (rules,), 5.0, caps, bot)
    try:
        iso.make(0, rules)  # its first start: it plays
        iso.links[0].kill()  # (as after a fault of its own)
        for _ in range(RETIRE_AFTER):
            with pytest.raises(PluginFault, match="it could not be started again: .*took over 0.5 s"):
                iso.make(0, rules)
        assert "retired from the run" in iso.retired_news() and iso.retired_news() == ""
        began = time.monotonic()
        with pytest.raises(PluginFault, match="retired from the run: it could not be started 3 times in a row"):
            iso.make(0, rules)
        assert time.monotonic() - began < 0.1  # no start tried
    finally:
        iso.close()
