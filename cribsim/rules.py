"""Rules: a validated, immutable description of one rule set, built from YAML.

Rules are data.  A variant that changes a number or a yes/no is a field here; a variant that
changes the flow names a plug-in in ``variants`` (see ``cribsim/engine/phases.py`` for the
extension points).  Loading is strict: an unknown key or an impossible value is a one-line
:class:`ConfigError` naming the file and the key."""

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from . import presets
from .errors import ConfigError
from .names import check_name

# R-DEAL-2 defaults by player count: (deal, discard, dealer_deal, dealer_discard, crib_from_deck)
DEAL_DEFAULTS = {
    2: (6, 2, 6, 2, 0),
    3: (5, 1, 5, 1, 1),
    4: (5, 1, 5, 1, 0),
    5: (5, 1, 4, 0, 0),
}
MAX_PLAYERS = 5

# R-MATCH-2 game-point tables
GAME_POINT_TABLES = {
    "default": {"win": 1, "skunk": 2, "double_skunk": 4, "triple_skunk": 4},
    "acc": {"win": 2, "skunk": 3, "double_skunk": 3, "triple_skunk": 3},
}


@dataclass(frozen=True)
class MatchFormat:
    """R-MATCH-1..3: first to ``first_to`` game points, or exactly ``games`` games."""

    first_to: int = 1
    games: int = 0  # 0: not a fixed number of games
    game_points: tuple = tuple(sorted(GAME_POINT_TABLES["default"].items()))
    triple_skunk_wins_match: bool = False
    scoring: str = "table"  # or "winner_takes_all" (R-MATCH-4, three players), "continued" (R-MATCH-5)

    def places(self, sides):
        """How many sides must reach the target before a game ends: 1, or with continued play
        (R-MATCH-5) 2 of 3 and 3 of 5."""
        if self.scoring != "continued":
            return 1
        return {3: 2, 5: 3}[sides]

    def points_table(self):
        return dict(self.game_points)


class RulesBase:
    """What every game's rules share: sides, a JSON form, a fingerprint and a one-line description.
    Subclasses are frozen dataclasses with ``name``, ``game``, ``players``, ``sides`` and ``match``."""

    @cached_property  # computed once (a frozen dataclass still has a __dict__ for this)
    def side_of(self):
        out = [0] * self.players
        for i, side in enumerate(self.sides):
            for seat in side:
                out[seat] = i
        return tuple(out)

    OPTIONAL_FIELDS = ()  # knobs left out of to_dict() while at their default (see below)

    def __getstate__(self):
        """Pickle the fields only: cached properties (phase functions, plug-in modules) are
        rebuilt where the rules are unpickled (a Ray worker)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def to_dict(self):
        """The rules as plain JSON data. Knobs added after results were published
        (``OPTIONAL_FIELDS``) are left out while at their default, so adding a knob does not
        change the hash, and so the results folder, of a config that does not use it."""
        d = {k: _plain(v) for k, v in dataclasses.asdict(self).items()}
        d["match"]["game_points"] = dict(self.match.game_points)
        if d["match"].get("scoring") == "table":  # added later: left out at its default
            del d["match"]["scoring"]
        for f in self.OPTIONAL_FIELDS:
            if getattr(self, f) == getattr(type(self), f):
                del d[f]
        return d

    def fingerprint(self):
        """A short hash of everything that changes play (not the name)."""
        d = self.to_dict()
        d.pop("name")
        blob = json.dumps(d, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def describe(self):
        """A loggable one-liner listing what differs from the game's default rules."""
        base = type(self)().to_dict()
        mine = self.to_dict()
        diffs = [f"{k}={mine[k]}" for k in mine if k != "name" and mine[k] != base.get(k)]
        return f"{self.game}({', '.join(diffs)})"


def _plain(v):
    """Tuples to lists, recursively (the JSON shape of a rules field)."""
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


