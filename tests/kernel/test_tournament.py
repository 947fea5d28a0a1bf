"""Tournaments: reproducible on 1 core, 2 workers and a two-node cluster; resumable after
SIGKILL; strategies that crash, hang or cheat forfeit; bad input is one line, exit 2, nothing
written."""

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cribsim.cli.main import main
from cribsim.errors import CribsimError
from cribsim.tournament import sink
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import manifest_for, run_experiment
from tests.kernel.matchfile import match_dicts, match_lines
from tests.kernel.protocol_players import RAW_PLAYER

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path, text, name="exp.yaml"):
    f = tmp_path / name
    f.write_text(textwrap.dedent(text))
    return f


def tables(out):
    """Every summary file (tables only; plots are images)."""
    out = Path(out)
    return {f.name: f.read_bytes() for f in sorted(out.iterdir()) if f.suffix in (".csv", ".md")}


def assert_rectangular(out):
    """Every CSV has as many fields in each row as in its header (blank matrix cells padded)."""
    import csv

    for f in Path(out).glob("*.csv"):
        rows = list(csv.reader(f.read_text().splitlines()))
        assert len({len(r) for r in rows}) == 1, f.name


SMALL = """\
    name: small
    variants: [standard, three_player, four_player_partners]
    lineup:
      - {name: greedy, strategy: greedy}
      - {name: rnd, strategy: random}
      - {name: rnd2, strategy: random}
    matches: 12
    seed: 99
"""


def test_same_tables_serial_one_worker_two_workers_two_nodes(tmp_path, ray_cluster):
    """The serial reference plays in the Python engine (``fast=False``); the Ray runs play in
    the game's faster lane where it has one, in their workers: the same tables."""
    cfg = write(tmp_path, SMALL)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True, fast=False)
    m1 = run_experiment(exp, tmp_path / "w1", workers=1, quiet=True, batch_seconds=0.02)
    m2 = run_experiment(exp, tmp_path / "w2", workers=2, quiet=True, batch_seconds=0.02)
    ref = tables(tmp_path / "serial")
    assert "summary.md" in ref and "entries.csv" in ref and "variants.csv" in ref
    assert tables(tmp_path / "w1") == ref
    assert tables(tmp_path / "w2") == ref
    assert_rectangular(tmp_path / "serial")
    session = json.loads((tmp_path / "w2" / "run.json").read_text())["sessions"][-1]
    assert len(session["nodes"]) == 2, "the two-worker run should have used both nodes of the cluster"
    lanes = json.loads((tmp_path / "serial" / "run.json").read_text())["sessions"][-1]["engine"]
    assert "(--no-fast)" in lanes and session["engine"] != lanes  # the workers' lane is not the reference's
    # 12 matches per table: standard and partners have 3 two-entry tables, three-player 1 table
    assert m1.played == m2.played == 12 * 3 + 12 * 1 + 12 * 3
    # the manifest says nothing of the machine or the clock: the same run, the same bytes
    assert (tmp_path / "w1" / "manifest.json").read_bytes() == (tmp_path / "w2" / "manifest.json").read_bytes()
    for png in ("winrates.png", "variants.png", "heatmap_standard.png"):
        assert (tmp_path / "w2" / png).stat().st_size > 1000
    # report rebuilds the same tables from the files alone
    for f in tmp_path.joinpath("w2").glob("*.csv"):
        f.unlink()
    assert main(["report", str(tmp_path / "w2"), "--quiet"]) == 0
    assert tables(tmp_path / "w2") == ref


