"""A designer's variant written outside the package (examples/variants/pone_crib.py): named as
``module:Class`` in a rules file, it is declared, checked, combined, refused, narrated, recorded
and replayed like a built-in."""

import subprocess
import sys
from pathlib import Path

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage import variants as registry
from cribsim.games.cribbage.match import play_match
from cribsim.games.cribbage.narrate import narrate
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "variants"


@pytest.fixture(autouse=True)
def restore_registry(monkeypatch):
    """Variants of one's own join the process's registry: each test leaves it as it found it."""
    variants, params = dict(registry.VARIANTS), dict(registry.PARAMS)
    monkeypatch.syspath_prepend(str(EXAMPLE))
    yield
    registry.VARIANTS.clear()
    registry.VARIANTS.update(variants)
    registry.PARAMS.clear()
    registry.PARAMS.update(params)


def test_an_outside_variant_is_declared_played_and_narrated():
    rules = load_rules(str(EXAMPLE / "pone_crib.yaml"))
    assert rules.variants == ("pone_crib:PoneCrib",) and rules.pone_crib_every == 1
    assert "take_crib" in rules.program.decisions
    assert rules.to_dict()["variants"] == ["pone_crib:PoneCrib"]
    m = play_match(rules, [factory("ev"), factory("greedy")], 7, 0, log=True)
    lines = "\n".join(narrate(rules, m.games[0]))
    assert "takes the crib" in lines  # every deal the pone (no take_crib method: the default) takes it
    assert m.games[0].metrics["pone_crib"] == m.games[0].deals


def test_its_knobs_are_typed_and_bounded_and_it_combines_or_is_refused():
    with pytest.raises(ConfigError, match="pone_crib_every': expected a whole number 1..100, got 0"):
        rules_from_mapping({"extends": str(EXAMPLE / "pone_crib.yaml"), "pone_crib_every": 0}, "mine.yaml")
    with_nineteen = rules_from_mapping({"extends": str(EXAMPLE / "pone_crib.yaml"), "null_penalty": True})
    assert [v.name for v in with_nineteen.modules] == ["nineteen", "pone_crib"]
    m = play_match(with_nineteen, [factory("ev"), factory("random")], 7, 1)
    assert m.winner in (0, 1)
    with pytest.raises(ConfigError) as refused:
        rules_from_mapping({"extends": "auction", "variants": ["auction", "pone_crib:PoneCrib"]}, "mine.yaml")
    assert "auction and pone_crib both fill the after_deal slot" in str(refused.value)
    with pytest.raises(ConfigError, match="pone_crib .PONE-CRIB-1. is for 2 players, not 3"):
        rules_from_mapping({"extends": "three_player", "variants": ["pone_crib:PoneCrib"]}, "mine.yaml")


