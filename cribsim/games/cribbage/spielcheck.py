"""cribsim's standard rules and OpenSpiel's own ``cribbage`` game played from the same deals
with the same decisions, deal by deal, and every difference in their scores named by the rule
of docs/rules.md that OpenSpiel does not follow (``pip install cribsim[openspiel]``).

Both games get each deal's cards in the order cribsim deals them (OpenSpiel's chance nodes are
set to them), both players discard their two highest cards and lay their lowest legal card, so
the games stay in step as long as their rules agree. The differences found:

- ``R-SHOW-6``: OpenSpiel counts a crib of four cards of one suit as a flush of 4 whatever the
  starter; under the rule a crib scores a flush only when the starter matches too (5).
- ``R-SHOW-2``: OpenSpiel counts every hand and the crib before it checks for 121; under the
  rule the game ends the moment a side reaches it, and nothing after that point is counted.
- ``R-WIN-1``: the same in the play: OpenSpiel checks for 121 only between moves, so a card
  that pegs out still scores the rest of its move (a go or 31, and the show when it ends the play).
- ``R-SHOW-1``: OpenSpiel counts the hands in seat order and names the first seat past 121 the
  winner; under the rule the pone counts first, so it wins when both would pass 121 in the show.

A deal in which a difference of ``R-SHOW-6`` arises leaves the two games at different scores;
the comparison goes on deal by deal (each game from its own scores) until one of them ends, and
OpenSpiel, ahead by such points, may reach 121 and stop in a deal that cribsim plays on (counted
under ``R-SHOW-6`` too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyspiel

from cribsim.ruleset import load_rules

from .cards import RANK, SUIT, card_str
from .engine.state import GameState
from .rules import Rules

PASS = 2756  # OpenSpiel cribbage's pass in the play


def os_id(card: int) -> int:
    """OpenSpiel's card id (suits C, D, H, S, then ranks A..K) of a cribsim card."""
    return SUIT[card] * 13 + RANK[card]


@dataclass
class Difference:
    """A deal whose points differ: the points each game gave each seat, and the rule."""

    game: int
    deal: int
    cribsim: tuple[int, ...]
    openspiel: tuple[int, ...]
    rule: str
    why: str


@dataclass
class Comparison:
    """What a cross-check found (see the module doc)."""

    games: int = 0
    deals: int = 0
    same: int = 0
    differences: list[Difference] = field(default_factory=list)
    unexplained: list[Difference] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.differences:
            out[d.rule] = out.get(d.rule, 0) + 1
        return out


def _discard(hand: tuple[int, ...]) -> tuple[int, int]:
    a, b = sorted(hand)[-2:]
    return a, b


def _lay(legal: tuple[int, ...]) -> int:
    return min(legal)


def crib_flush_without_starter(crib: list[int], starter: int) -> bool:
    return len({SUIT[c] for c in crib}) == 1 and SUIT[starter] != SUIT[crib[0]]


class _Pair:
    """One game in both engines, in step."""

    def __init__(self, rules: Rules, seed: int, key: int) -> None:
        self.g = GameState(rules, seed, (key, 0), 0, log=True).start()  # OpenSpiel's first dealer is seat 0
        self.s = pyspiel.load_game("cribbage").new_initial_state()
        self.rules = rules

    def deal(self) -> tuple[tuple[int, ...], tuple[int, ...], list[int], int]:
        """Play one deal in both; (cribsim's points by seat, OpenSpiel's, the crib, the starter)."""
        g, s = self.g, self.s
        before_g, before_s = tuple(g.scores), os_scores(s)
        deal_no = g.deal_no
        for seat in range(2):  # OpenSpiel deals seat 0's hand, then seat 1's
            for c in g.hands[seat]:
                s.apply_action(os_id(c))
        for seat in range(2):
            assert g.actor == seat and g.decision == "discard"
            a, b = _discard(g.observation().hand)
            g.apply((a, b))
            lo, hi = sorted((os_id(a), os_id(b)))
            s.apply_action(52 + 52 * lo + hi)
        crib, starter = list(g.crib), g.starter
        assert starter is not None
        s.apply_action(os_id(starter))
        while not g.is_terminal and g.deal_no == deal_no and not s.is_terminal():
            if s.legal_actions() == [PASS]:
                s.apply_action(PASS)  # a go: cribsim says it by itself (R-PEG-2)
                continue
            assert g.decision == "play" and g.actor == s.current_player()
            card = _lay(g.observation().legal)
            g.apply(card)
            s.apply_action(os_id(card))
        while not s.is_terminal() and s.legal_actions() == [PASS]:  # OpenSpiel's goes after cribsim's last card
            s.apply_action(PASS)
        after_s = os_scores(s)
        return (tuple(a - b for a, b in zip(g.scores, before_g)), tuple(a - b for a, b in zip(after_s, before_s)),
                crib, starter)