def test_cli_run_joins_an_existing_cluster(tmp_path, ray_cluster):
    cfg = write(tmp_path, SMALL)
    env = dict(os.environ, RAY_ADDRESS=ray_cluster.address)
    r = subprocess.run([sys.executable, "-m", "cribsim", "run", str(cfg), "--out", str(tmp_path / "cli")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Win rate, row against column (standard)" in r.stdout
    manifest = json.loads((tmp_path / "cli" / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    for key in ("cribsim_version", "variants", "config_hash", "seed", "variant_info", "files"):
        assert key in manifest
    for key in ("mode", "workers", "started", "git_commit", "python", "nodes"):  # the machine's: the run log's
        assert key not in manifest
    session = json.loads((tmp_path / "cli" / "run.json").read_text())["sessions"][-1]
    assert session["mode"] == "ray" and session["status"] == "complete" and session["workers"] == 2
    for key in ("started", "ended", "host", "python", "engine", "config"):
        assert session[key]
    assert "git_commit" in session
    run_experiment(load_experiment(cfg), tmp_path / "serial", serial=True, quiet=True)
    assert tables(tmp_path / "cli") == tables(tmp_path / "serial")


RESUME = """\
    name: resume
    variants: [standard]
    lineup: [greedy, random]
    matches: 2000
    seed: 3
"""


def test_sigkill_then_resume_gives_the_same_tables(tmp_path):
    cfg = write(tmp_path, RESUME)
    out = tmp_path / "killed"
    # in the Python engine, slow enough to be killed mid-run (the native lane plays it all in a blink);
    # the resume below plays the rest natively: the same tables as a clean run
    p = subprocess.Popen([sys.executable, "-m", "cribsim", "run", str(cfg), "--serial", "--quiet", "--no-fast", "--out",
                          str(out)], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    jsonl = out / "matches.jsonl.gz"
    deadline = time.time() + 120
    while time.time() < deadline and (not jsonl.exists() or len(match_lines(out)) < 200):
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    done_before = len(match_lines(out))
    assert 200 <= done_before < 2000
    member = gzip.compress(b'{"schema":3,"id":"0.0.9999.0","variant":0}\n', mtime=0)
    with open(jsonl, "ab") as f:  # a half-written last batch, as a kill mid-write leaves
        f.write(member[:len(member) // 2])
    exp = load_experiment(cfg)
    other = load_experiment(cfg, seed=4)  # a different config may not mix into this folder
    with pytest.raises(Exception, match="already holds a run of a different config"):
        run_experiment(other, out, serial=True, quiet=True)
    run_experiment(exp, out, serial=True, resume=True, quiet=True)
    ids = [d["id"] for d in match_dicts(out)]
    assert len(ids) == len(set(ids)) == 2000  # only the missing matches were played
    run_experiment(exp, tmp_path / "clean", serial=True, quiet=True)
    assert tables(out) == tables(tmp_path / "clean")
    sessions = json.loads((out / "run.json").read_text())["sessions"]
    assert [s["status"] for s in sessions] == ["running", "complete"]  # the killed session never logged its end
    # the same config again continues (nothing left to play) and reports the same tables
    run_experiment(exp, out, serial=True, quiet=True)
    assert len(match_lines(out)) == 2000
    assert tables(out) == tables(tmp_path / "clean")


FAULTY = """\
    name: faulty
    variants: [standard]
    lineup:
      - {name: rnd, strategy: random}
      - {name: raiser, strategy: "tests.kernel.bad_strategies:Raiser", params: {p: 0.02}}
      - {name: cheat, strategy: "tests.kernel.bad_strategies:Illegal", params: {p: 0.02}}
      - {name: spinner, strategy: "tests.kernel.bad_strategies:Spinner", params: {p: 0.01}}
      - {name: sleeper, strategy: "tests.kernel.bad_strategies:Spinner", params: {p: 0.002, sleep: true}}
    format: gauntlet
    matches: 20
    seed: 4
    time_limit: 0.2
"""


def test_faulty_strategies_forfeit_and_the_run_goes_on(tmp_path, ray_cluster):
    cfg = write(tmp_path, FAULTY)
    exp = load_experiment(cfg)
    # the plug-ins are untrusted, so the run deals with a secret: a fixed one keeps the faults'
    # chance draws the same in every run of this test
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "deal-secret").write_text("5a" * 32 + "\n")
    run_experiment(exp, tmp_path / "ray", workers=2, quiet=True, batch_seconds=0.3, deal_secret=tmp_path / "secret")
    recs = match_dicts(tmp_path / "ray")
    assert len(recs) == 4 * 20
    kinds = {}
    for r in recs:
        if r["forfeit"]:
            f = r["forfeit"]
            kinds.setdefault(exp.lineup[f["entry"]].name, set()).add(f["kind"])
            assert r["sides"][r["winner"]] != f["entry"]  # the other side wins
    assert kinds.get("raiser") == {"error"}
    assert kinds.get("cheat") == {"illegal"}
    assert kinds.get("spinner") == {"timeout"} and kinds.get("sleeper") == {"timeout"}
    assert "rnd" not in kinds
    entries = (tmp_path / "ray" / "entries.csv").read_text()
    assert "forfeits" in entries.splitlines()[0]
    summary = (tmp_path / "ray" / "summary.md").read_text()
    assert "RuntimeError: boom" in summary and "a decision took over 0.2 s" in summary
    # the same forfeits, byte for byte, without Ray
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True, deal_secret=tmp_path / "secret")
    assert tables(tmp_path / "ray") == tables(tmp_path / "serial")


def test_a_dying_worker_is_retried_and_results_stay_identical(tmp_path, ray_cluster):
    # trusted: the crasher runs in the worker's own process (isolated, its death would be its
    # forfeit: tests/test_isolation.py), so the worker dies and Ray retries its batch
    marker = tmp_path / "crashed-once"
    cfg = write(tmp_path, f"""\
        name: crash
        variants: [standard]
        lineup:
          - {{name: rnd, strategy: random}}
          - {{name: crasher, strategy: "tests.kernel.bad_strategies:Crasher", params: {{marker: "{marker}"}},
             trusted: true}}
        matches: 30
        seed: 8
    """)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "crashy", workers=2, quiet=True, batch_seconds=0.05)
    assert marker.exists()  # a worker really died
    run_experiment(exp, tmp_path / "calm", serial=True, quiet=True)  # marker exists: no crash
    assert tables(tmp_path / "crashy") == tables(tmp_path / "calm")


def _ready() -> bool:
    """Run on a worker, which imports this module (and so the engine) to find it."""
    return True


def _warm(node_id: str) -> None:
    """Start a worker on that node and import the engine in it, so that the node takes batches
    from the run's first moment (Ray reuses the worker)."""
    import ray

    ray.get(ray.remote(_ready).options(scheduling_strategy=_pinned(node_id)).remote(), timeout=120)


def _pinned(node_id: str):
    """Ray's strategy that runs a task on that node and nowhere else."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)


def _hold(started: str, release: str, seconds: float) -> None:
    """Run on a worker pinned to a node: hold that node's one CPU until ``release`` exists (or
    ``seconds`` pass), so that a run's first batches can only go elsewhere."""
    Path(started).touch()
    until = time.monotonic() + seconds
    while not Path(release).exists() and time.monotonic() < until:
        time.sleep(0.02)


def _hold_others(spared: str, tmp_path: Path) -> tuple[Path, list]:
    """Every alive node but ``spared`` busy with a pinned ``_hold`` (returned: the file that
    releases them, and their refs), each started before this returns."""
    import ray

    release = tmp_path / "release"
    others = [n["NodeID"] for n in ray.nodes() if n["Alive"] and n["NodeID"] != spared]
    refs = []
    hold = ray.remote(_hold)
    for i, node in enumerate(others):
        started = tmp_path / f"held-{i}"
        refs.append(hold.options(scheduling_strategy=_pinned(node)).remote(str(started), str(release), 120))
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"held-{i}").exists() for i in range(len(others))):
        assert time.monotonic() < deadline, "the other nodes never took their holds"
        time.sleep(0.05)
    return release, refs


def test_a_node_lost_mid_run_costs_only_retries(tmp_path, ray_cluster, monkeypatch):
    """A node removed while its batches run (its raylet and workers killed): Ray retries them on
    the other nodes, and the tables are those of an undisturbed run."""
    cfg = write(tmp_path, """\
        name: lost
        variants: [standard]
        lineup: [greedy, random]
        matches: 300
        seed: 12
    """)
    exp = load_experiment(cfg)
    doomed = ray_cluster.add_node(num_cpus=1)
    ray_cluster.wait_for_nodes()
    _warm(doomed.node_id)  # its worker ready before the run starts
    # the other nodes' CPUs held until the doomed node has played a batch: on a busy machine they
    # could otherwise play all 300 matches first (SPREAD, and a timed wait, both failed on CI)
    release, holds = _hold_others(doomed.node_id, tmp_path)
    real_add = sink.Sink.add
    lost = []

    def add(self, batch):
        real_add(self, batch)
        if not lost and batch.info.get("node") == doomed.node_id:  # it has played: its next batch is in flight
            release.touch()
            ray_cluster.remove_node(doomed, allow_graceful=False)
            lost.append(batch.info["node"])

    monkeypatch.setattr(sink.Sink, "add", add)
    try:
        run_experiment(exp, tmp_path / "lost", workers=3, quiet=True, batch_seconds=0.05, fast=False)
    finally:
        release.touch()
    monkeypatch.setattr(sink.Sink, "add", real_add)
    import ray

    ray.get(holds, timeout=120)
    assert lost, "the doomed node never played a batch"
    run_experiment(exp, tmp_path / "calm", serial=True, quiet=True)
    assert tables(tmp_path / "lost") == tables(tmp_path / "calm")
    assert json.loads((tmp_path / "lost" / "manifest.json").read_text())["status"] == "complete"


def test_sprt_stops_early_and_reports(tmp_path, ray_cluster):
    cfg = write(tmp_path, """\
        name: sprt
        variants: [standard]
        lineup: [greedy, random]
        matches: 20000
        seed: 5
        stop: {sprt: {elo0: 0, elo1: 30, alpha: 0.05, beta: 0.05}}
    """)
    exp = load_experiment(cfg)
    m = run_experiment(exp, tmp_path / "ray", workers=2, quiet=True, batch_seconds=0.2)
    assert m.status == "stopped by the SPRT" and m.played < 40000
    sprt = (tmp_path / "ray" / "sprt.csv").read_text().splitlines()
    assert sprt[0].startswith("test,decision,LLR,lower,upper,units")
    fields = sprt[1].split(",")
    assert fields[1] == "H1" and float(fields[2]) >= float(fields[4])
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True)
    assert tables(tmp_path / "ray") == tables(tmp_path / "serial")


