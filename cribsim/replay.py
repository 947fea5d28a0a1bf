"""Replaying game records (``cribsim replay``, ``cribsim games``): the rules a record carries,
each game played again by its game's engine, and the replayed outcome checked against the
recorded one."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from .errors import CribsimError
from .gamelog import MatchLog, RecordFileError
from .games import GAMES


def rules_of(log: MatchLog, where: str) -> Any:
    """The rules a record was played under, rebuilt from the record and checked against its
    fingerprint (a record whose rules were edited is refused)."""
    from .rules import rules_from_mapping

    if log.game not in GAMES:
        raise RecordFileError(f"cribsim: {where}: unknown game {log.game[:40]!r}")
    data = copy.deepcopy(log.rules)
    match = data.get("match")
    if isinstance(match, dict):  # the JSON form keeps the format's unused count as 0
        for k in ("games", "first_to"):
            if match.get(k) == 0:
                del match[k]
    try:
        rules = rules_from_mapping(data, source=where, default_game=log.game)
    except CribsimError as e:
        raise RecordFileError(f"cribsim: {where}: the record's rules are not valid ({str(e)[:200]})") from None
    if rules.fingerprint() != log.fingerprint:
        raise RecordFileError(f"cribsim: {where}: the record's rules do not match its fingerprint "
                              f"({rules.fingerprint()} against {log.fingerprint[:20]}): edited or damaged")
    return rules


def counters_of(log: MatchLog) -> list[tuple[float, float]] | None:
    return None if log.counters is None else [(c[0], c[1]) for c in log.counters]


def replay_game(log: MatchLog, game_no: int, where: str, rules: Any = None) -> Any:
    """Game ``game_no`` (0 first) of a record played again, with its events; its scores and
    winner checked against the record's."""
    if not 0 <= game_no < len(log.games):
        raise RecordFileError(f"cribsim: {where}: the match has {len(log.games)} game(s), not {game_no + 1}")
    rules = rules if rules is not None else rules_of(log, where)
    glog = log.games[game_no]
    here = f"{where}, game {game_no + 1}"
    result = GAMES[log.game].replay_game(rules, glog, log.seed, (log.match_key, game_no), counters_of(log), here)
    if list(result.scores) != list(glog.scores) or result.winner != glog.winner:
        raise RecordFileError(f"cribsim: {here}: the replay ends {_scores(result.scores)} (side {result.winner} "
                              f"wins), the record says {_scores(glog.scores)} (side {glog.winner})")
    return result


def replay_match(log: MatchLog, where: str) -> list[Any]:
    """Every game of a record played again and checked (see :func:`replay_game`)."""
    rules = rules_of(log, where)
    return [replay_game(log, g, where, rules) for g in range(len(log.games))]


def _scores(scores: Sequence[int]) -> str:
    return "-".join(str(s) for s in scores)
