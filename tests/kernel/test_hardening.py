"""Hardening: every failure of `cribsim` is one line (`cribsim: ...`), exit 2 for bad input and 1
for a run that failed, no traceback, and nothing already written is lost or deleted.

A corpus of bad configs (every class of the hardening issue: run-time failures that passed
validation, tracebacks before anything was written, alias bombs, silent surprises), bad
command lines and damaged results folders; then the runner's own failures (a bug in a match,
a full disk, Ctrl-C, a dying raylet), the folder lock, --fresh and report."""

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from cribsim import lock
from cribsim.cli.main import main
from cribsim.errors import CribsimError, RunFailed
from cribsim.tournament import manifest as manifest_module
from cribsim.tournament import raycluster, runner, sink
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from tests.kernel.matchfile import match_dicts, match_lines, write_matches

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p))


@pytest.fixture(autouse=True)
def _restore_sys_path():
    saved = list(sys.path)
    yield
    sys.path[:] = saved


def snapshot(folder):
    """Every file under ``folder`` (bytes), caches aside: to prove nothing changed."""
    folder = Path(folder)
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else "<dir>")
            for p in sorted(folder.rglob("*")) if "__pycache__" not in p.parts}


def one_line(err, code, expected):
    lines = err.splitlines()
    assert code == expected, (code, err)
    assert "Traceback" not in err, err
    assert len(lines) == 1 and lines[0].startswith("cribsim"), err


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- the corpus of bad configs --------------------------------------------------------------------

GOOD = "name: x\nlineup: [random, greedy]\nmatches: 2\n"


