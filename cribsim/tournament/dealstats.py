"""``cribsim dealstats DIR``: points per deal by role and source (the dealer's hand, the crib,
the pone's pegging, ...) over the deals that were played to the end of their show, from a
run's game records, each game replayed on the engine (as ``cribsim replay`` does) to split its
points by deal.

Why complete deals. A game ends the instant a side reaches its target (R-WIN-1, R-SHOW-2), so
its last deal is cut short: the pone's pegging, the dealer's hand or the crib often go uncounted.
The run's summary divides each game's points by all its deals, the last one included, so a
figure such as "dealer hand/deal" there is lower than what a complete deal scores (about 7% for
the hand and the crib of a 9-deal game). Published per-deal figures (expert players' averages)
count complete deals. Here both are given: every deal, and every deal but each game's last.

Every figure is a ratio of sums over games (a game is the cluster: its deals share a board),
with the delta-method 95% interval."""

from __future__ import annotations

import csv
import io
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.events import SOURCES
from ..errors import CribsimError
from ..gamelog import read_logs, records_in
from ..replay import replay_match
from .stats import ratio_ci

ROLES = ("dealer", "pone")
FIGURES = tuple((role, src) for role in range(2) for src in ("peg", "hand", "crib", "heels") if
                not (role == 1 and src in ("crib", "heels")))


@dataclass
class Tally:
    """Per game of one variant: (points by (role, source) over complete deals, complete deals,
    the same over every deal, every deal)."""

    full: list[dict[tuple[int, str], int]] = field(default_factory=list)
    full_deals: list[int] = field(default_factory=list)
    every: list[dict[tuple[int, str], int]] = field(default_factory=list)
    deals: list[int] = field(default_factory=list)


def game_tally(result: Any, tally: Tally) -> None:
    """Add one replayed game (with its events) to ``tally``: the dealer of each deal is the seat
    that turned its starter; the last deal is left out of the complete deals."""
    dealer: dict[int, int] = {}
    for e in result.events:
        if e.source == "starter":
            dealer[e.deal] = e.seat
    last = max(dealer) if dealer else -1
    full: dict[tuple[int, str], int] = defaultdict(int)
    every: dict[tuple[int, str], int] = defaultdict(int)
    for e in result.events:
        if e.points and e.source in SOURCES and e.deal in dealer and e.seat >= 0:
            key = ((e.seat - dealer[e.deal]) % 2, e.source)
            every[key] += e.points
            if e.deal != last:
                full[key] += e.points
    tally.full.append(full)
    tally.full_deals.append(max(0, len(dealer) - 1))
    tally.every.append(every)
    tally.deals.append(len(dealer))


def collect(out_dir: str | os.PathLike[str]) -> dict[str, Tally]:
    """Every recorded game of a run, by variant and table (the entries playing, in name order;
    two-player cribbage only)."""
    path = records_in(out_dir)
    by_variant: dict[str, Tally] = {}
    for n, log in read_logs(path):
        if log.game != "cribbage" or log.rules.get("players") != 2:
            raise CribsimError(f"cribsim dealstats: {path}, line {n}: variant {log.variant!r} is not two-player "
                               "cribbage (dealer and pone)")
        for result in replay_match(log, f"{path}, line {n}"):
            if result.winner >= 0:  # a forfeited game is not a game played to its end
                key = f"{log.variant}: {' vs '.join(sorted(log.entries))}"
                game_tally(result, by_variant.setdefault(key, Tally()))
    if not by_variant:
        raise CribsimError(f"cribsim dealstats: {path} holds no finished game")
    return by_variant


def rows(by_variant: dict[str, Tally]) -> list[list[Any]]:
    out = []
    for variant, t in by_variant.items():
        for role, src in FIGURES:
            k = (role, src)
            full = ratio_ci([g.get(k, 0) for g in t.full], t.full_deals)
            every = ratio_ci([g.get(k, 0) for g in t.every], t.deals)
            out.append([variant, f"{ROLES[role]} {src}", *(round(x, 3) for x in full),
                        *(round(x, 3) for x in every), len(t.deals), sum(t.full_deals)])
    return out


HEADERS = ["variant: table", "points per deal", "complete deals", "lo", "hi", "every deal", "lo", "hi", "games",
           "complete deals counted"]


def write_dealstats(out_dir: str, quiet: bool = False) -> list[list[Any]]:
    """dealstats.md and dealstats.csv in the results folder (listed in its manifest)."""
    from tabulate import tabulate

    from .report import _atomic_text, _list_files, _lock_for_report, _read

    out = Path(out_dir)
    lock = _lock_for_report(out)
    try:
        manifest, _ = _read(out)
        table = rows(collect(out))
        md = [[r[0], r[1], f"{r[2]:.3f} [{r[3]:.3f}, {r[4]:.3f}]", f"{r[5]:.3f} [{r[6]:.3f}, {r[7]:.3f}]", r[8],
               r[9]] for r in table]
        text = (f"# {manifest['name']}: points per deal by role and source\n\nComplete deals: every deal but each "
                "game's last (cut short when the game ends). Every deal: as the run's summary counts. 95% intervals "
                "over games (README, \"Points per deal\").\n\n"
                + tabulate(md, headers=["variant: table", "points per deal", "complete deals", "every deal", "games",
                                        "complete deals counted"], tablefmt="github", disable_numparse=True) + "\n")
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(HEADERS)
        w.writerows(table)
        written: list[str] = []
        try:
            _atomic_text(out / "dealstats.md", text)
            written.append("dealstats.md")
            _atomic_text(out / "dealstats.csv", buf.getvalue())
            written.append("dealstats.csv")
        except OSError as e:
            raise CribsimError(f"cribsim: cannot write in {out} ({e.strerror or e})") from None
        finally:
            _list_files(out, manifest, written)
        if not quiet:
            print(text, end="")
        return table
    finally:
        lock.release()
