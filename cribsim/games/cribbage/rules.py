"""Rules: a validated, immutable description of one rule set, built from YAML.

The core knobs (players, deal sizes, target, skunk lines, sides, the crib flush rule, the match
format) are fields of :class:`Rules`; every rule variant is a module in ``cribsim/variants/``
that declares its own knobs (read them as attributes, ``rules.min_bid``), phases and hooks,
assembled into ``rules.program`` (``cribsim.engine.program``). Loading is strict: an unknown
key, an impossible value or a combination the variants cannot play is a one-line
:class:`ConfigError` naming the file and the key."""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cribsim.codepath import expose_named
from cribsim.errors import ConfigError, CribsimError
from cribsim.params import Param
from cribsim.ruleset import (
    MatchFormat,
    RulesBase,
    check_match_sides,
    everyone_alone,
    int_key,
    match_format,
    opposite_partnerships,
    plain,
    sides_key,
    unknown_keys,
)

from .engine.program import Program
from .points import STANDARD, Deal, Scoring, parse_scoring
from .scoring import SHOW_CRIB, SHOW_OPEN_CRIB, Scorer, scorer_for
from .variants import PARAMS, RESERVED, VARIANTS, variant_named

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
    skunk_lines: tuple[int, ...] = (91, 61, 31)  # skunk, double skunk, triple skunk (R-MATCH-1)
    sides: tuple[tuple[int, ...], ...] = ((0,), (1,))
    crib_flush_needs_starter: bool = True  # R-SHOW-6
    score_floor: int | None = None  # the lowest score a penalty or a price may leave (None: a variant's own)
    match: MatchFormat = field(default_factory=MatchFormat)
    scoring: Scoring = STANDARD  # every point value and limit (S-DATA-1..7)
    variants: tuple[str, ...] = ()  # the variants named in the file (canonical order), besides those a knob enables
    params: tuple[tuple[str, Any], ...] = ()  # (name, value) of every variant knob, sorted

    def __post_init__(self) -> None:
        # every variant knob, at its value (the default where the rule set does not set it),
        # as a plain attribute: ``rules.min_bid``
        self.__dict__.update({name: p.default for name, (_, p) in PARAMS.items()})
        self.__dict__.update(dict(self.params))

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any:
            """Every variant knob is an attribute (``rules.min_bid``), set when the rules are made."""

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (to a Ray worker): everything but the scorer, which holds functions and
        tables that the worker makes again for itself."""
        return {k: v for k, v in self.__dict__.items() if k != "scorer"}

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
    def crib_show(self) -> int:
        """How the crib is shown (``scoring.show``'s ``crib``): its flush needs the starter's
        suit, or not (R-SHOW-6, ``crib_flush_needs_starter``)."""
        return SHOW_CRIB if self.crib_flush_needs_starter else SHOW_OPEN_CRIB

    @cached_property
    def scorer(self) -> Scorer:
        """The scoring functions of ``scoring`` (built once per process and scoring; kept on the
        rules, since the engine asks for them every deal, and never pickled: see __getstate__)."""
        return scorer_for(self.scoring)

    @cached_property
    def modules(self) -> tuple[type[Variant], ...]:
        """The active variants (their classes), in the registry's canonical order."""
        return active_variants(self.variants, dict(self.params))

    @cached_property
    def deck_size(self) -> int:
        return 52 + sum(fn(self) for v in self.modules if (fn := v.extra_cards) is not None)

    @cached_property
    def program(self) -> Program:
        """The deal's phases, hooks, decisions and observation (``engine.program``)."""
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
        d = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "params"}
        d["match"] = plain(dataclasses.asdict(self.match))
        d["match"]["game_points"] = dict(self.match.game_points)
        if d["match"].get("scoring") == "table":  # added later: left out at its default
            del d["match"]["scoring"]
        if self.score_floor is None:
            del d["score_floor"]
        d["scoring"] = self.scoring.to_dict()
        if not d["scoring"]:  # added later: the standard game's values are left out
            del d["scoring"]
        values = dict(self.params)
        active = {v.name for v in self.modules}
        for v in VARIANTS.values():
            for p in v.params:
                val = values.get(p.name, p.default)
                if p.recorded or (v.name in active and val != p.default):
                    d[p.name] = plain(val)
        return d

    def describe(self) -> str:
        """A loggable one-liner: the player count, then what differs from that count's
        standard game (R-DEAL-2 defaults), e.g. ``cribbage(players=3, dealer_deal=6, ...)``."""
        base = build_rules({"players": self.players}).to_dict()
        mine = self.to_dict()
        diffs = [f"{k}={mine[k]}" for k in mine if k not in ("name", "players") and mine[k] != base.get(k)]
        return f"{self.game}(players={self.players}{', ' if diffs else ''}{', '.join(diffs)})"

    def with_match(self, match: MatchFormat, source: str = "<inline>") -> Rules:
        """These rules with another match format (an experiment's ``match:``), checked again."""
        rules = dataclasses.replace(self, match=match)
        check_match_sides(source, "match", match, len(rules.sides))
        rules.__dict__["program"] = Program(rules, source)  # variants check the combination again
        return rules


