"""Match play (R-MATCH-1..5): games until a side has N game points, or a fixed number of games.

Skunk lines come from the rules (they scale with the target, R-MATCH-1); game points from the
rules' table (R-MATCH-2), or the three-player formats (R-MATCH-4 winner takes all, R-MATCH-5
continued play); the loser of a game deals first in the next (R-MATCH-3). Every format follows
the order in which the game ranked the sides (a reversed objective ranks the lowest first)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from cribsim.matchplay import MatchResult, make_strategies, settled

from .engine import GameResult, play_game

if TYPE_CHECKING:
    from cribsim.gamelog import MatchTape
    from cribsim.opening import Opening

    from .rules import Rules

NO_SKUNK, SKUNK, DOUBLE_SKUNK, TRIPLE_SKUNK = range(4)
SKUNK_NAMES = ("win", "skunk", "double_skunk", "triple_skunk")


def skunk_level(rules: Rules, loser_score: float, lines: Sequence[int] | None = None) -> int:
    """0 none, 1 skunk, 2 double, 3 triple: the loser below each line (R-MATCH-1)."""
    level = NO_SKUNK
    for i, line in enumerate(lines or rules.skunk_lines):
        if loser_score < line:
            level = i + 1
    return level


def _lines(target: float) -> tuple[int, int, int]:
    """R-MATCH-1 skunk lines scaled to a target."""
    return (math.ceil(3 * target / 4), math.ceil(target / 2), math.ceil(target / 4))


def game_skunk(rules: Rules, result: GameResult) -> int:
    """The skunk level of a game. With several losing sides the best of them counts: a skunk
    means every opponent stayed below the line. With per-side targets (V-TEAM3) each loser is
    measured against the lines of its own target. With continued play (R-MATCH-5) the scores
    when the first winner went out count."""
    if result.first_scores is not None:
        return skunk_level(rules, max(s for i, s in enumerate(result.first_scores) if i != result.winner))
    losers = [s for s in range(len(result.scores)) if s != result.winner]
    if not result.own_layout:
        return skunk_level(rules, max(result.scores[s] for s in losers))
    return min(skunk_level(rules, result.scores[s], _lines(result.targets[s])) for s in losers)


def next_first_dealer(rules: Rules, result: GameResult, previous_first_dealer: int) -> int:
    """R-MATCH-3: the loser deals first: the side ranked last; within it (or among sides tied
    with it) the seat nearest clockwise after the previous first dealer."""
    last = result.scores[result.order[-1]]
    side_of = result.side_of
    n: int = rules.players
    winners = set(result.shared or (result.winner,))
    for i in range(1, n + 1):
        seat = (previous_first_dealer + i) % n
        side = side_of[seat]
        if side not in winners and result.scores[side] == last:
            return seat
    raise AssertionError("no losing seat")


def winners(rules: Rules, result: GameResult) -> tuple[int, ...]:
    """The match sides (lineup entries) that won a game: one, the sides sharing the win, or
    both partners of a game-only partnership (V-TEAM3)."""
    if result.shared is not None:
        return tuple(result.shared)
    if not result.own_layout:
        return (result.winner,)
    return tuple(sorted({rules.side_of[seat] for seat in result.sides[result.winner]}))


def game_points(rules: Rules, game: GameResult, level: int, table: dict[str, int]) -> dict[int, int]:
    """{side: game points} for one game: the R-MATCH-2 table; R-MATCH-4 winner takes all (the
    winner 2; if only the third-placed is skunked the winner 3 and the second 1; if both are
    skunked the winner 3 and the second 0); R-MATCH-5 continued play (first 2, or 4 with five,
    plus skunk bonuses; second 1, or 2; with five a third 1). Places follow the game's ranking
    of the sides; sides sharing a win each score it. Partners of a game-only partnership each
    score the game's points."""
    scoring = rules.match.scoring
    won = winners(rules, game)
    if scoring == "table":
        return {side: table[SKUNK_NAMES[level]] for side in won}
    rest = [s for s in game.order if s not in won]
    if scoring == "continued":  # R-MATCH-5
        big = len(game.scores) == 5
        first = (4 if big else 2) + table[SKUNK_NAMES[level]] - table["win"]  # plus skunk bonuses
        pts = dict.fromkeys(won, first)
        # places after the first, counted from the sides that share it (a tie takes two places)
        for side, p in zip(rest, ((first, 2, 1) if big else (first, 1))[len(won):]):
            pts[side] = p
        return pts
    # R-MATCH-4: a player is skunked below the line only when higher scores win
    line: int = rules.skunk_lines[0]
    higher_wins: bool = rules.objective > 0

    def skunked(s: int) -> bool:
        return higher_wins and game.scores[s] < line

    if len(rest) < 2 or not skunked(rest[-1]):
        return dict.fromkeys(won, 2)
    if skunked(rest[0]):  # both skunked
        return dict.fromkeys(won, 3)
    return {**dict.fromkeys(won, 3), rest[0]: 1}


