"""An error in code of one's own names that code (docs/errors.md, "Errors in code of one's
own"): a designer's variant, or a trusted strategy, that raises mid-game is one line naming its
file, line, function and what it is, exit 1, never cribsim's "internal error"; a run stops at
the first such error and says that a resume fails the same way: the fixed code is another run
(the config's hash covers it), played with --fresh."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cribsim import codepath
from cribsim.cli.main import main
from cribsim.errors import ConfigError, RunFailed
from cribsim.games.cribbage import variants as registry
from cribsim.ruleset import rules_from_mapping
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment

FIX = ("(a resume fails the same way; fix that code, then run again with --fresh: the code is part of the run, and "
       "the fixed code's matches are not mixed with the failed code's)")
HOOK = """\
from cribsim.games.cribbage.engine.variant import Variant
from cribsim.params import Param


def third(points, deal_no):
    return points / (deal_no - deal_no)


class CribDouble(Variant):
    name = "crib_triple"
    params = (Param("crib_triple_every", int, 1, "every k-th deal", lo=1, hi=10),)

    @staticmethod
    def after_count(g, seat, points, source):
        g.metric("counted")
        return points / (g.deal_no - g.deal_no)


class Helped(Variant):
    name = "crib_helped"

    @staticmethod
    def after_count(g, seat, points, source):
        return third(points, g.deal_no)
"""

NAMED = """\
from cribsim.games.cribbage.engine.variant import Phase, Variant


def offer(g):
    raise KeyError("no such seat")


class Offered(Variant):
    name = "offered"
    phases = (Phase("after_deal", offer),)


class Named(Variant):
    name = "named_wrong"

    @staticmethod
    def name_card(answer, obs):
        return answer, answer // 0
"""

BOT = """\
from strategies.random_play import RandomStrategy



def lowest(obs):
    return min(obs.legal) // 0


class Low(RandomStrategy):
    def play(self, obs):
        return lowest(obs)
"""


ROOT = Path(__file__).resolve().parents[3]


def line_of(source, text):
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.fixture
def own(tmp_path, request):
    """Writes a module of one's own (a name of this test's own: Ray's workers outlive a test)
    and a rules file naming ``module:Class``; leaves the registry and the module path as they were."""
    variants, params = dict(registry.VARIANTS), dict(registry.PARAMS)
    made = []

    def write(source, cls=None, name=None):
        mod = name or f"own_{request.node.name.split('[')[0].removeprefix('test_')[:40]}"
        (tmp_path / f"{mod}.py").write_text(source)
        made.append(mod)
        if cls is None:
            return mod
        rules = tmp_path / f"{mod}_{cls}.yaml"
        rules.write_text(f"extends: standard\nname: {cls.lower()}\nvariants: ['{mod}:{cls}']\n")
        return mod, rules

    yield write
    registry.VARIANTS.clear()
    registry.VARIANTS.update(variants)
    registry.PARAMS.clear()
    registry.PARAMS.update(params)
    codepath.forget(*made)


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_play_names_the_variant_its_file_line_and_hook(own, capsys):
    mod, rules = own(HOOK, "CribDouble")
    code, _, err = cli(["play", "--rules", rules, "--seed", 1], capsys)
    line = line_of(HOOK, "return points / (g.deal_no")
    assert code == 1 and err == (f"cribsim: {mod}.py, line {line}, in after_count (variant crib_triple): "
                                 "ZeroDivisionError: division by zero\n"), err


def test_a_helper_is_named_with_the_hook_it_was_called_from(own, capsys):
    mod, rules = own(HOOK, "Helped")
    code, _, err = cli(["play", "--rules", rules], capsys)
    line = line_of(HOOK, "return points / (deal_no")
    assert code == 1 and err.startswith(f"cribsim: {mod}.py, line {line}, in third (variant crib_helped, its "
                                        "after_count hook): ZeroDivisionError: division by zero"), err


def test_a_phase_is_named_with_its_slot(own, capsys):
    mod, rules = own(NAMED, "Offered")
    code, _, err = cli(["play", "--rules", rules], capsys)
    assert code == 1 and err.startswith(f"cribsim: {mod}.py, line {line_of(NAMED, 'raise KeyError')}, in offer "
                                        "(variant offered, its after_deal phase): KeyError: 'no such seat'"), err
    assert "internal error" not in err and len(err.splitlines()) == 1


def test_a_run_stops_at_the_first_error_and_says_a_resume_fails_too(own, tmp_path, capsys):
    mod, rules = own(HOOK, "CribDouble")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: own\nvariants: [{rules.name}]\nlineup: [random, greedy]\nmatches: 6\nseed: 3\n")
    out = tmp_path / "out"
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)
    line = line_of(HOOK, "return points / (g.deal_no")
    said = f"{mod}.py, line {line}, in after_count (variant crib_triple): ZeroDivisionError: division by zero"
    assert code == 1 and err.splitlines()[-1] == (
        f"cribsim: run failed: {said} (in match 0.0.0.0); 0 matches saved in {out} {FIX}"), err
    assert "internal error" not in err and "a bug" not in err and "continue with --resume" not in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and m["error"] == f"{said} (in match 0.0.0.0)"


def test_a_variant_that_raises_in_a_strategys_search_is_not_the_strategys_forfeit(own, tmp_path, capsys):
    """mc plays its discards' rollouts through the engine's play phase, so the variant's
    name_card hook raises under mc's decision: the variant's error, not mc's forfeit."""
    mod, rules = own(NAMED, "Named")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: own\nvariants: [{rules.name}]\nlineup: [mc, random]\nmatches: 2\n")
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "out"], capsys)
    assert code == 1 and f"run failed: {mod}.py, line {line_of(NAMED, 'answer // 0')}, in name_card (variant " \
                          "named_wrong): ZeroDivisionError" in err, err
    assert not (tmp_path / "out" / "forfeits.csv").exists()


