"""From result records to summary tables. Reads nothing but the manifest and the records (typed
:class:`cribsim.records.MatchRecord` objects), never rules code, and sorts them canonically, so the
same results give byte-identical tables however they arrived.

What the tables need to know about a game is in its record (its own sides, whether the first
dealer's side won, the sides ranked) or in the manifest's ``variant_info`` (whether lower scores
rank higher, the summary columns), written by the runner from the game module."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..escape import Foreign, csv_text, markdown_text, terminal_text
from ..names import file_stem
from ..records import Column, MatchRecord
from . import stats
from .aggregate import ColumnSums, Partial, halves_of_first
from .manifest import Manifest


@dataclass
class Table:
    name: str  # file stem
    title: str
    headers: list[str]
    # cells: str, int, float, (value, lo, hi), or a bot's string (Foreign: escaped where it is shown)
    rows: list[list[Any]] = field(default_factory=list)
    transpose: bool = False  # shown with one column per row (wide tables), CSV unchanged
    plot: tuple[str, ...] = ()  # headers of the columns to plot (the variants table)


class Said(str):
    """Words in a cell that has no figure, saying why (a skill gap between entries that never
    met): shown in the Markdown and terminal tables, blank in the CSV, which holds figures only."""

    __slots__ = ()


NO_GAMES = "no games"


class NoGames(tuple[float, ...]):
    """An interval over no games (a variant whose every match was forfeited or failed): shown
    as ``no games``, blank in the CSV."""

    __slots__ = ()


class Whole(tuple[float, ...]):
    """An interval shown in whole numbers (Elo)."""

    __slots__ = ()


def sort_key(rec: MatchRecord) -> tuple[int, int, int, int]:
    return rec.key


# ---- SPRT, shared with the runner --------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What the sequential test needs of a match with a result: its seating (the order within
    a group), the first entry's half-points, and the share of its games the first dealer's side
    won (None: no game)."""

    seating: int
    halves: int
    first_dealer: float | None


class SprtUnits:
    """The sequential test's view of the results: (variant, table) -> group -> outcomes, and the
    failed matches by stream. About 100 bytes a match, kept only for a run with ``stop:``."""

    def __init__(self) -> None:
        self.groups: dict[tuple[int, int], dict[int, list[Outcome]]] = defaultdict(dict)
        self.failed: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)  # (group, id)

    @classmethod
    def of(cls, records: Iterable[MatchRecord]) -> SprtUnits:
        u = cls()
        for r in records:
            u.add(r)
        return u

    def add(self, rec: MatchRecord) -> None:
        if rec.failed:
            self.failed[(rec.variant, rec.table)].append((rec.group, rec.id))
            return
        fd = sum(1.0 for g in rec.games if g.first_dealer_won) / len(rec.games) if rec.games else None
        self.groups[(rec.variant, rec.table)].setdefault(rec.group, []).append(
            Outcome(rec.seating, halves_of_first(rec), fd))

    def merge(self, other: SprtUnits) -> SprtUnits:
        for key, groups in other.groups.items():
            mine = self.groups[key]
            for g, outcomes in groups.items():
                mine.setdefault(g, []).extend(outcomes)
        for key, failed in other.failed.items():
            self.failed[key].extend(failed)
        return self

    def counts(self, used: Callable[[int, int, int], bool]) -> dict[tuple[int, int], list[int]]:
        """(variant, table) -> [matches, failed] of the groups ``used(variant, table, group)`` picks."""
        out: dict[tuple[int, int], list[int]] = {}
        for (v, t), groups in self.groups.items():
            n = sum(len(o) for g, o in groups.items() if used(v, t, g))
            if n:
                out.setdefault((v, t), [0, 0])[0] += n
        for (v, t), failed in self.failed.items():
            n = sum(1 for g, _ in failed if used(v, t, g))
            if n:
                counts = out.setdefault((v, t), [0, 0])
                counts[0] += n
                counts[1] += n
        return out

    def complete(self, v: int, t: int, per_group: int) -> list[list[Outcome]]:
        """The complete groups of a stream in group order, up to the first one that is not."""
        by_g = self.groups.get((v, t), {})
        out = []
        g = 0
        while len(by_g.get(g, ())) == per_group:
            out.append(sorted(by_g[g], key=lambda o: o.seating))
            g += 1
        return out