@pytest.mark.parametrize("text,fragment", [
    ("name: x\nlineup: [random, random2]\n", "lineup[1].strategy"),
    ("name: x\nvariants: [nosuch]\nlineup: [random, greedy]\n", "variants[0]"),
    ("name: x\nlineup: [random, greedy]\nmatches: -5\n", "key 'matches'"),
    ("name: x\nlineup: [random, greedy]\nformat: pairings\npairings: [[random, greedy, random]]\n", "pairings[0]"),
    ("name: x\nvariants: [three_player]\nlineup: [random, greedy]\n", "key 'lineup'"),
    ("name: x\nlineup: [random, greedy\n", "invalid YAML"),
    ("name: x\nlineup: [random, greedy]\ncolour: blue\n", "key 'colour'"),
    ("name: x\nlineup: [random, {strategy: greedy, params: {depth: 2}}]\n", "lineup[1].strategy"),
    ("name: x\ngame: chess\nlineup: [random, greedy]\n", "key 'game'"),
    ("name: x\ngame: fives_threes\nlineup: [random, hoyle]\n", "lineup[1].strategy"),
    ("name: x\ngame: fives_threes\nvariants: [standard]\nlineup: [random, greedy]\n", "cribbage rules"),
    ("name: x\nvariants: [fives_threes]\nlineup: [random, greedy]\n", "fives_threes rules"),
    ("name: x\ngame: fives_threes\nlineup: [random, {strategy: mc, params: {samples: 0}}]\n", "samples >= 1"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, text, fragment):
    cfg = write(tmp_path, text)
    out = tmp_path / "out"
    code = main(["run", str(cfg), "--serial", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and fragment in err and str(cfg) in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_unreachable_cluster_is_one_line_and_writes_nothing(tmp_path, capsys):
    cfg = write(tmp_path, SMALL)
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--address", "127.0.0.1:1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot reach a Ray cluster at 127.0.0.1:1" in err and err.count("\n") == 1
    assert not out.exists()


def test_missing_config_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "absent.yaml"), "--serial"]) == 2
    err = capsys.readouterr().err
    assert "absent.yaml" in err and "no such experiment file" in err


def test_shipped_example_configs_are_valid(tmp_path, monkeypatch):
    from cribsim.games.cribbage import cribtables
    from cribsim.tournament.balance import load_balance

    # loading prepares ev for each rule set: a new scoring's crib tables are built small, in a folder of the test's
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(cribtables, "SCORING_SAMPLES", 4)
    from strategies import adaptive  # ... and adaptive learns each rule set's crib table small, likewise
    monkeypatch.setattr(adaptive, "LEARN_DEALS", 20)
    monkeypatch.setattr(adaptive, "LEARN_SAMPLES", 20)
    from cribsim.tournament.tune import load_tune

    for f in sorted((ROOT / "configs").rglob("*.yaml")):
        if "rules" in f.parts:
            continue
        if "tune" in f.parts:  # tune configs (cribsim tune), checked with the experiments they play
            load_tune(f)
            continue
        if "balance" in f.parts:  # balance configs (cribsim balance), likewise
            load_balance(f)
            continue
        load_experiment(f)


FIVES_THREES = """\
    name: dominoes
    game: fives_threes
    variants: [fives_threes, fives_threes_three, fives_threes_partners,
               {name: short, extends: fives_threes, target: 31}]
    lineup: [greedy, random, defensive]
    matches: 8
    seed: 3
"""


def test_fives_and_threes_on_the_same_machinery(tmp_path, ray_cluster):
    # issue 6: game: fives_threes runs through the same runner, statistics and report,
    # with identical tables serially and on two Ray workers
    exp = load_experiment(write(tmp_path, FIVES_THREES))
    assert exp.game == "fives_threes" and exp.variants[3].target == 31
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True)
    m = run_experiment(exp, tmp_path / "ray", workers=2, quiet=True, batch_seconds=0.02)
    assert tables(tmp_path / "ray") == tables(tmp_path / "serial")
    assert_rectangular(tmp_path / "serial")
    assert m.played == 8 * 3 + 12 + 8 * 3 + 8 * 3  # three players: 2 groups of 6 seatings
    variants = (tmp_path / "serial" / "variants.csv").read_text()
    for column in ("first leader wins", "hands/game", "blocked hands", "cancelled events (exact finish)"):
        assert column in variants
    summary = (tmp_path / "serial" / "summary.md").read_text()
    assert "Win rate, row against column (fives_threes_partners)" in summary
    assert (tmp_path / "ray" / "variants.png").stat().st_size > 1000


