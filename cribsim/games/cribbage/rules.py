"""Rules: a validated, immutable description of one rule set, built from YAML.

The core knobs (players, deal sizes, target, skunk lines, sides, the crib flush rule, the match
format) are fields of :class:`Rules`; every rule variant is a module in ``cribsim/variants/``
that declares its own knobs (read them as attributes, ``rules.min_bid``), phases and hooks,
assembled into ``rules.program`` (``cribsim.engine.program``). Loading is strict: an unknown
key, an impossible value or a combination the variants cannot play is a one-line
:class:`ConfigError` naming the file and the key."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cribsim import presets
from cribsim.errors import ConfigError
from cribsim.names import check_name
from cribsim.params import Param

from .variants import PARAMS, VARIANTS

if TYPE_CHECKING:
    from .engine.variant import Variant

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

    def places(self, sides: int) -> int:
        """How many sides must reach the target before a game ends: 1, or with continued play
        (R-MATCH-5) 2 of 3 and 3 of 5."""
        if self.scoring != "continued":
            return 1
        return {3: 2, 5: 3}[sides]

    def points_table(self) -> dict[str, int]:
        return dict(self.game_points)


class RulesBase:
    """What every game's rules share: sides, a JSON form, a fingerprint and a one-line description.
    Subclasses are frozen dataclasses with ``name``, ``game``, ``players``, ``sides`` and ``match``."""

    name: str
    game: str
    players: int
    sides: tuple[tuple[int, ...], ...]
    match: MatchFormat

    @cached_property  # computed once (a frozen dataclass still has a __dict__ for this)
    def side_of(self) -> tuple[int, ...]:
        out = [0] * self.players
        for i, side in enumerate(self.sides):
            for seat in side:
                out[seat] = i
        return tuple(out)

    OPTIONAL_FIELDS: tuple[str, ...] = ()  # knobs left out of to_dict() while at their default (see below)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the fields only: cached properties (phase functions, plug-in modules) are
        rebuilt where the rules are unpickled (a Ray worker)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(cast(Any, self))}

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain JSON data. Knobs added after results were published
        (``OPTIONAL_FIELDS``) are left out while at their default, so adding a knob does not
        change the hash, and so the results folder, of a config that does not use it."""
        d = {k: _plain(v) for k, v in dataclasses.asdict(cast(Any, self)).items()}
        d["match"]["game_points"] = dict(self.match.game_points)
        if d["match"].get("scoring") == "table":  # added later: left out at its default
            del d["match"]["scoring"]
        for f in self.OPTIONAL_FIELDS:
            if getattr(self, f) == getattr(type(self), f):
                del d[f]
        return d

    def fingerprint(self) -> str:
        """A short hash of everything that changes play (not the name)."""
        d = self.to_dict()
        d.pop("name")
        blob = json.dumps(d, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def describe(self) -> str:
        """A loggable one-liner listing what differs from the game's default rules."""
        base = type(self)().to_dict()
        mine = self.to_dict()
        diffs = [f"{k}={mine[k]}" for k in mine if k != "name" and mine[k] != base.get(k)]
        return f"{self.game}({', '.join(diffs)})"


def _plain(v: Any) -> Any:
    """Tuples to lists, recursively (the JSON shape of a rules field)."""
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


@dataclass(frozen=True)
class Rules(RulesBase):
    """One cribbage rule set: the core knobs as fields, each active variant's knobs in
    ``params`` (read them as attributes: ``rules.min_bid``), and the flow assembled from the
    standard game and the variants (``program``). Build it with :func:`rules_from_mapping` or
    :func:`load_rules`, which validate every key."""

    name: str = "standard"
    game: str = "cribbage"
    players: int = 2
    deal: int = 6
    discard: int = 2
    dealer_deal: int = 6
    dealer_discard: int = 2
    crib_from_deck: int = 0
    target: int = 121
    skunk_lines: tuple = (91, 61, 31)  # skunk, double skunk, triple skunk (R-MATCH-1)
    sides: tuple = ((0,), (1,))
    crib_flush_needs_starter: bool = True  # R-SHOW-6
    score_floor: int | None = None  # the lowest score a penalty or a price may leave (None: a variant's own)
    match: MatchFormat = field(default_factory=MatchFormat)
    variants: tuple = ()  # the variants named in the file (canonical order), besides those a knob enables
    params: tuple = ()  # (name, value) of every variant knob, sorted

    def __post_init__(self) -> None:
        # every variant knob, at its value (the default where the rule set does not set it),
        # as a plain attribute: ``rules.min_bid``
        self.__dict__.update({name: p.default for name, (_, p) in PARAMS.items()})
        self.__dict__.update(dict(self.params))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling (a Ray worker): the fields, then the knobs as attributes again."""
        self.__dict__.update(state)
        self.__post_init__()

    # ---- derived, cheap (computed once) ----
    @cached_property
    def hand_size(self) -> int:
        return self.deal - self.discard

    @cached_property
    def crib_size(self) -> int:
        return (self.players - 1) * self.discard + self.dealer_discard + self.crib_from_deck

    @cached_property
    def modules(self) -> tuple[type[Variant], ...]:
        """The active variants (their classes), in the registry's canonical order."""
        return active_variants(self.variants, dict(self.params))

    @cached_property
    def deck_size(self) -> int:
        return 52 + sum(fn(self) for v in self.modules if (fn := v.extra_cards) is not None)

    @cached_property
    def program(self) -> Any:
        """The deal's phases, hooks, decisions and observation (``cribsim.engine.program``)."""
        from .engine.program import Program

        return Program(self)

    @cached_property
    def objective(self) -> int:
        """+1: score points; -1: avoid them (a variant may reverse the game). Strategies
        multiply their values by it."""
        return self.program.objective

    @property
    def needs(self) -> tuple[str, ...]:
        """What a strategy must understand or answer to play these rules (checked when a
        lineup loads): the variants' needs, and their decisions without a default answer."""
        prog = self.program
        refused = {n for n, d in prog.decisions.items() if d.default is None and n not in ("discard", "play")}
        return tuple(sorted(set(prog.needs) | refused))

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain JSON data: the core fields, the variants named, and the knobs of
        the active variants (and the knobs always recorded) that differ from their defaults."""
        d = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "params"}
        d["match"] = _plain(dataclasses.asdict(self.match))
        d["match"]["game_points"] = dict(self.match.game_points)
        if d["match"].get("scoring") == "table":  # added later: left out at its default
            del d["match"]["scoring"]
        if self.score_floor is None:
            del d["score_floor"]
        values = dict(self.params)
        active = {v.name for v in self.modules}
        for v in VARIANTS.values():
            for p in v.params:
                val = values.get(p.name, p.default)
                if p.recorded or (v.name in active and val != p.default):
                    d[p.name] = _plain(val)
        return d

    def describe(self) -> str:
        """A loggable one-liner: the player count, then what differs from that count's
        standard game (R-DEAL-2 defaults), e.g. ``cribbage(players=3, dealer_deal=6, ...)``."""
        base = rules_from_mapping({"players": self.players}).to_dict()
        mine = self.to_dict()
        diffs = [f"{k}={mine[k]}" for k in mine if k not in ("name", "players") and mine[k] != base.get(k)]
        return f"{self.game}(players={self.players}{', ' if diffs else ''}{', '.join(diffs)})"

    def with_match(self, match: MatchFormat, source: str = "<inline>") -> Rules:
        """These rules with another match format (an experiment's ``match:``), checked again."""
        from .engine.program import Program

        rules = dataclasses.replace(self, match=match)
        check_match_sides(source, "match", match, len(rules.sides))
        rules.__dict__["program"] = Program(rules, source)  # variants check the combination again
        return rules


def active_variants(listed: Iterable[str], values: dict[str, Any]) -> tuple[type[Variant], ...]:
    """The variant classes active for a list of named variants and the knob values."""
    out = []
    for name, v in VARIANTS.items():
        on = any(values.get(k, _param(k).default) != _param(k).default for k in v.enabled_by)
        if name in listed or on:
            out.append(v)
    return tuple(out)


def _param(name: str) -> Param:
    return PARAMS[name][1]


# ---- loading ------------------------------------------------------------------------------

# a working-directory configs/rules/NAME.yaml shadows the preset NAME shipped in the package
RULES_DIRS = [Path.cwd() / "configs" / "rules", presets.rules_dir()]
MAX_WHOLE = 10_000  # the largest whole number a rules file may give (targets, bids, game points...)

_TOP_KEYS = {
    "name", "game", "extends", "players", "deal", "discard", "dealer_deal", "dealer_discard",
    "crib_from_deck", "target", "skunk_lines", "sides", "crib_flush_needs_starter",
    "match", "variants", "description", "score_floor",
} | set(PARAMS)
MAX_MATCH_GAMES = 1000  # match.first_to and match.games
_MATCH_KEYS = {"first_to", "games", "game_points", "triple_skunk_wins_match", "scoring"}
_POINT_KEYS = {"win", "skunk", "double_skunk", "triple_skunk"}


def find_rules_file(name: str, relative_to: str | Path | None = None) -> Path | None:
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


def is_rules_path(name: str) -> bool:
    """Whether a rules reference is a file path rather than a preset name."""
    name = str(name)
    return name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name


def preset_names() -> list[str]:
    names: set[str] = set()
    for d in RULES_DIRS:
        if d.is_dir():
            names.update(f.stem for f in d.glob("*.yaml") if check_name(f.stem) is None)
    return sorted(names)


def read_yaml(path: str | Path) -> dict[str, Any]:
    """Safe-load a YAML mapping within the limits of ``cribsim.yamlio`` (size, depth, aliases,
    duplicate keys, UTF-8); a one-line ConfigError for a missing file or bad YAML."""
    from cribsim.yamlio import read_mapping

    return read_mapping(path)


def load_rules(ref: str | Path, _seen: tuple[str, ...] = ()) -> Any:
    """Rules from a preset name or a YAML file path (following ``extends:``)."""
    path = find_rules_file(str(ref))
    if path is None:
        raise ConfigError(ref, None, f"no such rules file or preset (presets: {', '.join(preset_names())})")
    return rules_from_mapping(read_yaml(path), source=str(path), _seen=_seen)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _raw_with_extends(data: dict[str, Any], source: str, seen: tuple[str, ...]) -> dict[str, Any]:
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
    merged = _merge({k: v for k, v in pdata.items() if k != "name"}, child)
    if isinstance(pdata.get("variants"), list) and isinstance(child.get("variants"), list):
        # variant lists add up: a file extending lowball.yaml names only what it adds
        merged["variants"] = pdata["variants"] + [v for v in child["variants"] if v not in pdata["variants"]]
    return merged


def int_key(source: str, key: str, v: Any, lo: int, hi: int | None = None) -> int:
    """A whole number lo..hi; without ``hi`` at most MAX_WHOLE (10,000)."""
    hi = MAX_WHOLE if hi is None else hi
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise ConfigError(source, key, f"expected a whole number {lo}..{hi}, got {_short(v)}")
    return v


def _short(v: Any, limit: int = 80) -> str:
    """A value as shown in an error message: repr, shortened, one line."""
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _choice(source: str, key: str, v: Any, options: Sequence[str]) -> str:
    if not isinstance(v, str) or v not in options:
        raise ConfigError(source, key, f"expected one of {', '.join(options)}, got {_short(v)}")
    return v


def bool_key(source: str, key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(source, key, f"expected true or false, got {_short(v)}")
    return v


def unknown_keys(source: str, prefix: str, data: dict[str, Any], allowed: Iterable[str]) -> None:
    for k in data:
        if k not in allowed:
            raise ConfigError(source, f"{prefix}{k}",
                              f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def match_format(source: str, m: Any) -> MatchFormat:
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
        raise ConfigError(source, "match.scoring",
                          f"expected table, winner_takes_all or continued, got {_short(scoring)}")
    return MatchFormat(first_to=first_to if games == 0 else 0, games=games,
                       game_points=tuple(sorted(table.items())), triple_skunk_wins_match=tsw, scoring=scoring)


CORE_PARAMS = (
    Param("target", int, 121, "points to win (R-WIN-1, V-TARGET)", lo=1, hi=10_000),
    Param("crib_flush_needs_starter", bool, True, "a crib flush needs the starter's suit too (R-SHOW-6)"),
    Param("score_floor", int, None, "the lowest score a penalty or a price may leave (default: the variant's own)",
          lo=-10_000, hi=10_000, nullable=True),
)


def rules_from_dict(data: dict[str, Any], source: str = "<inline>", default_game: str = "cribbage") -> Any:
    """The inverse of ``to_dict``: rules from their JSON form (a game record, a manifest). The
    JSON form keeps the match format's unused count as 0 (``games`` or ``first_to``), which a
    rules file leaves out."""
    data = dict(data)
    match = data.get("match")
    if isinstance(match, dict):
        data["match"] = {k: v for k, v in match.items() if not (k in ("games", "first_to") and v == 0)}
    return rules_from_mapping(data, source, default_game=default_game)


def rules_from_mapping(data: dict[str, Any], source: str = "<inline>", _seen: tuple[str, ...] = (),
                       default_game: str = "cribbage") -> Any:
    """Build and validate rules from a mapping (as read from YAML). ``game:`` (after following
    ``extends:``) picks the game; Fives and Threes rules are built by ``cribsim.dominoes``."""
    data = _raw_with_extends(data, source, _seen)
    game = data.get("game", default_game)
    if game != "cribbage":
        from cribsim.games import game_named

        return game_named(game, source).rules_from_mapping(data, source)
    unknown_keys(source, "", data, _TOP_KEYS)
    name = data.get("name", Path(source).stem if source != "<inline>" else "inline")
    if not isinstance(name, str):
        raise ConfigError(source, "name", f"expected a string, got {name!r}")
    players = int_key(source, "players", data.get("players", 2), 2, MAX_PLAYERS)
    deal = _deal_sizes(source, data, players)
    core = {p.name: p.parse(source, data[p.name]) if p.name in data else p.default for p in CORE_PARAMS}
    listed, values = _variant_knobs(source, data)
    deck = 52 + sum(fn(_Values(values)) for v in active_variants(listed, values) if (fn := v.extra_cards) is not None)
    needed = (players - 1) * deal["deal"] + deal["dealer_deal"] + deal["crib_from_deck"] + 1
    if needed > deck:
        raise ConfigError(source, "players",
                          f"{players} players need {needed} cards (hands, crib and starter) but the deck has {deck}")
    target = core["target"]
    sides = sides_key(source, data.get("sides"), players)
    match = match_format(source, data.get("match"))
    check_match_sides(source, "match.scoring", match, len(sides))
    rules = Rules(name=name, players=players, deal=deal["deal"], discard=deal["discard"],
                  dealer_deal=deal["dealer_deal"], dealer_discard=deal["dealer_discard"],
                  crib_from_deck=deal["crib_from_deck"], target=target, skunk_lines=_skunk_lines(source, data, target),
                  sides=sides, crib_flush_needs_starter=core["crib_flush_needs_starter"],
                  score_floor=core["score_floor"], match=match, variants=tuple(listed),
                  params=tuple(sorted(values.items())))
    from .engine.program import Program

    # assembled now, so that a combination the variants cannot play is an error naming the file
    rules.__dict__["program"] = Program(rules, source)
    return rules


class _Values:
    """Knob values read as attributes, for a variant's ``extra_cards`` before the rules exist."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


def _deal_sizes(source: str, data: dict[str, Any], players: int) -> dict[str, int]:
    d_deal, d_disc, d_ddeal, d_ddisc, d_crib = DEAL_DEFAULTS[players]
    deal = int_key(source, "deal", data.get("deal", d_deal), 1, 20)
    discard = int_key(source, "discard", data.get("discard", d_disc if "deal" not in data else deal - 4), 0, 20)
    dealer_deal = int_key(source, "dealer_deal", data.get("dealer_deal", d_ddeal if "deal" not in data else deal),
                          1, 20)
    own_discard = d_ddisc if "deal" not in data else dealer_deal - (deal - discard)
    dealer_discard = int_key(source, "dealer_discard", data.get("dealer_discard", own_discard), 0, 20)
    crib_from_deck = int_key(source, "crib_from_deck", data.get("crib_from_deck", d_crib), 0, 20)
    if discard > deal:
        raise ConfigError(source, "discard", f"expected at most deal ({deal}), got {discard}")
    if dealer_deal - dealer_discard != deal - discard:
        raise ConfigError(source, "dealer_discard",
                          f"every hand must end the same size: dealer keeps {dealer_deal - dealer_discard}, "
                          f"others keep {deal - discard}")
    if deal - discard < 1:
        raise ConfigError(source, "discard", "every hand must keep at least one card")
    if (players - 1) * discard + dealer_discard + crib_from_deck < 1:
        raise ConfigError(source, "discard", "the crib would be empty: discard or crib_from_deck must give it cards")
    return {"deal": deal, "discard": discard, "dealer_deal": dealer_deal, "dealer_discard": dealer_discard,
            "crib_from_deck": crib_from_deck}


def _skunk_lines(source: str, data: dict[str, Any], target: int) -> tuple[int, ...]:
    if "skunk_lines" not in data:  # R-MATCH-1: the lines scale with the target
        return (math.ceil(3 * target / 4), math.ceil(target / 2), math.ceil(target / 4))
    sl = data["skunk_lines"]
    if not (isinstance(sl, list) and len(sl) == 3):
        raise ConfigError(source, "skunk_lines", "expected three numbers [skunk, double, triple]")
    for i, v in enumerate(sl):
        int_key(source, f"skunk_lines[{i}]", v, 0, target)
    if not sl[0] >= sl[1] >= sl[2]:
        raise ConfigError(source, "skunk_lines", f"expected decreasing lines, got {sl}")
    return tuple(sl)


def _variant_knobs(source: str, data: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """(variants named, every variant knob's value), validated: a named variant that a knob
    enables sets that knob instead of staying in the list; a knob of a variant that is not
    active is an error."""
    listed = data.get("variants", [])
    if not isinstance(listed, list):
        raise ConfigError(source, "variants", "expected a list of variant names")
    for i, v in enumerate(listed):
        if v not in VARIANTS:
            raise ConfigError(source, f"variants[{i}]",
                              f"unknown variant {v!r} (known: {', '.join(sorted(VARIANTS))})")
    values = {name: p.parse(source, data[name]) if name in data else p.default for name, (_, p) in PARAMS.items()}
    named = []
    for name in sorted(set(listed)):
        v = VARIANTS[name]
        if not v.enabled_by:
            named.append(name)
        elif all(values[k] == _param(k).default for k in v.enabled_by):
            for k in v.enabled_by:
                values[k] = _param(k).enabled_value
    active = {v.name for v in active_variants(named, values)}
    for key in data:
        if key in PARAMS and PARAMS[key][0].name not in active and data[key] != PARAMS[key][1].default \
                and not PARAMS[key][1].recorded:
            owner = PARAMS[key][0]
            raise ConfigError(source, key, f"a knob of {owner.name} ({owner.rule}), which these rules do not "
                                           f"play: add {owner.name} to variants")
    return [n for n in VARIANTS if n in named], values


def sides_key(source: str, sides: Any, players: int) -> tuple[tuple[int, ...], ...]:
    if sides is None:
        return tuple((s,) for s in range(players))
    if not isinstance(sides, list) or not all(isinstance(s, list) and s for s in sides):
        raise ConfigError(source, "sides", "expected a list of seat lists, e.g. [[0, 2], [1, 3]]")
    seats = [x for s in sides for x in s]
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in seats):
        raise ConfigError(source, "sides", f"expected whole-number seats 0..{players - 1}, got {_short(sides)}")
    if sorted(seats) != list(range(players)):
        raise ConfigError(source, "sides",
                          f"expected every seat 0..{players - 1} in exactly one side, got {_short(sides)}")
    if len(sides) < 2:
        raise ConfigError(source, "sides", "expected at least two sides")
    return tuple(tuple(s) for s in sides)


def check_match_sides(source: str, key: str, match: MatchFormat, sides: int) -> MatchFormat:
    """A match format that fits ``sides`` sides: winner-takes-all (R-MATCH-4) is for three,
    continued play (R-MATCH-5) for three or five. For a match format given apart from the
    rules (an experiment's ``match:``), which the rules' own check does not see."""
    if match.scoring == "winner_takes_all" and sides != 3:
        raise ConfigError(source, key, f"winner_takes_all (R-MATCH-4) is for three players, not {sides} sides")
    if match.scoring == "continued" and sides not in (3, 5):
        raise ConfigError(source, key, f"continued play (R-MATCH-5) is for three or five players, not {sides} sides")
    return match