def sprt_streams(manifest: Manifest, units: SprtUnits) -> list[dict[str, Any]]:
    """Evaluate the configured SPRT on the canonical prefix of complete groups. Returns a list of
    dicts, one per test stream: {'variant', 'table', 'result', 'last_group'}; 'last_group' is the
    group at which the test decided (records after it are not used), or None."""
    stop = manifest.stop
    if stop is None:
        return []
    per = manifest.per_group
    streams = []
    if stop.test == "elo":
        for v, tables in enumerate(manifest.tables):
            for t in range(len(tables)):
                xs = [sum(o.halves / 2 for o in grp) / len(grp) for grp in units.complete(v, t, per[v])]
                res = stats.gsprt(xs, stop.mu0, stop.mu1, stop.alpha, stop.beta)
                streams.append({"variant": v, "table": t, "result": res,
                                "last_group": res["units"] - 1 if res["decision"] else None})
        return streams
    base = stop.baseline
    for v in range(len(manifest.variants)):
        if v == base:
            continue
        diffs = []
        gx = [units.complete(v, t, per[v]) for t in range(len(manifest.tables[v]))]
        gb = [units.complete(base, t, per[base]) for t in range(len(manifest.tables[base]))]
        n = min(len(x) for x in gx + gb)
        for g in range(n):
            xs = [o.first_dealer for t in range(len(gx)) for o in gx[t][g] if o.first_dealer is not None]
            bs = [o.first_dealer for t in range(len(gb)) for o in gb[t][g] if o.first_dealer is not None]
            if xs and bs:
                diffs.append(sum(xs) / len(xs) - sum(bs) / len(bs))
        res = stats.gsprt(diffs, stop.mu0, stop.mu1, stop.alpha, stop.beta)
        streams.append({"variant": v, "table": None, "result": res,
                        "last_group": res["units"] - 1 if res["decision"] else None})
    return streams


Used = Callable[[int, int, int], bool]  # (variant, table, group) -> whether the summary uses it


def used_by(manifest: Manifest, streams: Sequence[dict[str, Any]]) -> Used:
    """Which groups the summary uses: all, or for a run with a sequential test, only the groups
    up to each stream's decision (so the tables do not depend on how many extra matches were in
    flight when it stopped)."""
    if not streams or manifest.stop is None:
        return lambda v, t, g: True
    cut: dict[Any, int] = {}
    if manifest.stop.test == "elo":
        for s in streams:
            if s["last_group"] is not None:
                cut[(s["variant"], s["table"])] = s["last_group"]
        return lambda v, t, g: g <= cut.get((v, t), math.inf)
    for s in streams:
        if s["last_group"] is not None:
            cut[s["variant"]] = s["last_group"]
    if len(cut) == len(streams):
        cut[manifest.stop.baseline] = max(cut.values())
    return lambda v, t, g: g <= cut.get(v, math.inf)


def used_records(manifest: Manifest, records: Sequence[MatchRecord]) -> list[MatchRecord]:
    """The records the summary uses (:func:`used_by`) of a list of them."""
    used = used_by(manifest, sprt_streams(manifest, SprtUnits.of(records)))
    return [r for r in records if used(r.variant, r.table, r.group)]


# ---- the tables -------------------------------------------------------------------------------

def variant_columns(manifest: Manifest) -> list[Column]:
    """Every variant's columns, in order of first appearance (a variant lacking one shows blank)."""
    out: dict[str, Column] = {}
    for info in manifest.variant_info:
        for col in info.columns:
            out.setdefault(col.header, col)
    return list(out.values())


FAILED_ROW = "(failed: no result)"


def summarize(manifest: Manifest, records: Sequence[MatchRecord]) -> list[Table]:
    """All summary tables of a list of ``records``, in a fixed order (see :func:`tables`)."""
    streams = sprt_streams(manifest, SprtUnits.of(records))
    used = used_by(manifest, streams)
    return tables(manifest, Partial.of(manifest, (r for r in records if used(r.variant, r.table, r.group))), streams)