@pytest.mark.parametrize("spec, message", [
    ("nosuch_module:X", "variant nosuch_module:X: no module named 'nosuch_module'"),
    ("pone_crib:always_take", "'always_take' of module 'pone_crib' is not a Variant subclass"),
    ("pone_crib", "unknown variant 'pone_crib'"),
    ("auctoin", "unknown variant 'auctoin' (did you mean 'auction'?)"),
])
def test_a_bad_variant_name_is_one_line(spec, message):
    with pytest.raises(ConfigError) as e:
        rules_from_mapping({"extends": "standard", "variants": [spec]}, "mine.yaml")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_an_outside_variant_may_not_take_a_built_in_name_or_knob(tmp_path, monkeypatch):
    (tmp_path / "clash.py").write_text(
        "from cribsim.games.cribbage.engine.variant import Variant\n"
        "from cribsim.params import Param\n"
        "class Named(Variant):\n    name = 'auction'\n"
        "class Knob(Variant):\n    name = 'knobbly'\n    params = (Param('min_bid', int, 1, 'a bid'),)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="its name 'auction' is already auction's"):
        rules_from_mapping({"variants": ["clash:Named"]}, "mine.yaml")
    with pytest.raises(ConfigError, match="its knob 'min_bid' is already a knob of auction"):
        rules_from_mapping({"variants": ["clash:Knob"]}, "mine.yaml")


def test_a_run_on_ray_records_it_and_the_record_replays(tmp_path):
    """End to end, as a designer runs it: Ray workers import the module from beside the config,
    the game records name it, and ``cribsim replay`` run from its folder plays a game again."""
    config = tmp_path / "pone.yaml"
    config.write_text((EXAMPLE / "pone_crib_experiment.yaml").read_text().replace("matches: 2000", "matches: 6")
                      .replace("pone_crib.yaml", str(EXAMPLE / "pone_crib.yaml")))
    out = tmp_path / "out"
    cli = [sys.executable, "-m", "cribsim"]
    run = subprocess.run(cli + ["run", str(config), "--out", str(out), "--workers", "2", "--quiet"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "pone_crib:PoneCrib" in (out / "manifest.json").read_text()
    games = subprocess.run(cli + ["games", str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    line = next(x for x in games.stdout.splitlines() if " pone_crib " in f" {x} ")
    replay = subprocess.run(cli + ["replay", str(out), "--match", line.split()[0]], capture_output=True, text=True,
                            cwd=EXAMPLE, timeout=120)
    assert replay.returncode == 0, replay.stderr
    assert "takes the crib" in replay.stdout
    elsewhere = subprocess.run(cli + ["replay", str(out), "--match", line.split()[0]], capture_output=True,
                               text=True, cwd=tmp_path, timeout=120)
    assert elsewhere.returncode != 0 and elsewhere.stderr.count("\n") == 1
    assert "no module named 'pone_crib' (run from its folder" in elsewhere.stderr


def test_two_variant_modules_of_one_name_are_refused_not_mixed(tmp_path):
    for d in ("d1", "d2"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "myrules.py").write_text(
            "from cribsim.games.cribbage.engine.variant import Variant\n"
            f"class V(Variant):\n    name = 'mine'\n    summary = 'from {d}'\n")
        (tmp_path / d / "r.yaml").write_text("extends: standard\nvariants: ['myrules:V']\n")
    assert load_rules(str(tmp_path / "d1" / "r.yaml")).modules[0].summary == "from d1"
    with pytest.raises(ConfigError, match="a module named 'myrules' is already loaded from .*d1.*give one of them"):
        load_rules(str(tmp_path / "d2" / "r.yaml"))
    sys.modules.pop("myrules", None)


def test_an_outside_variant_knob_may_not_be_a_rules_key_or_recorded(tmp_path, monkeypatch):
    (tmp_path / "bad.py").write_text(
        "from cribsim.games.cribbage.engine.variant import Variant\n"
        "from cribsim.params import Param\n"
        "class Core(Variant):\n    name = 'core'\n    params = (Param('target', int, 1, 'a target'),)\n"
        "class Rec(Variant):\n    name = 'rec'\n    params = (Param('rec_knob', int, 1, 'x', recorded=True),)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="its knob 'target' is a key of the rules themselves"):
        rules_from_mapping({"variants": ["bad:Core"]}, "mine.yaml")
    with pytest.raises(ConfigError, match="declared recorded=True, which only built-in variants may be"):
        rules_from_mapping({"variants": ["bad:Rec"]}, "mine.yaml")


def test_a_rules_file_elsewhere_extends_one_beside_its_variant(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "child.yaml").write_text(f"extends: {EXAMPLE / 'pone_crib.yaml'}\nname: child\npone_crib_every: 3\n")
    rules = load_rules(str(other / "child.yaml"))
    assert rules.pone_crib_every == 3 and [v.name for v in rules.modules] == ["pone_crib"]


@pytest.mark.parametrize("name, said", [
    ("crib3", "the crib again, twice"), ("under4", "under four: nothing"),
    ("dealer_double", "the dealer's hand again"), ("last5", None)])
def test_each_example_change_plays_and_is_narrated(name, said):
    """The designer's examples of issue 39 (examples/variants): the crib counts three times, a
    hand under four points scores nothing, the dealer's hand counts double (a hook each), the
    last card is worth 5 (a point value): each plays whole games and its points are narrated."""
    rules = load_rules(str(EXAMPLE / f"{name}.yaml"))
    m = play_match(rules, [factory("random"), factory("greedy")], 11, 0, log=True)
    text = "\n".join(line for g in m.games for line in narrate(rules, g))
    assert m.winner in (0, 1) and "wins" in text
    if said is not None:
        assert said in text
    else:
        assert rules.scoring.last_card == 5 and "last card" in text


@pytest.mark.parametrize("name, said", [
    ("crib_pone", "crib (it scores for the pone)"), ("no_crib", "crib (scores nothing)"), ("no_pairs", None)])
def test_each_count_hand_example_plays_the_same_games_narrated_or_not(name, said):
    """The examples that count the show their own way (a ``count_hand`` hook each): the crib
    scores for the pone, the crib scores nothing, pairs score nothing in the show. A game
    recorded event by event (the breakdown) ends with the scores of the same game played
    without records (the bulk count); the narration says what the rule did, and no pair is
    scored at a show of no_pairs (only in the play)."""
    rules = load_rules(str(EXAMPLE / f"{name}.yaml"))
    for seed in range(6):
        logged = play_match(rules, [factory("random"), factory("greedy")], seed, 0, log=True)
        bulk = play_match(rules, [factory("random"), factory("greedy")], seed, 0, log=False)
        assert [g.scores for g in logged.games] == [g.scores for g in bulk.games]
        events = [e for g in logged.games for e in g.events]
        if said is not None:
            text = "\n".join(line for g in logged.games for line in narrate(rules, g))
            assert said in text
        if name == "no_pairs":
            assert {e.source for e in events if e.reason == "pair"} == {"peg"}
        if name == "no_crib":
            assert not [e for e in events if e.source == "crib" and e.points]
        if name == "crib_pone":  # the crib's points go to the seat after the dealer
            owners = {e.deal: e.seat for e in events if e.source == "show" and e.reason.startswith("crib")}
            scored = [e for e in events if e.source == "crib" and e.points]
            assert scored and all(e.seat != owners[e.deal] for e in scored)


def test_no_pairs_takes_back_pairs_at_the_rules_own_points():
    """Under ``scoring: {pair: 3}`` no_pairs takes back three points a pair: a recorded game and
    a bulk one still end alike."""
    rules = rules_from_mapping({"extends": str(EXAMPLE / "no_pairs.yaml"), "name": "no_pairs_3",
                                "scoring": {"pair": 3}}, str(EXAMPLE / "x.yaml"))
    for seed in range(6):
        logged = play_match(rules, [factory("random"), factory("greedy")], seed, 0, log=True)
        bulk = play_match(rules, [factory("random"), factory("greedy")], seed, 0, log=False)
        assert [g.scores for g in logged.games] == [g.scores for g in bulk.games]
