"""The standard deal, phase by phase: deal -> discard -> starter -> play -> show.

Each phase is a function of the :class:`~cribsim.engine.state.GameState`; a phase that asks
for decisions is a generator that fills the seat's observation, yields the seat and receives its
answer. Variants put phases into the other named slots (``cribsim.engine.variant.SLOTS``) or
fill the hooks these phases call (``g.hooks``); the rules live here once, whichever driver runs
them."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from cribsim.errors import IllegalMove

from ..cards import JACK, RANK, VALUE, card_str, cards_str
from .events import CRIB, HAND, HEELS, PEG
from .variant import Decision, Phase

if TYPE_CHECKING:
    from ..observation import Observation
    from .state import GameState

Answers = Generator[int, Any, None]


def deal_cards(g: GameState) -> None:
    """R-DEAL-2: hands dealt clockwise from the dealer's left, then any cards straight to the
    crib; the rest is the stock the starter is cut from."""
    r = g.rules
    n, dealer = g.n, g.dealer
    needed = (n - 1) * r.deal + r.dealer_deal + r.crib_from_deck + 1
    cards = g.deck(needed)
    pos = 0
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        k = r.dealer_deal if seat == dealer else r.deal
        g.hands[seat] = cards[pos:pos + k]
        pos += k
    g.crib = cards[pos:pos + r.crib_from_deck]
    g.stock = cards[pos + r.crib_from_deck:]
    if g.events is not None:
        for seat in range(n):
            g.log(seat, "deal", cards=g.hands[seat])
        if g.crib:
            g.log(dealer, "deal", "crib", cards=g.crib)


def without(hand: Sequence[int], cards: Any) -> list[int] | None:
    """``hand`` less ``cards`` (each held once), or None if a card is not held or not a card."""
    rest = list(hand)
    try:
        for c in cards:
            if type(c) is not int:
                return None
            rest.remove(c)
    except (ValueError, TypeError):
        return None
    return rest


def obeys(rule: tuple[Sequence[int], Sequence[int]] | None, choice: Sequence[int]) -> bool:
    """A variant's discard rule (must, pool): the discards include ``must``, come from ``pool``."""
    return rule is None or set(rule[0]) <= set(choice) <= set(rule[1])


def discard_error(obs: Observation, choice: Any) -> str | None:
    """Why ``choice`` is not a legal discard for ``obs`` (R-DEAL-2, and a variant's discard
    rule), or None."""
    k, hand = obs.discards, obs.hand
    try:
        choice = list(choice)
    except TypeError:
        choice = None
    if choice is None or without(hand, choice) is None or len(choice) != k:
        return f"discarded {choice!r} from {cards_str(hand)}, expected {k} of its cards"
    rule = obs.discard_rule
    if not obeys(rule, choice):
        return (f"discarded {cards_str(choice)} from {cards_str(hand)}: the discards must include "
                f"{cards_str(rule[0]) or 'nothing'} and come from {cards_str(rule[1])}")
    return None


def discard_choices(obs: Observation) -> list[tuple[int, ...]]:
    """Every legal discard (the thrown cards), in ``combinations(hand)`` order."""
    if obs.discard_rule is None:  # any of the hand's cards may go
        return list(combinations(obs.hand, obs.discards))
    return [c for c in combinations(obs.hand, obs.discards) if discard_error(obs, c) is None]


def discard(g: GameState) -> Answers:
    """R-DEAL-2/3: each seat lays away its discards face down, before the starter is seen."""
    r = g.rules
    scores = tuple(g.scores)
    rule_of = g.hooks.discard_rule
    hands, crib, kept, observations = g.hands, g.crib, g.kept, g.obs
    ask = g.answers["discard"] if g.answers is not None else None
    for seat in range(g.n):
        k = r.dealer_discard if seat == g.dealer else r.discard
        hand = hands[seat]
        obs = observations[seat]
        if k:
            obs.hand = tuple(hand)
            obs.discards = k
            obs.dealer, obs.crib_owner, obs.scores = g.dealer, g.crib_owner, scores
            obs.starter, obs.count, obs.pile, obs.played, obs.legal, obs.gos = None, 0, (), (), (), ()
            obs.discarded = ()  # (the last deal's, until this discard is made)
            rule = obs.discard_rule = rule_of(r, hand, k) if rule_of is not None else None
            g.asked += 1
            choice = ask[seat](obs) if ask is not None else (yield seat)
            rest = without(hand, choice)
            if rest is None or len(rest) != len(hand) - k or not obeys(rule, choice):
                raise IllegalMove(f"seat {seat} {discard_error(obs, choice)}", seat)
            hand = hands[seat] = rest
            crib.extend(choice)
            obs.discarded = tuple(choice)
            if g.events is not None:
                g.log(seat, "discard", cards=choice)
        else:
            obs.discarded = ()
        kept[seat] = tuple(hand)


