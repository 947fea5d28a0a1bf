"""Flow-changing rule variants as small plug-ins, named in a rules file's ``variants:`` list.

A plug-in is a module that may define any of:

- ``check(rules, source)``: raise ``ConfigError`` for a combination that makes no sense;
- ``phases(rules, phases)``: return the deal's phase list with its phases inserted or replaced;
- ``winner(rules, side, scores)``: who wins when ``side`` reaches the target (lowball);
- ``layout(rules, g)``: the sides and targets of game ``g`` (two against one);
- ``OBJECTIVE = -1``: strategies minimise their points instead of maximising them;
- ``MUGGINS = True``: overlooked points may be claimed by an opponent;
- ``NEEDS = ("bid",)``: decisions a strategy must support (checked when a lineup is loaded).

The engine consults only ``Rules.phases``, ``Rules.winner_of`` and ``Rules.objective``; adding a
variant is one module here and one line in ``PLUGINS``."""

import importlib

PLUGINS = {
    "lowball": "cribsim.variants.lowball",  # V-LOWBALL
    "muggins": "cribsim.variants.muggins",  # V-MUGGINS
    "auction": "cribsim.variants.auction",  # V-AUCTION
    "canadian": "cribsim.variants.canadian",  # V-CANADIAN
    "team3": "cribsim.variants.team3",  # V-TEAM3-1 (two against one)
    "inspect": "cribsim.variants.inspect",  # V-TEAM3-2 (the lone player inspects the crib)
}
KNOWN = tuple(PLUGINS)


def plugin(name):
    return importlib.import_module(PLUGINS[name])


def insert_after(phases, anchor, phase):
    """The phase list with ``phase`` right after ``anchor`` (a plug-in's ``phases`` hook)."""
    out = []
    for p in phases:
        out.append(p)
        if p is anchor:
            out.append(phase)
    return out


def objective_of(names):
    """+1, or -1 when the named variants make strategies minimise (lowball)."""
    out = 1
    for n in names:
        out *= getattr(plugin(n), "OBJECTIVE", 1) if n in PLUGINS else 1
    return out
