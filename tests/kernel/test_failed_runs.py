"""A run that failed says so: when every match of a table failed (no result: a worker that kept
dying), or more than ``max_failed`` of them, the run ends with exit 1, ``"status": "failed"``
and the reason, its summary counts the failed matches in a row of their own, and ``--resume``
plays them again. A run on a cluster says which one it joined (and its run log keeps it)."""

import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cribsim.cli.main import main
from cribsim.errors import CribsimError, RunFailed
from cribsim.records import Forfeit, MatchRecord
from cribsim.tournament import batch, lanebatch
from cribsim.tournament.config import load_experiment
from cribsim.tournament.raycluster import ray_messages_to_log
from cribsim.tournament.runner import run_experiment
from tests.kernel.matchfile import match_dicts, match_lines

ROOT = Path(__file__).resolve().parents[2]
WHY = "its worker process died (RuntimeEnvSetupError), also when the match was retried"


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def failing(monkeypatch, which):
    """Serial batches whose matches ``which(id)`` picks come back failed, as a dying worker's do
    (every match played one by one: a lane's whole batches have no match records to fail)."""
    real = batch.play_batch
    monkeypatch.setattr(lanebatch, "takes_batches", lambda ctx: False)

    def play_batch(ctx, specs):
        records, info = real(ctx, specs)
        return [MatchRecord(r.id, r.variant, r.table, r.group, r.seating, r.sides, -1, None,
                            Forfeit(None, None, "crash", WHY)) if which(r.id) else r for r in records], info

    monkeypatch.setattr(batch, "play_batch", play_batch)


def entries(out):
    with open(out / "entries.csv") as f:
        return list(csv.DictReader(f))


def test_a_run_whose_every_match_failed_fails(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"  # (played to its end: fewer failed in a row than max_worker_deaths stops at)
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 4\nseed: 2\nmax_worker_deaths: 5\n")
    out = tmp_path / "out"
    failing(monkeypatch, lambda _: True)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("cribsim: run failed: every match of random vs greedy in standard failed (4; 4 of 4 in all; "
                          f"the first, match 0.0.0.0: {WHY})"), err
    assert "continue with --resume" in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and m["error"].startswith("every match of random vs greedy") and m["played"] == 4
    rows = entries(out)
    assert [(r["entry"], r["forfeits"]) for r in rows] == [("(failed: no result)", "4")], rows
    assert "0 matches (4 failed)" in (out / "summary.md").read_text()

    # --resume plays the failed matches again; their new records replace the failed ones
    monkeypatch.undo()
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out, "--resume"], capsys)
    assert code == 0, err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and "error" not in m
    assert len(match_lines(out)) == 8
    assert [r["entry"] for r in entries(out)] == ["random", "greedy"]
    fresh = tmp_path / "fresh"
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(fresh)]) == 0
    capsys.readouterr()
    for name in ("entries.csv", "variants.csv", "matrix_standard.csv", "paired.csv"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name


def test_more_failed_matches_than_max_failed_fail_the_run(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 100\nseed: 2\n")
    failing(monkeypatch, lambda i: i in ("0.0.3.0", "0.0.7.1"))  # 2 of 100: 2%
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "a"], capsys)
    assert code == 1 and "2 of 100 matches failed (2.0%, more than max_failed 0.01; the first, match 0.0.3.0" in err
    assert ("standard", "(failed: no result)", "2") in {(r["variant"], r["entry"], r["forfeits"])
                                                        for r in entries(tmp_path / "a")}
    cfg.write_text(cfg.read_text() + "max_failed: 0.05\n")
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "b"], capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["status"] == "complete"
    assert ("(failed: no result)", "2") in {(r["entry"], r["forfeits"]) for r in entries(tmp_path / "b")}
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "a"], capsys)  # the failed run,
    assert code == 0, err  # with the share raised, resumes in its folder: its failed matches fail again, within it
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["status"] == "complete"


@pytest.mark.parametrize("value", [-0.1, 1.5, "much", True])
def test_max_failed_is_a_share(tmp_path, value):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: f\nlineup: [random, greedy]\nmatches: 4\nmax_failed: {json.dumps(value)}\n")
    with pytest.raises(CribsimError, match=r"key 'max_failed': expected a finite number 0\.\.1"):
        load_experiment(cfg)


def test_max_failed_leaves_the_config_hash_alone(tmp_path):
    """It judges a run and changes no result: raising it lets a failed run resume in its folder."""
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("name: f\nlineup: [random, greedy]\nmatches: 4\n")
    b.write_text("name: f\nlineup: [random, greedy]\nmatches: 4\nmax_failed: 0.2\n")
    assert load_experiment(a).config_hash() == load_experiment(b).config_hash()
    assert load_experiment(a).max_failed == 0.01 and load_experiment(b).max_failed == 0.2