def cut_starter(g: GameState) -> None:
    """R-START-1/2: the starter; a jack (or a card a variant names) gives the dealer his heels
    (2, S-DATA-5)."""
    s = g.starter = g.stock.pop()
    g.log(g.dealer, "starter", cards=(s,))
    heels = g.hooks.heels
    points = g.rules.scoring.heels
    if (RANK[s] == JACK or (heels is not None and heels(s))) and points:
        g.award(g.dealer, points, HEELS, "his heels", (s,))


class Resume:
    """Where a play starts when it does not start at its beginning (a search rollout): the
    cards held by every seat, the seat to look at first, the count, the pile since the last
    reset, the cards laid this deal, the gos said and the seat that laid the last card."""

    __slots__ = ("hands", "turn", "count", "pile", "played", "gos", "last")

    def __init__(self, hands: list[list[int]], turn: int, count: int, pile: tuple[int, ...],
                 played: tuple[tuple[int, int], ...], gos: tuple[tuple[int, int], ...], last: int) -> None:
        self.hands, self.turn, self.count, self.pile = hands, turn, count, pile
        self.played, self.gos, self.last = played, gos, last


def play(g: GameState) -> Answers:
    """R-PEG-1..5: the play, with go, 31 and last card (the limit and the points are the
    scoring's, S-DATA-6). A variant may stop the play at its first reset (``stops_at_reset``) or
    let a card be laid as another (``name_card``): it then counts and pegs as the card named."""
    n = g.n
    scorer = g.rules.scorer
    peg_points, peg_breakdown = scorer.peg, scorer.peg_items
    limit, go, last_card = scorer.limit, scorer.go, scorer.last_card
    sure = limit - 10  # at this count or below any card fits
    alone = 0 if limit <= 10 else 1
    hooks = g.hooks
    once, name_card = hooks.stops_at_reset, hooks.name_card
    start = g.resume
    pile: tuple[int, ...]
    played: tuple[tuple[int, int], ...]
    gos: tuple[tuple[int, int], ...]
    legal: list[int] | None
    if start is None:
        hands = [list(k) for k in g.kept]
        count, pile, played, gos, last = 0, (), (), (), -1
        turn = g.dealer + 1 if g.dealer + 1 < n else 0  # R-PEG-1
        ranks: list[int] = []  # the ranks laid since the last reset
    else:
        hands, turn, count, pile, played, gos, last = (start.hands, start.turn, start.count, start.pile,
                                                       start.played, start.gos, start.last)
        ranks = [RANK[laid] for laid in pile]
    left = sum(map(len, hands))
    observations = g.obs
    logging = g.events is not None
    award = g.award
    said_go = 0
    scores = tuple(g.scores)
    ask = g.answers["play"] if g.answers is not None else None
    for obs in observations:
        obs.dealer, obs.crib_owner, obs.starter = g.dealer, g.crib_owner, g.starter
    while left:
        seat = turn
        hand = hands[seat]
        if hand and count <= sure:  # the common case: the seat whose turn it is can play anything
            legal = hand
        else:
            room = limit - count
            legal = None
            for _ in range(n):  # R-PEG-2: the next seat, clockwise, holding a card that fits
                hand = hands[seat]
                if hand:
                    legal = [c for c in hand if VALUE[c] <= room]
                    if legal:
                        break
                    if not said_go >> seat & 1:  # public: this seat holds nothing <= limit - count
                        said_go |= 1 << seat
                        gos += ((seat, count),)
                        if logging:
                            g.log(seat, "go", count=count)
                seat = seat + 1 if seat + 1 < n else 0
            if not legal:  # R-PEG-3: nobody can play: one for the go, reset, left of last leads
                if go:
                    award(last, go, PEG, "go")
                scores = tuple(g.scores)
                count, pile, ranks, said_go = 0, (), [], 0
                if logging:
                    g.log(last, "reset")
                if once:
                    return
                turn = last + 1 if last + 1 < n else 0
                continue
        obs = observations[seat]
        obs.hand = obs.legal = tuple(hand)
        if legal is not hand:
            obs.legal = tuple(legal)
        obs.count, obs.pile, obs.played, obs.scores, obs.gos = count, pile, played, scores, gos
        g.asked += 1
        c = ask[seat](obs) if ask is not None else (yield seat)
        if name_card is not None:
            c, shown = name_card(c, obs)
        elif type(c) is int and c in legal:  # (5.0 == 5, but is not a card)
            shown = c
        else:
            raise IllegalMove(f"seat {seat} played {c!r}, legal were {cards_str(legal)} at count {count}", seat)
        hand.remove(c)
        left -= 1
        count += VALUE[shown]
        pile += (shown,)
        ranks.append(RANK[shown])
        played += ((seat, c),)
        last = seat
        if logging:
            if shown == c:
                g.log(seat, "lay", cards=(c,), count=count)
            else:  # a card laid as another: the card and the card it is named
                g.log(seat, "lay", f"named {card_str(shown)}", cards=(c, shown), count=count)
            items = peg_breakdown(pile)
            if items:
                g.award_items(seat, items, PEG)
                scores = tuple(g.scores)
        elif len(ranks) > alone:  # enough cards to score (a single card only hits a limit of 10)
            pts = peg_points(ranks, count)
            if pts:
                award(seat, pts, PEG)
                scores = tuple(g.scores)
        if count == limit:  # the hit already scored, never also the go (R-PEG-3)
            count, pile, ranks, said_go = 0, (), [], 0
            if logging:
                g.log(seat, "reset")
            if once:
                return
        turn = seat + 1 if seat + 1 < n else 0
    if count and last_card:  # R-PEG-4: last card (not after a 31)
        award(last, last_card, PEG, "last card")


