"""How long a resume takes to read what is already on disk: a whole reading of the records file
against a reading from the folder's resume checkpoint (``resume.ckpt``), on a copy of a results
folder, in the same process.

    python benchmarks/bench_resume.py results/quickstart-run    # any folder with matches.jsonl.gz

Prints the matches, the file's size, both times and the checkpoint's size, the ratio last."""

import shutil
import sys
import tempfile
import time
from pathlib import Path

from cribsim.tournament import checkpoint
from cribsim.tournament import folder as fld
from cribsim.tournament.runner import load_done


def main() -> None:
    src = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "copy"
        shutil.copytree(src, out)
        (out / checkpoint.NAME).unlink(missing_ok=True)
        manifest = fld.read_manifest(out)
        assert manifest is not None, f"{src}: not a results folder"
        t0 = time.perf_counter()
        whole = load_done(out / fld.RECORDS, manifest)  # (saves the checkpoint after)
        t_whole = time.perf_counter() - t0
        t0 = time.perf_counter()
        load_done(out / fld.RECORDS, manifest)
        t_ck = time.perf_counter() - t0
        n = whole.records.results
        print(f"{n:,} matches, {(out / fld.RECORDS).stat().st_size:,} bytes of records, checkpoint "
              f"{(out / checkpoint.NAME).stat().st_size:,} bytes")
        print(f"whole reading {t_whole:.2f} s ({t_whole / max(n, 1) * 1e6:.0f} us a match); from the checkpoint "
              f"{t_ck:.3f} s; {t_whole / max(t_ck, 1e-9):.0f}x")


if __name__ == "__main__":
    main()
