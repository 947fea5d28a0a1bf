"""Game records: a whole match, action by action, replayable without cribsim's random streams.

A run with ``record:`` writes them to ``<results>/games/games.jsonl.gz``: one JSON object per line
(a :class:`MatchLog`), lines gathered into gzip members, one member per batch of results as it
arrives (a torn last member, from a crash, is cut off when the run resumes). A record holds the
rules themselves and their fingerprint, the seed and the match's key (the address of every
random draw), the lineup entry and strategy at each side, the outcome, and per game
(:class:`GameLog`) the first dealer and the cut that chose them, the start position, the deck
of every deal in dealing order, the counting model's draws (muggins) and every answer the seats
gave, in order. Replaying (:func:`cribsim.games.Game.replay_game`) feeds the decks and the
answers to the engine's own state machine, so a record also checks itself: an answer the rules
refuse, or scores that differ from the recorded ones, is an error.

The format is versioned (``"format": "cribsim-game-record", "version": 1``) and documented in
the README ("Game records")."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CribsimError

FORMAT = "cribsim-game-record"
VERSION = 1
GAMES_DIR = "games"
GAMES_FILE = "games/games.jsonl.gz"  # relative to a results folder
COMPRESSION = 3  # gzip level: 1 writes 9% more bytes; 6 takes 4x the time for 13% fewer
MAX_LINE = 50_000_000  # characters of one record (a match of many long games is ~100 kB)


class RecordFileError(CribsimError):
    """A game record that cannot be read or replayed: names the file and the line (exit 2)."""


@dataclass
class GameLog:
    """One game: the first dealer (leader), the cut (draw) that chose them as ``[seat, card]``
    pairs in order (empty when the dealer was given), the scores it started from (None: 0 each)
    and the match score before it, the deck of each deal (cards, or tiles, in dealing order), the
    counting model's draws, every answer in order, and the outcome (winning side, scores by side,
    deals played)."""

    first_dealer: int
    decks: list[list[int]]
    actions: list[Any]
    winner: int = -1
    scores: list[int] = field(default_factory=list)
    deals: int = 0
    cuts: list[list[int]] = field(default_factory=list)
    chance: list[float] = field(default_factory=list)
    start_scores: list[int] | None = None
    match_score: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"first_dealer": self.first_dealer, "winner": self.winner, "scores": self.scores,
                             "deals": self.deals, "match_score": self.match_score, "decks": self.decks,
                             "actions": self.actions}
        if self.cuts:
            d["cuts"] = self.cuts
        if self.chance:
            d["chance"] = self.chance
        if self.start_scores is not None:
            d["start_scores"] = self.start_scores
        return d

    @classmethod
    def from_json(cls, d: Any) -> GameLog:
        if not isinstance(d, dict):
            raise ValueError("a game is not an object")
        return cls(first_dealer=_int(d, "first_dealer"), decks=[_ints(x, "decks") for x in _list(d, "decks")],
                   actions=[tuplify(a) for a in _list(d, "actions")], winner=_int(d, "winner"),
                   scores=_ints(d.get("scores"), "scores"), deals=_int(d, "deals"),
                   cuts=[_ints(x, "cuts") for x in d.get("cuts", [])],
                   chance=[float(x) for x in d.get("chance", [])],
                   start_scores=None if d.get("start_scores") is None else _ints(d["start_scores"], "start_scores"),
                   match_score=_ints(d.get("match_score", []), "match_score"))


@dataclass
class MatchLog:
    """One match: its id in the run (``variant.table.group.seating``), the experiment, the
    variant's name, game and rules (as a rules file would give them) and fingerprint, the seed
    and match key, the lineup entry (name) and strategy at each side, each seat's counting
    model (None: perfect counters), the winning side (-1: none), game points by side, and the
    games."""

    id: str
    experiment: str
    variant: str
    game: str
    rules: dict[str, Any]
    fingerprint: str
    seed: int
    match_key: int
    entries: list[str]
    strategies: list[str]
    winner: int
    game_points: list[int]
    games: list[GameLog]
    counters: list[list[float]] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "id": self.id, "experiment": self.experiment,
            "variant": self.variant, "game": self.game, "fingerprint": self.fingerprint, "rules": self.rules,
            "seed": self.seed, "match_key": self.match_key, "entries": self.entries, "strategies": self.strategies,
            "winner": self.winner, "game_points": self.game_points, "games": [g.to_json() for g in self.games]}
        if self.counters is not None:
            d["counters"] = self.counters
        return d

    @classmethod
    def from_json(cls, d: Any) -> MatchLog:
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        if d.get("format") != FORMAT:
            raise ValueError(f"not a cribsim game record (format {str(d.get('format'))[:40]!r})")
        if d.get("version") != VERSION:
            raise ValueError(f"game record version {str(d.get('version'))[:20]}, this cribsim reads version {VERSION}")
        rules = d.get("rules")
        if not isinstance(rules, dict):
            raise ValueError("field 'rules' is not a mapping")
        counters = d.get("counters")
        return cls(id=_str(d, "id"), experiment=_str(d, "experiment"), variant=_str(d, "variant"),
                   game=_str(d, "game"), rules=rules, fingerprint=_str(d, "fingerprint"), seed=_int(d, "seed"),
                   match_key=_int(d, "match_key"), entries=[str(x) for x in _list(d, "entries")],
                   strategies=[str(x) for x in _list(d, "strategies")], winner=_int(d, "winner"),
                   game_points=_ints(d.get("game_points"), "game_points"),
                   games=[GameLog.from_json(g) for g in _list(d, "games")],
                   counters=None if counters is None else [[float(x) for x in c] for c in counters])


def tuplify(a: Any) -> Any:
    """An answer as the engine's strategies give it: JSON lists back to tuples, recursively."""
    if isinstance(a, list):
        return tuple(tuplify(x) for x in a)
    return a