def tables(manifest: Manifest, partial: Partial, streams: Sequence[dict[str, Any]] = ()) -> list[Table]:
    """All summary tables from the merged sums of the records they use (and the sequential
    test's streams), in a fixed order: a matrix per variant, entries, variants, paired, sprt,
    forfeits."""
    names = manifest.entry_names
    columns = variant_columns(manifest)
    out: list[Table] = []
    entry_rows: list[list[Any]] = []
    variant_rows: list[list[Any]] = []
    paired_rows: list[list[Any]] = []
    for v, (rules, sums) in enumerate(zip(manifest.variants, partial.variants)):
        name = rules["name"]
        info = manifest.variant_info[v]
        pair = {key: (h / 2, n) for key, (h, n) in sums.pair.items()}
        present = sorted(sums.entries)
        out.append(_matrix(name, names, present, pair))
        idx = {e: i for i, e in enumerate(present)}
        bt = stats.bradley_terry(len(present), {(idx[i], idx[j]): sn for (i, j), sn in pair.items()}) \
            if len(present) >= 2 and pair else None
        for e in present:
            played, won, drawn, forfeits = sums.entries[e]
            elo = Whole((bt["elo"][idx[e]], bt["elo"][idx[e]] - stats.Z95 * bt["se"][idx[e]],
                         bt["elo"][idx[e]] + stats.Z95 * bt["se"][idx[e]])) if bt else ""
            entry_rows.append([name, names[e], (*stats.wilson(won + 0.5 * drawn, played), played), elo, forfeits])
        if sums.failed:  # matches with no result (a worker that kept dying): counted in a row of their own
            entry_rows.append([name, FAILED_ROW, "", "", sums.failed])
        mine = {c.header for c in info.columns}
        row = [name] + [_said(sums.columns.get(c.header, ColumnSums()), c) if c.header in mine else ""
                        for c in columns]
        row += _skill_gap(names, present, idx, bt, pair)
        row.append(sums.forfeited + sums.failed)  # the failed matches too: the forfeits table lists them
        variant_rows.append(row)
        for t, ps in sorted(sums.paired.items()):
            a, b = sorted(manifest.tables[v][t])
            paired_rows.append([name, f"{names[a]} vs {names[b]}", *ps.row(manifest.per_group[v])])
    out.append(Table("entries", "Entries: match win rate [95% Wilson] and Elo [95%] (Bradley-Terry, mean 0)",
                     ["variant", "entry", "win rate", "Elo", "forfeits"], entry_rows))
    out.append(Table("variants", "Variants: per game and per deal, with 95% intervals",
                     ["variant"] + [c.header for c in columns] + ["best vs worst", "skill gap", "forfeits"],
                     variant_rows, transpose=True, plot=tuple(c.header for c in columns if c.plot)))
    if paired_rows:
        out.append(Table("paired", "Paired deals: pair totals for the first entry (LL, LD, DD+WL, WD, WW), "
                         "mean score per pair, and the variance of that mean relative to unpaired matches",
                         ["variant", "table", "pairs", "0", "0.5", "1", "1.5", "2", "score per pair",
                          "variance ratio", "effective games x"], paired_rows))
    if streams:
        out.append(_sprt_table(manifest, names, list(streams)))
    forfeit_rows = _forfeit_rows(manifest, partial)
    if forfeit_rows:
        out.append(Table("forfeits", "Forfeits", ["variant", "match", "entry", "kind", "error"], forfeit_rows))
    return out


def _said(sums: ColumnSums, col: Column) -> Any:
    """A column's cell; a figure of no games says so (a variant whose every match was forfeited
    or failed), where its interval would be blank."""
    cell = sums.cell(col)
    return NoGames(cell) if sums.n == 0 and isinstance(cell, tuple) else cell


def _skill_gap(names: list[str], present: list[int], idx: dict[int, int], bt: dict[str, Any] | None,
               pair: dict[tuple[int, int], tuple[float, int]]) -> list[Any]:
    """The best and the worst entry by Elo, and the best's win rate against the worst; where the
    two never met (a gauntlet, a ladder of pairings), why that rate is blank."""
    if not bt or len(present) < 2:
        return ["", ""]
    order = sorted(present, key=lambda e: -bt["elo"][idx[e]])
    best, worst = order[0], order[-1]
    s, n = pair.get((min(best, worst), max(best, worst)), (0.0, 0))
    if not n:
        return [f"{names[best]} vs {names[worst]}", Said("never met (no such pairing)")]
    return [f"{names[best]} vs {names[worst]}", (*stats.wilson(s if best < worst else n - s, n), n)]


def _forfeit_rows(manifest: Manifest, partial: Partial) -> list[list[Any]]:
    """Every forfeit in the canonical order, then every failed match. The message is a bot's
    (its error reply, its exception): Foreign, escaped where it is shown."""
    rows = sorted(partial.forfeits, key=lambda f: (f.failed, f.key))
    names, variants = manifest.entry_names, manifest.variant_names
    return [[variants[f.key[0]], f.match, names[f.entry] if f.entry is not None and not f.failed else "-", f.kind,
             Foreign(f.error)] for f in rows]


def _matrix(variant: str, names: list[str], present: list[int],
            pair: dict[tuple[int, int], tuple[float, int]]) -> Table:
    """The win-rate matrix, row against column."""
    mat = Table(f"matrix_{file_stem(variant)}", f"Win rate, row against column ({variant}): "
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

def shown_cell(c: Any, fmt: str) -> str:
    """A cell as a table in tabulate's ``fmt`` shows it: a bot's string escaped for Markdown
    (``github``) or for the terminal (any other), any other cell as :func:`fmt_cell` writes it."""
    if isinstance(c, Foreign):
        return markdown_text(c) if fmt == "github" else terminal_text(c)
    return fmt_cell(c)


def fmt_cell(c: Any) -> str:
    if isinstance(c, NoGames):
        return NO_GAMES
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
    if isinstance(x, Said):  # (words for the tables shown; the CSV's cell is blank)
        return ""
    if isinstance(x, Foreign):  # a bot's string: never a formula to a spreadsheet
        return csv_text(x)
    if isinstance(x, float):
        return "" if math.isnan(x) else f"{x:.6f}"
    return x
