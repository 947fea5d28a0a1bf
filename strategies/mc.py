"""``mc``: determinised Monte Carlo search for the play, ``ev`` discards refined by rollouts.

Play: ``rollouts`` times, deal the unseen cards (not in our hand, not played, not the starter)
into the other seats' remaining hands, consistent with what has been seen: their hand sizes,
and every go (a seat that said go at count k holds nothing worth 31 - k or less). For each legal
card, play the rest of the deal out and score our side's pegging minus the others'. In the
rollouts every player takes the points on offer minus the best reply the next player holds in
that sampled deal. The same samples serve every candidate (common random numbers).

Discard: the ``ev`` value of every keep, then for the ``discard_top`` best keeps within
``discard_margin`` points of the best, a pegging term from ``discard_rollouts`` rollouts
(opponent hands sampled, the same samples for each keep). ``rollouts`` and
``discard_rollouts`` are the budget."""

from itertools import combinations

from cribsim.cards import RANK, VALUE

from .ev import EVStrategy, lay_points


def _choose(hand, pile, nxt_hand):
    """Rollout policy: the card maximising points now minus the next player's best reply."""
    now = lay_points(pile)[2]
    count = lay_points(pile)[1]
    best, card = None, None
    for c in hand:
        if count + VALUE[c] > 31:
            continue
        rk = RANK[c]
        v = now.get(rk, 0) * 2
        if count + VALUE[c] != 31 and nxt_hand:
            replies = lay_points(pile + (rk,))[2]
            if replies:
                v -= max((replies.get(RANK[x], 0) for x in nxt_hand), default=0) * 2
        v += VALUE[c] * 0.01
        if best is None or v > best:
            best, card = v, c
    return card


def rollout(hands, turn, pile, last, side_of, my_side):
    """Play out the rest of a deal's pegging; return our side's points minus the others'.
    ``hands`` are lists (consumed); ``pile`` is the tuple of ranks since the last reset."""
    n = len(hands)
    left = sum(len(h) for h in hands)
    count = lay_points(pile)[1]
    diff = 0
    while left:
        seat = turn
        card = None
        for _ in range(n):
            h = hands[seat]
            if h:
                card = _choose(h, pile, hands[(seat + 1) % n])
                if card is not None:
                    break
            seat = seat + 1 if seat + 1 < n else 0
        if card is None:  # nobody can play: one for the go
            diff += 1 if side_of[last] == my_side else -1
            pile, count = (), 0
            turn = (last + 1) % n
            continue
        pts = lay_points(pile)[2].get(RANK[card], 0)
        hands[seat].remove(card)
        left -= 1
        count += VALUE[card]
        pile = pile + (RANK[card],)
        if pts:
            diff += pts if side_of[seat] == my_side else -pts
        last = seat
        if count == 31:
            pile, count = (), 0
        turn = seat + 1 if seat + 1 < n else 0
    if count:
        diff += 1 if side_of[last] == my_side else -1
    return diff


class MCStrategy(EVStrategy):
    name = "mc"

    def __init__(self, rng, rollouts=32, discard_rollouts=24, discard_top=3, discard_margin=1.0, **ev_params):
        super().__init__(rng, **ev_params)
        self.rollouts = rollouts
        self.discard_rollouts = discard_rollouts
        self.discard_top = discard_top
        self.discard_margin = discard_margin

    def _sampler(self, obs, unseen):
        """A function returning one consistent deal of ``unseen`` to the other seats."""
        n, me = obs.players, obs.seat
        sizes = [obs.rules.hand_size - sum(1 for x, _ in obs.played if x == s) for s in range(n)]
        floor = [0] * n  # every card a seat holds is worth more than floor[seat]
        for s, k in obs.gos:
            floor[s] = max(floor[s], 31 - k)
        order = sorted((s for s in range(n) if s != me and sizes[s] > 0), key=lambda s: -floor[s])
        rng = self.rng

        def sample():
            pool = list(unseen)
            rng.shuffle(pool)
            hands = [[] for _ in range(n)]
            for s in order:
                f, need = floor[s], sizes[s]
                took = [c for c in pool if VALUE[c] > f][:need] if f else pool[:need]
                if len(took) < need:  # cannot honour the gos (should not happen): take any
                    took += [c for c in pool if c not in took][:need - len(took)]
                hands[s] = took
                taken = set(took)
                pool = [c for c in pool if c not in taken]
            return hands

        return sample

    def play(self, obs):
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        seen = set(obs.hand)
        seen.update(c for _, c in obs.played)
        seen.add(obs.starter)
        sample = self._sampler(obs, [c for c in range(52) if c not in seen])
        n, me = obs.players, obs.seat
        side_of = obs.rules.side_of
        pile = tuple(RANK[c] for c in obs.pile)
        now = lay_points(pile)[2]
        totals = dict.fromkeys(legal, 0)
        for _ in range(self.rollouts):
            dealt = sample()
            for c in legal:
                hands = [list(h) for h in dealt]
                hands[me] = [x for x in obs.hand if x != c]
                cnt = obs.count + VALUE[c]
                p = pile + (RANK[c],) if cnt != 31 else ()
                totals[c] += now.get(RANK[c], 0) + rollout(hands, (me + 1) % n, p, me, side_of, obs.side)
        return max(legal, key=lambda c: (totals[c], VALUE[c]))

    def discard(self, obs):
        hand = obs.hand
        if not self.discard_rollouts:
            return super().discard(obs)
        scored = []
        for keep in combinations(hand, len(hand) - obs.discards):
            thrown = [c for c in hand if c not in keep]
            scored.append((self.keep_value(obs, keep, thrown), keep, thrown))
        scored.sort(key=lambda t: -t[0])
        top = [t for t in scored[:self.discard_top] if t[0] >= scored[0][0] - self.discard_margin]
        if len(top) == 1:
            return top[0][2]
        n, me = obs.players, obs.seat
        side_of = obs.rules.side_of
        sizes = [obs.rules.hand_size] * n
        unseen = [c for c in range(52) if c not in hand]
        pegs = [0] * len(top)
        for _ in range(self.discard_rollouts):
            self.rng.shuffle(unseen)
            pos, others = 0, []
            for s in range(n):
                others.append(unseen[pos:pos + sizes[s]] if s != me else None)
                pos += sizes[s] if s != me else 0
            for i, (_, keep, _) in enumerate(top):
                hands = [list(h) if h is not None else list(keep) for h in others]
                pegs[i] += rollout(hands, (obs.dealer + 1) % n, (), obs.dealer, side_of, obs.side)
        best = max(range(len(top)), key=lambda i: top[i][0] + pegs[i] / self.discard_rollouts)
        return top[best][2]
