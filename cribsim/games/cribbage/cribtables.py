"""Expected crib values of discards, computed by the project (``python -m cribsim.cribtables``).

Method. For two players, a cell is the discarded rank pair (r1 <= r2) and whether the two cards
share a suit. For each cell and each role, Monte Carlo samples:
  1. the two discards (random suits matching the cell), the discarder's other four cards and
     the other player's six cards, all at random from the rest of the deck;
  2. the other player discards two by expected value: the exact expected show of the four kept
     (over every starter it has not seen) plus the previous iteration's crib value of its two
     discards, added if the crib is its own (it deals) and subtracted if not;
  3. a starter from the remaining 40 cards; the crib (R-SHOW-6 flush rule) is scored.
Iteration 0 has the other player ignore the crib; iteration 1 uses iteration 0's tables (a
second iteration moves no value by more than the sampling error).
``own``: the discarder deals (the other player, as pone, throws defensively).
``opp``: the discarder is pone (the dealer throws to help the crib).
For three to five players (one discard each) ``single`` gives the crib's expected value given
one discarded rank, the other crib cards random: a simpler model, stated as such.
The shipped table (cribsim/games/cribbage/data/crib_tables.json) records its samples and seed.
Under another scoring (a rules file's ``scoring:`` block, S-DATA) :func:`for_scoring` computes
the same tables with that scoring's show on one core (200 samples a cell and role, under a minute)
the first time, and keeps them under the user's cache folder (``$XDG_CACHE_HOME/cribsim``, else
``~/.cache/cribsim``), keyed by the scoring: the same scoring gives the same tables everywhere."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from multiprocessing import Pool
from pathlib import Path
from typing import Any, cast

from cribsim.learnt import kept

from .cards import card
from .expect import expected_show
from .points import Scoring
from .scoring import STANDARD_SCORER, Scorer, scorer_for

DATA = Path(__file__).resolve().parent / "data" / "crib_tables.json"


def cells() -> list[tuple[int, int, bool]]:
    out = []
    for r1 in range(13):
        for r2 in range(r1, 13):
            out.append((r1, r2, False))
            if r1 != r2:
                out.append((r1, r2, True))
    return out


def cell_key(a: int, b: int) -> str:
    """The table key of two discarded cards."""
    r1, r2 = sorted((a >> 2, b >> 2))
    return f"{r1},{r2},{int(r1 != r2 and (a & 3) == (b & 3))}"


def best_discard(hand: Sequence[int], table: Mapping[str, float] | None, sign: int,
                 scorer: Scorer = STANDARD_SCORER) -> list[int]:
    best, best_throw = None, None
    for keep in combinations(hand, 4):
        throw = [c for c in hand if c not in keep]
        v = expected_show(keep, hand, False, scorer)
        if table is not None:
            v += sign * table[cell_key(*throw)]
        if best is None or v > best:
            best, best_throw = v, throw
    return cast("list[int]", best_throw)  # a hand of six has a best discard


Job = tuple[tuple[int, int, bool], str, int, int, Mapping[str, float] | None, Scoring | None]


def _sample_cell(args: Job) -> float:
    (r1, r2, suited), role, samples, seed, table, scoring = args
    scorer = STANDARD_SCORER if scoring is None else scorer_for(scoring)
    rng = random.Random(f"{seed}-{r1}-{r2}-{suited}-{role}")
    total = 0.0
    sign = -1 if role == "own" else 1  # the other player's view of the crib
    for _ in range(samples):
        s1 = rng.randrange(4)
        if r1 == r2:
            s2 = rng.choice([s for s in range(4) if s != s1])
        else:
            s2 = s1 if suited else rng.choice([s for s in range(4) if s != s1])
        mine = [card(r1, s1), card(r2, s2)]
        rest = [c for c in range(52) if c not in mine]
        rng.shuffle(rest)
        other_hand = rest[4:10]  # rest[0:4]: the discarder's kept cards
        thrown = best_discard(other_hand, table, sign, scorer)
        starter = rest[10 + rng.randrange(40)]
        total += scorer.show(mine + thrown, starter, crib=True)
    return total / samples


def _single(args: tuple[int, int, int, Scoring | None]) -> float:
    r, samples, seed, scoring = args
    show = (STANDARD_SCORER if scoring is None else scorer_for(scoring)).show
    rng = random.Random(f"{seed}-single-{r}")
    total = 0.0
    for _ in range(samples):
        mine = card(r, rng.randrange(4))
        rest = [c for c in range(52) if c != mine]
        picks = rng.sample(rest, 4)
        total += show([mine] + picks[:3], picks[3], crib=True)
    return total / samples


def compute(samples: int = 2000, seed: int = 1, iterations: int = 2, processes: int = 2,
            scoring: Scoring | None = None) -> dict[str, Any]:
    """The tables (see the module doc), with ``processes`` worker processes (1: in this one)."""
    table = {"method": __doc__.split("Method.")[1].split("The shipped")[0].strip(),
             "samples": samples, "seed": seed, "iterations": iterations}
    if scoring is not None:
        table["scoring"] = identity(scoring)
    prev: dict[str, Any] | None = None
    pool = Pool(processes) if processes > 1 else None
    run: Any = pool.map if pool is not None else lambda f, jobs, chunksize=1: list(map(f, jobs))
    try:
        for it in range(iterations):
            jobs: list[Job] = [(c, role, samples, seed + it, prev and prev[role], scoring)
                               for role in ("own", "opp") for c in cells()]
            vals = run(_sample_cell, jobs, chunksize=4)
            cur: dict[str, dict[str, float]] = {"own": {}, "opp": {}}
            for (c, role, *_), v in zip(jobs, vals):
                cur[role][f"{c[0]},{c[1]},{int(c[2])}"] = round(v, 4)
            prev = cur
        table.update(cast("dict[str, Any]", prev))  # iterations >= 1
        singles = run(_single, [(r, samples * 20, seed, scoring) for r in range(13)])
        table["single"] = {str(r): round(v, 4) for r, v in enumerate(singles)}
    finally:
        if pool is not None:
            pool.close()
    return table


SCORING_SAMPLES = 200  # samples a cell and role for a scoring's own tables (built once, on one core)


def for_scoring(scoring: Scoring) -> dict[str, Any]:
    """The crib tables under ``scoring``: the shipped ones for the standard game; otherwise built
    the first time (a progress line on stderr) and read from the cache folder after that. The
    tables depend on the show alone, so scorings that differ only in the play share them."""
    scoring = scoring.show_only()
    if scoring.standard:
        return load()
    kept = _BUILT.get(scoring)
    if kept is None:
        kept = _BUILT[scoring] = _from_disk_or_built(scoring)
    return kept


_BUILT: dict[Scoring, dict[str, Any]] = {}  # this process's tables by scoring (read or built once)


def identity(scoring: Scoring) -> dict[str, int]:
    """What the tables of ``scoring`` are kept under: its keys, and the crib's flush too where it
    names ``hand_flush`` (its cribs hold four cards). Until the rule book's edition of 2026-12-06
    (S-DATA-4) a named ``hand_flush`` set the crib's flush as well: tables kept then are not read."""
    key = scoring.to_dict()
    if "hand_flush" in key:
        key.setdefault("crib_flush", scoring.crib_flush_points(4))
    return key


