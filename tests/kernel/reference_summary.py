"""The summary tables computed the plain way, from the list of records (what cribsim did before
its tables came from mergeable sums): the oracle the exact partial sums are checked against
(tests/kernel/test_aggregate.py). Floats are summed in canonical order, as the list would be."""

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from cribsim.records import Column, GameRecord, MatchRecord
from cribsim.tournament import stats, summary
from cribsim.tournament.aggregate import side_ranking  # (the ranking rule: what is checked here is the summing)
from cribsim.tournament.manifest import Manifest
from cribsim.tournament.summary import FAILED_ROW, Table, Whole, sort_key, variant_columns


def pairwise(rec: MatchRecord, k: int, objective: int = 1) -> list[tuple[int, int, float]]:
    """[(entry_a, entry_b, score_a)] for every pair of sides in the match."""
    rank = side_ranking(rec, k, objective)
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            sa = 1.0 if rank[a] < rank[b] else 0.0 if rank[a] > rank[b] else 0.5
            out.append((rec.sides[a], rec.sides[b], sa))
    return out


def _group_units(recs: Sequence[MatchRecord], per_group: int) -> list[list[MatchRecord]]:
    """The complete groups (every seating has a result), in group order: a group with a failed
    match is left out of the paired table."""
    by_g = defaultdict(list)
    for r in recs:
        by_g[r.group].append(r)
    return [sorted(rs, key=sort_key) for _, rs in sorted(by_g.items()) if len(rs) == per_group]


def _score_entry0(rec: MatchRecord) -> float:
    """Score of the table's first entry (the lower lineup index in sides order of the table)."""
    a, b = rec.sides
    first = min(a, b)
    if rec.forfeit:
        return 0.0 if rec.forfeit.entry == first else 1.0
    if rec.winner < 0:
        return 0.5
    return 1.0 if rec.sides[rec.winner] == first else 0.0


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


def summarize(manifest: Manifest, records: Sequence[MatchRecord]) -> list[Table]:
    """All summary tables, in a fixed order."""
    records = sorted(records, key=sort_key)
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
        tables.append(summary._matrix(rules["name"], names, present, pair))
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
            label = f"{names[best]} vs {names[worst]}"  # (named even when they never met: the gap is blank)
            if n:
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
    for r in failed:
        forfeit_rows.append([variants[r.variant]["name"], r.id, "-", r.forfeit.kind, r.forfeit.error])  # type: ignore[union-attr]
    if forfeit_rows:
        tables.append(Table("forfeits", "Forfeits", ["variant", "match", "entry", "kind", "error"], forfeit_rows))
    return tables



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
