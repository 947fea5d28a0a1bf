"""Write and print the summary of a results folder: Markdown, CSV, PNG plots, terminal tables.
Everything is rebuilt from ``manifest.json`` and ``matches.jsonl.gz`` alone."""

from __future__ import annotations

import csv
import io
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ..errors import CribsimError, RunFailed, describe
from . import folder as fld
from .aggregate import SUM_ERRORS, Partial, VariantShape
from .analysis import each_used, list_files, lock_folder, read_manifest_of
from .atomic import atomic_write, save_figure
from .manifest import Manifest
from .pictures import label_rows, variant_rows
from .summary import Table, csv_cells, csv_widths, shown_cell
from .summary import tables as summary_tables


def render(tables: Sequence[Table], fmt: str) -> str:
    """The tables in tabulate's ``fmt``: ``github`` for summary.md, ``simple`` for the terminal (a
    bot's strings escaped for each: :func:`~.summary.shown_cell`)."""
    parts = []
    for t in tables:
        rows = [[shown_cell(c, fmt) for c in r] for r in t.rows]
        headers = t.headers
        if t.transpose and rows:
            headers = [""] + [r[0] for r in rows]
            rows = [[h] + [r[i] for r in rows] for i, h in enumerate(t.headers) if i > 0]
        parts.append(f"### {t.title}\n\n" if fmt == "github" else f"{t.title}\n")
        parts.append(tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True))
        parts.append("\n\n")
    return "".join(parts)


@dataclass
class Sums:
    """A run's merged sums of every record its tables use, and how its earlier records read
    (what was left out): the report without reading the records again."""

    partial: Partial
    records: fld.Records


def write_report(out_dir: str | os.PathLike[str], quiet: bool = False, plots: bool = True,
                 locked: bool = False, sums: Sums | None = None) -> list[Table]:
    """Write summary.md, one CSV per table and the plots; print the tables unless quiet. The
    tables are computed (from ``sums``, else from the records read as a stream) before anything
    is written, the folder is locked while writing (unless the caller, a run, holds it), and
    every file written is listed in the manifest."""
    out = Path(out_dir)
    lock = None if locked else lock_folder(out, "report")
    try:
        return _write_report(out, quiet, plots, sums)
    finally:
        if lock is not None:
            lock.release()


def read_sums(out: Path, manifest: Manifest) -> tuple[Sums, list[dict[str, Any]]]:
    """The sums of the records the tables use, read as a stream (:func:`analysis.each_used`),
    and the sequential test's streams."""
    partial = Partial(VariantShape.of(manifest))
    recs, streams = each_used(out / fld.RECORDS, manifest, partial.add)
    return Sums(partial, recs), streams


def _write_report(out: Path, quiet: bool, plots: bool, sums: Sums | None) -> list[Table]:
    manifest = read_manifest_of(out)
    streams: list[dict[str, Any]] = []
    try:
        if sums is None or manifest.stop is not None:
            sums, streams = read_sums(out, manifest)
        tables = summary_tables(manifest, sums.partial, streams)
        failed = sums.partial.failed
    except SUM_ERRORS as e:
        raise CribsimError(f"cribsim: {out}: cannot summarise its records ({describe(e, 200)}: damaged records or "
                           "manifest); nothing was written") from None
    note = _left_out(out, sums.records)
    head = (f"# {manifest.name}\n\n"
            f"{sums.partial.matches - failed} matches{f' ({failed} failed)' if failed else ''}; "
            f"seed {manifest.seed}; "
            f"config {manifest.config_hash}; "
            f"variants: {', '.join(manifest.variant_names)}; "
            f"{'paired' if manifest.paired else 'unpaired'} deals.{note}\n\n{_unmodelled_note(manifest)}")
    written = [fld.SUMMARY]
    removed: list[str] = []
    try:
        _write_files(out, head, tables, plots, written)
        removed = _remove_stale(out, manifest, written, plots)
    except OSError as e:
        raise RunFailed(f"cribsim: cannot write the summary in {out} ({e.strerror or e}); the records are "
                        "untouched") from None
    finally:
        list_files(out, manifest, written, removed)
    if not quiet:
        print(head.replace("# ", "", 1).rstrip() + "\n")
        print(render(tables, "simple").rstrip())
    return tables


def _unmodelled_note(manifest: Manifest) -> str:
    """The summary's note on players who do not know a rule they play (the manifest's
    ``unmodelled``): their tables describe misinformed play."""
    if not manifest.unmodelled:
        return ""
    lines = [f"- {variant} ({entry}): {line}" for variant, entries in manifest.unmodelled.items()
             for entry, said in entries.items() for line in said]
    return ("**Players who do not know every rule they play.** Where a rule set changes what a strategy "
            "values without its knowing, its results there describe a misinformed player:\n\n"
            + "\n".join(lines) + "\n\n")


def _left_out(out: Path, recs: fld.Records) -> str:
    """Warn of every line of matches.jsonl.gz the tables do not use; the summary's note on them."""
    note = fld.unreadable_note(out / fld.RECORDS, recs)
    parts = [note] if note else []
    if recs.torn_tail:
        parts.append(f"{out / fld.RECORDS}: 1 unfinished last batch skipped (an interrupted write, or a run "
                     "still writing)")
    if parts:
        print("cribsim: warning: " + "; ".join(parts), file=sys.stderr)
    said = []
    if recs.damaged:
        n = len(recs.damaged)
        said.append(f"{n:,} damaged batch{'es' if n != 1 else ''} of {fld.RECORDS} skipped")
    if recs.torn_tail:
        said.append(f"an unfinished last batch of {fld.RECORDS} skipped")
    if recs.unreadable:
        n = recs.unreadable
        said.append(f"{n:,} unreadable line{'s' if n != 1 else ''} of {fld.RECORDS} skipped")
    if recs.foreign:
        said.append(f"{recs.foreign:,} record{'s' if recs.foreign != 1 else ''} of no match of the schedule left out")
    if recs.disputed:
        n = len(recs.disputed)
        said.append(f"{n:,} match{'es' if n != 1 else ''} recorded twice with different results left out")
    return " " + "; ".join(said) + "." if said else ""


