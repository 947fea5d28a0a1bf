"""Experiment configs: strict YAML -> a validated, hashable Experiment.

    name: ladder
    game: cribbage
    variants: [standard, configs/rules/x.yaml, {name: short, extends: standard, target: 61}]
    lineup:
      - {name: mine, strategy: "mypkg.bots:Clever", params: {depth: 2}}
      - {strategy: random}
    format: round_robin            # or gauntlet, or pairings (with pairings: [[a, b], ...])
    match: {first_to: 1}           # overrides the match format of every variant
    matches: 2000                  # per table (pairing) and variant
    paired: true                   # each deal sequence replayed under every seating
    seed: 20261129
    time_limit: 10                 # seconds per decision before a forfeit
    stop: {sprt: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}}
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from ..errors import ConfigError, CribsimError
from ..games import GAMES, game_named
from ..rules import find_rules_file, load_rules, match_format, read_yaml, rules_from_mapping, unknown_keys
from ..strategy import factory

TOP_KEYS = {"name", "game", "description", "variants", "lineup", "format", "pairings", "match",
            "matches", "paired", "seed", "time_limit", "stop"}
ENTRY_KEYS = {"name", "strategy", "params", "miss_rate", "vigilance"}
FORMATS = ("round_robin", "gauntlet", "pairings")
DEFAULT_RULES = {"cribbage": "standard", "fives_threes": "fives_threes"}


@dataclass(frozen=True)
class Entry:
    name: str
    strategy: str
    params: tuple = ()  # sorted (key, value) pairs
    miss_rate: float = 0.0  # V-MUGGINS counting model: chance of overlooking each scoring item
    vigilance: float = 1.0  # chance of spotting an opponent's miss (with muggins)

    def param_dict(self):
        return dict(self.params)

    def to_dict(self):
        """As JSON; a perfect counter's model is left out, so older configs keep their hash."""
        d = dataclasses.asdict(self)
        if self.miss_rate == 0.0 and self.vigilance == 1.0:
            del d["miss_rate"], d["vigilance"]
        return d


@dataclass(frozen=True)
class Sprt:
    test: str  # "elo" (each two-entry table) or "first_dealer" (each variant against a baseline)
    mu0: float
    mu1: float
    alpha: float
    beta: float
    baseline: int = -1  # variant index for the first_dealer test
    settings: tuple = ()  # as written, for the report


@dataclass(frozen=True)
class Experiment:
    name: str
    source: str
    variants: tuple  # Rules, in order
    lineup: tuple  # Entry
    tables: tuple  # per variant: tuple of tables, each a tuple of entry indexes (one per side)
    matches: int
    paired: bool
    seed: int
    time_limit: float
    sprt: Sprt = None
    raw: str = ""  # canonical JSON of the resolved config
    game: str = "cribbage"

    def config_hash(self):
        return hashlib.sha256(self.raw.encode()).hexdigest()[:16]


def _num(source, key, v, lo, kind=float):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind is int:
        ok = ok and isinstance(v, int)
    if not ok or v < lo:
        what = "a whole number" if kind is int else "a number"
        raise ConfigError(source, key, f"expected {what} >= {lo}, got {v!r}")
    return v


