"""V-JOKERS: ``jokers`` wild cards (ids 52, 53, ...; 2 by default, a 54-card deck).

In the play a joker is named (a rank and suit, possibly a card already played) when it is laid:
it counts and pegs as the card named, so five of a kind pegs 20 and six 30. A strategy answers
``play`` with ``(joker, named card)``; a bare joker is named for it, to the most points now
(the fewest in lowball). At the show each player names every joker in their hand or crib, and
the starter if it is a joker, to their own best advantage (their worst in lowball),
independently of the other players; with ``starter_joker_named_by: non_dealer`` the non-dealer
names a joker starter once, for everyone. A named joker counts as that card in every rule, even
where it duplicates a real card (two jacks of the starter's suit: nobs twice). A joker turned as
the starter gives the dealer his heels: 2, or the ``heels`` value of a ``scoring:`` block
(S-DATA-5). Names range over the 52 standard cards."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import TYPE_CHECKING, Any

from cribsim.errors import IllegalMove
from cribsim.params import Param

from ..cards import NUM_STANDARD, RANK, VALUE, WILD_BASE, card, card_str, cards_str
from ..engine.events import CRIB
from ..engine.variant import Variant
from ..scoring import STANDARD_SCORER, Scorer

if TYPE_CHECKING:
    from ..engine.events import Event
    from ..engine.state import GameState
    from ..observation import Observation


def best_show(hand: Sequence[int], starter: int | None, crib: int = 0, objective: int = 1,
              starter_name: int | None = None,
              scorer: Scorer = STANDARD_SCORER) -> tuple[int, tuple[int, ...], int | None]:
    """(points, named hand, named starter): the show of ``hand`` with every joker named to the
    player's best advantage (``objective`` -1: worst). ``starter_name`` fixes a joker starter's
    name (named by somebody else); otherwise a joker starter is named too."""
    jokers = [i for i, c in enumerate(hand) if c >= WILD_BASE]
    name_starter = starter is not None and starter >= WILD_BASE and starter_name is None
    if starter is not None and starter >= WILD_BASE and starter_name is not None:
        starter = starter_name
    show_points = scorer.show
    if not jokers and not name_starter:
        return show_points(hand, starter, crib), tuple(hand), starter
    best: tuple[int, tuple[int, ...], int | None] | None = None
    slots = len(jokers) + name_starter
    base = list(hand)
    for names in product(range(NUM_STANDARD), repeat=slots):
        for i, n in zip(jokers, names):
            base[i] = n
        st = names[-1] if name_starter else starter
        pts = show_points(base, st, crib)
        if best is None or pts * objective > best[0] * objective:
            best = (pts, tuple(base), st)
    assert best is not None
    return best


def best_show_items(hand: Sequence[int], starter: int | None, crib: int = 0, objective: int = 1,
                    starter_name: int | None = None,
                    scorer: Scorer = STANDARD_SCORER) -> tuple[list[Any], tuple[int, ...], int | None]:
    """The breakdown of ``best_show`` (for the log), with the names chosen."""
    pts, named, st = best_show(hand, starter, crib, objective, starter_name, scorer)
    return scorer.show_items(list(named), st, crib), named, st


def show_value(cards: Sequence[int], starter: int | None = None, crib: int = 0, objective: int = 1,
               scorer: Scorer = STANDARD_SCORER) -> int:
    """The show's points, naming any joker to the holder's advantage."""
    if any(c >= WILD_BASE for c in cards) or (starter is not None and starter >= WILD_BASE):
        return best_show(cards, starter, crib, objective, None, scorer)[0]
    points: int = scorer.show(cards, starter, crib)
    return points


def show_value_fn(rules: Any) -> Any:
    """The rules' show (``rules.scorer.show``), naming jokers when the rules have them."""
    scorer = rules.scorer
    if not rules.jokers:
        return scorer.show
    return lambda cards, starter=None, crib=False, objective=1: show_value(cards, starter, crib, objective, scorer)


def play_names(room: int) -> list[int]:
    """The names a joker may take when laid with ``room`` left under the limit: one card per rank that
    fits (the suit never matters in the play; spades are used)."""
    return [card(r, 3) for r in range(13) if VALUE[card(r, 3)] <= room]


def play_options(obs: Observation) -> list[tuple[Any, int]]:
    """(answer, card it counts as) for every distinct way to play: a standard card as itself, a
    joker once per rank that fits, as (joker, named card)."""
    out: list[tuple[Any, int]] = []
    joker_done = False
    for c in obs.legal:
        if c < WILD_BASE:
            out.append((c, c))
        elif not joker_done:
            joker_done = True
            out += [((c, name), name) for name in play_names(obs.rules.scoring.count_limit - obs.count)]
    return out


