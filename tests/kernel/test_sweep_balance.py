"""Sweeps (an experiment's ``sweep:``) and ``cribsim balance``, end to end on small runs: a sweep
expands into named rule sets played on the same deals and ``compare`` draws them along the knob;
``balance`` finds a knob's value whose answer is known in advance, and resumes."""

import json

import pytest

from cribsim import codepath
from cribsim.cli.main import main
from cribsim.games.cribbage import variants as registry
from tests.kernel.matchfile import match_dicts

SWEEP = """\
name: sweep_small
variants: [standard]
sweep: {scoring.pair: [1, 2, 4], target: [61, 121]}
lineup:
  - {name: greedy, strategy: greedy}
  - {name: random, strategy: random}
matches: 12
seed: 3
"""


def test_a_sweep_plays_named_points_and_compare_draws_them(tmp_path, capsys):
    cfg = tmp_path / "sweep.yaml"
    cfg.write_text(SWEEP)
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(out)]) == 0
    m = json.loads((out / "manifest.json").read_text())
    names = [v["name"] for v in m["variants"]]
    # the point at the base's own values (pair 2, target 121) is the base itself, under its own name
    assert names == ["standard[pair=1,target=61]", "standard[pair=1,target=121]", "standard[pair=2,target=61]",
                     "standard", "standard[pair=4,target=61]", "standard[pair=4,target=121]"]
    assert [s["knobs"] for s in m["sweep"]] == [["scoring.pair", "target"]]
    assert [p["is_base"] for p in m["sweep"][0]["points"]] == [False, False, False, True, False, False]
    assert m["variants"][4]["scoring"] == {"pair": 4} and m["variants"][4]["target"] == 61
    assert "scoring" not in m["variants"][3]
    capsys.readouterr()
    assert main(["compare", str(out), "--quiet", "--out", str(tmp_path / "cmp")]) == 0
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "Differences from standard (per match" in md  # the base's own rules are the baseline
    assert "## Along the sweep (scoring.pair, target)" in md
    rows = (tmp_path / "cmp" / "sweep.csv").read_text().splitlines()
    assert rows[0].startswith("sweep,variant,base,knobs,values,metric,estimate,lo,hi,games")
    assert len(rows) == 1 + 6 * 8  # every point, every metric
    assert rows[1].startswith('0,"standard[pair=1,target=61]",standard,"scoring.pair,target","1,61",first dealer wins')
    base_rows = [r for r in rows if r.startswith("0,standard,")]
    assert len(base_rows) == 8
    assert all(r.endswith(",-") for r in base_rows)  # the baseline is not compared with itself
    assert (tmp_path / "cmp" / "sweep.png").stat().st_size > 10_000
    # paired: every point played the same deals (the same first dealers)
    deals = {}
    for r in match_dicts(out):
        if "variant" in r:
            deals.setdefault(r["variant"], []).append(r["games"][0]["first_dealer"])
    assert len({tuple(v) for v in deals.values()}) == 1


def test_several_sweeps_share_the_base(tmp_path, capsys):
    """A list of sweeps: each knob on its own; the base's own rules are played once."""
    cfg = tmp_path / "sweeps.yaml"
    cfg.write_text(SWEEP.replace("{scoring.pair: [1, 2, 4], target: [61, 121]}",
                                 "[{scoring.pair: [1, 2]}, {scoring.last_card: [0, 1, 3]}]"))
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(out)]) == 0
    m = json.loads((out / "manifest.json").read_text())
    assert [v["name"] for v in m["variants"]] == ["standard[pair=1]", "standard", "standard[last_card=0]",
                                                  "standard[last_card=3]"]
    assert [[p["variant"] for p in s["points"]] for s in m["sweep"]] == [
        ["standard[pair=1]", "standard"], ["standard[last_card=0]", "standard", "standard[last_card=3]"]]
    assert main(["compare", str(out), "--quiet"]) == 0
    md = (tmp_path / "out-compare" / "compare.md").read_text()
    assert "## Along the sweep (scoring.pair)" in md and "## Along the sweep (scoring.last_card)" in md


@pytest.mark.parametrize("sweep, message", [
    ("{scoring.pair: [-1, 2]}", "key 'sweep.scoring.pair': expected a whole number 0..100, got -1 (at "
                                "standard[pair=-1])"),
    ("{scoring.pairs: [1]}", "key 'sweep.scoring.pairs': unknown scoring key (did you mean 'pair'?)"),
    ("{nosuch: [1]}", "unknown key"),
    ("{target: []}", "key 'sweep.target': expected a list of values"),
    ("{target: [61, 61]}", "a value is listed twice"),
    ("3", "key 'sweep': expected a mapping of knobs"),
    ("[{target: [61]}, {scoring.go: [-2]}]", "key 'sweep[1].scoring.go': expected a whole number 0..100, got -2"),
    ("[]", "key 'sweep': expected 1 to 10 sweeps, got 0"),
    ("{target: [" + ", ".join(str(t) for t in range(50, 61)) + "], scoring.pair: ["
     + ", ".join(str(p) for p in range(11)) + "]}", "the grid has 121 points; at most 100"),
    ("{min_bid: [1, 2]}", "a knob of auction (V-AUCTION), which these rules do not play"),
    ("{name: [a]}", "not a knob a sweep can move"),
])
def test_a_bad_sweep_is_one_line_and_writes_nothing(tmp_path, capsys, sweep, message):
    cfg = tmp_path / "sweep.yaml"
    cfg.write_text(SWEEP.replace("{scoring.pair: [1, 2, 4], target: [61, 121]}", sweep))
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("cribsim: ")
    assert not out.exists()


