"""What a rule variant may declare: the base class every module in ``cribsim/variants/`` fills.

A variant is one module with one :class:`Variant` subclass (plus its YAML in ``configs/rules``).
The class declares, in one place:

- ``name``, ``rule`` (its number in docs/rules.md) and a one-line ``summary``;
- ``params``: its knobs (:class:`cribsim.params.Param`: type, default, range, doc). A knob of a
  variant is set at the top level of a rules file; ``enabled_by`` names the knobs that turn the
  variant on when one differs from its default (``target``-like data variants); any variant is
  also turned on by naming it in ``variants:`` (its enabling knobs then take their ``on``
  values);
- ``phases``: phases it puts into named slots of the deal (:data:`SLOTS`);
- hooks, each a method the engine calls at one fixed point (see :class:`Hooks`); a hook that
  only one variant may fill (who wins, how a hand is valued) is a config error naming both when
  two variants fill it;
- ``decisions``: the decisions it adds (:class:`Decision`), each with a default answer for
  strategies that do not implement it, or ``None`` to refuse them when the lineup loads;
- ``observation``: the fields it adds to a seat's observation, with their initial values, and
  ``features``: how an environment's fixed-size observation encodes them (:class:`Feature`);
- ``needs``: what a strategy must understand to play it (``"objective"``: it reads
  ``rules.objective`` and minimises when it is -1), checked when a lineup loads;
- ``narrate``: lines for its events; ``columns``: summary columns from its per-game metrics;
- ``requires`` and ``conflicts``: variants it needs, and those it cannot be combined with;
  ``players``: the player counts it is for (two variants for different counts are refused
  together, naming both).

The engine core never names a variant: it consults the assembled :class:`cribsim.engine.program.Program`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from cribsim import owncode
from cribsim.params import Param

if TYPE_CHECKING:
    from cribsim.records import Column

    from .events import Event
    from .state import GameState

# the named slots of a deal, in order; a phase fills a slot
SLOTS = ("opening", "deal", "after_deal", "discard", "after_discard", "starter", "play", "show")


@dataclass(frozen=True)
class Phase:
    """One step of a deal. ``run(g)`` does it; a phase that asks for decisions (``decision``
    names the kind) is a generator that yields the seat to act, after filling that seat's
    observation, and receives the seat's answer."""

    slot: str
    run: Callable[..., Any]
    decision: str | None = None


@dataclass(frozen=True)
class Decision:
    """A kind of decision a seat makes. ``default(strategy, obs)`` answers for a strategy that
    does not implement the method named ``name`` (None: such a strategy is refused when the
    lineup loads). ``legal(obs)`` lists every legal answer (for generic drivers, tests and
    environments); ``check(obs, answer)`` returns an error message for an illegal one.

    For a person at the table (``cribsim play --human``; None: cards, as the core's decisions
    take them): ``show(answer)`` writes an answer as a person reads it, ``read(words, obs)``
    reads one typed (a ValueError with a one-line reason if it cannot), ``prompt(obs)`` says
    what is asked; where the answers are whole numbers (``numbers``), a typed number is the
    answer itself, so they are not listed with numbers, and ``how`` says how one is typed.

    For an environment (``cribsim.env``), whose agents answer with tokens: ``numbers`` names the
    rules attribute bounding the answers when they are whole numbers (a bid), not cards."""

    name: str
    doc: str
    legal: Callable[[Any], list[Any]]
    check: Callable[[Any, Any], str | None]
    default: Callable[[Any, Any], Any] | None = None
    show: Callable[[Any], str] | None = None
    read: Callable[[list[str], Any], Any] | None = None
    prompt: Callable[[Any], str] | None = None
    numbers: str | None = None
    how: str | None = None


@dataclass(frozen=True)
class Feature:
    """A field a variant adds to the observation, as an environment's fixed-size observation
    encodes it (``cribsim.env``): ``kind`` "cards" (a set of cards: one flag per card), "seat"
    (a seat or -1: one flag per seat, counted from the observer) or "number" (divided by
    ``scale``, capped at 1)."""

    field: str
    kind: str
    scale: float = 1.0


def no_knobs(rules: Any) -> dict[str, int]:
    """A variant's knobs for the native lane when it has none of its own: the lane plays it from
    the rules alone (a reversed objective, say), or it plays exactly the rules without it."""
    return {}


