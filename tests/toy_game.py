"""Race, a toy third game that follows docs/adding-a-game.md: each deal shuffles tiles 1..9, and
in turn each seat takes one of the first three left and scores it; the first side to the target
wins. A config or rules file names it ``game: toy_game:GAME`` (this file beside it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cribsim.errors import IllegalMove
from cribsim.game import Game
from cribsim.gamelog import RecordFileError
from cribsim.records import GameRecord
from cribsim.rng import DECK, STRATEGY, addressed_draw, derive
from cribsim.ruleset import MatchFormat, RulesBase, int_key, match_format, sides_key, unknown_keys
from cribsim.strategy import Strategy


@dataclass(frozen=True)
class RaceRules(RulesBase):
    name: str = "race"
    game: str = "toy_game:GAME"
    players: int = 2
    sides: tuple[tuple[int, ...], ...] = ((0,), (1,))
    target: int = 21
    match: MatchFormat = field(default_factory=MatchFormat)


@dataclass
class Obs:
    seat: int
    side: int
    rules: RaceRules
    scores: tuple[int, ...] = ()
    legal: tuple[int, ...] = ()


@dataclass
class Result:
    winner: int
    scores: tuple[int, ...]
    first_dealer: int
    deals: int
    events: list[str]
    trail: list[list[int]]
    stopped: str | None = None

    def record(self, skunk: int, rules: RaceRules) -> GameRecord:
        return GameRecord(self.winner, list(self.scores), self.deals, self.first_dealer,
                          self.first_dealer == self.winner, 0, [[0], [1]], [self.winner, 1 - self.winner],
                          trail=self.trail)


class Race(Game):
    title = "Race"
    builtins = {"random": "toy_game:Random", "greedy": "toy_game:Greedy"}

    def build_rules(self, data, source):  # every key of to_dict() too: records rebuild rules from it
        unknown_keys(source, "", data, {"name", "game", "target", "match", "players", "sides"})
        int_key(source, "players", data.get("players", 2), 2, 2)
        sides_key(source, data.get("sides"), 2)
        target = int_key(source, "target", data.get("target", 21), 1)
        match = match_format(source, data.get("match"))
        return RaceRules(data.get("name", "race"), self.name, target=target, match=match)

    def play_game(self, rules, strategies, seed, address, first=None, log=False, start_scores=None, tape=None,
                  counters=None):
        for seat, s in enumerate(strategies):
            s.rng.seed(derive(seed, *address, STRATEGY, seat))
        decks = (addressed_draw(9, 9, seed, *address, DECK, d) for d in range(10_000))
        first = address[0] % 2 if first is None else first
        result = _run(rules, [s.play for s in strategies], decks, first, tape)
        if tape is not None:
            tape.first_dealer = first
            tape.finish(result.winner, result.scores, result.deals)
        return result

    def replay_game(self, rules, log, seed, address, counters, where, partial=False):
        answers = iter(log.actions)
        return _run(rules, [lambda obs: next(answers)] * 2, iter(log.decks), log.first_dealer, None)

    def narrate(self, rules, result, names=None):
        return result.events + [f"side {result.winner} wins {result.scores[0]}-{result.scores[1]}"]


def _run(rules, asks, decks, first, tape):
    scores, events, trail, deal = [0, 0], [], [[0, 0]], 0
    for deal, deck in enumerate(decks):
        if tape is not None:
            tape.decks.append(list(deck))
        left, seat = [t + 1 for t in deck], (first + deal) % 2
        while left:
            obs = Obs(seat, seat, rules, tuple(scores), tuple(left[:3]))
            tile = asks[seat](obs)
            if tape is not None:
                tape.actions.append(tile)
            if tile not in obs.legal:
                raise IllegalMove(f"seat {seat} took {tile!r}, not one of {obs.legal}", seat)
            left.remove(tile)
            scores[seat] += tile
            events.append(f"deal {deal + 1}: seat {seat} takes {tile} -> {scores[0]}-{scores[1]}")
            if scores[seat] >= rules.target:
                trail.append(list(scores))
                return Result(seat, tuple(scores), first, deal + 1, events, trail)
            seat = 1 - seat
        trail.append(list(scores))
    raise RecordFileError("cribsim: the record ends before the game does")


class Random(Strategy):
    game = "toy_game:GAME"

    def play(self, obs):
        return self.rng.choice(obs.legal)


class Greedy(Strategy):
    game = "toy_game:GAME"

    def play(self, obs):
        return max(obs.legal)


GAME = Race()
