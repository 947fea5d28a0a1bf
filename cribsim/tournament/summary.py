"""From result records to summary tables. Reads nothing but the manifest and the records, and
sorts them canonically, so the same results give byte-identical tables however they arrived."""

import math
from collections import defaultdict
from dataclasses import dataclass, field

from ..cribbage import _side_of, game_side_of
from ..games import GAMES
from ..variants import objective_of
from . import stats


@dataclass
class Table:
    name: str  # file stem
    title: str
    headers: list
    rows: list = field(default_factory=list)  # cells: str, int, float, or (value, lo, hi)
    transpose: bool = False  # shown with one column per row (wide tables), CSV unchanged


class Whole(tuple):
    """An interval shown in whole numbers (Elo)."""

    __slots__ = ()


def sort_key(rec):
    return (rec["v"], rec["t"], rec["g"], rec["s"])


def side_ranking(rec, k, objective=1):
    """Rank per side (0 best) for pairwise outcomes: the match winner first, then game points,
    then the last game's score (the lower the better when ``objective`` is -1, lowball); a
    forfeiting side last."""
    if rec["forfeit"]:
        bad = rec["forfeit"]["side"]
        if k == 2:
            return [0 if s != bad else 1 for s in range(k)]
        return [1 if s == bad else 0 for s in range(k)]
    last = rec["games"][-1][1] if rec["games"] else [0] * k
    extra = rec["games"][-1][6] if rec["games"] and len(rec["games"][-1]) > 6 else None
    if extra and "sides" in extra:  # a game's own sides (V-TEAM3: the match sides are seats)
        game_sides = extra["sides"]
        last = [last[next(i for i, side in enumerate(game_sides) if s in side)] for s in range(k)]
    keys = [(rec["winner"] == s, rec["gp"][s], objective * last[s]) for s in range(k)]
    return [sum(1 for o in keys if o > keys[s]) for s in range(k)]


def pairwise(rec, k, objective=1):
    """[(entry_a, entry_b, score_a)] for every pair of sides in the match."""
    rank = side_ranking(rec, k, objective)
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            sa = 1.0 if rank[a] < rank[b] else 0.0 if rank[a] > rank[b] else 0.5
            out.append((rec["sides"][a], rec["sides"][b], sa))
    return out


# ---- SPRT, shared with the runner --------------------------------------------------------------

def _group_units(recs, per_group):
    """{group: [records]} restricted to complete groups, in group order up to the first gap."""
    by_g = defaultdict(list)
    for r in recs:
        by_g[r["g"]].append(r)
    out = []
    g = 0
    while len(by_g.get(g, ())) == per_group:
        out.append(sorted(by_g[g], key=sort_key))
        g += 1
    return out


def _first_dealer_score(rec, rules_sides_of):
    games = rec["games"]
    if not games:
        return None
    return sum(1.0 for g in games
               if game_side_of({"players": len(rules_sides_of)}, g, rules_sides_of)[g[3]]
               == g[0]) / len(games)


def crashed(rec):
    """A match whose worker kept dying: no result to count (it is listed with the forfeits)."""
    return bool(rec["forfeit"]) and rec["forfeit"]["side"] is None


def sprt_streams(manifest, records):
    """Evaluate the configured SPRT on the canonical prefix of complete groups. Returns a list of
    dicts, one per test stream: {'variant', 'table', 'result', 'last_group'}; 'last_group' is the
    group at which the test decided (records after it are not used), or None."""
    stop = manifest.get("stop")
    if not stop:
        return []
    by_vt = defaultdict(list)
    for r in records:
        if not crashed(r):
            by_vt[(r["v"], r["t"])].append(r)
    per = manifest["per_group"]
    streams = []
    if stop["test"] == "elo":
        for v, tables in enumerate(manifest["tables"]):
            for t in range(len(tables)):
                units = [sum(_score_entry0(r) for r in grp) / len(grp)
                         for grp in _group_units(by_vt[(v, t)], per[v])]
                res = stats.gsprt(units, stop["mu0"], stop["mu1"], stop["alpha"], stop["beta"])
                streams.append({"variant": v, "table": t, "result": res,
                                "last_group": res["units"] - 1 if res["decision"] else None})
        return streams
    base = stop["baseline"]
    side_of = [_side_of(rules) for rules in manifest["variants"]]
    for v in range(len(manifest["variants"])):
        if v == base:
            continue
        units = []
        gx = [_group_units(by_vt[(v, t)], per[v]) for t in range(len(manifest["tables"][v]))]
        gb = [_group_units(by_vt[(base, t)], per[base]) for t in range(len(manifest["tables"][base]))]
        n = min(len(x) for x in gx + gb)
        for g in range(n):
            xs = [_first_dealer_score(r, side_of[v]) for t in range(len(gx)) for r in gx[t][g]]
            bs = [_first_dealer_score(r, side_of[base]) for t in range(len(gb)) for r in gb[t][g]]
            xs, bs = [x for x in xs if x is not None], [x for x in bs if x is not None]
            if xs and bs:
                units.append(sum(xs) / len(xs) - sum(bs) / len(bs))
        res = stats.gsprt(units, stop["mu0"], stop["mu1"], stop["alpha"], stop["beta"])
        streams.append({"variant": v, "table": None, "result": res,
                        "last_group": res["units"] - 1 if res["decision"] else None})
    return streams


