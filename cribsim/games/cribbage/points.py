"""The point values and limits of a rule set (the rule book's Part 4, S-DATA-1..7): the
``scoring:`` block of a rules file, typed and bounded, its defaults the standard game.

Only the keys that differ from the standard game are recorded (``to_dict``), so a block that
repeats the defaults, or none at all, gives the same rules, the same fingerprint and the same
results. How the values are counted is :mod:`cribsim.games.cribbage.scoring`'s job."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from cribsim.errors import ConfigError
from cribsim.params import Param
from cribsim.suggest import did_you_mean

MAX_POINTS = 100  # a generous bound: a single scoring item worth more would end any game at once

# one declaration per key: its default (the standard game), its bounds and its rule
PARAMS = (
    Param("fifteen", int, 2, "points for each combination summing to fifteen_total (S-DATA-1, R-SHOW-3)",
          lo=0, hi=MAX_POINTS),
    Param("fifteen_total", int, 15, "the sum a fifteen needs (S-DATA-1; at least 11, so no card alone)",
          lo=11, hi=100),
    Param("pair", int, 2, "points for each pair of one rank; three of a kind is three pairs (S-DATA-2)",
          lo=0, hi=MAX_POINTS),
    Param("run_min", int, 3, "the fewest cards that make a run (S-DATA-3)", lo=2, hi=5),
    Param("run_card", int, 1, "points for each card of a run (S-DATA-3)", lo=0, hi=MAX_POINTS),
    Param("hand_flush", int, None, "points for a flush of a hand's cards, the hand's only (S-DATA-4; default: "
                                   "one a card, 4 for four)", lo=0, hi=MAX_POINTS, nullable=True),
    Param("flush_starter", int, 1, "more for a flush when the starter matches too (S-DATA-4)", lo=0, hi=MAX_POINTS),
    Param("crib_flush", int, None, "points for the crib's flush, the starter's suit with it (S-DATA-4; "
                                   "default: one a crib card and flush_starter, 5 for four)",
          lo=0, hi=MAX_POINTS, nullable=True),
    Param("nobs", int, 1, "points for a jack of the starter's suit (S-DATA-5, R-SHOW-7)", lo=0, hi=MAX_POINTS),
    Param("heels", int, 2, "the dealer's points for a jack starter (S-DATA-5, R-START-2)", lo=0, hi=MAX_POINTS),
    Param("go", int, 1, "points for the go (S-DATA-6, R-PEG-3)", lo=0, hi=MAX_POINTS),
    Param("count_limit", int, 31, "the count the play may not pass (S-DATA-6, R-PEG-2; at least 10)",
          lo=10, hi=400),
    Param("hit_limit", int, 2, "points for reaching count_limit exactly (S-DATA-6)", lo=0, hi=MAX_POINTS),
    Param("last_card", int, 1, "points for the last card, unless it reached the limit (S-DATA-6, R-PEG-4)",
          lo=0, hi=MAX_POINTS),
)
DEFAULTS = {p.name: p.default for p in PARAMS}


@dataclass(frozen=True)
class Scoring:
    """Every point value and limit of the play and the show (S-DATA-1..7)."""

    fifteen: int = 2
    fifteen_total: int = 15
    pair: int = 2
    run_min: int = 3
    run_card: int = 1
    hand_flush: int | None = None  # None: one point a card of the hand (R-SHOW-6)
    flush_starter: int = 1
    crib_flush: int | None = None  # None: one point a card of the crib, and flush_starter (R-SHOW-6)
    nobs: int = 1
    heels: int = 2
    go: int = 1
    count_limit: int = 31
    hit_limit: int = 2
    last_card: int = 1

    @property
    def standard(self) -> bool:
        return self == STANDARD

    def show_only(self) -> Scoring:
        """This scoring's show (S-DATA-1..5), the play's values at the standard game's: what
        depends on the show alone (the crib tables) is the same for every play's values."""
        return dataclasses.replace(self, heels=2, go=1, count_limit=31, hit_limit=2, last_card=1)

    def flush(self, cards: int) -> int:
        """Points for the flush of a hand of ``cards`` cards without the starter (S-DATA-4)."""
        return cards if self.hand_flush is None else self.hand_flush

    def crib_flush_points(self, cards: int) -> int:
        """Points for the flush of a crib of ``cards`` cards with the starter (S-DATA-4: a named
        ``hand_flush`` leaves it at one a card and ``flush_starter``)."""
        return cards + self.flush_starter if self.crib_flush is None else self.crib_flush

    def to_dict(self) -> dict[str, int]:
        """The keys that differ from the standard game (empty for the standard game)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v != DEFAULTS[k]}


STANDARD = Scoring()


@dataclass(frozen=True)
class Deal:
    """What a ``scoring:`` block is read against (S-DATA-4, S-DATA-7): the cards a hand and the
    crib hold at the show, the players, the wild cards in the deck (V-JOKERS) and whether a
    crib's flush needs the starter (R-SHOW-6)."""

    hand: int
    crib: int
    players: int
    wild: int = 0
    crib_needs_starter: bool = True

    @property
    def most_count(self) -> int:
        """The highest count the hands of a deal can reach: 10 a card held."""
        return 10 * self.players * self.hand