def test_off_a_terminal_a_run_prints_a_progress_line_now_and_then(tmp_path, capsys, monkeypatch):
    """Standard error redirected (a log, a batch job): no bar, one line every PROGRESS_EVERY s."""
    from cribsim.tournament import sink

    monkeypatch.setattr(sink, "PROGRESS_EVERY", 0.0)
    exp = load_experiment(write(tmp_path, SMALL))
    run_experiment(exp, tmp_path / "p", serial=True, report=False, batch_seconds=0.01)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if " matches (" in ln]
    assert lines and all(re.fullmatch(r"cribsim: [\d,]+ of [\d,]+ matches \(\d+%\), [\d,.]+ matches/s, "
                                      r"(about \d+(\.\d)? (s|min|h) left|time left unknown)", ln) for ln in lines)
    assert lines[-1].startswith(f"cribsim: {exp.matches * 7:,} of")


SPRT_SMALL = """\
    name: sprt_small
    variants: [standard]
    lineup: [greedy, random]
    matches: 4000
    seed: 11
    stop: {sprt: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}}
"""


def test_a_run_the_sprt_stops_writes_the_same_manifest_whatever_was_in_flight(tmp_path):
    """The manifest counts the matches the tables use (the groups up to the decision); how many
    more were played when the test decided depends on the batches and goes to the run log."""
    exp = load_experiment(write(tmp_path, SPRT_SMALL))
    small = run_experiment(exp, tmp_path / "small", serial=True, report=False, batch_seconds=0.001)
    big = run_experiment(exp, tmp_path / "big", serial=True, report=False, batch_seconds=2.0)
    assert small.status == big.status == "stopped by the SPRT"
    assert (tmp_path / "small" / "manifest.json").read_bytes() == (tmp_path / "big" / "manifest.json").read_bytes()
    logged = [json.loads((tmp_path / f / "run.json").read_text())["sessions"][-1]["played"] for f in ("small", "big")]
    assert min(logged) >= small.played