def os_scores(state: Any) -> tuple[int, ...]:
    """OpenSpiel cribbage's scores (its returns add a winner's bonus): from the state's text."""
    return tuple(int(x) for x in str(state).split("Scores:")[1].split("\n")[0].split())


def compare(games: int, seed: int = 1) -> Comparison:
    """Play ``games`` games of the standard rules in both engines (see the module doc)."""
    rules = load_rules("standard")
    out = Comparison()
    for key in range(games):
        pair = _Pair(rules, seed, key)
        out.games += 1
        while not pair.g.is_terminal and not pair.s.is_terminal():
            deal_no = pair.g.deal_no
            ours, theirs, crib, starter = pair.deal()
            out.deals += 1
            if ours == theirs:
                out.same += 1
                continue
            out.differences.append(_explain(pair, key, deal_no, ours, theirs, crib, starter, out))
    return out


def _explain(pair: _Pair, key: int, deal_no: int, ours: tuple[int, ...], theirs: tuple[int, ...],
             crib: list[int], starter: int, out: Comparison) -> Difference:
    g = pair.g
    dealer = deal_no % 2
    flush = crib_flush_without_starter(crib, starter)
    expected = list(ours)
    if flush:
        expected[dealer] += 4
    if not g.is_terminal and tuple(expected) == theirs:
        return Difference(key, deal_no, ours, theirs, "R-SHOW-6", f"crib {' '.join(map(card_str, crib))} "
                          f"with starter {card_str(starter)}: OpenSpiel counts its flush of 4")
    if pair.s.is_terminal() and not g.is_terminal and all(t <= e for t, e in zip(theirs, expected)):
        return Difference(key, deal_no, ours, theirs, "R-SHOW-6", "OpenSpiel, ahead by its earlier 4-card crib "
                          f"flushes, reached 121 first ({max(os_scores(pair.s))}) and stopped")
    if g.is_terminal and all(t >= e for t, e in zip(theirs, expected)):
        side = g.over.side if g.over is not None else -1
        in_play = g.events is not None and g.events[-1].source in ("peg", "heels")
        if in_play:  # out in the play (or by his heels): OpenSpiel scores the rest of that move
            rule = "R-WIN-1"
            why = (f"cribsim's seat {side} pegs out at {max(g.scores)}; OpenSpiel scores on within the move "
                   "(the go or 31, the show when it ends the play)")
        else:
            rule, why = "R-SHOW-2", f"cribsim's seat {side} counts out at {max(g.scores)}; OpenSpiel counts on"
        if pair.s.is_terminal():
            final = os_scores(pair.s)
            os_winner = next(p for p in range(2) if final[p] >= 121)
            if os_winner != side and not in_play:
                rule, why = "R-SHOW-1", (f"both pass 121 in the show: cribsim's pone counts first and wins, "
                                         f"OpenSpiel names seat {os_winner}")
            elif os_winner != side:
                why += f", and names seat {os_winner}, the first past 121 in seat order"
        return Difference(key, deal_no, ours, theirs, rule, why + (" (and a 4-card crib flush)" if flush else ""))
    diff = Difference(key, deal_no, ours, theirs, "?", "not explained")
    out.unexplained.append(diff)
    return diff


def lines(result: Comparison) -> list[str]:
    """The comparison for people."""
    out = [f"{result.games} games, {result.deals} deals played in both; {result.same} deals scored the same",
           "differences by rule: " + ", ".join(f"{r} {n}" for r, n in sorted(result.counts().items()))]
    for d in result.differences[:12]:
        out.append(f"  game {d.game} deal {d.deal + 1}: cribsim {d.cribsim} OpenSpiel {d.openspiel}  {d.rule}: {d.why}")
    if result.unexplained:
        out.append(f"UNEXPLAINED: {len(result.unexplained)}")
    return out

