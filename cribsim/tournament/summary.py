"""From result records to summary tables. Reads nothing but the manifest and the records (typed
:class:`cribsim.records.MatchRecord` objects), never rules code, and sorts them canonically, so the
same results give byte-identical tables however they arrived.

What the tables need to know about a game is in its record (its own sides, whether the first
dealer's side won, the sides ranked) or in the manifest's ``variant_info`` (whether lower scores
rank higher, the summary columns), written by the runner from the game module."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records import Column, GameRecord, MatchRecord
from . import stats
from .manifest import Manifest


@dataclass
class Table:
    name: str  # file stem
    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)  # cells: str, int, float, or (value, lo, hi)
    transpose: bool = False  # shown with one column per row (wide tables), CSV unchanged
    plot: tuple[str, ...] = ()  # headers of the columns to plot (the variants table)


class Whole(tuple[float, ...]):
    """An interval shown in whole numbers (Elo)."""

    __slots__ = ()


def sort_key(rec: MatchRecord) -> tuple[int, int, int, int]:
    return rec.key


def side_ranking(rec: MatchRecord, k: int, objective: int = 1) -> list[int]:
    """Rank per side (0 best) for pairwise outcomes: the match winner first, then game points,
    then the last game's score (the lower the better when ``objective`` is -1); a forfeiting
    side last."""
    if rec.forfeit:
        bad = rec.forfeit.side
        if k == 2:
            return [0 if s != bad else 1 for s in range(k)]
        return [1 if s == bad else 0 for s in range(k)]
    last = list(rec.games[-1].scores) if rec.games else [0] * k
    if rec.games and len(rec.games[-1].sides) != k:  # a game's own sides (the match sides are seats)
        game_sides = rec.games[-1].sides
        last = [last[next(i for i, side in enumerate(game_sides) if s in side)] for s in range(k)]
    gp = rec.game_points or [0] * k
    keys = [(rec.winner == s, gp[s], objective * last[s]) for s in range(k)]
    return [sum(1 for o in keys if o > keys[s]) for s in range(k)]


def pairwise(rec: MatchRecord, k: int, objective: int = 1) -> list[tuple[int, int, float]]:
    """[(entry_a, entry_b, score_a)] for every pair of sides in the match."""
    rank = side_ranking(rec, k, objective)
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            sa = 1.0 if rank[a] < rank[b] else 0.0 if rank[a] > rank[b] else 0.5
            out.append((rec.sides[a], rec.sides[b], sa))
    return out


# ---- SPRT, shared with the runner --------------------------------------------------------------

def _group_units(recs: Sequence[MatchRecord], per_group: int) -> list[list[MatchRecord]]:
    """{group: [records]} restricted to complete groups, in group order up to the first gap."""
    by_g = defaultdict(list)
    for r in recs:
        by_g[r.group].append(r)
    out = []
    g = 0
    while len(by_g.get(g, ())) == per_group:
        out.append(sorted(by_g[g], key=sort_key))
        g += 1
    return out


def _first_dealer_score(rec: MatchRecord) -> float | None:
    games = rec.games
    if not games:
        return None
    return sum(1.0 for g in games if g.first_dealer_won) / len(games)


def sprt_streams(manifest: Manifest, records: Sequence[MatchRecord]) -> list[dict[str, Any]]:
    """Evaluate the configured SPRT on the canonical prefix of complete groups. Returns a list of
    dicts, one per test stream: {'variant', 'table', 'result', 'last_group'}; 'last_group' is the
    group at which the test decided (records after it are not used), or None."""
    stop = manifest.stop
    if stop is None:
        return []
    by_vt = defaultdict(list)
    for r in records:
        if not r.failed:
            by_vt[(r.variant, r.table)].append(r)
    per = manifest.per_group
    streams = []
    if stop.test == "elo":
        for v, tables in enumerate(manifest.tables):
            for t in range(len(tables)):
                units = [sum(_score_entry0(r) for r in grp) / len(grp)
                         for grp in _group_units(by_vt[(v, t)], per[v])]
                res = stats.gsprt(units, stop.mu0, stop.mu1, stop.alpha, stop.beta)
                streams.append({"variant": v, "table": t, "result": res,
                                "last_group": res["units"] - 1 if res["decision"] else None})
        return streams
    base = stop.baseline
    for v in range(len(manifest.variants)):
        if v == base:
            continue
        units = []
        gx = [_group_units(by_vt[(v, t)], per[v]) for t in range(len(manifest.tables[v]))]
        gb = [_group_units(by_vt[(base, t)], per[base]) for t in range(len(manifest.tables[base]))]
        n = min(len(x) for x in gx + gb)
        for g in range(n):
            xs_all = [_first_dealer_score(r) for t in range(len(gx)) for r in gx[t][g]]
            bs_all = [_first_dealer_score(r) for t in range(len(gb)) for r in gb[t][g]]
            xs, bs = [x for x in xs_all if x is not None], [x for x in bs_all if x is not None]
            if xs and bs:
                units.append(sum(xs) / len(xs) - sum(bs) / len(bs))
        res = stats.gsprt(units, stop.mu0, stop.mu1, stop.alpha, stop.beta)
        streams.append({"variant": v, "table": None, "result": res,
                        "last_group": res["units"] - 1 if res["decision"] else None})
    return streams


def _score_entry0(rec: MatchRecord) -> float:
    """Score of the table's first entry (the lower lineup index in sides order of the table)."""
    a, b = rec.sides
    first = min(a, b)
    if rec.forfeit:
        return 0.0 if rec.forfeit.entry == first else 1.0
    if rec.winner < 0:
        return 0.5
    return 1.0 if rec.sides[rec.winner] == first else 0.0


