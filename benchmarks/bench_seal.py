"""What sealing a batch costs a worker, per match: the records as JSON, gzip at levels 1, 3 and
6 (bytes a match too), the summary sums (``Partial``), against playing the matches.

    python benchmarks/bench_seal.py [--matches 2000] [--rules standard] [--strategy random]

One-game unpaired matches; prints each cost in microseconds a match, then a last line with the
whole seal as a share of the play."""

import argparse
import gzip
import json
import tempfile
import textwrap
import time
from pathlib import Path

from cribsim.tournament.aggregate import Partial, VariantShape
from cribsim.tournament.batch import make_context, play_batch, seal
from cribsim.tournament.config import load_experiment
from cribsim.tournament.recordfile import LEVEL
from cribsim.tournament.runner import manifest_for
from cribsim.tournament.schedule import build_schedule


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--strategy", default="random")
    args = ap.parse_args()
    cfg = Path(tempfile.mkdtemp()) / "seal.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        name: seal
        variants: [{args.rules}]
        lineup: [{{name: a, strategy: {args.strategy}}}, {{name: b, strategy: {args.strategy}}}]
        matches: {args.matches}
        paired: false
        seed: 3
    """))
    exp = load_experiment(cfg)
    ctx = make_context(exp)
    ctx["shapes"], ctx["sprt"] = VariantShape.of(manifest_for(exp)), False
    n = args.matches

    def us(t0: float) -> float:
        return (time.perf_counter() - t0) / n * 1e6

    t0 = time.perf_counter()
    records, info = play_batch(ctx, build_schedule(exp))
    play = us(t0)
    t0 = time.perf_counter()
    data = [r.to_json() for r in records]
    to_json = us(t0)
    t0 = time.perf_counter()
    text = "".join(json.dumps(d, separators=(",", ":")) + "\n" for d in data).encode()
    dumps = us(t0)
    print(f"play {play:.0f} us a match; to_json {to_json:.1f}; json.dumps {dumps:.1f}; "
          f"{len(text) / n:.0f} bytes a match as plain JSON")
    for level in (1, 3, 6):
        t0 = time.perf_counter()
        z = gzip.compress(text, level, mtime=0)
        print(f"gzip level {level}{' (cribsim)' if level == LEVEL else ''}: {us(t0):.1f} us, "
              f"{len(z) / n:.1f} bytes a match")
    t0 = time.perf_counter()
    Partial(ctx["shapes"]).add_all(records)
    partial = us(t0)
    t0 = time.perf_counter()
    sealed = seal(ctx, records, info)
    whole = us(t0)
    print(f"Partial sums {partial:.1f} us; the whole seal {whole:.1f} us, {len(sealed.data) / n:.1f} bytes a match")
    print(f"bench_seal: seal {whole:.0f} us a match against play {play:.0f} us: {100 * whole / play:.1f}% of the play")


if __name__ == "__main__":
    main()
