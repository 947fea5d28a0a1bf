"""The Strategy base class and the strategy loader, for every game.

A strategy sees only its seat's observation (the game's ``Observation``: its own cards or
tiles, the public table, the scores, the match state and the rules); never the deck, another
seat's hidden cards or the engine's random generators. Each strategy gets its own
``random.Random`` (``self.rng``, seeded per game from the game's address).

A strategy answers a decision by a method of that name: ``play(obs)`` in every game, the
game's other decisions (``discard`` in cribbage) and its variants' (``bid``, ...). A game or a
variant may need a strategy to understand more of the rules (``understands``). What a strategy
can do is derived from what it implements and declares (:func:`capabilities`); what a rule set
needs that a strategy lacks is the game's to say (``Game.missing_for``), checked when a lineup
loads."""

from __future__ import annotations

import importlib
import inspect
import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Protocol, cast

from . import owncode
from .errors import ConfigError, CribsimError, describe
from .game import Rules
from .games import default_name, game_named
from .params import Param
from .suggest import did_you_mean

__all__ = ["Strategy", "answer_fn", "answers", "builtins", "capabilities", "factory", "resolve"]


@dataclass(frozen=True)
class Models:
    """What a strategy's choices take into account, declared by the strategy (its ``models``),
    so that a run can say where a rule set changes what a player values without telling it: a
    table of such players describes misinformed play.

    ``values`` says what its choices value, as the start of a sentence ("its discards value the
    show and crib, its play the pegging"); ``changes``: the rule changes it does take into
    account, by the names a game gives them (:meth:`cribsim.game.Game.changes`: a variant's name,
    or ``scoring`` for a block of point values); ``everything``: it learns every rule from the
    engine itself, so nothing is news to it."""

    values: str
    changes: frozenset[str] = frozenset()
    everything: bool = False


class Strategy:
    """Base class. Subclasses implement ``play`` and the game's other decisions (cribbage's
    ``discard``), may implement a variant's decisions (``bid``, ``pass_cards``, ... by name),
    declare in ``understands`` what they read beyond the cards, and declare their parameters in
    ``params`` (each a :class:`~cribsim.params.Param`: typed and bounded, checked when a lineup
    loads; without ``params``, those of ``__init__`` with their defaults).

    ``play(obs)`` returns one of ``obs.legal``. A class may define ``prepare_rules(rules,
    params)`` as a class method: called once per rule set before any game, outside the time
    limit, for work a rule set asks of it (``ev`` builds its tables for a new scoring there)."""

    name: ClassVar[str] = "strategy"
    game: ClassVar[str] = ""  # the game it plays (cribsim.games); empty: the default game
    understands: ClassVar[frozenset[str]] = frozenset()
    params: ClassVar[tuple[Param, ...]] = ()
    models: ClassVar[Models | None] = None  # what its choices take into account (None: it does not say)
    # True: ``decide(name, obs)`` answers every decision it has no method for (a variant's own
    # included, before the variant's default): a player that answers by one method, whatever
    # the decision (:func:`answer_fn`)
    decides_any: ClassVar[bool] = False

    def __init__(self, rng: Any, **params: Any) -> None:
        if params:
            raise CribsimError(f"cribsim: strategy '{self.name}' takes no parameter "
                               f"'{next(iter(params))}'")
        self.rng = rng

    def play(self, obs: Any) -> Any:
        raise NotImplementedError


class StrategyFactory(Protocol):
    """What :func:`factory` returns: ``make(rng) -> Strategy``, carrying the ``spec`` it was made
    from."""

    spec: Any

    def __call__(self, rng: Any) -> Any: ...


def capabilities(cls: Any) -> frozenset[str]:
    """What a strategy class can do: the decisions it implements (methods other than the base
    class's placeholders) and what it declares it understands."""
    own = {name for name in dir(cls) if not name.startswith("_") and callable(getattr(cls, name, None))}
    if getattr(cls, "play", None) is Strategy.play:  # the base class's placeholder
        own.discard("play")
    return frozenset(own) | frozenset(getattr(cls, "understands", ()))


def answers(cls: Any, decision: str) -> bool:
    """Whether strategy class ``cls`` answers ``decision`` itself (by a method of that name, or
    by ``decide`` when it decides any), rather than leaving it to a variant's default."""
    return decision in capabilities(cls) or bool(getattr(cls, "decides_any", False))


def answer_fn(strategy: Any, decision: str) -> Callable[[Any], Any] | None:
    """A strategy's answer function for ``decision``: its method of that name, else its
    ``decide`` bound to the name when it decides any (``decides_any``), else None (the
    variant's default applies, where there is one)."""
    fn = getattr(strategy, decision, None)
    if fn is None and getattr(strategy, "decides_any", False):
        return partial(strategy.decide, decision)
    return cast("Callable[[Any], Any] | None", fn)


