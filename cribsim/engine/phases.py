"""The deal as phases: deal -> discard -> starter -> play -> show.

Each phase is a function ``phase(game, deal)``.  The standard order is ``STANDARD_PHASES``; a
flow-changing variant (auction, inspection, Canadian passes, ...) supplies its own phase list by
inserting or replacing entries, so the engine loop itself never changes."""

from ..cards import JACK, RANK, VALUE, card_str, cards_str
from ..errors import IllegalMove
from ..rng import DECK, addressed_draw
from ..scoring import peg_breakdown, peg_points, show_breakdown, show_points
from .events import CRIB, HAND, HEELS, PEG


class Deal:
    """What one deal holds: hands by seat, the crib, the starter, the stock."""

    __slots__ = ("dealer", "hands", "kept", "crib", "crib_owner", "starter", "stock", "notes")

    def __init__(self, dealer, n):
        self.dealer = dealer
        self.crib_owner = dealer  # R-DEAL-3
        self.hands = [None] * n
        self.kept = [None] * n
        self.crib = []
        self.starter = None
        self.stock = []
        self.notes = {}  # per-deal state of variant plug-ins


def deal_cards(g, d):
    """R-DEAL-2: hands dealt from a deck addressed by (seed, match, game, deal)."""
    r = g.rules
    n, dealer = g.n, d.dealer
    needed = (n - 1) * r.deal + r.dealer_deal + r.crib_from_deck + 1
    cards = addressed_draw(r.deck_size, needed, g.seed, *g.address, g.deal_no, DECK)
    pos = 0
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        k = r.dealer_deal if seat == dealer else r.deal
        d.hands[seat] = cards[pos:pos + k]
        pos += k
    d.crib = cards[pos:pos + r.crib_from_deck]
    d.stock = cards[pos + r.crib_from_deck:]
    if g.events is not None:
        for seat in range(n):
            g.log(seat, "deal", cards=d.hands[seat])
        if d.crib:
            g.log(dealer, "deal", "crib", cards=d.crib)


def discard(g, d):
    """R-DEAL-2/3: each seat lays away its discards face down, before the starter is seen."""
    r = g.rules
    scores = tuple(g.scores)
    for seat in range(g.n):
        k = r.dealer_discard if seat == d.dealer else r.discard
        hand = d.hands[seat]
        if k:
            obs = g.obs[seat]
            obs.hand = tuple(hand)
            obs.discards = k
            obs.dealer, obs.crib_owner, obs.scores = d.dealer, d.crib_owner, scores
            obs.starter, obs.count, obs.pile, obs.played, obs.legal = None, 0, (), (), ()
            obs.discard_rule = rule = r.discard_rule(hand, k)
            choice = g.strategies[seat].discard(obs)
            kept = list(hand)
            try:
                for c in choice:
                    kept.remove(c)  # fails on a card not held, or named twice
            except (ValueError, TypeError):
                kept = None
            if kept is None or len(choice) != k:
                raise IllegalMove(f"seat {seat} discarded {choice!r} from {cards_str(hand)}, "
                                  f"expected {k} of its cards", seat)
            if rule is not None and not (set(rule[0]) <= set(choice) <= set(rule[1])):
                raise IllegalMove(f"seat {seat} discarded {cards_str(choice)} from {cards_str(hand)}: "
                                  f"the discards must include {cards_str(rule[0]) or 'nothing'} and come "
                                  f"from {cards_str(rule[1])} (V-TOSSFIVES)", seat)
            hand = d.hands[seat] = kept
            d.crib.extend(choice)
            g.log(seat, "discard", cards=choice)
        d.kept[seat] = tuple(hand)


def cut_starter(g, d):
    """R-START-1/2: the starter; a jack gives the dealer 2 for his heels."""
    d.starter = d.stock.pop()
    g.log(d.dealer, "starter", cards=(d.starter,))
    if RANK[d.starter] == JACK:
        g.award(d.dealer, 2, HEELS, "his heels", (d.starter,))