@dataclass(frozen=True)
class Rules(RulesBase):
    name: str = "standard"
    game: str = "cribbage"
    players: int = 2
    deal: int = 6
    discard: int = 2
    dealer_deal: int = 6
    dealer_discard: int = 2
    crib_from_deck: int = 0
    jokers: int = 0
    target: int = 121
    skunk_lines: tuple = (91, 61, 31)  # skunk, double skunk, triple skunk (R-MATCH-1)
    sides: tuple = ((0,), (1,))
    crib_flush_needs_starter: bool = True  # R-SHOW-6
    match: MatchFormat = field(default_factory=MatchFormat)
    variants: tuple = ()  # names of flow plug-ins, in order
    first_pone_points: int = 0  # V-FIVECARD: "three for last" to the first pone of each game
    play_once: bool = False  # V-FIVECARD: the play stops after the first 31 or go
    toss_fives: bool = False  # V-TOSSFIVES: every 5 held goes to the crib (as many as discarded)
    null_penalty: bool = False  # V-NINETEEN: a hand or crib scoring 0 gives each opposing side 1
    back_ten: str = ""  # V-BACKTEN: "" off, "each" zero hand or crib, "both" hand and crib zero
    score_floor: int = None  # lowest score a penalty can leave (None: 0 for back ten)
    starter_joker_named_by: str = "each_player"  # V-JOKERS: or "non_dealer"
    lone_target: int = 61  # V-TEAM3-1: the lone player's target
    team_target: int = 121  # V-TEAM3-1: the partnership's
    min_bid: int = 1  # V-AUCTION
    max_bid: int = 29  # V-AUCTION: a cap on bids (the rule book has none; lowball needs one)

    OPTIONAL_FIELDS = ("first_pone_points", "play_once", "toss_fives", "null_penalty", "back_ten",
                       "score_floor", "min_bid", "max_bid", "starter_joker_named_by", "lone_target",
                       "team_target")

    # ---- derived, cheap ----
    @property
    def hand_size(self):
        return self.deal - self.discard

    @property
    def crib_size(self):
        return (self.players - 1) * self.discard + self.dealer_discard + self.crib_from_deck

    @property
    def deck_size(self):
        return 52 + self.jokers

    def describe(self):
        """A loggable one-liner: the player count, then what differs from that count's
        standard game (R-DEAL-2 defaults), e.g. ``cribbage(players=3, dealer_deal=6, ...)``."""
        base = rules_from_mapping({"players": self.players}).to_dict()
        mine = self.to_dict()
        diffs = [f"{k}={mine[k]}" for k in mine if k not in ("name", "players") and mine[k] != base.get(k)]
        return f"{self.game}(players={self.players}{', ' if diffs else ''}{', '.join(diffs)})"

    @cached_property
    def phases(self):
        """The deal's phase functions for these rules (``cribsim.engine.assemble``)."""
        from .engine.assemble import phases_for

        return phases_for(self)

    @cached_property
    def plugins(self):
        from .variants import plugin

        return tuple(plugin(v) for v in self.variants)

    @cached_property
    def objective(self):
        """+1: score points; -1: avoid them (lowball). Strategies multiply their values by it."""
        from .variants import objective_of

        return objective_of(self.variants)

    @cached_property
    def needs(self):
        """Decisions beyond discard and play that these rules ask strategies for."""
        needs = {n for p in self.plugins for n in getattr(p, "NEEDS", ())}
        if self.jokers:
            needs.add("jokers")  # naming a joker when it is laid
        if self.toss_fives:
            needs.add("discard_rule")  # discards constrained by obs.discard_rule
        return tuple(sorted(needs))

    @cached_property
    def muggins(self):
        return any(getattr(p, "MUGGINS", False) for p in self.plugins)

    def game_layout(self, g):
        """(sides, targets) of game ``g`` of a match: the rules' own, unless a plug-in (two
        against one) says otherwise."""
        for p in self.plugins:
            if hasattr(p, "layout"):
                return p.layout(self, g)
        return self.sides, self._targets

    @cached_property
    def _targets(self):
        return (self.target,) * len(self.sides)

    def shared_winners(self, side, scores):
        """All the winning sides when more than one shares the win (lowball's tied low
        scores), else None."""
        for p in self.plugins:
            if hasattr(p, "co_winners"):
                w = p.co_winners(self, side, scores)
                return w if len(w) > 1 else None
        return None

    def winner_of(self, side, scores):
        """The winning side when ``side`` has just reached the target (R-WIN-1, or a plug-in's
        rule such as V-LOWBALL)."""
        for p in self.plugins:
            if hasattr(p, "winner"):
                return p.winner(self, side, scores)
        return side

    def discard_rule(self, hand, k):
        """(must, pool): the ``k`` discards must include ``must`` and come from ``pool``.
        V-TOSSFIVES: every 5 goes to the crib, or, holding more 5s than discards, only 5s do.
        None when any ``k`` cards will do."""
        if not self.toss_fives:
            return None
        fives = tuple(c for c in hand if c >> 2 == 4)
        if not fives:
            return None
        return (fives, tuple(hand)) if len(fives) <= k else ((), fives)


