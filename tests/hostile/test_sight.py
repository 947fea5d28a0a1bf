"""What a stranger's bot can see (issue 38: G1, G4): a bot is shown its own program and a scratch
folder, nothing of the organiser's. The spies (in C, in Python as a program, and as a Python
plug-in) look, at their first decision, for every file planted around them (the config, a
rules file, the organiser's notes, an earlier run's deal secret and records, the current run's,
another bot's program), for the organiser's exported token in every environment and memory they
can reach, and try to make a user namespace and a session of their own; what they found is the
match's forfeit message. As root and as an ordinary user."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import stat

import pytest

from cribsim.tournament.secret import read_secret, secret_seed
from tests.hostile.arena import (
    CORPUS,
    MODES,
    TOKEN,
    Arena,
    findings,
    needs_python3,
    needs_sandbox,
)

PLUGIN = '''

from strategies.greedy import GreedyStrategy


class Spy(GreedyStrategy):
    """The spy as a Python plug-in: it looks at its first decision and reports by raising."""

    name = "spy"

    def __init__(self, rng, paths=(), token=""):
        super().__init__(rng)
        self.paths, self.token = list(paths), token

    def discard(self, obs):
        raise RuntimeError(findings(self.paths, self.token))
'''

NOTHING = {"read": "0", "env": "0", "mem": "0", "token": "no", "userns": "no", "setsid": "no"}


def _entry(arena: Arena, spy: str) -> str:
    paths = ", ".join(f"'{p}'" for p in arena.planted())
    if spy == "plugin":
        (arena.cfg / "spyplug.py").write_text((CORPUS / "hostile.py").read_text() + PLUGIN)
        return f"{{name: plugin_spy, strategy: 'spyplug:Spy', params: {{paths: [{paths}], token: '{TOKEN}'}}}}"
    program = "./bots/hostile" if spy == "c" else "python3"
    first = [] if spy == "c" else ["bots/hostile.py"]
    words = ", ".join(f"'{w}'" for w in [program, *first, "spy", *arena.planted(), TOKEN])
    return f"{{name: {spy}_spy, command: [{words}]}}"


SPIES = ("c", "python", "plugin") if shutil.which("cc") else ("python", "plugin")


@needs_sandbox
@needs_python3
@pytest.mark.parametrize("mode", MODES)
def test_the_spies_see_nothing_of_the_organisers(arena, mode):
    """The spies in C (where a compiler is), in Python as a program and as a plug-in, in one run."""
    entries = "".join(f"  - {_entry(arena, spy)}\n" for spy in SPIES)
    pairings = ", ".join(f"[{spy}_spy, greedy]" for spy in SPIES)
    arena.config(f"name: sight\nvariants: [standard, house.yaml]\nlineup:\n{entries}"
                 "  - {name: theirs, command: [python3, theirs.py], cwd: other}\n  - greedy\n"
                 f"format: pairings\npairings: [{pairings}, [theirs, greedy]]\nmatches: 1\nrecord: all\n")
    done = arena.run(mode)
    assert done.returncode == 0, done.stderr
    charged = arena.forfeits()
    assert set(charged) == {f"{spy}_spy" for spy in SPIES}  # (theirs played honestly)
    for forfeit in (f for fs in charged.values() for f in fs):
        seen = findings(forfeit["error"])
        assert {k: seen[k] for k in NOTHING} == NOTHING, seen
        assert int(seen["procs"]) <= 2  # itself, and bubblewrap's init as root


@needs_sandbox
@needs_python3
def test_a_bot_shown_the_configs_folder_is_refused_before_it_starts(arena):
    arena.config("name: x\nlineup:\n  - {name: spy, command: [python3, bots/hostile.py], files: [.]}\n"
                 "  - greedy\nmatches: 1\n")
    done = arena.run("root")
    assert done.returncode == 2
    assert re.fullmatch(r"cribsim: .*exp\.yaml: key 'lineup\[0\]\.files': the bot would see the config or a rules "
                        r"file of the run \(.*exp\.yaml, in .*/cfg\): a bot is shown only its own files; .*\n",
                        done.stderr), done.stderr
    assert not arena.out.exists()


@needs_sandbox
@needs_python3
def test_a_bot_shown_another_bots_files_is_refused(arena):
    arena.config("name: x\nlineup:\n  - {name: mine, command: [python3, hostile.py], cwd: bots, files: [..]}\n"
                 "  - {name: theirs, command: [python3, theirs.py], cwd: other}\n  - greedy\nmatches: 1\n")
    done = arena.run("root")
    assert done.returncode == 2 and "the bot would see" in done.stderr, done.stderr


@needs_sandbox
@needs_python3
def test_a_results_folder_a_bot_would_see_is_refused_before_anything_is_written(arena):
    arena.config("name: x\nlineup:\n  - {name: mine, command: [python3, hostile.py], cwd: bots, files: [.]}\n"
                 "  - greedy\nmatches: 1\n")
    inside = arena.bots / "results"
    done = arena.run("root", "--out", str(inside))
    assert done.returncode != 0
    assert done.stderr.startswith(f"cribsim: --out {inside}: the bot 'mine' would see it"), done.stderr
    assert not inside.exists()


@needs_sandbox
@needs_python3
@pytest.mark.parametrize("mode", MODES)
def test_the_records_hold_no_seed_a_deck_follows_from_and_only_the_owner_reads_them(arena, mode):
    arena.config("name: x\nlineup:\n  - {name: mine, command: [python3, bots/hostile.py]}\n  - greedy\n"
                 "matches: 2\nrecord: all\n")
    done = arena.run(mode)
    assert done.returncode == 0, done.stderr
    secret = read_secret(arena.out)
    effective = str(secret_seed(1, secret))
    games = arena.out / "games" / "games.jsonl.gz"
    assert effective not in gzip.decompress(games.read_bytes()).decode()
    for path, mode_bits in ((games, 0o600), (games.parent, 0o700), (arena.out / "matches.jsonl.gz", 0o600),
                            (arena.out / "deal-secret", 0o600)):
        assert stat.S_IMODE(os.stat(path).st_mode) == mode_bits, path
    assert arena.replay(mode).returncode == 0
