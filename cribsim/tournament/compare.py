"""``cribsim compare``: rule variants side by side on game-design metrics (see ``metrics``), each
cell with its 95% interval, and each variant's difference from a baseline variant computed on the
same deals (paired by match: same table, group and seating, whose deals are the same in every
variant of a run) next to the unpaired difference. Reads the manifest and the records only, as a
stream (:class:`CompareSums`, with the sums of :mod:`.comparesums`)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CribsimError
from ..records import GameRecord, MatchRecord
from . import pictures as pic
from .atomic import save_figure
from .comparesums import Cluster, Figure, PairFold, VariantFold
from .folder import schedule_of
from .manifest import Manifest
from .metrics import CLOSE, Estimate, games_to_win, games_to_win_normal, won_by
from .stats import Z95

# per-game figures compared (name, how to read it from a game and its metrics, given the close margin);
# each is a mean per game (a rate when the figure is 0 or 1)
FIGURES: tuple[tuple[str, Figure], ...] = (
    ("deals/game", lambda g, m, c: m.deals),
    ("decisions/game", lambda g, m, c: float(m.decisions if m.decisions is not None else math.nan)),
    ("lead changes/game", lambda g, m, c: m.lead_changes),
    ("drama (comeback, points)", lambda g, m, c: m.drama),
    ("decided at (share of game)", lambda g, m, c: m.decided_at),
    ("final margin (points)", lambda g, m, c: m.margin),
    ("close games", lambda g, m, c: 1.0 if m.margin < c else 0.0),
    ("first dealer wins", lambda g, m, c: 1.0 if _side_of(g, g.first_dealer) in won_by(g) else 0.0),
)


def _side_of(g: GameRecord, seat: int) -> int:
    return next(i for i, side in enumerate(g.sides) if seat in side)


def _nan() -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, 0)


@dataclass
class VariantMetrics:
    """One variant's column: every figure's estimate, seat (or role) win rates, balance and skill."""

    name: str
    games: int
    figures: dict[str, Estimate] = field(default_factory=dict)
    seats: list[Estimate] = field(default_factory=list)
    roles: list[Estimate] = field(default_factory=list)  # games with their own sides (two against one)
    balance: Estimate | None = None
    stronger: str = ""
    skill: Estimate | None = None
    games_95: tuple[int | None, int | None, int | None] = (None, None, None)  # at p, p's hi, p's lo
    games_95_normal: float = math.nan


@dataclass
class Difference:
    """A variant minus the baseline on one figure: paired (same deals) and unpaired."""

    variant: str
    figure: str
    paired: Estimate | None
    unpaired: Estimate


@dataclass
class Waiting:
    """A finished cluster kept for the twins' clusters still to come (``twins`` of them)."""

    cluster: Cluster
    twins: int


