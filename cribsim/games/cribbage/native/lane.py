"""The native lane: whole games in C (``_lane.c``), identical to the Python engine's.

The runner asks :func:`fast_lane` once per rule set and lineup; where every entry is a built-in
the C code has (``random``, ``greedy``, ``ev``, ``hoyle``: each says how in its ``native`` hook) and the
rules are in its family (2 to 5 players in any
sides, any deal sizes up to hands of 16 cards, targets, match formats and scoring block, and of
the variants whose module says how (``Variant.native``: their knobs as the struct's fields)), each match
without a counting model, an opening or a game record is played there, and its games come back
as the same :class:`GameResult` objects the Python engine makes. Everything after the games (the
match's scoring, the records, the tables) is the same Python code in both lanes.

The C module is built by ``pip install`` where a C compiler is found (``setup.py``) and is
skipped, not failed, where none is. It carries a hash of the source it was built from: a
module built from another ``_lane.c`` (an editable install after the file changed) is not used.
"""

from __future__ import annotations

import importlib
import json
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from cribsim.errors import EndlessGame
from cribsim.game import LaneMatches
from cribsim.matchplay import MatchResult
from cribsim.strategy import resolve

from ..engine.events import SOURCES as SOURCE_NAMES
from ..engine.game import GameResult, ranked
from ..engine.state import side_of_seats
from ..match import SKUNK_NAMES, games_until_settled
from ..strategy import BUILTIN
from . import layout

if TYPE_CHECKING:
    from cribsim.game import Ints

    from ..observation import Observation
    from ..points import Scoring
    from ..rules import Rules

SOURCE = Path(__file__).with_name("_lane.c")
MAX_HAND = 16  # _lane.c's MAXH
SOURCES = 5  # points by source: peg, hand, crib, heels, other (engine.events.SOURCES)


@dataclass(frozen=True)
class EvValues:
    """What ``ev`` values by (strategies/ev.py makes them; ``_lane.c``'s ``EvTables``): the
    scoring, the crib tables by card pair (index ``52 * a + b``) for its own crib and an
    opponent's and by rank, weighted, the reply chances ``hold[unseen][hand][cards of a rank]``,
    the weight of the next player's reply, and what a joker kept and a joker in the crib are
    worth (V-JOKERS)."""

    scoring: Scoring
    own: Sequence[float]
    opp: Sequence[float]
    single: Sequence[float]
    hold: Sequence[Sequence[Sequence[float]]]
    reply: float
    wild_keep: float
    wild_crib: float


@dataclass(frozen=True)
class NativeSeat:
    """How the native lane plays a built-in strategy: its kind, as ``_lane.c`` names it
    (``KINDS``), and the values it is given (``ev``'s)."""

    kind: str
    values: EvValues | None = None


def _sources_here() -> bool:
    """Whether the C source is beside the module (a checkout or an editable install: a wheel
    carries the built module alone, which is then used as it is)."""
    return all((SOURCE.parent / name).exists() for name in (*layout.SOURCES, "layout.py"))


def source_hash(folder: Path = SOURCE.parent) -> str:
    """The hash a build of the C source carries (``setup.py`` passes it to the compiler): of every
    part of it and of the rules' layout it was built with (:func:`.layout.source_hash`)."""
    return layout.source_hash(folder)


_LOADED: list[ModuleType | None] = []
_WHY: list[str] = []


def module() -> ModuleType | None:
    """The built C module, or None (not built, or built from another source: :func:`status`)."""
    if not _LOADED:
        try:
            mod: ModuleType | None = importlib.import_module(f"{__package__}._lane")
        except ImportError:
            mod, why = None, "not built (no C compiler when cribsim was installed)"
        else:
            why = "built"
            if _sources_here() and getattr(mod, "SOURCE", "") != source_hash():
                mod, why = None, "stale (built from another _lane.c: run the install command again)"
            elif tuple(getattr(mod, "RULES_LAYOUT", ())) != tuple((n, w) for n, w, _, _ in layout.FIELDS):
                mod, why = None, "stale (built with another rules layout: run the install command again)"
        _LOADED.append(mod)
        _WHY.append(why)
    return _LOADED[0]


def status() -> str:
    """One line: whether the native lane is here."""
    module()
    return f"native lane: {_WHY[0]}"