# ---- loading ------------------------------------------------------------------------------

# a working-directory configs/rules/NAME.yaml shadows the preset NAME shipped in the package
RULES_DIRS = [Path.cwd() / "configs" / "rules", presets.rules_dir()]
MAX_WHOLE = 10_000  # the largest whole number a rules file may give (targets, bids, game points...)

_TOP_KEYS = {
    "name", "game", "extends", "players", "deal", "discard", "dealer_deal", "dealer_discard",
    "crib_from_deck", "jokers", "target", "skunk_lines", "sides", "crib_flush_needs_starter",
    "match", "variants", "description", "first_pone_points", "play_once", "toss_fives", "null_penalty",
    "back_ten", "score_floor", "min_bid", "max_bid", "starter_joker_named_by", "lone_target", "team_target",
}
MAX_MATCH_GAMES = 1000  # match.first_to and match.games
_MATCH_KEYS = {"first_to", "games", "game_points", "triple_skunk_wins_match", "scoring"}
_POINT_KEYS = {"win", "skunk", "double_skunk", "triple_skunk"}
from .variants import KNOWN as KNOWN_VARIANTS  # flow plug-ins (cribsim/variants/)


def find_rules_file(name, relative_to=None):
    """A rules name (``standard``) or path. A path (a name ending in .yaml/.yml or holding a
    folder) is looked for next to ``relative_to``, then from the working directory, and is
    never replaced by a preset of the same name; a bare name is looked up in ``configs/rules``
    of the working directory, then among the presets shipped in the package. None if absent."""
    name = str(name)
    if not name or "\0" in name or len(name) > 4096:
        return None
    p = Path(name)
    if is_rules_path(name):
        candidates = [Path(relative_to).parent / p] if relative_to is not None and not p.is_absolute() else []
        candidates.append(p)
        for c in candidates:
            if c.is_file():
                return c
        return None
    if check_name(name) is not None:
        return None
    for d in RULES_DIRS:
        c = d / f"{name}.yaml"
        if c.is_file():
            return c
    return None


def is_rules_path(name):
    """Whether a rules reference is a file path rather than a preset name."""
    name = str(name)
    return name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name


def preset_names():
    names = set()
    for d in RULES_DIRS:
        if d.is_dir():
            names.update(f.stem for f in d.glob("*.yaml") if check_name(f.stem) is None)
    return sorted(names)


def read_yaml(path):
    """Safe-load a YAML mapping within the limits of ``cribsim.yamlio`` (size, depth, aliases,
    duplicate keys, UTF-8); a one-line ConfigError for a missing file or bad YAML."""
    from .yamlio import read_mapping

    return read_mapping(path)


