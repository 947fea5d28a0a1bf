"""Experiment configs: strict YAML -> a validated, hashable Experiment.

    name: ladder
    game: cribbage
    variants: [standard, configs/rules/x.yaml, {name: short, extends: standard, target: 61}]
    lineup:
      - {name: mine, strategy: "mypkg.bots:Clever", params: {depth: 2}}   # isolated (trusted: true: in-process)
      - {strategy: random}
    format: round_robin            # or gauntlet, or pairings (with pairings: [[a, b], ...])
    match: {first_to: 1}           # overrides the match format of every variant
    matches: 2000                  # per table (pairing) and variant
    paired: true                   # each deal sequence replayed under every seating
    seed: 20261129
    time_limit: 10                 # seconds per decision before a forfeit
    stop: {sprt: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}}
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, overload

from ..book import BookDeal, Start, read_book, read_starts
from ..codepath import expose_named, find, top_name
from ..errors import ConfigError, CribsimError, describe
from ..game import Rules
from ..games import builtin_names, default_name, game_named
from ..isolation import check as check_plugin
from ..isolation import is_plugin
from ..isolation.bots import Bot, sandbox_on, shown_of
from ..isolation.sandbox import DEFAULT_LIMITS, Limits, require
from ..names import check_name, file_stem
from ..params import declared_params, rules_refs
from ..ruleset import (
    check_match_sides,
    find_rules_file,
    is_rules_path,
    load_rules,
    match_format,
    preset_names,
    read_yaml,
    remember_rules,
    rules_from_mapping,
    told_rules,
    unknown_keys,
)
from ..strategy import builtins, factory, resolve
from ..suggest import did_you_mean
from ..yamlio import key_line
from .stats import elo_to_score
from .sweep import Sweep, SweepPoint, parse_sweeps

if TYPE_CHECKING:
    from cribsim.ruleset import MatchFormat

TOP_KEYS = {"name", "game", "description", "variants", "lineup", "format", "pairings", "match",
            "matches", "paired", "seed", "time_limit", "stop", "record", "deals", "start", "sweep", "sandbox",
            "max_failed", "max_worker_deaths", "hello_limit", "ray"}
ENTRY_KEYS = {"name", "strategy", "params", "miss_rate", "vigilance", "trusted", "command", "cwd", "files"}
MAX_COMMAND = 100  # arguments of a program's command
FORMATS = ("round_robin", "gauntlet", "pairings")
RAY_CHOICES = ("auto", "always")

# bounds (docs/errors.md)
MAX_SEED = 2 ** 63 - 1
MAX_MATCHES = 10 ** 8  # per table and variant, and in a whole run
MIN_TIME_LIMIT, MAX_TIME_LIMIT = 0.01, 3600.0
MAX_ENTRIES = 100  # lineup entries
MAX_VARIANTS = 100
MAX_TABLES = 10_000  # tables (pairings) per variant
MAX_ELO = 2000  # |elo0|, |elo1| of the SPRT
MAX_PARAM_NODES = 10_000  # values in one entry's params
MAX_TEXT = 10_000  # characters of a string value (description, a parameter)


@dataclass(frozen=True)
class Entry:
    name: str
    strategy: str
    params: tuple[tuple[str, Any], ...] = ()  # sorted (key, value) pairs
    miss_rate: float = 0.0  # V-MUGGINS counting model: chance of overlooking each scoring item
    vigilance: float = 1.0  # chance of spotting an opponent's miss (with muggins)
    trusted: bool = False  # a plug-in played in the engine's process (unsafe), not isolated
    command: tuple[str, ...] = ()  # a program's command line (strategy is then "program:NAME")
    cwd: str = ""  # the program's folder, as the config gives it (relative to the config's folder)
    files: tuple[str, ...] = ()  # what the program may read, relative to cwd (default: its command's files)
    home: str = ""  # a plug-in's module file or package folder, as found where the config was loaded

    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def isolated(self, game: str) -> bool:
        """Whether it plays in a process of its own: a program, or an untrusted plug-in."""
        return bool(self.command) or (is_plugin(self.strategy, game) and not self.trusted)

    def untrusted(self, game: str) -> bool:
        """Whether it is a bot the run must not trust: not a built-in, not marked trusted."""
        return is_plugin(self.strategy, game) and not self.trusted

    def bot(self, base: str, limits: Limits = DEFAULT_LIMITS, extra: tuple[str, ...] = (),
            hidden: tuple[str, ...] = ()) -> Bot:
        """How to start its process (``base``: the config's folder, for a relative ``cwd``;
        ``hidden``: folders never shown, the results folder)."""
        if self.command:
            cwd = os.path.abspath(os.path.join(base or ".", self.cwd or "."))
            return Bot(command=self.command, cwd=cwd, sandboxed=sandbox_on(self.trusted), limits=limits,
                       files=program_files(self.command, cwd, self.files), hidden=hidden)
        return Bot(spec=self.strategy, sandboxed=sandbox_on(self.trusted), limits=limits, extra=extra, hidden=hidden,
                   home=self.home)

    def to_dict(self) -> dict[str, Any]:
        """As JSON; a perfect counter's model and an untrusted entry's flag are left out, so older
        configs keep their hash."""
        d = dataclasses.asdict(self)
        if self.miss_rate == 0.0 and self.vigilance == 1.0:
            del d["miss_rate"], d["vigilance"]
        if not self.trusted:
            del d["trusted"]
        if not self.command:
            del d["command"], d["cwd"]
        if not self.files:
            del d["files"]
        del d["home"]  # where this machine found it: not part of the config
        return d


@dataclass(frozen=True)
class Sprt:
    test: str  # "elo" (each two-entry table) or "first_dealer" (each variant against a baseline)
    mu0: float
    mu1: float
    alpha: float
    beta: float
    baseline: int = -1  # variant index for the first_dealer test
    settings: tuple[tuple[str, Any], ...] = ()  # as written, for the report


@dataclass(frozen=True)
class Record:
    """Which matches leave a game record (``record:``): ``none``, ``all``, the first ``sample``
    matches of each table (in schedule order), or the matches lineup entry ``losses_of`` lost."""

    mode: str = "none"
    sample: int = 0
    losses_of: int = -1

    def to_json(self) -> Any:
        if self.mode == "sample":
            return {"sample": self.sample}
        if self.mode == "losses_of":
            return {"losses_of": self.losses_of}
        return self.mode


@dataclass(frozen=True)
class Experiment:
    name: str
    source: str
    variants: tuple[Any, ...]  # Rules, in order
    lineup: tuple[Entry, ...]  # Entry
    # per variant: tuple of tables, each a tuple of entry indexes (one per side)
    tables: tuple[tuple[tuple[int, ...], ...], ...]
    matches: int
    paired: bool
    seed: int
    time_limit: float
    sprt: Sprt | None = None
    raw: str = ""  # canonical JSON of the resolved config
    game: str = ""  # the game's name (cribsim.games); set by load_experiment
    plugin_dir: str = ""  # the config's folder: plug-in strategy modules are imported from there
    # per lineup entry: an isolated plug-in's capabilities (cribsim.isolation), None in-process
    plugins: tuple[dict[str, Any] | None, ...] = dataclasses.field(default=(), compare=False)
    record: Record = Record()
    book: tuple[tuple[BookDeal, ...], ...] = ()  # per variant: the deal book's deals (none: random deals)
    starts: tuple[Start, ...] = ()  # start positions taken in turn (none: 0 each)
    deals_spec: str = ""  # the deal book, as the config names it
    # the sweeps (``sweep:``), each with its points (the variants play them)
    sweeps: tuple[tuple[Sweep, tuple[SweepPoint, ...]], ...] = ()
    limits: Limits = DEFAULT_LIMITS  # the sandbox's limits for untrusted bots (``sandbox:``)
    # the share of matches that may fail (no result: a worker that kept dying) before the run
    # fails; a table whose every match failed fails it whatever the share
    max_failed: float = 0.01
    # a pairing whose first this many matches all failed (their worker died) stops the run
    max_worker_deaths: int = 3
    # where no --workers or --address says: "auto" plays serially a run too small for Ray to win,
    # "always" starts the embedded Ray whatever the run's size (quickstart: it shows Ray at work)
    ray: str = "auto"

    def config_hash(self) -> str:
        return hashlib.sha256(self.raw.encode()).hexdigest()[:16]

    def code_modules(self) -> tuple[str, ...]:
        """The modules of code of one's own that the rules name (a designer's variants, a game of
        one's own): each a file or a package folder."""
        return code_modules(self.game, self.variants)

    def untrusted(self) -> bool:
        """Whether any lineup entry is an untrusted bot (the run's decks then take a secret)."""
        return any(e.untrusted(self.game) for e in self.lineup)