def test_a_run_log_that_is_not_cribsims_is_left_alone_and_an_old_folder_keeps_its_history(tmp_path):
    """run.json is cribsim's only when it says so (or the manifest lists it): a user's file of
    that name is never written or removed; an older manifest's own start and machine become the
    log's first session."""
    exp = load_experiment(write(tmp_path, SMALL))
    out = tmp_path / "old"
    run_experiment(exp, out, serial=True, report=False)
    m = json.loads((out / "manifest.json").read_text())
    m.update(started="2026-11-30T10:00:00+00:00", ended="2026-11-30T10:01:00+00:00", workers=2, mode="ray",
             files=[f for f in m["files"] if f != "run.json"])
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "run.json").unlink()
    run_experiment(exp, out, serial=True, report=False)  # nothing left to play: reported again
    sessions = json.loads((out / "run.json").read_text())["sessions"]
    assert sessions[0]["id"] == "legacy" and sessions[0]["started"] == "2026-11-30T10:00:00+00:00"
    assert json.loads((out / "manifest.json").read_text())["files"].count("run.json") == 1
    mine = tmp_path / "mine"
    run_experiment(exp, mine, serial=True, report=False)
    m = json.loads((mine / "manifest.json").read_text())
    m["files"] = [f for f in m["files"] if f != "run.json"]  # an older run's manifest: it never wrote one
    (mine / "manifest.json").write_text(json.dumps(m))
    (mine / "run.json").write_text('{"mine": true}\n')
    run_experiment(exp, mine, serial=True, report=False)
    assert (mine / "run.json").read_text() == '{"mine": true}\n'
    other = load_experiment(write(tmp_path, SMALL), seed=98)  # another config, --fresh: the old run goes
    run_experiment(other, mine, serial=True, report=False, fresh=True)
    assert (mine / "run.json").read_text() == '{"mine": true}\n'  # --fresh removes only what cribsim wrote