HOOKED = frozenset({"after_count"})  # what a variant without a port may change and still play in the lane


def _changes_only(variant: Any, hooks: frozenset[str]) -> bool:
    """Whether ``variant`` has no port and changes nothing but some of ``hooks``."""
    return variant.native is None and bool(variant.changes()) and set(variant.changes()) <= hooks


def hooked(rules: Rules) -> tuple[Any, ...]:
    """The variants of ``rules`` without a port whose only change is an ``after_count`` hook: the
    lane plays their rules, calling their hooks in Python (:class:`LaneHooks`)."""
    return tuple(v for v in rules.modules if _changes_only(v, HOOKED))


def refusal(rules: Rules) -> str | None:
    """Why ``rules`` are outside the native lane's family, or None."""
    if rules.game != "cribbage":
        return f"the native lane plays cribbage, not {rules.game}"
    called = hooked(rules)
    outside = [v.name for v in rules.modules if v.native is None and v not in called]
    if outside:
        return f"the variant {outside[0]} is not in the native lane"
    counted = [v for v in rules.modules if v.after_count is not None]
    if any(v.native is not None for v in counted[counted.index(called[0]) + 1:]) if called else False:
        # (the lane counts its own after_count hooks first: a hook of one's own before one of them)
        return f"the variant {called[0].name}'s after_count comes before a built-in one's"
    return _family_refusal(rules)


SHOW_HOOKS = frozenset({"after_count", "count_hand"})  # hooks the engine calls at the show alone


def play_refusal(rules: Rules) -> str | None:
    """Why the lane cannot search the play of ``rules``, or None: :func:`refusal`, but a variant
    without a port whose only changes are hooks of the show (``count_hand``, ``after_count``:
    the crib that scores for the pone, a show without pairs) or phases before the play and the
    decisions they ask (:func:`done_before_the_play`: the pone's offer of the crib) leaves the
    play as the lane plays it. A search of the play starts from a seat's view in the play and
    rolls out the play alone: what such a variant did came before it and is in that view (the
    hands, the crib's owner, the scores), and no hook of the show is ever called
    (``EVStrategy.lane_searches``). A deal run on to its show still asks :func:`rollouts_for`."""
    if rules.game != "cribbage":
        return f"the native lane plays cribbage, not {rules.game}"
    free = SHOW_HOOKS | done_before_the_play(rules)
    outside = [v.name for v in rules.modules if v.native is None and not _changes_only(v, free)]
    if outside:
        return f"the variant {outside[0]} is not in the native lane"
    return _family_refusal(rules)


def done_before_the_play(rules: Rules) -> frozenset[str]:
    """The changes (as ``Variant.changes`` names them) that are over before the play of
    ``rules`` starts: every phase in a slot before the play's (``phase after_deal``) and every
    decision such a phase asks (``decision take_crib``)."""
    before = rules.program.phases_before("play") or ()
    return frozenset({f"phase {p.slot}" for p in before} | {f"decision {p.decision}" for p in before if p.decision})


def holds_a_hand(view: Observation) -> bool:
    """Whether the lane's search of the play can start from ``view`` (a seat in the play): no
    seat holds and has laid more than a hand of the rules (what its C checks before a search).
    A designer's phase before the play may have moved cards (a card passed after the discard):
    such a seat's searches run on the engine, as they did before the lane searched such rules."""
    size = view.rules.hand_size
    laid = [s for s, _ in view.played]
    return len(view.hand) + laid.count(view.seat) <= size and all(laid.count(s) <= size for s in set(laid))


def keeps_a_hand(obs: Observation) -> bool:
    """At a discard: whether what ``obs``'s seat keeps is at most a hand of the rules, so that
    its keeps' rollouts can run in the lane (see :func:`holds_a_hand`: a designer's deal may
    give more cards than the rules say)."""
    return len(obs.hand) - obs.discards <= obs.rules.hand_size


def searches_play(rules: Rules) -> bool:
    """Whether a search of the play of ``rules`` runs in the lane in this process now: allowed,
    built, and the play the lane's (:func:`play_refusal`)."""
    return rollouts_allowed() and module() is not None and play_refusal(rules) is None