def load_rules(ref, _seen=()):
    """Rules from a preset name or a YAML file path (following ``extends:``)."""
    path = find_rules_file(str(ref))
    if path is None:
        raise ConfigError(ref, None, f"no such rules file or preset (presets: {', '.join(preset_names())})")
    return rules_from_mapping(read_yaml(path), source=str(path), _seen=_seen)


def _merge(base, over):
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _raw_with_extends(data, source, seen):
    if "extends" not in data:
        return data
    parent = data["extends"]
    if not isinstance(parent, str):
        raise ConfigError(source, "extends", "expected the name or path of a rules file")
    ppath = find_rules_file(parent, relative_to=source if source and source != "<inline>" else None)
    if ppath is None:
        raise ConfigError(source, "extends", f"no rules file or preset named '{parent}'")
    key = str(ppath.resolve())
    if key in seen:
        raise ConfigError(source, "extends", f"'{parent}' extends itself (a cycle)")
    pdata = _raw_with_extends(read_yaml(ppath), str(ppath), seen + (key,))
    child = {k: v for k, v in data.items() if k != "extends"}
    return _merge({k: v for k, v in pdata.items() if k != "name"}, child)


def int_key(source, key, v, lo, hi=None):
    """A whole number lo..hi; without ``hi`` at most MAX_WHOLE (10,000)."""
    hi = MAX_WHOLE if hi is None else hi
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise ConfigError(source, key, f"expected a whole number {lo}..{hi}, got {_short(v)}")
    return v


def _short(v, limit=80):
    """A value as shown in an error message: repr, shortened, one line."""
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _choice(source, key, v, options):
    if not isinstance(v, str) or v not in options:
        raise ConfigError(source, key, f"expected one of {', '.join(options)}, got {_short(v)}")
    return v


def bool_key(source, key, v):
    if not isinstance(v, bool):
        raise ConfigError(source, key, f"expected true or false, got {_short(v)}")
    return v


