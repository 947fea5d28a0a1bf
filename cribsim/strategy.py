"""The Strategy protocol, the Observation a seat may see, and the strategy loader.

A strategy sees only an :class:`Observation`: its own cards, the public table, the scores and the
rules; never the deck, another seat's hidden cards or the engine's random generator.  Each
strategy gets its own ``random.Random`` (addressed per deal, see ``cribsim.rng``)."""

import importlib
import re

from .errors import CribsimError

BUILTIN = {
    "random": "strategies.random_play:RandomStrategy",
    "greedy": "strategies.greedy:GreedyStrategy",
    "hoyle": "strategies.hoyle:HoyleStrategy",
    "ev": "strategies.ev:EVStrategy",
    "mc": "strategies.mc:MCStrategy",
}


class Observation:
    """What one seat may see. The engine keeps one per seat and updates it before each decision.

    Always: ``seat``, ``side``, ``side_of`` (every seat's side in this game: use it, not
    ``rules.side_of``, since two against one changes sides game by game), ``players``,
    ``rules``, ``dealer``, ``crib_owner``, ``scores`` (tuple, one per side), ``hand`` (tuple
    of own cards).
    Discard: ``discards`` (how many to give the crib), ``discard_rule`` (None, or (must, pool):
    the discards must include ``must`` and come from ``pool``, V-TOSSFIVES; see
    :func:`allowed_throws`).
    Auction (V-AUCTION): ``hand`` as dealt, ``bid_standing``, ``bid_by`` (-1: no bid yet),
    ``bids`` ((seat, bid or None for a pass), in order).
    Inspection (V-TEAM3-2): ``hand`` (own four), ``crib`` (the crib's four).
    Canadian doubles (V-CANADIAN): ``hand`` (10 cards), ``passes`` (4 to the partner) and
    ``discards`` (2 to the crib).
    Play: ``starter``, ``count``, ``pile`` (cards since the last reset), ``played`` (tuple of
    (seat, card) laid this deal, in order), ``legal`` (cards that fit under 31), ``gos`` (tuple
    of (seat, count) for each go said this deal: that seat then held no card of value
    <= 31 - count)."""

    __slots__ = ("seat", "side", "players", "rules", "dealer", "crib_owner", "scores", "hand",
                 "discards", "discard_rule", "starter", "count", "pile", "played", "legal", "gos",
                 "bid_standing", "bid_by", "bids", "passes", "side_of", "crib")

    def __init__(self, seat, side, rules):
        self.seat, self.side, self.rules = seat, side, rules
        self.players = rules.players
        self.dealer = self.crib_owner = 0
        self.scores = ()
        self.hand = self.pile = self.played = self.legal = self.gos = ()
        self.discards = 0
        self.discard_rule = None
        self.bid_standing, self.bid_by, self.bids = 0, -1, ()
        self.passes = 0
        self.side_of = rules.side_of  # this game's side of every seat (V-TEAM3 changes it by game)
        self.crib = ()
        self.starter = None
        self.count = 0


# what a strategy may declare in ``supports``: the decisions, and the variants it understands
EVERY_VARIANT = frozenset({"discard", "play", "bid", "pass_cards", "inspect", "lowball", "jokers", "discard_rule"})


class Strategy:
    """Base class with the protocol. Subclasses implement ``discard`` and ``play``.

    ``discard(obs)`` returns ``obs.discards`` cards of ``obs.hand``; ``play(obs)`` returns one of
    ``obs.legal``.  ``supports`` names the decisions a strategy can make, so that a lineup that
    needs one it lacks (an auction bid, say) fails before any game is played."""

    name = "strategy"
    game = "cribbage"  # the game it plays (cribsim.games)
    supports = frozenset({"discard", "play"})

    def __init__(self, rng, **params):
        if params:
            raise CribsimError(f"cribsim: strategy '{self.name}' takes no parameter "
                               f"'{next(iter(params))}'")
        self.rng = rng

    def discard(self, obs):
        raise NotImplementedError

    def play(self, obs):
        raise NotImplementedError


def play_options(obs):
    """(answer, card it counts as) for every distinct way to play: a standard card as itself, a
    joker (V-JOKERS) once per rank that fits, as (joker, named card)."""
    out = []
    joker_done = False
    for c in obs.legal:
        if c < 52:
            out.append((c, c))
        elif not joker_done:
            joker_done = True
            from .jokers import play_names

            out += [((c, name), name) for name in play_names(31 - obs.count)]
    return out


