"""The board: the dealer's chance to win the standard two-player game from every pair of scores
at the start of a deal, computed by the project (``python -m strategies.boardtable``) and read by
``expert`` to value the end of a deal by the game it leaves, not by its points.

Method. ``ev`` plays ``ev`` (standard 121, the engine's ``play_game``); from every deal that
starts with both scores at 70 or less (so no deal is cut short by the end of the game) the
game's trail gives what the deal scored: the dealer's and the pone's points in the play (his
heels with the dealer's), the pone's show and the dealer's show (hand and crib). Then, from the
highest pairs of scores down, ``win[d][p]`` (the dealer at d, the pone at p, both below 121) is
the mean over those deals of: 1 if only the dealer reaches 121 in the play, 0 if only the pone
does, 1/2 if both do (the order within the play is not kept), else 0 if the pone's show takes
the pone there (the pone counts first, R-SHOW-1), 1 if the dealer's show does, else one minus
the new dealer's chance from the new scores (the deal passes). Every deal scores at least the
last card, so the recursion ends. The shipped table records its games and seed."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.native import lane
from cribsim.games.cribbage.strategy import missing_for
from cribsim.ruleset import load_rules
from strategies.ev import EVStrategy

DATA = Path(__file__).resolve().parent / "data" / "board_table.json"
TARGET = 121
LATEST_START = 70


def deal_outcomes(games: int, seed: int) -> list[tuple[int, int, int, int]]:
    """(dealer's play, pone's play, pone's show, dealer's show) of every deal that started with
    both scores at ``LATEST_START`` or less, from ``games`` games of ``ev`` against ``ev``."""

    rules = load_rules("standard")
    out = []
    for i in range(games):
        seats = [EVStrategy(random.Random(f"{seed}-{i}-{s}")) for s in range(2)]
        out += game_outcomes(play_game(rules, seats, seed, (i, 0)), LATEST_START, TARGET)
    return out


def game_outcomes(result: Any, latest_start: int, target: int) -> list[tuple[int, int, int, int]]:
    """(dealer's play, pone's play, pone's show, dealer's show) of every deal of a two-player
    game's result (its trail: the scores by side at the start, then after each deal's play and
    show) that started with both scores at ``latest_start`` or less and did not reach
    ``target``."""
    out = []
    trail = result.trail
    for k in range((len(trail) - 1) // 2):
        start, played, shown = trail[2 * k], trail[2 * k + 1], trail[2 * k + 2]
        dealer = result.side_of[(result.first_dealer + k) % 2]
        if max(start) > latest_start or max(shown) >= target:
            continue
        pone = 1 - dealer
        out.append((played[dealer] - start[dealer], played[pone] - start[pone],
                    shown[pone] - played[pone], shown[dealer] - played[dealer]))
    return out


def solve(outcomes: Sequence[tuple[int, int, int, int]], target: int = TARGET) -> list[list[float]]:
    """``win[d][p]``: the dealer's chance from (d, p), by the recursion in the module doc."""
    import numpy as np

    rows, counts = np.unique(np.array(outcomes, dtype=np.int64), axis=0, return_counts=True)
    w = counts / counts.sum()
    pd, pp, ph, ds = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    win = np.zeros((target + 1, target + 1))
    for total in range(2 * (target - 1), -1, -1):  # every pair of one total at once (each deal scores: later totals)
        d = np.arange(max(0, total - target + 1), min(target - 1, total) + 1)[:, None]
        p = total - d
        d1, p1 = d + pd, p + pp
        d_out, p_out = d1 >= target, p1 >= target
        p2 = p1 + ph
        d2 = d1 + ds
        nxt = 1.0 - win[np.minimum(p2, target), np.minimum(d2, target)]
        v = np.where(p2 >= target, 0.0, np.where(d2 >= target, 1.0, nxt))
        v = np.where(d_out & p_out, 0.5, np.where(d_out, 1.0, np.where(p_out, 0.0, v)))
        win[d[:, 0], p[:, 0]] = v @ w
    return [[round(float(win[d, p]), 4) for p in range(target)] for d in range(target)]


def fits(rules: Any) -> bool:
    """Whether a board table describes ``rules``: two players on two sides, six cards dealt and
    two thrown each from the standard deck, scored high, a target the table holds, and nothing
    asked after the discard but the play (:func:`asked_before_the_discard`: a deal sampled from
    the discard, or from a card of the play, runs to the end of its show with nothing else
    asked)."""
    return (rules.players == 2 and len(rules.sides) == 2 and rules.deal == rules.dealer_deal == 6
            and rules.discard == rules.dealer_discard == 2 and rules.deck_size == 52 and rules.objective > 0
            and asked_before_the_discard(rules.program) and 2 <= rules.target <= 1000)


def asked_before_the_discard(program: Any) -> bool:
    """Whether every decision of ``program`` but the discard and the play is asked by a phase
    before the discard (a variant's after the deal: the pone's offer of the crib, a bid for it),
    so that what follows a discard is the standard deal's."""
    before = program.phases_before("discard")
    if before is None:
        return False
    return set(program.decisions) - {"discard", "play"} <= {p.decision for p in before if p.decision}


def learn(rules: Any, games: int, seed: int = 1) -> list[list[float]] | None:
    """The board table of ``rules`` by the method above, from ``games`` games of ``ev`` against
    ``ev`` under those rules (in the native lane where it plays them: the same games, faster),
    the deals counted those that start at most as far from the target as 70 is from 121; None
    where no table fits (:func:`fits`), where ``ev`` cannot play the games (a designer's decision
    that it does not answer and that has no default), or where a deal of those games takes
    points back (the auction's bid paid: the recursion needs every deal to add points)."""
    if not fits(rules) or missing_for(EVStrategy, rules):  # (ev plays the games: every decision its own or a default)
        return None
    play = _games_of(rules, seed)
    latest = max(0, rules.target - (TARGET - LATEST_START))
    outcomes = [o for i in range(games) for o in game_outcomes(play(i), latest, rules.target)]
    if not outcomes or any(min(o) < 0 for o in outcomes):
        return None  # (points taken back in a deal, a bid paid: the table is solved from the highest scores down)
    return solve(outcomes, rules.target)


def _games_of(rules: Any, seed: int) -> Any:
    """``play(i)``: game 0 of match key ``i`` of ev against ev, the first dealer cut."""
    seat = lane.seat_for(rules, "ev", {}) if lane.module() is not None and lane.refusal(rules) is None else None
    if seat is not None:
        native = lane.NativeLane(rules, (seat, seat))
        return lambda i: native.play_game(seed, (i, 0), None, (0, 1))
    seats = [EVStrategy(random.Random(seed)), EVStrategy(random.Random(seed + 1))]
    return lambda i: play_game(rules, seats, seed, (i, 0))


def compute(games: int = 40_000, seed: int = 1) -> dict[str, Any]:
    outcomes = deal_outcomes(games, seed)
    return {"method": __doc__.split("Method.")[1].split("The shipped")[0].strip(), "games": games, "seed": seed,
            "deals": len(outcomes), "target": TARGET, "dealer_wins": solve(outcomes)}


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    """The shipped table: {'dealer_wins': [[...] * 121] * 121, 'target': 121, ...}."""
    return cast("dict[str, Any]", json.loads(DATA.read_text()))


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Recompute the board table (see the module doc).")
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(DATA))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    table = compute(args.games, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(table, separators=(",", ":")) + "\n")
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s from {table['deals']} deals", file=sys.stderr)


if __name__ == "__main__":
    main()
