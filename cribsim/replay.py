"""Replaying game records (``cribsim replay``): the rules a record carries, each game played
again by its game's engine, and the replayed outcome checked against the recorded one, game by
game (scores, winner, deals) and for the match (game points, winner, and that it ends where the
record ends)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import CribsimError
from .game import Rules
from .gamelog import GAMES_FILE, MatchLog, RecordFileError
from .games import game_named
from .ruleset import rules_from_dict
from .tournament.secret import commitment, read_secret, secret_seed


def rules_of(log: MatchLog, where: str) -> Rules:
    """The rules a record was played under, rebuilt from the record and checked against its
    fingerprint (a record whose rules were edited is refused) and against the record's shape."""
    try:
        game_named(log.game, where)
    except CribsimError:
        raise RecordFileError(f"cribsim: {where}: unknown game {log.game[:40]!r}") from None
    try:
        rules: Rules = rules_from_dict(log.rules, source=where, game=log.game)
    except CribsimError as e:  # its message names the record again: what follows that is what is wrong
        why = str(e).removeprefix("cribsim: ").removeprefix(f"{where}: ")
        raise RecordFileError(f"cribsim: {where}: the record's rules are not valid ({why[:300]})") from None
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


def deal_seed(log: MatchLog, secret: bytes | None, where: str) -> int:
    """The seed the record's decks follow from: its own, or with the run's deal secret (which
    must be the one the record names)."""
    if log.deal_secret is None:
        return log.seed
    if secret is None:
        raise RecordFileError(f"cribsim: {where}: the match was dealt with its run's deal secret: replay it from "
                              "its results folder, or give --deal-secret FOLDER (a folder holding its deal-secret)")
    if commitment(secret) != log.deal_secret:
        raise RecordFileError(f"cribsim: {where}: the deal secret given is not the one the match was dealt with "
                              f"(the record says {log.deal_secret[:40]})")
    return secret_seed(log.seed, secret)


def replay_game(log: MatchLog, game_no: int, where: str, rules: Rules | None = None,
                secret: bytes | None = None) -> Any:
    """Game ``game_no`` (0 first) of a record played again, with its events; its scores, winner
    and deals checked against the record's. The last game of a forfeited match is replayed as
    far as it went (its ``stopped`` says why). ``secret``: the run's deal secret, for a match
    dealt with one."""
    if not 0 <= game_no < len(log.games):
        raise RecordFileError(f"cribsim: {where}: the match has {len(log.games)} game(s), not {game_no + 1}")
    rules = rules if rules is not None else rules_of(log, where)
    glog = log.games[game_no]
    here = f"{where}, game {game_no + 1}"
    partial = log.forfeit is not None and game_no == len(log.games) - 1 and glog.winner < 0
    seed = deal_seed(log, secret, where)
    result = game_named(log.game).replay_game(rules, glog, seed, (log.match_key, game_no), counters_of(log), here,
                                              partial=partial)
    if partial:
        return result
    deals = result.deals
    if list(result.scores) != list(glog.scores) or result.winner != glog.winner or deals != glog.deals:
        raise RecordFileError(f"cribsim: {here}: the replay ends {_scores(result.scores)} (side {result.winner} "
                              f"wins, {deals} deals), the record says {_scores(glog.scores)} (side {glog.winner}, "
                              f"{glog.deals} deals)")
    return result


def replay_match(log: MatchLog, where: str, secret: bytes | None = None) -> list[Any]:
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
        r = replay_game(log, g, where, rules, secret)
        results.append(r)
        if r.winner >= 0:
            _, over = game.after_game(rules, r, points, g + 1)
    if log.forfeit is None and (over != log.winner or points != log.game_points):
        raise RecordFileError(f"cribsim: {where}: the replayed match ends {_scores(points)} in game points "
                              f"(winner {over}), the record says {_scores(log.game_points)} (winner {log.winner})")
    return results


def _scores(scores: Sequence[int]) -> str:
    return "-".join(str(s) for s in scores)


def secret_for(records: Path, given: str | None = None) -> bytes | None:
    """The deal secret to replay the records of ``records`` (a game records file) with: the one in
    ``given`` (a folder, ``--deal-secret``), else the one of the results folder holding the file
    (None: there is none)."""
    if given is not None:
        secret = read_secret(Path(given))
        if secret is None:
            raise CribsimError(f"cribsim: --deal-secret: {given} holds no deal-secret")
        return secret
    if records.parts[-2:] == Path(GAMES_FILE).parts:
        return read_secret(records.parent.parent)
    return None
