"""The commands that study a results folder beyond its summary: ``cribsim compare`` (variants on
game-design metrics) and ``cribsim positions`` (board-position win tables). Each reads the
manifest and the records, locks the folder while it writes, and lists what it wrote in the
manifest (so ``--fresh`` removes it)."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from tabulate import tabulate

from ..errors import CribsimError
from .compare import Comparison, compare, diff_rows, plot, rows
from .positions import PositionTable, monotone_violations, position_table, write_csv
from .positions import plot as plot_positions
from .report import _atomic_text, _list_files, _lock_for_report, _read

COMPARE_FILES = ("compare.md", "compare.csv", "compare_diff.csv", "compare.png")


def _csv(head: list[str], body: list[list[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    w.writerows(body)
    return buf.getvalue()


def write_compare(out_dir: str, baseline: str | None = None, close: float = 10, quiet: bool = False) -> Comparison:
    out = Path(out_dir)
    lock = _lock_for_report(out)
    try:
        manifest, recs = _read(out)
        c = compare(manifest, recs.records, baseline, close)
        head, body = rows(c)
        dhead, dbody = diff_rows(c)
        md = (f"# {manifest['name']}: variants compared\n\n{len(recs.records):,} matches; config "
              f"{manifest['config_hash']}; every cell: estimate [95% interval] (games, or matches for the "
              f"differences). Definitions: README, \"Comparing variants\".\n\n"
              + tabulate(body, headers=head, tablefmt="github", disable_numparse=True)
              + f"\n\n## Differences from {c.columns[c.baseline].name} (per match; paired on the same deals)\n\n"
              + tabulate(dbody, headers=dhead, tablefmt="github", disable_numparse=True) + "\n")
        written: list[str] = []
        try:
            _atomic_text(out / "compare.md", md)
            written.append("compare.md")
            _atomic_text(out / "compare.csv", _csv(head, body))
            written.append("compare.csv")
            _atomic_text(out / "compare_diff.csv", _csv(dhead, dbody))
            written.append("compare_diff.csv")
            plot(c, out / "compare.png")
            written.append("compare.png")
        except OSError as e:
            raise CribsimError(f"cribsim: cannot write in {out} ({e.strerror or e})") from None
        finally:
            _list_files(out, manifest, written)
        if not quiet:
            print(tabulate(body, headers=head, tablefmt="simple", disable_numparse=True))
            print(f"\nwrote {', '.join(str(out / f) for f in written)}")
        return c
    finally:
        lock.release()


def write_positions(out_dir: str, variant: str | None = None, bin: int = 5, min_n: int = 30,
                    quiet: bool = False) -> PositionTable:
    if not 1 <= bin <= 1000:
        raise CribsimError(f"cribsim positions: --bin must be 1..1000, got {bin}")
    if not 1 <= min_n <= 10 ** 9:
        raise CribsimError(f"cribsim positions: --min must be 1 or more, got {min_n}")
    out = Path(out_dir)
    lock = _lock_for_report(out)
    try:
        manifest, recs = _read(out)
        names = [v["name"] for v in manifest["variants"]]
        if variant is not None and variant not in names:
            raise CribsimError(f"cribsim positions: --variant {variant!r} is not a variant of this run "
                               f"({', '.join(names)})")
        v = names.index(variant) if variant is not None else 0
        from .summary import used_records

        t = position_table(manifest, used_records(manifest, recs.records), v, bin, min_n)
        stem = f"positions_{t.variant}"
        written: list[str] = []
        try:
            write_csv(t, out / f"{stem}.csv")
            written.append(f"{stem}.csv")
            plot_positions(t, out / f"{stem}.png")
            written.append(f"{stem}.png")
        except OSError as e:
            raise CribsimError(f"cribsim: cannot write in {out} ({e.strerror or e})") from None
        finally:
            _list_files(out, manifest, written)
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
            print(f"wrote {', '.join(str(out / f) for f in written)}")
        return t
    finally:
        lock.release()