@overload
def _num(source: str, key: str, v: Any, lo: float, kind: type[int], hi: float | None = None) -> int: ...
@overload
def _num(source: str, key: str, v: Any, lo: float, kind: type[float] = float, hi: float | None = None) -> float: ...
def _num(source: str, key: str, v: Any, lo: float, kind: type[float] = float, hi: float | None = None) -> float:
    """A finite number (a whole number for ``kind=int``) lo..hi."""
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind is int:
        ok = ok and isinstance(v, int)
    elif ok:
        ok = math.isfinite(v)
    if not ok or v < lo or (hi is not None and v > hi):
        what = "a whole number" if kind is int else "a finite number"
        rng = f">= {lo}" if hi is None else f"{lo}..{_big(hi)}"
        raise ConfigError(source, key, f"expected {what} {rng}, got {_shown(v)}")
    return cast("float", v)


def _big(n: float) -> str:
    return "2**63-1" if n == MAX_SEED else f"{n:,}".replace(",", "_") if isinstance(n, int) and n >= 10 ** 6 else str(n)


def _shown(v: object, limit: int = 80) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _name(source: str, key: str, v: Any, entry: bool = False) -> str:
    problem = check_name(v, entry)
    if problem:
        raise ConfigError(source, key, problem)
    return cast("str", v)


def code_modules(game: str, variants: Sequence[Rules]) -> tuple[str, ...]:
    """The modules of code of one's own that ``variants`` name (files or package folders), each
    once, in order: a sandboxed bot's host is shown them, to rebuild the rules."""
    out: list[str] = []
    if ":" in game:
        home = find(top_name(game))
        out += [home] if home else []
    for r in variants:
        out += [d for d in game_named(game).code_modules(r) if d not in out]
    return tuple(out)


