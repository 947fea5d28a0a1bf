"""``cribsim dealstats DIR``: points per deal by role and source (the dealer's hand, the crib,
the pone's pegging, ...) over the deals that no end of the game can cut short, from a run's game
records, each game replayed on the engine (as ``cribsim replay`` does) to split its points by
deal.

Why. A game ends the instant a side reaches its target (R-WIN-1, R-SHOW-2), so its last deal is
cut short: the pone's pegging, the dealer's hand or the crib often go uncounted. The run's
summary divides each game's points by all its deals, the last one included, so a figure such as
"dealer hand/deal" there is lower than what a whole deal scores (about 7% for the hand and the
crib of a 9-deal game). Published per-deal figures (expert players' averages) count whole deals.
Leaving out each game's last deal would not do: near the end, the deals that do not end the game
are the low-scoring ones. So the "open deals" are those that start with every side at least
``OPEN`` (51) points short of its target: no deal scores that much for one side in practice, so
none of them is cut short, and which of them are counted does not depend on how they went.
Both figures are given: open deals, and every deal as the summary counts.

Every figure is a ratio of sums over games (a game is the cluster: its deals share a board),
with the delta-method 95% interval, from exact running sums (memory does not grow with the
games)."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from cribsim.errors import CribsimError
from cribsim.gamelog import read_logs, records_in
from cribsim.replay import replay_match, secret_for
from cribsim.tournament.aggregate import ratio_interval
from cribsim.tournament.analysis import csv_text, derived

from .engine.events import SOURCES

ROLES = ("dealer", "pone")
OPEN = 51  # a deal that starts with every side this far from its target cannot be cut short


Key = tuple[int, str]  # (role, source)


@dataclass
class Ratios:
    """Exact sums over games for R = sum(points) / sum(deals) of each (role, source), with the
    delta-method interval: per key the points' sum, sum of squares and sum of products with the
    deals (a key a game did not score in adds nothing), and the deals' sum and sum of squares."""

    games: int = 0
    deals: int = 0
    deals2: int = 0
    points: dict[Key, list[int]] = field(default_factory=dict)  # key -> [sum y, sum y^2, sum x y]

    def add(self, scored: dict[Key, int], deals: int) -> None:
        self.games += 1
        self.deals += deals
        self.deals2 += deals * deals
        for k, y in scored.items():
            cell = self.points.setdefault(k, [0, 0, 0])
            cell[0] += y
            cell[1] += y * y
            cell[2] += deals * y

    def interval(self, k: Key) -> tuple[float, float, float]:
        sy, syy, sxy = self.points.get(k, (0, 0, 0))
        return ratio_interval(self.games, sy, self.deals, syy, self.deals2, sxy)


@dataclass
class Tally:
    """One variant and table: its open deals' sums and every deal's (see the module doc)."""

    open: Ratios = field(default_factory=Ratios)
    every: Ratios = field(default_factory=Ratios)


def game_tally(result: Any, targets: Any, tally: Tally) -> None:
    """Add one replayed game (with its events and trail) to ``tally``. Deal k (counted from the
    game's first) is dealt by the first dealer's k-th successor; it is open when the scores at
    its start (the trail) leave every side ``OPEN`` points or more short of its target."""
    first = min((e.deal for e in result.events if e.deal >= 0), default=0)  # (-1: the cut for the deal)
    trail = result.trail
    open_deal = [all(s <= t - OPEN for s, t in zip(trail[2 * k], targets)) for k in range(result.deals)]
    opened: dict[Key, int] = defaultdict(int)
    every: dict[Key, int] = defaultdict(int)
    for e in result.events:
        if e.points and e.source in SOURCES and e.seat >= 0:
            k = e.deal - first
            key = ((e.seat - result.first_dealer - k) % 2, e.source)
            every[key] += e.points
            if open_deal[k]:
                opened[key] += e.points
    tally.open.add(opened, sum(open_deal))
    tally.every.add(every, result.deals)


def collect(out_dir: str | os.PathLike[str]) -> dict[str, Tally]:
    """Every recorded game of a run, by variant and table (the entries playing, in name order;
    two-player cribbage only)."""
    path = records_in(out_dir)
    secret = secret_for(path)
    by_variant: dict[str, Tally] = {}
    for n, log in read_logs(path):
        if log.game != "cribbage" or log.rules.get("players") != 2:
            raise CribsimError(f"cribsim dealstats: {path}, line {n}: variant {log.variant!r} is not two-player "
                               "cribbage (dealer and pone)")
        for result in replay_match(log, f"{path}, line {n}", secret):
            if result.winner >= 0:  # a forfeited game is not a game played to its end
                key = f"{log.variant}: {' vs '.join(sorted(log.entries))}"
                game_tally(result, result.targets, by_variant.setdefault(key, Tally()))
    if not by_variant:
        raise CribsimError(f"cribsim dealstats: {path} holds no finished game")
    return by_variant


def rows(by_variant: dict[str, Tally]) -> list[list[Any]]:
    """One row per table and (role, source) that scored in it, roles then sources in order."""
    out = []
    for variant, t in by_variant.items():
        seen = {k for k, (sy, _, _) in t.every.points.items() if sy}
        for k in sorted(seen, key=lambda k: (k[0], SOURCES.index(k[1]))):
            role, src = k
            out.append([variant, f"{ROLES[role]} {src}", *(round(x, 3) for x in t.open.interval(k)),
                        *(round(x, 3) for x in t.every.interval(k)), t.every.games, t.open.deals])
    return out


HEADERS = ["variant: table", "points per deal", "open deals", "lo", "hi", "every deal", "lo", "hi", "games",
           "open deals counted"]


def write_dealstats(out_dir: str, quiet: bool = False, out: str | None = None) -> list[list[Any]]:
    """dealstats.md and dealstats.csv (where :mod:`cribsim.tournament.analysis` says)."""
    with derived(out_dir, "dealstats", ("dealstats.md", "dealstats.csv"), out, listed=False) as d:
        table = rows(collect(d.run))
        md = [[r[0], r[1], f"{r[2]:.3f} [{r[3]:.3f}, {r[4]:.3f}]", f"{r[5]:.3f} [{r[6]:.3f}, {r[7]:.3f}]", r[8],
               r[9]] for r in table]
        text = (f"# {d.manifest.name}: points per deal by role and source\n\nOpen deals: those that start with "
                f"every side {OPEN} or more points short of its target (none is cut short by the end of the game). "
                "Every deal: as the run's summary counts (the last deal of each game included). 95% intervals over "
                "games (docs/metrics.md, \"Points per deal\").\n\n"
                + tabulate(md, headers=["variant: table", "points per deal", "open deals", "every deal", "games",
                                        "open deals counted"], tablefmt="github", disable_numparse=True) + "\n")
        d.write_text("dealstats.md", text)
        d.write_text("dealstats.csv", csv_text(HEADERS, table))
        if not quiet:
            print(text, end="")
        return table
