"""Turn a logged game's events into a narrative, deal by deal (for ``cribsim play`` and replays).

The core events are narrated here; a variant narrates its own (``Variant.narrate``), and may
word a core event its own way, from its module."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Rules

from typing import Any

from cribsim.seats import seat_names, side_names

from .cards import card_str, cards_str
from .scoring import item_words


def narrate(rules: Rules, result: Any, names: list[str] | None = None) -> list[str]:
    """Lines of text for one GameResult played with ``log=True``."""
    names = names or seat_names(rules)
    game_sides = result.sides
    sides = side_names(rules, names, game_sides)
    side_of = result.side_of
    scores = list(result.start_scores or [0] * len(game_sides))
    out: list[str] = []
    targets = result.targets
    if len(set(targets)) > 1:
        out.append("Targets: " + ", ".join(f"{sides[i]} {t}" for i, t in enumerate(targets)))
    cuts = [e for e in result.events if e.source == "cut"]
    if cuts:
        out.append("Cut for first deal (lowest deals; ties cut again): " +
                   ", ".join(f"{names[e.seat]} {card_str(e.cards[0])}" for e in cuts) +
                   f" -> {names[result.first_dealer]} deals.")
    voices = [v.narrate for v in rules.modules if "narrate" in v.__dict__]
    places = rules.match.places(len(game_sides))

    def standing() -> str:
        return ", ".join(f"{sides[i]} {s}" for i, s in enumerate(scores))

    deal = -1
    in_show, fifteens = False, 0
    for e in result.events:
        if e.deal != deal and e.deal >= 0:
            deal = e.deal
            in_show = False
            dealer = (result.first_dealer + deal) % rules.players
            out.append("")
            out.append(f"== Deal {deal + 1}: {names[dealer]} deals. Score: {standing()}")
        if e.points:
            scores[side_of[e.seat]] += e.points
        line = next((x for x in (v(e, names) for v in voices) if x is not None), None)
        if line is None:
            src = e.source
            if src == "show":
                if not in_show:
                    out.append("  The show:")
                    in_show = True
                fifteens = 0
            line = _core_line(e, names, sides, standing, fifteens, places)
            if src in ("hand", "crib") and e.reason == "fifteen":
                fifteens += e.points
        if line:
            out.append(line)
    out.append("")
    if result.winner < 0:  # a replayed game that did not finish (a forfeit)
        out.append(f"Play stops here ({result.stopped}). Score: {standing()}.")
        return out
    out.append(f"Final score: {standing()}. "
               f"{sides[result.winner]} win{'s' if len(game_sides[result.winner]) == 1 else ''}"
               f" after {result.deals} deal{'s' if result.deals != 1 else ''}.")
    assert scores == list(result.scores), "narration out of step with the scores"
    return out


def _core_line(e: Any, names: list[str], sides: list[str], standing: Any, fifteens: int, places: int) -> str | None:
    src = e.source
    who = names[e.seat] if e.seat >= 0 else ""
    if src == "deal":
        return f"  The crib gets {cards_str(e.cards)} from the deck" if e.reason == "crib" \
            else f"  {who} is dealt {cards_str(e.cards)}"
    if src == "discard":
        return f"  {who} lays away {cards_str(e.cards)}"
    if src == "starter":
        return f"  Starter: {card_str(e.cards[0])}\n  The play:"
    if src == "lay":
        return f"    {who:<7} {card_str(e.cards[0]):<3} count {e.count}"
    if src == "go":
        return f"    {who:<7} go"
    if src == "reset":
        return "    -- count goes back to 0 --"
    if src == "peg":
        return f"      {who} pegs {e.points} for {e.reason} -> {standing()}"
    if src == "heels":
        return f"  {who} pegs {e.points} for his heels -> {standing()}"
    if src == "show":
        return f"    {who}'s {e.reason}: {cards_str(e.cards)}"
    if src == "place":  # R-MATCH-5 continued play
        side = sides[e.cards[0]]
        return (f"  {side} reach{'es' if ' & ' not in side else ''} the target: place {e.reason}; " +
                ("the game is over" if int(e.reason) == places else "the others play on"))
    if src == "overlooked":
        return f"      {who} overlooks {e.reason} {cards_str(e.cards)}".rstrip()
    if src in ("hand", "crib"):
        words = item_words(e.reason, e.points, fifteens, len(e.cards))
        return f"      {words:<22} {cards_str(e.cards):<15} -> {standing()}"
    if e.points:
        return f"  {who} scores {e.points} ({e.reason}) -> {standing()}"
    return None