def bomb(levels=9, width=9):
    """A "billion laughs" alias bomb: width**levels strings from a few hundred bytes."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * width) + "]")
    return lines


def deep(n):
    return "[" * n + "]" * n


PLAIN_CLASS = "class Plain:\n    def discard(self, obs):\n        return list(obs.hand[:obs.discards])\n" \
              "    def play(self, obs):\n        return obs.legal[0]\n"
BASED_CLASS = "from cribsim.strategy import Strategy\nclass Bot(Strategy):\n" \
              "    def __init__(self, rng, depth=2):\n        super().__init__(rng)\n        self.depth = depth\n" \
              "    def discard(self, obs):\n        return list(obs.hand[:obs.discards])\n" \
              "    def play(self, obs):\n        return obs.legal[0]\n"
ALIASES_101 = "a: &a 1\nlineup: [random, greedy]\nmatches: 2\nname: x\ndescription: " \
              "[" + ", ".join(["*a"] * 101) + "]\n"

# (id, config text or bytes, a fragment of the one-line error, extra files {name: text or bytes});
# {mod} in a text is replaced by a module name unique to the test
BAD_CONFIGS = [
    # 1-2: configs that passed validation and failed (or never finished) at run time
    ("continued-two-sides", GOOD + "match: {scoring: continued}\n", "continued play", {}),
    ("wta-two-sides", GOOD + "match: {scoring: winner_takes_all}\n", "winner_takes_all", {}),
    ("continued-four-sides", "name: x\nvariants: [four_player]\nlineup: [a1, a2, a3, a4]\nmatches: 2\n"
     "match: {scoring: continued}\n".replace("a1, a2, a3, a4", "random, greedy, hoyle, ev"), "continued play", {}),
    ("seed-huge", GOOD + "seed: " + str(2 ** 200) + "\n", "key 'seed'", {}),
    ("seed-2**64", GOOD + "seed: " + str(2 ** 64) + "\n", "key 'seed'", {}),
    ("seed-negative", GOOD + "seed: -1\n", "key 'seed'", {}),
    ("seed-float", GOOD + "seed: 1.5\n", "key 'seed'", {}),
    ("seed-bool", GOOD + "seed: true\n", "key 'seed'", {}),
    ("seed-date", GOOD + "seed: 2001-12-14\n", "key 'seed'", {}),
    ("time-limit-nan", GOOD + "time_limit: .nan\n", "key 'time_limit'", {}),
    ("time-limit-inf", GOOD + "time_limit: .inf\n", "key 'time_limit'", {}),
    ("time-limit-zero", GOOD + "time_limit: 0\n", "key 'time_limit'", {}),
    ("time-limit-hours", GOOD + "time_limit: 7200\n", "key 'time_limit'", {}),
    ("sides-float", "name: x\nvariants: [{name: v, extends: standard, sides: [[0.0], [1]]}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "sides", {}),
    ("sides-string", "name: x\nvariants: [{name: v, extends: standard, sides: [[0, \"a\"], [1]]}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "sides", {}),
    ("target-1e15", "name: x\nvariants: [{name: v, extends: standard, target: 1000000000000000}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "target", {}),
    ("target-float", "name: x\nvariants: [{name: v, extends: standard, target: 1.0e+15}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "target", {}),
    ("target-above-10000", "name: x\nvariants: [{name: v, extends: standard, target: 10001}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "10000", {}),
    ("matches-1e12", "name: x\nlineup: [random, greedy]\nmatches: 1000000000000\n", "key 'matches'", {}),
    ("matches-zero", "name: x\nlineup: [random, greedy]\nmatches: 0\n", "key 'matches'", {}),
    ("matches-text", "name: x\nlineup: [random, greedy]\nmatches: '10'\n", "key 'matches'", {}),
    ("matches-missing", "name: x\nlineup: [random, greedy]\n", "key 'matches'", {}),
    ("matches-total", "name: x\nlineup: [random, greedy, hoyle]\nmatches: 100000000\n", "at most", {}),
    ("first-to-1e9", GOOD + "match: {first_to: 1000000000}\n", "match.first_to", {}),
    ("games-5000", GOOD + "match: {games: 5000}\n", "match.games", {}),
    ("games-zero", GOOD + "match: {games: 0}\n", "match.games", {}),
    ("rules-first-to-huge", "name: x\nvariants: [{name: v, extends: standard, match: {first_to: 100000}}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "first_to", {}),
    ("sprt-alpha-nan", GOOD + "stop: {sprt: {elo0: 0, elo1: 20, alpha: .nan}}\n", "stop.sprt.alpha", {}),
    ("sprt-elo-inf", GOOD + "stop: {sprt: {elo0: 0, elo1: .inf}}\n", "stop.sprt.elo1", {}),
    ("sprt-beta-big", GOOD + "stop: {sprt: {elo0: 0, elo1: 20, beta: 0.7}}\n", "stop.sprt.beta", {}),
    ("sprt-test-list", GOOD + "stop: {sprt: {test: [1]}}\n", "stop.sprt.test", {}),
    ("miss-rate-nan", "name: x\nlineup: [{strategy: random, miss_rate: .nan}, greedy]\nmatches: 2\n",
     "miss_rate", {}),
    # 3: tracebacks before anything was written
    ("config-not-utf8", b"name: x\nlineup: [random, greedy]\nmatches: 2\ndescription: caf\xe9\n", "not UTF-8", {}),
    ("config-nul-byte", "name: x\x00\nlineup: [random, greedy]\nmatches: 2\n", "invalid YAML", {}),
    ("nesting-10000", "name: x\nlineup: [random, greedy]\nmatches: 2\ndescription: " + deep(10000) + "\n",
     "nested more than 50", {}),
    ("nesting-in-params", "name: x\nlineup: [random, {strategy: greedy, params: {p: " + deep(60) + "}}]\n"
     "matches: 2\n", "nested more than 50", {}),
    ("name-nul", 'name: "a\\0b"\nlineup: [random, greedy]\nmatches: 2\n', "key 'name'", {}),
    ("name-300-bytes", "name: " + "n" * 300 + "\nlineup: [random, greedy]\nmatches: 2\n", "key 'name'", {}),
    ("name-dotdot", "name: '..'\nlineup: [random, greedy]\nmatches: 2\n", "key 'name'", {}),
    ("name-dot", "name: '.'\nlineup: [random, greedy]\nmatches: 2\n", "key 'name'", {}),
    ("name-slash", "name: a/b\nlineup: [random, greedy]\nmatches: 2\n", "key 'name'", {}),
    ("name-empty", "name: ''\nlineup: [random, greedy]\nmatches: 2\n", "key 'name'", {}),
    ("name-list", "name: [1]\nlineup: [random, greedy]\nmatches: 2\n", "key 'name'", {}),
    ("variant-name-slash", "name: x\nvariants: [{name: a/b, extends: standard}]\nlineup: [random, greedy]\n"
     "matches: 2\n", "variants[0].name", {}),
    ("variant-name-long", "name: x\nvariants: [{name: " + "v" * 300 + ", extends: standard}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "variants[0]", {}),
    ("entry-name-nul", 'name: x\nlineup: [{name: "r\\0", strategy: random}, greedy]\nmatches: 2\n',
     "lineup[0].name", {}),
    ("entry-name-newline", 'name: x\nlineup: [{name: "r\\nx", strategy: random}, greedy]\nmatches: 2\n',
     "lineup[0].name", {}),
    ("strategy-colon-only", "name: x\nlineup: [random, {strategy: ':Bot'}]\nmatches: 2\n", "module:Class", {}),
    ("strategy-relative", "name: x\nlineup: [random, {strategy: '.x:Bot'}]\nmatches: 2\n", "module:Class", {}),
    ("strategy-os-system", "name: x\nlineup: [random, {strategy: 'os:system'}]\nmatches: 2\n",
     "not a strategy class", {}),
    ("strategy-sys-exit", "name: x\nlineup: [random, {strategy: 'sys:exit'}]\nmatches: 2\n",
     "not a strategy class", {}),
    ("strategy-not-strategy-class", "name: x\nlineup: [random, {strategy: 'collections:OrderedDict'}]\n"
     "matches: 2\n", "no discard or play method", {}),
    ("strategy-no-module", "name: x\nlineup: [random, {strategy: 'nosuchmodule_zz:Bot'}]\nmatches: 2\n",
     "cannot import module", {}),
    ("strategy-no-attr", "name: x\nlineup: [random, {strategy: '{mod}:Nope'}]\nmatches: 2\n", "has no 'Nope'",
     {"{mod}.py": "X = 1\n"}),
    ("plugin-raises", "name: x\nlineup: [random, {strategy: '{mod}:Bot'}]\nmatches: 2\n", "RuntimeError: nope",
     {"{mod}.py": "raise RuntimeError('nope')\n"}),
    ("plugin-syntax-error", "name: x\nlineup: [random, {strategy: '{mod}:Bot'}]\nmatches: 2\n", "syntax error",
     {"{mod}.py": "def broken(:\n"}),
    ("plugin-sys-exit-0", "name: x\nlineup: [random, {strategy: '{mod}:Bot'}]\nmatches: 2\n", "sys.exit(0)",
     {"{mod}.py": "import sys\nsys.exit(0)\n"}),
    ("plugin-base-exception", "name: x\nlineup: [random, {strategy: '{mod}:Bot'}]\nmatches: 2\n",
     "GeneratorExit", {"{mod}.py": "raise GeneratorExit('odd')\n"}),
    ("plain-class-unknown-param", "name: x\nlineup: [random, {strategy: '{mod}:Plain', params: {depth: 2}}]\n"
     "matches: 2\n", "takes no parameter 'depth'", {"{mod}.py": PLAIN_CLASS}),
    ("plugin-unknown-param", "name: x\nlineup: [random, {strategy: '{mod}:Bot', params: {deep: 2}}]\n"
     "matches: 2\n", "takes no parameter 'deep' (it takes depth)", {"{mod}.py": BASED_CLASS}),
    ("plugin-init-raises", "name: x\nlineup: [random, {strategy: '{mod}:Bot', params: {depth: -1}}]\n"
     "matches: 2\n", "ValueError", {"{mod}.py": BASED_CLASS.replace(
         "self.depth = depth", "self.depth = depth\n        if depth < 0:\n            raise ValueError('depth')")}),
    ("rules-file-not-utf8", "name: x\nvariants: [mine.yaml]\nlineup: [random, greedy]\nmatches: 2\n",
     "not UTF-8", {"mine.yaml": b"name: mine\ntarget: 61\n# \xff\n"}),
    ("rules-file-too-big", "name: x\nvariants: [big.yaml]\nlineup: [random, greedy]\nmatches: 2\n",
     "larger than", {"big.yaml": "name: big\n" + "#" * 1_100_000 + "\n"}),
    ("config-too-big", GOOD + "#" * 1_100_000 + "\n", "larger than", {}),
    ("params-set", "name: x\nlineup: [random, {strategy: greedy, params: {p: !!set {a, b}}}]\nmatches: 2\n",
     "JSON data", {}),
    ("params-nan", "name: x\nlineup: [random, {strategy: '{mod}:Bot', params: {depth: .nan}}]\nmatches: 2\n",
     "finite number", {"{mod}.py": BASED_CLASS}),
    ("params-python-tag", "name: x\nlineup: [random, {strategy: greedy, params: {p: !!python/object:os.system x}}]"
     "\nmatches: 2\n", "invalid YAML", {}),
    ("duplicate-key", GOOD + "matches: 5\n", "duplicate key 'matches'", {}),
    ("top-level-list", "- name: x\n- lineup: [random]\n", "mapping", {}),
    ("integer-5000-digits", GOOD + "seed: 1" + "0" * 5000 + "\n", "invalid YAML", {}),
    ("description-list", GOOD + "description: [1]\n", "description", {}),
    ("pairings-mapping", "name: x\nlineup: [random, greedy]\nformat: pairings\npairings: [[{a: 1}, random]]\n"
     "matches: 2\n", "pairings[0]", {}),
    ("lineup-101", "name: x\nlineup: [" + ", ".join(f"{{name: e{i}, strategy: random}}" for i in range(101)) +
     "]\nmatches: 2\n", "at most 100", {}),
    ("game-list", "name: x\ngame: [1]\nlineup: [random, greedy]\nmatches: 2\n", "key 'game'", {}),
    ("format-list", GOOD + "format: [1]\n", "key 'format'", {}),
    ("unknown-key-newline", GOOD + '"bad\\nkey": 1\n', "unknown key", {}),
    # 4: alias bombs
    ("bomb-ignored-key", "name: x\nlineup: [random, greedy]\nmatches: 2\ndescription:\n" +
     "\n".join("  " + ln for ln in bomb()) + "\n", "alias bomb", {}),
    ("bomb-in-params", "name: x\nlineup:\n  - random\n  - strategy: greedy\n    params:\n" +
     "\n".join("      " + ln for ln in bomb()) + "\nmatches: 2\n", "alias bomb", {}),
    ("recursive-alias", "name: x\nlineup: [random, {strategy: greedy, params: &p {me: *p}}]\nmatches: 2\n",
     "recursive alias", {}),
    ("aliases-101", ALIASES_101, "more than 100 aliases", {}),
    # 12: silent surprises
    ("missing-rules-path", "name: x\nvariants: [myrules/short_game_61.yaml]\nlineup: [random, greedy]\n"
     "matches: 2\n", "no such rules file", {}),
    ("missing-rules-file", "name: x\nvariants: [short_game_61.yaml]\nlineup: [random, greedy]\nmatches: 2\n",
     "no such rules file", {}),
    ("missing-extends-path", "name: x\nvariants: [{name: v, extends: /nonexistent/standard.yaml}]\n"
     "lineup: [random, greedy]\nmatches: 2\n", "extends", {}),
]


@pytest.mark.parametrize("case", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_config_is_one_line_exit_2_nothing_written(tmp_path, capsys, case):
    _, text, fragment, extra = case
    mod = f"plug_{uuid.uuid4().hex[:10]}"
    cfg = tmp_path / "exp.yaml"
    cfg.write_bytes(text if isinstance(text, bytes) else text.replace("{mod}", mod).encode())
    for name, content in extra.items():
        data = content if isinstance(content, bytes) else content.encode()
        (tmp_path / name.replace("{mod}", mod)).write_bytes(data)
    before = snapshot(tmp_path)
    out = tmp_path / "out"
    code, _, err = cli(["run", cfg, "--serial", "--out", out], capsys)
    one_line(err, code, 2)
    assert fragment in err, err
    assert str(cfg) in err
    assert not out.exists() and not (tmp_path / "results").exists()
    assert snapshot(tmp_path) == before
    # the same config is refused the same way without --serial, before any Ray or child process
    code, _, err2 = cli(["run", cfg, "--out", out], capsys)
    assert code == 2 and err2 == err


def test_the_corpus_is_big_enough():
    assert len(BAD_CONFIGS) >= 60


def test_a_plain_class_and_plug_ins_beside_the_config(tmp_path, capsys, monkeypatch):
    # the README's "a class with discard(obs) and play(obs)" works without the base class, and
    # modules are found beside the config, not only in the working directory
    mod = f"plain_{uuid.uuid4().hex[:10]}"
    sub = tmp_path / "cfgs"
    sub.mkdir()
    (sub / f"{mod}.py").write_text(PLAIN_CLASS)
    (sub / "exp.yaml").write_text(f"name: plain\nlineup: [random, {{name: p, strategy: '{mod}:Plain'}}]\nmatches: 4\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, err = cli(["run", sub / "exp.yaml", "--serial", "--quiet", "--out", tmp_path / "out"], capsys)
    assert code == 0, err
    recs = match_dicts(tmp_path / "out")
    assert len(recs) == 4 and all(r["forfeit"] is None for r in recs)


# ---- bad command lines ----------------------------------------------------------------------------

def _cli_cases(tmp):
    cfg = tmp / "exp.yaml"
    cfg.write_text("name: x\nlineup: [random, greedy]\nmatches: 2\n")
    (tmp / "a_file").write_text("not a folder")
    mydata = tmp / "mydata"
    mydata.mkdir()
    (mydata / "results.csv").write_text("a,b\n1,2\n")
    (mydata / "figure.png").write_bytes(b"\x89PNG...")
    (mydata / "summary.md").write_text("my notes\n")
    other = tmp / "other_tool"
    other.mkdir()
    (other / "manifest.json").write_text('{"tool": "other", "files": ["a"]}\n')
    (tmp / "a_dir.yaml").mkdir()
    (tmp / "batch.txt").write_text("5H 5C 5S JD 5D\n")
    return [
        (["run", cfg, "--fresh", "--resume", "--serial"], "--fresh", 2),
        (["run", cfg, "--serial", "--workers", "2"], "--serial", 2),
        (["run", cfg, "--serial", "--address", "127.0.0.1:1"], "--serial", 2),
        (["run", cfg, "--workers", "0"], "--workers", 2),
        (["run", cfg, "--workers", "100000"], "--workers", 2),
        (["run", cfg, "--serial", "--seed", str(2 ** 64)], "--seed", 2),
        (["run", cfg, "--serial", "--seed", "-1"], "--seed", 2),
        (["run", cfg, "--serial", "--seed", "abc"], "--seed", 2),
        (["run", cfg, "--serial", "--out", tmp / "a_file"], "not a folder", 2),
        (["run", cfg, "--serial", "--out", tmp / "a_file" / "sub"], "is a file", 2),
        (["run", cfg, "--serial", "--out", mydata], "not cribsim's", 2),
        (["run", cfg, "--serial", "--out", mydata, "--fresh"], "not cribsim's", 2),
        (["run", cfg, "--serial", "--out", other], "not a cribsim manifest", 2),
        (["run", cfg, "--out", other, "--fresh"], "not a cribsim manifest", 2),
        (["run", cfg, "--serial", "--resume", "--out", tmp / "never"], "nothing to resume", 2),
        (["run", tmp / "a_dir.yaml", "--serial"], "not a regular file", 2),
        (["run", tmp / "absent.yaml", "--serial"], "no such experiment file", 2),
        (["run", cfg, "--address", "127.0.0.1:1", "--out", tmp / "o"], "cannot reach", 2),
        (["play", "--seed", str(2 ** 200)], "--seed", 2),
        (["play", "--seed", "-5"], "--seed", 2),
        (["play", "--rules", "/nonexistent/five_card.yaml"], "no such rules file", 2),
        (["play", "--rules", "myrules/short_game_61.yaml"], "no such rules file", 2),
        (["play", "--miss-rate", "nan"], "--miss-rate", 2),
        (["play", "--strategy", "os:system"], "not a strategy class", 2),
        (["score", "5H", "5C", "5S", "--starter", "JD"], "4 cards", 2),
        (["score", "5H", "5C", "5S", "JD", "--starter", "5D", "--rules", "/nonexistent.yaml"], "no such rules", 2),
        (["score", "--batch", tmp / "a_dir.yaml"], "cannot read", 2),
        (["report", tmp / "nowhere"], "no such folder", 2),
        (["report", tmp / "a_file"], "not a folder", 2),
        (["report", mydata], "no manifest.json", 2),
        (["report", other], "not a cribsim manifest", 2),
    ]


def test_bad_command_lines_are_one_line_and_lose_nothing(tmp_path, capsys):
    cases = _cli_cases(tmp_path)
    assert len(cases) >= 20
    for argv, fragment, expected in cases:
        before = snapshot(tmp_path)
        code, out, err = cli(argv, capsys)
        one_line(err, code, expected)
        assert fragment in err, (argv, err)
        assert snapshot(tmp_path) == before, argv


def test_batch_lines_that_are_not_text_are_errors_for_that_line(tmp_path, capsys):
    batch = tmp_path / "hands.txt"
    batch.write_bytes(b"5H 5C 5S JD 5D\n5H 5C 5S JD\n\xff\xfe 5H\n" + b"5H " * 5000 + b"\n2H 4H 5H 6H 3D crib\n")
    code, out, err = cli(["score", "--batch", batch], capsys)
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and err == ""
    assert [x.get("total") for x in lines] == [29, None, None, None, 9]
    assert "starter is the last card" in lines[1]["error"]  # a forgotten starter, not a 3-card hand
    assert "not UTF-8" in lines[2]["error"] and "longer than" in lines[3]["error"]


def test_an_internal_error_is_one_line_and_debug_shows_the_traceback(capsys, monkeypatch):
    import cribsim.cli.catalog as cli_mod

    def boom(args):
        raise ValueError("a bug\nwith two lines")

    monkeypatch.setattr(cli_mod, "cmd_list", boom)  # the parser is built per call: it takes this
    code, _, err = cli(["list"], capsys)
    one_line(err, code, 1)
    assert "internal error: ValueError: a bug" in err and "CRIBSIM_DEBUG" in err
    monkeypatch.setenv("CRIBSIM_DEBUG", "1")
    code, _, err = cli(["list"], capsys)
    assert code == 1 and "Traceback" in err and err.splitlines()[-1].startswith("cribsim: internal error")


# ---- damaged results folders -----------------------------------------------------------------------

SMALL = "name: small\nlineup: [random, greedy]\nmatches: 20\nseed: 3\n"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A complete small run to damage in copies."""
    base = tmp_path_factory.mktemp("finished")
    cfg = base / "small.yaml"
    cfg.write_text(SMALL)
    run_experiment(load_experiment(cfg), base / "run", serial=True, quiet=True)
    return base / "run"


