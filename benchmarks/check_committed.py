"""Re-run committed experiments into copies of their results folders and say whether every
committed file came out byte-identical (the promise that a re-run writes the same bytes).

    python benchmarks/check_committed.py [NAME ...]      # default: quickstart (about 2 min on 2 cores)

Each NAME is a folder under results/ and the experiment of the same name. The records and the
run log (kept out of git) are not copied, so every match is played again. Prints one line per
experiment, the changed files if any, and exits 1 if a file changed."""

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNTRACKED = ("matches.jsonl", "matches.jsonl.gz", "run.json", ".cribsim.lock")


def check(name: str) -> bool:
    committed = ROOT / "results" / name
    before = {f.name: f.read_bytes() for f in committed.iterdir() if f.name not in UNTRACKED}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / name
        shutil.copytree(committed, out, ignore=shutil.ignore_patterns(*UNTRACKED))
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "cribsim", "run", name, "--out", str(out), "--quiet"], check=True,
                       cwd=ROOT)
        seconds = time.monotonic() - t0
        after = {f.name: f.read_bytes() for f in out.iterdir() if f.name not in UNTRACKED}
    changed = sorted(n for n in before if after.get(n) != before[n]) + sorted(set(after) - set(before))
    print(f"{name}: {len(before)} committed files, {'changed: ' + ', '.join(changed) if changed else 'byte-identical'}"
          f" ({seconds:.0f} s)")
    return not changed


def main() -> int:
    names = sys.argv[1:] or ["quickstart"]
    return 0 if all([check(n) for n in names]) else 1


if __name__ == "__main__":
    sys.exit(main())
