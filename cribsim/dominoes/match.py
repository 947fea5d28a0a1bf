"""Match play for Fives and Threes: games until a side has ``first_to`` game points (or a fixed
number of games). There are no skunks; the lead keeps rotating clockwise from game to game
(F-LEAD-1), the first game's leader drawn for."""

from ..match import MatchResult, make_strategies
from .engine import play_game


def play_match(rules, factories, seed, match_key, first_dealer=None, log=False):
    fmt = rules.match
    win_points = fmt.points_table()["win"]
    strategies = make_strategies(factories)
    points = [0] * len(rules.sides)
    result = MatchResult(-1, points)
    leader = first_dealer
    g = 0
    while True:
        game = play_game(rules, strategies, seed, (match_key, g), leader, log=log)
        result.games.append(game)
        result.skunks.append(0)
        points[game.winner] += win_points
        g += 1
        if fmt.games:
            if g >= fmt.games:
                best = max(points)
                leaders = [s for s, p in enumerate(points) if p == best]
                result.winner = leaders[0] if len(leaders) == 1 else -1
                return result
        elif points[game.winner] >= fmt.first_to:
            result.winner = game.winner
            return result
        leader = (game.last_leader + 1) % rules.players