def load_experiment(path, seed=None):
    """Load and validate an experiment config; every error names the file and the key."""
    if not Path(path).is_file():
        raise ConfigError(path, None, "no such experiment file")
    data = read_yaml(path)
    source = str(path)
    unknown_keys(source, "", data, TOP_KEYS)
    game = data.get("game", "cribbage")
    if not isinstance(game, str):
        raise ConfigError(source, "game", f"expected one of {', '.join(GAMES)}, got {game!r}")
    game_named(game, source)
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str) or not name or "/" in name:
        raise ConfigError(source, "name", f"expected a simple name, got {name!r}")

    match = None
    if "match" in data:
        match = match_format(source, data["match"])
    variants = _variants(source, data.get("variants", [DEFAULT_RULES[game]]), match, game)

    lineup = _lineup(source, data.get("lineup"), game, variants)
    fmt = data.get("format", "round_robin")
    if fmt not in FORMATS:
        raise ConfigError(source, "format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt != "pairings" and "pairings" in data:
        raise ConfigError(source, "pairings", "only with format: pairings")
    tables = tuple(_tables(source, fmt, data.get("pairings"), lineup, r, i) for i, r in enumerate(variants))

    matches = _num(source, "matches", data.get("matches", 100), 1, int)
    paired = data.get("paired", True)
    if not isinstance(paired, bool):
        raise ConfigError(source, "paired", f"expected true or false, got {paired!r}")
    if seed is None:
        seed = data.get("seed", 1)
    seed = _num(source, "seed", seed, 0, int)
    time_limit = float(_num(source, "time_limit", data.get("time_limit", 10), 0.01))
    sprt = _sprt(source, data.get("stop"), variants, tables)

    resolved = {
        "name": name, "game": game,
        "variants": [r.to_dict() for r in variants],
        "lineup": [e.to_dict() for e in lineup],
        "tables": [[list(t) for t in ts] for ts in tables],
        "matches": matches, "paired": paired, "seed": seed, "time_limit": time_limit,
        "stop": dataclasses.asdict(sprt) if sprt else None,
    }
    raw = json.dumps(resolved, sort_keys=True, default=list)
    return Experiment(name, source, tuple(variants), tuple(lineup), tables, matches, paired, seed,
                      time_limit, sprt, raw, game)


def _variants(source, spec, match, game):
    if not isinstance(spec, list) or not spec:
        raise ConfigError(source, "variants", "expected a non-empty list of rules names, files or mappings")
    out = []
    for i, v in enumerate(spec):
        key = f"variants[{i}]"
        try:
            if isinstance(v, str):
                path = find_rules_file(v, relative_to=source)
                if path is None:
                    raise ConfigError(source, key, f"unknown variant {v!r} (see 'cribsim list')")
                r = load_rules(str(path))
            elif isinstance(v, dict):
                if "name" not in v:
                    raise ConfigError(source, f"{key}.name", "an inline variant needs a name")
                r = rules_from_mapping(v, source=source, default_game=game)
            else:
                raise ConfigError(source, key, f"expected a rules name, file or mapping, got {v!r}")
        except ConfigError as e:
            if e.source == source:
                raise
            raise ConfigError(source, key, f"in {e.source}: {e.expected}" + (f" (key '{e.key}')" if e.key else "")) from None
        if r.game != game:
            raise ConfigError(source, key, f"'{r.name}' is {r.game} rules but the experiment's game is {game}")
        if match is not None:
            r = r.with_match(match, source) if hasattr(r, "with_match") else dataclasses.replace(r, match=match)
        out.append(r)
    _unique(source, "variants[{}]", [r.name for r in out], "variant")
    return out


def _lineup(source, spec, game, variants=()):
    if not isinstance(spec, list) or not spec:
        raise ConfigError(source, "lineup", "expected a list of entries such as {name: ev, strategy: ev}")
    out = []
    for i, e in enumerate(spec):
        key = f"lineup[{i}]"
        if isinstance(e, str):
            e = {"strategy": e}
        if not isinstance(e, dict):
            raise ConfigError(source, key, "expected a mapping with a strategy")
        unknown_keys(source, f"{key}.", e, ENTRY_KEYS)
        strat = e.get("strategy")
        if not isinstance(strat, str):
            raise ConfigError(source, f"{key}.strategy", "expected a built-in name or module:Class")
        params = e.get("params", {}) or {}
        if not isinstance(params, dict):
            raise ConfigError(source, f"{key}.params", "expected a mapping of parameters")
        name = e.get("name", strat)
        if not isinstance(name, str) or not name:
            raise ConfigError(source, f"{key}.name", f"expected a name, got {name!r}")
        try:
            factory(strat, params, rules=variants, game=game)
        except CribsimError as err:
            raise ConfigError(source, f"{key}.strategy", str(err).removeprefix("cribsim: ")) from None
        rates = []
        for k, default in (("miss_rate", 0.0), ("vigilance", 1.0)):
            v = e.get(k, default)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
                raise ConfigError(source, f"{key}.{k}", f"expected a probability between 0 and 1, got {v!r}")
            if game != "cribbage" and k in e:
                raise ConfigError(source, f"{key}.{k}", "the counting model is for cribbage (V-MUGGINS)")
            rates.append(float(v))
        out.append(Entry(name, strat, tuple(sorted(params.items())), *rates))
    _unique(source, "lineup[{}].name", [e.name for e in out], "entry")
    return out


def _unique(source, key, names, what):
    for i, n in enumerate(names):
        if names.index(n) != i:
            raise ConfigError(source, key.format(i), f"duplicate {what} name {n!r}")


def _tables(source, fmt, pairings, lineup, rules, vi):
    k = len(rules.sides)
    n = len(lineup)
    if fmt == "pairings":
        if not isinstance(pairings, list) or not pairings:
            raise ConfigError(source, "pairings", "expected a list of tables, e.g. [[ev, random]]")
        names = [e.name for e in lineup]
        out = []
        for i, t in enumerate(pairings):
            if not isinstance(t, list) or any(x not in names for x in t):
                raise ConfigError(source, f"pairings[{i}]", f"expected a list of lineup names ({', '.join(names)})")
            if len(t) != k:
                raise ConfigError(source, f"pairings[{i}]",
                                  f"lists {len(t)} entries but variant '{rules.name}' has {k} sides")
            out.append(tuple(names.index(x) for x in t))
        return tuple(out)
    if n < k:
        raise ConfigError(source, "lineup", f"has {n} entries but variant '{rules.name}' needs {k} sides "
                                            "(list tables with format: pairings to repeat an entry)")
    if fmt == "round_robin":
        return tuple(combinations(range(n), k))
    if n == k:
        return (tuple(range(n)),)
    return tuple((0,) + rest for rest in combinations(range(1, n), k - 1))  # gauntlet


def _sprt(source, stop, variants, tables):
    if stop is None:
        return None
    if not isinstance(stop, dict) or set(stop) != {"sprt"} or not isinstance(stop["sprt"], dict):
        raise ConfigError(source, "stop", "expected {sprt: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}}")
    s = stop["sprt"]
    test = s.get("test", "elo")
    alpha = float(_num(source, "stop.sprt.alpha", s.get("alpha", 0.05), 1e-6))
    beta = float(_num(source, "stop.sprt.beta", s.get("beta", 0.05), 1e-6))
    if alpha >= 0.5 or beta >= 0.5:
        raise ConfigError(source, "stop.sprt", "alpha and beta must be below 0.5")
    if test == "elo":
        unknown_keys(source, "stop.sprt.", s, {"test", "elo0", "elo1", "alpha", "beta"})
        elo0, elo1 = s.get("elo0", 0), s.get("elo1", 20)
        for key, v in (("elo0", elo0), ("elo1", elo1)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise ConfigError(source, f"stop.sprt.{key}", f"expected a number, got {v!r}")
        if elo1 == elo0:
            raise ConfigError(source, "stop.sprt.elo1", "must differ from elo0")
        if any(len(t) != 2 for ts in tables for t in ts):
            raise ConfigError(source, "stop.sprt", "the elo test needs two-sided tables")
        from .stats import elo_to_score
        return Sprt("elo", elo_to_score(elo0), elo_to_score(elo1), alpha, beta,
                    settings=tuple(sorted(s.items())))
    if test == "first_dealer":
        unknown_keys(source, "stop.sprt.", s, {"test", "baseline", "delta0", "delta1", "alpha", "beta"})
        names = [r.name for r in variants]
        base = s.get("baseline", names[0])
        if base not in names:
            raise ConfigError(source, "stop.sprt.baseline", f"expected a variant name ({', '.join(names)})")
        if len(variants) < 2:
            raise ConfigError(source, "stop.sprt", "the first_dealer test compares variants: list two or more")
        d0, d1 = s.get("delta0", 0.0), s.get("delta1", 0.03)
        for key, v in (("delta0", d0), ("delta1", d1)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not -1 < v < 1:
                raise ConfigError(source, f"stop.sprt.{key}", f"expected a number between -1 and 1, got {v!r}")
        if d0 == d1:
            raise ConfigError(source, "stop.sprt.delta1", "must differ from delta0")
        if len({ts for ts in tables}) != 1:
            raise ConfigError(source, "stop.sprt", "the first_dealer test needs the same tables in every variant")
        return Sprt("first_dealer", float(d0), float(d1), alpha, beta, names.index(base),
                    settings=tuple(sorted(s.items())))
    raise ConfigError(source, "stop.sprt.test", f"expected 'elo' or 'first_dealer', got {test!r}")
