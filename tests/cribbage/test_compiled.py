"""The optional compiled lane (setup.py, CRIBSIM_COMPILE=1: the hot modules compiled by mypyc)
plays exactly the games of the pure Python engine: the same source, built here into a scratch
copy, then the same games compared event by event for a spread of rules files and strategies
(``expert`` among them: its reading replays the play through the compiled engine). The C code is
built without optimisation (25 s instead of 57 s here): mypyc's translation is what could change a
game, not the C compiler's optimiser. ``CRIBSIM_COMPILE_OPT=3 python -m pytest
tests/cribbage/test_compiled.py`` checks the shipped -O3 build the same way."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

GAMES = """
import hashlib, json, sys
import cribsim
from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.match import play_match
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory
out = {"compiled": cribsim.compiled()}
for preset, names in (("standard", ("random", "ev")), ("five_card", ("mc", "random")), ("jokers", ("ev", "greedy")),
                      ("four_player_partners", ("random", "ev", "hoyle", "ev")), ("lowball", ("ev", "random")),
                      ("canadian_doubles", ("ev", "random", "ev", "random")), ("three_player_team_inspect",
                      ("ev", "random", "greedy")), ("muggins", ("ev", "ev")), ("auction", ("ev", "random")),
                      ("standard", ("expert", "ev"))):
    rules = load_rules(preset)
    params = {"mc": {"rollouts": 4, "discard_rollouts": 4},
              "expert": {"rollouts": 4, "board_samples": 4, "board_from": 60}}
    h = hashlib.sha256()
    for key in range(3):
        m = play_match(rules, [factory(n, params.get(n)) for n in names], 11, key, log=True,
                       counters=[(0.1, 0.5)] * rules.players if preset == "muggins" else None)
        h.update(repr([(g.scores, g.events) for g in m.games]).encode())
    out[preset + "/" + "-".join(names)] = h.hexdigest()
print(json.dumps(out))
"""


def _start(path_entry):
    env = dict(os.environ, PYTHONPATH=str(path_entry))
    return subprocess.Popen([sys.executable, "-c", GAMES], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=path_entry)


def _hashes(game):
    out, err = game.communicate(timeout=600)
    assert game.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def _build(tmp_path):
    """The compiled lane built in a scratch copy of the source; its folder."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("cribsim", "strategies", "configs"):
        shutil.copytree(ROOT / name, src / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    env = dict(os.environ, CRIBSIM_COMPILE="1", CRIBSIM_COMPILE_OPT=os.environ.get("CRIBSIM_COMPILE_OPT", "0"))
    build = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace", "--parallel", "2"],
                           cwd=src, env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, (build.stdout + build.stderr)[-3000:]
    assert list((src / "cribsim" / "games" / "cribbage" / "engine").glob("state*.so"))
    return src


def test_the_compiled_lane_plays_the_same_games(tmp_path):
    pure = _start(ROOT)  # plays beside the build, which keeps one core busy
    try:
        src = _build(tmp_path)
    except BaseException:
        pure.kill()
        pure.communicate()
        raise
    pure, fast = _hashes(pure), _hashes(_start(src))
    assert pure.pop("compiled") is False and fast.pop("compiled") is True
    assert fast == pure
    assert len(pure) == 10  # nine rule sets, and expert (reading, rollouts, the board) in the standard game