def active_variants(listed: Iterable[str], values: dict[str, Any]) -> tuple[type[Variant], ...]:
    """The variant classes active for a list of named variants and the knob values."""
    for name in listed:  # a variant of one's own, in a process that has not loaded it yet (a worker)
        variant_named(name)
    out = []
    for name, v in VARIANTS.items():
        on = any(values.get(k, _param(k).default) != _param(k).default for k in v.enabled_by)
        if name in listed or on:
            out.append(v)
    return tuple(out)


def _param(name: str) -> Param:
    return PARAMS[name][1]


_CORE_KEYS = {
    "name", "game", "extends", "players", "deal", "discard", "dealer_deal", "dealer_discard",
    "crib_from_deck", "target", "skunk_lines", "sides", "crib_flush_needs_starter",
    "match", "variants", "description", "score_floor", "scoring",
}
RESERVED.update(_CORE_KEYS)
CORE_PARAMS = (
    Param("target", int, 121, "points to win (R-WIN-1, V-TARGET)", lo=1, hi=10_000),
    Param("crib_flush_needs_starter", bool, True, "a crib flush needs the starter's suit too (R-SHOW-6)"),
    Param("score_floor", int, None, "the lowest score a penalty or a price may leave (default: the variant's own)",
          lo=-10_000, hi=10_000, nullable=True),
)