def test_the_manifest_records_a_program_bots_command_and_the_hash_of_the_files_it_is_shown(tmp_path):
    """A results folder says which program made it: the command, the files shown (a folder's at
    any depth) and a hash that sha256sum's own listing gives (docs/experiments.md); a run
    without programs records none, and another file's content gives another hash. A folder of
    the old program's run is refused to the changed program (one line), but with --fresh."""
    bot = tmp_path / "bot"
    (bot / "data" / "deep").mkdir(parents=True)
    (bot / "first.py").write_text(RAW_PLAYER)
    (bot / "data" / "weights.txt").write_text("1 2 3\n")
    (bot / "data" / "deep" / "more.txt").write_text("4\n")
    cfg = write(tmp_path, f"name: p\nlineup:\n  - {{name: first, command: [{sys.executable}, first.py], cwd: bot, "
                          "files: [first.py, data/], trusted: true}\n  - greedy\nmatches: 1\nseed: 3\n")
    run_experiment(load_experiment(cfg), tmp_path / "a", serial=True, report=False)
    listing = "find first.py data/ -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum"
    expected = subprocess.run(["sh", "-c", listing], cwd=bot, capture_output=True, text=True, check=True)
    lineup = json.loads((tmp_path / "a" / "manifest.json").read_text())["lineup"]
    assert lineup[0]["program"] == {"command": [sys.executable, "first.py"], "files": ["first.py", "data"],
                                    "sha256": expected.stdout.split()[0]}
    assert "program" not in lineup[1]
    (bot / "data" / "deep" / "more.txt").write_text("5\n")
    run_experiment(load_experiment(cfg), tmp_path / "b", serial=True, report=False)
    again = json.loads((tmp_path / "b" / "manifest.json").read_text())["lineup"][0]["program"]["sha256"]
    assert again != expected.stdout.split()[0]
    with pytest.raises(CribsimError, match=r"the program bot 'first' as its files were then .*--fresh"):
        run_experiment(load_experiment(cfg), tmp_path / "a", serial=True, report=False)  # (the old program's run)
    run_experiment(load_experiment(cfg), tmp_path / "a", serial=True, report=False, fresh=True)
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["lineup"][0]["program"]["sha256"] == again
    run_experiment(load_experiment(write(tmp_path, SMALL)), tmp_path / "c", serial=True, report=False)
    assert "program" not in (tmp_path / "c" / "manifest.json").read_text()
    documented = re.search(r'"sha256": "(\w+)"', (ROOT / "docs" / "experiments.md").read_text()).group(1)
    perl = subprocess.run(["sh", "-c", listing.replace("first.py data/", "fifteens.pl")],
                          cwd=ROOT / "examples" / "bots", capture_output=True, text=True, check=True)
    assert documented == perl.stdout.split()[0]  # the docs' example, as its own command checks it