def play_error(obs: Observation, answer: Any) -> str | None:
    """Why ``answer`` cannot be laid now, or None (for drivers that check before they send)."""
    name_card = obs.rules.program.hooks.name_card
    if name_card is not None:
        try:
            name_card(answer, obs)
        except IllegalMove as e:
            return str(e)
        return None
    if type(answer) is not int or answer not in obs.legal:
        return f"played {answer!r}, legal were {cards_str(obs.legal)} at count {obs.count}"
    return None


def play_choices(obs: Observation) -> list[Any]:
    """Every distinct legal play answer (a variant may expand a card into several)."""
    expand = obs.rules.program.hooks.play_answers
    return [a for a, _ in expand(obs)] if expand is not None else list(obs.legal)


def count_hand(g: GameState, seat: int, cards: Sequence[int], crib: int, source: int) -> int:
    """R-SHOW-3..7: count one hand (or the crib, ``crib`` being how it is shown: the rules'
    ``crib_show``) for ``seat`` and award it; returns its points."""
    starter = g.starter
    scorer = g.rules.scorer
    if g.events is not None:
        g.log(seat, "show", "crib" if source == CRIB else "hand", cards=cards)
        items = scorer.show_items(cards, starter, crib)
        if items:
            g.award_items(seat, items, source)
        return sum(i.points for i in items)
    pts = scorer.show(cards, starter, crib)
    if pts:
        g.award(seat, pts, source)
    return pts


def show(g: GameState) -> None:
    """R-SHOW-1: left of the dealer first, the dealer's hand last, then the crib. Variants may
    count a hand their own way (``count_hand``) and act after each count (``after_count``:
    penalties for hands that score nothing)."""
    n, dealer, kept, starter = g.n, g.dealer, g.kept, g.starter
    hooks = g.hooks
    after = hooks.after_count
    owner = g.crib_owner
    crib_rule = g.rules.crib_show
    if hooks.count_hand is None and g.events is None and not after:  # the bulk path, same rules
        award = g.award
        show_points = g.rules.scorer.show
        for i in range(1, n + 1):
            seat = dealer + i if dealer + i < n else dealer + i - n
            pts = show_points(kept[seat], starter)
            if pts:
                award(seat, pts, HAND)
        pts = show_points(g.crib, starter, crib_rule)
        if pts:
            award(owner, pts, CRIB)
    else:
        for i in range(1, n + 1):
            seat = (dealer + i) % n
            counted(g, seat, kept[seat], False, HAND)
        counted(g, owner, g.crib, crib_rule, CRIB)
    g.shown = (tuple(kept), tuple(g.crib), starter)


def counted(g: GameState, seat: int, cards: Sequence[int], crib: Any, source: int) -> int:
    """One count of the show (a hand, or the crib shown as ``crib``: the rules' ``crib_show``)
    for ``seat``, by the rules' count (a variant's ``count_hand``, else :func:`count_hand`),
    then every ``after_count`` hook; returns the points counted (before the hooks). The show
    counts each hand and the crib so; a strategy's scratch count
    (:class:`cribsim.games.cribbage.engine.rollout.ShowCount`) calls it the same way."""
    hooks = g.hooks
    pts: int = (hooks.count_hand or count_hand)(g, seat, cards, crib, source)
    for f in hooks.after_count:
        f(g, seat, pts, source)
    return pts


STANDARD = (
    Phase("deal", deal_cards),
    Phase("discard", discard, "discard"),
    Phase("starter", cut_starter),
    Phase("play", play, "play"),
    Phase("show", show),
)

DISCARD = Decision("discard", "lay away obs.discards of obs.hand to the crib: a list of cards",
                   legal=discard_choices, check=discard_error)
PLAY = Decision("play", "lay one of obs.legal (a variant may let a card be named as another)",
                legal=play_choices, check=play_error)