def _family_refusal(rules: Rules) -> str | None:
    """What else keeps ``rules`` out of the lane's family: hands too big, or what only the C code
    knows (None: nothing)."""
    if max(rules.deal, rules.dealer_deal) > MAX_HAND:
        return f"hands of more than {MAX_HAND} cards are not in the native lane"
    c = module()
    why: str | None = c.refuse(pack_rules(rules)) if c is not None else None  # what only the C code knows
    return why


def places_of(rules: Rules, sides: int) -> int:
    """The sides a game of ``sides`` sides places before it ends (``GameState.places``, R-MATCH-5)."""
    return rules.match.places(sides) if rules.objective > 0 else 1


def pack_rules(rules: Rules, scoring: Scoring | None = None, game_no: int = 0) -> bytes:
    """The rules as ``_lane.c``'s ``Rules`` struct (``scoring``: other point values than the
    rules' own, for the values a strategy plays by), with the sides and targets of game
    ``game_no`` (a variant's ``layout`` may give each game its own): each field's value by its
    name, packed in the order :mod:`.layout` declares."""
    values = rule_values(rules, scoring or rules.scoring, game_no)
    extra = set(values) - {n for n, _, _, _ in layout.FIELDS}
    if extra:  # (a variant naming a field the layout does not declare: a bug of the variant's port)
        raise ValueError(f"no field {sorted(extra)[0]!r} in the native lane's rules layout (layout.py)")
    words: list[int] = []
    for name, width, _, _ in layout.FIELDS:
        v = values[name]
        words += list(v) + [0] * (width - len(v)) if isinstance(v, (list, tuple)) else [int(v)]
    return struct.pack(f"<{len(words)}q", *words)


def rule_values(rules: Rules, s: Scoring, game_no: int) -> dict[str, int | list[int]]:
    """Every field of the struct by name: the core keys and point values, then each variant's
    own (its ``native(rules)``: the fields it sets), every other field 0."""
    sides, targets = rules.program.layout(game_no)
    values: dict[str, int | list[int]] = dict.fromkeys((n for n, _, _, _ in layout.FIELDS), 0)
    values.update({
        "players": rules.players, "nsides": len(sides), "side_of": list(side_of_seats(sides, rules.players)),
        "target": rules.target, "places": places_of(rules, len(sides)), "deal": rules.deal,
        "dealer_deal": rules.dealer_deal, "discard": rules.discard, "dealer_discard": rules.dealer_discard,
        "crib_from_deck": rules.crib_from_deck, "crib_flush_needs_starter": int(rules.crib_flush_needs_starter),
        "fifteen": s.fifteen, "fifteen_total": s.fifteen_total, "pair": s.pair, "run_min": s.run_min,
        "run_card": s.run_card, "hand_flush": _or_none(s.hand_flush), "flush_starter": s.flush_starter,
        "crib_flush": _or_none(s.crib_flush), "nobs": s.nobs, "heels": s.heels, "go": s.go,
        "limit": s.count_limit, "hit": s.hit_limit, "last_card": s.last_card, "objective": rules.objective,
        "score_floor": rules.score_floor or 0, "floored": int(rules.score_floor is not None),
        "side_target": [int(t) for t in targets]})
    for v in rules.modules:  # each variant's fields, by name
        if v.native is not None:
            values.update(v.native(rules))
    return values


def _or_none(value: int | None) -> int:
    """A value the struct holds as -1 where the scoring leaves it to the sizes (S-DATA-4's flushes)."""
    return -1 if value is None else value


def pack_ev(rules: Rules, ev: EvValues) -> bytes:
    """``ev``'s values as ``_lane.c``'s ``EvTables``: its scoring as a Rules struct, then doubles."""
    hold = [p for by_hand in ev.hold for by_rank in by_hand for p in by_rank]
    doubles = [*ev.own, *ev.opp, *ev.single, *hold, ev.reply, ev.wild_keep, ev.wild_crib]
    return pack_rules(rules, ev.scoring) + struct.pack(f"<{len(doubles)}d", *doubles)


