"""cribsim: a tournament simulator and rules-variant testbed for games scored on a cribbage
board (cribbage and its variants, Fives and Threes)."""

__version__ = "0.1.0"