def raise_to(obs, worth):
    """An auction answer (V-AUCTION): the lowest legal bid if it is worth no more than ``worth``
    points to us, else a pass (None)."""
    r = obs.rules
    b = max(r.min_bid, obs.bid_standing + 1)
    return b if b <= worth and b <= r.max_bid else None


def best_split(obs, value):
    """V-CANADIAN: (to_partner, to_crib) maximising ``value(keep, to_partner, to_crib)`` over
    every way to split the 10 dealt cards 4 / 4 / 2 (3,150 ways), first best kept."""
    from itertools import combinations

    hand = obs.hand
    best, choice = None, None
    for keep in combinations(hand, len(hand) - obs.passes - obs.discards):
        rest = [c for c in hand if c not in keep]
        for passed in combinations(rest, obs.passes):
            thrown = [c for c in rest if c not in passed]
            v = value(keep, passed, thrown)
            if best is None or v > best:
                best, choice = v, (list(passed), thrown)
    return choice


def allowed(obs, thrown):
    """Whether a set of discards obeys ``obs.discard_rule`` (always, without one)."""
    rule = obs.discard_rule
    return rule is None or (set(rule[0]) <= set(thrown) <= set(rule[1]))


def allowed_keeps(obs):
    """(keep, thrown) for every legal discard, in ``combinations(hand, kept)`` order."""
    from itertools import combinations

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


# the decisions every strategy of a game must make (more come from ``supports``)
DECISIONS = {"cribbage": ("discard", "play"), "fives_threes": ("play",)}
_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def resolve(spec, game="cribbage"):
    """The Strategy class for a built-in name (``random``) or ``module:Class``, checked to
    play ``game``. Every failure (a malformed spec, a module that cannot be imported, raises or
    exits while importing, an attribute that is not a strategy class) is one CribsimError."""
    table = builtins(game)
    target = table.get(spec, spec) if isinstance(spec, str) else spec
    if not isinstance(target, str) or ":" not in target:
        raise CribsimError(f"cribsim: unknown strategy {_shown(spec)} for {game} (built-in: {', '.join(sorted(table))}; "
                           f"or give module:Class)")
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
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: module {mod_name!r} has no {cls_name!r}")
    if not isinstance(cls, type):
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: {cls_name!r} is a {type(cls).__name__}, not a strategy "
                           "class")
    plays = getattr(cls, "game", "cribbage")
    if plays != game:
        raise CribsimError(f"cribsim: strategy {_shown(spec)} plays {_shown(plays)}, not {game}")
    lacking = [m for m in DECISIONS.get(game, ("play",)) if not callable(getattr(cls, m, None))]
    if lacking:
        raise CribsimError(f"cribsim: strategy {_shown(spec)}: class {cls_name!r} has no {' or '.join(lacking)} "
                           "method (a strategy subclasses cribsim.strategy.Strategy)")
    return cls


def factory(spec, params=None, needs=(), game="cribbage"):
    """A callable ``make(rng) -> Strategy`` (fresh instance per match). The class is made once
    here with the parameters, so a parameter it does not take, or a constructor that fails, is
    a one-line error before any game is played. A class that does not take the generator
    (``__init__`` without an ``rng`` argument) gets it as ``self.rng`` after it is made."""
    cls = resolve(spec, game)
    missing = set(needs) - set(getattr(cls, "supports", None) or ("discard", "play"))
    if missing:
        raise CribsimError(f"cribsim: strategy {_shown(spec)} cannot make the decisions "
                           f"{', '.join(sorted(missing))} these rules need")
    params = dict(params or {})
    takes_rng = _check_params(spec, cls, params)

    def make(rng):
        if takes_rng:
            return cls(rng, **params)
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
    make.spec = spec
    return make


def _check_params(spec, cls, params):
    """Whether the constructor takes the generator first; a parameter it does not take is an
    error naming the ones it does."""
    import inspect

    for k in params:
        if not isinstance(k, str) or not k.isidentifier():
            raise CribsimError(f"cribsim: strategy {_shown(spec)}: parameter names are identifiers, got {_shown(k)}")
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
            raise CribsimError(f"cribsim: strategy {_shown(spec)} takes no parameter {k!r} ({takes})")
    return takes_rng


def _shown(v, limit=80):
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _describe(exc):
    from .errors import describe

    if isinstance(exc, SystemExit):
        return f"it called sys.exit({_shown(exc.code)})"
    return describe(exc, 200)


def _probe_rng():
    import random

    return random.Random(0)
