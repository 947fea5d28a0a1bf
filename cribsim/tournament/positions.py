"""``cribsim positions``: the board-position win table of a two-sided variant, from the records.

Every deal of every recorded game is a state: the scores of the dealer's side and of the other
side as the deal starts (from the game's trail) and whether the dealer's side won the game. The
states are binned (``bin`` points a side), and each cell's win chance is the share of its states
the dealer's side won, with a 95% Wilson interval. A cell with fewer than ``min_n`` states is
smoothed: its 3 x 3 neighbourhood of cells is pooled; one whose neighbourhood still has fewer is
flagged too thin and left blank."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CribsimError
from ..records import MatchRecord
from .atomic import atomic_write, save_figure
from .manifest import Manifest, VariantInfo
from .stats import wilson


@dataclass(frozen=True)
class Cell:
    dealer: int  # the bin's lowest score of the dealer's side
    pone: int  # the bin's lowest score of the other side
    states: int
    wins: int
    p: float
    lo: float
    hi: float
    estimate: str  # "raw", "smoothed" (3 x 3 cells pooled) or "too thin"
    pooled_states: int = 0  # the deals p rests on (the cell's own, or its neighbourhood's)
    pooled_wins: int = 0


@dataclass
class PositionTable:
    variant: str
    bin: int
    target: int
    cells: list[Cell]
    states: int
    objective: int = 1  # -1: fewer points are better (lowball), so the chance falls with one's own score
    role: str = "dealer"  # "leader" in Fives and Threes
    paired: bool = False  # both seatings replay the same deals: the states are not independent

    def grid(self) -> np.ndarray:
        k = -(-self.target // self.bin)
        g = np.full((k, k), np.nan)
        for c in self.cells:
            g[c.dealer // self.bin, c.pone // self.bin] = c.p
        return g

    def cell_at(self, dealer: int, pone: int) -> Cell:
        return next(c for c in self.cells if c.dealer == dealer // self.bin * self.bin
                    and c.pone == pone // self.bin * self.bin)


def record_states(info: VariantInfo, r: MatchRecord) -> Iterator[tuple[int, int, bool]]:
    """(dealer's side score, other side's score, dealer's side won) at the start of every deal of
    a finished match's games."""
    per = info.checkpoints
    players = info.players or 2
    for g in r.games:
        if g.trail is None:
            raise CribsimError("cribsim: the records carry no score trails (written by an older cribsim): run "
                               "the experiment again with --fresh")
        side_of = {seat: i for i, side in enumerate(g.sides) for seat in side}
        for d in range(g.deals):
            i = d * per
            if i >= len(g.trail) - 1:
                break
            ds = side_of[(g.first_dealer + d) % players]
            scores = g.trail[i]
            yield scores[ds], scores[1 - ds], g.winner == ds


class PositionCounts:
    """States and wins of one variant by cell, added a record at a time (memory does not grow
    with the records)."""

    def __init__(self, manifest: Manifest, v: int, bin: int = 5) -> None:
        info = manifest.variant_info[v]
        name = manifest.variant_names[v]
        if info.target is None or info.players is None:
            raise CribsimError("cribsim positions: this run was made by an older cribsim (its manifest has no target): "
                               "run it again with --fresh")
        if info.sides != 2 or info.objective not in (1, -1):
            raise CribsimError(f"cribsim positions: '{name}' has {info.sides} sides; the table is for two")
        self.manifest, self.v, self.info, self.name, self.bin = manifest, v, info, name, bin
        self.target = int(info.target)
        k = -(-self.target // bin)
        self.n = np.zeros((k, k), dtype=np.int64)
        self.w = np.zeros((k, k), dtype=np.int64)
        self.states = 0

    def add(self, r: MatchRecord) -> None:
        if r.variant != self.v or r.forfeit is not None:
            return
        target, bin = self.target, self.bin
        for d, p, won in record_states(self.info, r):
            self.states += 1
            if 0 <= d < target and 0 <= p < target:
                self.n[d // bin, p // bin] += 1
                self.w[d // bin, p // bin] += won

    def table(self, min_n: int = 30) -> PositionTable:
        if not self.states:
            raise CribsimError(f"cribsim positions: the run has no finished games of '{self.name}'")
        n, w, bin, k = self.n, self.w, self.bin, self.n.shape[0]
        cells = []
        for i in range(k):
            for j in range(k):
                kind, nn, ww = "raw", int(n[i, j]), int(w[i, j])
                if nn < min_n:
                    sl = (slice(max(0, i - 1), i + 2), slice(max(0, j - 1), j + 2))
                    nn, ww, kind = int(n[sl].sum()), int(w[sl].sum()), "smoothed"
                    if nn < min_n:
                        kind = "too thin"
                est = wilson(ww, nn) if kind != "too thin" else (math.nan, math.nan, math.nan)
                cells.append(Cell(i * bin, j * bin, int(n[i, j]), int(w[i, j]), *est, kind, nn, ww))
        info = self.info
        return PositionTable(self.name, bin, self.target, cells, self.states, info.objective,
                             "leader" if info.checkpoints == 1 else "dealer", self.manifest.paired)


def position_table(manifest: Manifest, records: Iterable[MatchRecord], v: int, bin: int = 5,
                   min_n: int = 30) -> PositionTable:
    counts = PositionCounts(manifest, v, bin)
    for r in records:
        counts.add(r)
    return counts.table(min_n)


def monotone_violations(t: PositionTable) -> list[str]:
    """Where more of a side's own points lowers its win chance beyond the intervals: the dealer's
    side's chance must not fall as its score rises, nor rise as the other side's does (the other
    way round when fewer points are better, lowball); cells with their own estimate only (a
    smoothed cell borrows from its neighbours, so it is biased where the chance changes fast)."""
    by = {(c.dealer, c.pone): c for c in t.cells if c.estimate == "raw"}
    out = []
    for (d, p), c in by.items():
        up, right = by.get((d + t.bin, p)), by.get((d, p + t.bin))
        if up is not None and (up.hi < c.lo if t.objective > 0 else up.lo > c.hi):
            out.append(f"{t.role} {d}->{d + t.bin} at other {p}: {c.p:.3f} -> {up.p:.3f}")
        if right is not None and (right.lo > c.hi if t.objective > 0 else right.hi < c.lo):
            out.append(f"other {p}->{p + t.bin} at {t.role} {d}: {c.p:.3f} -> {right.p:.3f}")
    return out


def write_csv(t: PositionTable, path: Path) -> None:
    buf = io.StringIO()
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow([f"{t.role}_from", f"{t.role}_to", "other_from", "other_to", "states", f"{t.role}_wins", "p", "lo",
                 "hi", "estimate", "pooled_states", "pooled_wins"])
    for c in t.cells:
        f = ("" if math.isnan(c.p) else f"{c.p:.4f}", "" if math.isnan(c.lo) else f"{c.lo:.4f}",
             "" if math.isnan(c.hi) else f"{c.hi:.4f}")
        wr.writerow([c.dealer, min(c.dealer + t.bin, t.target) - 1, c.pone, min(c.pone + t.bin, t.target) - 1,
                     c.states, c.wins, *f, c.estimate, c.pooled_states, c.pooled_wins])
    atomic_write(path, buf.getvalue())


def plot(t: PositionTable, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = t.grid()
    fig, ax = plt.subplots(figsize=(7.5, 6.5))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(g), origin="lower", cmap=cmap, vmin=0, vmax=1,
                   extent=(0, g.shape[1] * t.bin, 0, g.shape[0] * t.bin))
    what = "deal" if t.role == "dealer" else "hand"
    ax.set_xlabel(f"other side's score at the start of the {what}")
    ax.set_ylabel(f"{t.role}'s side score at the start of the {what}")
    ax.set_title(f"{t.variant}: {t.role}'s side wins the game ({t.states:,} {what}s; grey: too thin)", fontsize=10)
    fig.colorbar(im, ax=ax, label="win chance")
    fig.tight_layout()
    save_figure(fig, path, 100)
    plt.close(fig)