class CompareSums:
    """Every variant's :class:`~.comparesums.VariantFold` and the paired differences of the
    pairs of variants asked for (``pairs``: (base, other); those on other tables have none),
    fed one record at a time (see :mod:`.comparesums`)."""

    def __init__(self, manifest: Manifest, pairs: Iterable[tuple[int, int]], close: float = CLOSE) -> None:
        schedule = schedule_of(manifest)
        self.manifest, self.close, self.groups = manifest, close, schedule.groups
        read = [f for _, f in FIGURES]
        self.variants = [VariantFold(info, schedule.per[v], read, close)
                         for v, info in enumerate(manifest.variant_info)]
        tables = manifest.tables
        self.pairs = {(b, o): PairFold(len(FIGURES)) for b, o in sorted(set(pairs))
                      if b != o and tables[b] == tables[o]}
        self.partners: dict[int, list[tuple[int, int]]] = {}
        for b, o in self.pairs:
            self.partners.setdefault(b, []).append((b, o))
            self.partners.setdefault(o, []).append((b, o))
        self.waiting: dict[tuple[int, int, int], Waiting] = {}  # (variant, table, group)

    def add(self, rec: MatchRecord) -> None:
        done = self.variants[rec.variant].add(rec)
        if done is not None and rec.variant in self.partners:
            self._pair(rec.variant, *done)

    def _pair(self, v: int, t: int, g: int, c: Cluster) -> None:
        """Fold ``c`` with every twin cluster already here; keep it for those still to come."""
        ahead = 0
        for b, o in self.partners.get(v, ()):
            p = o if v == b else b
            if g >= self.groups[p]:
                continue  # (the other variant has fewer groups: no twin)
            twin = self.waiting.get((p, t, g))
            if twin is None:
                ahead += 1
                continue
            self.pairs[(b, o)].add(c if v == b else twin.cluster, twin.cluster if v == b else c)
            twin.twins -= 1
            if not twin.twins:
                del self.waiting[(p, t, g)]
        if ahead:
            self.waiting[(v, t, g)] = Waiting(c, ahead)

    def finish(self) -> None:
        """Fold the groups whose matches did not all arrive (an unfinished run), with their twins."""
        for v, fold in enumerate(self.variants):
            for t, g, c in fold.finish():
                if v in self.partners:
                    self._pair(v, t, g, c)
        self.waiting = {}

    def check(self) -> None:
        trails = sum(f.trails for f in self.variants)
        untrailed = sum(f.untrailed for f in self.variants)
        if not trails + untrailed:
            raise CribsimError("cribsim: the run has no finished matches to compare")
        if not trails:
            raise CribsimError("cribsim: the records carry no score trails (written by an older cribsim): run the "
                               "experiment again with --fresh")
        if untrailed:
            raise CribsimError(f"cribsim: cannot compute the metrics from these records ({untrailed} games have no "
                               "score trail)")

    def column(self, v: int) -> VariantMetrics:
        fold = self.variants[v]
        out = VariantMetrics(self.manifest.variant_names[v], fold.games)
        for (name, _), sums in zip(FIGURES, fold.figures):
            out.figures[name] = sums.estimate()
        if fold.games:
            rates = [s.estimate() for s in (fold.roles if fold.own else fold.seats)]
            if fold.own:
                out.roles = rates
            else:
                out.seats = rates
            out.balance = fold.balance()
        best, est = fold.best()
        if best is not None:
            out.stronger, out.skill = self.manifest.entry_names[best], est
            if self.manifest.variant_info[v].sides == 2:  # a majority of games decides a match between two sides only
                out.games_95 = (games_to_win(est.value), games_to_win(est.hi), games_to_win(est.lo))
                out.games_95_normal = games_to_win_normal(est.value, est.value * (1 - est.value))
        return out


def _se(e: Estimate) -> float:
    return (e.hi - e.lo) / (2 * Z95)


@dataclass
class Comparison:
    columns: list[VariantMetrics]
    baseline: int
    diffs: list[list[Difference]]  # per variant (the baseline's own is empty)
    close: float
    pairs: dict[tuple[int, int], PairFold]

    def differences(self, b: int, v: int) -> list[Difference]:
        """Variant ``v`` minus variant ``b`` on every figure: paired over the games both played on
        the same deals (same table, group, seating and game number) when the pair was folded
        (their tables are the same), with the interval over clusters, and unpaired from the two
        columns."""
        base, other = self.columns[b], self.columns[v]
        paired = self.pairs.get((b, v))
        out = []
        for i, (name, _) in enumerate(FIGURES):
            unp = unpaired(base.figures[name], other.figures[name])
            out.append(Difference(other.name, name, paired.estimate(i) if paired else None, unp))
        return out


def baseline_of(manifest: Manifest, baseline: str | None) -> int:
    names = manifest.variant_names
    if baseline is not None and baseline not in names:
        raise CribsimError(f"cribsim compare: --baseline {baseline!r} is not a variant of this run "
                           f"({', '.join(names)})")
    return names.index(baseline) if baseline is not None else 0


def compare(sums: CompareSums, base: int) -> Comparison:
    """The comparison from the sums of every record used (fed, and finished)."""
    sums.check()
    try:
        cols = [sums.column(v) for v in range(len(sums.variants))]
    except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as e:
        raise CribsimError(f"cribsim: cannot compute the metrics from these records ({e})") from None
    c = Comparison(cols, base, [], sums.close, sums.pairs)
    c.diffs = [[] if v == base else c.differences(base, v) for v in range(len(cols))]
    return c


# ---- output ---------------------------------------------------------------------------------------

def rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    """The comparison table: metrics as rows, variants as columns."""
    head = ["metric"] + [col.name for col in c.columns]
    out = [["games"] + [str(col.games) for col in c.columns]]
    for name, _ in FIGURES:
        label = f"close games (margin < {c.close:g})" if name == "close games" else name
        out.append([label] + [col.figures[name].cell() for col in c.columns])
    seats = max(len(col.seats) for col in c.columns)
    for k in range(seats):
        out.append([f"seat {k} wins (0 deals first)"] +
                   [col.seats[k].cell() if k < len(col.seats) else "" for col in c.columns])
    roles = max(len(col.roles) for col in c.columns)
    for k in range(roles):
        out.append([f"own side {k} wins (two against one: 0 lone, 1 partnership)"] +
                   [col.roles[k].cell() if k < len(col.roles) else "" for col in c.columns])
    out.append(["balance (1 - largest seat gap; own sides: role gap)"] +
               [col.balance.cell() if col.balance else "-" for col in c.columns])
    out.append(["stronger entry"] + [col.stronger or "-" for col in c.columns])
    out.append(["its game win rate (skill; even: 1/sides)"] +
               [col.skill.cell() if col.skill else "-" for col in c.columns])
    out.append(["games for a 95% match win"] + [_games(col) for col in c.columns])
    out.append(["  the same, normal approximation"] +
               ["-" if math.isnan(col.games_95_normal) or math.isinf(col.games_95_normal)
                else f"{col.games_95_normal:.1f}" for col in c.columns])
    return head, out


def _games(col: VariantMetrics) -> str:
    n, lo, hi = col.games_95
    if n is None:
        return "-"
    return f"{n} [{lo if lo is not None else '?'}, {hi if hi is not None else 'inf'}]"


def diff_rows(c: Comparison) -> tuple[list[str], list[list[str]]]:
    base = c.columns[c.baseline].name
    head = ["variant", "metric", f"paired difference from {base} (matches)", "unpaired difference (matches)",
            "paired / unpaired width"]
    out = []
    for ds in c.diffs:
        for d in ds:
            ratio = ""
            if d.paired is not None and d.unpaired.n and d.unpaired.hi > d.unpaired.lo:
                ratio = f"{(d.paired.hi - d.paired.lo) / (d.unpaired.hi - d.unpaired.lo):.3f}"
            out.append([d.variant, d.figure, d.paired.cell(4) if d.paired else "not paired (other tables)",
                        d.unpaired.cell(4), ratio])
    return head, out


Panel = tuple[str, Estimate, list[Difference | None]]  # a metric: the baseline's value, each variant's difference


def panels(c: Comparison) -> list[Panel]:
    """Every metric of the picture: its title, the baseline's value and each variant's
    difference from the baseline (None for the baseline itself). Balance and skill are not
    figures of a game, so their differences are unpaired."""
    base = c.columns[c.baseline]
    out: list[Panel] = []
    for i, (name, _) in enumerate(FIGURES):
        diffs = [None if v == c.baseline else c.diffs[v][i] for v in range(len(c.columns))]
        out.append((name, base.figures[name], diffs))
    for title in ("balance", SKILL):
        b = _whole(base, title)
        diffs = [None if v == c.baseline else Difference(col.name, title, None, unpaired(b, _whole(col, title)))
                 for v, col in enumerate(c.columns)]
        out.append((title, b, diffs))
    return out


SKILL = "stronger entry's game win rate"


def _whole(col: VariantMetrics, title: str) -> Estimate:
    """A figure of the variant's games as a whole: its balance, or its skill (``SKILL``)."""
    return (col.balance if title == "balance" else col.skill) or _nan()


def unpaired(a: Estimate, b: Estimate) -> Estimate:
    """``b`` minus ``a`` with the normal interval of two independent estimates (nan where
    either has no interval)."""
    if a.n > 1 and b.n > 1 and not math.isnan(_se(a) + _se(b)):
        d, half = b.value - a.value, Z95 * math.hypot(_se(a), _se(b))
        return Estimate(d, d - half, d + half, b.n)
    return _nan()