def play(g, d, once=False, wild=False):
    """R-PEG-1..5: the play, with go, 31 and last card. With ``once`` (V-FIVECARD) the play
    stops at the first reset: after a 31 or a go no more cards are laid. With ``wild``
    (V-JOKERS) a joker is laid as (joker, name): it counts and pegs as the card named."""
    n = g.n
    hands = [list(d.kept[s]) for s in range(n)]
    left = sum(len(h) for h in hands)
    plays, observations = g.play_fns, g.obs
    logging = g.events is not None
    count, pile, ranks, played, gos = 0, (), [], (), ()
    said_go = 0
    last = -1
    scores = tuple(g.scores)
    for obs in observations:
        obs.dealer, obs.crib_owner, obs.starter = d.dealer, d.crib_owner, d.starter
    turn = (d.dealer + 1) % n  # R-PEG-1
    while left:
        seat = turn
        room = 31 - count
        hand = hands[seat]
        if hand and room >= 10:  # the common case: the seat whose turn it is can play anything
            legal = hand
        else:
            legal = None
            for _ in range(n):  # R-PEG-2: the next seat, clockwise, holding a card that fits
                hand = hands[seat]
                if hand:
                    legal = [c for c in hand if VALUE[c] <= room]
                    if legal:
                        break
                    if not said_go >> seat & 1:  # public: this seat holds nothing <= 31 - count
                        said_go |= 1 << seat
                        gos += ((seat, count),)
                        if logging:
                            g.log(seat, "go", count=count)
                seat = seat + 1 if seat + 1 < n else 0
            if not legal:  # R-PEG-3: nobody can play: one for the go, reset, left of last leads
                g.award(last, 1, PEG, "go", ())
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
        c = plays[seat](obs)
        shown = c
        if wild:
            c, shown = _named(c, legal, count, seat)
        elif c not in legal:
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
            else:  # V-JOKERS: the joker and the card it is named
                g.log(seat, "lay", f"joker named {card_str(shown)}", cards=(c, shown), count=count)
            items = peg_breakdown(list(pile))
            if items:
                g.award_items(seat, items, PEG)
                scores = tuple(g.scores)
        else:
            pts = peg_points(ranks, count)
            if pts:
                g.award(seat, pts, PEG)
                scores = tuple(g.scores)
        if count == 31:  # 2 for the 31 already scored, never also the go (R-PEG-3)
            count, pile, ranks, said_go = 0, (), [], 0
            if logging:
                g.log(seat, "reset")
            if once:
                return
        turn = seat + 1 if seat + 1 < n else 0
    if count:  # R-PEG-4: last card (not after a 31)
        g.award(last, 1, PEG, "last card", ())


def _named(move, legal, count, seat):
    """V-JOKERS: (card, the card it counts as) for a play answer; a joker needs a name that
    is a standard card fitting under 31."""
    if isinstance(move, tuple) and len(move) == 2 and move[0] in legal and move[0] >= 52:
        c, name = move
        if isinstance(name, int) and 0 <= name < 52 and count + VALUE[name] <= 31:
            return c, name
    elif move in legal and move < 52:
        return move, move
    raise IllegalMove(f"seat {seat} played {move!r}: expected a legal card, or (joker, a card 0..51 it names "
                      f"that fits under 31); legal were {cards_str(legal)} at count {count}", seat)


def show(g, d, after=()):
    """R-SHOW-1: left of the dealer first, the dealer's hand last, then the crib. Each function
    in ``after`` is called as ``f(g, d, seat, points, source)`` once each hand or crib is
    counted (the V-NINETEEN and V-BACKTEN penalties)."""
    n, dealer, starter, kept = g.n, d.dealer, d.starter, d.kept
    crib_rule = g.rules.crib_flush_needs_starter
    if g.events is not None:
        for i in range(1, n + 1):
            seat = (dealer + i) % n
            pts = _show_logged(g, seat, kept[seat], starter, False, HAND)
            for f in after:
                f(g, d, seat, pts, HAND)
        pts = _show_logged(g, d.crib_owner, d.crib, starter, crib_rule, CRIB)
        for f in after:
            f(g, d, d.crib_owner, pts, CRIB)
        return
    award = g.award
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        pts = show_points(kept[seat], starter)
        if pts:
            award(seat, pts, HAND)
        for f in after:
            f(g, d, seat, pts, HAND)
    pts = show_points(d.crib, starter, crib_rule)
    if pts:
        award(d.crib_owner, pts, CRIB)
    for f in after:
        f(g, d, d.crib_owner, pts, CRIB)


def _show_logged(g, seat, cards, starter, crib, source):
    g.log(seat, "show", "crib" if source == CRIB else "hand", cards=cards)
    items = show_breakdown(cards, starter, crib)
    if items:
        g.award_items(seat, items, source)
    return sum(i.points for i in items)


STANDARD_PHASES = (deal_cards, discard, cut_starter, play, show)