def _score_entry0(rec):
    """Score of the table's first entry (the lower lineup index in sides order of the table)."""
    a, b = rec["sides"]
    first = min(a, b)
    if rec["forfeit"]:
        return 0.0 if rec["forfeit"]["entry"] == first else 1.0
    if rec["winner"] < 0:
        return 0.5
    return 1.0 if rec["sides"][rec["winner"]] == first else 0.0


def used_records(manifest, records):
    """The records the summary uses: all, or for a run stopped by the SPRT, only the groups up to
    each stream's decision (so the tables do not depend on how many extra matches were in
    flight when it stopped)."""
    streams = sprt_streams(manifest, records)
    if not streams:
        return records
    cut = {}
    if manifest["stop"]["test"] == "elo":
        for s in streams:
            if s["last_group"] is not None:
                cut[(s["variant"], s["table"])] = s["last_group"]
        return [r for r in records if r["g"] <= cut.get((r["v"], r["t"]), math.inf)]
    base = manifest["stop"]["baseline"]
    for s in streams:
        if s["last_group"] is not None:
            cut[s["variant"]] = s["last_group"]
    if len(cut) == len(streams):
        cut[base] = max(cut.values())
    return [r for r in records if r["g"] <= cut.get(r["v"], math.inf)]


# ---- the tables -------------------------------------------------------------------------------