def _damage(folder, how):
    m = folder / "manifest.json"
    j = folder / "matches.jsonl.gz"
    if how == "committed":  # like results/ladder in git: no records
        j.unlink()
    elif how == "truncated-manifest":
        m.write_bytes(m.read_bytes()[:200])
    elif how == "list-manifest":
        m.write_text("[1, 2, 3]\n")
    elif how == "empty-manifest":
        m.write_text("")
    elif how == "binary-manifest":
        m.write_bytes(b"\xff\xfe\x00garbage")
    elif how == "other-tool-manifest":
        m.write_text('{"tool": "other", "version": 3}\n')
    elif how == "evil-variant-name":
        d = json.loads(m.read_text())
        d["variants"][0]["name"] = "../../evil"
        m.write_text(json.dumps(d))
    elif how == "no-variants":
        d = json.loads(m.read_text())
        del d["variants"]
        m.write_text(json.dumps(d))
    elif how == "manifest-is-a-folder":
        m.unlink()
        m.mkdir()
    elif how == "no-manifest":
        m.unlink()
    elif how == "records-is-a-folder":
        j.unlink()
        j.mkdir()
    elif how == "records-wrong-shape":
        write_matches(folder, ['{"schema": 3, "id": "0.0.0.0", "variant": "x"}'] * 3)
    elif how == "records-not-gzip":
        j.write_text('{"schema": 3, "id": "0.0.0.0"}\n')
    elif how == "records-schema-2":  # an older cribsim's plain matches.jsonl
        j.unlink()
        (folder / "matches.jsonl").write_text('{"schema": 2, "id": "0.0.0.0"}\n')
    elif how == "locked":
        pass  # see the test