# a variant whose effect is known in advance: at the start of each game a coin gives the whole game
# to the first dealer with probability coin_percent / 100, else to the pone; so the first dealer's
# win rate is coin_percent / 100, and it is one half at 50
COIN = """\
import random

from cribsim.games.cribbage.engine.events import OTHER
from cribsim.games.cribbage.engine.variant import Phase, Variant
from cribsim.params import Param


def toss(g):
    if g.deal_no == 0:
        heads = random.Random(f"{g.seed}-{g.address}").random() * 100 < g.rules.coin_percent
        seat = g.dealer if heads else (g.dealer + 1) % g.n
        g.award(seat, g.targets[g.side_of[seat]], OTHER, "the coin")


class Coin(Variant):
    name = "coin"
    rule = "COIN-1"
    params = (Param("coin_percent", int, 50, "the first dealer's chance to be given the game", lo=0, hi=100),)
    phases = (Phase("opening", toss),)
"""

BALANCE = """\
name: coin_balance
rules: {extends: standard, variants: ["coin:Coin"]}
knob: coin_percent
range: [0, 80]
metric: first_dealer_wins
target: 0.5
lineup: [random]
look: 400
precision: 0.03
confirm: 2000
seed: 9
"""


@pytest.fixture
def coin(tmp_path, monkeypatch):
    variants, params = dict(registry.VARIANTS), dict(registry.PARAMS)
    (tmp_path / "coin.py").write_text(COIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    codepath.forget("coin")  # (each test's coin.py, and balance.yaml's folder, is its own)
    yield tmp_path
    codepath.forget("coin")
    registry.VARIANTS.clear()
    registry.VARIANTS.update(variants)
    registry.PARAMS.clear()
    registry.PARAMS.update(params)


def test_balance_finds_a_known_answer_and_resumes(coin, capsys):
    cfg = coin / "balance.yaml"
    cfg.write_text(BALANCE)
    out = coin / "out"
    assert main(["balance", str(cfg), "--serial", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    report = (out / "balance.md").read_text()
    answer = int(report.split("`coin_percent` = **")[1].split("**")[0])
    assert abs(answer - 50) <= 3  # the answer is 50, to within the precision (0.03 of the win rate: 3 points)
    assert said.splitlines()[-1].startswith(f"coin_percent = {answer}: first_dealer_wins 0.")
    looks = [json.loads(x) for x in (out / "trajectory.jsonl").read_text().splitlines()[1:]]
    values = [x["value"] for x in looks]
    assert values[:2] == [0, 80] and values[-1] == answer
    assert values.count(answer) > 1  # at the target: more looks until the interval is within the precision
    assert (out / "steps" / "confirm" / "summary.md").exists()
    est, lo, hi = (float(x) for x in report.split("win rate ")[-1].replace("[", "").replace("]", "").replace(",", "")
                   .split()[:3])
    assert lo < 0.53 and hi > 0.47 and abs(est - answer / 100) < 0.03  # the confirmation agrees
    # run again: every look is read back, nothing is played again, the same answer
    before = (out / "trajectory.jsonl").read_text()
    assert main(["balance", str(cfg), "--serial", "--out", str(out)]) == 0
    assert "resuming coin_balance after" in capsys.readouterr().out
    assert (out / "trajectory.jsonl").read_text() == before


def test_balance_says_when_the_target_is_not_in_the_range(coin, capsys):
    cfg = coin / "balance.yaml"
    cfg.write_text(BALANCE.replace("range: [0, 80]", "range: [0, 30]"))
    assert main(["balance", str(cfg), "--serial", "--out", str(coin / "out")]) != 0
    err = capsys.readouterr().err
    assert "the metric is below 0.5 at both ends of the range" in err and err.count("\n") == 1


@pytest.mark.parametrize("change, message", [
    (("knob: coin_percent", "knob: coin_pct"), "the experiment at coin_pct = 0 would be refused"),
    (("range: [0, 80]", "range: [0, 101]"), "coin_percent = 101 would be refused"),
    (("range: [0, 80]", "range: [80, 0]"), "key 'range': expected low < high"),
    (("metric: first_dealer_wins", "metric: drama"), "key 'metric': expected one of first_dealer_wins, side_wins"),
    (("target: 0.5", "target: 1.5"), "key 'target'"),
])
def test_a_bad_balance_config_is_one_line_and_writes_nothing(coin, capsys, change, message):
    cfg = coin / "balance.yaml"
    cfg.write_text(BALANCE.replace(*change))
    assert main(["balance", str(cfg), "--serial", "--out", str(coin / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (coin / "out").exists()


def test_balance_on_a_budget_too_small_says_so(coin, capsys):
    cfg = coin / "balance.yaml"
    cfg.write_text(BALANCE.replace("precision: 0.03", "precision: 0.03\nmax_matches: 400"))
    assert main(["balance", str(cfg), "--serial", "--out", str(coin / "out")]) != 0
    err = capsys.readouterr().err
    assert "ended before both ends of the range were placed" in err and err.count("\n") == 1


def test_a_bot_helper_named_prepare_is_not_mistaken_for_prepare_rules(tmp_path, monkeypatch):
    from cribsim.strategy import factory

    (tmp_path / "mybot.py").write_text(
        "from cribsim.strategy import Strategy\n"
        "class Bot(Strategy):\n"
        "    def prepare(self, obs):\n        return None\n"
        "    def discard(self, obs):\n        return list(obs.hand[:obs.discards])\n"
        "    def play(self, obs):\n        return obs.legal[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from cribsim.ruleset import load_rules

    assert factory("mybot:Bot", rules=[load_rules("standard")]) is not None