def summarize(manifest, records):
    """All summary tables, in a fixed order."""
    records = sorted(used_records(manifest, records), key=sort_key)
    failed = [r for r in records if crashed(r)]
    records = [r for r in records if not crashed(r)]
    names = [e["name"] for e in manifest["lineup"]]
    variants = manifest["variants"]
    game = GAMES[variants[0].get("game", "cribbage")]
    tables = []
    entry_rows, variant_rows, paired_rows, forfeit_rows = [], [], [], []
    for v, rules in enumerate(variants):
        recs = [r for r in records if r["v"] == v]
        k = len(rules["sides"])
        objective = objective_of(rules.get("variants", ()))  # lowball: the lower score ranks higher
        # pairwise results
        pair = defaultdict(lambda: [0.0, 0])
        for r in recs:
            for a, b, sa in pairwise(r, k, objective):
                if a == b:
                    continue
                i, j, s = (a, b, sa) if a < b else (b, a, 1 - sa)
                pair[(i, j)][0] += s
                pair[(i, j)][1] += 1
        present = sorted({e for r in recs for e in r["sides"]})
        # win-rate matrix, row against column
        mat = Table(f"matrix_{rules['name']}", f"Win rate, row against column ({rules['name']}): "
                    "score [95% Wilson interval] (matches)", ["entry"] + [names[e] for e in present])
        for a in present:
            row = [names[a]]
            for b in present:
                if a == b:
                    row.append("")
                    continue
                s, n = pair.get((min(a, b), max(a, b)), (0.0, 0))
                sa = s if a < b else n - s
                row.append((*stats.wilson(sa, n), n) if n else "")
            mat.rows.append(row)
        tables.append(mat)
        # per entry: overall win rate and Elo
        idx = {e: i for i, e in enumerate(present)}
        bt = stats.bradley_terry(len(present), {(idx[i], idx[j]): (s, n) for (i, j), (s, n) in pair.items()}) \
            if len(present) >= 2 and pair else None
        for e in present:
            mine = [r for r in recs if e in r["sides"]]
            won = sum(1 for r in mine if r["winner"] >= 0 and r["sides"][r["winner"]] == e)
            drawn = sum(0.5 for r in mine if r["winner"] < 0 and not r["forfeit"] and k == 2)
            elo = Whole((bt["elo"][idx[e]], bt["elo"][idx[e]] - stats.Z95 * bt["se"][idx[e]],
                         bt["elo"][idx[e]] + stats.Z95 * bt["se"][idx[e]])) if bt else ""
            forfeits = sum(1 for r in mine if r["forfeit"] and r["forfeit"]["entry"] == e)
            entry_rows.append([rules["name"], names[e], (*stats.wilson(won + drawn, len(mine)), len(mine)), elo, forfeits])
        # per variant: the game's own columns, then the skill gap
        games = [g for r in recs for g in r["games"]]
        row = [rules["name"]] + game.variant_row(rules, games)
        label = gap = ""
        if bt and len(present) >= 2:
            order = sorted(present, key=lambda e: -bt["elo"][idx[e]])
            best, worst = order[0], order[-1]
            s, n = pair.get((min(best, worst), max(best, worst)), (0.0, 0))
            if n:
                label = f"{names[best]} vs {names[worst]}"
                gap = (*stats.wilson(s if best < worst else n - s, n), n)
        row += [label, gap]
        row.append(sum(1 for r in recs if r["forfeit"]))
        variant_rows.append(row)
        # paired statistics (two sides, groups of seatings)
        if manifest["paired"] and k == 2:
            by_t = defaultdict(list)
            for r in recs:
                by_t[r["t"]].append(r)
            for t, trs in sorted(by_t.items()):
                groups = _group_units(trs, manifest["per_group"][v])
                unit = [sum(_score_entry0(r) for r in g) / len(g) for g in groups]
                match_scores = [_score_entry0(r) for g in groups for r in g]
                a, b = sorted(manifest["tables"][v][t])
                counts = stats.pentanomial([u * 2 for u in unit]) if manifest["per_group"][v] == 2 else [""] * 5
                ratio = stats.variance_ratio(unit, match_scores)
                paired_rows.append([rules["name"], f"{names[a]} vs {names[b]}", len(groups), *counts,
                                    stats.mean_ci(unit), ratio, (1 / ratio) if ratio and ratio > 0 else math.nan])
        for r in recs:
            if r["forfeit"]:
                f = r["forfeit"]
                forfeit_rows.append([rules["name"], r["id"], names[f["entry"]], f["kind"], f["error"]])

    tables.append(Table("entries", "Entries: match win rate [95% Wilson] and Elo [95%] (Bradley-Terry, mean 0)",
                        ["variant", "entry", "win rate", "Elo", "forfeits"], entry_rows))
    tables.append(Table("variants", "Variants: per game and per deal, with 95% intervals",
                        ["variant"] + list(game.variant_headers) + ["best vs worst", "skill gap", "forfeits"],
                        variant_rows, transpose=True))
    if paired_rows:
        tables.append(Table("paired", "Paired deals: pair totals for the first entry (LL, LD, DD+WL, WD, WW), "
                            "mean score per pair, and the variance of that mean relative to unpaired matches",
                            ["variant", "table", "pairs", "0", "0.5", "1", "1.5", "2", "score per pair",
                             "variance ratio", "effective games x"], paired_rows))
    streams = sprt_streams(manifest, records)
    if streams:
        rows = []
        for s in streams:
            v = variants[s["variant"]]["name"]
            what = v if s["table"] is None else \
                f"{v}: " + " vs ".join(names[e] for e in sorted(manifest["tables"][s["variant"]][s["table"]]))
            res = s["result"]
            per = manifest["per_group"][s["variant"]]
            if s["table"] is None:  # first_dealer: the variant's and the baseline's groups
                per *= len(manifest["tables"][s["variant"]]) * 2
            rows.append([what, res["decision"] or "undecided", res["llr"], res["lower"], res["upper"], res["units"],
                         res["units"] * per])
        tables.append(Table("sprt", f"SPRT ({manifest['stop']['test']}): log-likelihood ratio, bounds, units "
                            "(groups of paired matches) and matches used",
                            ["test", "decision", "LLR", "lower", "upper", "units", "matches"], rows))
    for r in failed:
        forfeit_rows.append([variants[r["v"]]["name"], r["id"], "-", r["forfeit"]["kind"], r["forfeit"]["error"]])
    if forfeit_rows:
        tables.append(Table("forfeits", "Forfeits", ["variant", "match", "entry", "kind", "error"], forfeit_rows))
    return tables


# ---- formatting -------------------------------------------------------------------------------

def fmt_cell(c):
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


def csv_widths(rows, ncols):
    """Per column, how many CSV fields it takes: an interval column (value, lo, hi, n) keeps its
    width in every row, so a blank cell (the matrix diagonal) does not shift the columns."""
    return [max((len(r[i]) if isinstance(r[i], tuple) else 1) for r in rows) if rows else 1
            for i in range(ncols)]


def csv_cells(headers, row, widths=None):
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


def _num(x):
    if isinstance(x, float):
        return "" if math.isnan(x) else f"{x:.6f}"
    return x
