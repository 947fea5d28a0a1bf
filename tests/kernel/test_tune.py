"""``cribsim tune`` (issue 14): SPSA's gains and signs, a tiny tune played in this process that
writes its trajectory and report and resumes without playing again, and one-line refusals of bad
tune configs and of another config's folder."""

import json
import textwrap

import pytest

from cribsim.cli.main import main
from cribsim.tournament.tune import Where, gains, load_tune, read_trajectory, signs, tune

TINY = """\
name: tiny
variant: standard
strategy: ev
opponent: greedy
params:
  reply_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}
  crib_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}
iterations: 2
matches: 4
final_matches: 6
seed: 3
"""


def write(tmp_path, text, name="tune.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_gains_follow_spall(tmp_path):
    """c_k = c / (k+1)^0.101 and r_k = r (A+1)^0.602 / (A+k+1)^0.602 with A = iterations / 10."""
    t = load_tune(write(tmp_path, TINY))
    c0, r0 = gains(t, 0)
    assert c0 == 1.0 and r0 == pytest.approx(20.0)
    c1, r1 = gains(t, 1)
    assert c1 == pytest.approx(2 ** -0.101)
    assert r1 == pytest.approx(20.0 * 1.2 ** 0.602 / 2.2 ** 0.602)
    assert signs(t, 0) == signs(t, 0) and set(signs(t, 1)) <= {-1, 1}


def test_a_tiny_tune_writes_and_resumes(tmp_path):
    t = load_tune(write(tmp_path, TINY))
    out = tmp_path / "out"
    r = tune(t, out, Where(serial=True))
    rows = [json.loads(line) for line in (out / "trajectory.jsonl").read_text().splitlines()]
    assert rows[0]["format"] == "cribsim-tune" and rows[0]["config_hash"] == t.config_hash()
    assert [row["iteration"] for row in rows[1:]] == [0, 1]
    for row in rows[1:]:
        assert row["matches"] == 8  # both sides of the perturbation, 4 paired matches each
        for p in t.params:  # within bounds, and the plus side is theta + c_k * delta
            assert p.lo <= row["next"][t.params.index(p)] <= p.hi
    first = rows[1]
    for i, p in enumerate(t.params):
        assert first["plus"][p.name] == pytest.approx(p.clip(1.0 + 0.5 * first["delta"][i]))
    assert rows[2]["theta"] == first["next"]  # each iteration starts where the last one ended
    assert r["matches"] == 6 and 0 <= r["score"] <= 1
    report = (out / "tune.md").read_text()
    assert "Trajectory" in report and "win rate against the opponent" in report
    assert (out / "tune.csv").read_text().startswith("iteration,reply_weight,crib_weight")
    before = (out / "trajectory.jsonl").read_text()
    again = tune(t, out, Where(serial=True))  # nothing left to play: the same figures, no new line
    assert again == r
    assert (out / "trajectory.jsonl").read_text() == before


def test_a_stopped_tune_continues_from_its_last_iteration(tmp_path):
    t = load_tune(write(tmp_path, TINY))
    out = tmp_path / "out"
    tune(t, out, Where(serial=True))
    full = (out / "trajectory.jsonl").read_text().splitlines()
    (out / "trajectory.jsonl").write_text("\n".join(full[:2]) + "\n" + full[2][:20])  # iteration 2 torn
    assert len(read_trajectory(t, out / "trajectory.jsonl")) == 1
    tune(t, out, Where(serial=True))
    assert (out / "trajectory.jsonl").read_text().splitlines()[:2] == full[:2]
    assert json.loads((out / "trajectory.jsonl").read_text().splitlines()[2]) == json.loads(full[2])


def test_another_configs_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    tune(load_tune(write(tmp_path, TINY)), out, Where(serial=True))
    other = write(tmp_path, TINY.replace("seed: 3", "seed: 4"), "other.yaml")
    assert main(["tune", str(other), "--out", str(out), "--serial"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cribsim: ") and "another config" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("change, says", [
    (("iterations: 2", "iterations: two"), "iterations"),
    (("matches: 4", "matches: 5"), "even number"),
    (("seed: 3", "seed: 3\nbogus: 1"), "bogus"),
    (("crib_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}", "crib_weight: {start: 1.0}"), "perturbation"),
    (("crib_weight:", "no_such:"), "has no parameter"),
    (("strategy: ev", "strategy: nobody"), "unknown strategy"),
    (("hi: 2.0, c: 0.5}\niter", "hi: 99.0, c: 0.5}\niter"), "crib_weight.hi"),
    (("opponent: greedy", "opponent: [greedy]"), "opponent"),
    (("start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}\n  crib", "start: 3.0, lo: 0.0, hi: 2.0, c: 0.5}\n  crib"),
     "reply_weight.start"),
    (("seed: 3", "seed: 3\nfixed: {nosuch: 1}"), "would be refused"),
    (("opponent: greedy", "opponent: {strategy: mc, params: {rollouts: -1}}"), "would be refused"),
    (("variant: standard", "variant: no_such_rules"), "would be refused"),
    (("start: 1.0, lo: 0.0", "start: 1" + "0" * 400 + ", lo: 0.0"), "reply_weight.start"),
])
def test_bad_tune_configs_are_one_line(tmp_path, capsys, change, says):
    text = TINY.replace(*change)
    assert text != TINY
    p = write(tmp_path, text)
    assert main(["tune", str(p), "--out", str(tmp_path / "out"), "--serial"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cribsim: ") and says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_a_damaged_trajectory_is_one_line(tmp_path, capsys):
    p = write(tmp_path, TINY)
    out = tmp_path / "out"
    tune(load_tune(p), out, Where(serial=True))
    lines = (out / "trajectory.jsonl").read_text().splitlines()
    row = json.loads(lines[1])
    del row["next"]
    (out / "trajectory.jsonl").write_text("\n".join([lines[0], json.dumps(row), *lines[2:]]) + "\n")
    assert main(["tune", str(p), "--out", str(out), "--serial"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cribsim: ") and "damaged" in err and len(err.strip().splitlines()) == 1


def test_an_empty_trajectory_starts_afresh(tmp_path):
    t = load_tune(write(tmp_path, TINY))
    out = tmp_path / "out"
    out.mkdir()
    (out / "trajectory.jsonl").write_text('{"format": "crib')  # a header torn as it was written
    assert read_trajectory(t, out / "trajectory.jsonl") == []
    tune(t, out, Where(serial=True))
    assert json.loads((out / "trajectory.jsonl").read_text().splitlines()[0])["format"] == "cribsim-tune"


def test_integer_parameters_are_rounded_half_up_and_the_gradient_uses_what_was_played(tmp_path):
    text = TINY.replace("strategy: ev", "strategy: mc").replace(
        "  reply_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}\n  crib_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}",
        "  rollouts: {start: 2, lo: 1, hi: 8, c: 0.5}").replace("opponent: greedy", "opponent: random") \
        .replace("iterations: 2", "iterations: 1").replace("seed: 3", "seed: 3\nfixed: {discard_rollouts: 0}")
    t = load_tune(write(tmp_path, text))
    assert t.params[0].played(2.5) == 3 and t.params[0].played(1.5) == 2
    out = tmp_path / "out"
    tune(t, out, Where(serial=True))
    row = json.loads((out / "trajectory.jsonl").read_text().splitlines()[1])
    moved = row["plus"]["rollouts"] - row["minus"]["rollouts"]
    assert moved in (1, -1)  # 2 +- 0.5 plays 3 and 2 (or 2 and 3)
    assert row["gradient"][0] == pytest.approx((row["score_plus"] - row["score_minus"]) / moved, abs=1e-6)


PLAIN = '''\
from strategies.greedy import GreedyStrategy


class Bonus(GreedyStrategy):
    """A plug-in that declares no params: its __init__ takes them."""

    def __init__(self, rng, five_bonus=1.5, depth=2, label="x"):
        super().__init__(rng)
        self.five_bonus, self.depth, self.label = five_bonus, depth, label
'''


def test_a_strategy_without_declared_params_is_tuned_by_its_init(tmp_path, capsys):
    """The numeric parameters __init__ takes with defaults can be tuned; with no declared bounds
    the tune file gives lo and hi, and the message says so (and how to declare them)."""
    (tmp_path / "bonusbot.py").write_text(PLAIN)
    text = TINY.replace("strategy: ev", "strategy: bonusbot:Bonus").replace(
        "  reply_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}\n  crib_weight: {start: 1.0, lo: 0.0, hi: 2.0, c: 0.5}",
        "  five_bonus: {lo: 0.0, hi: 3.0, c: 0.5}\n  depth: {lo: 1, hi: 4, c: 1}")
    t = load_tune(write(tmp_path, text))
    assert [(p.name, p.start, p.kind) for p in t.params] == [("five_bonus", 1.5, float), ("depth", 2.0, int)]
    p = write(tmp_path, text.replace("five_bonus: {lo: 0.0, hi: 3.0, c: 0.5}", "five_bonus: {c: 0.5}"))
    assert main(["tune", str(p), "--out", str(tmp_path / "out"), "--serial"]) == 2
    err = capsys.readouterr().err
    assert "params.five_bonus.lo" in err and "declares no bounds" in err and "Param" in err
    p = write(tmp_path, text.replace("five_bonus:", "label:"))
    assert main(["tune", str(p), "--out", str(tmp_path / "out"), "--serial"]) == 2
    assert "has no parameter 'label' to tune" in capsys.readouterr().err
