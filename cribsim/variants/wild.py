"""V-JOKERS at the starter and the show: a joker starter is his heels (2 to the dealer); at
the show every joker in a hand or crib, and a joker starter, is named to its holder's best
advantage (worst in lowball), each player independently; with
``starter_joker_named_by: non_dealer`` the non-dealer names a joker starter once for all.
The play's naming is a parameter of the play phase (``phases.play(wild=True)``)."""

from ..engine.events import CRIB, HAND, HEELS
from ..engine.phases import cut_starter
from ..jokers import best_show, best_show_items


def cut_starter_wild(g, d):
    """R-START-1/2 with jokers: a joker turned as the starter also gives the dealer 2."""
    cut_starter(g, d)
    if d.starter >= 52:
        g.award(d.dealer, 2, HEELS, "his heels", (d.starter,))


def show_wild(g, d, after=()):
    r = g.rules
    n, dealer, starter, kept = g.n, d.dealer, d.starter, d.kept
    obj = r.objective
    crib_rule = r.crib_flush_needs_starter
    fixed = None
    if starter >= 52 and r.starter_joker_named_by == "non_dealer":
        pone = (dealer + 1) % n
        fixed = best_show(kept[pone], starter, False, obj)[2]
        g.log(pone, "name", f"the starter joker is {fixed}", cards=(fixed,))
    logging = g.events is not None
    for seat, cards, crib, source in [((dealer + i) % n, kept[(dealer + i) % n], False, HAND) for i in range(1, n + 1)] + \
            [(d.crib_owner, d.crib, crib_rule, CRIB)]:
        if logging:
            g.log(seat, "show", "crib" if source == CRIB else "hand", cards=cards)
            items, named, st = best_show_items(cards, starter, crib, obj, fixed)
            if tuple(named) != tuple(cards) or st != starter:
                g.log(seat, "name", "jokers named", cards=tuple(named) + (st,))
            if items:
                g.award_items(seat, items, source)
            pts = sum(i.points for i in items)
        else:
            pts = best_show(cards, starter, crib, obj, fixed)[0]
            if pts:
                g.award(seat, pts, source)
        for f in after:
            f(g, d, seat, pts, source)
