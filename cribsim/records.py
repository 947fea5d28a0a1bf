"""Typed, named records: what a game and a match leave behind, and how the report reads them.

``matches.jsonl.gz`` holds one :class:`MatchRecord` per line as a self-describing JSON object
with ``"schema": 3``, in gzip members of a batch each; every game inside is a
:class:`GameRecord`. Schema 3 differs from schema 2 (a plain ``matches.jsonl``) only in the
game's ``trail``: one flat list, each side's starting score then its gain at each step, so that
the numbers are small and the file compresses to well under 100 bytes a match. The statistics and the report read
these records and the manifest only, never rules code: whatever they need (a game's own sides,
whether the first dealer's side won, the sides ranked, per-game figures for summary columns) the
game writes into the record. :class:`Column` declares a summary column over those fields.

A line that is valid JSON of the wrong shape is refused by :func:`match_from_json` with a
one-line :class:`RecordError` naming the field."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import Any

SCHEMA = 3
LEGACY_SCHEMA = 2  # matches.jsonl: read only by cribsim upgrade
SOURCES = ("peg", "hand", "crib", "heels", "other")  # cribbage's sources of points


class RecordError(ValueError):
    """A record of the wrong shape: the message names the field."""


@dataclass(frozen=True)
class Column:
    """A per-variant summary column over the game records.

    ``kind``: ``count`` (games), ``rate`` (share of games whose ``field`` is true, or at least
    ``at_least``; Wilson interval), ``mean`` (mean of ``field`` per game), ``ratio`` (sum of
    ``field`` over the sum of ``denominator``, by default per deal). ``field`` is a path into the
    game record: ``deals``, ``first_dealer_won``, ``points.peg.0`` (the dealer's pegging),
    ``metrics.name``. ``plot`` puts the column in the variants plot."""

    header: str
    kind: str
    field: str = ""
    denominator: str = "deals"
    at_least: float | None = None
    plot: bool = False

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"header": self.header, "kind": self.kind, "field": self.field}
        if self.kind == "ratio" and self.denominator != "deals":
            d["denominator"] = self.denominator
        if self.at_least is not None:
            d["at_least"] = self.at_least
        if self.plot:
            d["plot"] = True
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Column:
        return cls(d["header"], d["kind"], d.get("field", ""), d.get("denominator", "deals"), d.get("at_least"),
                   bool(d.get("plot", False)))


@dataclass
class GameRecord:
    """One game: the winning side (of this game's ``sides``), final scores by side, deals
    played (hands in Fives and Threes), the first dealer (leader) seat and whether that seat's
    side won, the skunk level (0-3), points by source and role (``points["peg"][0]``: the
    dealer's pegging over the game; roles count clockwise from the dealer), the game's own
    sides (seat lists), every side ranked best first (``order``), and optionally the targets by
    side, the sides sharing the win, the scores when the first place was taken (continued
    play), named per-game figures (``metrics``), the ``trail`` of the scores by side (at the
    start, after the play and after the show of every deal, and at the end; Fives and Threes:
    at the start, after every hand and at the end) and the ``decisions`` asked."""

    winner: int
    scores: list[int]
    deals: int
    first_dealer: int
    first_dealer_won: bool
    skunk: int
    sides: list[list[int]]
    order: list[int]
    points: dict[str, list[int]] = field(default_factory=dict)
    targets: list[int] | None = None
    shared: list[int] | None = None
    first_scores: list[int] | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    trail: list[list[int]] | None = None
    decisions: int | None = None

    OPTIONAL = ("targets", "shared", "first_scores")

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data, for writing at once: its lists are the record's own, not copies
        (a game is encoded for every match played, so this is on the hot path)."""
        d: dict[str, Any] = {"winner": self.winner, "scores": self.scores, "deals": self.deals,
                             "first_dealer": self.first_dealer, "first_dealer_won": self.first_dealer_won,
                             "skunk": self.skunk, "sides": self.sides, "order": self.order, "points": self.points}
        for k in self.OPTIONAL:
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.metrics:
            d["metrics"] = self.metrics
        if self.trail is not None:
            d["trail"] = flat_trail(self.trail)
        if self.decisions is not None:
            d["decisions"] = self.decisions
        return d

    @classmethod
    def from_json(cls, d: Any, schema: int = SCHEMA) -> GameRecord:
        if not isinstance(d, dict):
            raise RecordError(f"a game is not an object: {str(d)[:40]}")
        try:
            points = get_field(d, "points").items()
            rec = cls(winner=int_field(d, "winner"), scores=_ints(d, "scores"), deals=int_field(d, "deals"),
                      first_dealer=int_field(d, "first_dealer"),
                      first_dealer_won=bool(get_field(d, "first_dealer_won")),
                      skunk=int_field(d, "skunk"), sides=[list(map(int, s)) for s in list_field(d, "sides")],
                      order=_ints(d, "order"), points={str(k): list(map(int, v)) for k, v in points},
                      targets=d.get("targets"), shared=d.get("shared"), first_scores=d.get("first_scores"),
                      metrics=dict(d.get("metrics", {})),
                      trail=_trail(d.get("trail")) if schema == LEGACY_SCHEMA else unflat_trail(d.get("trail"), d),
                      decisions=None if d.get("decisions") is None else int(d["decisions"]))
        except (TypeError, ValueError, AttributeError) as e:
            raise RecordError(f"a game has a field of the wrong type ({e})") from None
        if not 0 <= rec.winner < len(rec.scores) or len(rec.sides) != len(rec.scores):
            raise RecordError("a game's winner or sides do not match its scores")
        if rec.trail is not None and (not rec.trail or any(len(p) != len(rec.scores) for p in rec.trail)
                                      or rec.trail[-1] != rec.scores):
            raise RecordError("a game's trail does not end at its scores")
        return rec

    def value(self, path: str) -> Any:
        """A field by path (``deals``, ``points.peg.0``, ``metrics.name``; a missing metric is 0)."""
        return getter(path)(self)


@lru_cache(maxsize=1024)
def getter(path: str) -> Callable[[GameRecord], Any]:
    """A game's field by path (see :meth:`GameRecord.value`), the path read once."""
    head, *rest = path.split(".")

    def get(g: GameRecord) -> Any:
        v: Any = getattr(g, head)
        for part in rest:
            v = v.get(part, 0) if isinstance(v, dict) else v[int(part)]
        return int(v) if isinstance(v, bool) else v
    return get


@dataclass
class Forfeit:
    """Why a match has no result: ``side`` (None: not a strategy's fault, the match failed),
    the lineup ``entry`` charged, the ``kind`` (timeout, illegal, error, crash, cheat) and a
    message."""

    side: int | None
    entry: int | None
    kind: str
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "entry": self.entry, "kind": self.kind, "error": self.error}


@dataclass
class MatchRecord:
    """One match of the schedule: its ``id`` (``variant.table.group.seating``), the lineup entry
    at each side (``sides``), the winning side (-1: none, a drawn fixed-length match or a
    forfeit with more than two sides), game points by side, a forfeit or None, and the games."""

    id: str
    variant: int
    table: int
    group: int
    seating: int
    sides: list[int]
    winner: int
    game_points: list[int] | None
    forfeit: Forfeit | None
    games: list[GameRecord] = field(default_factory=list)
    log: Any = field(default=None, compare=False, repr=False)  # the game record (cribsim.gamelog), if kept

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "id": self.id, "variant": self.variant, "table": self.table, "group": self.group,
                "seating": self.seating, "sides": list(self.sides), "winner": self.winner,
                "game_points": None if self.game_points is None else list(self.game_points),
                "forfeit": None if self.forfeit is None else self.forfeit.to_json(),
                "games": [g.to_json() for g in self.games]}

    @property
    def failed(self) -> bool:
        """A match with no result to count (the worker kept dying): listed with the forfeits."""
        return self.forfeit is not None and self.forfeit.side is None

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.variant, self.table, self.group, self.seating)