def after_game(rules: Rules, game: GameResult, points: list[int], played: int,
               table: dict[str, int] | None = None) -> tuple[int, int | None]:
    """Score a finished game into the match: its skunk level, the game points added to
    ``points`` (by side), and the match's winner once it is settled (None: play on)."""
    fmt = rules.match
    level = game_skunk(rules, game)
    if level == TRIPLE_SKUNK and fmt.triple_skunk_wins_match and len(winners(rules, game)) == 1:
        return level, winners(rules, game)[0]
    for side, pts in game_points(rules, game, level, table or fmt.points_table()).items():
        points[side] += pts
    return level, settled(fmt, points, played, winners(rules, game)[0])


def play_match(rules: Rules, factories: Sequence[Callable[[random.Random], Any]], seed: int, match_key: int,
               first_dealer: int | None = None, log: bool = False,
               counters: Sequence[tuple[float, float]] | None = None, opening: Opening | None = None,
               tape: MatchTape | None = None) -> MatchResult:
    """Play one match. ``factories`` make each seat's strategy (fresh per match);
    ``match_key`` addresses every deck of the match; ``first_dealer`` None cuts for it;
    ``counters`` (per seat: miss_rate, vigilance) models players who overlook points. An
    ``opening`` (a deal book's deals, a start position) starts every game of the match; a
    ``tape`` records every game (game records)."""
    strategies = make_strategies(factories)
    decks = start = None
    fixed = None
    if opening is not None:
        decks, start, fixed = opening.deck_map(), opening.scores, opening.dealer

    def one(dealer: int | None, game_no: int, points: tuple[int, ...]) -> GameResult:
        return play_game(rules, strategies, seed, (match_key, game_no), dealer, log=log, counters=counters,
                         match_score=points, decks=decks, start_scores=start,
                         tape=tape.game() if tape is not None else None)

    return games_until_settled(rules, one, first_dealer, fixed)


def games_until_settled(rules: Rules, play: Callable[[int | None, int, tuple[int, ...]], GameResult],
                        first_dealer: int | None, fixed_dealer: int | None = None) -> MatchResult:
    """A match's games, ``play(first dealer or None to cut, game number, game points so far)``
    each, until the match format is settled (R-MATCH-1..5): the one match loop of both lanes.
    ``fixed_dealer`` (an opening's) deals first in every game."""
    table = rules.match.points_table()
    points = [0] * len(rules.sides)
    result = MatchResult(-1, points)
    dealer = first_dealer
    g = 0
    while True:
        if fixed_dealer is not None:
            dealer = fixed_dealer
        game = play(dealer, g, tuple(points))
        g += 1
        level, over = after_game(rules, game, points, g, table)
        result.games.append(game)
        result.skunks.append(level)
        if over is not None:
            result.winner = over
            return result
        dealer = next_first_dealer(rules, game, game.first_dealer)