def _remove_stale(out: Path, manifest: Manifest, written: Sequence[str], plots: bool) -> list[str]:
    """A table or plot an earlier report wrote that this one has nothing for (no forfeits left,
    say, once disputed records are left out), or wrote under a name it no longer uses (a sweep's
    ``heatmap_standard[pair=3].png``, now ``heatmap_standard_pair=3.png``), is removed: a folder
    never shows a stale table."""
    names = {f"{t}.csv" for t in fld.FIXED_TABLES} | {f"{p}.png" for p in fld.FIXED_PLOTS}
    names |= {f for v in manifest.variant_names for f in fld.variant_files(v, older=True)}
    if not plots:  # (an earlier report's plots stay: no new ones replace them)
        names = {n for n in names if not n.endswith(".png")}
    removed = []
    for name in sorted(names & fld.owned_files(manifest) - set(written)):
        path = out / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
            removed.append(name)
    return removed


def _write_files(out: Path, head: str, tables: Sequence[Table], plots: bool, written: list[str]) -> None:
    atomic_write(out / fld.SUMMARY, head + render(tables, "github"))
    for t in tables:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        header = None
        widths = csv_widths(t.rows, len(t.headers))
        for row in t.rows:
            hs, cs = csv_cells(t.headers, row, widths)
            if header is None:
                header = hs
                w.writerow(hs)
            w.writerow(cs)
        if header is None:
            w.writerow(t.headers)
        written.append(f"{t.name}.csv")
        atomic_write(out / f"{t.name}.csv", buf.getvalue())
    if plots:
        _plots(out, tables, written)


def _plots(out: Path, tables: Sequence[Table], written: list[str]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for t in tables:
        if t.name.startswith("matrix_") and len(t.rows) >= 2:
            labels = [r[0] for r in t.rows]
            data = [[c[0] if isinstance(c, tuple) else math.nan for c in r[1:]] for r in t.rows]
            fig, ax = plt.subplots(figsize=(1.2 * len(labels) + 2, 1.0 * len(labels) + 1.5))
            im = ax.imshow(data, cmap="RdBu", vmin=0, vmax=1)
            ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
            ax.set_yticks(range(len(labels)), labels)
            for i, row in enumerate(data):
                for j, x in enumerate(row):
                    if not math.isnan(x):
                        ax.text(j, i, f"{x:.2f}", ha="center", va="center", fontsize=9,
                                color="white" if x < 0.2 or x > 0.8 else "black")
            fig.colorbar(im, ax=ax, label="win rate of row against column")
            ax.set_title(t.title.split(":")[0])
            fig.tight_layout()
            written.append(f"heatmap_{t.name.removeprefix('matrix_')}.png")
            save_figure(fig, out / written[-1], 100)
            plt.close(fig)
    entries = next(t for t in tables if t.name == "entries")
    rated = [r for r in entries.rows if isinstance(r[2], tuple)]  # (not the failed matches' row)
    if rated:
        labels = [f"{r[1]} ({r[0]})" for r in rated]
        vals = [r[2] for r in rated]
        fig, ax = plt.subplots(figsize=(7, 0.4 * len(labels) + 1.5))
        ys = range(len(labels))
        ax.errorbar([v[0] for v in vals], ys, xerr=[[max(0.0, v[0] - v[1]) for v in vals],
                                                    [max(0.0, v[2] - v[0]) for v in vals]], fmt="o", capsize=4)
        ax.set_yticks(list(ys), labels)
        ax.axvline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("match win rate (95% Wilson interval)")
        fig.tight_layout()
        written.append("winrates.png")
        save_figure(fig, out / "winrates.png", 100)
        plt.close(fig)
    variants = next(t for t in tables if t.name == "variants")
    if variants.rows and variants.plot:
        cols = [(h, variants.headers.index(h)) for h in variants.plot]
        fig, axes = plt.subplots(1, len(cols), figsize=(4 * len(cols), 0.4 * len(variants.rows) + 2), sharey=True,
                                 squeeze=False)
        axes = axes[0]
        names = [r[0] for r in variants.rows]
        rows = variant_rows(names)
        for ax, (title, i) in zip(axes, cols):
            vals = [r[i] if isinstance(r[i], tuple) else (math.nan, math.nan, math.nan) for r in variants.rows]
            ok = [v for v in vals if not math.isnan(v[1])]
            if ok:
                ax.errorbar([v[0] for v in vals], rows,
                            xerr=[[max(0.0, v[0] - v[1]) if not math.isnan(v[1]) else 0 for v in vals],
                                  [max(0.0, v[2] - v[0]) if not math.isnan(v[2]) else 0 for v in vals]],
                            fmt="o", capsize=4)
            ax.set_title(title)
        label_rows(axes[0], names)
        fig.tight_layout()
        written.append("variants.png")
        save_figure(fig, out / "variants.png", 100)
        plt.close(fig)