def parse_scoring(source: str, data: Any, deal: Deal) -> Scoring:
    """The ``scoring:`` block of a rules file, every key checked (a one-line ConfigError naming
    ``scoring.KEY``). A flush worth one a card is the default (S-DATA-4): ``hand_flush`` equal
    to the hand's size, or ``crib_flush`` equal to the crib's size and ``flush_starter``, is the
    same as leaving it out (the same rules, the same fingerprint); ``count_limit`` is at most
    what the hands of a deal can count, and a block in which no game can end is refused in one
    line naming ``scoring`` (S-DATA-7)."""
    if data is None:
        return STANDARD
    if not isinstance(data, dict):
        raise ConfigError(source, "scoring", f"expected a mapping of point values, got {data!r}")
    known = {p.name: p for p in PARAMS}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(source, f"scoring.{key}", f"unknown scoring key{did_you_mean(str(key), known)} "
                                                        f"(known: {', '.join(known)})")
        values[key] = known[key].parse(source, value, f"scoring.{key}")
    if values.get("hand_flush") == deal.hand:
        values["hand_flush"] = None
    if values.get("crib_flush") == deal.crib + values.get("flush_starter", DEFAULTS["flush_starter"]):
        values["crib_flush"] = None
    limit = values.get("count_limit", 31)
    if limit > deal.most_count:
        raise ConfigError(source, "scoring.count_limit",
                          f"expected at most {deal.most_count}, the most the hands of a deal can count, got {limit}")
    if values.get("crib_flush") is not None and not deal.crib_needs_starter:
        raise ConfigError(source, "scoring.crib_flush", "S-DATA-4 values the crib's flush with the starter; with "
                                                        "crib_flush_needs_starter: false leave it out (one a card)")
    scoring = Scoring(**values)
    why = endless(scoring, deal)
    if why:
        raise ConfigError(source, "scoring", f"no game can end under this block (S-DATA-7): {why}")
    return scoring


def endless(s: Scoring, deal: Deal) -> str | None:
    """Why no side can ever score under ``s`` with ``deal``'s sizes (S-DATA-7), or None: his
    heels and his nobs alone cannot be counted on, so they are left out."""
    items = scorable(s, deal)
    if any(value and can for value, can in items.values()):
        return None
    named = [name for name, (value, _) in items.items() if value]
    if not named:
        return "every point value of the show and the play is 0 (his heels and his nobs alone cannot be counted on)"
    return (f"{', '.join(named)} can never be scored with these deal sizes and limits, and every other point value "
            "of the show and the play is 0")


def scorable(s: Scoring, deal: Deal) -> dict[str, tuple[int, bool]]:
    """Each scoring item of the show and the play but heels and nobs: (its points, whether some
    deal can score it with ``deal``'s sizes and ``s``'s limits)."""
    show = max(deal.hand, deal.crib) + 1  # the most cards a show counts, the starter's included
    played = deal.players * deal.hand
    suit = 13 + deal.wild  # the most cards of one suit (each wild card named one)
    crib_alone = not deal.crib_needs_starter and deal.crib <= suit  # a crib flush without the starter
    return {
        "fifteen": (s.fifteen, s.fifteen_total <= max(10 * show, s.count_limit)),
        "pair": (s.pair, True),
        "run_card": (s.run_card, show >= s.run_min or played >= s.run_min and s.run_min * (s.run_min + 1) // 2
                     <= s.count_limit),
        "hand_flush": (s.flush(deal.hand), deal.hand <= suit),
        "flush_starter": (s.flush_starter, deal.hand + 1 <= suit),
        "crib_flush": (s.crib_flush_points(deal.crib), deal.crib + 1 <= suit or crib_alone),
        "go": (s.go, s.count_limit < deal.most_count),
        "hit_limit": (s.hit_limit, True),
        "last_card": (s.last_card, True),
    }
