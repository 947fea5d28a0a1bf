"""cribsim: a tournament simulator and rules-variant testbed for cribbage."""

__version__ = "0.1.0"