def test_a_run_on_a_cluster_says_which_one_it_joined(tmp_path, ray_cluster, capsys):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: c\nlineup: [random, greedy]\nmatches: 2\nseed: 2\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", workers=2, progress=False, report=False)
    err = capsys.readouterr().err
    line = f"cribsim: joined the Ray cluster at {ray_cluster.address} (a Ray already started): 2 nodes, 2 CPUs"
    assert line in err.splitlines(), err
    session = json.loads((tmp_path / "out" / "run.json").read_text())["sessions"][-1]
    assert session["cluster"] == {"address": ray_cluster.address, "asked": "a Ray already started", "nodes": 2,
                                  "cpus": 2}
    run_experiment(load_experiment(cfg), tmp_path / "quiet", workers=2, quiet=True)
    assert "joined" not in capsys.readouterr().err


def test_rays_own_messages_reach_neither_stdout_nor_stderr(capfd):
    """What Ray's core writes straight to descriptors 1 and 2 (a lost node's dump, with colour
    codes), and what Ray's driver prints of what its cluster publishes (a dead raylet's last log
    lines, printed to sys.stdout from a thread of Ray's), go to the run's log; cribsim's own
    prints keep the terminal."""
    import ray._private.worker as ray_worker

    real = ray_worker.print_to_stdstream
    with ray_messages_to_log() as log:
        os.write(1, b"\x1b[33m(raylet) Raylet is terminated\x1b[0m\n")
        os.write(2, b"[core] auth retry\n")
        print("the tables")
        print("cribsim: a message", file=sys.stderr)
        thread = threading.Thread(target=ray_worker.print_to_stdstream, args=(
            {"lines": ["Raylet is terminated. Last 20 lines"], "pid": "raylet", "is_err": False}, False))
        thread.start()
        thread.join()
    assert ray_worker.print_to_stdstream is real  # (put back)
    out, err = capfd.readouterr()
    assert out == "the tables\n" and err == "cribsim: a message\n"
    with open(log, "rb") as f:
        text = f.read()
    assert text.startswith(b"\x1b[33m(raylet) Raylet is terminated\x1b[0m\n[core] auth retry\n")
    assert b"Raylet is terminated. Last 20 lines" in text
    os.unlink(log)


SPRT = (ROOT / "configs" / "experiments" / "greedy_vs_random_sprt.yaml").read_text()


def test_with_a_sequential_test_only_the_matches_its_tables_use_are_judged(tmp_path, capsys, monkeypatch):
    """Failed matches past the test's decision (in flight when it decided: how many depends on
    the batches) neither fail the run nor change its tables; one before the decision keeps the
    test from deciding, and fails the run, the same however the batches fell."""
    cfg = tmp_path / "greedy_vs_random_sprt.yaml"
    cfg.write_text(SPRT)
    failing(monkeypatch, lambda i: 40 <= int(i.split(".")[2]) < 50)
    for seconds in (0.002, 1.5):
        out = tmp_path / f"late{seconds}"
        run_experiment(load_experiment(cfg), out, serial=True, quiet=True, batch_seconds=seconds)
        m = json.loads((out / "manifest.json").read_text())
        assert m["status"] == "stopped by the SPRT" and m["played"] == 68, (seconds, m["played"])
        for f in ("entries.csv", "sprt.csv", "summary.md"):
            assert (out / f).read_bytes() == (ROOT / "results" / "greedy_vs_random_sprt" / f).read_bytes(), f
    failing(monkeypatch, lambda i: i == "0.0.10.0")
    cfg.write_text(SPRT.replace("matches: 100000", "matches: 300"))  # (undecided, it would play them all)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "early"], capsys)
    assert code == 1 and "match 0.0.10.0 failed, and the sequential test of standard cannot go past it" in err, err


def test_a_failed_run_resumes_on_ray(tmp_path, capsys, monkeypatch, ray_cluster):
    """Its failed matches are played again where they failed (a worker, with its deadline), never
    in the run's own process as if nothing were left to play."""
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 4\nseed: 2\n")
    failing(monkeypatch, lambda _: True)
    code, _, _ = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "out"], capsys)
    assert code == 1
    monkeypatch.undo()
    run_experiment(load_experiment(cfg), tmp_path / "out", workers=2, resume=True, quiet=True)
    session = json.loads((tmp_path / "out" / "run.json").read_text())["sessions"][-1]
    assert session["mode"] == "ray" and session["status"] == "complete" and session["played"] == 4