REFUSED = [
    ("committed", "no matches.jsonl.gz"),
    ("truncated-manifest", "not valid JSON"),
    ("list-manifest", "expected a JSON object"),
    ("empty-manifest", "not valid JSON"),
    ("binary-manifest", "not UTF-8"),
    ("other-tool-manifest", "not a cribsim manifest"),
    ("evil-variant-name", "damaged manifest"),
    ("no-variants", "damaged manifest"),
    ("manifest-is-a-folder", "not a file"),
    ("no-manifest", "no manifest.json"),
    ("records-is-a-folder", "not a file"),
    ("records-wrong-shape", "wrong shape"),
    ("records-not-gzip", "not a gzip file"),
    ("records-schema-2", "cribsim upgrade"),
]


@pytest.mark.parametrize("how,fragment", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_damaged_folder_is_refused_and_left_as_it_is(tmp_path, capsys, finished_run, how, fragment):
    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    _damage(folder, how)
    before = snapshot(tmp_path)
    code, _, err = cli(["report", folder], capsys)
    one_line(err, code, 2)
    assert fragment in err, err
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "evil").exists()
    # a run is refused there too
    if how not in ("committed", "records-wrong-shape", "records-not-gzip", "records-is-a-folder", "records-schema-2"):
        cfg = tmp_path / "small.yaml"
        cfg.write_text(SMALL)
        before = snapshot(tmp_path)
        for extra in ([], ["--fresh"]):
            code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", folder] + extra, capsys)
            one_line(err, code, 2)
            assert snapshot(tmp_path) == before


