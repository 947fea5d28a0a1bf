"""V-CANADIAN (Canadian doubles): four players in two partnerships; only the dealer and the
player to the dealer's left are dealt, 10 cards each. Each keeps 4, passes 4 face down to their
partner and discards 2 to the crib. Play and show are as usual. A discard rule (toss fives)
binds the 2 thrown to the crib.

The variant fills the deal and discard slots. Strategies answer ``pass_cards(obs)`` with (the 4
cards for the partner, the 2 for the crib); ``obs.hand`` holds the 10 dealt cards,
``obs.discards`` is 2 and ``obs.passes`` 4. A strategy without ``pass_cards`` keeps and passes
the cards worth most in hand (no starter) and throws the rest."""

from __future__ import annotations

from collections.abc import Callable, Generator
from itertools import combinations
from typing import TYPE_CHECKING, Any

from cribsim.errors import ConfigError, CribsimError, IllegalMove

from ..cards import cards_str, parse_cards
from ..engine.phases import obeys, without
from ..engine.variant import Decision, Phase, Variant

if TYPE_CHECKING:
    from ..engine.events import Event
    from ..engine.state import GameState
    from ..observation import Observation

DEALT, PASS, THROW = 10, 4, 2


def pass_error(obs: Observation, choice: Any) -> str | None:
    try:
        to_partner, to_crib = (list(x) for x in choice)
    except (ValueError, TypeError):
        to_partner, to_crib = [], []
    if without(obs.hand, to_partner + to_crib) is None or len(to_partner) != PASS or len(to_crib) != THROW:
        return (f"answered {choice!r} for {cards_str(obs.hand)}: expected ({PASS} cards for the partner, "
                f"{THROW} for the crib), all its own")
    rule = obs.discard_rule
    if not obeys(rule, to_crib):
        return (f"threw {cards_str(to_crib)}: the cards for the crib must include {cards_str(rule[0]) or 'nothing'} "
                f"and come from {cards_str(rule[1])}")
    return None


def splits(obs: Observation) -> list[tuple[list[int], list[int], list[int]]]:
    """(keep, to partner, to crib) for every legal split of the 10 cards (3,150 without a rule)."""
    hand, rule = obs.hand, obs.discard_rule
    out = []
    for keep in combinations(hand, len(hand) - obs.passes - obs.discards):
        rest = [c for c in hand if c not in keep]
        for passed in combinations(rest, obs.passes):
            thrown = [c for c in rest if c not in passed]
            if obeys(rule, thrown):
                out.append((list(keep), list(passed), thrown))
    return out


def best_split(obs: Observation, value: Callable[[Any, Any, Any], float]) -> tuple[list[int], list[int]]:
    """(to_partner, to_crib) maximising ``value(keep, to_partner, to_crib)`` over every legal
    split, the first best kept."""
    best, choice = None, None
    for keep, passed, thrown in splits(obs):
        v = value(keep, passed, thrown)
        if best is None or v > best:
            best, choice = v, (passed, thrown)
    assert choice is not None
    return choice


def pass_worth_most(strategy: Any, obs: Observation) -> tuple[list[int], list[int]]:
    """The default answer: the split whose two hands (both the side's) show most without the
    starter (least with a reversed objective)."""
    obj = obs.rules.objective
    show = obs.rules.scorer.show
    return best_split(obs, lambda keep, passed, thrown: obj * (show(keep, None) + show(passed, None)))


def canadian_deal(g: GameState) -> None:
    n, dealer = g.n, g.dealer
    cards = g.deck(2 * DEALT + 1)
    left = (dealer + 1) % n
    g.hands[left], g.hands[dealer] = cards[:DEALT], cards[DEALT:2 * DEALT]  # the left is dealt first
    g.stock = cards[2 * DEALT:]
    if g.events is not None:
        for s in (dealer, left):
            g.log(s, "deal", cards=g.hands[s])


