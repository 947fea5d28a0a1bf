"""Rule sets of any game: the match format, what every game's rules share (sides, a JSON form, a
fingerprint), the strict checks of a rules file's keys, and loading (presets and files,
``extends:``, the ``game:`` key that picks the game that builds the rules).

A rules file is YAML; ``extends:`` names a parent (a preset or a path) whose keys it overrides
(mappings merge key by key, ``variants:`` lists add up); ``game:`` (after following
``extends:``) names the game, the registry's default game when absent. Loading is strict: an
unknown key or an impossible value is a one-line :class:`ConfigError` naming the file and the
key."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from cribsim.yamlio import read_mapping

from . import presets
from .codepath import expose_named
from .errors import ConfigError, CribsimError
from .games import default_game, game_named
from .names import check_name
from .suggest import did_you_mean

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
    game_points: tuple[tuple[str, int], ...] = tuple(sorted(GAME_POINT_TABLES["default"].items()))
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
        d = {k: plain(v) for k, v in dataclasses.asdict(cast(Any, self)).items()}
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


def plain(v: Any) -> Any:
    """Tuples to lists, recursively (the JSON shape of a rules field)."""
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


# ---- loading ------------------------------------------------------------------------------

# a working-directory configs/rules/NAME.yaml shadows the preset NAME shipped in the package
RULES_DIRS = [Path.cwd() / "configs" / "rules", presets.rules_dir()]
MAX_WHOLE = 10_000  # the largest whole number a rules file may give (targets, bids, game points...)
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

    return read_mapping(path)


_TOLD: dict[str, Any] = {}  # a rules reference a strategy's parameter gives (believes) -> the rules it named


def remember_rules(ref: str, rules: Any) -> None:
    """Keep the rules that ``ref`` named where a config gave it (a rules file read from the
    config's folder), for :func:`told_rules` in every process of the run (shipped to Ray
    workers with each batch's context, as the run's own rules are)."""
    _TOLD[ref] = rules


def remembered_rules() -> dict[str, Any]:
    """The rules references kept by :func:`remember_rules`, and their rules."""
    return dict(_TOLD)


def told_rules(ref: str) -> Any:
    """The rules a strategy's parameter names: those a config's reading kept for ``ref``, else
    :func:`load_rules` (a preset name or a path from the working directory)."""
    got = _TOLD.get(ref)
    return got if got is not None else load_rules(ref)


def load_rules(ref: str | Path, _seen: tuple[str, ...] = ()) -> Any:
    """Rules from a preset name or a YAML file path (following ``extends:``)."""
    path = find_rules_file(str(ref))
    if path is None:
        raise ConfigError(ref, None, f"no such rules file or preset{did_you_mean(ref, preset_names())} "
                                     f"(presets: {', '.join(preset_names())})")
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
        raise ConfigError(source, "extends", f"no rules file or preset named '{parent}'"
                                             f"{did_you_mean(parent, preset_names())}")
    key = str(ppath.resolve())
    if key in seen:
        raise ConfigError(source, "extends", f"'{parent}' extends itself (a cycle)")
    pdata = _raw_with_extends(read_yaml(ppath), str(ppath), seen + (key,))
    for v in pdata.get("variants") or []:
        if isinstance(v, str) and ":" in v:
            _beside(str(ppath), v, "variants")  # a variant of one's own (module:Class) beside the parent rules file
    child = {k: v for k, v in data.items() if k != "extends"}
    base = {k: v for k, v in pdata.items() if k != "name"}
    cmatch, pmatch = child.get("match"), base.get("match")
    if isinstance(cmatch, dict) and isinstance(pmatch, dict) and ({"first_to", "games"} & set(cmatch)):
        # a match's length is one choice: the child's first_to or games replaces the parent's
        base["match"] = {k: v for k, v in pmatch.items() if k not in ("first_to", "games")}
    merged = _merge(base, child)
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


def bool_key(source: str, key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(source, key, f"expected true or false, got {_short(v)}")
    return v


def unknown_keys(source: str, prefix: str, data: dict[str, Any], allowed: Iterable[str]) -> None:
    for k in data:
        if k not in allowed:
            raise ConfigError(source, f"{prefix}{k}",
                              f"unknown key{did_you_mean(k, allowed)} (expected one of: {', '.join(sorted(allowed))})")


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


def rules_from_dict(data: dict[str, Any], source: str = "<inline>", game: str | None = None) -> Any:
    """The inverse of ``to_dict``: rules from their JSON form (a game record, a manifest). The
    JSON form keeps the match format's unused count as 0 (``games`` or ``first_to``), which a
    rules file leaves out."""
    data = dict(data)
    match = data.get("match")
    if isinstance(match, dict):
        data["match"] = {k: v for k, v in match.items() if not (k in ("games", "first_to") and v == 0)}
    return rules_from_mapping(data, source, game=game)


def rules_from_mapping(data: dict[str, Any], source: str = "<inline>", _seen: tuple[str, ...] = (),
                       game: str | None = None) -> Any:
    """Build and validate rules from a mapping (as read from YAML): ``extends:`` followed, then
    ``game:`` (else ``game``, else the registry's default game) picks the game that builds them."""
    data = _raw_with_extends(data, source, _seen)
    name = data.get("game", game)
    if isinstance(name, str) and ":" in name and source.endswith((".yaml", ".yml")):
        _beside(source, name)  # a game of one's own (module:attribute) beside the rules file
    chosen = game_named(name, source) if name is not None else default_game()
    return chosen.build_rules(data, source)


def _beside(source: str, name: str, key: str = "game") -> None:
    """Make a module of one's own beside the rules file importable: a game's or a variant's
    (``module:attribute``), that module only (see :mod:`cribsim.codepath`)."""
    try:
        expose_named(name, [Path(source).resolve().parent])
    except CribsimError as e:
        raise ConfigError(source, key, str(e).removeprefix("cribsim: ")) from None


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


OPPOSITE = ((0, 2), (1, 3))  # four players as two partnerships, partners facing each other


def everyone_alone(sides: Sequence[Sequence[int]]) -> bool:
    return all(len(s) == 1 for s in sides)


def opposite_partnerships(sides: Sequence[Sequence[int]]) -> bool:
    """Four players as two partnerships sitting opposite (in either order of the sides)."""
    return sorted(tuple(sorted(s)) for s in sides) == list(OPPOSITE)


def check_match_sides(source: str, key: str, match: MatchFormat, sides: int) -> MatchFormat:
    """A match format that fits ``sides`` sides: winner-takes-all (R-MATCH-4) is for three,
    continued play (R-MATCH-5) for three or five. For a match format given apart from the
    rules (an experiment's ``match:``), which the rules' own check does not see."""
    if match.scoring == "winner_takes_all" and sides != 3:
        raise ConfigError(source, key, f"winner_takes_all (R-MATCH-4) is for three players, not {sides} sides")
    if match.scoring == "continued" and sides not in (3, 5):
        raise ConfigError(source, key, f"continued play (R-MATCH-5) is for three or five players, not {sides} sides")
    return match