def test_batches_last_long_enough_to_keep_the_driver_under_a_tenth_busy():
    """A batch is ``batch_seconds`` of play, or longer where W workers each handing the driver a
    batch would keep it busy more than a twentieth of the time (its cost a batch measured), at most
    LARGEST matches, the tail spread over the workers."""
    from cribsim.tournament.executors import BUSY, LARGEST, _next_size

    assert _next_size(0.03, 1000, 1.5, 10**9, 2, 0.003) == LARGEST  # lane matches: 30 us, 50,000 a batch at most
    assert _next_size(1.0, 1000, 1.5, 10**9, 2, 0.003) == 1500  # 1.5 s of play: the driver 0.4% busy
    assert _next_size(1.0, 1000, 1.5, 10**9, 100, 0.003) == int(100 * 0.003 / BUSY * 1000)  # 6 s: 5% busy
    assert _next_size(1.0, 1000, 1.5, 3000, 4, 0.003) == 750  # the tail shared


def test_a_small_run_with_no_workers_asked_plays_serially_and_says_why(tmp_path, capsys, monkeypatch):
    """Where Ray's start-up and teardown would cost more than the workers save, a run with no
    --workers (nor --address) plays serially, in one line; an explicit --workers is Ray's."""
    from cribsim.tournament import runner

    monkeypatch.setattr(runner.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(runner, "_ray_running", lambda: False)  # (a Ray the other tests' fixture left up)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    exp = load_experiment(write(tmp_path, SMALL))
    m = run_experiment(exp, tmp_path / "small", report=False)
    err = capsys.readouterr().err
    said = [ln for ln in err.splitlines() if "serially" in ln]
    assert m.status == "complete" and len(said) == 1 and "--workers N (or ray: always in the config) uses Ray anyway" \
        in said[0]
    session = json.loads((tmp_path / "small" / "run.json").read_text())["sessions"][-1]
    assert session["mode"] == "serial" and session["chosen"] == said[0].removeprefix("cribsim: ")
    manifest = manifest_for(exp)
    assert runner.serial_wins(exp, manifest, 0, True) is not None
    monkeypatch.setenv("CRIBSIM_RAY_START", "0")  # Ray free to start: two cores beat one
    assert runner.serial_wins(exp, manifest, 0, True) is None
    monkeypatch.setattr(runner.os, "cpu_count", lambda: 1)  # one core: Ray never wins
    assert runner.serial_wins(exp, manifest, 0, True) is not None


def test_ray_always_in_the_config_starts_ray_whatever_the_runs_size(tmp_path, monkeypatch):
    """``ray: always`` (the quickstart's: it shows the embedded Ray at work) never asks whether
    serial would win; a value other than auto or always is a config error; neither is hashed."""
    from cribsim.tournament import runner

    monkeypatch.setattr(runner, "_ray_running", lambda: False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(runner, "serial_wins", lambda *a: pytest.fail("asked whether serial wins"))
    on_ray = []
    monkeypatch.setattr(runner, "_run_on_ray", lambda run, *a: on_ray.append(run.session.mode))
    exp = load_experiment(write(tmp_path, SMALL + "    ray: always\n"))
    assert exp.ray == "always" and exp.config_hash() == load_experiment(write(tmp_path, SMALL)).config_hash()
    run_experiment(exp, tmp_path / "small", report=False, quiet=True)
    assert on_ray == ["ray"]
    with pytest.raises(CribsimError, match="key 'ray': expected one of auto, always, got 'never'"):
        load_experiment(write(tmp_path, SMALL + "    ray: never\n"))
