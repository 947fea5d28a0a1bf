"""How much ``expert``'s reading of the other player's hand by its play tells, against ``ev``
(standard 121, no slack): at every play decision of ``expert`` after ``ev`` has laid a card,

- the hand ``ev`` really kept is replayed (it must never be refused);
- ``--draws`` hands that the keep alone allows (``ev``'s discard keeps the laid cards, the gos
  honoured) are drawn and replayed: the share refused, per decision, by the cards laid;
- in the games' own sampling, the share of replays that refuse (weighted toward the decisions
  that need many draws).

    python benchmarks/reading_stats.py [--games N] [--draws K]

Run it on the pure Python lane (``PYTHONPATH=. python ...`` from a checkout): it counts the
games' own replays by replacing ``strategies.expert.Reader``. The last line printed is the
share refused per decision."""

import argparse
import random
from collections import defaultdict

import strategies.expert
from cribsim.games.cribbage.cards import VALUE
from cribsim.games.cribbage.engine import play_game
from cribsim.ruleset import load_rules
from strategies.ev import EVStrategy
from strategies.expert import Reader, ReadingMC
from strategies.mc import unseen_cards


class Spy(EVStrategy):
    """``ev``, remembering what it kept and threw."""

    kept: list[int] = []
    thrown: list[int] = []

    def discard(self, obs):
        thrown = super().discard(obs)
        Spy.thrown, Spy.kept = thrown, [c for c in obs.hand if c not in thrown]
        return thrown


class CountingReader(Reader):
    """``Reader`` counting the replays of the games' own sampling that refuse."""

    replays = [0, 0]  # (refused, replayed)

    def plays_as_ev(self, held, thrown):
        ok = super().plays_as_ev(held, thrown)
        if self.replay is not None:
            CountingReader.replays[0] += not ok
            CountingReader.replays[1] += 1
        return ok


class Counting(ReadingMC):
    """``ReadingMC`` (no slack) that tallies what its reading refuses."""

    draws = 0
    true_refused = decisions = 0
    by_laid: dict[int, list[float]] = defaultdict(list)

    def play(self, obs):
        other = 1 - obs.seat
        laid = [c for s, c in obs.played if s == other]
        if laid:
            reader = Reader(obs, unseen_cards(obs), self)
            Counting.decisions += 1
            Counting.true_refused += not reader.plays_as_ev([c for c in Spy.kept if c not in laid], Spy.thrown)
            refused = allowed = 0
            for _ in range(Counting.draws * 20):
                if allowed == Counting.draws:
                    break
                six = laid + self.rng.sample(reader.pool, 6 - len(laid))
                reader.view.hand = tuple(six)
                thrown = reader.discard(reader.view)
                held = [c for c in six if c not in thrown and c not in laid]
                if any(c in thrown for c in laid) or any(VALUE[c] <= reader.floor for c in held):
                    continue  # not a hand the keep and the gos allow
                allowed += 1
                refused += not reader.plays_as_ev(held, thrown)
            if allowed:
                Counting.by_laid[len(laid)].append(refused / allowed)
        return super().play(obs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--draws", type=int, default=20, help="hands the keep allows, drawn per decision")
    args = ap.parse_args()
    Counting.draws = args.draws
    strategies.expert.Reader = CountingReader  # type: ignore[misc]  # the games' own sampling, counted
    rules = load_rules("standard")
    for i in range(args.games):
        play_game(rules, [Counting(random.Random(i), 8, True, 0.0), Spy(random.Random(i))], 9, (i, 0))
    print(f"{args.games} games, {Counting.decisions} decisions after the other player laid a card")
    print(f"the hand ev really kept refused: {Counting.true_refused} of {Counting.decisions}")
    shares = []
    for n in sorted(Counting.by_laid):
        xs = Counting.by_laid[n]
        shares += xs
        print(f"{n} card(s) laid: {sum(xs) / len(xs):.2f} of the hands the keep allows refused ({len(xs)} decisions)")
    refused, replays = CountingReader.replays
    print(f"in the games' own sampling: {refused / replays:.2f} of {replays} replays refused")
    print(f"refused per decision: {sum(shares) / len(shares):.2f}")


if __name__ == "__main__":
    main()