def check_params(cls: Any, params: dict[str, Any], where: str = "params") -> dict[str, Any]:
    """Validate ``params`` against the class's declared ``params`` (when it declares them)."""
    declared = {p.name: p for p in getattr(cls, "params", ())}
    if not declared:
        return params
    who = getattr(cls, "name", cls.__name__)
    out = {}
    for k, v in params.items():
        if k not in declared:
            raise CribsimError(f"cribsim: strategy '{who}' has no parameter {k!r}{did_you_mean(k, declared)} "
                               f"(parameters: {', '.join(declared)})")
        try:
            out[k] = declared[k].parse("", v, k)
        except ConfigError as e:
            raise CribsimError(f"cribsim: strategy '{who}': parameter {k!r}: {e.expected}") from None
    return out


def builtins(game: str | None = None) -> dict[str, str]:
    """{short name: 'module:Class'} of a game's built-in strategies (the default game's)."""
    return dict(game_named(game or default_name()).builtins)


def missing_for(cls: type[Any], rules: Rules) -> list[str]:
    """What ``rules`` need that strategy class ``cls`` lacks, as phrases (its game says)."""
    return game_named(rules.game).missing_for(cls, rules)


_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def resolve(spec: Any, game: str | None = None) -> type[Any]:
    """The Strategy class for a built-in name (``random``) or ``module:Class``, checked to
    play ``game``. Every failure (a malformed spec, a module that cannot be imported, raises or
    exits while importing, an attribute that is not a strategy class) is one CribsimError."""
    game = game or default_name()
    table = builtins(game)
    target = table.get(spec, spec) if isinstance(spec, str) else spec
    if not isinstance(target, str) or ":" not in target:
        raise CribsimError(f"cribsim: unknown strategy {_shown(spec)} for {game} "
                           f"(built-in: {', '.join(sorted(table))}; or give module:Class){did_you_mean(spec, table)}")
    if not _SPEC.fullmatch(target):
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: expected module:Class (a dotted module name, a colon, "
                           "a class name), e.g. mybots:LowCard")
    mod_name, _, cls_name = target.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except KeyboardInterrupt:
        raise
    except ModuleNotFoundError as e:
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: cannot import module {mod_name!r} "
                           f"(no module named {e.name!r}; a plug-in module sits beside the config or on "
                           "PYTHONPATH)") from None
    except SyntaxError as e:
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: module {mod_name!r} has a syntax error "
                           f"({e.filename}, line {e.lineno}: {e.msg})") from None
    except BaseException as e:  # raised, or called sys.exit(), while importing
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: importing module {mod_name!r} failed "
                           f"({_describe(e)})") from None
    cls = getattr(mod, cls_name, None)
    if cls is None:
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: module {mod_name!r} has no {cls_name!r}"
                           f"{_classes_near(cls_name, mod)}")
    if not isinstance(cls, type):
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: {cls_name!r} is a {type(cls).__name__}, not a strategy "
                           "class")
    owncode.mark(mod_name, f"strategy {target}")  # (a trusted one's exception names it; not cribsim's own)
    plays = getattr(cls, "game", "") or default_name()
    if plays != game:
        raise CribsimError(f"cribsim: strategy {_shown(spec)} plays {_shown(plays)}, not {game}")
    # a Strategy subclass that lacks one is refused against the rules (missing_for), naming it
    lacking = [m for m in game_named(game).core_decisions if not callable(getattr(cls, m, None))]
    if lacking and not issubclass(cls, Strategy):
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: class {cls_name!r} has no {' or '.join(lacking)} "
                           "method (a strategy subclasses cribsim.strategy.Strategy)")
    return cls


def _classes_near(name: str, mod: Any) -> str:
    """A near miss among the classes ``mod`` defines (`` (did you mean 'LowCard'?)``), else those classes."""
    classes = [k for k, v in vars(mod).items() if isinstance(v, type) and v.__module__ == mod.__name__]
    hint = did_you_mean(name, classes)
    return hint or (f" (its classes: {', '.join(classes)})" if classes else "")