def unknown_keys(source, prefix, data, allowed):
    for k in data:
        if k not in allowed:
            raise ConfigError(source, f"{prefix}{k}",
                              f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def match_format(source, m):
    if m is None:
        return MatchFormat()
    if not isinstance(m, dict):
        raise ConfigError(source, "match", "expected a mapping such as {first_to: 5}")
    unknown_keys(source, "match.", m, _MATCH_KEYS)
    first_to = int_key(source, "match.first_to", m.get("first_to", 1), 1, MAX_MATCH_GAMES)
    games = int_key(source, "match.games", m["games"], 1, MAX_MATCH_GAMES) if "games" in m else 0
    if "games" in m and "first_to" in m:
        raise ConfigError(source, "match", "give either first_to or games, not both")
    gp = m.get("game_points", "default")
    if isinstance(gp, str):
        if gp not in GAME_POINT_TABLES:  # (a str: never an unhashable value here)
            raise ConfigError(source, "match.game_points",
                              f"expected a table name ({', '.join(GAME_POINT_TABLES)}) or a mapping, got {gp!r}")
        table = dict(GAME_POINT_TABLES[gp])
    elif isinstance(gp, dict):
        unknown_keys(source, "match.game_points.", gp, _POINT_KEYS)
        table = dict(GAME_POINT_TABLES["default"])
        table.update(gp)
        if "double_skunk" in gp and "triple_skunk" not in gp:
            table["triple_skunk"] = table["double_skunk"]
        for k, v in table.items():
            int_key(source, f"match.game_points.{k}", v, 0)
    else:
        raise ConfigError(source, "match.game_points", "expected a table name or a mapping")
    tsw = bool_key(source, "match.triple_skunk_wins_match", m.get("triple_skunk_wins_match", False))
    scoring = m.get("scoring", "table")
    if not isinstance(scoring, str) or scoring not in ("table", "winner_takes_all", "continued"):
        raise ConfigError(source, "match.scoring", f"expected table, winner_takes_all or continued, got {_short(scoring)}")
    return MatchFormat(first_to=first_to if games == 0 else 0, games=games,
                       game_points=tuple(sorted(table.items())), triple_skunk_wins_match=tsw, scoring=scoring)


def rules_from_mapping(data, source="<inline>", _seen=(), default_game="cribbage"):
    """Build and validate rules from a mapping (as read from YAML). ``game:`` (after following
    ``extends:``) picks the game; Fives and Threes rules are built by ``cribsim.dominoes``."""
    data = _raw_with_extends(data, source, _seen)
    game = data.get("game", default_game)
    if game != "cribbage":
        from .games import game_named

        return game_named(game, source).rules_from_mapping(data, source)
    unknown_keys(source, "", data, _TOP_KEYS)
    name = data.get("name", Path(source).stem if source != "<inline>" else "inline")
    if not isinstance(name, str):
        raise ConfigError(source, "name", f"expected a string, got {name!r}")
    players = int_key(source, "players", data.get("players", 2), 2, MAX_PLAYERS)
    d_deal, d_disc, d_ddeal, d_ddisc, d_crib = DEAL_DEFAULTS[players]
    deal = int_key(source, "deal", data.get("deal", d_deal), 1)
    discard = int_key(source, "discard", data.get("discard", d_disc if "deal" not in data else deal - 4), 0)
    dealer_deal = int_key(source, "dealer_deal", data.get("dealer_deal", d_ddeal if "deal" not in data else deal), 1)
    dealer_discard = int_key(source, "dealer_discard",
                          data.get("dealer_discard", d_ddisc if "deal" not in data else dealer_deal - (deal - discard)), 0)
    crib_from_deck = int_key(source, "crib_from_deck", data.get("crib_from_deck", d_crib), 0)
    jokers = int_key(source, "jokers", data.get("jokers", 0), 0, 4)
    if discard > deal:
        raise ConfigError(source, "discard", f"expected at most deal ({deal}), got {discard}")
    if dealer_deal - dealer_discard != deal - discard:
        raise ConfigError(source, "dealer_discard",
                          f"every hand must end the same size: dealer keeps {dealer_deal - dealer_discard}, "
                          f"others keep {deal - discard}")
    if deal - discard < 1:
        raise ConfigError(source, "discard", "every hand must keep at least one card")
    crib = (players - 1) * discard + dealer_discard + crib_from_deck
    if crib < 1:
        raise ConfigError(source, "discard", "the crib would be empty: discard or crib_from_deck must give it cards")
    needed = (players - 1) * deal + dealer_deal + crib_from_deck + 1
    if needed > 52 + jokers:
        raise ConfigError(source, "players",
                          f"{players} players need {needed} cards (hands, crib and starter) but the deck has {52 + jokers}")
    target = int_key(source, "target", data.get("target", 121), 1)
    if "skunk_lines" in data:
        sl = data["skunk_lines"]
        if not (isinstance(sl, list) and len(sl) == 3):
            raise ConfigError(source, "skunk_lines", "expected three numbers [skunk, double, triple]")
        for i, v in enumerate(sl):
            int_key(source, f"skunk_lines[{i}]", v, 0, target)
        if not sl[0] >= sl[1] >= sl[2]:
            raise ConfigError(source, "skunk_lines", f"expected decreasing lines, got {sl}")
        skunk = tuple(sl)
    else:  # R-MATCH-1: the lines scale with the target
        skunk = (math.ceil(3 * target / 4), math.ceil(target / 2), math.ceil(target / 4))
    sides = sides_key(source, data.get("sides"), players)
    if "match" in data and isinstance(data["match"], dict) and data["match"].get("scoring") == "winner_takes_all" \
            and len(sides) != 3:
        raise ConfigError(source, "match.scoring", "winner_takes_all (R-MATCH-4) is for three players")
    if "match" in data and isinstance(data["match"], dict) and data["match"].get("scoring") == "continued" \
            and len(sides) not in (3, 5):
        raise ConfigError(source, "match.scoring", "continued play (R-MATCH-5) is for three or five players")
    flush = bool_key(source, "crib_flush_needs_starter", data.get("crib_flush_needs_starter", True))
    variants = data.get("variants", [])
    if not isinstance(variants, list):
        raise ConfigError(source, "variants", "expected a list of variant names")
    for i, v in enumerate(variants):
        if v not in KNOWN_VARIANTS:
            raise ConfigError(source, f"variants[{i}]",
                              f"unknown variant {v!r} (known: {', '.join(KNOWN_VARIANTS) or 'none yet'})")
    back_ten = data.get("back_ten", "")
    if back_ten in (False, None):
        back_ten = ""
    if back_ten not in ("", "each", "both"):
        raise ConfigError(source, "back_ten", f"expected each or both (or false), got {back_ten!r}")
    floor = data.get("score_floor")
    if floor is not None and (not isinstance(floor, int) or isinstance(floor, bool)):
        raise ConfigError(source, "score_floor", f"expected a whole number (may be negative), got {floor!r}")
    rules = Rules(name=name, players=players, deal=deal, discard=discard, dealer_deal=dealer_deal,
                 dealer_discard=dealer_discard, crib_from_deck=crib_from_deck, jokers=jokers,
                 target=target, skunk_lines=skunk, sides=sides, crib_flush_needs_starter=flush,
                 match=match_format(source, data.get("match")), variants=tuple(variants),
                 first_pone_points=int_key(source, "first_pone_points", data.get("first_pone_points", 0), 0, target - 1),
                 play_once=bool_key(source, "play_once", data.get("play_once", False)),
                 toss_fives=bool_key(source, "toss_fives", data.get("toss_fives", False)),
                 null_penalty=bool_key(source, "null_penalty", data.get("null_penalty", False)),
                 back_ten=back_ten, score_floor=floor,
                 starter_joker_named_by=_choice(source, "starter_joker_named_by",
                                                data.get("starter_joker_named_by", "each_player"),
                                                ("each_player", "non_dealer")),
                 lone_target=int_key(source, "lone_target", data.get("lone_target", 61), 1),
                 team_target=int_key(source, "team_target", data.get("team_target", 121), 1),
                 min_bid=int_key(source, "min_bid", data.get("min_bid", 1), 1),
                 max_bid=int_key(source, "max_bid", data.get("max_bid", 29), 1))
    for p in rules.plugins:
        if hasattr(p, "check"):
            p.check(rules, source)
    return rules


def sides_key(source, sides, players):
    if sides is None:
        return tuple((s,) for s in range(players))
    if not isinstance(sides, list) or not all(isinstance(s, list) and s for s in sides):
        raise ConfigError(source, "sides", "expected a list of seat lists, e.g. [[0, 2], [1, 3]]")
    seats = [x for s in sides for x in s]
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in seats):
        raise ConfigError(source, "sides", f"expected whole-number seats 0..{players - 1}, got {_short(sides)}")
    if sorted(seats) != list(range(players)):
        raise ConfigError(source, "sides", f"expected every seat 0..{players - 1} in exactly one side, got {_short(sides)}")
    if len(sides) < 2:
        raise ConfigError(source, "sides", "expected at least two sides")
    return tuple(tuple(s) for s in sides)


def check_match_sides(source, key, match, sides):
    """A match format that fits ``sides`` sides: winner-takes-all (R-MATCH-4) is for three,
    continued play (R-MATCH-5) for three or five. For a match format given apart from the
    rules (an experiment's ``match:``), which the rules' own check does not see."""
    if match.scoring == "winner_takes_all" and sides != 3:
        raise ConfigError(source, key, f"winner_takes_all (R-MATCH-4) is for three players, not {sides} sides")
    if match.scoring == "continued" and sides not in (3, 5):
        raise ConfigError(source, key, f"continued play (R-MATCH-5) is for three or five players, not {sides} sides")
    return match