def test_the_committed_ladder_folder_is_not_rewritten(tmp_path, capsys):
    folder = tmp_path / "ladder"
    # as committed: the records are never in git (a local rerun may have left them beside it)
    shutil.copytree(ROOT / "results" / "ladder", folder,
                    ignore=shutil.ignore_patterns("matches.jsonl*", ".cribsim.lock"))
    before = snapshot(folder)
    code, _, err = cli(["report", folder], capsys)
    one_line(err, code, 2)
    assert "no matches.jsonl.gz" in err and snapshot(folder) == before


def _batches(lines, cut=(10,)):
    """``lines`` as gzip members (a batch each), split at ``cut``."""
    edges = [0, *cut, len(lines)]
    return [gzip.compress(b"".join(lines[a:b]), mtime=0) for a, b in zip(edges, edges[1:])]


@pytest.mark.parametrize("damage,count,said", [
    ("half-torn", 10, "10 unreadable lines"), ("binary-line", 1, "1 unreadable line"),
    ("json-not-record", 2, "2 unreadable lines"), ("torn-last", 1, "an unfinished last batch"),
    ("damaged-batch", 1, "1 damaged batch")])
def test_unreadable_lines_are_counted_and_reported(tmp_path, capsys, finished_run, damage, count, said):
    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    j = folder / "matches.jsonl.gz"
    lines = [x.encode() + b"\n" for x in match_lines(folder)]
    extra = b""
    if damage == "half-torn":  # every other line cut in half
        lines = [ln[:len(ln) // 2] + b"\n" if i % 2 else ln for i, ln in enumerate(lines)]
    elif damage == "binary-line":
        lines.insert(3, b"\xff\xfe\xfd\n")
    elif damage == "json-not-record":
        lines[4:4] = [b"[1, 2]\n", b'"text"\n']
    elif damage == "torn-last":
        member = gzip.compress(b'{"schema":3,"id":"0.0.99.0"}\n', mtime=0)
        extra = member[:len(member) // 2]
    batches = _batches(lines)
    if damage == "damaged-batch":  # bytes of the first batch overwritten: its 10 matches are lost
        first = bytearray(batches[0])
        first[40:60] = b"\x00" * 20
        batches[0] = bytes(first)
    j.write_bytes(b"".join(batches) + extra)
    records = j.read_bytes()
    code, out, err = cli(["report", folder, "--quiet"], capsys)
    assert code == 0 and "Traceback" not in err
    assert len(err.splitlines()) == 1 and err.startswith("cribsim: warning:") and str(count) in err, err
    summary = (folder / "summary.md").read_text()
    assert said in summary, summary
    matches = 10 if damage in ("half-torn", "damaged-batch") else 20
    assert f"\n{matches} matches" in summary
    assert j.read_bytes() == records  # nothing cut or rewritten by a report


def test_a_resumed_run_keeps_damaged_lines_and_cuts_only_a_torn_tail(tmp_path, capsys, finished_run):
    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    cfg = tmp_path / "small.yaml"
    cfg.write_text(SMALL)
    j = folder / "matches.jsonl.gz"
    lines = [x.encode() + b"\n" for x in match_lines(folder)]
    batches = _batches(lines[:5] + [b"\xff garbage\n"] + lines[6:])
    torn = gzip.compress(b'{"schema":3,"id":"0.0.9.0"}\n', mtime=0)[:20]
    j.write_bytes(b"".join(batches) + torn)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", folder], capsys)
    assert code == 0 and "Traceback" not in err
    assert "cut an unfinished last batch" in err and "1 unreadable line" in err
    after = j.read_bytes()
    assert after.startswith(b"".join(batches)) and torn not in after  # the damaged line stays where it was
    assert len({json.loads(x)["id"] for x in match_lines(folder) if x.startswith("{")}) == 20


def test_report_is_refused_while_a_run_holds_the_folder(tmp_path, capsys, finished_run):
    from cribsim.lock import FolderLock

    folder = tmp_path / "run"
    shutil.copytree(finished_run, folder)
    before = snapshot(folder)
    with FolderLock(folder, "run"):
        code, _, err = cli(["report", folder], capsys)
        one_line(err, code, 2)
        assert "is in use" in err and f"pid {os.getpid()}" in err
    assert snapshot(folder) == before
    assert not (folder / ".cribsim.lock").exists()


# ---- --fresh, ownership ---------------------------------------------------------------------------

def test_fresh_removes_only_what_the_manifest_lists(tmp_path, capsys):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(SMALL)
    out = tmp_path / "out"
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)
    assert code == 0, err
    listed = json.loads((out / "manifest.json").read_text())["files"]
    assert {"manifest.json", "matches.jsonl.gz", "summary.md", "entries.csv", "winrates.png"} <= set(listed)
    (out / "my_notes.csv").write_text("keep me\n")
    (out / "photo.png").write_bytes(b"keep me too")
    (out / "heatmap_gone.png").write_bytes(b"not listed: kept")
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out, "--seed", "4"], capsys)
    one_line(err, code, 2)
    assert "different config" in err
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out, "--seed", "4", "--fresh"], capsys)
    assert code == 0, err
    assert (out / "my_notes.csv").read_text() == "keep me\n" and (out / "photo.png").exists()
    assert (out / "heatmap_gone.png").exists()
    assert json.loads((out / "manifest.json").read_text())["seed"] == 4