def seat_for(rules: Rules, name: str, params: dict[str, Any]) -> NativeSeat | None:
    """How the lane plays a lineup entry (a built-in's own ``native`` hook says), or None."""
    if name not in BUILTIN:  # a plug-in's hook is not trusted to say what it plays
        return None
    cls = resolve(name, "cribbage")
    if "native" not in vars(cls):  # its own hook: a subclass (mc, expert of ev) plays otherwise
        return None
    seat: NativeSeat | None = cls.native(rules, params)
    return seat


@dataclass
class NativeLane:
    """One rule set's native lane for a lineup: ``seats[entry]`` how it plays each entry, None
    for one it does not have."""

    rules: Rules
    seats: tuple[NativeSeat | None, ...]
    name: str = "native"

    def __post_init__(self) -> None:
        self.packed = pack_rules(self.rules)
        called = hooked(self.rules)
        self.hooks = LaneHooks(self.rules, called) if called else None
        self._by_layout: dict[Any, bytes] = {}  # a variant's layout: the rules packed for each game's sides
        self.c = module()
        assert self.c is not None
        kinds = self.c.KINDS
        self.kinds = tuple(-1 if s is None else kinds.index(s.kind) for s in self.seats)
        self.values = tuple(None if s is None or s.values is None else self.c.ev_values(pack_ev(self.rules, s.values))
                            for s in self.seats)

    def plays(self, entries: Sequence[int]) -> bool:
        """Whether it plays a match with these lineup entries seated."""
        return all(self.kinds[e] >= 0 for e in entries)

    def play_game(self, seed: int, address: tuple[int, int], first_dealer: int | None, entries: Sequence[int],
                  counters: Sequence[tuple[float, float]] | None = None) -> GameResult:
        """One game at ``address`` (match key, game number), ``entries[seat]`` the lineup entry
        in each seat; ``first_dealer`` None cuts for it (R-DEAL-1); ``counters`` (per seat: miss
        rate, vigilance) models players who overlook points, as the engine's ``play_game``."""
        assert self.c is not None
        model = None if counters is None else tuple(float(x) for pair in counters for x in pair)
        hooks = self.hooks
        if hooks is not None:
            hooks.new_game()
        try:
            out = self.c.game(self.packed_for(address[1]), bytes(self.kinds[e] for e in entries),
                              tuple(self.values[e] for e in entries), seed, address[0], address[1],
                              -1 if first_dealer is None else first_dealer, model, hooks)
        except RuntimeError as e:
            if "did not end within" in str(e):  # (the engine's own MAX_DEALS: one line, as the engine says it)
                raise EndlessGame(self.rules.name, 10_000, "deals") from None
            raise
        return result(self.rules, out, address[1], hooks.metrics if hooks is not None else None)

    def packed_for(self, game_no: int) -> bytes:
        """The rules packed with game ``game_no``'s sides and targets (the same every game but
        where a variant's ``layout`` gives each game its own)."""
        if self.rules.program.hooks.layout is None:
            return self.packed
        key = self.rules.program.layout(game_no)
        got = self._by_layout.get(key)
        if got is None:
            got = self._by_layout[key] = pack_rules(self.rules, game_no=game_no)
        return got

    def games(self, seed: int, first_match: int, count: int,
              entries: Sequence[int]) -> tuple[int, int, tuple[int, ...]]:
        """Game 0 of ``count`` matches from ``first_match``, each cut for, in one call without
        the GIL (the benchmarks' loop): (games, decisions, wins by side)."""
        assert self.c is not None
        out: tuple[int, int, tuple[int, ...]] = self.c.games(
            self.packed, bytes(self.kinds[e] for e in entries), tuple(self.values[e] for e in entries), seed,
            first_match, count)
        return out

    def play_match(self, seed: int, match_key: int, entries: Sequence[int],
                   counters: Sequence[tuple[float, float]] | None = None) -> MatchResult:
        """A whole match, as ``match.play_match`` plays it with these strategies."""
        return games_until_settled(
            self.rules,
            lambda dealer, game_no, _points: self.play_game(seed, (match_key, game_no), dealer, entries, counters),
            None)

    def batch_fields(self) -> frozenset[str] | None:
        """The per-game figures :meth:`play_matches` gives, or None where the C match loop does not
        play these rules (:func:`batch_refusal`)."""
        if batch_refusal(self.rules, self.hooks is not None) is not None:
            return None
        return frozenset(game_fields(self.rules.players))

    def play_matches(self, seed: int, deal_seed: int, specs: Ints) -> LaneMatches:
        """Whole matches in one call (``_lane.matches``: the match loop, the records' lines and the
        figures the summary sums read, in C), for rules :meth:`batch_fields` takes."""
        import numpy as np

        assert self.c is not None
        rules, k = self.rules, len(self.rules.sides)
        kinds = bytes(255 if kind < 0 else kind for kind in self.kinds)  # (255: an entry it does not play)
        try:
            text, ends, games, matches = self.c.matches(
                self.packed, kinds, tuple(self.values), seed, deal_seed, match_format(rules),
                np.ascontiguousarray(specs, dtype=np.int64).tobytes(), sides_json(rules))
        except RuntimeError as e:
            if "did not end within" in str(e):
                raise EndlessGame(rules.name, 10_000, "deals") from None
            raise
        names = game_fields(rules.players)
        rows = np.frombuffer(games, dtype=np.int64).reshape(-1, len(names) + 1)
        by_match = np.frombuffer(matches, dtype=np.int64).reshape(-1, 2 + 2 * k)
        return LaneMatches(text, np.frombuffer(ends, dtype=np.int64), rows[:, 0],
                           {name: rows[:, 1 + i] for i, name in enumerate(names)}, by_match[:, 0],
                           by_match[:, 2:2 + k], by_match[:, 2 + k:])