def test_a_run_on_ray_says_the_same(own, tmp_path, ray_cluster):
    mod, rules = own(HOOK, "CribDouble")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: own\nvariants: [{rules.name}]\nlineup: [random, greedy]\nmatches: 6\nseed: 3\n")
    with pytest.raises(RunFailed) as failed:
        run_experiment(load_experiment(cfg), tmp_path / "out", workers=2, quiet=True)
    line = line_of(HOOK, "return points / (g.deal_no")
    assert str(failed.value).startswith(f"cribsim: run failed: {mod}.py, line {line}, in after_count (variant "
                                        "crib_triple): ZeroDivisionError: division by zero (in match 0.0."), failed
    assert str(failed.value).endswith(FIX)


def test_a_trusted_strategy_is_named_in_play_and_forfeits_in_a_run(own, tmp_path, capsys, monkeypatch):
    mod = own(BOT)
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(["play", "--trusted", "--strategy", f"{mod}:Low"], capsys)
    assert code == 1 and err == (f"cribsim: {mod}.py, line {line_of(BOT, 'min(obs.legal) // 0')}, in lowest "
                                 f"(strategy {mod}:Low): ZeroDivisionError: integer division or modulo by zero\n")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: t\nlineup: [random, {{name: low, strategy: '{mod}:Low', trusted: true}}]\nmatches: 2\n")
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "out"], capsys)
    assert code == 0, err  # its exception in a decision stays its forfeit
    assert (tmp_path / "out" / "forfeits.csv").read_text().count(",low,error,ZeroDivisionError") == 2


def test_a_game_of_ones_own_is_named_and_its_strategys_exception_stays_a_forfeit(tmp_path):
    """tests/toy_game.py with a bug in its own play: the game is named; its built-in strategy
    that raises in a decision forfeits, as any strategy's does."""
    toy = (ROOT / "tests" / "toy_game.py").read_text()
    buggy = toy.replace("scores[seat] += tile\n", "scores[seat] += tile // (deal - deal)\n")
    (tmp_path / "toy_game.py").write_text(buggy)
    (tmp_path / "race.yaml").write_text("game: toy_game:GAME\nname: race\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    play = subprocess.run([sys.executable, "-m", "cribsim", "play", "--rules", "race.yaml"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)
    assert play.returncode == 1 and play.stderr == (
        f"cribsim: toy_game.py, line {line_of(buggy, 'tile // (deal - deal)')}, in _run (game toy_game:GAME): "
        "ZeroDivisionError: integer division or modulo by zero\n"), play.stderr
    (tmp_path / "toy_game.py").write_text(toy.replace("return max(obs.legal)", "return max(obs.legal) // 0"))
    (tmp_path / "exp.yaml").write_text("name: r\ngame: toy_game:GAME\nvariants: [race.yaml]\n"
                                       "lineup: [random, greedy]\nmatches: 2\n")
    run = subprocess.run([sys.executable, "-m", "cribsim", "run", "exp.yaml", "--serial", "--quiet"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "results" / "r" / "forfeits.csv").read_text().count(",greedy,error,ZeroDivisionError") == 2


def test_a_class_that_is_not_there_gets_a_did_you_mean(own, tmp_path):
    mod = own(HOOK)
    source = str(tmp_path / "mine.yaml")
    with pytest.raises(ConfigError) as e:
        rules_from_mapping({"extends": "standard", "variants": [f"{mod}:CribDoubel"]}, source)
    assert str(e.value).endswith(f"no class CribDoubel in {mod} (did you mean CribDouble?)")
    with pytest.raises(ConfigError) as e:
        rules_from_mapping({"extends": "standard", "variants": [f"{mod}:Zzz"]}, source)
    assert str(e.value).endswith(f"no class Zzz in {mod} (its variants: CribDouble, Helped)")
    with pytest.raises(ConfigError, match="key 'crib_triple_evrey': unknown key .did you mean 'crib_triple_every'"):
        rules_from_mapping({"extends": "standard", "variants": [f"{mod}:CribDouble"], "crib_triple_evrey": 2}, source)


def test_a_strategy_class_or_parameter_that_is_not_there_gets_a_did_you_mean(own, tmp_path, capsys, monkeypatch):
    mod = own(BOT)
    monkeypatch.chdir(tmp_path)
    for spec, hint in ((f"{mod}:Lowe", "(did you mean 'Low'?)"), (f"{mod}:Zzz", "(its classes: Low)")):
        cfg = tmp_path / "exp.yaml"
        cfg.write_text(f"name: t\nlineup: [random, {{name: x, strategy: '{spec}', trusted: true}}]\nmatches: 2\n")
        code, _, err = cli(["run", cfg, "--serial", "--out", tmp_path / "out"], capsys)
        assert code == 2 and f"module '{mod}' has no '{spec.partition(':')[2]}' {hint}" in err, err
    cfg.write_text("name: t\nlineup: [random, {name: m, strategy: mc, params: {rolouts: 3}}]\nmatches: 2\n")
    code, _, err = cli(["run", cfg, "--serial", "--out", tmp_path / "out"], capsys)
    assert code == 2 and "has no parameter 'rolouts' (did you mean 'rollouts'?)" in err, err
    sys.modules.pop(mod, None)