def _valid(tables: Any, scoring: Scoring) -> bool:
    """Whether a cache file holds the tables of ``scoring`` (anything else is built again)."""
    return (isinstance(tables, dict) and tables.get("scoring") == identity(scoring)
            and all(isinstance(tables.get(k), dict) for k in ("own", "opp", "single"))
            and len(tables["own"]) == len(tables["opp"]) == len(cells()) and len(tables["single"]) == 13)


def _from_disk_or_built(scoring: Scoring) -> dict[str, Any]:
    key = json.dumps(identity(scoring), sort_keys=True)
    name = f"crib_tables-{hashlib.sha256(key.encode()).hexdigest()[:16]}-{SCORING_SAMPLES}.json"
    return kept(name, lambda tables: _valid(tables, scoring),
                lambda: compute(SCORING_SAMPLES, 1, 2, processes=1, scoring=scoring),
                f"building ev's crib tables for the scoring {key} (once, under a minute on one core)")


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    """The shipped tables: {'own': {key: value}, 'opp': {...}, 'single': {rank: value}}."""
    tables: dict[str, Any] = json.loads(DATA.read_text())
    return tables


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Recompute the expected crib tables (see the module doc).")
    ap.add_argument("--samples", type=int, default=2000, help="samples per cell and role (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--out", default=str(DATA))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    table = compute(args.samples, args.seed, args.iterations)
    Path(args.out).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