def game_fields(players: int) -> list[str]:
    """The per-game figures ``_lane.matches`` gives after each game's match (lane_batch.c
    ``game_row``), by their field paths in the game record."""
    c = module()
    metrics: tuple[str, ...] = c.METRICS if c is not None else ()
    return ["deals", "first_dealer_won", "skunk", "decisions", "winner",
            *(f"points.{src}.{role}" for role in range(players) for src in SOURCE_NAMES),
            *(f"metrics.{name}" for name in metrics)]


def batch_refusal(rules: Rules, hooked: bool) -> str | None:
    """Why the C match loop (``_lane.matches``) does not play ``rules``, or None: it plays one
    layout for every game, one place, the table of game points (R-MATCH-1..3) and the sides
    ranked by score (``Program.rank_sides``), with no hook in Python."""
    hooks = rules.program.hooks
    if hooked or hooks.layout is not None or hooks.rank_sides is not None:
        return "a variant's hook"
    if rules.match.scoring != "table" or places_of(rules, len(rules.sides)) != 1:
        return "a match format other than the table of game points"
    if len(rules.skunk_lines) > 3 or set(rules.match.points_table()) != set(SKUNK_NAMES):
        return "other skunk lines"
    return None


def match_format(rules: Rules) -> bytes:
    """The match format as ``_lane.matches`` reads it (lane_batch.c ``F_*``): the games of a fixed
    match, the game points to win, whether a triple skunk wins the match, the game points of a
    win, skunk, double and triple skunk, the skunk lines and how many."""
    fmt, table = rules.match, rules.match.points_table()
    lines = list(rules.skunk_lines)
    words = [fmt.games, fmt.first_to, int(fmt.triple_skunk_wins_match), *(table[name] for name in SKUNK_NAMES),
             *lines, *[0] * (3 - len(lines)), len(lines)]
    return struct.pack(f"<{len(words)}q", *words)


def sides_json(rules: Rules) -> bytes:
    """The rules' sides as a game record writes them (``"sides":[[0,2],[1,3]]``)."""
    return json.dumps([list(side) for side in rules.sides], separators=(",", ":")).encode()


_ROLLOUTS = [True]  # whether search strategies may roll out here (``--no-fast`` says no)


def allow_rollouts(allowed: bool) -> bool:
    """Whether search strategies may roll out in the lane (a run with ``--no-fast``: no);
    returns the setting before."""
    before, _ROLLOUTS[0] = _ROLLOUTS[0], allowed
    return before


def rollouts_allowed() -> bool:
    """Whether search strategies may roll out in the lane in this process now."""
    return _ROLLOUTS[0]


