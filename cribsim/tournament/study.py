"""The commands that study a results folder beyond its summary: ``cribsim compare`` (variants on
game-design metrics) and ``cribsim positions`` (board-position win tables). Each reads the
manifest and the records and writes where :mod:`.analysis` says (the run's folder when asked,
or when it already holds them; else a folder of its own beside it)."""

from __future__ import annotations

import sys
from pathlib import Path

from tabulate import tabulate

from ..errors import CribsimError
from ..names import file_stem
from . import folder as fld
from .aggregate import SUM_ERRORS
from .analysis import Derived, csv_text, derived, each_used, read_manifest_of
from .compare import CompareSums, Comparison, baseline_of, compare, diff_rows, plot, rows
from .positions import PositionCounts, PositionTable, monotone_violations, write_csv
from .positions import plot as plot_positions
from .sweepreport import plot_sweep, sweep_cells, sweep_markdown, sweep_pairs, sweep_table

COMPARE_FILES = ("compare.md", "compare.csv", "compare_diff.csv", "compare.png")


def write_compare(out_dir: str, baseline: str | None = None, close: float = 10, quiet: bool = False,
                  out: str | None = None) -> Comparison:
    with derived(out_dir, "compare", COMPARE_FILES, out, listed=False) as d:
        sweeps = d.manifest.sweeps
        if baseline is None and sweeps:  # a sweep's baseline: the first base's own rules
            baseline = next((str(p["variant"]) for p in sweeps[0].points if p.get("is_base")), None)
        base = baseline_of(d.manifest, baseline)
        wanted = [(base, v) for v in range(len(d.manifest.variant_names))]
        sums = CompareSums(d.manifest, wanted + [p for s in sweeps for p in sweep_pairs(s, d.manifest)], close)
        try:
            recs, _ = each_used(d.run / fld.RECORDS, d.manifest, sums.add)
        except SUM_ERRORS as e:
            raise CribsimError(f"cribsim: cannot compute the metrics from these records ({e})") from None
        sums.finish()
        c = compare(sums, base)
        head, body = rows(c)
        dhead, dbody = diff_rows(c)
        differences = f"Differences from {c.columns[c.baseline].name} (per match; paired on the same deals)"
        md = (f"# {d.manifest.name}: variants compared\n\n{recs.results + recs.failed:,} matches; config "
              f"{d.manifest.config_hash}; every cell: estimate [95% interval] (games, or matches for the "
              f"differences). Definitions: docs/metrics.md.\n\n"
              + tabulate(body, headers=head, tablefmt="github", disable_numparse=True)
              + f"\n\n## {differences}\n\n"
              + tabulate(dbody, headers=dhead, tablefmt="github", disable_numparse=True) + "\n")
        if sweeps:
            groups = [(s.knobs, sweep_cells(c, s, d.manifest.tables)) for s in sweeps]
            md += "".join("\n" + sweep_markdown(cells, knobs) for knobs, cells in groups)
            shead, sbody = sweep_table(groups)
            d.write_text("sweep.csv", csv_text(shead, sbody))
            d.write_with("sweep.png", lambda path: plot_sweep(groups, path))
        d.write_text("compare.md", md)
        d.write_text("compare.csv", csv_text(head, body))
        d.write_text("compare_diff.csv", csv_text(dhead, dbody))
        d.write_with("compare.png", lambda path: plot(c, path))
        if not quiet:
            print(tabulate(body, headers=head, tablefmt="simple", disable_numparse=True))
            if dbody:
                print(f"\n{differences}\n" + tabulate(dbody, headers=dhead, tablefmt="simple", disable_numparse=True))
            _wrote(d)
        return c


def _wrote(d: Derived) -> None:
    print(f"\nwrote {', '.join(str(d.dest / f) for f in d.written)}")


def write_positions(out_dir: str, variant: str | None = None, bin: int = 5, min_n: int = 30,
                    quiet: bool = False, out: str | None = None) -> PositionTable:
    if not 1 <= bin <= 1000:
        raise CribsimError(f"cribsim positions: --bin must be 1..1000, got {bin}")
    if not 1 <= min_n <= 10 ** 9:
        raise CribsimError(f"cribsim positions: --min must be 1 or more, got {min_n}")
    names = _variant_names(out_dir)
    if variant is not None and variant not in names:
        raise CribsimError(f"cribsim positions: --variant {variant!r} is not a variant of this run "
                           f"({', '.join(names)})")
    name = variant if variant is not None else names[0]
    stem, older = f"positions_{file_stem(name)}", f"positions_{name}"
    files = (f"{stem}.csv", f"{stem}.png")
    with derived(out_dir, "positions", files, out, listed=False,
                 older=(f"{older}.csv", f"{older}.png") if older != stem else ()) as d:
        v = names.index(variant) if variant is not None else 0
        counts = PositionCounts(d.manifest, v, bin)
        each_used(d.run / fld.RECORDS, d.manifest, counts.add)
        t = counts.table(min_n)
        d.write_with(f"{stem}.csv", lambda path: write_csv(t, path))
        d.write_with(f"{stem}.png", lambda path: plot_positions(t, path))
        if t.paired:
            print("cribsim: warning: this run is paired: both seatings of a deal sequence replay the same deals, so "
                  "its states are not independent and the intervals are too narrow (by up to 1.4x with the same "
                  "strategy in both seats); for a positions table run with paired: false", file=sys.stderr)
        if not quiet:
            kinds = {k: sum(1 for c in t.cells if c.estimate == k) for k in ("raw", "smoothed", "too thin")}
            bad = monotone_violations(t)
            print(f"{t.variant}: {t.states:,} deals in {len(t.cells)} cells of {bin} x {bin} points: "
                  f"{kinds['raw']} raw, {kinds['smoothed']} smoothed, {kinds['too thin']} too thin")
            print("monotone within the intervals" if not bad else
                  f"{len(bad)} cells break monotonicity beyond their intervals: " + "; ".join(bad[:5]))
            _wrote(d)
        return t


def _variant_names(out_dir: str) -> list[str]:
    return read_manifest_of(Path(out_dir)).variant_names