def used_records(manifest: Manifest, records: Sequence[MatchRecord]) -> list[MatchRecord]:
    """The records the summary uses: all, or for a run stopped by the SPRT, only the groups up to
    each stream's decision (so the tables do not depend on how many extra matches were in
    flight when it stopped)."""
    streams = sprt_streams(manifest, records)
    if not streams:
        return list(records)
    assert manifest.stop is not None  # there are streams
    cut: dict[Any, int] = {}
    if manifest.stop.test == "elo":
        for s in streams:
            if s["last_group"] is not None:
                cut[(s["variant"], s["table"])] = s["last_group"]
        return [r for r in records if r.group <= cut.get((r.variant, r.table), math.inf)]
    base = manifest.stop.baseline
    for s in streams:
        if s["last_group"] is not None:
            cut[s["variant"]] = s["last_group"]
    if len(cut) == len(streams):
        cut[base] = max(cut.values())
    return [r for r in records if r.group <= cut.get(r.variant, math.inf)]


# ---- per-variant columns ----------------------------------------------------------------------

def column_cell(col: Column, games: Sequence[GameRecord]) -> Any:
    """One cell of the variants table: the column's statistic over a variant's games."""
    n = len(games)
    if col.kind == "count":
        return n
    if col.kind == "rate":
        if col.at_least is None:
            k = sum(1 for g in games if g.value(col.field))
        else:
            k = sum(1 for g in games if g.value(col.field) >= col.at_least)
        return (*stats.wilson(k, n), n)
    if col.kind == "mean":
        return stats.mean_ci([g.value(col.field) for g in games])
    if col.kind == "ratio":
        return stats.ratio_ci([g.value(col.field) for g in games], [g.value(col.denominator) for g in games])
    raise ValueError(f"unknown column kind {col.kind!r}")


def variant_columns(manifest: Manifest) -> list[Column]:
    """Every variant's columns, in order of first appearance (a variant lacking one shows blank)."""
    out: dict[str, Column] = {}
    for info in manifest.variant_info:
        for col in info.columns:
            out.setdefault(col.header, col)
    return list(out.values())


# ---- the tables -------------------------------------------------------------------------------

FAILED_ROW = "(failed: no result)"