def plot(c: Comparison, path: Path) -> None:
    """One panel per metric, the variants in rows (:mod:`.pictures`' order): each variant's
    difference from the baseline with its 95% interval, paired on the same deals (filled) and
    unpaired (hollow), against 0, the baseline; the top axis reads the value itself (the
    baseline's plus the difference). A run of one variant shows its values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ps, several = panels(c), len(c.columns) > 1
    names = [col.name + (" (baseline)" if v == c.baseline and several else "") for v, col in enumerate(c.columns)]
    rows_ = -(-len(ps) // 3)
    fig, axes = plt.subplots(rows_, 3, figsize=(pic.WIDTH, rows_ * (0.3 * len(names) + 1.6) + 0.9),
                             sharey=True, squeeze=False)
    for ax, panel in zip(axes.flat, ps):
        (_difference_panel if several else _value_panel)(ax, panel)
    for row in axes:
        pic.label_rows(row[0], names, fontsize=pic.SMALL)
    for ax in list(axes.flat)[len(ps):]:
        ax.axis("off")
    _head(fig, list(axes.flat), c.columns[c.baseline].name, several)
    save_figure(fig, path, pic.DPI)
    plt.close(fig)


def _head(fig: Any, axes: list[Any], base: str, several: bool) -> None:
    """The picture's title and, when it draws differences, one legend for every panel."""
    if several:
        keys = {label: h for ax in axes for h, label in zip(*ax.get_legend_handles_labels())}
        order = sorted(keys, key=lambda label: [label.startswith(w) for w in ("paired", "unpaired", "")].index(True))
        fig.legend([keys[k] for k in order], order, loc="upper center", ncols=3, fontsize=pic.SMALL,
                   bbox_to_anchor=(0.5, 1 - 0.45 / fig.get_figheight()), frameon=False)
    fig.suptitle(f"Variants compared with {base} (95% intervals; bottom axis: the difference, top axis: the value)"
                 if several else f"{base} (95% intervals; one variant: nothing to compare)", fontsize=pic.HEAD)
    fig.tight_layout(rect=(0, 0, 1, 1 - (0.75 if several else 0.4) / fig.get_figheight()))


def _difference_panel(ax: Any, panel: Panel) -> None:
    title, base, diffs = panel
    rows = pic.variant_rows(diffs)  # (the same rows as the names)
    for kind, shift, style in (("paired", 0.15, {"color": "#1f5fa8"}),
                               ("unpaired", -0.15, {"color": "#888888", "mfc": "white"})):
        ests = [(y + shift, getattr(d, kind)) for y, d in zip(rows, diffs) if d is not None and getattr(d, kind)]
        ests = [(y, e) for y, e in ests if e.n and not math.isnan(e.value)]
        if ests:
            v = np.array([e.value for _, e in ests])
            err = np.vstack([np.nan_to_num(v - [e.lo for _, e in ests]), np.nan_to_num([e.hi for _, e in ests] - v)])
            ax.errorbar(v, [y for y, _ in ests], xerr=err, fmt="o", ms=5, capsize=3,
                        label=f"{kind} difference" + (" (the same deals)" if kind == "paired" else ""), **style)
    ax.axvline(0, color="#444444", lw=1, ls="--", label="0: the baseline")
    if not math.isnan(base.value):
        top = ax.secondary_xaxis("top", functions=(lambda d: d + base.value, lambda x: x - base.value))
        top.tick_params(labelsize=pic.SMALL, colors="#555555")
    ax.set_title(f"{title}\nbaseline {base.cell()}" if base.n else title, fontsize=pic.TITLE)
    ax.tick_params(axis="x", labelsize=pic.SMALL)
    ax.grid(axis="x", lw=0.3)


def _value_panel(ax: Any, panel: Panel) -> None:
    title, base, _ = panel
    if base.n and not math.isnan(base.value):
        err = [[np.nan_to_num(base.value - base.lo)], [np.nan_to_num(base.hi - base.value)]]
        ax.errorbar([base.value], [0], xerr=err, fmt="o", ms=5, capsize=3, color="#1f5fa8")
    ax.set_title(f"{title}\n{base.cell()}" if base.n else title, fontsize=pic.TITLE)
    ax.tick_params(axis="x", labelsize=pic.SMALL)
    ax.grid(axis="x", lw=0.3)
