"""The pegging value of a kept hand, by its ranks and the seat's role, computed by the project
(``python -m strategies.pegtable``) and read by ``expert``'s discard.

Method. For two players, a cell is the multiset of four ranks kept (1,820 cells) and the role
of the keeper (dealer or pone). For each cell and role, Monte Carlo samples:
  1. the four kept cards (random suits of the cell's ranks), two thrown cards and the other
     player's six cards, all at random from the rest of the deck, and a starter;
  2. the other player discards two as ``ev`` does (the exact expected show of the four kept
     plus the crib tables' value of the two thrown, for its own crib or against ours);
  3. the play is played out on the engine's own play phase (``cribsim.engine.rollout``), both
     seats answering with ``ev``'s one-ply rule; the cell's value is the keeper's pegging minus
     the other player's (the go and last card included, his heels not: it is no one's choice).
Suits do not matter in the play, so a cell holds every keep of its ranks. Every cell of a role
draws the same random numbers (common random numbers: sample i shuffles the same deck for every
cell and takes the cell's cards out of it, so the other player is mostly dealt the same six),
and the differences between cells, which are what a discard compares, carry less noise than
each cell's own value. The shipped table
(strategies/data/peg_table.json) records its samples and seed; sampling error is reported by
cell (its standard error)."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations_with_replacement
from multiprocessing import Pool
from pathlib import Path
from typing import Any, cast

from cribsim.games.cribbage.cribtables import best_discard
from cribsim.games.cribbage.cribtables import load as crib_tables
from cribsim.games.cribbage.engine.rollout import PlayRollout
from cribsim.ruleset import load_rules
from strategies.ev import EVStrategy

DATA = Path(__file__).resolve().parent / "data" / "peg_table.json"
ROLES = ("dealer", "pone")


def cells() -> list[tuple[int, int, int, int]]:
    """Every multiset of four ranks (sorted), 1,820 of them."""
    return list(combinations_with_replacement(range(13), 4))


def cell_index(ranks: Sequence[int]) -> int:
    """A sorted four-rank multiset as one integer (base 13), for the flat lookup table."""
    a, b, c, d = sorted(ranks)
    return ((a * 13 + b) * 13 + c) * 13 + d


def _sample_cell(args: tuple[tuple[int, ...], str, int, int]) -> tuple[float, float]:
    """(mean, standard error) of the keeper's net pegging for one cell and role."""

    ranks, role, samples, seed = args
    rng = random.Random(f"{seed}-{role}")  # the same stream for every cell: common random numbers
    rules = load_rules("standard")
    policy = EVStrategy(random.Random(0)).one_ply
    me, other = (0, 1) if role == "dealer" else (1, 0)
    tables = crib_tables()
    # the other player's crib view: it deals when we are pone
    other_table, other_sign = (tables["own"], 1) if role == "pone" else (tables["opp"], -1)
    total = total_sq = 0.0
    for _ in range(samples):
        # a fixed number of draws per sample, whatever the cell: the suits of the kept cards, then
        # one shuffle of the whole deck, from which the kept cards are taken out
        picks = [rng.random() for _ in range(4)]
        deck = list(range(52))
        rng.shuffle(deck)
        keep: list[int] = []
        for r, u in zip(ranks, picks):
            free = [4 * r + s for s in range(4) if 4 * r + s not in keep]
            keep.append(free[int(u * len(free))])
        rest = [c for c in deck if c not in keep]
        thrown, six, starter = rest[0:2], rest[2:8], rest[8]
        their_throw = best_discard(six, other_table, other_sign)
        theirs = [c for c in six if c not in their_throw]
        view = rules.program.observation(me, me, rules, (0, 1))
        view.dealer, view.crib_owner, view.discarded = 0, 0, tuple(thrown)
        view.starter = starter
        roll = PlayRollout(view, policy)
        roll.at_start = True
        hands: list[list[int]] = [[], []]
        hands[me], hands[other] = keep, theirs
        pegged = roll.run(hands)
        net = pegged[me] - pegged[other]
        total += net
        total_sq += net * net
    mean = total / samples
    var = max(0.0, total_sq / samples - mean * mean)
    return mean, (var / samples) ** 0.5


def compute(samples: int = 1000, seed: int = 1, processes: int = 2) -> dict[str, Any]:
    table: dict[str, Any] = {"method": __doc__.split("Method.")[1].split("The shipped")[0].strip(),
                             "samples": samples, "seed": seed}
    jobs = [(c, role, samples, seed) for role in ROLES for c in cells()]
    with Pool(processes) as pool:
        vals = pool.map(_sample_cell, jobs, chunksize=8)
    for role in ROLES:
        table[role] = {}
    worst = 0.0
    for (c, role, *_), (mean, se) in zip(jobs, vals):
        table[role][",".join(map(str, c))] = round(mean, 4)
        worst = max(worst, se)
    table["largest_standard_error"] = round(worst, 4)
    return table


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    """The shipped table: {'dealer': {'r0,r1,r2,r3': value}, 'pone': {...}, ...}."""
    return cast("dict[str, Any]", json.loads(DATA.read_text()))


@lru_cache(maxsize=1)
def flat() -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(dealer, pone) values as flat tuples indexed by :func:`cell_index` (0 where no cell)."""
    t = load()
    out = []
    for role in ROLES:
        arr = [0.0] * 13 ** 4
        for key, v in t[role].items():
            arr[cell_index([int(x) for x in key.split(",")])] = v
        out.append(tuple(arr))
    return out[0], out[1]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Recompute the pegging table (see the module doc).")
    ap.add_argument("--samples", type=int, default=1000, help="samples per cell and role (default 1000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--out", default=str(DATA))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    table = compute(args.samples, args.seed, args.processes)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s; largest standard error "
          f"{table['largest_standard_error']}", file=sys.stderr)


if __name__ == "__main__":
    main()
