"""Turn a logged Fives and Threes game into a narrative (for ``cribsim play``): each tile laid,
the open ends, their total and the points; knocks; cancelled scores; the domino point."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cribsim.seats import seat_names, side_names

from .tiles import tile_str

if TYPE_CHECKING:
    from .rules import DominoRules


def ends_str(ends: tuple[int, bool, int, bool]) -> str:
    e0, d0, e1, d1 = ends
    return f"{e0}{' (double)' if d0 else ''} | {e1}{' (double)' if d1 else ''}"


def narrate(rules: DominoRules, result: Any, names: list[str] | None = None) -> list[str]:
    names = names or seat_names(rules)
    sides = side_names(rules, names)
    side_of = rules.side_of
    scores = list(result.start_scores or [0] * len(rules.sides))
    out = []
    draws = [e for e in result.events if e.kind == "draw"]
    if draws:
        out.append("Draw for the lead (most pips leads; ties draw again): " +
                   ", ".join(f"{names[e.seat]} {tile_str(e.tile)}" for e in draws) +
                   f" -> {names[result.first_leader]} leads.")
    hand = -1
    laid = 0
    for e in result.events:
        if e.hand < 0:
            continue
        if e.hand != hand:
            hand = e.hand
            laid = 0
            leader = (result.first_leader + hand) % rules.players
            out.append("")
            out.append(f"Hand {hand + 1}: {names[leader]} leads. "
                       f"Score: {', '.join(f'{sides[i]} {s}' for i, s in enumerate(scores))}")
        who = names[e.seat] if e.seat >= 0 else ""
        if e.kind == "deal":
            out.append(f"  {who:<7} holds {' '.join(tile_str(t) for t in e.note)}")
        elif e.kind == "lay":
            where = "leads" if laid == 0 else "lays"
            laid += 1
            out.append(f"  {who:<7} {where} {tile_str(e.tile)}{'' if where == 'leads' else f' on end {e.end}'}"
                       f"   ends {ends_str(e.ends)} = {e.total}")
        elif e.kind == "knock":
            out.append(f"  {who:<7} knocks (no tile fits)")
        elif e.kind == "score":
            scores[side_of[e.seat]] += e.points
            out.append(f"          scores {e.points} ({e.note}) -> {sides[side_of[e.seat]]} "
                       f"{scores[side_of[e.seat]]}")
        elif e.kind == "cancel":
            out.append(f"          {e.note}; the score stays")
        elif e.kind == "out":
            out.append(f"  {who} is out: the hand is over")
        elif e.kind == "block":
            out.append("  Blocked: nobody can play; no domino point (F-END-2)")
    out.append("")
    if result.winner < 0:  # a replayed game that did not finish (a forfeit)
        out.append(f"Play stops here ({result.stopped}). Score: "
                   f"{', '.join(f'{sides[i]} {s}' for i, s in enumerate(scores))}.")
        return out
    out.append(f"{sides[result.winner]} win{'s' if ' & ' not in sides[result.winner] else ''} "
               f"{'-'.join(str(s) for s in result.scores)} after {result.hands} hands.")
    return out