def test_sigterm_stops_a_run_as_ctrl_c_does(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: term\nlineup: [random, greedy]\nmatches: 40000\nseed: 2\n")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "cribsim", "run", str(cfg), "--serial", "--quiet", "--out", str(out)],
                         cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    jsonl = out / "matches.jsonl.gz"
    deadline = time.time() + 60
    while time.time() < deadline and (not jsonl.exists() or jsonl.stat().st_size < 1000):
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    ids = [d["id"] for d in match_dicts(out)]
    assert p.returncode == 130 and err.decode().startswith(f"cribsim: interrupted; {len(ids):,} matches saved"), err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


# ---- a pairing whose first matches all fail stops the run (max_worker_deaths) -----------------------

def test_a_pairing_whose_first_matches_all_fail_stops_the_run(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 40\nseed: 2\n")
    out = tmp_path / "out"
    failing(monkeypatch, lambda _: True)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", out], capsys)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("cribsim: run failed: the first 4 matches of random vs greedy in standard all failed "
                          f"(match 0.0.0.0: {WHY}); the run stopped there rather than play the rest "
                          f"(max_worker_deaths: 3); 0 matches saved in {out} (continue with --resume)"), err
    assert len(match_lines(out)) == 4  # the first batch, not the 40 matches
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and m["error"].startswith("the first 4 matches") and m["played"] == 0


def test_a_pairing_with_a_result_plays_on_and_is_judged_at_the_end(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 20\nseed: 2\nmax_worker_deaths: 2\n")
    failing(monkeypatch, lambda i: i != "0.0.0.0")  # its first match has a result
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "out"], capsys)
    assert code == 1 and "19 of 20 matches failed" in err and "max_worker_deaths" not in err, err
    assert len(match_lines(tmp_path / "out")) == 20


@pytest.mark.parametrize("value", [0, -1, 1.5, "many", True])
def test_max_worker_deaths_is_a_whole_number(tmp_path, value):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: f\nlineup: [random, greedy]\nmatches: 4\nmax_worker_deaths: {json.dumps(value)}\n")
    with pytest.raises(CribsimError, match=r"key 'max_worker_deaths': expected a whole number 1\.\."):
        load_experiment(cfg)


def test_max_worker_deaths_leaves_the_config_hash_alone(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("name: f\nlineup: [random, greedy]\nmatches: 4\n")
    b.write_text("name: f\nlineup: [random, greedy]\nmatches: 4\nmax_worker_deaths: 10\n")
    assert load_experiment(a).config_hash() == load_experiment(b).config_hash()
    assert load_experiment(a).max_worker_deaths == 3 and load_experiment(b).max_worker_deaths == 10


def test_on_ray_a_pairing_whose_matches_kill_their_worker_stops_after_a_few(tmp_path, ray_cluster):
    """Every match kills its worker (a trusted plug-in in the worker's process): the run stops
    after the first ``max_worker_deaths`` of them, not after all 40 (6 to 12 s each)."""
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: k\nlineup: [random, {name: killer, strategy: 'tests.kernel.bad_strategies:Killer', "
                   "trusted: true}]\nmatches: 20\nseed: 2\nmax_worker_deaths: 1\n")
    out = tmp_path / "out"
    with pytest.raises(RunFailed) as failed:
        run_experiment(load_experiment(cfg), out, workers=2, quiet=True)
    said = str(failed.value)
    assert said.startswith("cribsim: run failed: the first 1 matches of random vs killer in standard all failed "
                           "(match 0.0."), said
    assert "(max_worker_deaths: 1); 0 matches saved in" in said
    assert len(match_lines(out)) == 1  # salvaged one by one, and stopped at the first


# ---- a failed run's line: what was saved, each path once -----------------------------------------------

def test_a_failed_run_counts_only_the_matches_with_a_result_as_saved(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 1\nseed: 2\n")
    failing(monkeypatch, lambda _: True)
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "a"], capsys)
    assert code == 1 and "every match of random vs greedy in standard failed (2;" in err, err
    assert f"; 0 matches saved in {tmp_path / 'a'} (continue with --resume)" in err, err
    cfg.write_text("name: f\nlineup: [random, greedy]\nmatches: 100\nseed: 2\n")
    monkeypatch.undo()
    failing(monkeypatch, lambda i: i in ("0.0.3.0", "0.0.7.1"))
    code, _, err = cli(["run", cfg, "--serial", "--quiet", "--out", tmp_path / "b"], capsys)
    assert code == 1 and "2 of 100 matches failed" in err and "98 matches saved" in err, err


def test_a_failed_run_on_ray_names_rays_log_once(tmp_path, ray_cluster, monkeypatch):
    log = tmp_path / "ray.log"
    log.write_text("(raylet) a message of Ray's own\n")
    monkeypatch.setenv("CRIBSIM_RAY_LOG", str(log))  # as a supervising cribsim run gives it
    from tests.kernel import hardening_plugins

    monkeypatch.setattr(hardening_plugins.SecondTimeUnlucky, "made", 0)  # (whatever another file's tests made)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: f\nlineup: [random, {name: f, strategy: 'tests.kernel.hardening_plugins:SecondTimeUnlucky', "
                   "trusted: true}]\nmatches: 6\nseed: 2\n")
    with pytest.raises(RunFailed) as failed:
        run_experiment(load_experiment(cfg), tmp_path / "out", workers=2, quiet=True)
    assert str(failed.value).count(f"(Ray's own messages: {log})") == 1, failed.value
    assert log.exists()
