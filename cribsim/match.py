"""Match play (R-MATCH-1..3): games until a side has N game points, or a fixed number of games.

Skunk lines come from the rules (they scale with the target, R-MATCH-1); game points from the
rules' table (R-MATCH-2); the loser of a game deals first in the next (R-MATCH-3)."""

import math
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


def skunk_level(rules, loser_score, lines=None):
    """0 none, 1 skunk, 2 double, 3 triple: the loser below each line (R-MATCH-1)."""
    level = NO_SKUNK
    for i, line in enumerate(lines or rules.skunk_lines):
        if loser_score < line:
            level = i + 1
    return level


def _lines(target):
    """R-MATCH-1 skunk lines scaled to a target."""
    return (math.ceil(3 * target / 4), math.ceil(target / 2), math.ceil(target / 4))


def game_skunk(rules, result):
    """The skunk level of a game. With several losing sides the best of them counts: a skunk
    means every opponent stayed below the line. With per-side targets (V-TEAM3) each loser is
    measured against the lines of its own target. With continued play (R-MATCH-5) the scores
    when the first winner went out count."""
    if result.first_scores is not None:
        return skunk_level(rules, max(s for i, s in enumerate(result.first_scores) if i != result.winner))
    losers = [s for s in range(len(result.scores)) if s != result.winner]
    if result.targets is None:
        return skunk_level(rules, max(result.scores[s] for s in losers))
    return min(skunk_level(rules, result.scores[s], _lines(result.targets[s])) for s in losers)


def _game_side_of(rules, result):
    if result.sides is None:
        return rules.side_of
    out = [0] * rules.players
    for i, side in enumerate(result.sides):
        for seat in side:
            out[seat] = i
    return out


def next_first_dealer(rules, result, previous_first_dealer):
    """R-MATCH-3: the loser deals first. The losing side is the lowest score; within it (or
    among tied sides) the seat nearest clockwise after the previous first dealer."""
    losing = [s for side, s in enumerate(result.scores) if side != result.winner]
    low = min(losing) if rules.objective > 0 else max(losing)  # lowball: the side at the target lost
    side_of = _game_side_of(rules, result)
    n = rules.players
    for i in range(1, n + 1):
        seat = (previous_first_dealer + i) % n
        side = side_of[seat]
        if side != result.winner and result.scores[side] == low:
            return seat
    raise AssertionError("no losing seat")


def winners(rules, result):
    """The match sides (lineup entries) that won a game: one, or both partners of a game-only
    partnership (V-TEAM3)."""
    if result.shared is not None:  # lowball: tied low scores share the win
        return tuple(result.shared)
    if result.sides is None:
        return (result.winner,)
    return tuple(sorted({rules.side_of[seat] for seat in result.sides[result.winner]}))


def game_points(rules, game, level, table):
    """{side: game points} for one game (R-MATCH-2 table, or R-MATCH-4 winner takes all:
    the winner 2; if only the third-placed is skunked the winner 3 and the second 1; if both
    are skunked the winner 3 and the second 0). Partners of a game-only partnership each
    score the game's points."""
    if rules.match.scoring == "continued":  # R-MATCH-5
        big = len(game.scores) == 5
        first = (4 if big else 2) + table[SKUNK_NAMES[level]] - table["win"]  # plus skunk bonuses
        pts = {game.placings[0]: first, game.placings[1]: 2 if big else 1}
        if big:
            pts[game.placings[2]] = 1
        return pts
    if rules.match.scoring != "winner_takes_all":
        return {side: table[SKUNK_NAMES[level]] for side in winners(rules, game)}
    losers = sorted((s for s in range(len(game.scores)) if s != game.winner), key=lambda s: -game.scores[s])
    second, third = losers
    line = rules.skunk_lines[0]
    if game.scores[second] < line:  # both skunked
        return {game.winner: 3}
    if game.scores[third] < line:  # only the third
        return {game.winner: 3, second: 1}
    return {game.winner: 2}


def settled(fmt, points, games_played, last_winner):
    """The match's winner once its format says it is over, else None: after a fixed number of
    games the most game points (-1 for a tie); first to N game points the leader (ties broken
    by the last game's winner)."""
    best = max(points)
    leaders = [s for s, p in enumerate(points) if p == best]
    if fmt.games:
        if games_played < fmt.games:
            return None
        return leaders[0] if len(leaders) == 1 else -1
    if best < fmt.first_to:
        return None
    return leaders[0] if len(leaders) == 1 else last_winner


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
        if level == TRIPLE_SKUNK and fmt.triple_skunk_wins_match and len(winners(rules, game)) == 1:
            result.winner = winners(rules, game)[0]
            return result
        for side, pts in game_points(rules, game, level, table).items():
            points[side] += pts
        g += 1
        over = settled(fmt, points, g, winners(rules, game)[0])
        if over is not None:
            result.winner = over
            return result
        dealer = next_first_dealer(rules, game, game.first_dealer)