def match_from_json(d: Any, schema: int = SCHEMA) -> MatchRecord:
    """A MatchRecord from a parsed line of ``matches.jsonl.gz`` (``schema`` 3; 2: an older
    ``matches.jsonl``, for ``cribsim upgrade``); RecordError for a wrong shape."""
    if not isinstance(d, dict):
        raise RecordError("not a JSON object")
    if d.get("schema") != schema:
        raise RecordError(f"record schema {d.get('schema', 1)!r}, this cribsim reads schema {schema}")
    try:
        f = d.get("forfeit")
        forfeit = None if f is None else Forfeit(f["side"], f["entry"], str(f["kind"]), str(f["error"]))
        games = get_field(d, "games")
        if not isinstance(games, list):
            raise RecordError("field 'games' is not a list")
        gp = d.get("game_points")
        rec = MatchRecord(id=str(get_field(d, "id")), variant=int_field(d, "variant"), table=int_field(d, "table"),
                          group=int_field(d, "group"), seating=int_field(d, "seating"), sides=_ints(d, "sides"),
                          winner=int_field(d, "winner"), game_points=None if gp is None else [int(x) for x in gp],
                          forfeit=forfeit, games=[GameRecord.from_json(g, schema) for g in games])
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"a field is missing or of the wrong type ({e})") from None
    k = len(rec.sides)
    if not -1 <= rec.winner < k or (rec.game_points is not None and len(rec.game_points) != k) \
            or (rec.forfeit is not None and rec.forfeit.side is not None
                and (not isinstance(rec.forfeit.side, int) or not 0 <= rec.forfeit.side < k)):
        raise RecordError("a match's winner, game points or forfeiting side do not match its sides")
    return rec


