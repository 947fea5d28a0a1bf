"""Match play (R-MATCH-1..3): games until a side has N game points, or a fixed number of games.

Skunk lines come from the rules (they scale with the target, R-MATCH-1); game points from the
rules' table (R-MATCH-2); the loser of a game deals first in the next (R-MATCH-3)."""

import random
from dataclasses import dataclass, field

from .engine import play_game

NO_SKUNK, SKUNK, DOUBLE_SKUNK, TRIPLE_SKUNK = range(4)
SKUNK_NAMES = ("win", "skunk", "double_skunk", "triple_skunk")


@dataclass
class MatchResult:
    winner: int  # winning side, or -1 for a drawn fixed-length match
    game_points: list
    games: list = field(default_factory=list)  # GameResult per game
    skunks: list = field(default_factory=list)  # skunk level per game


def skunk_level(rules, loser_score):
    """0 none, 1 skunk, 2 double, 3 triple: the loser below each line (R-MATCH-1)."""
    level = NO_SKUNK
    for i, line in enumerate(rules.skunk_lines):
        if loser_score < line:
            level = i + 1
    return level


def game_skunk(rules, result):
    """The skunk level of a game. With several losing sides the best of them counts: a skunk
    means every opponent stayed below the line."""
    best_loser = max(s for side, s in enumerate(result.scores) if side != result.winner)
    return skunk_level(rules, best_loser)


def next_first_dealer(rules, result, previous_first_dealer):
    """R-MATCH-3: the loser deals first. The losing side is the lowest score; within it (or
    among tied sides) the seat nearest clockwise after the previous first dealer."""
    low = min(s for side, s in enumerate(result.scores) if side != result.winner)
    side_of = rules.side_of
    n = rules.players
    for i in range(1, n + 1):
        seat = (previous_first_dealer + i) % n
        side = side_of[seat]
        if side != result.winner and result.scores[side] == low:
            return seat
    raise AssertionError("no losing seat")


def game_points(rules, game, level, table):
    """{side: game points} for one game (R-MATCH-2 table, or R-MATCH-4 winner takes all:
    the winner 2; if only the third-placed is skunked the winner 3 and the second 1; if both
    are skunked the winner 3 and the second 0)."""
    if rules.match.scoring != "winner_takes_all":
        return {game.winner: table[SKUNK_NAMES[level]]}
    losers = sorted((s for s in range(len(game.scores)) if s != game.winner), key=lambda s: -game.scores[s])
    second, third = losers
    line = rules.skunk_lines[0]
    if game.scores[second] < line:  # both skunked
        return {game.winner: 3}
    if game.scores[third] < line:  # only the third
        return {game.winner: 3, second: 1}
    return {game.winner: 2}


def make_strategies(factories):
    """Fresh strategy instances for one match; generators are seeded per game by the engine."""
    return [make(random.Random()) for make in factories]


def play_match(rules, factories, seed, match_key, first_dealer=None, log=False, counters=None):
    """Play one match. ``factories`` make each seat's strategy (fresh per match);
    ``match_key`` addresses every deck of the match; ``first_dealer`` None cuts for it;
    ``counters`` (per seat: miss_rate, vigilance) models imperfect counting (V-MUGGINS)."""
    fmt = rules.match
    table = fmt.points_table()
    strategies = make_strategies(factories)
    points = [0] * len(rules.sides)
    result = MatchResult(-1, points)
    dealer = first_dealer
    g = 0
    while True:
        game = play_game(rules, strategies, seed, (match_key, g), dealer, log=log, counters=counters)
        level = game_skunk(rules, game)
        result.games.append(game)
        result.skunks.append(level)
        if level == TRIPLE_SKUNK and fmt.triple_skunk_wins_match:
            result.winner = game.winner
            return result
        for side, pts in game_points(rules, game, level, table).items():
            points[side] += pts
        g += 1
        if fmt.games:
            if g >= fmt.games:
                best = max(points)
                leaders = [s for s, p in enumerate(points) if p == best]
                result.winner = leaders[0] if len(leaders) == 1 else -1
                return result
        elif max(points) >= fmt.first_to:
            best = max(points)
            leaders = [s for s, p in enumerate(points) if p == best]
            result.winner = leaders[0] if len(leaders) == 1 else game.winner
            return result
        dealer = next_first_dealer(rules, game, game.first_dealer)
