"""``cribsim compare`` on a sweep: each designer metric along the knobs' values, with its 95%
interval, and whether each value differs from its base's own rules (the point whose knobs are at
the base's values: paired on the same deals where the tables are the same). Reads the
comparison and the manifest's sweep record only."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..game import JSON
from . import pictures as pic
from .atomic import save_figure
from .compare import Comparison
from .manifest import Manifest, SweepRecord
from .metrics import Estimate
from .stats import Z95

# the designer's metrics drawn along a sweep: (title, the comparison's figure, or "skill" / "balance")
METRICS = (
    ("first dealer wins", "first dealer wins"),
    ("length (deals/game)", "deals/game"),
    ("lead changes/game", "lead changes/game"),
    ("drama (comeback, points)", "drama (comeback, points)"),
    ("decided at (share of game)", "decided at (share of game)"),
    ("close games", "close games"),
    ("skill (stronger entry's game win rate)", "skill"),
    ("balance", "balance"),
)


@dataclass(frozen=True)
class SweepCell:
    """One metric at one point of the sweep, and its difference from the base's own rules."""

    variant: str
    base: str
    values: tuple[JSON, ...]
    metric: str
    estimate: Estimate
    difference: Estimate | None  # None: the baseline itself, or no baseline in the sweep
    paired: bool

    @property
    def differs(self) -> bool | None:
        d = self.difference
        if d is None or d.n == 0 or math.isnan(d.lo) or math.isnan(d.hi):
            return None
        return d.lo > 0 or d.hi < 0


def _estimate(col_figures: dict[str, Estimate], skill: Estimate | None, bal: Estimate | None, key: str) -> Estimate:
    nan = Estimate(math.nan, math.nan, math.nan, 0)
    if key == "skill":
        return skill or nan
    if key == "balance":
        return bal or nan
    return col_figures[key]


def _unpaired(a: Estimate, b: Estimate) -> Estimate:
    """b - a with the normal interval of two independent estimates."""
    if a.n < 2 or b.n < 2 or any(math.isnan(x) for x in (a.lo, a.hi, b.lo, b.hi)):
        return Estimate(math.nan, math.nan, math.nan, 0)
    se = math.hypot((a.hi - a.lo) / (2 * Z95), (b.hi - b.lo) / (2 * Z95))
    d = b.value - a.value
    return Estimate(d, d - Z95 * se, d + Z95 * se, b.n)


def _bases(sweep: SweepRecord, index: dict[str, int]) -> dict[str, int]:
    """Each base's own rules in the sweep (the point at the base's values): base name -> variant."""
    baseline: dict[str, int] = {}
    for p in sweep.points:
        if p.get("is_base") and str(p["base"]) not in baseline:
            baseline[str(p["base"])] = index[str(p["variant"])]
    return baseline


def sweep_pairs(sweep: SweepRecord, manifest: Manifest) -> list[tuple[int, int]]:
    """The (base, point) pairs of variants whose differences :func:`sweep_cells` shows."""
    index = {n: i for i, n in enumerate(manifest.variant_names)}
    baseline = _bases(sweep, index)
    return [(baseline[str(p["base"])], index[str(p["variant"])]) for p in sweep.points if str(p["base"]) in baseline]


def sweep_cells(c: Comparison, sweep: SweepRecord, tables: list[list[list[int]]]) -> list[SweepCell]:
    """Every metric at every point, in the sweep's order."""
    index = {col.name: i for i, col in enumerate(c.columns)}
    baseline = _bases(sweep, index)
    out = []
    for p in sweep.points:
        v = index[str(p["variant"])]
        col = c.columns[v]
        b = baseline.get(str(p["base"]))
        paired = b is not None and tables[b] == tables[v]
        diffs = {d.figure: d for d in c.differences(b, v)} if b is not None and b != v else {}
        for title, key in METRICS:
            est = _estimate(col.figures, col.skill, col.balance, key)
            diff: Estimate | None = None
            if b is not None and b != v:
                if key in diffs:
                    d = diffs[key]
                    diff = d.paired if d.paired is not None else d.unpaired
                else:
                    base_col = c.columns[b]
                    diff = _unpaired(_estimate(base_col.figures, base_col.skill, base_col.balance, key), est)
            out.append(SweepCell(str(p["variant"]), str(p["base"]), tuple(p["values"]), title, est, diff,
                                 paired and key in diffs))
    return out


