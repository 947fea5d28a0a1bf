"""mc: determinised Monte Carlo search over the unseen tiles, greedy rollouts to the hand's end.

For each of ``samples`` deals of the unseen tiles
consistent with what is known (hand counts, and every knock: a seat that knocked holds no tile
showing either end it knocked on), every legal move is played out to the end of the hand with
greedy play by all seats; the move with the best mean of (own side's points minus the mean of
the other sides', plus or minus ``win_value`` for reaching the target) is laid. Moves that win
at once are taken; exact-finish cancellations are simulated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from cribsim.errors import CribsimError
from cribsim.games.fives_threes.engine import Observation, lay
from cribsim.games.fives_threes.strategy import TileStrategy, excluded, immediate, layout, unseen
from cribsim.games.fives_threes.tiles import A, B


class SearchTiles(TileStrategy):
    name = "mc"

    def __init__(self, rng: Any, samples: int = 96, win_value: float = 60) -> None:
        super().__init__(rng)
        if not (isinstance(samples, int) and samples >= 1):
            raise CribsimError(f"cribsim: strategy 'mc' needs samples >= 1 (a whole number), got {samples!r}")
        self.samples = samples
        self.win_value = win_value

    def play(self, obs: Observation) -> tuple[int, int]:
        moves = obs.legal
        for m in moves:
            if immediate(obs, m)[1]:
                return m
        pool = unseen(obs)
        others = [s for s in range(obs.players) if s != obs.seat and obs.counts[s] > 0]
        bars = {s: excluded(obs, s) for s in others}
        totals = [0.0] * len(moves)
        done = 0
        for _ in range(self.samples):
            hands = self._sample(obs, pool, others, bars)
            if hands is None:
                continue
            done += 1
            for i, m in enumerate(moves):
                totals[i] += self._rollout(obs, hands, m)
        if not done:  # no consistent deal found: fall back to the points now
            totals = [immediate(obs, m)[0] for m in moves]
        best = max(totals)
        tied = [m for m, v in zip(moves, totals) if v >= best - 1e-9]
        return tied[int(self.rng.random() * len(tied))]

    def _sample(self, obs: Observation, pool: Sequence[int], others: Sequence[int], bars: dict[int, set[int]],
                tries: int = 20) -> dict[int, list[int]] | None:
        """Hands for the other seats, consistent with their counts and knocks (most
        constrained seat first; a dead end retries)."""
        rnd = self.rng.random
        order = sorted(others, key=lambda s: -len(bars[s]))
        for _ in range(tries):
            free = list(pool)
            hands = {}
            for s in order:
                allowed = [t for t in free if t not in bars[s]]
                need = obs.counts[s]
                if len(allowed) < need:
                    break
                pick = []
                for k in range(need):
                    j = k + int(rnd() * (len(allowed) - k))
                    allowed[k], allowed[j] = allowed[j], allowed[k]
                    pick.append(allowed[k])
                hands[s] = pick
                taken = set(pick)
                free = [t for t in free if t not in taken]
            else:
                return hands
        return None

    def _rollout(self, obs: Observation, sampled: dict[int, list[int]], move: tuple[int, int]) -> float:
        """Play the hand out from ``move`` with greedy seats; value for this seat's side."""
        rules = obs.rules
        table = rules.points_table
        side_of, sides = rules.side_of, rules.sides
        n = obs.players
        rnd = self.rng.random
        hands = cast("list[list[int]]", [None] * n)  # every seat's filled in below
        for s in range(n):
            hands[s] = list(sampled.get(s, ()))
        mine = list(obs.hand)
        mine.remove(move[0])
        hands[obs.seat] = mine
        scores = list(obs.scores)
        start = list(scores)
        ends, dbl, laid = layout(obs)
        domino = 1 if rules.domino_point else 0
        exact, target = rules.exact_finish, rules.target
        seat, m = obs.seat, move
        active = sum(1 for h in hands if h)
        passes = 0
        winner = -1
        while True:
            total = lay(ends, dbl, laid, m)
            laid = 2 if laid else 1
            hand = hands[seat]
            pts = table[total]
            over = False
            side = side_of[seat]
            if not hand:
                over = all(not hands[s] for s in sides[side])
                if over:
                    pts += domino
            if pts:
                new = scores[side] + pts
                if not (exact and new > target):
                    scores[side] = new
                    if new >= target:
                        winner = side
                        break
            if over:
                break
            # the next seat that can lay, and its greedy choice (one pass over its tiles)
            e0, e1 = ends
            c0 = e0 * 2 if dbl[0] else e0
            c1 = e1 * 2 if dbl[1] else e1
            same = e0 == e1 and dbl[0] == dbl[1]
            while True:
                seat = (seat + 1) % n
                hand = hands[seat]
                if not hand:
                    continue
                best, top = [], -1
                side = side_of[seat]
                sc = scores[side]
                bonus = domino if len(hand) == 1 and all(not hands[s] for s in sides[side] if s != seat) else 0
                for t in hand:
                    a, b = A[t], B[t]
                    for end, pip, other in ((0, e0, c1), (1, e1, c0)):
                        if (a != pip and b != pip) or (end and same):
                            continue
                        np = b if a == pip else a
                        p = table[(np * 2 if a == b else np) + other] + bonus
                        if exact and sc + p > target:
                            p = 0
                        elif sc + p >= target:
                            p = 1000
                        if p > top:
                            best, top = [(t, end)], p
                        elif p == top:
                            best.append((t, end))
                if best:
                    passes = 0
                    break
                passes += 1
                if passes >= active:
                    break
            if passes >= active:
                break
            m = best[int(rnd() * len(best))] if len(best) > 1 else best[0]
            hand.remove(m[0])
            if not hand:
                active -= 1
        gains = [scores[i] - start[i] for i in range(len(scores))]
        mine_side = obs.side
        others = [g for i, g in enumerate(gains) if i != mine_side]
        value = gains[mine_side] - sum(others) / len(others)
        if winner >= 0:
            value += self.win_value if winner == mine_side else -self.win_value
        return value