def build_rules(data: dict[str, Any], source: str = "<inline>") -> Rules:
    """Cribbage rules from a rules file's mapping (``extends:`` already followed, see
    :func:`cribsim.ruleset.rules_from_mapping`), every key validated."""
    listed = _listed(source, data)  # variants of one's own join the registry (and their knobs the keys) first
    unknown_keys(source, "", data, _CORE_KEYS | set(PARAMS))
    name = data.get("name", Path(source).stem if source != "<inline>" else "inline")
    if not isinstance(name, str):
        raise ConfigError(source, "name", f"expected a string, got {name!r}")
    players = int_key(source, "players", data.get("players", 2), 2, MAX_PLAYERS)
    deal = _deal_sizes(source, data, players)
    core = {p.name: p.parse(source, data[p.name]) if p.name in data else p.default for p in CORE_PARAMS}
    listed, values = _variant_knobs(source, data, listed)
    deck = 52 + sum(fn(_Values(values)) for v in active_variants(listed, values) if (fn := v.extra_cards) is not None)
    needed = (players - 1) * deal["deal"] + deal["dealer_deal"] + deal["crib_from_deck"] + 1
    if needed > deck:
        raise ConfigError(source, "players",
                          f"{players} players need {needed} cards (hands, crib and starter) but the deck has {deck}")
    target = core["target"]
    sides = sides_key(source, data.get("sides"), players)
    if not (everyone_alone(sides) or players == 4 and opposite_partnerships(sides)):
        raise ConfigError(source, "sides", f"R-TEAM-1 defines no such seating ({_seats(sides)}): every player alone, "
                                           "or four as two partnerships sitting opposite, [[0, 2], [1, 3]]")
    match = match_format(source, data.get("match"))
    check_match_sides(source, "match.scoring", match, len(sides))
    shown = Deal(hand=deal["deal"] - deal["discard"], players=players, wild=deck - 52,
                 crib=(players - 1) * deal["discard"] + deal["dealer_discard"] + deal["crib_from_deck"],
                 crib_needs_starter=core["crib_flush_needs_starter"])
    scoring = parse_scoring(source, data.get("scoring"), shown)
    rules = Rules(name=name, players=players, deal=deal["deal"], discard=deal["discard"],
                  dealer_deal=deal["dealer_deal"], dealer_discard=deal["dealer_discard"],
                  crib_from_deck=deal["crib_from_deck"], target=target, skunk_lines=_skunk_lines(source, data, target),
                  sides=sides, crib_flush_needs_starter=core["crib_flush_needs_starter"],
                  score_floor=core["score_floor"], match=match, scoring=scoring, variants=tuple(listed),
                  params=tuple(sorted(values.items())))
    # assembled now, so that a combination the variants cannot play is an error naming the file
    rules.__dict__["program"] = Program(rules, source)
    return rules


def _seats(sides: tuple[tuple[int, ...], ...]) -> str:
    return "[" + ", ".join("[" + ", ".join(map(str, s)) + "]" for s in sides) + "]"


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


def _listed(source: str, data: dict[str, Any]) -> list[str]:
    """The variants a rules file names, each a built-in or a ``module:Class`` of one's own
    (imported and registered here: beside the rules file, the working directory, PYTHONPATH)."""
    listed = data.get("variants", [])
    if not isinstance(listed, list):
        raise ConfigError(source, "variants", "expected a list of variant names")
    folder = Path(source).resolve().parent if source.endswith((".yaml", ".yml")) else None
    for i, v in enumerate(listed):
        if isinstance(v, str) and ":" in v and folder is not None:
            _same_module(source, f"variants[{i}]", v.partition(":")[0], folder)
        if isinstance(v, str) and ":" in v and v not in VARIANTS:
            try:  # only that module, beside the rules file (or in the working directory), never its folder
                expose_named(v, [folder] if folder is not None else [])
            except CribsimError as e:
                raise ConfigError(source, f"variants[{i}]", str(e).removeprefix("cribsim: ")) from None
    for i, v in enumerate(listed):
        variant_named(v, source, f"variants[{i}]")
    return listed


def _same_module(source: str, key: str, module: str, folder: Path) -> None:
    """Refuse a variant module beside this rules file when a module of that name was already
    loaded from elsewhere (two designers' ``myrules.py`` in one run would play one of them twice)."""
    loaded = getattr(sys.modules.get(module), "__file__", None)
    top = module.split(".")[0]
    mine = next((p for p in (folder / f"{top}.py", folder / top / "__init__.py") if p.is_file()), None)
    if loaded and mine is not None and Path(loaded).resolve() != (folder / Path(*module.split("."))).with_suffix(
            ".py").resolve() and not Path(loaded).resolve().is_relative_to(folder / top):
        raise ConfigError(source, key, f"a module named {module!r} is already loaded from {loaded}; the one beside "
                                       "this rules file cannot join it in one run: give one of them another name")


def _variant_knobs(source: str, data: dict[str, Any], listed: list[str]) -> tuple[list[str], dict[str, Any]]:
    """(variants named, every variant knob's value), validated: a named variant that a knob
    enables sets that knob instead of staying in the list; a knob of a variant that is not
    active is an error."""
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
