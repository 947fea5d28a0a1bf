"""``cribsim compare``: rule variants side by side on game-design metrics (see ``metrics``), each
cell with its 95% interval, and each variant's difference from a baseline variant computed on the
same deals (paired by match: same table, group and seating, whose deals are the same in every
variant of a run) next to the unpaired difference. Reads the manifest and the records only."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CribsimError
from ..records import GameRecord, MatchRecord
from .atomic import save_figure
from .manifest import Manifest
from .metrics import (
    CLOSE,
    Estimate,
    GameMetrics,
    balance,
    clustered,
    games_to_win,
    games_to_win_normal,
    metrics_of,
    role_wins,
    seat_wins,
    skill,
    won_by,
)
from .stats import Z95
from .summary import used_records

# per-game figures compared (name, how to read it from a game and its metrics, given the close margin);
# each is a mean per game (a rate when the figure is 0 or 1)
Figure = Callable[[GameRecord, GameMetrics, float], float]
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

PairKey = tuple[int, int, int, int]  # (table, group, seating, game number): the same deals in every variant


def _side_of(g: GameRecord, seat: int) -> int:
    return next(i for i, side in enumerate(g.sides) if seat in side)


def _nan() -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, 0)


@dataclass
class VariantMetrics:
    """One variant's column: every figure's estimate, seat (or role) win rates, balance, skill,
    and each game's figures by the key of its deals (for paired differences)."""

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
    per_game: dict[str, dict[PairKey, float]] = field(default_factory=dict)


@dataclass
class Difference:
    """A variant minus the baseline on one figure: paired (same deals) and unpaired."""

    variant: str
    figure: str
    paired: Estimate | None
    unpaired: Estimate


def _used(manifest: Manifest, records: Sequence[MatchRecord]) -> list[MatchRecord]:
    return [r for r in used_records(manifest, records) if r.forfeit is None]


def _by_cluster(items: Iterable[tuple[Hashable, float]]) -> tuple[list[float], list[float]]:
    """Per-cluster sums and counts of (cluster, value) pairs, NaN values left out."""
    sums: dict[Hashable, list[float]] = {}
    for c, x in items:
        if not math.isnan(x):
            a = sums.setdefault(c, [0.0, 0.0])
            a[0] += x
            a[1] += 1
    return [a[0] for a in sums.values()], [a[1] for a in sums.values()]


def _per_cluster(values: dict[PairKey, float]) -> tuple[list[float], list[float]]:
    """Per-game values by the key of their deals, summed per cluster (a table's group)."""
    return _by_cluster(((t, grp), x) for (t, grp, _, _), x in sorted(values.items()))


def variant_metrics(manifest: Manifest, records: Sequence[MatchRecord], v: int,
                    close: float = CLOSE) -> VariantMetrics:
    info = manifest.variant_info[v]
    mine = sorted((r for r in records if r.variant == v), key=lambda r: (r.table, r.group, r.seating))
    names = manifest.entry_names
    out = VariantMetrics(manifest.variant_names[v], 0)
    games: list[GameRecord] = []
    clusters: list[int] = []
    out.per_game = {f: {} for f, _ in FIGURES}
    for r in mine:
        for k, g in enumerate(r.games):
            m = metrics_of(g, info)
            games.append(g)
            clusters.append(r.table * 10 ** 9 + r.group)
            for name, read in FIGURES:
                out.per_game[name][(r.table, r.group, r.seating, k)] = read(g, m, close)
    out.games = len(games)
    for name, _ in FIGURES:
        out.figures[name] = clustered(*_per_cluster(out.per_game[name]))
    if games:
        own = any(g.targets is not None for g in games)
        wins = role_wins(games) if own else seat_wins(games, int(info.players or len(games[0].scores)))
        rates = [clustered(*_by_cluster(zip(clusters, map(float, wins[:, k])))) for k in range(wins.shape[1])]
        if own:
            out.roles = rates
        else:
            out.seats = rates
        out.balance = balance(wins, clusters)
    best, est = skill(mine)
    if best is not None:
        out.stronger, out.skill = names[best], est
        if info.sides == 2:  # a majority of games decides a match between two sides only
            out.games_95 = (games_to_win(est.value), games_to_win(est.hi), games_to_win(est.lo))
            out.games_95_normal = games_to_win_normal(est.value, est.value * (1 - est.value))
    return out


