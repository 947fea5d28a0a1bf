"""What the built-in cribbage strategies take into account (:class:`cribsim.strategy.Models`):
each values points by the rules' own scoring (a ``scoring:`` block) and answers the built-in
variants' decisions and constraints by their own rules; none values what a hook changes after a
hand is counted (back ten's and nineteen's penalties), nor a designer's variant it has never
seen. A run warns where a rule set changes something a lineup's player does not model."""

from cribsim.strategy import Models

KNOWN = frozenset({"scoring", "auction", "canadian", "inspect", "team3", "jokers", "lowball", "toss_fives",
                   "five_card", "muggins"})

GREEDY = Models("its discards keep what the hand scores and its play takes the points going, by the rules' "
                "scoring", KNOWN)
HOYLE = Models("its choices follow a club player's rules of thumb on the rules' point values", KNOWN)
EV = Models("its discards value the show and crib, and its play the pegging, by the rules' scoring", KNOWN)