def pass_cards(g: GameState) -> Generator[int, Any, None]:
    ask = g.answers["pass_cards"] if g.answers is not None else None  # answered in place by the tournament
    n, dealer = g.n, g.dealer
    r = g.rules
    rule_of = g.hooks.discard_rule
    scores = tuple(g.scores)
    dealt = (dealer, (dealer + 1) % n)
    kept: dict[int, list[int]] = {}
    for seat in dealt:
        hand = g.hands[seat]
        obs = g.obs[seat]
        obs.hand, obs.discards, obs.passes = tuple(hand), THROW, PASS
        obs.dealer, obs.crib_owner, obs.scores = dealer, g.crib_owner, scores
        obs.starter, obs.count, obs.pile, obs.played, obs.legal, obs.gos = None, 0, (), (), (), ()
        obs.discarded = ()  # (nothing of the last deal)
        obs.discard_rule = rule_of(r, hand, THROW) if rule_of is not None else None
        g.asked += 1
        choice = ask[seat](obs) if ask is not None else (yield seat)
        msg = pass_error(obs, choice)
        if msg:
            raise IllegalMove(f"seat {seat} {msg}", seat)
        to_partner, to_crib = (list(x) for x in choice)
        kept[seat] = without(hand, to_partner + to_crib)  # type: ignore[assignment]
        kept[(seat + 2) % n] = to_partner
        g.crib.extend(to_crib)
        obs.discarded = tuple(to_crib)
        g.log(seat, "pass", "to partner", cards=to_partner)
        g.log(seat, "discard", cards=to_crib)
    for s in range(n):
        g.hands[s] = kept[s]
        g.kept[s] = tuple(kept[s])
        if s not in dealt:
            g.obs[s].discarded = ()
            g.log(s, "deal", "from partner", cards=kept[s])


def _read_passes(words: list[str], obs: Any) -> tuple[list[int], list[int]]:
    """Passes typed by a person: the partner's cards, ``/``, the crib's."""
    text = " ".join(words)
    if "/" not in text:
        raise ValueError("give the partner's cards, then / and the crib's")
    left, right = text.split("/", 1)
    try:
        return parse_cards(left.split()), parse_cards(right.split())
    except CribsimError as e:
        raise ValueError(str(e).removeprefix("cribsim: ")) from None


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("canadian", 1, ("variant:canadian",), "V-CANADIAN: two seats dealt 10, each passes 4 to the partner"),
)


class Canadian(Variant):
    name = "canadian"
    rule = "V-CANADIAN"
    players = (4,)
    summary = "Canadian doubles: two players dealt 10, each passes 4 to the partner"
    conflicts = ("auction", "jokers")
    phases = (Phase("deal", canadian_deal), Phase("discard", pass_cards, "pass_cards"))
    private = ("pass",)
    decisions = (Decision("pass_cards", "(4 cards for the partner, 2 for the crib) of the 10 dealt",
                          legal=lambda obs: [(p, t) for _, p, t in splits(obs)], check=pass_error,
                          default=pass_worth_most,
                          show=lambda a: f"{cards_str(a[0])} / {cards_str(a[1])}", read=_read_passes,
                          prompt=lambda obs: f"pass {obs.passes} to your partner, then {obs.discards} to the crib "
                                             "(partner's / crib's)"),)
    observation = {"passes": 0}
    # the native lane plays it with random, greedy and ev passing (_lane.c ``canadian_passes``)
    native = staticmethod(lambda rules: {"canadian": 1})

    @staticmethod
    def check(rules: Any, source: str) -> None:
        partners = rules.players == 4 and sorted(sorted(s) for s in rules.sides) == [[0, 2], [1, 3]]
        if not partners:
            raise ConfigError(source, "variants", "Canadian doubles needs four players in partnerships "
                                                  "(players: 4, sides: [[0, 2], [1, 3]])")
        if rules.hand_size != DEALT - PASS - THROW or rules.crib_size != 2 * THROW or rules.crib_from_deck:
            raise ConfigError(source, "variants", "Canadian doubles keeps hands of 4 and a crib of 4 "
                                                  "(deal: 5, discard: 1, no crib_from_deck)")

    @classmethod
    def narrate(cls, e: Event, names: list[str]) -> str | None:
        if e.source == "deal" and e.reason == "from partner":
            return f"  {names[e.seat]} receives {cards_str(e.cards)} from their partner"
        if e.source == "pass":
            return f"  {names[e.seat]} passes 4 cards face down to their partner"
        return None


VARIANT = Canadian