def _se(e: Estimate) -> float:
    return (e.hi - e.lo) / (2 * Z95)


def differences(base: VariantMetrics, other: VariantMetrics, paired: bool) -> list[Difference]:
    """``other`` minus ``base`` on every figure: paired over the games both played on the same
    deals (same table, group, seating and game number; when their tables are the same), with the
    interval over clusters, and unpaired from the two columns."""
    out = []
    for name, _ in FIGURES:
        eb, eo = base.figures[name], other.figures[name]
        unp = _nan()
        if eb.n > 1 and eo.n > 1 and not math.isnan(_se(eb) + _se(eo)):
            d, half = eo.value - eb.value, Z95 * math.hypot(_se(eb), _se(eo))
            unp = Estimate(d, d - half, d + half, eo.n)
        pe = None
        if paired:
            a, b = base.per_game[name], other.per_game[name]
            diffs = {k: b[k] - a[k] for k in b if k in a and not math.isnan(a[k]) and not math.isnan(b[k])}
            if len(diffs) > 1:
                pe = clustered(*_per_cluster(diffs))
        out.append(Difference(other.name, name, pe, unp))
    return out


@dataclass
class Comparison:
    columns: list[VariantMetrics]
    baseline: int
    diffs: list[list[Difference]]  # per variant (the baseline's own is empty)
    close: float


def compare(manifest: Manifest, records: Sequence[MatchRecord], baseline: str | None = None,
            close: float = CLOSE) -> Comparison:
    used = _used(manifest, records)
    if not any(r.games for r in used):
        raise CribsimError("cribsim: the run has no finished matches to compare")
    if not any(g.trail for r in used for g in r.games):
        raise CribsimError("cribsim: the records carry no score trails (written by an older cribsim): run the "
                           "experiment again with --fresh")
    names = manifest.variant_names
    if baseline is not None and baseline not in names:
        raise CribsimError(f"cribsim compare: --baseline {baseline!r} is not a variant of this run "
                           f"({', '.join(names)})")
    base = names.index(baseline) if baseline is not None else 0
    try:
        cols = [variant_metrics(manifest, used, v, close) for v in range(len(names))]
    except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as e:
        raise CribsimError(f"cribsim: cannot compute the metrics from these records ({e})") from None
    tables = manifest.tables
    diffs = [[] if v == base else differences(cols[base], cols[v], tables[v] == tables[base])
             for v in range(len(names))]
    return Comparison(cols, base, diffs, close)


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


def plot(c: Comparison, path: Path) -> None:
    """One panel per metric, the variants side by side with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(name, [col.figures[name] for col in c.columns]) for name, _ in FIGURES]
    panels.append(("balance", [col.balance or _nan() for col in c.columns]))
    panels.append(("stronger entry's game win rate", [col.skill or _nan() for col in c.columns]))
    names = [col.name for col in c.columns]
    cols = 4 if len(panels) > 9 else 3
    rows_ = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(5.2 * cols, 0.28 * len(names) * rows_ + 1.6 * rows_),
                             squeeze=False)
    y = np.arange(len(names))
    for ax, (title, ests) in zip(axes.flat, panels):
        v = np.array([e.value for e in ests])
        lo = np.array([e.lo for e in ests])
        hi = np.array([e.hi for e in ests])
        err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
        ax.errorbar(v, y, xerr=err, fmt="o", ms=4, capsize=2, color="#1f5fa8")
        base = ests[c.baseline].value
        if not math.isnan(base):
            ax.axvline(base, color="#999999", lw=0.8, ls="--")
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", lw=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(f"Variants compared (95% intervals; dashed: {c.columns[c.baseline].name})", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / fig.get_figheight()))
    save_figure(fig, path, 100)
    plt.close(fig)