def test_fresh_with_an_old_manifest_removes_only_cribsim_names(tmp_path, capsys):
    # results/quickstart's manifest (written before the list of files existed)
    out = tmp_path / "quick"
    shutil.copytree(ROOT / "results" / "quickstart", out)
    (out / "mine.csv").write_text("mine\n")
    (out / "matches.jsonl").write_text("")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: quick\nlineup: [random, greedy]\nmatches: 2\n")
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out, "--fresh"], capsys)
    assert code == 0, err
    assert (out / "mine.csv").read_text() == "mine\n"
    assert not (out / "heatmap_short_61.png").exists()  # the old run's own files went


def test_name_dotdot_and_a_foreign_folder_lose_nothing(tmp_path, capsys, monkeypatch):
    # issue 5: name ".." once wrote results into the working directory, and --fresh then
    # deleted unrelated CSV and PNG files there
    work = tmp_path / "work"
    (work / "results").mkdir(parents=True)
    (work / "data.csv").write_text("1,2\n")
    (work / "plot.png").write_bytes(b"png")
    (work / "results" / "keep.csv").write_text("x\n")
    monkeypatch.chdir(work)
    (work / "dots.yaml").write_text("name: '..'\nlineup: [random, greedy]\nmatches: 2\n")
    (work / "plain.yaml").write_text("name: plain\nlineup: [random, greedy]\nmatches: 2\n")
    before = snapshot(work)
    for argv in (["run", "dots.yaml", "--serial", "--fresh"],
                 ["run", "plain.yaml", "--serial", "--out", ".", "--fresh"],
                 ["run", "plain.yaml", "--serial", "--out", "results", "--fresh"]):
        code, _, err = cli(argv, capsys)
        one_line(err, code, 2)
        assert snapshot(work) == before


# ---- two runs on one folder ------------------------------------------------------------------------

def test_a_second_run_on_the_same_folder_is_refused(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: long\nlineup: [random, greedy]\nmatches: 2000000\nseed: 6\n")  # (long: interrupted)
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "cribsim", "run", str(cfg), "--serial", "--quiet",
                              "--out", str(out)],
                             cwd=tmp_path, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        jsonl = out / "matches.jsonl.gz"
        deadline = time.time() + 60
        while time.time() < deadline and (not jsonl.exists() or jsonl.stat().st_size == 0):
            time.sleep(0.05)
        assert jsonl.exists()
        for extra in ([], ["--seed", "7"], ["--fresh"]):
            second = subprocess.run([sys.executable, "-m", "cribsim", "run", str(cfg), "--serial", "--quiet",
                                     "--out", str(out)] + extra, cwd=tmp_path, env=ENV, capture_output=True,
                                    text=True, timeout=60)
            assert second.returncode == 2, second.stderr
            assert second.stderr.count("\n") == 1 and "is in use" in second.stderr
            assert f"pid {first.pid}" in second.stderr
    finally:
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=60)
    # the first run was not disturbed: Ctrl-C says exactly how many matches are on disk
    assert first.returncode == 130, err
    ids = [d["id"] for d in match_dicts(out)]
    assert len(ids) == len(set(ids)) > 0
    assert err.decode().strip() == f"cribsim: interrupted; {len(ids):,} matches saved in {out}; continue with --resume"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["played"] == len(ids)
    assert not (out / ".cribsim.lock").exists()


# ---- runs that fail after they started ------------------------------------------------------------

FLAKY = textwrap.dedent("""\
    from strategies.random_play import RandomStrategy


    class SecondTimeUnlucky(RandomStrategy):
        # made once when the lineup is checked (fine), then fails when a match makes it: an
        # error outside any decision, so (trusted: in the engine's process, like the engine's
        # own code) not a forfeit but a failed run
        made = 0

        def __init__(self, rng):
            super().__init__(rng)
            type(self).made += 1
            if type(self).made > 1:
                raise KeyError(2)
""")


def _flaky_config(tmp_path, name="flaky", matches=6):
    mod = f"flaky_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{mod}.py").write_text(FLAKY)
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(f"name: {name}\nlineup: [random, {{name: f, strategy: '{mod}:SecondTimeUnlucky', trusted: true}}]\n"
                   f"matches: {matches}\n")
    return cfg


def test_a_run_that_fails_is_one_line_exit_1_and_the_manifest_says_why(tmp_path, capsys):
    cfg = _flaky_config(tmp_path)
    out = tmp_path / "out"
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)
    one_line(err, code, 1)
    assert "run failed" in err and "KeyError: 2" in err and "0 matches saved" in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and "KeyError: 2" in m["error"] and m["played"] == 0
    assert not (out / ".cribsim.lock").exists()


