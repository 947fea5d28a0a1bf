"""A committed experiment, run again, writes the same bytes: a committed folder's experiment
re-run (on an embedded Ray) into a copy of that folder leaves every committed file
byte-identical, and adds only the files .gitignore keeps out (the records, the run log).

The suite re-runs ``greedy_vs_random_sprt`` (a sequential test on 2 workers, whose decision must
not depend on the order batches arrive: 15 s); the main job, ``quickstart`` (72,000 matches,
2 minutes), is re-run by ``python benchmarks/check_committed.py`` whenever a change could move
it (the session notes say when it was)."""

import shutil
from pathlib import Path

from cribsim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
UNTRACKED = {"matches.jsonl", "matches.jsonl.gz", "run.json", ".cribsim.lock"}  # results/*/... in .gitignore
REPLAYED = "greedy_vs_random_sprt"


def test_a_committed_run_again_writes_every_committed_file_byte_identical(tmp_path, capsys):
    committed = ROOT / "results" / REPLAYED
    before = {f.name: f.read_bytes() for f in committed.iterdir() if f.name not in UNTRACKED}
    assert {"manifest.json", "summary.md", "entries.csv", "winrates.png", "sprt.csv"} <= set(before)
    out = tmp_path / REPLAYED
    shutil.copytree(committed, out, ignore=shutil.ignore_patterns(*UNTRACKED))
    # (--workers 2: on Ray, whose batches arrive in any order; a run this small would play serially)
    assert main(["run", REPLAYED, "--out", str(out), "--quiet", "--workers", "2"]) == 0
    after = {f.name: f.read_bytes() for f in out.iterdir() if f.name not in UNTRACKED}
    changed = sorted(n for n in before if after.get(n) != before[n])
    assert not changed, f"committed files that a re-run changes: {changed}"
    assert set(after) == set(before), f"files a re-run adds beside the committed ones: {set(after) - set(before)}"
    assert (out / "run.json").is_file() and (out / "matches.jsonl.gz").is_file()


def test_the_checking_script_names_a_run_it_does_not_know_in_one_line(capsys):
    """``benchmarks/check_committed.py`` refuses a name with no committed run (exit 2, one line),
    rather than a traceback from copying a folder that is not there."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_committed", ROOT / "benchmarks" / "check_committed.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["no_such_run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no committed run named 'no_such_run'" in err
