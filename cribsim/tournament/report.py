"""Write and print the summary of a results folder: Markdown, CSV, PNG plots, terminal tables.
Everything is rebuilt from ``manifest.json`` and ``matches.jsonl`` alone."""

import csv
import io
import json
import math
from pathlib import Path

from tabulate import tabulate

from ..errors import CribsimError
from ..records import RecordError, match_from_json
from .summary import csv_cells, csv_widths, fmt_cell, summarize, used_records


def read_results(out_dir):
    """(manifest, records). A half-written last line (an interrupted run) is ignored here."""
    out = Path(out_dir)
    try:
        manifest = json.loads((out / "manifest.json").read_text())
    except FileNotFoundError:
        raise CribsimError(f"cribsim: {out}: no manifest.json (not a results folder)") from None
    except json.JSONDecodeError as e:
        raise CribsimError(f"cribsim: {out / 'manifest.json'}: not valid JSON ({e.msg})") from None
    records = []
    path = out / "matches.jsonl"
    if path.exists():
        for no, line in enumerate(path.read_text().splitlines(), 1):
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            try:
                records.append(match_from_json(data))
            except RecordError as e:
                raise CribsimError(f"cribsim: {path}: line {no}: {e}") from None
    seen = {}
    for r in records:
        seen[r.id] = r
    return manifest, list(seen.values())


def render(tables, fmt):
    parts = []
    for t in tables:
        rows = [[fmt_cell(c) for c in r] for r in t.rows]
        headers = t.headers
        if t.transpose and rows:
            headers = [""] + [r[0] for r in rows]
            rows = [[h] + [r[i] for r in rows] for i, h in enumerate(t.headers) if i > 0]
        parts.append(f"### {t.title}\n\n" if fmt == "github" else f"{t.title}\n")
        parts.append(tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True))
        parts.append("\n\n")
    return "".join(parts)


def write_report(out_dir, quiet=False, plots=True):
    """Write summary.md, one CSV per table and the plots; print the tables unless quiet."""
    out = Path(out_dir)
    manifest, records = read_results(out)
    tables = summarize(manifest, records)
    used = used_records(manifest, records)  # a run stopped by the SPRT: up to each decision
    failed = sum(1 for r in used if r.failed)
    head = (f"# {manifest['name']}\n\n"
            f"{len(used) - failed} matches{f' ({failed} failed)' if failed else ''}; seed {manifest['seed']}; config {manifest['config_hash']}; "
            f"variants: {', '.join(v['name'] for v in manifest['variants'])}; "
            f"{'paired' if manifest['paired'] else 'unpaired'} deals.\n\n")
    (out / "summary.md").write_text(head + render(tables, "github"))
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
        (out / f"{t.name}.csv").write_text(buf.getvalue())
    if plots:
        _plots(out, tables)
    if not quiet:
        print(head.replace("# ", "", 1).rstrip() + "\n")
        print(render(tables, "simple").rstrip())
    return tables


def _plots(out, tables):
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
            fig.savefig(out / f"heatmap_{t.name[7:]}.png", dpi=100)
            plt.close(fig)
    entries = next(t for t in tables if t.name == "entries")
    if entries.rows:
        labels = [f"{r[1]} ({r[0]})" for r in entries.rows]
        vals = [r[2] for r in entries.rows]
        fig, ax = plt.subplots(figsize=(7, 0.4 * len(labels) + 1.5))
        ys = range(len(labels))
        ax.errorbar([v[0] for v in vals], ys, xerr=[[max(0.0, v[0] - v[1]) for v in vals],
                                                    [max(0.0, v[2] - v[0]) for v in vals]], fmt="o", capsize=4)
        ax.set_yticks(list(ys), labels)
        ax.axvline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("match win rate (95% Wilson interval)")
        fig.tight_layout()
        fig.savefig(out / "winrates.png", dpi=100)
        plt.close(fig)
    variants = next(t for t in tables if t.name == "variants")
    if variants.rows and variants.plot:
        cols = [(h, variants.headers.index(h)) for h in variants.plot]
        fig, axes = plt.subplots(1, len(cols), figsize=(4 * len(cols), 0.4 * len(variants.rows) + 2), sharey=True,
                                 squeeze=False)
        axes = axes[0]
        names = [r[0] for r in variants.rows]
        for ax, (title, i) in zip(axes, cols):
            vals = [r[i] if isinstance(r[i], tuple) else (math.nan, math.nan, math.nan) for r in variants.rows]
            ok = [v for v in vals if not math.isnan(v[1])]
            if ok:
                ax.errorbar([v[0] for v in vals], range(len(vals)),
                            xerr=[[max(0.0, v[0] - v[1]) if not math.isnan(v[1]) else 0 for v in vals],
                                  [max(0.0, v[2] - v[0]) if not math.isnan(v[2]) else 0 for v in vals]],
                            fmt="o", capsize=4)
            ax.set_title(title)
        axes[0].set_yticks(range(len(names)), names)
        fig.tight_layout()
        fig.savefig(out / "variants.png", dpi=100)
        plt.close(fig)