def factory(spec: Any, params: Mapping[str, Any] | None = None, rules: Iterable[Any] = (),
            game: str | None = None) -> StrategyFactory:
    """A callable ``make(rng) -> Strategy`` (fresh instance per match), checked against every
    rule set in ``rules`` (the decisions without a default and what their variants need). The
    class is made once here with the parameters (checked against its declared ``params`` and its
    constructor), so a bad parameter or a constructor that fails is a one-line error before any
    game is played. A class that does not take the generator (``__init__`` without an ``rng``
    argument) gets it as ``self.rng`` after it is made."""
    cls = resolve(spec, game)
    for r in rules:
        missing = missing_for(cls, r)
        if missing:
            raise CribsimError(f"cribsim: strategy {_shown(spec)} cannot play {r.name}: it lacks {'; '.join(missing)}")
    params = check_params(cls, dict(params or {}))
    takes_rng = _check_params(spec, cls, params)
    _prepare(spec, cls, rules, params)

    def make(rng: Any) -> Any:
        if takes_rng:
            made = cls(rng, **params)
            if getattr(made, "rng", None) is None:  # took the generator but did not keep it:
                try:  # it still has one for the engine to seed (not a crash outside any decision)
                    made.rng = rng
                except AttributeError:
                    pass
            return made
        made = cls(**params)
        made.rng = rng
        return made

    try:
        make(_probe_rng())  # fail early on bad parameters
    except CribsimError as e:
        raise CribsimError(f"cribsim: {str(e).removeprefix('cribsim: ')}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: making it with params {_shown(params)} failed "
                           f"({_describe(e)})") from None
    maker = cast(StrategyFactory, make)  # the function, with the spec as an attribute
    maker.spec = spec
    return maker


def notes(spec: str, params: Mapping[str, Any], rules: Any, game: str | None = None) -> list[str]:
    """What a built-in strategy says of how it plays ``rules`` (its ``notes(rules, params)``: the
    tables it built for them or left out), for the manifest; nothing for a plug-in (its code is
    not run in the driver) or a strategy with nothing to say."""
    target = builtins(game).get(spec)
    if target is None:
        return []
    say = getattr(resolve(spec, game), "notes", None)
    return list(say(rules, dict(params))) if callable(say) else []


def unmodelled(spec: str, rules: Any, game: str | None = None) -> list[str]:
    """Where ``rules`` change what a built-in strategy values without its knowing (its
    ``models`` against the game's :meth:`~cribsim.game.Game.changes`), as lines for a run's
    warning: ``ev: its discards value the show and crib ...; crib3 changes them
    (after_count)``. Nothing for a plug-in (its code is not run in the driver) or a strategy
    that does not declare what it models."""
    if spec not in builtins(game):
        return []
    cls = resolve(spec, game)
    models = getattr(cls, "models", None)
    if not isinstance(models, Models) or models.everything:
        return []
    changed = game_named(rules.game).changes(rules)
    news = [f"{what} changes them ({', '.join(how)})" for what, how in changed.items() if what not in models.changes]
    return [f"{spec}: {models.values}; {'; '.join(news)}"] if news else []


def _prepare(spec: Any, cls: type[Any], rules: Iterable[Any], params: dict[str, Any]) -> None:
    """A strategy class's ``prepare_rules(rules, params)`` (a class method), once per rule set it
    will play, before any game and outside the decisions' time limit: the work a rule set asks of
    it (ev's tables for a new scoring). A failure is one line."""
    found = inspect.getattr_static(cls, "prepare_rules", None)
    if not isinstance(found, (classmethod, staticmethod)):
        return
    prepare = cls.prepare_rules
    for r in rules:
        try:
            prepare(r, params)
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            raise CribsimError(f"cribsim: strategy {_shown(spec)}: preparing for {getattr(r, 'name', r)!r} failed "
                               f"({_describe(e)})") from None


def _check_params(spec: Any, cls: type[Any], params: dict[str, Any]) -> bool:
    """Whether the constructor takes the generator first; a parameter it does not take is an
    error naming the ones it does."""
    for k in params:
        if not isinstance(k, str) or not k.isidentifier():
            raise CribsimError(f"cribsim: strategy {_shown(spec)}: parameter names are identifiers, got {_shown(k)}")
    declared = [p.name for p in getattr(cls, "params", ())]
    if declared and issubclass(cls, Strategy):  # the declared parameters are the checked ones
        for k in params:
            if k not in declared:
                raise CribsimError(f"cribsim: strategy {_shown(spec)} takes no parameter {k!r}"
                                   f"{did_you_mean(k, declared)} (it takes {', '.join(declared)})")
        return True
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return True  # a builtin or extension type: let the probe tell
    ps = list(sig.parameters.values())
    positional = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    # the generator comes first: always for a Strategy; else a first argument named rng or
    # without a default (``__init__(self, depth=2)`` takes no generator)
    takes_rng = issubclass(cls, Strategy) or bool(positional) and (
        positional[0].name == "rng" or positional[0].default is positional[0].empty)
    if any(p.kind == p.VAR_KEYWORD for p in ps):
        return takes_rng
    names = [p.name for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if takes_rng and positional and names and names[0] == positional[0].name:
        names = names[1:]
    for k in params:
        if k not in names:
            takes = f"it takes {', '.join(names)}" if names else "it takes none"
            raise CribsimError(f"cribsim: strategy {_shown(spec)} takes no parameter {k!r}{did_you_mean(k, names)} "
                               f"({takes})")
    return takes_rng


def _shown(v: object, limit: int = 80) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({_shown(exc.code)})"
    return describe(exc, 200)


def _probe_rng() -> random.Random:
    return random.Random(0)
