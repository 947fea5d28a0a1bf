"""V-JOKERS: wild cards (ids 52, 53, ...) named by their holder.

In the play a joker is named (a rank and suit, possibly a card already played) when it is laid,
so five of a kind pegs 20 and six 30. At the show each player names every joker in their hand
or crib, and the starter if it is a joker, to their own best advantage (their worst in lowball),
independently of the other players; with ``starter_joker_named_by: non_dealer`` the non-dealer
names a joker starter once, for everyone. Names range over the 52 standard cards."""

from itertools import product

from .cards import JOKER_BASE, NUM_STANDARD, VALUE, card
from .scoring import show_breakdown, show_points


def best_show(hand, starter, crib=False, objective=1, starter_name=None):
    """(points, named hand, named starter): the show of ``hand`` with every joker named to the
    player's best advantage (``objective`` -1: worst). ``starter_name`` fixes a joker starter's
    name (named by somebody else); otherwise a joker starter is named too."""
    jokers = [i for i, c in enumerate(hand) if c >= JOKER_BASE]
    name_starter = starter is not None and starter >= JOKER_BASE and starter_name is None
    if starter is not None and starter >= JOKER_BASE and starter_name is not None:
        starter = starter_name
    if not jokers and not name_starter:
        return show_points(hand, starter, crib), tuple(hand), starter
    best = None
    slots = len(jokers) + name_starter
    base = list(hand)
    for names in product(range(NUM_STANDARD), repeat=slots):
        for i, n in zip(jokers, names):
            base[i] = n
        st = names[-1] if name_starter else starter
        pts = show_points(base, st, crib)
        if best is None or pts * objective > best[0] * objective:
            best = (pts, tuple(base), st)
    return best


def best_show_items(hand, starter, crib=False, objective=1, starter_name=None):
    """The breakdown of ``best_show`` (for the log), with the names chosen."""
    pts, named, st = best_show(hand, starter, crib, objective, starter_name)
    return show_breakdown(list(named), st, crib), named, st


def show_value(cards, starter=None, crib=False, objective=1):
    """``show_points`` that names any joker to the holder's advantage."""
    if any(c >= JOKER_BASE for c in cards) or (starter is not None and starter >= JOKER_BASE):
        return best_show(cards, starter, crib, objective)[0]
    return show_points(cards, starter, crib)


def show_value_fn(rules):
    """``show_points``, or ``show_value`` when the rules have jokers (V-JOKERS)."""
    return show_value if rules.jokers else show_points


def play_names(room):
    """The names a joker may take when laid with ``room`` left under 31: one card per rank that
    fits (the suit never matters in the play; spades are used)."""
    return [card(r, 3) for r in range(13) if VALUE[card(r, 3)] <= room]