def rollouts_for(rules: Rules) -> bool:
    """Whether :class:`NativePlayRollout` plays ``rules``: allowed, built and in the family (whose
    deals of up to ``MAX_HAND`` cards ev's reply chances, to 20, always hold). Where a variant
    gives each game its own sides, the searches read the rules packed for the game
    (``pack_rules(rules, game_no=...)``); with wild cards mc's search runs here too (``mc_play``
    with a joker once per name that fits), but not expert's board (it is for the standard game
    only). Rules whose hooks play in Python (:class:`LaneHooks`) are not: a count or a deal
    rolled out here would run no hook (a search of the play alone runs no hook either, and
    ``EVStrategy.lane_searches`` lets it into the lane there)."""
    c = module()
    return _ROLLOUTS[0] and c is not None and refusal(rules) is None and not hooked(rules)


def show_values(packed: bytes, hand: Sequence[int], keep: int, starters: Sequence[int], seat: int, dealer: int,
                crib_owner: int, scores: Sequence[int]) -> list[float]:
    """For each keep of ``keep`` cards of ``hand`` (``itertools.combinations`` order), the mean
    over ``starters`` of what counting it as ``seat``'s hand awards its side, less the other
    sides' mean, by the lane's own show count (``_lane.show_values``; the engine's
    ``ShowCount.count`` where :func:`rollouts_for` says the lane plays the rules)."""
    c = module()
    assert c is not None
    return list(c.show_values(packed, tuple(hand), keep, tuple(starters), seat, dealer, crib_owner, tuple(scores)))


def ev_capsule(rules: Rules, values: EvValues) -> Any:
    """``values`` handed to the C code once (an opaque capsule for :class:`NativePlayRollout`)."""
    c = module()
    assert c is not None
    return c.ev_values(pack_ev(rules, values))


