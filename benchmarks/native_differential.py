"""The native lane against the Python engine over many seeds: every shipped rules file in the
lane's family, four lineups each (all ``random``, all ``greedy``, all ``ev``, the three in
turn), and scoring blocks drawn at random with any of the three in each seat, each game compared
field by field (the ``GameResult`` and its record). Every fourth game the seats overlook points
(a counting model drawn from the match key: V-MUGGINS gives them away, other rules lose them).
ev's crib tables for a drawn show are built with 10 samples a cell, in a folder of the run's
own: both lanes read the same tables, which is what is compared. The designer's variants of
``examples/variants`` that the lane plays with their hooks called in Python (an ``after_count``
and nothing more: ``lane.LaneHooks``) are compared the same way. The suite's
``tests/cribbage/test_native.py`` and ``test_lane_hooks.py`` play a dozen games of each; this
plays thousands.

    python benchmarks/native_differential.py [--games N] [--blocks B] [--only NAME ...]

Prints one line per rules file, then the games compared and the differences found (last)."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cribsim.errors import EndlessGame  # noqa: E402
from cribsim.games.cribbage import cribtables  # noqa: E402
from cribsim.games.cribbage.engine import play_game  # noqa: E402
from cribsim.games.cribbage.native import lane  # noqa: E402
from cribsim.games.cribbage.rules import build_rules  # noqa: E402
from cribsim.ruleset import load_rules  # noqa: E402
from cribsim.strategy import factory  # noqa: E402
from tests.cribbage.test_native import FAMILY, _lineups, _random_scoring, counters_at  # noqa: E402


def endless_or(play, *args, **kwargs):
    """``play(*args, **kwargs)``, a game's result, or None where the game did not end within the
    engine's deals."""
    try:
        return play(*args, **kwargs)
    except EndlessGame:
        return None


def compare(rules, names, seed: int, games: int) -> int:
    """Games at (m, m % 3) for m < games in both lanes (every fourth with a counting model); how
    many differ."""
    native = lane.fast_lane(rules, [(n, {}) for n in names])
    assert native is not None
    seats = range(len(names))
    bad = 0
    for m in range(games):
        counters = counters_at(m, len(names)) if m % 4 == 3 else None
        py = endless_or(play_game, rules, [factory(n)(random.Random()) for n in names], seed, (m, m % 3),
                        counters=counters)
        na = endless_or(native.play_game, seed, (m, m % 3), None, seats, counters)
        if py is None or na is None:  # players who overlook most points may never end a game: both lanes say so
            bad += (py is None) != (na is None)
        else:
            bad += py.__dict__ != na.__dict__ or py.record(1, rules) != na.record(1, rules)
    return bad


def _hooked(path: Path) -> bool:
    """Whether a file of examples/variants is a rules file whose variant the lane plays with its
    hooks in Python."""
    try:
        rules = load_rules(str(path))
    except Exception:  # (an experiment config beside them)
        return False
    return lane.refusal(rules) is None and bool(lane.hooked(rules))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000, help="games per rules file and lineup")
    ap.add_argument("--blocks", type=int, default=100, help="scoring blocks drawn at random (100 games each)")
    ap.add_argument("--only", nargs="*", default=None, metavar="NAME",
                    help="only these rules files (by their names: standard, crib3, ...)")
    args = ap.parse_args()
    if lane.module() is None:
        sys.exit(f"native_differential: {lane.status()}")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="native-differential-")
    cribtables.SCORING_SAMPLES = 10
    total = bad = 0
    t0 = time.perf_counter()
    examples = Path(__file__).resolve().parents[1] / "examples" / "variants"
    hooked = [str(f) for f in sorted(examples.glob("*.yaml")) if _hooked(f)]
    for preset in [*FAMILY, *hooked]:
        rules = load_rules(preset)
        if args.only is not None and rules.name not in args.only:
            continue
        lineups = _lineups(rules.players)
        found = sum(compare(rules, names, 20261202, args.games) for names in lineups)
        total += len(lineups) * args.games
        bad += found
        print(f"{rules.name}: {len(lineups) * args.games:,} games, {found} different", flush=True)
    rnd, blocks = random.Random(1), 0
    while blocks < args.blocks:
        players = rnd.choice([2, 2, 3, 4, 5])
        data = {"players": players, "target": rnd.choice([31, 61, 121]), "scoring": _random_scoring(rnd)}
        try:
            rules = build_rules(data, "drawn")
        except Exception:
            continue
        found = compare(rules, tuple(rnd.choice(["random", "greedy", "ev", "hoyle"]) for _ in range(players)), blocks,
                        100)
        total += 100
        bad += found
        blocks += 1
    print(f"{args.blocks} scoring blocks drawn at random: {100 * args.blocks:,} games")
    print(f"{total:,} games compared in {time.perf_counter() - t0:.0f} s: {bad} different")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