def load_experiment(path: str | Path, seed: int | None = None, need_matches: bool = False) -> Experiment:
    """Load and validate an experiment config; every error names the file and the key.
    ``need_matches`` (the CLI's ``run``): ``matches`` must be given rather than defaulting to 100."""
    if not Path(path).is_file():
        raise ConfigError(path, None, "no such experiment file" if not Path(path).exists() else
                          "not a regular file")
    data = read_yaml(path)
    source = str(path)
    unknown_keys(source, "", data, TOP_KEYS)
    plugin_dir = str(Path(path).parent.resolve())  # plug-in strategies and games beside the config
    game = data.get("game", default_name())
    if not isinstance(game, str):
        raise ConfigError(source, "game", f"expected one of {', '.join(builtin_names())}, got {_shown(game)}")
    the_game = game_named(game, source)
    if "name" in data:
        name = _name(source, "name", data["name"])
    else:
        name = Path(path).stem
        if check_name(name):
            raise ConfigError(source, "name", f"the file name {name!r} is not a results folder name "
                                              f"({check_name(name)}); give name:")
    desc = data.get("description", "")
    if not isinstance(desc, str) or len(desc) > MAX_TEXT:
        raise ConfigError(source, "description", f"expected text of at most {MAX_TEXT:,} characters")

    match = None
    if "match" in data:
        match = match_format(source, data["match"])
    bases = data.get("variants", [the_game.default_rules])
    variants = _variants(source, bases, match, game)
    sweeps: list[tuple[Sweep, tuple[SweepPoint, ...]]] = []
    if "sweep" in data:
        variants, sweeps = _sweep_points(source, bases, variants, parse_sweeps(source, data["sweep"]), match, game)

    limits = _limits(source, data.get("sandbox"))
    if "hello_limit" in data:  # (not in the hash: it judges a start-up, it changes no game)
        hello = float(_num(source, "hello_limit", data["hello_limit"], MIN_TIME_LIMIT, float, MAX_TIME_LIMIT))
        limits = dataclasses.replace(limits, hello_limit=hello)
    entries = _lineup(source, data.get("lineup"), game, variants, plugin_dir, limits, _private(source, bases))
    lineup, plugins = [e for e, _ in entries], entries
    fmt = data.get("format", "round_robin")
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise ConfigError(source, "format", f"expected one of {', '.join(FORMATS)}, got {_shown(fmt)}")
    if fmt != "pairings" and "pairings" in data:
        raise ConfigError(source, "pairings", "only with format: pairings")
    tables = tuple(_tables(source, fmt, data.get("pairings"), lineup, r, i) for i, r in enumerate(variants))

    if need_matches and "matches" not in data:
        raise ConfigError(source, "matches",
                          f"missing: how many matches per table and variant (1..{_big(MAX_MATCHES)})")
    matches = _num(source, "matches", data.get("matches", 100), 1, int, MAX_MATCHES)
    paired = data.get("paired", True)
    if not isinstance(paired, bool):
        raise ConfigError(source, "paired", f"expected true or false, got {_shown(paired)}")
    if seed is None:
        seed = data.get("seed", 1)
        seed = _num(source, "seed", seed, 0, int, MAX_SEED)
    else:
        seed = _num(source, "--seed", seed, 0, int, MAX_SEED)
    time_limit = float(_num(source, "time_limit", data.get("time_limit", 10), MIN_TIME_LIMIT, float, MAX_TIME_LIMIT))
    sprt = _sprt(source, data.get("stop"), variants, tables)
    total = sum(len(ts) for ts in tables) * matches
    if total > MAX_MATCHES:
        raise ConfigError(source, "matches", f"{matches:,} matches for each of {sum(len(ts) for ts in tables):,} "
                                             f"tables make {total:,}; a run plays at most {_big(MAX_MATCHES)}")

    record = _record(source, data.get("record", "none"), lineup)
    book: list[list[BookDeal]] = []
    book_hash, book_path = "", ""
    if "deals" in data:
        book_path, book_hash, book = _book(source, data["deals"], variants)
    starts = read_starts(source, data["start"], variants, key_line(path, ["start"])) if "start" in data else []
    if book and any(s.dealer is not None for s in starts):
        raise ConfigError(source, "start", "with deals: the book's dealer deals: leave dealer out of start")

    resolved = {
        "name": name, "game": game,
        "variants": [r.to_dict() for r in variants],
        "lineup": [e.to_dict() for e in lineup],
        "tables": [[list(t) for t in ts] for ts in tables],
        "matches": matches, "paired": paired, "seed": seed, "time_limit": time_limit,
        "stop": dataclasses.asdict(sprt) if sprt else None,
    }
    # added later: in the hash only when given, so older configs keep their results folders
    if record.mode != "none":
        resolved["record"] = record.to_json()
    if book:
        resolved["deals"] = book_hash
    if starts:
        resolved["start"] = [[list(s.scores), s.dealer] for s in starts]
    if sweeps:
        resolved["sweep"] = [{"knobs": list(s.knobs), "values": [list(v) for v in s.values]} for s, _ in sweeps]
    if "sandbox" in data:
        resolved["sandbox"] = limits.to_dict()
    told = _told(lineup, game)
    if told:  # the rules a player is told (believes), as read: an edited file is another run
        resolved["told"] = {ref: r.to_dict() for ref, r in sorted(told.items())}
    code = _own_code(game, [*variants, *told.values()], lineup)
    if code:  # the code of one's own the run loads: an edited module is another run (added later, as above)
        resolved["code"] = _code_digest(source, code)
    # (not in the hash: it judges a run, it changes no result, and raising it lets a run resume)
    max_failed = float(_num(source, "max_failed", data.get("max_failed", 0.01), 0, float, 1))
    deaths = _num(source, "max_worker_deaths", data.get("max_worker_deaths", 3), 1, int, MAX_MATCHES)
    ray = data.get("ray", "auto")  # (not in the hash either: where a run plays changes no result)
    if ray not in RAY_CHOICES:
        raise ConfigError(source, "ray", f"expected one of {', '.join(RAY_CHOICES)}, got {_shown(ray)}")
    raw = json.dumps(resolved, sort_keys=True, default=list)
    return Experiment(name, source, tuple(variants), tuple(lineup), tables, matches, paired, seed,
                      time_limit, sprt, raw, game, plugin_dir, tuple(caps for _, caps in plugins), record,
                      tuple(tuple(b) for b in book), tuple(starts), book_path, tuple(sweeps), limits, max_failed,
                      deaths, ray)