def flat(pairs: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """Pairs (seat and card, seat and count, two cards) as one run of ints, as the C code reads them."""
    return tuple(x for pair in pairs for x in pair)


def view_of(view: Any, from_start: bool = False) -> tuple[int, ...]:
    """A seat's observation as the C searches read it (``_lane.c`` parse_view): the seat, the
    dealer, the crib's owner, the starter (-1: not cut), whose turn, the count, then counted runs
    of the pile, the cards laid (seat and card) and the seat's own discards; ``from_start``, or a
    discard decision, is the play from its first card."""
    at_start = from_start or (view.starter is None and not view.played)
    turn = (view.dealer + 1) % view.rules.players if at_start else view.seat
    count, pile, played = (0, (), ()) if at_start else (view.count, tuple(view.pile), tuple(view.played))
    starter = -1 if view.starter is None else view.starter
    return (view.seat, view.dealer, view.crib_owner, starter, turn, count, len(pile), *pile, len(played),
            *flat(played), len(view.discarded), *view.discarded)


class NativePlayRollout:
    """``engine.rollout.PlayRollout`` with every seat playing ``ev``'s one-ply rule (by the values
    in ``capsule``, :func:`ev_capsule`), in C: built once per decision from the seat's view,
    :meth:`run` plays one rollout and returns the same points (:func:`rollouts_for` says where)."""

    def __init__(self, view: Any, capsule: Any, packed: bytes, from_start: bool = False) -> None:
        self.c, self.capsule, self.packed = module(), capsule, packed
        self.view = view_of(view, from_start)

    def run(self, hands: Sequence[Sequence[int]], first: int | tuple[int, int] | None = None) -> list[int]:
        """Points pegged by each side from here to the end of the play, ``hands`` held by seat
        and ``first`` laid by the root seat (None: its rule chooses; a joker as (joker, the card
        it is named))."""
        assert self.c is not None
        card, named = first if isinstance(first, tuple) else (-1 if first is None else first, -1)
        points: list[int] = list(self.c.rollout(self.packed, self.capsule, self.view, hands, card, named))
        return points


def _drawing(rng: Any, search: Callable[[Any], tuple[Any, Any]]) -> Any:
    """What a search in C returns, the search drawing from ``rng``'s own state: its words go to
    the C code (``getstate``) and come back (``setstate``), so the draws go on as in Python."""
    version, words, gauss = rng.getstate()
    answer, words = search(words)
    rng.setstate((version, words, gauss))
    return answer


def mc_play(view: Any, capsule: Any, packed: bytes, rollouts: int, rng: Any,
            reading: tuple[bool, float, int] | None, options: Sequence[tuple[Any, int]] | None = None) -> int:
    """``MCStrategy.play``'s search in C for a seat with ``view`` (its observation): which of
    ``view.legal`` it lays, or with ``options`` (``jokers.play_options``: a joker once per name
    that fits) which of those; ``reading``: None, or expert's reading of the other player (by
    the play, its slack, the draws it tries)."""
    c = module()
    assert c is not None
    cards = view.legal if options is None else [a[0] if isinstance(a, tuple) else a for a, _ in options]
    names = None if options is None else [name for _, name in options]
    best: int = _drawing(rng, lambda words: c.mc_play(packed, capsule, view_of(view), view.hand, cards,
                                                      flat(view.gos), rollouts, words, reading, names))
    return best


def discard_pegs(packed: bytes, capsule: Any, views: Sequence[tuple[int, ...]], keeps: Sequence[Sequence[int]],
                 unseen: Sequence[int], samples: int, rng: Any) -> list[int]:
    """``AdaptiveStrategy``'s discard rollouts in C (two players): ``samples`` draws of the other
    player's six from ``unseen`` (``rng.sample``), kept as ev's discard by the values in
    ``capsule`` keeps them; for each keep, the play rolled out from its view (:func:`view_of`)
    as :meth:`NativePlayRollout.run` plays it; by keep, the sum of twice the root side's points
    less all points pegged. The draws come from ``rng``'s own state, as in Python."""
    c = module()
    assert c is not None
    pegs: tuple[int, ...] = _drawing(rng, lambda words: c.discard_pegs(packed, capsule, list(views),
                                                                       [tuple(k) for k in keeps], tuple(unseen),
                                                                       samples, words))
    return list(pegs)


_WIN: list[tuple[Any, Any]] = []  # (the board table, its capsule): the one table a process reads


def win_capsule(table: Sequence[Sequence[float]]) -> Any:
    """The board table (the dealer's chance to win by both scores) handed to the C code once."""
    if not _WIN or _WIN[0][0] is not table:
        c = module()
        assert c is not None
        n = len(table)
        _WIN[:] = [(table, c.win_table(n, struct.pack(f"<{n * n}d", *(p for row in table for p in row))))]
    return _WIN[0][1]


def board_discard(view: Any, capsule: Any, packed: bytes, throws: Sequence[Sequence[int]], samples: int, rng: Any,
                  target: int, table: Sequence[Sequence[float]]) -> tuple[float, ...]:
    """``ExpertStrategy.board_discard``'s samples in C: the chance to win summed over the deals
    sampled, for each throw (best first)."""
    c = module()
    assert c is not None
    wins: tuple[float, ...] = _drawing(rng, lambda words: c.board_discard(
        packed, capsule, view_of(view), view.hand, flat(throws), samples, words, tuple(view.scores), target,
        win_capsule(table)))
    return wins


def board_play(view: Any, capsule: Any, packed: bytes, options: Sequence[int], samples: int, rng: Any,
               target: int, table: Sequence[Sequence[float]]) -> tuple[float, ...]:
    """``ExpertStrategy.board_play``'s samples in C: the chance to win summed over the deals
    sampled, for each card of ``options``."""
    c = module()
    assert c is not None
    wins: tuple[float, ...] = _drawing(rng, lambda words: c.board_play(
        packed, capsule, view_of(view), view.hand, tuple(options), flat(view.gos), samples, words,
        tuple(view.scores), target, win_capsule(table)))
    return wins


def result(rules: Rules, out: tuple[Any, ...], game_no: int, more: dict[str, float] | None = None) -> GameResult:
    """The :class:`GameResult` of what ``_lane.game`` returns for game ``game_no`` of a match, as
    the engine's ``result_of`` makes it; ``more``: the figures hooks in Python counted."""
    side, first_dealer, deals, decisions, scores, roles, trail, placed, first_scores, counted = out
    c = module()
    names: tuple[str, ...] = c.METRICS if c is not None else ()  # the figures game() counts, as GameState.metric
    metrics = {name: value for name, value in zip(names, counted) if value is not None}  # None: never touched
    for name, value in (more or {}).items():
        metrics[name] = metrics.get(name, 0) + value
    sides, targets = rules.program.layout(game_no)
    k = len(sides)
    order, shared = ranked(rules.program, placed, places_of(rules, k), side, list(scores))
    return GameResult(order[0], scores, first_dealer, deals,
                      [list(roles[i:i + SOURCES]) for i in range(0, len(roles), SOURCES)],
                      sides, targets, tuple(order), sides is not rules.sides, shared,
                      placed or None, first_scores, metrics, None, None,
                      [trail[i:i + k] for i in range(0, len(trail), k)], decisions)


class _Decided(Exception):
    """A hook's award decided the game: the hooks stop there, as the engine's GameOver stops them."""


class LaneState:
    """What a designer's ``after_count`` hook may read and do when the native lane plays its rules:
    what the engine's game state offers there, and nothing more. It reads the rules, the seats
    (``n``, ``side_of``), the ``dealer``, the ``crib_owner``, the ``starter``, ``deal_no``, the
    ``scores`` by side, the hands as counted (``kept``) and the ``crib``; it keeps ``notes`` for
    the deal; it gives points with ``award`` (the one way to change a score) and counts a figure
    with ``metric``. Anything else of the engine's state is not here: a hook that needs it plays
    its rules in Python (make its variant change something more than ``after_count``)."""

    def __init__(self, rules: Rules, lane: Any, metrics: dict[str, float]) -> None:
        self.rules, self.n, self.side_of = rules, rules.players, rules.side_of
        self.game: Any = None  # this game in the lane (a capsule; read through the lane's hook_* functions)
        self._lane, self._metrics = lane, metrics
        self.notes: dict[str, Any] = {}

    def _state(self) -> tuple[Any, ...]:
        return self._lane.hook_state(self.game)  # type: ignore[no-any-return]

    @property
    def scores(self) -> list[int]:
        return list(self._state()[0])

    @property
    def dealer(self) -> int:
        return int(self._state()[1])

    @property
    def crib_owner(self) -> int:
        return int(self._state()[2])

    @property
    def starter(self) -> int:
        return int(self._state()[3])

    @property
    def deal_no(self) -> int:
        return int(self._state()[4])

    @property
    def kept(self) -> list[tuple[int, ...]]:
        return list(self._lane.hook_cards(self.game)[0])

    @property
    def crib(self) -> list[int]:
        return list(self._lane.hook_cards(self.game)[1])

    def award(self, seat: int, points: int, source: int, reason: str = "", cards: Sequence[int] = ()) -> None:
        """Give ``points`` to ``seat``'s side (GameState.award): the game ends the instant a side
        reaches its target."""
        if self._lane.hook_award(self.game, seat, points, source):
            raise _Decided()

    def metric(self, name: str, amount: float = 1) -> None:
        self._metrics[name] = self._metrics.get(name, 0) + amount


class LaneHooks:
    """The after_count hooks of ``called`` (variants without a port) as the native lane calls them:
    ``hooks(game, seat, points, source, deal)`` after each hand and crib is counted, true when a
    hook's award decided the game."""

    def __init__(self, rules: Rules, called: Sequence[Any]) -> None:
        self.fns = tuple(v.after_count for v in called)
        self.metrics: dict[str, float] = {}
        self.state = LaneState(rules, module(), self.metrics)
        self.deal = -1

    def new_game(self) -> None:
        self.metrics.clear()
        self.deal = -1

    def __call__(self, game: Any, seat: int, points: int, source: int, deal: int) -> bool:
        state = self.state
        state.game = game
        if deal != self.deal:  # a new deal: the variants' notes of the last one are gone (GameState.new_deal)
            self.deal = deal
            state.notes = {}
        try:
            for fn in self.fns:
                fn(state, seat, points, source)
        except _Decided:
            return True
        return False


def fast_lane(rules: Rules, strategies: Sequence[tuple[str, dict[str, Any]]]) -> NativeLane | None:
    """The native lane for ``rules`` and a lineup (each entry's strategy name and parameters),
    or None where it plays none of the entries, the rules are outside its family, or it is not
    built. It plays the matches whose entries it all has (:meth:`NativeLane.plays`)."""
    c = module()
    if c is None or refusal(rules) is not None:
        return None
    seats = tuple(seat_for(rules, name, params) for name, params in strategies)
    return NativeLane(rules, seats) if any(s is not None for s in seats) else None
