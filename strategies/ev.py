"""``ev``: expected-value discards, one-ply expected-value pegging.

Discard: for every way to keep the hand, the exact expected show score over every starter not
seen (the rank part cached by rank pattern, as in ``cribsim.expect``; flush and nobs by suit)
plus the expected crib value of the discards from the project's crib tables
(``cribsim.cribtables``), added for one's own side's crib and subtracted for an opponent's.

Play: for each legal card, the points it pegs now (and a last card it secures), minus the
expected points of the next player's reply: for each rank that would score, the chance the
next player holds one (from the unseen cards and their hand size) times what it would peg.
A partner's reply would count for us (in partnerships the next player is always an opponent).
Points for laying each rank on a pile are cached by the pile's ranks (the count follows)."""

from itertools import combinations
from math import comb

from cribsim.cards import JACK, RANK, RANK_VALUE, SUIT, VALUE
from cribsim.cribtables import cell_key, load
from cribsim.expect import _rank_ev
from cribsim.scoring import RBIT, peg_points
from cribsim.strategy import Strategy

# P(a hand of h cards from U unseen holds at least one of the u cards of a rank)
HOLD = [[[0.0 if u == 0 or h == 0 or U == 0 else 1.0 - comb(U - u, h) / comb(U, h) if U - u >= h else 1.0
          for h in range(8)] for u in range(5)] for U in range(53)]

_LAY = {}


def lay_points(pile):
    """For a pile of ranks since the last reset: ((rank, points), ...) for every rank that fits
    and scores, and the count. Cached by the pile."""
    v = _LAY.get(pile)
    if v is None:
        count = sum(RANK_VALUE[r] for r in pile)
        room = 31 - count
        lst = list(pile)
        scoring = []
        for r in range(13):
            if RANK_VALUE[r] <= room:
                p = peg_points(lst + [r], count + RANK_VALUE[r]) if pile else 0
                if p:
                    scoring.append((r, p))
        v = (tuple(scoring), count)
        if len(_LAY) > 1_000_000:
            _LAY.clear()
        _LAY[pile] = v
    return v


def hold_probability(unseen, of_rank, hand_size):
    return HOLD[unseen][min(of_rank, 4)][min(hand_size, 7)]


class EVStrategy(Strategy):
    name = "ev"

    def __init__(self, rng, crib_weight=1.0, reply_weight=1.0):
        super().__init__(rng)
        self.crib_weight = crib_weight
        self.reply_weight = reply_weight
        self.tables = load()
        # crib value by card pair, for the discarder's own crib and an opponent's
        self.pair_own, self.pair_opp = {}, {}
        for a, b in combinations(range(52), 2):
            k = cell_key(a, b)
            self.pair_own[a * 52 + b] = self.pair_own[b * 52 + a] = crib_weight * self.tables["own"][k]
            self.pair_opp[a * 52 + b] = self.pair_opp[b * 52 + a] = -crib_weight * self.tables["opp"][k]
        self.single = [crib_weight * self.tables["single"][str(r)] for r in range(13)]

    # ---- discard ------------------------------------------------------------------------
    def crib_value(self, obs, thrown):
        """Expected crib points of ``thrown`` for our side (negative into an opponent's crib)."""
        if not thrown:
            return 0.0
        mine = obs.rules.side_of[obs.crib_owner] == obs.side
        if len(thrown) == 2 and obs.rules.players == 2:
            return (self.pair_own if mine else self.pair_opp)[thrown[0] * 52 + thrown[1]]
        v = sum(self.single[RANK[c]] for c in thrown) / len(thrown)
        return v if mine else -v

    def keep_value(self, obs, keep, thrown):
        from cribsim.expect import expected_show

        return expected_show(keep, obs.hand) + self.crib_value(obs, thrown)

    def discard(self, obs):
        hand = obs.hand
        unseen = 52 - len(hand)
        hkey = 0
        suit_held = [0, 0, 0, 0]
        nonjack_held = [0, 0, 0, 0]
        for c in hand:
            hkey += RBIT[c]
            suit_held[SUIT[c]] += 1
            if RANK[c] != JACK:
                nonjack_held[SUIT[c]] += 1
        two = len(hand) - obs.discards
        pair_table = None
        if obs.discards == 2 and obs.rules.players == 2:
            mine = obs.rules.side_of[obs.crib_owner] == obs.side
            pair_table = self.pair_own if mine else self.pair_opp
        best, best_throw = None, None
        for keep in combinations(hand, two):
            kkey = 0
            suits = 0
            nobs = 0.0
            for c in keep:
                kkey += RBIT[c]
                suits |= 1 << SUIT[c]
                if RANK[c] == JACK:
                    nobs += (12 - nonjack_held[SUIT[c]]) / unseen
            v = _rank_ev(kkey, hkey, unseen) + nobs
            if not suits & (suits - 1):  # one suit: a hand flush (R-SHOW-6)
                v += two + (13 - suit_held[SUIT[keep[0]]]) / unseen
            thrown = [c for c in hand if c not in keep]
            if pair_table is not None:
                v += pair_table[thrown[0] * 52 + thrown[1]]
            else:
                v += self.crib_value(obs, thrown)
            if best is None or v > best + 1e-9:
                best, best_throw = v, thrown
        return best_throw

    # ---- play ---------------------------------------------------------------------------
    def play(self, obs):
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        r = obs.rules
        n = obs.players
        left = [4] * 13
        for c in obs.hand:
            left[RANK[c]] -= 1
        played = obs.played
        nxt = (obs.seat + 1) % n
        nxt_played = 0
        for s, c in played:
            left[RANK[c]] -= 1
            if s == nxt:
                nxt_played += 1
        left[RANK[obs.starter]] -= 1
        unseen = 52 - len(obs.hand) - len(played) - 1
        kept = (r.dealer_deal - r.dealer_discard) if nxt == obs.dealer else (r.deal - r.discard)
        nxt_size = kept - nxt_played
        sign = self.reply_weight if r.side_of[nxt] == obs.side else -self.reply_weight
        pile = tuple(RANK[c] for c in obs.pile)
        now_pts = dict(lay_points(pile)[0])
        last_card = len(obs.hand) == 1 or (len(played) + len(obs.hand)) == self._total_cards(obs)
        best, choice = None, legal[0]
        for c in legal:
            rk = RANK[c]
            v = now_pts.get(rk, 0)
            cnt = obs.count + VALUE[c]
            if cnt == 31:
                pass
            elif nxt_size > 0:
                threat = 0.0
                replies, _ = lay_points(pile + (rk,))
                hold = HOLD[unseen]
                for rr, pts in replies:
                    u = left[rr] - (rr == rk)
                    if u > 0:
                        threat += pts * hold[u][nxt_size]
                v += sign * threat
            elif last_card:
                v += 1
            v += -0.01 * (cnt == 5 or cnt == 21) + 0.001 * VALUE[c]  # tie-breaks
            if best is None or v > best:
                best, choice = v, c
        return choice

    @staticmethod
    def _total_cards(obs):
        r = obs.rules
        return (r.players - 1) * (r.deal - r.discard) + r.dealer_deal - r.dealer_discard