def _trail(v: Any) -> list[list[int]] | None:
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(s, list) and all(isinstance(x, int) for x in s) for s in v):
        raise RecordError("field 'trail' is not a list of score lists")
    return v


def flat_trail(trail: list[list[int]]) -> list[int]:
    """The trail as schema 3 writes it: the starting scores, then each step's gains, flat."""
    gains = [[b - a for a, b in zip(side, side[1:])] for side in zip(*trail)]
    return [*trail[0], *(x for step in zip(*gains) for x in step)]


def unflat_trail(v: Any, game: dict[str, Any]) -> list[list[int]] | None:
    """The trail (scores at each step) from schema 3's flat list of gains."""
    if v is None:
        return None
    scores = game.get("scores")
    if not isinstance(v, list) or not set(map(type, v)) <= {int} or not isinstance(scores, list) \
            or not scores or len(v) % len(scores):
        raise RecordError("field 'trail' is not a flat list of score gains, a whole number of steps long")
    k = len(scores)
    return [list(step) for step in zip(*(accumulate(v[i::k]) for i in range(k)))]


def get_field(d: dict[str, Any], k: str) -> Any:
    """``d[k]``; RecordError (a ValueError) naming the field when it is missing."""
    if k not in d:
        raise RecordError(f"field {k!r} is missing")
    return d[k]


def int_field(d: dict[str, Any], k: str) -> int:
    v = get_field(d, k)
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError(f"field {k!r} is not a whole number: {v!r}")
    return v


def list_field(d: dict[str, Any], k: str) -> list[Any]:
    v = get_field(d, k)
    if not isinstance(v, list):
        raise RecordError(f"field {k!r} is not a list: {str(v)[:40]}")
    return v


def _ints(d: dict[str, Any], k: str) -> list[int]:
    v = list_field(d, k)
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise RecordError(f"field {k!r} is not a list of numbers")
    return list(v)
