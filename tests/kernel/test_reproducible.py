"""A committed experiment, run again, writes the same bytes: the quickstart (the main job, on an
embedded Ray) re-run into a copy of its committed folder leaves every committed file
byte-identical, and adds only the files .gitignore keeps out (the records, the run log)."""

import shutil
from pathlib import Path

from cribsim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
UNTRACKED = {"matches.jsonl", "run.json", ".cribsim.lock"}  # results/*/... in .gitignore


def test_the_quickstart_run_again_writes_every_committed_file_byte_identical(tmp_path, capsys):
    committed = ROOT / "results" / "quickstart"
    before = {f.name: f.read_bytes() for f in committed.iterdir() if f.name not in UNTRACKED}
    assert {"manifest.json", "summary.md", "entries.csv", "winrates.png"} <= set(before)
    out = tmp_path / "quickstart"
    shutil.copytree(committed, out, ignore=shutil.ignore_patterns(*UNTRACKED))
    assert main(["run", "quickstart", "--out", str(out), "--quiet"]) == 0
    after = {f.name: f.read_bytes() for f in out.iterdir() if f.name not in UNTRACKED}
    changed = sorted(n for n in before if after.get(n) != before[n])
    assert not changed, f"committed files that a re-run changes: {changed}"
    assert set(after) == set(before), f"files a re-run adds beside the committed ones: {set(after) - set(before)}"
    assert (out / "run.json").is_file() and (out / "matches.jsonl").is_file()