def _cell(e: Estimate | None) -> str:
    if e is None or e.n == 0 or math.isnan(e.value):
        return "-"
    return f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}]"


Group = tuple[list[str], list[SweepCell]]  # a sweep's knobs and its cells


def sweep_table(groups: list[Group]) -> tuple[list[str], list[list[str]]]:
    """The CSV: one row per sweep, point and metric (a grid's knobs and values joined by commas)."""
    head = ["sweep", "variant", "base", "knobs", "values", "metric", "estimate", "lo", "hi", "games",
            "difference from base", "difference lo", "difference hi", "paired", "differs"]
    body = []
    for i, (knobs, cells) in enumerate(groups):
        for s in cells:
            d = s.difference
            body.append([str(i), s.variant, s.base, ",".join(knobs), ",".join(map(_word, s.values)), s.metric,
                         *_num(s.estimate), str(s.estimate.n), *(_num(d) if d is not None else ["", "", ""]),
                         "yes" if s.paired else "no", {True: "yes", False: "no", None: "-"}[s.differs]])
    return head, body


def _word(v: JSON) -> str:
    return json.dumps(v) if isinstance(v, bool) or v is None else str(v)


def _num(e: Estimate) -> list[str]:
    return [f"{x:.6g}" if not math.isnan(x) else "" for x in (e.value, e.lo, e.hi)]


def sweep_markdown(cells: list[SweepCell], knobs: list[str]) -> str:
    """A section for compare.md: the points as rows, the metrics as columns; * marks a value
    whose interval of the difference from its base's own rules leaves out 0."""
    titles = [t for t, _ in METRICS]
    rows: dict[str, list[str]] = {}
    order: list[tuple[str, tuple[JSON, ...], str]] = []
    differ: dict[str, list[str]] = {t: [] for t in titles}
    for s in cells:
        if s.variant not in rows:
            rows[s.variant] = []
            order.append((s.variant, s.values, s.base))
        mark = " *" if s.differs else ""
        rows[s.variant].append(_cell(s.estimate) + mark)
        if s.differs:
            differ[s.metric].append(", ".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in zip(knobs, s.values)))
    head = ["base", *(k for k in knobs), *titles]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for variant, values, base in order:
        lines.append("| " + " | ".join([base, *map(str, values), *rows[variant]]) + " |")
    said = [f"- {t}: {'; '.join(v)}" for t, v in differ.items() if v]
    compared = any(s.difference is not None for s in cells)
    return ("## Along the sweep (" + ", ".join(knobs) + ")\n\nEach cell: estimate [95% interval] over the "
            "games; * where the difference from the base's own rules (paired on the same deals where the tables "
            "are the same) has a 95% interval that leaves out 0.\n\n" + "\n".join(lines) + "\n\n"
            + ("Values that differ from the base's own rules:\n\n" + "\n".join(said) if said
               else "No value differs from the base's own rules at 95%." if compared
               else "This sweep does not pass through the base's own values, so nothing is compared with them: "
                    "add the base's value to the sweep to have a baseline.") + "\n")