def name_card(move: Any, obs: Observation) -> tuple[int, int]:
    """(card, the card it counts as) for a play answer: a standard card as itself; a joker as
    the card its player names (a standard card that fits under 31), or, answered bare, the name
    that pegs most now (fewest in lowball)."""
    legal, count = obs.legal, obs.count
    scorer = obs.rules.scorer
    limit = scorer.limit
    if isinstance(move, tuple) and len(move) == 2 and move[0] in legal and move[0] >= WILD_BASE:
        c, name = move
        if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < NUM_STANDARD \
                and count + VALUE[name] <= limit:
            return c, name
    elif isinstance(move, int) and not isinstance(move, bool) and move in legal:
        if move < WILD_BASE:
            return move, move
        ranks = [RANK[c] for c in obs.pile]
        obj = obs.rules.objective
        peg = scorer.peg
        best = max(play_names(limit - count), key=lambda n: obj * peg(ranks + [RANK[n]], count + VALUE[n]))
        return move, best
    raise IllegalMove(f"seat {obs.seat} played {move!r}: expected a legal card, or (joker, a card 0..51 it names "
                      f"that fits under {limit}); legal were {cards_str(legal)} at count {count}", obs.seat)


def count_hand(g: GameState, seat: int, cards: Sequence[int], crib: int, source: int) -> int:
    """The show with jokers named (R-SHOW-3..7, V-JOKERS); returns the points."""
    starter = g.starter
    obj = g.rules.objective
    scorer = g.rules.scorer
    fixed = g.notes.get("starter_name")
    if "starter_name" not in g.notes:
        fixed = None
        if starter is not None and starter >= WILD_BASE and g.rules.starter_joker_named_by == "non_dealer":
            pone = (g.dealer + 1) % g.n
            fixed = best_show(g.kept[pone], starter, False, obj, None, scorer)[2]
            g.log(pone, "name", f"the starter joker is {fixed}", cards=(fixed,))  # type: ignore[arg-type]
        g.notes["starter_name"] = fixed
    if g.events is not None:
        g.log(seat, "show", "crib" if source == CRIB else "hand", cards=cards)
        items, named, st = best_show_items(cards, starter, crib, obj, fixed, scorer)
        if tuple(named) != tuple(cards) or st != starter:
            g.log(seat, "name", "jokers named", cards=tuple(named) + (st,))  # type: ignore[operator]
        if items:
            g.award_items(seat, items, source)
        return sum(i.points for i in items)
    pts = best_show(cards, starter, crib, obj, fixed, scorer)[0]
    if pts:
        g.award(seat, pts, source)
    return pts


# this variant's fields of the native lane's rules struct, (name, width, keys carried, what it
# holds): native/layout.py reads this literal without importing the module (the build needs it)
LANE_FIELDS: tuple[tuple[str, int, tuple[str, ...], str], ...] = (
    ("jokers", 1, ("variant:jokers", "jokers"), "V-JOKERS: wild cards 52, 53, ... added to the deck"),
    ("joker_pone", 1, ("starter_joker_named_by",),
     "V-JOKERS: the non-dealer names a joker starter once, for everyone"),
)


class Jokers(Variant):
    name = "jokers"
    rule = "V-JOKERS"
    summary = "wild jokers, named when laid and at the show"
    params = (
        Param("jokers", int, 0, "wild cards added to the deck", lo=0, hi=4, on=2, recorded=True),
        Param("starter_joker_named_by", str, "each_player", "who names a joker starter at the show",
              choices=("each_player", "non_dealer")),
    )
    enabled_by = ("jokers",)
    # the native lane plays it: the deck, naming in the play and at the show, random, greedy and
    # ev's joker values (_lane.c ``best_show``, ``play_options``, ``ev_discard_jokers``)
    native = staticmethod(lambda rules: {"jokers": rules.jokers,
                                         "joker_pone": int(rules.starter_joker_named_by == "non_dealer")})
    play_answers = staticmethod(play_options)
    name_card = staticmethod(name_card)
    count_hand = staticmethod(count_hand)
    show_items = staticmethod(best_show_items)

    @staticmethod
    def extra_cards(rules: Any) -> int:
        return int(rules.jokers)

    @staticmethod
    def heels(c: int) -> bool:
        """A joker turned as the starter is his heels too."""
        return c >= WILD_BASE

    @classmethod
    def narrate(cls, e: Event, names: list[str]) -> str | None:
        if e.source == "lay" and len(e.cards) == 2:
            return f"    {names[e.seat]:<7} JK named {card_str(e.cards[1])}  count {e.count}"
        if e.source == "name":
            return f"    {names[e.seat]} names the jokers: {cards_str(e.cards)}"
        return None


VARIANT = Jokers