def test_a_failing_match_under_ray_fails_the_run(tmp_path, ray_cluster):
    from tests.kernel import hardening_plugins

    hardening_plugins.SecondTimeUnlucky.made = 0
    cfg = tmp_path / "flaky.yaml"
    cfg.write_text("name: flaky\nlineup: [random, {name: f, "
                   "strategy: 'tests.kernel.hardening_plugins:SecondTimeUnlucky', trusted: true}]\nmatches: 6\n")
    exp = load_experiment(cfg)
    with pytest.raises(RunFailed, match="KeyError: 2"):
        run_experiment(exp, tmp_path / "out", workers=2, quiet=True, batch_seconds=0.05)
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert m["status"] == "failed" and "KeyError" in m["error"]


def test_a_full_disk_keeps_what_was_written(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: disk\nlineup: [random, greedy]\nmatches: 400\n")
    out = tmp_path / "out"
    real_add = sink.Sink.add
    calls = []

    def add(self, batch):
        calls.append(batch.size)
        if len(calls) == 2:  # half of the batch reaches the disk, then it is full
            self.f.write(batch.data[:len(batch.data) // 2])
            self.f.flush()
            raise OSError(28, "No space left on device")
        return real_add(self, batch)

    monkeypatch.setattr(sink.Sink, "add", add)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)
    one_line(err, code, 1)
    assert "No space left on device" in err
    whole = calls[0]
    assert f"{whole:,} matches saved" in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and "No space left" in m["error"] and m["played"] == whole
    monkeypatch.setattr(sink.Sink, "add", real_add)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)  # resume: the torn tail goes
    assert code == 0 and "cut an unfinished last batch" in err
    ids = [d["id"] for d in match_dicts(out)]
    assert len(ids) == len(set(ids)) == 400


def test_a_full_disk_for_the_manifest_too_is_still_one_line(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: disk2\nlineup: [random, greedy]\nmatches: 40\n")
    real_write = manifest_module.write_json
    state = {"n": 0}

    def failing_add(self, batch):
        raise OSError(28, "No space left on device")

    def write(path, data):
        state["n"] += 1
        if state["n"] > 1:
            raise OSError(28, "No space left on device")
        return real_write(path, data)

    monkeypatch.setattr(sink.Sink, "add", failing_add)
    monkeypatch.setattr(manifest_module, "write_json", write)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "out"], capsys)
    one_line(err, code, 1)
    assert "manifest could not be updated" in err


def test_a_finished_run_does_not_start_ray(tmp_path, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(SMALL)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "out", serial=True, quiet=True)

    def no_ray(*a, **k):
        raise AssertionError("Ray was started for a finished run")

    monkeypatch.setattr(runner, "init_ray", no_ray)
    m = run_experiment(exp, tmp_path / "out", quiet=True)
    assert m.status == "complete" and m.played == 20


def test_a_missing_token_is_one_line_with_the_hint(monkeypatch):
    import ray._raylet
    from ray.exceptions import AuthenticationError

    class Refusing:
        def __init__(self, **kwargs):
            raise AuthenticationError("InvalidAuthToken: Authentication token is missing or incorrect")

    monkeypatch.setattr(ray._raylet, "GcsClient", Refusing)
    with pytest.raises(CribsimError) as err:
        raycluster._check_token("10.0.0.1:6379")
    msg = str(err.value)
    assert msg.startswith("cribsim: the Ray cluster at 10.0.0.1:6379 needs its token")
    assert "RAY_AUTH_MODE=token" in msg and "RAY_AUTH_TOKEN" in msg and "\n" not in msg