def plot_sweep(groups: list[Group], path: Path) -> None:
    """A block of panels per sweep (two rows of four, one panel per metric, legible at the
    picture's own width: :mod:`.pictures`), each metric against the sweep's first knob (numbers
    on a numeric axis), one line per base and value of the other knobs, each point with its 95%
    interval; the base's own rules marked (a square, a grey band and a bold tick at the base's
    value), a circle around a value that differs from them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    block = 2 * 2.6 + 0.8  # inches: a sweep's two rows of panels and its title
    fig = plt.figure(figsize=(pic.WIDTH, block * len(groups) + 0.5), layout="constrained")
    blocks = fig.subfigures(len(groups), 1, squeeze=False)[:, 0]
    for sub, (knobs, cells) in zip(blocks, groups):
        axes = sub.subplots(2, 4)
        _plot_block(sub, list(axes.flat), knobs, cells)
    fig.suptitle("Along each sweep (95% intervals; square, grey band and bold value: the base's own rules; "
                 "circled: differs from them)", fontsize=pic.HEAD)
    save_figure(fig, path, pic.DPI)
    plt.close(fig)


def base_points(cells: list[SweepCell]) -> dict[str, tuple[JSON, ...]]:
    """Each base's own values of the sweep's knobs, where the sweep passes through them (a point
    that is the base's own rules keeps the base's name)."""
    return {s.base: s.values for s in cells if s.variant == s.base}


def _plot_block(sub: Any, axes: list[Any], knobs: list[str], cells: list[SweepCell]) -> None:
    xs = sorted({s.values[0] for s in cells}, key=lambda v: (not isinstance(v, (int, float)), str(v) if not
                                                              isinstance(v, (int, float)) else v))
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    pos = {x: (float(x) if numeric else float(i)) for i, x in enumerate(xs)}
    bases = base_points(cells)
    for ax, (title, _) in zip(axes, METRICS):
        _plot_metric(ax, title, knobs, [s for s in cells if s.metric == title], pos, bases)
        ax.set_title(title, fontsize=pic.TITLE)
        ax.set_xlabel(knobs[0], fontsize=pic.SMALL)
        if len(xs) <= 12:
            ax.set_xticks([pos[x] for x in xs], [_word(x) for x in xs])
            for x, label in zip(xs, ax.get_xticklabels()):
                if any(v[0] == x for v in bases.values()):
                    label.set_fontweight("bold")
        ax.tick_params(labelsize=pic.SMALL)
        ax.grid(lw=0.3)
    said = "; ".join(f"{b}: " + ", ".join(f"{k.rsplit('.', 1)[-1]}={_word(v)}" for k, v in zip(knobs, vals))
                     for b, vals in bases.items())
    sub.suptitle(f"{', '.join(knobs)} (the base's own rules: {said})" if said else
                 f"{', '.join(knobs)} (not through the base's own values: nothing marked)", fontsize=pic.HEAD)
    handles, labels = axes[0].get_legend_handles_labels()
    if len(labels) > 1:
        sub.legend(handles, labels, loc="outside lower center", ncols=min(4, len(labels)), fontsize=pic.SMALL,
                   frameon=False)


def _plot_metric(ax: Any, title: str, knobs: list[str], cells: list[SweepCell], pos: dict[JSON, float],
                 bases: dict[str, tuple[JSON, ...]]) -> None:
    lines: dict[tuple[str, tuple[JSON, ...]], list[SweepCell]] = {}
    for s in cells:
        lines.setdefault((s.base, s.values[1:]), []).append(s)
    for at in sorted({pos[v[0]] for v in bases.values()}):
        ax.axvline(at, color="#d9d9d9", lw=10, zorder=0)
    for (base, rest), pts in lines.items():
        pts.sort(key=lambda s: pos[s.values[0]])
        x = np.array([pos[s.values[0]] for s in pts])
        v = np.array([s.estimate.value for s in pts])
        err = np.vstack([np.nan_to_num(v - np.array([s.estimate.lo for s in pts])),
                         np.nan_to_num(np.array([s.estimate.hi for s in pts]) - v)])
        label = base + ("" if not rest else " " + ",".join(f"{n.rsplit('.', 1)[-1]}={_word(r)}"
                                                           for n, r in zip(knobs[1:], rest)))
        line = ax.errorbar(x, v, yerr=err, fmt="o-", ms=5, capsize=3, lw=1.2, label=label)
        for s, xi, vi in zip(pts, x, v):
            if s.variant == s.base:
                ax.plot([xi], [vi], "s", ms=9, color=line[0].get_color(), mec="black", mew=1.2)
            if s.differs:
                ax.plot([xi], [vi], "o", ms=12, mfc="none", color="#c0392b", mew=1.4)
