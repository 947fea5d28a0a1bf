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
docs/records.md."""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CribsimError
from .gzmembers import NotGzip, Scan, members
from .nofollow import open_append, open_read, open_update, refuse_links
from .records import get_field, int_field, list_field

FORMAT = "cribsim-game-record"
VERSION = 1
GAMES_DIR = "games"
GAMES_FILE = "games/games.jsonl.gz"  # relative to a results folder
COMPRESSION = 3  # gzip level: 1 writes 9% more bytes; 6 takes 4x the time for 13% fewer
MAX_LINE = 50_000_000  # characters of one record (a match of many long games is ~100 kB)
UNFINISHED = "unfinished"  # the forfeit kind of a game a person left (cribsim play --human --save)


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
        cuts = [_ints(x, "cuts") for x in list_field({"cuts": d.get("cuts", [])}, "cuts")]
        if any(len(c) != 2 or c[0] < 0 for c in cuts):
            raise ValueError("field 'cuts' is not a list of [seat, card] pairs")
        chance = list_field({"chance": d.get("chance", [])}, "chance")
        if not all(isinstance(u, float) and 0 <= u < 1 for u in chance):
            raise ValueError("field 'chance' is not a list of draws in [0, 1)")
        log = cls(first_dealer=int_field(d, "first_dealer"), decks=[_ints(x, "decks") for x in list_field(d, "decks")],
                  actions=[snapshot(a) for a in list_field(d, "actions")], winner=int_field(d, "winner"),
                  scores=_ints(d.get("scores"), "scores"), deals=int_field(d, "deals"), cuts=cuts, chance=chance,
                  start_scores=None if d.get("start_scores") is None else _ints(d["start_scores"], "start_scores"),
                  match_score=_ints(d.get("match_score", []), "match_score"))
        if log.first_dealer < 0 or log.winner < -1 or log.deals < 0:
            raise ValueError("field 'first_dealer', 'winner' or 'deals' is out of range")
        return log


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
    forfeit: dict[str, Any] | None = None  # {side, entry, kind, error}: the match ended in a forfeit
    # dealt with the run's deal secret (its commitment, ``sha256:...``): ``seed`` is then the
    # config's, and the decks follow only with the secret (cribsim.tournament.secret)
    deal_secret: str | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "id": self.id, "experiment": self.experiment,
            "variant": self.variant, "game": self.game, "fingerprint": self.fingerprint, "rules": self.rules,
            "seed": self.seed, "match_key": self.match_key, "entries": self.entries, "strategies": self.strategies,
            "winner": self.winner, "game_points": self.game_points, "games": [g.to_json() for g in self.games]}
        if self.counters is not None:
            d["counters"] = self.counters
        if self.forfeit is not None:
            d["forfeit"] = self.forfeit
        if self.deal_secret is not None:
            d["deal_secret"] = self.deal_secret
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
        if counters is not None and not (isinstance(counters, list) and all(
                isinstance(c, list) and len(c) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                            and 0 <= x <= 1 for x in c) for c in counters)):
            raise ValueError("field 'counters' is not a list of [miss_rate, vigilance] pairs")
        forfeit = d.get("forfeit")
        if forfeit is not None and not (isinstance(forfeit, dict) and all(isinstance(forfeit.get(k), str)
                                                                           for k in ("kind", "error"))):
            raise ValueError("field 'forfeit' is not a forfeit")
        secret = d.get("deal_secret")
        if secret is not None and not (isinstance(secret, str) and secret.startswith("sha256:") and len(secret) < 100):
            raise ValueError("field 'deal_secret' is not a commitment (sha256:...)")
        log = cls(id=_str(d, "id"), experiment=_str(d, "experiment"), variant=_str(d, "variant"),
                  game=_str(d, "game"), rules=rules, fingerprint=_str(d, "fingerprint"), seed=int_field(d, "seed"),
                  match_key=int_field(d, "match_key"), entries=[str(x) for x in list_field(d, "entries")],
                  strategies=[str(x) for x in list_field(d, "strategies")], winner=int_field(d, "winner"),
                  game_points=_ints(d.get("game_points"), "game_points"),
                  games=[GameLog.from_json(g) for g in list_field(d, "games")],
                  counters=None if counters is None else [[float(x) for x in c] for c in counters],
                  forfeit=forfeit, deal_secret=secret)
        sides = len(log.entries)
        if not sides or len(log.strategies) != sides or len(log.game_points) not in (0, sides) \
                or not -1 <= log.winner < sides:
            raise ValueError("fields 'entries', 'strategies', 'game_points' and 'winner' do not agree")
        if not all(-2 ** 63 <= x < 2 ** 63 for x in (log.seed, log.match_key)):
            raise ValueError("field 'seed' or 'match_key' is out of range")
        return log


def snapshot(a: Any) -> Any:
    """An answer as the engine's strategies give it, and a copy as JSON will hold it: lists and
    tuples as tuples (recursively; a replay reads JSON lists back this way), a set as its
    members in order (the rules take any collection of cards for a discard)."""
    if isinstance(a, (list, tuple)):
        return tuple(snapshot(x) for x in a)
    if isinstance(a, (set, frozenset)):
        try:
            return tuple(sorted(snapshot(x) for x in a))
        except TypeError:
            return tuple(snapshot(x) for x in a)
    return a


def _str(d: dict[str, Any], k: str) -> str:
    v = get_field(d, k)
    if not isinstance(v, str):
        raise ValueError(f"field {k!r} is not text")
    return v


def _ints(v: Any, k: str) -> list[int]:
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ValueError(f"field {k!r} is not a list of whole numbers")
    return v


# ---- recording (the engines call these while a match is played) ---------------------------------

class GameTape:
    """What a game leaves while it is played with ``record``: decks, answers, cuts, draws."""

    __slots__ = ("first_dealer", "decks", "actions", "cuts", "chance", "start_scores", "match_score", "winner",
                 "scores", "deals")

    def __init__(self) -> None:
        self.first_dealer = -1
        self.decks: list[list[int]] = []
        self.actions: list[Any] = []
        self.cuts: list[list[int]] = []
        self.chance: list[float] = []
        self.start_scores: list[int] | None = None
        self.match_score: list[int] = []
        self.winner = -1  # the outcome, once the game is over (-1: it was not finished)
        self.scores: list[int] = []
        self.deals = 0

    def finish(self, winner: int, scores: Sequence[int], deals: int) -> None:
        self.winner, self.scores, self.deals = winner, list(scores), deals

    def log(self) -> GameLog:
        """The game's record (answers as JSON data: tuples become lists when written)."""
        return GameLog(first_dealer=self.first_dealer, decks=self.decks, actions=self.actions, winner=self.winner,
                       scores=self.scores, deals=self.deals, cuts=self.cuts, chance=self.chance,
                       start_scores=self.start_scores, match_score=self.match_score)

    def wrap(self, answer: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``answer`` that also records what it answers (a copy: a strategy may reuse its list)."""
        keep = self.actions.append

        def taped(obs: Any) -> Any:
            a = answer(obs)
            keep(a if type(a) is int else snapshot(a))
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


# ---- files ------------------------------------------------------------------------------------------

def append_logs(path: Path, logs: Sequence[MatchLog]) -> None:
    """Append ``logs`` as one gzip member, flushed to disk (a reader sees whole members)."""
    if not logs:
        return
    # answers are JSON data (tuples become lists); anything else a strategy gave and the rules
    # accepted is written as its repr, which a replay then refuses with the answer named
    text = "".join(json.dumps(m.to_json(), separators=(",", ":"), default=repr) + "\n" for m in logs)
    data = gzip.compress(text.encode(), compresslevel=COMPRESSION, mtime=0)
    with open_append(path, _levels(path)) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _levels(path: Path) -> int:
    """A results folder's game records (``games/games.jsonl.gz``) are opened without following
    a link at ``games/`` either (cribsim.nofollow); a file given by name, as it is."""
    return 1 if Path(path).parts[-2:] == Path(GAMES_FILE).parts else 0


def _lines(path: Path, scan: Scan) -> Iterator[tuple[int, bytes]]:
    """(line number, line) for every line that is not blank in the whole members of ``path``
    (cribsim.gzmembers): the reading stops at damage; an unfinished last member is left out
    (``scan.torn``)."""
    lineno = 0
    try:
        for _, lines in members(path, scan, _levels(path), max_line=MAX_LINE):
            for line in lines:
                lineno += 1
                yield lineno, line
    except NotGzip:
        raise RecordFileError(f"cribsim: {path}: not a gzip file of game records") from None


def check_file(path: Path) -> Scan:
    """Read the whole file once (nothing kept) and say what it holds."""
    scan = Scan()
    for _ in _lines(path, scan):
        pass
    return scan


def cut_torn_member(path: Path) -> bool:
    """Cut an unfinished last member (ours: an interrupted append) off the file; True if one was.
    Damage inside the file is refused (RecordFileError): cutting there would lose the whole
    members after it."""
    scan = check_file(path)
    if scan.damaged_at is not None:
        raise RecordFileError(f"cribsim: {path}: damaged at byte {scan.damaged_at:,} (a batch of records that "
                              "does not decompress)")
    if scan.torn:
        with open_update(path, _levels(path)) as f:
            f.truncate(scan.end)
            f.flush()
            os.fsync(f.fileno())
        return True
    return False


ID_AT_START = re.compile(rb'^\{"format":"cribsim-game-record","version":\d+,"id":"([^"\\]{1,100})"')


def recorded_ids(path: Path) -> set[str]:
    """The match ids a records file holds (read from the start of each line, as cribsim writes
    them, without parsing the records)."""
    scan = Scan()
    out = set()
    for _, line in _lines(path, scan):
        m = ID_AT_START.match(line)
        if m:
            out.add(m.group(1).decode("utf-8", "replace"))
    return out


def _text_lines(p: Path, scan: Scan) -> Iterator[tuple[int, bytes]]:
    if p.suffix == ".gz":
        yield from _lines(p, scan)
        return
    with open_read(p) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                yield n, line.rstrip(b"\n")


def read_logs(path: str | os.PathLike[str], strict: bool = True,
              torn_ok: bool = False) -> Iterator[tuple[int, MatchLog]]:
    """(line number, MatchLog) for every record of a ``.jsonl.gz`` (or plain ``.jsonl``) file,
    read as a stream; a duplicate of an earlier match id (a batch written again after a crash)
    is skipped. A line that cannot be read, damage or an unfinished last batch is a
    RecordFileError naming the file and line (``strict``; else skipped); an unfinished last
    batch (a run still writing) ends the reading quietly with ``torn_ok``."""
    p = Path(path)
    seen: set[str] = set()
    scan = Scan()
    n = 0
    try:
        for n, raw in _text_lines(p, scan):
            try:
                if len(raw) > MAX_LINE:
                    raise ValueError(f"longer than {MAX_LINE:,} bytes")
                log = MatchLog.from_json(json.loads(raw.decode("utf-8")))
            except (ValueError, TypeError, KeyError, AttributeError, RecursionError, OverflowError) as e:
                if strict:
                    why = e.msg if isinstance(e, json.JSONDecodeError) else str(e) or type(e).__name__
                    raise RecordFileError(f"cribsim: {p}, line {n}: not a game record ({why[:200]})") from None
                continue
            if log.id in seen:
                continue
            seen.add(log.id)
            yield n, log
    except OSError as e:
        raise RecordFileError(f"cribsim: {p}: cannot read ({e.strerror or e})") from None
    if strict and scan.damaged_at is not None:
        raise RecordFileError(f"cribsim: {p}, line {n + 1}: damaged at byte {scan.damaged_at:,} (a batch of "
                              "records that does not decompress)")
    if strict and scan.torn and not torn_ok:
        raise RecordFileError(f"cribsim: {p}, line {n + 1}: truncated (the last batch of records is unfinished: "
                              "a run still writing, or one that was stopped)")


def records_in(target: str | os.PathLike[str]) -> Path:
    """The game records file of a results folder, or the file itself."""
    p = Path(target)
    try:
        p.stat()
    except OSError as e:
        if e.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise RecordFileError(f"cribsim: {str(p)[:200]}: {e.strerror or e}") from None
    if p.is_dir():
        refuse_links(p)
        f = p / GAMES_FILE
        if not f.exists():
            raise RecordFileError(f"cribsim: {p}: no game records (run with 'record: all' in the config, or "
                                  "another record: setting)")
        return f
    if not p.exists():
        raise RecordFileError(f"cribsim: {p}: no such file")
    return p