def summarize(manifest: Manifest, records: Sequence[MatchRecord]) -> list[Table]:
    """All summary tables, in a fixed order."""
    records = sorted(used_records(manifest, records), key=sort_key)
    failed = [r for r in records if r.failed]
    records = [r for r in records if not r.failed]
    names = manifest.entry_names
    variants = manifest.variants
    columns = variant_columns(manifest)
    tables = []
    entry_rows, variant_rows, paired_rows, forfeit_rows = [], [], [], []
    for v, rules in enumerate(variants):
        recs = [r for r in records if r.variant == v]
        info = manifest.variant_info[v]
        k = info.sides
        pair: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0])
        for r in recs:
            for a, b, sa in pairwise(r, k, info.objective):
                if a == b:
                    continue
                i, j, s = (a, b, sa) if a < b else (b, a, 1 - sa)
                pair[(i, j)][0] += s
                pair[(i, j)][1] += 1
        present = sorted({e for r in recs for e in r.sides})
        tables.append(_matrix(rules["name"], names, present, pair))
        # per entry: overall win rate and Elo
        idx = {e: i for i, e in enumerate(present)}
        bt = stats.bradley_terry(len(present), {(idx[i], idx[j]): (s, n) for (i, j), (s, n) in pair.items()}) \
            if len(present) >= 2 and pair else None
        for e in present:
            mine = [r for r in recs if e in r.sides]
            won = sum(1 for r in mine if r.winner >= 0 and r.sides[r.winner] == e)
            drawn = sum(0.5 for r in mine if r.winner < 0 and not r.forfeit and k == 2)
            elo = Whole((bt["elo"][idx[e]], bt["elo"][idx[e]] - stats.Z95 * bt["se"][idx[e]],
                         bt["elo"][idx[e]] + stats.Z95 * bt["se"][idx[e]])) if bt else ""
            forfeits = sum(1 for r in mine if r.forfeit and r.forfeit.entry == e)
            entry_rows.append([rules["name"], names[e], (*stats.wilson(won + drawn, len(mine)), len(mine)), elo,
                               forfeits])
        lost = sum(1 for r in failed if r.variant == v)
        if lost:  # matches with no result (a worker that kept dying): counted in a row of their own
            entry_rows.append([rules["name"], FAILED_ROW, "", "", lost])
        # per variant: the game's and the variants' own columns, then the skill gap
        games = [g for r in recs for g in r.games]
        mine_cols = {c.header for c in info.columns}
        row = [rules["name"]] + [column_cell(c, games) if c.header in mine_cols else "" for c in columns]
        gap: str | tuple[float, ...]
        label, gap = "", ""
        if bt and len(present) >= 2:
            order = sorted(present, key=lambda e: -bt["elo"][idx[e]])
            best, worst = order[0], order[-1]
            s, n = pair.get((min(best, worst), max(best, worst)), (0.0, 0))
            if n:
                label = f"{names[best]} vs {names[worst]}"
                gap = (*stats.wilson(s if best < worst else n - s, n), n)
        row += [label, gap]
        row.append(sum(1 for r in recs if r.forfeit) + lost)  # the failed matches too: the forfeits table lists them
        variant_rows.append(row)
        if manifest.paired and k == 2:
            paired_rows += _paired(manifest, v, rules["name"], names, recs)
        for r in recs:
            if r.forfeit:
                f = r.forfeit
                forfeit_rows.append([rules["name"], r.id, names[f.entry] if f.entry is not None else "-", f.kind,
                                     f.error])

    tables.append(Table("entries", "Entries: match win rate [95% Wilson] and Elo [95%] (Bradley-Terry, mean 0)",
                        ["variant", "entry", "win rate", "Elo", "forfeits"], entry_rows))
    tables.append(Table("variants", "Variants: per game and per deal, with 95% intervals",
                        ["variant"] + [c.header for c in columns] + ["best vs worst", "skill gap", "forfeits"],
                        variant_rows, transpose=True, plot=tuple(c.header for c in columns if c.plot)))
    if paired_rows:
        tables.append(Table("paired", "Paired deals: pair totals for the first entry (LL, LD, DD+WL, WD, WW), "
                            "mean score per pair, and the variance of that mean relative to unpaired matches",
                            ["variant", "table", "pairs", "0", "0.5", "1", "1.5", "2", "score per pair",
                             "variance ratio", "effective games x"], paired_rows))
    streams = sprt_streams(manifest, records)
    if streams:
        tables.append(_sprt_table(manifest, names, streams))
    for r in failed:
        forfeit_rows.append([variants[r.variant]["name"], r.id, "-", r.forfeit.kind, r.forfeit.error])  # type: ignore[union-attr]
    if forfeit_rows:
        tables.append(Table("forfeits", "Forfeits", ["variant", "match", "entry", "kind", "error"], forfeit_rows))
    return tables


def _matrix(variant: str, names: list[str], present: list[int], pair: dict[tuple[int, int], list[float]]) -> Table:
    """The win-rate matrix, row against column."""
    mat = Table(f"matrix_{variant}", f"Win rate, row against column ({variant}): "
                "score [95% Wilson interval] (matches)", ["entry"] + [names[e] for e in present])
    for a in present:
        row: list[Any] = [names[a]]
        for b in present:
            if a == b:
                row.append("")
                continue
            s, n = pair.get((min(a, b), max(a, b)), (0.0, 0))
            sa = s if a < b else n - s
            row.append((*stats.wilson(sa, n), n) if n else "")
        mat.rows.append(row)
    return mat


