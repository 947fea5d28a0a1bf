"""What one seat may see: the :class:`Observation`.

A seat sees its own cards, the public table, the scores, the match state and the rules; never
the deck, another seat's hidden cards or the engine's random generators. The engine keeps one
observation per seat and updates it before each of that seat's decisions. Variants add fields
(declared in their module's ``observation``); :func:`observation_class` builds the class for a
rule set once."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Rules

from collections.abc import Mapping
from typing import Any

# the fields every rule set has, with their meaning (see docs/guide-bot-authors.md)
CORE_FIELDS = {
    "seat": "this seat",
    "side": "this seat's side in this game",
    "side_of": "every seat's side in this game (a variant may change the sides game by game)",
    "players": "number of seats",
    "rules": "the rules (frozen)",
    "dealer": "the dealer of this deal",
    "crib_owner": "the seat whose side owns the crib this deal",
    "scores": "scores by side",
    "hand": "own cards (as dealt before the discard; held cards during the play)",
    "discards": "how many cards to lay away (the discard decision)",
    "discard_rule": "None, or (must, pool): the discards must include must and come from pool",
    "discarded": "own cards laid away to the crib this deal, as far as it knows them there (a variant that"
                 " lets a player take up the crib says what each seat knows of it after)",
    "starter": "the starter, once turned",
    "count": "the running count of the play",
    "pile": "cards laid since the last reset (as they count)",
    "played": "(seat, card) for every card laid this deal, in order",
    "legal": "the cards that may be laid now (the play decision)",
    "gos": "(seat, count) for each go said this deal: that seat then held nothing worth 31 - count or less",
    "game_no": "this game's number in the match (0 first)",
    "deal_no": "this deal's number in the game (0 first)",
    "match_score": "game points by side so far in the match",
    "shown": "the last deal's show, as (hands by seat, crib, starter); () before the first",
}


class Observation:
    """One seat's view. Fields: see :data:`CORE_FIELDS`, plus those of the active variants."""

    __slots__ = tuple(CORE_FIELDS)
    EXTRA: Mapping[str, Any] = {}

    seat: int
    side: int
    side_of: tuple[int, ...]
    players: int
    rules: Rules
    dealer: int
    crib_owner: int
    scores: tuple[int, ...]
    hand: tuple[int, ...]
    discards: int
    discard_rule: Any
    discarded: tuple[int, ...]
    starter: int | None
    count: int
    pile: tuple[int, ...]
    played: tuple[tuple[int, int], ...]
    legal: tuple[int, ...]
    gos: tuple[tuple[int, int], ...]
    game_no: int
    deal_no: int
    match_score: tuple[int, ...]
    shown: tuple[Any, ...]

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any:
            """A field a variant adds (``obs.bid_standing``): its module declares it."""

    def __init__(self, seat: int, side: int, rules: Rules, side_of: tuple[int, ...] | None = None) -> None:
        self.seat, self.side, self.rules = seat, side, rules
        self.players = rules.players
        self.side_of = side_of if side_of is not None else rules.side_of
        self.dealer = self.crib_owner = 0
        self.scores = self.match_score = ()
        self.hand = self.pile = self.played = self.legal = self.gos = self.discarded = ()
        self.shown = ()
        self.discards = self.count = self.game_no = self.deal_no = 0
        self.discard_rule = self.starter = None
        for k, v in self.EXTRA.items():
            setattr(self, k, v)

    def to_dict(self) -> dict[str, Any]:
        """Every field but the rules, as plain data (for a strategy in another process)."""
        return {k: getattr(self, k) for k in self.fields() if k != "rules"}

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return tuple(CORE_FIELDS) + tuple(cls.EXTRA)


_CLASSES: dict[tuple[tuple[str, Any], ...], type[Observation]] = {}


def observation_class(extra: Mapping[str, Any]) -> type[Observation]:
    """The Observation class with ``extra`` fields (name: initial value), built once."""
    key = tuple(sorted(extra.items(), key=lambda kv: kv[0]))
    cls = _CLASSES.get(key)
    if cls is None:
        if not extra:
            cls = Observation
        else:
            clash = set(extra) & set(CORE_FIELDS)
            if clash:
                raise ValueError(f"observation fields {sorted(clash)} are the core's")
            cls = type("Observation", (Observation,), {"__slots__": tuple(extra), "EXTRA": dict(key),
                                                        "__module__": __name__})
        _CLASSES[key] = cls
    return cls
