"""A designer's variant, written outside cribsim: the pone may take the crib.

On every ``pone_crib_every``-th deal (1: every deal) the pone, the player on the dealer's left,
is offered the crib after the deal and before the discards. It takes it (``take_crib``
answers True) or leaves it with the dealer; everyone then discards knowing whose crib it is,
and the crib is counted last as usual. A strategy that has no ``take_crib`` method always takes
it (the default answer: a crib is worth about 4.7 points to its owner).

A rules file names it ``variants: ["pone_crib:PoneCrib"]`` with this file beside it (or in the
working directory, or on PYTHONPATH), and sets its knob at the top level:
``pone_crib_every: 2``. cribsim then declares, checks, combines, narrates, records and replays
it like a built-in: combined with the auction it is refused in one line, since both decide the
crib's owner after the deal (the same slot). The walk from this idea to a measured result is
docs/guide-designers.md, "A variant of your own"."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from cribsim.errors import ConfigError, IllegalMove
from cribsim.games.cribbage.engine.variant import Decision, Phase, Variant
from cribsim.params import Param
from cribsim.records import Column


def offer_the_crib(g: Any) -> Generator[int, Any, None]:
    """After the deal: on an offered deal the pone takes the crib or leaves it to the dealer."""
    if g.deal_no % g.rules.pone_crib_every:
        return
    pone = (g.dealer + 1) % g.n
    obs = g.obs[pone]
    obs.hand, obs.dealer, obs.crib_owner, obs.scores = tuple(g.hands[pone]), g.dealer, g.dealer, tuple(g.scores)
    g.asked += 1
    ask = g.answers["take_crib"] if g.answers is not None else None
    take = ask[pone](obs) if ask is not None else (yield pone)
    problem = take_error(obs, take)
    if problem:
        raise IllegalMove(f"seat {pone} {problem}", pone)
    if take:
        g.crib_owner = pone
        g.metric("pone_crib")
    g.log(pone, "pone_crib", "takes" if take else "leaves")


def take_error(obs: Any, answer: Any) -> str | None:
    if not isinstance(answer, bool):
        return f"answered take_crib with {answer!r}: expected true or false"
    return None


def always_take(strategy: Any, obs: Any) -> bool:
    """The default answer for a strategy without ``take_crib``: take it."""
    return True


class PoneCrib(Variant):
    name = "pone_crib"
    rule = "PONE-CRIB-1"  # a designer's own rule number, for the docs and the manifest
    summary = "the pone may take the crib after the deal"
    players = (2,)
    params = (Param("pone_crib_every", int, 1, "the pone is offered the crib on every k-th deal", lo=1, hi=100),)
    phases = (Phase("after_deal", offer_the_crib, "take_crib"),)
    decisions = (Decision("take_crib", "True to take the crib this deal, False to leave it with the dealer",
                          legal=lambda obs: [True, False], check=take_error, default=always_take),)
    columns = (Column("pone's crib (share of deals)", "ratio", "metrics.pone_crib"),)

    @staticmethod
    def check(rules: Any, source: str) -> None:
        if rules.objective < 0:
            raise ConfigError(source, "variants", "pone_crib is written for the standard objective, not lowball")

    @classmethod
    def narrate(cls, e: Any, names: list[str]) -> str | None:
        if e.source == "pone_crib":
            return f"  {names[e.seat]} {'takes the crib' if e.reason == 'takes' else 'leaves the crib to the dealer'}"
        return None


VARIANT = PoneCrib