class Variant:
    """Base class of a rule variant: every attribute below is optional (see the module doc)."""

    name: ClassVar[str] = ""
    rule: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    enabled_by: ClassVar[tuple[str, ...]] = ()
    phases: ClassVar[tuple[Phase, ...]] = ()
    decisions: ClassVar[tuple[Decision, ...]] = ()
    # the sources of its events whose cards only their own seat sees (what a person at the table
    # is not shown of another seat: cribsim play --human)
    private: ClassVar[tuple[str, ...]] = ()
    observation: ClassVar[Mapping[str, Any]] = {}
    features: ClassVar[tuple[Feature, ...]] = ()  # how an environment encodes those fields
    needs: ClassVar[tuple[str, ...]] = ()
    requires: ClassVar[tuple[str, ...]] = ()
    conflicts: ClassVar[tuple[str, ...]] = ()
    players: ClassVar[tuple[int, ...]] = ()  # the player counts it is for (empty: any)
    columns: ClassVar[tuple[Column, ...]] = ()
    objective: ClassVar[int] = 1  # -1: the side that scores fewer points is better (lowball)
    # the native lane (cribsim/games/cribbage/native) plays this variant: its knobs as the fields of
    # _lane.c's Rules struct, by name (None: the lane does not play it)
    native: ClassVar[Callable[..., dict[str, int]] | None] = None
    # the hooks a variant may define, as static methods (see Hooks for their signatures)
    HOOKS: ClassVar[tuple[str, ...]] = ("check", "extra_cards", "heels", "stops_at_reset", "name_card",
                                        "play_answers", "count_hand", "show_items", "after_count", "discard_rule",
                                        "rank_sides", "layout", "missed", "metrics")
    # every hook but check, extra_cards, stops_at_reset, after_count and metrics may be filled
    # by one active variant only; a variant defines a hook as a static method (see Hooks)
    check: ClassVar[Callable[..., None] | None] = None
    extra_cards: ClassVar[Callable[..., int] | None] = None
    heels: ClassVar[Callable[..., bool] | None] = None
    stops_at_reset: ClassVar[Callable[..., bool] | None] = None
    name_card: ClassVar[Callable[..., tuple[int, int]] | None] = None
    play_answers: ClassVar[Callable[..., list[tuple[Any, int]]] | None] = None
    count_hand: ClassVar[Callable[..., int] | None] = None
    show_items: ClassVar[Callable[..., Any] | None] = None
    after_count: ClassVar[Callable[..., None] | None] = None
    discard_rule: ClassVar[Callable[..., Any] | None] = None
    rank_sides: ClassVar[Callable[..., Any] | None] = None
    layout: ClassVar[Callable[..., Any] | None] = None
    missed: ClassVar[Callable[..., None] | None] = None
    metrics: ClassVar[Callable[..., dict[str, float]] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A variant of one's own is marked as such where it is defined, in every process that
        imports it: an exception its code raises names it (:mod:`cribsim.owncode`)."""
        super().__init_subclass__(**kwargs)
        owncode.mark(cls.__module__, f"variant {cls.name or cls.__name__}", roles(cls))

    @classmethod
    def changes(cls) -> tuple[str, ...]:
        """What it changes of the standard game that a player's values may rest on: the hooks it
        fills (but its checks and metrics), the decisions it adds and the slots its phases fill
        (``after_count``, ``decision bid``, ``phase after_deal``), for a run's warning that a
        strategy plays it without modelling it."""
        hooks = [name for name in cls.HOOKS if name not in ("check", "metrics") and getattr(cls, name) is not None]
        return (*hooks, *(f"decision {d.name}" for d in cls.decisions), *(f"phase {p.slot}" for p in cls.phases))

    @classmethod
    def narrate(cls, e: Event, names: list[str]) -> str | None:
        """A line for one of this variant's events, or None to leave it to the core."""
        return None


def roles(cls: type[Variant]) -> dict[str, Callable[..., Any] | None]:
    """The role of each function a variant gives the engine: its hooks (``after_count hook``), its
    phases (``after_deal phase``), its decisions' functions (``take_crib default``), its narration."""
    out: dict[str, Callable[..., Any] | None] = {f"{name} hook": getattr(cls, name, None) for name in cls.HOOKS}
    out.update({f"{p.slot} phase": p.run for p in cls.phases})
    for d in cls.decisions:
        out.update({f"{d.name} {part}": getattr(d, part) for part in ("default", "legal", "check", "show", "read")})
    out["narrate"] = getattr(cls, "narrate", None)
    return out


@dataclass(frozen=True)
class Hooks:
    """The hooks of one rule set, assembled from its active variants (None or () where no
    variant fills one). Signatures:

    - ``check(rules, source)``: raise ConfigError for a combination that cannot be played;
    - ``extra_cards(rules) -> int``: cards added to the 52 (summed);
    - ``heels(card) -> bool``: a starter card, besides a jack, that gives the dealer his heels
      (the scoring's ``heels``, S-DATA-5);
    - ``stops_at_reset(rules) -> bool``: the play ends at its first reset;
    - ``name_card(answer, obs) -> (card, card it counts as)``: resolve a play answer (raises
      IllegalMove for an illegal one);
    - ``play_answers(obs) -> [(answer, card it counts as)]``: every distinct legal play answer;
    - ``count_hand(g, seat, cards, crib, source) -> points``: count and award one hand or crib;
    - ``show_items(cards, starter, crib, objective, scorer=) -> (items, cards as counted, starter as
      counted)``: the breakdown of a show (``cribsim score``);
    - ``after_count(g, seat, points, source)``: after each hand or crib is counted (a list);
    - ``discard_rule(rules, hand, k) -> (must, pool) | None``: constrains a discard;
    - ``rank_sides(rules, side, scores) -> (order, co_winners)``: every side ranked, best first,
      when ``side`` has just reached its target, and the sides sharing the win (or None);
    - ``layout(rules, game) -> (sides, targets)``: a game's own sides and targets;
    - ``missed(g, seat, points)``: points a player overlooked (lost unless a hook takes them);
    - ``metrics(g) -> {name: number}``: per-game figures for summary columns (a list).

    Each, with what it may read and change and an example: docs/guide-designers.md (a test
    reads this class and fails when one is missing there)."""

    extra_cards: int = 0
    heels: Callable[[int], bool] | None = None
    stops_at_reset: bool = False
    name_card: Callable[..., tuple[int, int]] | None = None
    play_answers: Callable[[Any], list[tuple[Any, int]]] | None = None
    count_hand: Callable[..., int] | None = None
    show_items: Callable[..., Any] | None = None
    after_count: tuple[Callable[[GameState, int, int, int], None], ...] = ()
    discard_rule: Callable[..., Any] | None = None
    rank_sides: Callable[..., Any] | None = None
    layout: Callable[..., Any] | None = None
    missed: Callable[[GameState, int, int], None] | None = None
    metrics: tuple[Callable[[GameState], dict[str, float]], ...] = ()