def _sweep_points(source: str, bases: list[Any], rules: list[Any], sweeps: list[Sweep], match: MatchFormat | None,
                  game: str) -> tuple[list[Any], list[tuple[Sweep, tuple[SweepPoint, ...]]]]:
    """Every base rule set at every point of each sweep's grid: the variants to play (each named
    ``base[knob=value,...]`` and built as ``{extends: base, the knobs}``, checked like any rules;
    a point that is the base's own rules is the base, played once) and each sweep's points."""
    out: dict[str, Any] = {}
    groups = []
    for i, sweep in enumerate(sweeps):
        where = "sweep" if len(sweeps) == 1 else f"sweep[{i}]"
        points = []
        for spec, base in zip(bases, rules):
            for point in sweep.points():
                r = _sweep_rules(source, where, spec, base, sweep, point, match, game)
                same = {k: v for k, v in r.to_dict().items() if k != "name"} == \
                    {k: v for k, v in base.to_dict().items() if k != "name"}
                if same:
                    r = base
                out.setdefault(r.name, r)
                points.append(SweepPoint(r.name, base.name, point, same))
        groups.append((sweep, tuple(points)))
    if len(out) > MAX_VARIANTS:
        raise ConfigError(source, "sweep", f"the sweeps make {len(out)} rule sets; a run plays at most {MAX_VARIANTS}")
    _distinct_files(source, list(out))
    return list(out.values()), groups


def _distinct_files(source: str, names: list[str]) -> None:
    """Two of a sweep's rule sets whose files would have the same name (``file_stem``: a value
    with a bracket in it) are refused."""
    seen: dict[str, str] = {}
    for n in names:
        other = seen.setdefault(file_stem(n), n)
        if other != n:
            raise ConfigError(source, "sweep", f"the rule sets {other!r} and {n!r} would write files of the same name "
                                               f"({file_stem(n)}): give the value without brackets")


def _sweep_rules(source: str, where: str, spec: Any, base: Any, sweep: Sweep, point: tuple[Any, ...],
                 match: MatchFormat | None, game: str) -> Any:
    name = f"{base.name}[{sweep.label(point)}]"
    over = {**sweep.overrides(point), "name": name}
    mapping = _merge_rules(spec, over) if isinstance(spec, dict) else \
        {"extends": str(find_rules_file(spec, relative_to=source)), **over}
    try:
        return _variants(source, [mapping], match, game)[0]
    except ConfigError as e:
        key = f"{where}.{e.key}" if e.key and not e.key.startswith("variants") else where
        raise ConfigError(source, key, f"{e.expected} (at {name})") from None


