"""Turn a logged game's events into a narrative, deal by deal (for ``cribsim play``)."""

from .cards import card_str, cards_str
from .scoring import item_words

NAMES = ("Alice", "Bob", "Claire", "David", "Eve")  # the seeds' players


def seat_names(rules):
    return [NAMES[s] if s < len(NAMES) else f"P{s + 1}" for s in range(rules.players)]


def side_names(rules, names, sides=None):
    return [" & ".join(names[s] for s in side) for side in (sides or rules.sides)]


def narrate(rules, result, names=None):
    """Lines of text for one GameResult played with ``log=True``."""
    names = names or seat_names(rules)
    game_sides = getattr(result, "sides", None) or rules.sides  # V-TEAM3: this game's sides
    sides = side_names(rules, names, game_sides)
    side_of = [next(i for i, side in enumerate(game_sides) if s in side) for s in range(rules.players)]
    scores = [0] * len(game_sides)
    out = []
    targets = getattr(result, "targets", None)
    if targets and len(set(targets)) > 1:
        out.append("Targets: " + ", ".join(f"{sides[i]} {t}" for i, t in enumerate(targets)))
    cuts = [e for e in result.events if e.source == "cut"]
    if cuts:
        out.append("Cut for first deal (lowest deals; ties cut again): " +
                   ", ".join(f"{names[e.seat]} {card_str(e.cards[0])}" for e in cuts) +
                   f" -> {names[result.first_dealer]} deals.")

    def standing():
        return ", ".join(f"{sides[i]} {s}" for i, s in enumerate(scores))

    def scored(e):
        scores[side_of[e.seat]] += e.points

    deal = -1
    in_show, fifteens = False, 0
    for e in result.events:
        if e.deal != deal and e.deal >= 0:
            deal = e.deal
            in_show = False
            dealer = (result.first_dealer + deal) % rules.players
            out.append("")
            out.append(f"== Deal {deal + 1}: {names[dealer]} deals. Score: {standing()}")
        src = e.source
        if src == "deal" and e.reason == "crib":
            out.append(f"  The crib gets {cards_str(e.cards)} from the deck")
        elif src == "deal" and e.reason == "from partner":
            out.append(f"  {names[e.seat]} receives {cards_str(e.cards)} from their partner")
        elif src == "deal":
            out.append(f"  {names[e.seat]} is dealt {cards_str(e.cards)}")
        elif src == "pass":
            out.append(f"  {names[e.seat]} passes 4 cards face down to their partner")
        elif src == "discard":
            out.append(f"  {names[e.seat]} lays away {cards_str(e.cards)}")
        elif src == "starter":
            out.append(f"  Starter: {card_str(e.cards[0])}")
            out.append("  The play:")
        elif src == "lay" and len(e.cards) == 2:  # V-JOKERS
            out.append(f"    {names[e.seat]:<7} JK named {card_str(e.cards[1])}  count {e.count}")
        elif src == "lay":
            out.append(f"    {names[e.seat]:<7} {card_str(e.cards[0]):<3} count {e.count}")
        elif src == "go":
            out.append(f"    {names[e.seat]:<7} go")
        elif src == "reset":
            out.append("    -- count goes back to 0 --")
        elif src == "peg":
            scored(e)
            out.append(f"      {names[e.seat]} pegs {e.points} for {e.reason} -> {standing()}")
        elif src == "heels":
            scored(e)
            out.append(f"  {names[e.seat]} pegs 2 for his heels -> {standing()}")
        elif src == "show":
            if not in_show:
                out.append("  The show:")
                in_show = True
            fifteens = 0
            out.append(f"    {names[e.seat]}'s {e.reason}: {cards_str(e.cards)}")
        elif src == "bid":
            if e.reason == "pass":
                out.append(f"  {names[e.seat]} passes")
            elif e.reason.isdigit():
                out.append(f"  {names[e.seat]} bids {e.reason} for the crib")
            else:
                out.append(f"  {names[e.seat]} {e.reason}" if not e.reason.startswith("nobody") else f"  {e.reason}")
        elif src == "name":  # V-JOKERS at the show
            out.append(f"    {names[e.seat]} names the jokers: {cards_str(e.cards)}")
        elif src == "place":  # R-MATCH-5 continued play
            out.append(f"  {sides[e.cards[0]]} reach{'es' if ' & ' not in sides[e.cards[0]] else ''} the target: "
                       f"place {e.reason}; " + ("the game is over" if int(e.reason) == rules.match.places(len(game_sides))
                                                else "the others play on"))
        elif src == "inspect":  # V-TEAM3-2
            out.append(f"  {names[e.seat]} picks up the crib and keeps {cards_str(e.cards)}")
        elif src == "overlooked":
            out.append(f"      {names[e.seat]} overlooks {e.reason} {cards_str(e.cards)}".rstrip())
        elif src in ("hand", "crib"):
            scored(e)
            words = item_words(e.reason, e.points, fifteens)
            if e.reason == "fifteen":
                fifteens += e.points
            out.append(f"      {words:<22} {cards_str(e.cards):<15} -> {standing()}")
        elif e.points:
            scored(e)
            out.append(f"  {names[e.seat]} scores {e.points} ({e.reason}) -> {standing()}")
    out.append("")
    out.append(f"Final score: {standing()}. {sides[result.winner]} win{'s' if len(game_sides[result.winner]) == 1 else ''}"
               f" after {result.deals} deal{'s' if result.deals != 1 else ''}.")
    assert scores == list(result.scores), "narration out of step with the scores"
    return out