def test_ctrl_c_under_ray_counts_what_is_on_disk(tmp_path, ray_cluster):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: ctrlc\nlineup: [random, greedy]\nmatches: 40000\nseed: 2\n")
    out = tmp_path / "out"
    env = dict(ENV, RAY_ADDRESS=ray_cluster.address)
    p = subprocess.Popen([sys.executable, "-m", "cribsim", "run", str(cfg), "--quiet", "--no-fast", "--out", str(out)],
                         cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    jsonl = out / "matches.jsonl.gz"
    deadline = time.time() + 90
    while time.time() < deadline and (not jsonl.exists() or jsonl.stat().st_size < 3000):
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, err = p.communicate(timeout=90)
    err = err.decode()
    ids = [d["id"] for d in match_dicts(out)]
    assert p.returncode == 130, err
    assert err.strip() == f"cribsim: interrupted; {len(ids):,} matches saved in {out}; continue with --resume"
    assert len(ids) == len(set(ids)) > 0
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"



def test_a_killed_supervisor_stops_its_run_and_frees_the_folder(tmp_path, ray_cluster):
    """SIGKILL to ``cribsim run`` (the supervisor): the run's own process stops as on Ctrl-C
    within seconds (results in hand written, status interrupted, the lock freed), instead of
    playing on unattended and holding the folder."""
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: orphan\nlineup: [random, greedy]\nmatches: 40000\nseed: 2\n")
    out = tmp_path / "out"
    env = dict(ENV, RAY_ADDRESS=ray_cluster.address)
    with open(tmp_path / "err.txt", "wb") as err:
        p = subprocess.Popen([sys.executable, "-m", "cribsim", "run", str(cfg), "--quiet", "--no-fast", "--out",
                              str(out)], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=err,
                             start_new_session=True)
    jsonl = out / "matches.jsonl.gz"
    deadline = time.time() + 90
    while time.time() < deadline and (not jsonl.exists() or jsonl.stat().st_size < 3000):
        time.sleep(0.05)
    child = (lock.holder(out) or {}).get("pid")
    assert isinstance(child, int) and child != p.pid, child  # the run plays in the supervisor's child
    p.kill()
    p.wait()
    deadline = time.time() + 20
    while time.time() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "the run played on after its supervisor was killed"
    assert lock.holder(out) is None
    m = json.loads((out / "manifest.json").read_text())
    ids = [d["id"] for d in match_dicts(out)]
    assert m["status"] == "interrupted" and m["played"] == len(ids) == len(set(ids)) < 40000
    assert "interrupted" in (tmp_path / "err.txt").read_text()


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"

def test_the_heads_loss_on_a_cluster_is_one_line_saying_how_to_resume(tmp_path):
    """A run joined to a cluster of two nodes whose head goes (its GCS and raylet killed: the
    raylet the driver is attached to, as when an embedded Ray's raylet dies): Ray's core ends
    the driver at once, and the supervising process reports it; the run fails in one line
    naming --resume, nothing of Ray's reaches stdout, the manifest and the run log say failed
    with the matches on disk, and a resume finishes with the tables of an undisturbed run.
    (The driver waits for the GCS to come back before it gives up: Ray's 60 s by default, 3 s
    here.)"""
    cfg = tmp_path / "exp.yaml"
    # enough matches that the head goes while they are played: with 600 the run sometimes
    # finished first, and Ray's core then ended the process at its exit, after the run
    cfg.write_text("name: head\nlineup: [random, greedy]\nmatches: 6000\nseed: 2\n")
    out = tmp_path / "out"
    env = {k: v for k, v in ENV.items() if k != "RAY_ADDRESS"}
    cluster = subprocess.Popen([sys.executable, "-m", "tests.kernel.two_nodes"], cwd=ROOT, env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert cluster.stdout is not None and cluster.stdin is not None
        address = cluster.stdout.readline().strip()
        env["RAY_gcs_rpc_server_reconnect_timeout_s"] = "3"
        p = subprocess.Popen([sys.executable, "-m", "cribsim", "run", str(cfg), "--quiet", "--no-fast", "--address",
                              address, "--out", str(out)], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            jsonl = out / "matches.jsonl.gz"
            deadline = time.time() + 90
            while time.time() < deadline and (not jsonl.exists() or jsonl.stat().st_size == 0) and p.poll() is None:
                time.sleep(0.05)
            cluster.stdin.write("head\n")
            cluster.stdin.flush()
            assert cluster.stdout.readline().strip() == "gone"
            got, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    finally:
        with contextlib.suppress(OSError, ValueError):
            cluster.communicate("stop\n", timeout=60)
        if cluster.poll() is None:
            os.killpg(cluster.pid, signal.SIGKILL)
            cluster.wait()
    err = err.decode()
    assert p.returncode == 1 and got == b"", (got[:300], err)
    assert "Traceback" not in err and len(err.splitlines()) == 1 and err.startswith("cribsim: run failed:"), err
    assert "continue with --resume" in err
    m = json.loads((out / "manifest.json").read_text())
    on_disk = len({d["id"] for d in match_dicts(out)})
    assert m["status"] == "failed" and "raylet" in m["error"] and 0 < m["played"] == on_disk < 6000
    assert f"{on_disk:,} matches saved" in err
    session = json.loads((out / "run.json").read_text())["sessions"][-1]
    assert session["status"] == "failed" and session["ended"] and session["played"] == on_disk
    log = err.rsplit("(Ray's own messages: ", 1)
    if len(log) == 2:
        Path(log[1].rstrip().rstrip(")")).unlink(missing_ok=True)
    run_experiment(load_experiment(cfg), out, serial=True, resume=True, quiet=True)
    run_experiment(load_experiment(cfg), tmp_path / "calm", serial=True, quiet=True)
    for name in ("entries.csv", "matrix_standard.csv", "variants.csv"):
        assert (out / name).read_bytes() == (tmp_path / "calm" / name).read_bytes(), name


ENDED_AFTER = """
import atexit, os, sys
from strategies.random_play import RandomStrategy


def _ray_core_at_exit():  # as Ray's core ends a driver whose cluster went away: its own line, exit 1
    print("[ray core] Failed to connect to GCS within 3 seconds", file=sys.stderr, flush=True)
    os._exit(1)


if "CRIBSIM_SUPERVISED_FD" in os.environ:  # the run's own process (the supervisor starts no Ray)
    atexit.register(_ray_core_at_exit)


class Quiet(RandomStrategy):
    pass
"""


def test_a_run_that_finished_as_its_cluster_went_keeps_its_own_exit_code(tmp_path):
    """The run plays every match and says it finished; then, at the process's exit, Ray's core
    ends it with its own line and exit code 1 (here a trusted plug-in's atexit does what Ray's
    core does when the cluster went as the run finished). The supervising ``cribsim run`` exits
    with the run's own code, 0, Ray's line goes to the Ray log, and one note names that log."""
    mod = f"ended_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{mod}.py").write_text(ENDED_AFTER)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: ended\nlineup: [random, {{name: q, strategy: '{mod}:Quiet', trusted: true}}]\nmatches: 4\n")
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "cribsim", "run", str(cfg), "--quiet", "--out", str(out)],
                       cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "[ray core]" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    note = [line for line in p.stderr.splitlines() if line.startswith("cribsim: note: the run finished")]
    assert len(note) == 1 and "exit code 1" in note[0], p.stderr
    log = Path(note[0].rsplit("what it wrote after finishing: ", 1)[1])
    assert "[ray core] Failed to connect" in log.read_text().partition("the run finished;")[2]
    log.unlink()
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


RAISES_AT_EXIT = """
import atexit, os
from strategies.random_play import RandomStrategy


def _broken():
    raise RuntimeError("an exit handler of one's own")


if "CRIBSIM_SUPERVISED_FD" in os.environ:
    atexit.register(_broken)


class Quiet(RandomStrategy):
    pass
"""


def test_what_a_finished_run_writes_at_exit_is_named_though_its_exit_code_is_its_own(tmp_path):
    """An exit handler that raises after the run finished (its traceback on standard error, the
    process's exit code unchanged) is not lost: it lands in the log that one note names."""
    mod = f"raises_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{mod}.py").write_text(RAISES_AT_EXIT)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: raises\nlineup: [random, {{name: q, strategy: '{mod}:Quiet', trusted: true}}]\nmatches: 4\n")
    p = subprocess.run([sys.executable, "-m", "cribsim", "run", str(cfg), "--quiet", "--out", str(tmp_path / "out")],
                       cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    note = [line for line in p.stderr.splitlines() if line.startswith("cribsim: note: the run finished")]
    assert len(note) == 1 and "exit code 0" in note[0], p.stderr
    log = Path(note[0].rsplit("what it wrote after finishing: ", 1)[1])
    assert "an exit handler of one's own" in log.read_text()
    log.unlink()