def _merge_rules(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge_rules(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _record(source: str, spec: Any, lineup: Sequence[Entry]) -> Record:
    """``record:`` none, all, {sample: N} or {losses_of: ENTRY}."""
    expected = "expected none, all, {sample: N} (per table) or {losses_of: ENTRY}"
    if spec in ("none", "all"):
        return Record(spec)
    if not isinstance(spec, dict) or len(spec) != 1:
        raise ConfigError(source, "record", f"{expected}, got {_shown(spec)}")
    (k, v), = spec.items()
    if k == "sample":
        return Record("sample", sample=_num(source, "record.sample", v, 1, int, MAX_MATCHES))
    if k == "losses_of":
        names = [e.name for e in lineup]
        if not isinstance(v, str) or v not in names:
            raise ConfigError(source, "record.losses_of",
                              f"expected a lineup name ({', '.join(names)}), got {_shown(v)}")
        return Record("losses_of", losses_of=names.index(v))
    raise ConfigError(source, "record", f"{expected}, got {_shown(spec)}")


def _book(source: str, spec: Any, variants: Sequence[Rules]) -> tuple[str, str, list[list[BookDeal]]]:
    """``deals: FILE``: a deal book beside the config (or from the working directory)."""
    if not isinstance(spec, str) or not spec or len(spec) > 1000:
        raise ConfigError(source, "deals", f"expected the path of a deal book (JSON lines), got {_shown(spec)}")
    beside = Path(source).parent / spec
    try:
        path = beside if beside.is_file() else Path(spec)
        found = path.is_file()
    except OSError as e:  # a name too long for the file system
        raise ConfigError(source, "deals", f"cannot use {spec[:80]!r} ({e.strerror or e})") from None
    if not found:
        raise ConfigError(source, "deals", f"no such deal book {spec!r} (looked beside the config and from the "
                                           "working directory)")
    return (spec, *read_book(path, variants))


def _variants(source: str, spec: Any, match: MatchFormat | None, game: str) -> list[Any]:
    if not isinstance(spec, list) or not spec:
        raise ConfigError(source, "variants", "expected a non-empty list of rules names, files or mappings")
    if len(spec) > MAX_VARIANTS:
        raise ConfigError(source, "variants", f"at most {MAX_VARIANTS} variants, got {len(spec)}")
    out = []
    for i, v in enumerate(spec):
        key = f"variants[{i}]"
        try:
            if isinstance(v, str):
                path = find_rules_file(v, relative_to=source)
                if path is None:
                    if is_rules_path(v):
                        raise ConfigError(source, key, f"no such rules file {_shown(v)} (looked beside the "
                                                       "config and from the working directory)")
                    raise ConfigError(source, key, f"unknown variant {_shown(v)}{did_you_mean(v, preset_names())} "
                                                   "(see 'cribsim list')")
                r = load_rules(str(path))
            elif isinstance(v, dict):
                if "name" not in v:
                    raise ConfigError(source, f"{key}.name", "an inline variant needs a name")
                r = rules_from_mapping(v, source=source, game=game)
            else:
                raise ConfigError(source, key, f"expected a rules name, file or mapping, got {_shown(v)}")
        except ConfigError as e:
            if e.source == source:
                raise
            raise ConfigError(source, key,
                              f"in {e.source}: {e.expected}" + (f" (key '{e.key}')" if e.key else "")) from None
        except (TypeError, ValueError, KeyError, AttributeError,
                IndexError) as e:  # a rules check that did not expect this
            raise ConfigError(source, key, f"invalid rules ({describe(e, 200)})") from None
        problem = check_name(r.name, variant=True)
        if problem:
            raise ConfigError(source, f"{key}.name" if isinstance(v, dict) else key,
                              f"the variant's name names its result files: {problem}")
        if r.game != game:
            raise ConfigError(source, key, f"'{r.name}' is {r.game} rules but the experiment's game is {game}")
        if match is not None:
            r = r.with_match(match, source) if hasattr(r, "with_match") else \
                dataclasses.replace(r, match=check_match_sides(source, "match", match, len(r.sides)))
        out.append(r)
    _unique(source, "variants[{}]", [r.name for r in out], "variant")
    return out


def _limits(source: str, spec: Any) -> Limits:
    """``sandbox: {memory_mb, processes, file_mb}``: the sandbox's limits for untrusted bots."""
    if spec is None:
        return DEFAULT_LIMITS
    if not isinstance(spec, dict):
        raise ConfigError(source, "sandbox", "expected a mapping such as {memory_mb: 1024, processes: 64, file_mb: 64}")
    unknown_keys(source, "sandbox.", spec, {"memory_mb", "processes", "file_mb"})
    d = DEFAULT_LIMITS.to_dict()
    bounds = {"memory_mb": (64, 1 << 20), "processes": (1, 10_000), "file_mb": (1, 1 << 20)}
    for k, (lo, hi) in bounds.items():
        if k in spec:
            d[k] = _num(source, f"sandbox.{k}", spec[k], lo, int, hi)
    return Limits(**d)


def _private(source: str, bases: Any) -> list[str]:
    """What no bot may see: the config and the rules files it names."""
    out = [os.path.abspath(source)]
    for v in bases if isinstance(bases, list) else []:
        path = find_rules_file(v, relative_to=source) if isinstance(v, str) else None
        if path is not None:
            out.append(os.path.abspath(path))
    return out


def program_files(command: Sequence[str], cwd: str, files: Sequence[str] = ()) -> tuple[str, ...]:
    """What a program is shown of the machine's files (absolute paths): ``files`` (relative to
    its folder ``cwd``), else its program: the first word of its command that names a file in
    that folder (``./mybot``, or the script of ``[node, mybot.js]`` or of ``[~/py/bin/python,
    bot.py]``), else the first that names a file elsewhere (``/opt/bots/mybot``), the system's
    programs (``node``, ``/usr/bin/python3``) being shown to every bot anyway."""
    if not files:
        own = [w for w in command if os.path.isfile(os.path.join(cwd, w)) and not _system_path(os.path.join(cwd, w))]
        here = [w for w in own if _inside(os.path.join(cwd, w), cwd)]
        files = (here or own)[:1]
    out: list[str] = []
    for f in files:
        path = os.path.abspath(os.path.join(cwd, f))
        if path not in out:
            out.append(path)
    return tuple(out)


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies in ``folder`` (at any depth, links resolved)."""
    return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def _system_path(path: str) -> bool:
    real = os.path.realpath(path)
    return any(real == top or real.startswith(top + "/") for top in ("/usr", "/bin", "/sbin", "/lib", "/lib64"))


def _files(source: str, key: str, e: dict[str, Any]) -> tuple[str, ...]:
    """A program entry's ``files``: paths relative to its folder, each a file or folder."""
    files = e.get("files", [])
    if isinstance(files, str):
        files = [files]
    if not isinstance(files, list) or len(files) > MAX_COMMAND or \
            not all(isinstance(f, str) and f and len(f) <= 1000 and "\0" not in f for f in files):
        raise ConfigError(source, f"{key}.files", "expected the program's own files and folders, a list of paths "
                                                 "relative to its cwd such as [mybot, data/]")
    return tuple(files)


def _command(source: str, key: str, e: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """A program entry's ``command`` (a list of strings) and ``cwd`` (a folder)."""
    cmd = e["command"]
    if isinstance(cmd, str):
        cmd = [cmd]
    if not isinstance(cmd, list) or not cmd or len(cmd) > MAX_COMMAND or \
            not all(isinstance(a, str) and a and len(a) <= 1000 and "\0" not in a for a in cmd):
        raise ConfigError(source, f"{key}.command", "expected a program and its arguments, a list of strings "
                                                   "such as [./mybot, --fast]")
    if "strategy" in e:
        raise ConfigError(source, f"{key}.command", "a program entry has no strategy: give command or strategy")
    cwd = e.get("cwd", "")
    if not isinstance(cwd, str) or len(cwd) > 1000 or "\0" in cwd:
        raise ConfigError(source, f"{key}.cwd", "expected a folder, relative to the config's folder")
    return tuple(cmd), cwd


def _lineup(source: str, spec: Any, game: str, variants: Sequence[Rules] = (), base: str = "",
            limits: Limits = DEFAULT_LIMITS, private: Sequence[str] = ()) -> list[tuple[Entry, dict[str, Any] | None]]:
    """The lineup's entries, each checked (a bot started and asked what it can do) once every
    entry is read and no bot would see ``private`` (the config and its rules files) or another
    entry's files."""
    if not isinstance(spec, list) or not spec:
        raise ConfigError(source, "lineup", "expected a list of entries such as {name: ev, strategy: ev}")
    if len(spec) > MAX_ENTRIES:
        raise ConfigError(source, "lineup", f"at most {MAX_ENTRIES} entries, got {len(spec)}")
    read: list[tuple[str, Entry, dict[str, Any]]] = []
    for i, e in enumerate(spec):
        key = f"lineup[{i}]"
        if isinstance(e, str):
            e = {"strategy": e}
        if not isinstance(e, dict):
            raise ConfigError(source, key, "expected a mapping with a strategy")
        unknown_keys(source, f"{key}.", e, ENTRY_KEYS)
        command, cwd = _command(source, key, e) if "command" in e else ((), "")
        for k in ("cwd", "files"):
            if k in e and not command:
                raise ConfigError(source, f"{key}.{k}", "is for program entries (with command)")
        files = _files(source, key, e)
        if command and "name" not in e:
            raise ConfigError(source, f"{key}.name", "a program entry needs a name")
        strat = f"program:{e.get('name')}" if command else e.get("strategy")
        if not isinstance(strat, str) or not strat or len(strat) > 200:
            raise ConfigError(source, f"{key}.strategy", "expected a built-in name or module:Class")
        params = e.get("params", {}) or {}
        if not isinstance(params, dict):
            raise ConfigError(source, f"{key}.params", "expected a mapping of parameters")
        _plain(source, f"{key}.params", params)
        _rules_refs(source, key, strat, game, params)
        name = _name(source, f"{key}.name", e.get("name", strat), entry=True)
        trusted = e.get("trusted", False)
        if not isinstance(trusted, bool):
            raise ConfigError(source, f"{key}.trusted", f"expected true or false, got {_shown(trusted)}")
        if trusted and not is_plugin(strat, game):
            raise ConfigError(source, f"{key}.trusted", "is for module:Class plug-ins and programs; built-in "
                                                        "strategies always play in-process")
        entry = Entry(name, strat, tuple(sorted(params.items())), trusted=trusted, command=command, cwd=cwd,
                      files=files, home=_home(source, key, strat, game, trusted, base))
        rates = []
        for k, default in (("miss_rate", 0.0), ("vigilance", 1.0)):
            v = e.get(k, default)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
                raise ConfigError(source, f"{key}.{k}", f"expected a probability between 0 and 1, got {_shown(v)}")
            if k in e and not game_named(game).counting_model:
                raise ConfigError(source, f"{key}.{k}", f"{game_named(game).title} has no counting model")
            rates.append(float(v))
        read.append((key, dataclasses.replace(entry, miss_rate=rates[0], vigilance=rates[1]), params))
    _unique(source, "lineup[{}].name", [e.name for _, e, _ in read], "entry")
    bots = {key: e.bot(base, limits, code_modules(game, variants)) for key, e, _ in read if e.isolated(game)}
    _sight(source, bots, private)
    return [(e, _check_entry(source, key, e, params, variants, game, base, limits)) for key, e, params in read]


def _rules_refs(source: str, key: str, strategy: str, game: str, params: dict[str, Any]) -> None:
    """A built-in strategy's parameters naming rules (``believes``): each read now, a file from the
    config's folder as ``variants:`` are, and kept (``ruleset.remember_rules``) for every process
    of the run under the name as written, so the parameter, the config's hash and the manifest
    stay what the config says wherever it lies."""
    if is_plugin(strategy, game) or strategy not in builtins(game):
        return
    for name, ref in rules_refs(declared_params(resolve(strategy, game)), params):
        path = find_rules_file(ref, relative_to=source)
        if path is None:
            raise ConfigError(source, f"{key}.params.{name}",
                              f"no such rules file or preset{did_you_mean(ref, preset_names())}")
        remember_rules(ref, load_rules(str(path)))


def code_part(exp: Experiment) -> dict[str, Any]:
    """What of ``exp``'s hash comes from what its config loads rather than says (the rules a
    player is told, the digest of the code of one's own): for a study (tune, balance) whose own
    hash is its file's, to cover the code its steps load too (empty: none)."""
    resolved = json.loads(exp.raw)
    return {k: resolved[k] for k in ("told", "code") if k in resolved}


def with_code(raw: str, part: dict[str, Any]) -> str:
    """A study's canonical JSON ``raw`` with ``part`` (:func:`code_part`) added, or as it was."""
    return json.dumps({**json.loads(raw), "loads": part}, sort_keys=True, default=str) if part else raw


def _told(lineup: Sequence[Entry], game: str) -> dict[str, Rules]:
    """The rules the lineup's built-in strategies are told (``believes``), by the name as written:
    read when the lineup was (:func:`_rules_refs`)."""
    out: dict[str, Rules] = {}
    for e in lineup:
        if not is_plugin(e.strategy, game) and e.strategy in builtins(game):
            for _, ref in rules_refs(declared_params(resolve(e.strategy, game)), e.param_dict()):
                out[ref] = told_rules(ref)
    return out


def _own_code(game: str, rules: Sequence[Rules], lineup: Sequence[Entry]) -> list[str]:
    """The modules of code of one's own a run loads: the rules' (a designer's variants, a game of
    one's own, the modules of rules a player is told) and the plug-ins' (files or folders)."""
    out = list(code_modules(game, rules))
    return out + [e.home for e in lineup if e.home and e.home not in out]


BIG_FILE = 16 << 20  # a file of code of one's own over this size counts by its size and time, unread


def _code_digest(source: str, modules: Sequence[str]) -> str:
    """A digest of ``modules``' code: each file's name and bytes (a package folder's files by
    their path in it, its caches left out; a file over ``BIG_FILE`` by its size and modification
    time), so that the same code anywhere has the same digest and an edited module gives another
    (a run into a folder of the old code's is refused). A sandboxed plug-in's files are read as
    data here, never run."""
    h = hashlib.sha256()
    for m in modules:
        top = Path(m)
        files = sorted(f for f in top.rglob("*") if (f.is_symlink() or f.is_file()) and "__pycache__" not in f.parts) \
            if top.is_dir() else [top]
        for f in files:
            name = f.relative_to(top) if top.is_dir() else f.name
            try:
                if f.is_symlink() and top.is_dir():  # (a link in a folder counts by where it points: never followed)
                    h.update(f"{name}\0link\0{os.readlink(f)}".encode())
                    continue
                with open(f, "rb") as data:
                    st = os.fstat(data.fileno())
                    h.update(f"{name}\0{st.st_size}\0".encode())
                    if st.st_size > BIG_FILE:  # (a bot's weights, a sparse file: by size and time, not read)
                        h.update(f"big\0{st.st_mtime_ns}".encode())
                        continue
                    for chunk in iter(lambda: data.read(1 << 20), b""):
                        h.update(chunk)
            except OSError as e:
                raise ConfigError(source, None, f"cannot read {f}: {e.strerror or e}") from None
    return h.hexdigest()[:16]


def _home(source: str, key: str, strategy: str, game: str, trusted: bool, base: str) -> str:
    """A plug-in's module file or package folder (beside the config, in a folder looked in, in
    the working directory or on the module path; "" for a built-in or a module found nowhere,
    which its check then reports). A trusted plug-in's module is made importable here, an
    untrusted one's never (it is shown in its sandbox)."""
    if not is_plugin(strategy, game) or ":" not in strategy:
        return ""
    try:
        if trusted:
            return expose_named(strategy, [base] if base else []) or ""
        return find(top_name(strategy), [base] if base else []) or ""
    except CribsimError as e:
        raise ConfigError(source, f"{key}.strategy", str(e).removeprefix("cribsim: ")) from None


def _sight(source: str, bots: dict[str, Bot], private: Sequence[str]) -> None:
    """Refuse a sandboxed bot that would be shown ``private`` or another entry's own files."""
    for key, bot in bots.items():
        if not bot.sandboxed:
            continue
        mine = bot.own_files()
        others = [f for k, b in bots.items() if k != key for f in b.own_files() if f not in mine]
        for what, paths in (("the config or a rules file of the run", private), ("another bot's files", others)):
            seen = shown_of(mine, paths)
            if seen is not None:
                where = f"{key}.files" if bot.is_program else f"{key}.strategy"
                raise ConfigError(source, where, f"the bot would see {what} ({seen[1]}, in {seen[0]}): a bot is "
                                                 "shown only its own files; give it a folder of its own (cwd) or list "
                                                 "its files (files)")


def _check_entry(source: str, key: str, entry: Entry, params: dict[str, Any], variants: Sequence[Rules], game: str,
                 base: str, limits: Limits) -> dict[str, Any] | None:
    """Load and check an entry: a bot in a process of its own (sandboxed unless trusted) says
    what it can do; a built-in or a trusted plug-in is made in-process. Returns a bot's
    capabilities (None in-process)."""
    where = f"{key}.command" if entry.command else f"{key}.strategy"
    try:
        if not entry.isolated(game):
            factory(entry.strategy, params, rules=variants, game=game)
            return None
        if entry.untrusted(game):
            require()  # refused where there is no sandbox
        bot = entry.bot(base, limits, code_modules(game, variants))
        return check_plugin(entry.strategy, params, variants, game, bot)
    except CribsimError as err:
        raise ConfigError(source, where, str(err).removeprefix("cribsim: ")) from None


def _plain(source: str, key: str, value: Any) -> None:
    """Parameters are JSON data (they go into the manifest and the config hash): strings,
    whole and finite numbers, true/false, null, lists and mappings with string keys; at most
    MAX_PARAM_NODES values."""
    count = 0
    stack = [(key, value)]
    while stack:
        where, v = stack.pop()
        count += 1
        if count > MAX_PARAM_NODES:
            raise ConfigError(source, key, f"more than {MAX_PARAM_NODES:,} values")
        if v is None or isinstance(v, (bool, int)):
            continue
        if isinstance(v, float):
            if not math.isfinite(v):
                raise ConfigError(source, where, f"expected a finite number, got {v!r}")
        elif isinstance(v, str):
            if len(v) > MAX_TEXT:
                raise ConfigError(source, where, f"a string of at most {MAX_TEXT:,} characters")
        elif isinstance(v, list):
            stack.extend((f"{where}[{i}]", x) for i, x in enumerate(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ConfigError(source, where, f"parameter names are strings, got {_shown(k)}")
                stack.append((f"{where}.{k}", x))
        else:
            raise ConfigError(source, where, f"expected JSON data (text, a number, true/false, a list or a "
                                             f"mapping), got a {type(v).__name__}")


def _unique(source: str, key: str, names: list[str], what: str) -> None:
    for i, n in enumerate(names):
        if names.index(n) != i:
            raise ConfigError(source, key.format(i), f"duplicate {what} name {n!r}")


def _tables(source: str, fmt: str, pairings: Any, lineup: Sequence[Entry], rules: Rules,
            vi: int) -> tuple[tuple[int, ...], ...]:
    k = len(rules.sides)
    n = len(lineup)
    if fmt == "pairings":
        if not isinstance(pairings, list) or not pairings:
            raise ConfigError(source, "pairings", "expected a list of tables, e.g. [[ev, random]]")
        if len(pairings) > MAX_TABLES:
            raise ConfigError(source, "pairings", f"at most {MAX_TABLES:,} tables, got {len(pairings):,}")
        names = [e.name for e in lineup]
        out = []
        for i, t in enumerate(pairings):
            if not isinstance(t, list) or any(not isinstance(x, str) or x not in names for x in t):
                raise ConfigError(source, f"pairings[{i}]", f"expected a list of lineup names ({', '.join(names)})")
            if len(t) != k:
                raise ConfigError(source, f"pairings[{i}]",
                                  f"lists {len(t)} entries but variant '{rules.name}' has {k} sides")
            out.append(tuple(names.index(x) for x in t))
        return tuple(out)
    if n < k:
        raise ConfigError(source, "lineup", f"has {n} entries but variant '{rules.name}' needs {k} sides "
                                            "(list tables with format: pairings to repeat an entry)")
    count = math.comb(n, k) if fmt == "round_robin" else 1 if n == k else math.comb(n - 1, k - 1)
    if count > MAX_TABLES:
        raise ConfigError(source, "lineup", f"{n} entries make {count:,} tables of {k} in variant "
                                            f"'{rules.name}'; at most {MAX_TABLES:,}")
    if fmt == "round_robin":
        return tuple(combinations(range(n), k))
    if n == k:
        return (tuple(range(n)),)
    return tuple((0,) + rest for rest in combinations(range(1, n), k - 1))  # gauntlet


def _sprt(source: str, stop: Any, variants: Sequence[Rules],
          tables: tuple[tuple[tuple[int, ...], ...], ...]) -> Sprt | None:
    if stop is None:
        return None
    if not isinstance(stop, dict) or set(stop) != {"sprt"} or not isinstance(stop["sprt"], dict):
        raise ConfigError(source, "stop", "expected {sprt: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}}")
    s = stop["sprt"]
    test = s.get("test", "elo")
    alpha = float(_num(source, "stop.sprt.alpha", s.get("alpha", 0.05), 1e-6, float, 0.5))
    beta = float(_num(source, "stop.sprt.beta", s.get("beta", 0.05), 1e-6, float, 0.5))
    if alpha >= 0.5 or beta >= 0.5:
        raise ConfigError(source, "stop.sprt", "alpha and beta must be below 0.5")
    if not isinstance(test, str):
        raise ConfigError(source, "stop.sprt.test", f"expected 'elo' or 'first_dealer', got {_shown(test)}")
    if test == "elo":
        unknown_keys(source, "stop.sprt.", s, {"test", "elo0", "elo1", "alpha", "beta"})
        elo0, elo1 = s.get("elo0", 0), s.get("elo1", 20)
        for key, v in (("elo0", elo0), ("elo1", elo1)):
            _num(source, f"stop.sprt.{key}", v, -MAX_ELO, float, MAX_ELO)
        if elo1 == elo0:
            raise ConfigError(source, "stop.sprt.elo1", "must differ from elo0")
        if any(len(t) != 2 for ts in tables for t in ts):
            raise ConfigError(source, "stop.sprt", "the elo test needs two-sided tables")
        return Sprt("elo", elo_to_score(elo0), elo_to_score(elo1), alpha, beta,
                    settings=tuple(sorted(s.items())))
    if test == "first_dealer":
        unknown_keys(source, "stop.sprt.", s, {"test", "baseline", "delta0", "delta1", "alpha", "beta"})
        names = [r.name for r in variants]
        base = s.get("baseline", names[0])
        if not isinstance(base, str) or base not in names:
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
    raise ConfigError(source, "stop.sprt.test", f"expected 'elo' or 'first_dealer', got {_shown(test)}")
