"""The Strategy protocol, the Observation a seat may see, and the strategy loader.

A strategy sees only an :class:`Observation`: its own cards, the public table, the scores and the
rules; never the deck, another seat's hidden cards or the engine's random generator.  Each
strategy gets its own ``random.Random`` (addressed per deal, see ``cribsim.rng``)."""

import importlib

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


def factory(spec, params=None, needs=(), game="cribbage"):
    """A callable ``make(rng) -> Strategy`` (fresh instance per match)."""
    cls = resolve(spec, game)
    missing = set(needs) - set(getattr(cls, "supports", ()))
    if missing:
        raise CribsimError(f"cribsim: strategy {spec!r} cannot make the decisions "
                           f"{', '.join(sorted(missing))} these rules need")
    params = dict(params or {})
    cls(_probe_rng(), **params)  # fail early on bad parameters

    def make(rng):
        return cls(rng, **params)

    make.spec = spec
    return make


def _probe_rng():
    import random

    return random.Random(0)
