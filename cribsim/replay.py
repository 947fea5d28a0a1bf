"""Replaying game records (``cribsim replay``): the rules a record carries, each game played
again by its game's engine, and the replayed outcome checked against the recorded one, game by
game (scores, winner, deals) and for the match (game points, winner, and that it ends where the
record ends)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import CribsimError
from .game import Rules
from .gamelog import MatchLog, RecordFileError
from .games import game_named
from .ruleset import rules_from_dict


def rules_of(log: MatchLog, where: str) -> Rules:
    """The rules a record was played under, rebuilt from the record and checked against its
    fingerprint (a record whose rules were edited is refused) and against the record's shape."""
    try:
        game_named(log.game, where)
    except CribsimError:
        raise RecordFileError(f"cribsim: {where}: unknown game {log.game[:40]!r}") from None
    try:
        rules: Rules = rules_from_dict(log.rules, source=where, game=log.game)
    except CribsimError as e:
        raise RecordFileError(f"cribsim: {where}: the record's rules are not valid ({str(e)[:200]})") from None
    except Exception as e:  # a rules mapping no rules file would give (wrong types, nested too deep)
        raise RecordFileError(f"cribsim: {where}: the record's rules are not valid ({type(e).__name__})") from None
    if rules.fingerprint() != log.fingerprint:
        raise RecordFileError(f"cribsim: {where}: the record's rules do not match its fingerprint "
                              f"({rules.fingerprint()} against {log.fingerprint[:20]}): edited or damaged")
    if len(log.entries) != len(rules.sides) or (log.counters is not None and len(log.counters) != rules.players):
        raise RecordFileError(f"cribsim: {where}: the record names {len(log.entries)} sides; its rules have "
                              f"{len(rules.sides)}")
    return rules


def counters_of(log: MatchLog) -> list[tuple[float, float]] | None:
    return None if log.counters is None else [(c[0], c[1]) for c in log.counters]


def replay_game(log: MatchLog, game_no: int, where: str, rules: Rules | None = None) -> Any:
    """Game ``game_no`` (0 first) of a record played again, with its events; its scores, winner
    and deals checked against the record's. The last game of a forfeited match is replayed as
    far as it went (its ``stopped`` says why)."""
    if not 0 <= game_no < len(log.games):
        raise RecordFileError(f"cribsim: {where}: the match has {len(log.games)} game(s), not {game_no + 1}")
    rules = rules if rules is not None else rules_of(log, where)
    glog = log.games[game_no]
    here = f"{where}, game {game_no + 1}"
    partial = log.forfeit is not None and game_no == len(log.games) - 1 and glog.winner < 0
    result = game_named(log.game).replay_game(rules, glog, log.seed, (log.match_key, game_no), counters_of(log), here,
                                         partial=partial)
    if partial:
        return result
    deals = result.deals
    if list(result.scores) != list(glog.scores) or result.winner != glog.winner or deals != glog.deals:
        raise RecordFileError(f"cribsim: {here}: the replay ends {_scores(result.scores)} (side {result.winner} "
                              f"wins, {deals} deals), the record says {_scores(glog.scores)} (side {glog.winner}, "
                              f"{glog.deals} deals)")
    return result


def replay_match(log: MatchLog, where: str) -> list[Any]:
    """Every game of a record played again and checked (see :func:`replay_game`), then the match:
    its game points and winner, and that it was over exactly after its last game."""
    rules = rules_of(log, where)
    game = game_named(log.game)
    points = [0] * len(rules.sides)
    results, over = [], None
    for g in range(len(log.games)):
        if over is not None:
            raise RecordFileError(f"cribsim: {where}: the match was over after game {g}; the record has "
                                  f"{len(log.games)}")
        r = replay_game(log, g, where, rules)
        results.append(r)
        if r.winner >= 0:
            _, over = game.after_game(rules, r, points, g + 1)
    if log.forfeit is None and (over != log.winner or points != log.game_points):
        raise RecordFileError(f"cribsim: {where}: the replayed match ends {_scores(points)} in game points "
                              f"(winner {over}), the record says {_scores(log.game_points)} (winner {log.winner})")
    return results


def _scores(scores: Sequence[int]) -> str:
    return "-".join(str(s) for s in scores)
