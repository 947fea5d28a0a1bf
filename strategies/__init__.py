"""Built-in strategies, one small module each (see cribsim.strategy for the protocol)."""