def _paired(manifest: Manifest, v: int, variant: str, names: list[str], recs: list[MatchRecord]) -> list[list[Any]]:
    """Paired statistics (two sides, groups of seatings), one row per table."""
    rows = []
    by_t = defaultdict(list)
    for r in recs:
        by_t[r.table].append(r)
    for t, trs in sorted(by_t.items()):
        groups = _group_units(trs, manifest.per_group[v])
        unit = [sum(_score_entry0(r) for r in g) / len(g) for g in groups]
        match_scores = [_score_entry0(r) for g in groups for r in g]
        a, b = sorted(manifest.tables[v][t])
        counts = stats.pentanomial([u * 2 for u in unit]) if manifest.per_group[v] == 2 else [""] * 5
        ratio = stats.variance_ratio(unit, match_scores)
        rows.append([variant, f"{names[a]} vs {names[b]}", len(groups), *counts,
                     stats.mean_ci(unit), ratio, (1 / ratio) if ratio and ratio > 0 else math.nan])
    return rows


def _sprt_table(manifest: Manifest, names: list[str], streams: list[dict[str, Any]]) -> Table:
    variants = manifest.variants
    rows = []
    for s in streams:
        v = variants[s["variant"]]["name"]
        what = v if s["table"] is None else \
            f"{v}: " + " vs ".join(names[e] for e in sorted(manifest.tables[s["variant"]][s["table"]]))
        res = s["result"]
        per = manifest.per_group[s["variant"]]
        if s["table"] is None:  # first_dealer: the variant's and the baseline's groups
            per *= len(manifest.tables[s["variant"]]) * 2
        rows.append([what, res["decision"] or "undecided", res["llr"], res["lower"], res["upper"], res["units"],
                     res["units"] * per])
    test = manifest.stop.test if manifest.stop is not None else ""
    return Table("sprt", f"SPRT ({test}): log-likelihood ratio, bounds, units "
                 "(groups of paired matches) and matches used",
                 ["test", "decision", "LLR", "lower", "upper", "units", "matches"], rows)


# ---- formatting -------------------------------------------------------------------------------

def fmt_cell(c: Any) -> str:
    if isinstance(c, tuple):
        if len(c) == 4:  # rate, lo, hi, n
            return f"{c[0]:.3f} [{c[1]:.3f}, {c[2]:.3f}] ({c[3]})"
        if len(c) == 3:
            d = 0 if isinstance(c, Whole) else 3
            if any(isinstance(x, float) and math.isnan(x) for x in c):
                return f"{c[0]:.{d}f}" if not math.isnan(c[0]) else ""
            return f"{c[0]:.{d}f} [{c[1]:.{d}f}, {c[2]:.{d}f}]"
    if isinstance(c, float):
        return "" if math.isnan(c) else f"{c:.3f}"
    return str(c)


def csv_widths(rows: Sequence[Sequence[Any]], ncols: int) -> list[int]:
    """Per column, how many CSV fields it takes: an interval column (value, lo, hi, n) keeps its
    width in every row, so a blank cell (the matrix diagonal) does not shift the columns."""
    return [max((len(r[i]) if isinstance(r[i], tuple) else 1) for r in rows) if rows else 1
            for i in range(ncols)]


def csv_cells(headers: Sequence[str], row: Sequence[Any],
              widths: Sequence[int] | None = None) -> tuple[list[str], list[Any]]:
    """Flatten a row for CSV: an interval becomes value, lo, hi (and n); a blank in an interval
    column is padded to the column's width."""
    widths = widths or [len(c) if isinstance(c, tuple) else 1 for c in row]
    hs, cs = [], []
    for h, c, k in zip(headers, row, widths):
        parts = ["", "_lo", "_hi", "_n"][:k] if k > 1 else [""]
        hs += [h + p for p in parts]
        vals = list(c) if isinstance(c, tuple) else [c]
        cs += [_num(x) for x in vals] + [""] * (k - len(vals))
    return hs, cs


def _num(x: Any) -> Any:
    if isinstance(x, float):
        return "" if math.isnan(x) else f"{x:.6f}"
    return x
