"""The native lane: whole games in C for the rules that are data (see :mod:`.lane`)."""
