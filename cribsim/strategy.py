"""The Strategy protocol and the strategy loader.

A strategy sees only an :class:`~cribsim.observation.Observation`: its own cards, the public
table, the scores, the match state and the rules; never the deck, another seat's hidden cards or
the engine's random generators. Each strategy gets its own ``random.Random`` (``self.rng``,
seeded per game from the game's address).

The two decisions of every rule set are ``discard(obs)`` and ``play(obs)``. A variant may add
decisions (a method of that name answers them; without it the variant's default answer is used,
or the lineup is refused when the variant has none) and may need a strategy to understand more
of the rules (``understands``: ``"objective"`` reads ``rules.objective`` and minimises when it
is -1; ``"discard_rule"`` obeys ``obs.discard_rule``). What a strategy can do is derived from
what it implements and declares: :func:`capabilities`."""

from __future__ import annotations

import importlib
from itertools import combinations
from typing import Any, ClassVar, Iterator

from .errors import ConfigError, CribsimError
from .observation import Observation
from .params import Param

__all__ = ["BUILTIN", "Observation", "Strategy", "allowed", "allowed_keeps", "builtins", "capabilities",
           "factory", "resolve"]

BUILTIN = {
    "random": "strategies.random_play:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
    "hoyle": "strategies.hoyle:HoyleStrategy",
    "ev": "strategies.ev:EVStrategy",
    "mc": "strategies.mc:MCStrategy",
}

# decisions every rule set asks: a strategy must implement them
CORE_DECISIONS = ("discard", "play")


class Strategy:
    """Base class. Subclasses implement ``discard`` and ``play``, may implement a variant's
    decisions (``bid``, ``pass_cards``, ... by name), declare in ``understands`` what they read
    beyond the cards, and declare their parameters in ``params`` (each a
    :class:`~cribsim.params.Param`: typed and bounded, checked when a lineup loads).

    ``discard(obs)`` returns ``obs.discards`` cards of ``obs.hand``; ``play(obs)`` returns one of
    ``obs.legal``."""

    name: ClassVar[str] = "strategy"
    game: ClassVar[str] = "cribbage"  # the game it plays (cribsim.games)
    understands: ClassVar[frozenset[str]] = frozenset()
    params: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, rng: Any, **params: Any) -> None:
        if params:
            raise CribsimError(f"cribsim: strategy '{self.name}' takes no parameter "
                               f"'{next(iter(params))}'")
        self.rng = rng

    def discard(self, obs: Any) -> Any:
        raise NotImplementedError

    def play(self, obs: Any) -> Any:
        raise NotImplementedError


def capabilities(cls: Any) -> frozenset[str]:
    """What a strategy class can do: the decisions it implements (methods other than the base
    class's placeholders) and what it declares it understands."""
    own = {name for name in dir(cls) if not name.startswith("_") and callable(getattr(cls, name, None))}
    for core in CORE_DECISIONS:
        if getattr(cls, core, None) is getattr(Strategy, core):
            own.discard(core)
    return frozenset(own) | frozenset(getattr(cls, "understands", ()))


def missing_for(cls: Any, rules: Any) -> list[str]:
    """What ``rules`` need that strategy class ``cls`` lacks, as phrases naming the variant."""
    caps = capabilities(cls)
    prog = getattr(rules, "program", None)
    if prog is None:  # another game's rules
        return []
    out = []
    for core in CORE_DECISIONS:
        if core not in caps:
            out.append(f"the {core} decision")
    for name, d in prog.decisions.items():
        if d.default is None and name not in caps:
            out.append(f"the {name} decision of {prog.decision_owner[name]}")
    for need in prog.needs:
        if need not in caps:
            owners = [v.name for v in rules.modules if need in v.needs]
            out.append(f"'{need}' (declare it in understands), which {' and '.join(owners)} needs")
    return out


def check_params(cls: Any, params: dict[str, Any], where: str = "params") -> dict[str, Any]:
    """Validate ``params`` against the class's declared ``params`` (when it declares them)."""
    declared = {p.name: p for p in getattr(cls, "params", ())}
    if not declared:
        return params
    who = getattr(cls, "name", cls.__name__)
    out = {}
    for k, v in params.items():
        if k not in declared:
            raise CribsimError(f"cribsim: strategy '{who}' has no parameter {k!r} (parameters: {', '.join(declared)})")
        try:
            out[k] = declared[k].parse("", v, k)
        except ConfigError as e:
            raise CribsimError(f"cribsim: strategy '{who}': parameter {k!r}: {e.expected}") from None
    return out


def allowed(obs: Any, thrown: Any) -> bool:
    """Whether a set of discards obeys ``obs.discard_rule`` (always, without one)."""
    rule = obs.discard_rule
    return rule is None or (set(rule[0]) <= set(thrown) <= set(rule[1]))


def allowed_keeps(obs: Any) -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """(keep, thrown) for every legal discard, in ``combinations(hand, kept)`` order."""
    hand = obs.hand
    for keep in combinations(hand, len(hand) - obs.discards):
        thrown = [c for c in hand if c not in keep]
        if allowed(obs, thrown):
            yield keep, thrown


def builtins(game="cribbage"):
    """{short name: 'module:Class'} of a game's built-in strategies."""
    if game == "cribbage":
        return BUILTIN
    from .games import game_named

    return game_named(game).BUILTIN


def resolve(spec, game="cribbage"):
    """The Strategy class for a built-in name (``random``) or ``module:Class``, checked to
    play ``game``."""
    table = builtins(game)
    target = table.get(spec, spec)
    if not isinstance(target, str) or ":" not in target:
        raise CribsimError(f"cribsim: unknown strategy {spec!r} for {game} (built-in: {', '.join(sorted(table))}; "
                           f"or give module:Class)")
    mod_name, _, cls_name = target.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as e:
        raise CribsimError(f"cribsim: strategy {spec!r}: cannot import module {mod_name!r} ({e})") from None
    cls = getattr(mod, cls_name, None)
    if cls is None:
        raise CribsimError(f"cribsim: strategy {spec!r}: module {mod_name!r} has no {cls_name!r}")
    plays = getattr(cls, "game", "cribbage")
    if plays != game:
        raise CribsimError(f"cribsim: strategy {spec!r} plays {plays}, not {game}")
    return cls


def factory(spec, params=None, rules=(), game="cribbage"):
    """A callable ``make(rng) -> Strategy`` (fresh instance per match), checked against every
    rule set in ``rules`` (what their variants need) and its declared parameters."""
    cls = resolve(spec, game)
    for r in rules:
        missing = missing_for(cls, r)
        if missing:
            raise CribsimError(f"cribsim: strategy {spec!r} cannot play {r.name}: it lacks {'; '.join(missing)}")
    params = check_params(cls, dict(params or {}))
    cls(_probe_rng(), **params)  # fail early on bad parameters

    def make(rng):
        return cls(rng, **params)

    make.spec = spec
    return make


def _probe_rng():
    import random

    return random.Random(0)
