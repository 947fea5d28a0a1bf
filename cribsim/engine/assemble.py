"""Assemble a deal's phases from the rules: the data variants realised as phase parameters and
small extra phases, and the flow plug-ins named in ``rules.variants``. The game loop only ever
runs ``rules.phases``; standard rules give exactly ``STANDARD_PHASES``."""

from functools import partial

from .events import CRIB, OTHER
from .phases import cut_starter, deal_cards, discard, play, show


def three_for_last(g, d):
    """V-FIVECARD: at the start of each game the first pone pegs ``first_pone_points``."""
    if g.deal_no == 0:
        g.award((d.dealer + 1) % g.n, g.rules.first_pone_points, OTHER, "three for last")


def null_penalty(g, d, seat, points, source):
    """V-NINETEEN: a hand or crib that scores nothing gives each opposing side 1 point, in turn
    order from the counter's left."""
    if points:
        return
    side_of = g.side_of
    mine = side_of[seat]
    done = {mine}
    for i in range(1, g.n):
        s = (seat + i) % g.n
        if side_of[s] not in done:
            done.add(side_of[s])
            g.award(s, 1, OTHER, "nineteen (a hand of nothing)")


def back_ten(g, d, seat, points, source):
    """V-BACKTEN ``each``: a hand or crib that scores nothing sends its owner back 10 (not below
    the floor, 0 unless ``score_floor`` says otherwise). ``both``: only a crib owner whose hand
    and crib both scored nothing."""
    rules = g.rules
    if rules.back_ten == "both":
        if source != CRIB:
            if not points:
                d.notes.setdefault("zero_hand", set()).add(seat)
            return
        if points or seat not in d.notes.get("zero_hand", ()):
            return
    elif points:
        return
    floor = 0 if rules.score_floor is None else rules.score_floor
    side = g.side_of[seat]
    back = max(floor, g.scores[side] - 10) - g.scores[side]
    if back:
        g.award(seat, back, OTHER, "back ten")


def phases_for(rules):
    play_kw = {}
    if rules.play_once:
        play_kw["once"] = True
    if rules.jokers:  # V-JOKERS: a joker is named when laid
        play_kw["wild"] = True
    starter = cut_starter
    if rules.jokers:  # V-JOKERS: a joker starter is his heels too
        from ..variants.wild import cut_starter_wild as starter
    phases = [deal_cards, discard, starter, partial(play, **play_kw) if play_kw else play]
    after = []
    if rules.null_penalty:
        after.append(null_penalty)
    if rules.back_ten:
        after.append(back_ten)
    if rules.jokers:  # V-JOKERS: jokers named at the show
        from ..variants.wild import show_wild

        phases.append(partial(show_wild, after=tuple(after)))
    else:
        phases.append(partial(show, after=tuple(after)) if after else show)
    if rules.first_pone_points:
        phases.insert(0, three_for_last)
    for p in rules.plugins:  # flow plug-ins (cribsim/variants/)
        if hasattr(p, "phases"):
            phases = list(p.phases(rules, phases))
    return tuple(phases)
