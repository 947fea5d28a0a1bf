"""Re-run committed experiments into copies of their results folders and say whether every
committed file came out byte-identical (the promise that a re-run writes the same bytes). The
analyses a folder holds (``compare``, ``positions``, ``dealstats``) are run again on the new
records too, with the baseline and close margin their files name.

    python benchmarks/check_committed.py [NAME ...]      # default: quickstart (about 2 min on 2 cores)
    python benchmarks/check_committed.py --update NAME   # and copy the changed files into results/NAME

Each NAME is a folder under results/ and the experiment of the same name. The records and the
run log (kept out of git) are not copied, so every match is played again. Prints one line per
experiment, the changed files if any (and the files its manifest lists that are not committed:
new), and exits 1 if a file changed. With ``--update`` (after a change meant to move them) the
changed and the new files replace or join the committed ones, for a commit to say which figures
moved and why; a committed file the re-run no longer writes is named (missing), never removed."""

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cribsim.names import file_stem

ROOT = Path(__file__).resolve().parents[1]
UNTRACKED = ("matches.jsonl", "matches.jsonl.gz", "run.json", "resume.ckpt", "resume.key", ".cribsim.lock")


def kept(name: str) -> list[str]:
    """The files of results/NAME that git keeps, by their path inside it (sub-folders too: a
    sweep's steps, a folder of game records); without git, every file but the untracked kinds."""
    folder = ROOT / "results" / name
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", str(folder)], cwd=ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
        return sorted(str(Path(p).relative_to(Path("results") / name)) for p in listed if p)
    except (OSError, subprocess.CalledProcessError):
        return sorted(str(f.relative_to(folder)) for f in folder.rglob("*") if f.is_file() and f.name not in UNTRACKED)


def files(folder: Path, names: list[str]) -> dict[str, bytes]:
    """Those files' bytes under ``folder`` (a missing one: absent)."""
    return {n: (folder / n).read_bytes() for n in names if (folder / n).is_file()}


def check(name: str, update: bool = False) -> bool:
    committed = ROOT / "results" / name
    names = kept(name)
    before = files(committed, names)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / name
        shutil.copytree(committed, out, ignore=shutil.ignore_patterns(*UNTRACKED))
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-m", "cribsim", "run", name, "--out", str(out), "--quiet"], check=True,
                       cwd=ROOT)
        for command in analyses(committed, out):
            subprocess.run([sys.executable, "-m", "cribsim", *command, "--quiet"], check=True, cwd=ROOT)
        seconds = time.monotonic() - t0
        after = files(out, names)
        new = files(out, [n for n in listed(out) if n not in names and not records(n)])
    changed = sorted(n for n in before if after.get(n) != before[n])
    gone = sorted(n for n in changed if n not in after)
    if update:
        for n, data in [*((n, after[n]) for n in changed if n in after), *new.items()]:
            (committed / n).parent.mkdir(parents=True, exist_ok=True)
            (committed / n).write_bytes(data)
        for n in gone:  # a file of an earlier cribsim the re-run no longer writes (an old name): removed
            subprocess.run(["git", "rm", "-q", "--", str(committed / n)], cwd=ROOT, check=True)
    changed = [n if n in after else f"{n} ({'removed' if update else 'missing'})" for n in changed] + \
        [f"{n} (new)" for n in sorted(new)]
    print(f"{name}: {len(before)} committed files, {'changed: ' + ', '.join(changed) if changed else 'byte-identical'}"
          f" ({seconds:.0f} s)")
    return not changed


def records(name: str) -> bool:
    """Whether a file is one git does not keep (records, the run's own state): never new."""
    return Path(name).name in UNTRACKED or Path(name).parts[0] == "games"


def listed(out: Path) -> list[str]:
    """The files the re-run's manifest lists (a file it writes that is not committed is new)."""
    return [n for n in json.loads((out / "manifest.json").read_text()).get("files") or [] if isinstance(n, str)]


def analyses(committed: Path, out: Path) -> list[list[str]]:
    """The analysis commands that wrote the committed folder's analysis files, on ``out``."""
    commands = []
    if (committed / "compare_diff.csv").exists():
        head = next(csv.reader(open(committed / "compare_diff.csv")))
        baseline = re.fullmatch(r"paired difference from (.+) \(matches\)", head[2])
        close = re.search(r"close games \(margin < ([0-9.]+)\)", (committed / "compare.csv").read_text())
        commands.append(["compare", str(out), "--out", str(out)]
                        + (["--baseline", baseline.group(1)] if baseline else [])
                        + (["--close", close.group(1)] if close else []))
    for f in sorted(committed.glob("positions_*.csv")):
        first = next(csv.DictReader(open(f)))  # its cells' side: the --bin it was made with
        side = str(int(first["dealer_to"]) - int(first["dealer_from"]) + 1)
        commands.append(["positions", str(out), "--out", str(out), "--variant", variant_of(committed, f.stem),
                         "--bin", side])
    if (committed / "dealstats.csv").exists():
        commands.append(["dealstats", str(out), "--out", str(out)])
    return commands


def variant_of(committed: Path, stem: str) -> str:
    """The variant whose positions file is ``stem`` (``positions_standard_pair=3``: the variant
    ``standard[pair=3]``, named in a file without brackets; an older folder's, with them)."""
    names = [v["name"] for v in json.loads((committed / "manifest.json").read_text())["variants"]]
    stem = stem.removeprefix("positions_")
    return next((n for n in names if file_stem(n) == stem), stem)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=["quickstart"], metavar="NAME",
                    help="a folder under results/ and the experiment of the same name (default: quickstart)")
    ap.add_argument("--update", action="store_true", help="copy the changed and new files into results/NAME")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if not (ROOT / "results" / n / "manifest.json").is_file()]
    if unknown:
        print(f"check_committed: no committed run named {unknown[0]!r} (a folder of results/ with a manifest)",
              file=sys.stderr)
        return 2
    return 0 if all([check(n, args.update) for n in args.names]) else 1


if __name__ == "__main__":
    sys.exit(main())