def _get(d: dict[str, Any], k: str) -> Any:
    if k not in d:
        raise ValueError(f"field {k!r} is missing")
    return d[k]


def _int(d: dict[str, Any], k: str) -> int:
    v = _get(d, k)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"field {k!r} is not a whole number")
    return v


def _str(d: dict[str, Any], k: str) -> str:
    v = _get(d, k)
    if not isinstance(v, str):
        raise ValueError(f"field {k!r} is not text")
    return v


def _list(d: dict[str, Any], k: str) -> list[Any]:
    v = _get(d, k)
    if not isinstance(v, list):
        raise ValueError(f"field {k!r} is not a list")
    return v


def _ints(v: Any, k: str) -> list[int]:
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ValueError(f"field {k!r} is not a list of whole numbers")
    return v


# ---- recording (the engines call these while a match is played) ---------------------------------

class GameTape:
    """What a game leaves while it is played with ``record``: decks, answers, cuts, draws."""

    __slots__ = ("decks", "actions", "cuts", "chance", "start_scores", "match_score")

    def __init__(self) -> None:
        self.decks: list[list[int]] = []
        self.actions: list[Any] = []
        self.cuts: list[list[int]] = []
        self.chance: list[float] = []
        self.start_scores: list[int] | None = None
        self.match_score: list[int] = []

    def wrap(self, answer: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``answer`` that also records what it answers."""
        keep = self.actions.append

        def taped(obs: Any) -> Any:
            a = answer(obs)
            keep(a)
            return a
        return taped

    def drawing(self, draw: Callable[[], float]) -> Callable[[], float]:
        """``draw`` that also records what it draws."""
        keep = self.chance.append

        def taped() -> float:
            u = draw()
            keep(u)
            return u
        return taped


class MatchTape:
    """The games of one match as they are played (see :class:`GameTape`)."""

    def __init__(self) -> None:
        self.games: list[GameTape] = []

    def game(self) -> GameTape:
        t = GameTape()
        self.games.append(t)
        return t


def script(actions: Sequence[Any], where: str) -> Callable[[Any], Any]:
    """An answer function that gives ``actions`` in order (a replay); raises RecordFileError
    when they run out."""
    it = iter(actions)

    def next_answer(obs: Any) -> Any:
        try:
            return next(it)
        except StopIteration:
            raise RecordFileError(f"cribsim: {where}: the record ends before the game does "
                                  f"({len(actions)} answers recorded)") from None
    return next_answer


# ---- files ------------------------------------------------------------------------------------------

def append_logs(path: Path, logs: Sequence[MatchLog]) -> None:
    """Append ``logs`` as one gzip member, flushed to disk (a reader sees whole members)."""
    if not logs:
        return
    # answers are JSON data (tuples become lists); anything else a strategy gave and the rules
    # accepted is written as its repr, which a replay then refuses with the answer named
    text = "".join(json.dumps(m.to_json(), separators=(",", ":"), default=repr) + "\n" for m in logs)
    data = gzip.compress(text.encode(), compresslevel=COMPRESSION, mtime=0)
    with open(path, "ab") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def whole_members(path: Path) -> tuple[int, list[bytes]]:
    """(bytes of the whole gzip members at the start of the file, their text); a torn member at
    the end (an interrupted write) is not counted. Raises RecordFileError for a file that is not
    gzip at all."""
    data = path.read_bytes()
    pos, texts = 0, []
    while pos < len(data):
        d = zlib.decompressobj(wbits=31)
        try:
            text = d.decompress(data[pos:])
        except zlib.error:
            if pos == 0:
                raise RecordFileError(f"cribsim: {path}: not a gzip file of game records") from None
            break
        if not d.eof:  # torn: the member never ended
            break
        texts.append(text)
        pos = len(data) - len(d.unused_data)
    return pos, texts


def cut_torn_member(path: Path) -> bool:
    """Cut a torn last member (ours: an interrupted append) off the file; True if one was."""
    end, _ = whole_members(path)
    if end < path.stat().st_size:
        with open(path, "r+b") as f:
            f.truncate(end)
            f.flush()
            os.fsync(f.fileno())
        return True
    return False


def read_logs(path: str | os.PathLike[str], strict: bool = True) -> Iterator[tuple[int, MatchLog]]:
    """(line number, MatchLog) for every record of a ``.jsonl.gz`` (or plain ``.jsonl``) file;
    a duplicate of an earlier match id (a batch written again after a crash) is skipped. A line
    that cannot be read is a RecordFileError naming the file and line (``strict``) or skipped."""
    p = Path(path)
    try:
        if p.suffix == ".gz":
            end, texts = whole_members(p)
            text = b"".join(texts).decode("utf-8", errors="replace")
            if end < p.stat().st_size and strict:
                raise RecordFileError(f"cribsim: {p}, line {text.count(chr(10)) + 1}: truncated (the last "
                                      f"{p.stat().st_size - end:,} bytes are an unfinished gzip member)")
        else:
            text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise RecordFileError(f"cribsim: {p}: cannot read ({e.strerror or e})") from None
    seen: set[str] = set()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE:
                raise ValueError(f"longer than {MAX_LINE:,} characters")
            log = MatchLog.from_json(json.loads(line))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
            if strict:
                why = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
                raise RecordFileError(f"cribsim: {p}, line {n}: not a game record ({why[:200]})") from None
            continue
        if log.id in seen:
            continue
        seen.add(log.id)
        yield n, log


def records_in(target: str | os.PathLike[str]) -> Path:
    """The game records file of a results folder, or the file itself."""
    p = Path(target)
    if p.is_dir():
        f = p / GAMES_FILE
        if not f.exists():
            raise RecordFileError(f"cribsim: {p}: no game records (run with 'record: all' in the config, or "
                                  "another record: setting)")
        return f
    if not p.exists():
        raise RecordFileError(f"cribsim: {p}: no such file")
    return p
