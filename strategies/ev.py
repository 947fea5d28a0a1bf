"""``ev``: expected-value discards, one-ply expected-value pegging.

Discard: for every way to keep the hand, the exact expected show score over every starter not
seen (the rank part cached by rank pattern, as in ``cribsim.expect``; flush and nobs by suit)
plus the expected crib value of the discards from the project's crib tables
(``cribsim.cribtables``), added for one's own side's crib and subtracted for an opponent's.

Play: for each legal card, the points it pegs now (and a last card it secures), minus the
expected points of the next player's reply: for each rank that would score, the chance the
next player holds one (from the unseen cards and their hand size) times what it would peg.
A partner's reply would count for us (in partnerships the next player is always an opponent).
Points for laying each rank on a pile are cached by the pile's ranks (the count follows).

Every value comes from the rule set's scoring (a rules file's ``scoring:`` block, S-DATA): the
expected show, the pegging and the crib tables, which ``cribtables.for_scoring`` builds once per
scoring and keeps on disk. ``tables: standard`` values everything by the standard game's scoring
whatever the rules say (a player who has not learnt the new values)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation
    from cribsim.games.cribbage.rules import Rules

import random
from collections.abc import Iterable, Sequence
from itertools import combinations
from math import comb
from typing import Any, ClassVar, cast

from cribsim.games.cribbage import cribtables
from cribsim.games.cribbage.cards import JACK, RANK, RANK_VALUE, SUIT, VALUE
from cribsim.games.cribbage.cribtables import cell_key, for_scoring
from cribsim.games.cribbage.expect import expected_show, rank_ev
from cribsim.games.cribbage.native import lane
from cribsim.games.cribbage.native.lane import EvValues, NativePlayRollout, NativeSeat
from cribsim.games.cribbage.points import STANDARD, Scoring
from cribsim.games.cribbage.scoring import RBIT, STANDARD_SCORER, Scorer
from cribsim.games.cribbage.strategy import allowed, allowed_keeps
from cribsim.games.cribbage.variants.auction import floor_worth, raise_to
from cribsim.games.cribbage.variants.canadian import best_split
from cribsim.games.cribbage.variants.jokers import play_options, show_value
from cribsim.params import Param
from cribsim.strategy import Strategy
from strategies.models import EV

HAND_MOST = 20  # the largest hand the rules allow (a deal of 20, nothing laid away)

# P(a hand of h cards from U unseen holds at least one of the u cards of a rank)
HOLD = [[[0.0 if u == 0 or h == 0 or U == 0 else 1.0 - comb(U - u, h) / comb(U, h) if U - u >= h else 1.0
          for h in range(HAND_MOST + 1)] for u in range(5)] for U in range(53)]

# the same by (unseen, cards the next player holds): a tuple indexed by cards of a rank unseen
HOLD_COL = [[tuple(HOLD[U][u][h] for u in range(5)) for h in range(HAND_MOST + 1)] for U in range(53)]

_LAY: dict[tuple[int, ...], tuple[Any, ...]] = {}


def lay_points(pile: tuple[int, ...], scorer: Scorer = STANDARD_SCORER) -> tuple[Any, ...]:
    """For a pile of ranks since the last reset: ((rank, points), ...) for every rank that fits
    and scores, the count, the same points as a dict, and a dict that ``play`` fills with the
    first item of ``lay_points(pile + (rank,))`` by rank. Cached by the pile, per scoring."""
    cache = _LAY if scorer is STANDARD_SCORER else scorer.memo.setdefault("lay", {})
    v = cache.get(pile)
    if v is None:
        peg_points = scorer.peg
        count = sum(RANK_VALUE[r] for r in pile)
        room = scorer.limit - count
        lst = list(pile)
        scoring = []
        for r in range(13):
            if RANK_VALUE[r] <= room:
                p = peg_points(lst + [r], count + RANK_VALUE[r]) if pile or room <= 10 else 0  # a lead hits 10
                if p:
                    scoring.append((r, p))
        v = (tuple(scoring), count, dict(scoring), {})  # the last: replies by rank laid, lazily
        if len(cache) > 1_000_000:
            cache.clear()
        cache[pile] = v
    return v


_RANKS: dict[tuple[int, ...], tuple[int, ...]] = {}


def _ranks(pile: tuple[int, ...]) -> tuple[int, ...]:
    """The ranks of a pile of cards, as a tuple (cached by the pile)."""
    v = _RANKS.get(pile)
    if v is None:
        if len(_RANKS) > 500_000:
            _RANKS.clear()
        v = _RANKS[pile] = tuple([c >> 2 for c in pile])
    return v


_PAIR_EV: dict[int, list[float]] = {}

# the index pairs (i < j) of a hand of n cards, in ``combinations`` order
PAIRS = {n: tuple(combinations(range(n), 2)) for n in range(2, HAND_MOST + 1)}  # every deal the rules allow


def _pair_table(hand: Sequence[int], hkey: int, unseen: int, scorer: Scorer = STANDARD_SCORER) -> list[float]:
    """For a hand's rank pattern: the expected rank points (fifteens, pairs, runs) of keeping all
    but two cards, at index ``13 * r1 + r2`` for the thrown ranks (both orders). The hand size,
    and so ``unseen``, is fixed by the pattern."""
    tab = [0.0] * 169
    for a, b in combinations(hand, 2):
        v = rank_ev(hkey - RBIT[a] - RBIT[b], hkey, unseen, scorer)
        ra, rb = RANK[a], RANK[b]
        tab[ra * 13 + rb] = tab[rb * 13 + ra] = v
    cache = _PAIR_EV if scorer is STANDARD_SCORER else scorer.memo.setdefault("pair_ev", {})
    if len(cache) > 200_000:
        cache.clear()
    cache[hkey] = tab
    return tab


def in_order(values: Iterable[float]) -> float:
    """The sum of ``values`` added one by one from the first: the same bits on every Python
    (``sum`` compensates its float additions from 3.12) and in the native lane's C."""
    total = 0.0
    for v in values:
        total += v
    return total


JOKER_KEEP = 6.4  # V-JOKERS: what a kept joker adds to three random cards at the show (measured)
JOKER_CRIB = 8.5  # the expected crib with a joker in it (an estimate: about 4.7 plus what a joker adds)

_CRIB_ARRAYS: dict[tuple[float, Scoring], tuple[Any, ...]] = {}


def _crib_arrays(weight: float, scoring: Scoring = STANDARD) -> tuple[Any, ...]:
    """Crib values by card pair (index ``52 * a + b``, both orders) for one's own crib and an
    opponent's (negated), and by single rank; weighted. Built once per weight and scoring and
    shared by every instance (read-only): building them per instance cost 1.4 ms, twice per match."""
    v = _CRIB_ARRAYS.get((weight, scoring))
    if v is None:
        tables = for_scoring(scoring)
        own, opp = [0.0] * 2704, [0.0] * 2704
        for a, b in combinations(range(52), 2):
            k = cell_key(a, b)
            own[a * 52 + b] = own[b * 52 + a] = weight * tables["own"][k]
            opp[a * 52 + b] = opp[b * 52 + a] = -weight * tables["opp"][k]
        single = tuple(weight * tables["single"][str(r)] for r in range(13))
        v = _CRIB_ARRAYS[(weight, scoring)] = (tuple(own), tuple(opp), single)
    return v


def ev_values(rules: Rules, crib_weight: float, reply_weight: float, tables: str) -> EvValues:
    """What the native lane's ev values by, for these rules and parameters: the same scoring,
    crib tables and reply chances the Python player reads (``_set_rules``)."""
    sc = rules.scorer if tables == "rules" else STANDARD_SCORER
    own, opp, single = _crib_arrays(crib_weight, sc.values)
    return EvValues(sc.values, own, opp, single, HOLD_COL, reply_weight, JOKER_KEEP, JOKER_CRIB)


class EVStrategy(Strategy):
    name = "ev"
    models = EV
    params: ClassVar[tuple[Param, ...]] = (
        Param("crib_weight", float, 1.0, "weight of the crib tables' value of the discards", lo=-10, hi=10),
        Param("reply_weight", float, 1.0, "weight of the next player's expected reply in the play", lo=-10, hi=10),
        Param("tables", str, "rules", "the scoring its values come from: the rules' own, or the standard game's",
              choices=("rules", "standard")),
    )
    # minimises when rules.objective is -1; obeys obs.discard_rule
    understands = frozenset({"objective", "discard_rule"})

    @classmethod
    def prepare_rules(cls, rules: Any, params: dict[str, Any]) -> None:
        """Before it plays a rule set (untimed): the crib tables of its scoring, built once and
        kept on disk (``cribtables.for_scoring``), so that no decision waits for them."""
        scoring = getattr(rules, "scoring", None)
        if isinstance(scoring, Scoring) and params.get("tables", "rules") == "rules":
            for_scoring(scoring)

    @classmethod
    def native(cls, rules: Rules, params: dict[str, Any]) -> NativeSeat:
        """How the native lane plays it (cribsim/games/cribbage/native/): the values this module
        makes for its parameters, the same the Python player reads."""
        return NativeSeat("ev", ev_values(rules, params.get("crib_weight", 1.0), params.get("reply_weight", 1.0),
                                          params.get("tables", "rules")))

    @classmethod
    def notes(cls, rules: Any, params: dict[str, Any]) -> list[str]:
        """For the manifest: where its values come from under ``rules``' scoring."""
        scoring = getattr(rules, "scoring", None)
        if not isinstance(scoring, Scoring) or scoring.standard:
            return []
        if params.get("tables", "rules") == "standard":
            return ["values by the standard scoring (tables: standard), not these rules'"]
        if scoring.show_only().standard:
            return ["pegging by these rules' scoring; the shipped crib tables (the show is the standard one)"]
        return ["expected show and pegging by these rules' scoring; crib tables built for its show "
                f"({cribtables.SCORING_SAMPLES} samples a cell and role)"]

    def inspect(self, obs: Observation) -> tuple[int, ...]:
        """V-TEAM3-2: the keep of four from the eight with the best exact expected show, plus
        the exact expected crib of the four put back (ours if we own the crib, else against us),
        both over every starter not among the eight."""

        eight = obs.hand + obs.crib
        mine = 1 if obs.side_of[obs.crib_owner] == obs.side else -1
        obj = obs.rules.objective
        sc = self._sync(obs)
        if max(eight) >= 52:  # V-JOKERS: a joker among them: certain points, jokers named
            return max(combinations(eight, len(obs.hand)), key=lambda k: obj * (
                show_value(k, None, False, 1, sc) + mine * show_value([c for c in eight if c not in k], None, True, 1,
                                                                      sc)))
        return max(combinations(eight, len(obs.hand)), key=lambda k: obj * (
            expected_show(k, eight, False, sc) + mine * expected_show([c for c in eight if c not in k], eight, True,
                                                                      sc)))

    def pass_cards(self, obs: Observation) -> tuple[list[int], list[int]]:
        """V-CANADIAN: the exact expected show of our hand and of the partner's (both count for
        the side) plus the crib value of the two thrown, over all 3,150 splits."""

        hand, obj = obs.hand, obs.rules.objective
        sc = self._sync(obs)
        return best_split(obs, lambda keep, passed, thrown: obj * (
            expected_show(keep, hand, False, sc) + expected_show(passed, hand, False, sc)
            + self.crib_value(obs, thrown)))

    def __init__(self, rng: random.Random, crib_weight: float = 1.0, reply_weight: float = 1.0,
                 tables: str = "rules") -> None:
        super().__init__(rng)
        self.crib_weight = crib_weight
        self.reply_weight = reply_weight
        self.tables = tables
        self._rules: Any = None
        self._val: Scorer = STANDARD_SCORER  # the scoring its values come from (see _set_rules)
        self._pair_ev: dict[int, list[float]] = _PAIR_EV
        self.pair_own, self.pair_opp, self.single = _crib_arrays(crib_weight)
        self._native: tuple[Rules, Any, bytes] | None = None  # (rules, its values in C, the packed rules)
        self._packed_games: dict[int, bytes] = {}  # a variant's layout: the rules packed for each game's sides
        self._deals_in_lane: tuple[Rules | None, bool] = (None, False)  # (rules, whether the lane runs their deals)

    # ---- searches in the native lane ------------------------------------------------------
    def _native_parts(self, obs: Observation) -> tuple[Rules, Any, bytes] | None:
        """Its values handed to the native lane for ``obs``'s rules (made once a rule set) and the
        rules packed with the sides and targets of ``obs``'s game, or None where the lane does not
        play them or a subclass plays by another one-ply rule."""
        rules = obs.rules
        if type(self).one_ply is not EVStrategy.one_ply or not lane.rollouts_allowed():
            return None
        if self._native is None or self._native[0] is not rules:  # the lane's checks, once a rule set
            capsule = None
            if self.lane_searches(rules):
                capsule = lane.ev_capsule(rules, self.native_values(rules))
            self._native = (rules, capsule, lane.pack_rules(rules) if capsule is not None else b"")
            self._packed_games = {}
        if self._native[1] is None:
            return None
        if rules.program.hooks.layout is None:
            return self._native
        packed = self._packed_games.get(obs.game_no)
        if packed is None:
            packed = self._packed_games[obs.game_no] = lane.pack_rules(rules, game_no=obs.game_no)
        return rules, self._native[1], packed

    def _deal_parts(self, obs: Observation) -> tuple[Rules, Any, bytes] | None:
        """:meth:`_native_parts` where the lane also runs a deal on to its show as the engine
        does (no hook in Python: :func:`lane.rollouts_for`), for what counts a show (a keep's
        value, the board's sampled deals); else None."""
        if self._deals_in_lane[0] is not obs.rules:
            self._deals_in_lane = (obs.rules, lane.rollouts_for(obs.rules))
        return self._native_parts(obs) if self._deals_in_lane[1] else None

    def lane_searches(self, rules: Rules) -> bool:
        """Whether this player's searches of the play run in the native lane for ``rules``:
        wherever the lane plays their play (:func:`lane.play_refusal`), those with a designer's
        hooks of the show included (``after_count``, ``count_hand``): a search of the play rolls
        out the play only, where no hook of the show is ever called, so its rollouts there are
        the engine's (a search that runs on to the show, expert's board, asks
        :func:`lane.rollouts_for` itself)."""
        return lane.searches_play(rules)

    def native_values(self, rules: Rules) -> EvValues:
        """The values this player's one-ply rule and discard read, as the native lane takes them
        (a subclass that values the crib otherwise hands the lane its own)."""
        return ev_values(rules, self.crib_weight, self.reply_weight, self.tables)

    def native_rollout(self, view: Observation, from_start: bool = False) -> NativePlayRollout | None:
        """Rollouts of the rest of a play from ``view`` in C, every seat on this player's one-ply
        rule (``engine.rollout.PlayRollout``'s points), or None where the lane cannot."""
        parts = self._native_parts(view)
        return None if parts is None else NativePlayRollout(view, parts[1], parts[2], from_start)

    # ---- auction ------------------------------------------------------------------------
    def bid(self, obs: Observation) -> int | None:
        """V-AUCTION: owning the crib instead of an opponent is worth our expected crib (the
        best keep's throw into our own crib, from the crib tables) plus the opponents' expected
        crib that we deny them; bid while the price is below that swing. In lowball a bid
        pegs our score back, so any bid is welcome."""
        sc = self._sync(obs)
        if obs.rules.objective < 0:
            return raise_to(obs, floor_worth(obs, in_order(self.single) / 13))

        hand = obs.hand
        deny = in_order(self.single) / 13  # an opponent's crib, on average (about 4.7 points)
        if max(hand) >= 52:  # V-JOKERS: a joker of ours would go to our own crib's estimate
            return raise_to(obs, int(JOKER_CRIB + deny))
        k = len(hand) - obs.rules.hand_size
        best_own = None
        for keep in combinations(hand, len(hand) - k):
            thrown = [c for c in hand if c not in keep]
            v = expected_show(keep, hand, False, sc) + self._crib(thrown, True)
            if best_own is None or v > best_own[0]:
                best_own = (v, self._crib(thrown, True))
        assert best_own is not None  # a hand always has a keep
        return raise_to(obs, int(best_own[1] + deny))

    def _crib(self, thrown: Sequence[int], mine: bool) -> float:
        if len(thrown) == 2:
            return cast("float", (self.pair_own if mine else self.pair_opp)[thrown[0] * 52 + thrown[1]])
        v = in_order(self.single[RANK[c]] for c in thrown) / max(1, len(thrown))
        return v if mine else -v

    # ---- discard ------------------------------------------------------------------------
    def crib_value(self, obs: Observation, thrown: Sequence[int]) -> float:
        """Expected crib points of ``thrown`` for our side (negative into an opponent's crib)."""
        if not thrown:
            return 0.0
        self._sync(obs)
        mine = obs.side_of[obs.crib_owner] == obs.side
        if len(thrown) == 2 and obs.rules.players == 2:
            return cast("float", (self.pair_own if mine else self.pair_opp)[thrown[0] * 52 + thrown[1]])
        v = in_order(self.single[RANK[c]] for c in thrown) / len(thrown)
        return v if mine else -v

    def keep_value(self, obs: Observation, keep: Sequence[int], thrown: Sequence[int]) -> float:
        if obs.rules.jokers and max(obs.hand) >= 52:
            return self._joker_value(obs, keep, thrown)
        return expected_show(keep, obs.hand, False, self._sync(obs)) + self.crib_value(obs, thrown)

    def _joker_value(self, obs: Observation, keep: Sequence[int], thrown: Sequence[int]) -> float:
        """V-JOKERS, approximately: the exact expected show of the standard cards kept, plus
        JOKER_KEEP for each joker kept (a joker named at the show adds about 6.4 points to three
        random cards, measured); the crib value of the standard cards thrown, plus JOKER_CRIB
        for each joker thrown (counted against us in an opponent's crib)."""

        held = [c for c in obs.hand if c < 52]
        std_keep = [c for c in keep if c < 52]
        v = expected_show(std_keep, held, False, self._sync(obs)) if std_keep else 0.0
        v += JOKER_KEEP * (len(keep) - len(std_keep))
        std_thrown = [c for c in thrown if c < 52]
        if len(std_thrown) < len(thrown):  # a joker in the crib: the crib's whole estimate
            mine = obs.side_of[obs.crib_owner] == obs.side
            v += JOKER_CRIB if mine else -JOKER_CRIB
        elif std_thrown:
            v += self.crib_value(obs, std_thrown)
        return v

    def _discard_jokers(self, obs: Observation) -> list[int]:
        best, choice = None, None
        obj = obs.rules.objective
        for keep, thrown in allowed_keeps(obs):
            v = obj * self._joker_value(obs, keep, thrown)
            if best is None or v > best + 1e-9:
                best, choice = v, thrown
        assert choice is not None  # a discard rule always leaves a legal discard
        return choice

    def discard(self, obs: Observation) -> list[int]:
        hand = obs.hand
        n = len(hand)
        k = obs.discards
        rules = obs.rules
        if rules.jokers and max(hand) >= 52:
            return self._discard_jokers(obs)
        pair_values = self.two_card_values(obs)
        if pair_values is not None:  # the hot path: two players, two cards each
            return self.best_pair(hand, pair_values)
        sc = self._sync(obs)
        values = sc.values
        unseen = 52 - n
        keep_n = n - k
        hkey = 0
        suit_held = [0, 0, 0, 0]
        nonjack_held = [0, 0, 0, 0]
        for c in hand:
            hkey += RBIT[c]
            suit_held[SUIT[c]] += 1
            if RANK[c] != JACK:
                nonjack_held[SUIT[c]] += 1
        # each card's nobs chance if kept (a jack: starters of its suit that are not jacks)
        nob = [values.nobs * (12 - nonjack_held[SUIT[c]]) / unseen if RANK[c] == JACK else 0.0 for c in hand]
        nobs_all = in_order(nob)
        flush_bonus = [values.flush(keep_n) + values.flush_starter * (13 - suit_held[s]) / unseen for s in range(4)]
        best, best_throw = None, None
        for idx in combinations(range(n), k):  # the cards thrown
            if obs.discard_rule is not None and not allowed(obs, [hand[i] for i in idx]):
                continue
            kkey, nobs = hkey, nobs_all
            for i in idx:
                kkey -= RBIT[hand[i]]
                nobs -= nob[i]
            v = rank_ev(kkey, hkey, unseen, sc) + nobs
            thrown = [hand[i] for i in idx]
            kept_suit = SUIT[hand[next(i for i in range(n) if i not in idx)]]
            if suit_held[kept_suit] - sum(1 for c in thrown if SUIT[c] == kept_suit) == keep_n:
                v += flush_bonus[kept_suit]  # all kept cards of one suit (R-SHOW-6)
            if thrown:
                v += self.crib_value(obs, thrown)
            if obs.rules.objective < 0:  # lowball: the keep worth least to us
                v = -v
            if best is None or v > best + 1e-9:
                best, best_throw = v, thrown
        assert best_throw is not None
        return best_throw

    @staticmethod
    def best_pair(hand: Sequence[int], values: Sequence[float]) -> list[int]:
        """The two cards to throw: the first pair (in ``combinations`` order) whose value is
        best by more than 1e-9."""
        pairs = PAIRS[len(hand)]
        best, at = values[0], 0
        for k, v in enumerate(values):
            if v > best + 1e-9:
                best, at = v, k
        i, j = pairs[at]
        return [hand[i], hand[j]]

    def two_card_values(self, obs: Observation) -> list[float] | None:
        """The hot path of every two-player game: for each pair thrown (``combinations`` order
        of the hand's indices), the exact expected show of the cards kept plus the crib tables'
        value of the pair; None when the decision is not two standard cards of two players with
        no discard rule, scored high. The rank part comes from a per-hand-pattern table indexed
        by the two thrown ranks; nobs and a flush are added by suit."""
        hand, rules = obs.hand, obs.rules
        if obs.discards != 2 or rules.players != 2 or obs.discard_rule is not None or rules.objective < 0 \
                or max(hand) >= 52:
            return None
        if rules is not self._rules:
            self._set_rules(rules)
        sc = self._val
        values = sc.values
        n = len(hand)
        unseen, keep_n = 52 - n, n - 2
        hkey = 0
        suit_held = [0, 0, 0, 0]
        nonjack = [0, 0, 0, 0]
        for c in hand:
            hkey += RBIT[c]
            suit_held[c & 3] += 1  # c & 3: the suit, c >> 2: the rank
            if c >> 2 != JACK:
                nonjack[c & 3] += 1
        nob = [values.nobs * (12 - nonjack[c & 3]) / unseen if c >> 2 == JACK else 0.0 for c in hand]  # if kept
        nobs_all = in_order(nob)
        fs = next((s for s in range(4) if suit_held[s] >= keep_n), -1)  # the only suit a flush can be
        bonus = values.flush(keep_n) + values.flush_starter * (13 - suit_held[fs]) / unseen if fs >= 0 else 0.0
        tab = self._pair_ev.get(hkey)
        if tab is None:
            tab = _pair_table(hand, hkey, unseen, sc)
        pt = self.pair_own if obs.side_of[obs.crib_owner] == obs.side else self.pair_opp
        ranks = [c >> 2 for c in hand]
        if fs < 0 and not nobs_all:  # no flush, no jack: the rank table and the crib only
            return [tab[ranks[i] * 13 + ranks[j]] + pt[hand[i] * 52 + hand[j]] for i, j in PAIRS[n]]
        out = []
        for i in range(n - 1):
            ci = hand[i]
            ni = nobs_all - nob[i]
            fi = suit_held[fs] - ((ci & 3) == fs) if fs >= 0 else -1
            row, r13 = ci * 52, ranks[i] * 13
            for j in range(i + 1, n):
                cj = hand[j]
                v = tab[r13 + ranks[j]] + ni - nob[j] + pt[row + cj]
                if fi - ((cj & 3) == fs) == keep_n:
                    v += bonus  # all kept cards of one suit (R-SHOW-6)
                out.append(v)
        return out

    # ---- play ---------------------------------------------------------------------------
    def play(self, obs: Observation) -> Any:
        """The one-ply rule: points now minus the expected best reply of the next player."""
        return self.one_ply(obs)

    def one_ply(self, obs: Observation) -> Any:
        """For each distinct card (rank) that may be laid: the points it pegs now (and a last
        card it secures), minus (plus, for a partner) the expected points of the next player's
        reply, from the chance that player holds each scoring rank among the cards this seat
        has not seen (not in its hand, not laid, not its own discards, not the starter)."""
        legal = obs.legal
        r = obs.rules
        if r is not self._rules:
            self._set_rules(r)
        wild = self._wild
        if len(legal) == 1 and not wild:
            return legal[0]
        seat = obs.seat
        nxt = seat + 1 if seat + 1 < self._players else 0
        left = [4] * 14  # by rank; index 13 collects jokers (V-JOKERS), never read
        hand = obs.hand
        for c in hand:
            left[c >> 2] -= 1  # c >> 2 is the rank (cards are rank * 4 + suit)
        played = obs.played
        nxt_played = 0
        for s, c in played:
            left[c >> 2] -= 1
            if s == nxt:
                nxt_played += 1
        discarded = obs.discarded
        for c in discarded:  # own cards in the crib: not in anyone's hand
            left[c >> 2] -= 1
        unseen = 52 - len(hand) - len(played) - len(discarded)
        starter = obs.starter
        if starter is not None:
            left[starter >> 2] -= 1
            unseen -= 1
        nxt_size = self._hand_size - nxt_played  # every hand ends the same size (validated in Rules)
        sign = self.reply_weight if obs.side_of[nxt] == obs.side else -self.reply_weight
        pile = _ranks(obs.pile)
        now = self._lay.get(pile) or lay_points(pile, self._val)
        now_pts, replies = now[2], now[3]
        last_card = nxt_size <= 0 and (len(hand) == 1 or len(played) + len(hand) == self._all_cards)
        hold = HOLD_COL[unseen][nxt_size] if nxt_size > 0 else None
        count, limit = obs.count, self._limit
        inviting, near_limit = self._inviting, self._near_limit
        minimise = self._objective < 0
        best: float | None = None
        choice: int | tuple[int, int] = legal[0]
        seen = 0
        for answer, c in (play_options(obs) if wild else zip(legal, legal)):
            rk = c >> 2
            if seen >> rk & 1:  # same rank, same value: the first of them is kept on ties
                continue
            seen |= 1 << rk
            v = now_pts.get(rk, 0)
            val = VALUE[c]
            cnt = count + val
            if cnt != limit:
                if hold is not None:
                    threat = 0.0
                    rep = replies.get(rk)
                    if rep is None:
                        rep = replies[rk] = lay_points(pile + (rk,), self._val)[0]
                    for rr, pts in rep:  # left[] already excludes our own cards
                        u = left[rr]
                        if u > 0:  # a rank with a card left (never below 0: each card is seen once; the C alike)
                            threat += pts * hold[u]
                    v += sign * threat
                elif last_card:
                    v += self._last_card
            if minimise:  # lowball: shed points, hand them to the next player
                v = -v
            v += 0.001 * val - (0.01 if cnt == inviting or cnt == near_limit else 0.0)  # tie-breaks: 5 and 21
            if best is None or v > best:
                best, choice = v, answer
        return choice

    def _sync(self, obs: Observation) -> Scorer:
        """The scoring this player values by, for the rules of ``obs`` (read once per rule set)."""
        if obs.rules is not self._rules:
            self._set_rules(obs.rules)
        return self._val

    def _set_rules(self, r: Any) -> None:
        """What the discard and the play need of the rules, read once per rule set: the scoring
        its values come from (``tables``), its crib tables and caches, the play's limits."""
        self._rules = r
        sc = self._val = r.scorer if self.tables == "rules" else STANDARD_SCORER
        self._pair_ev = _PAIR_EV if sc is STANDARD_SCORER else sc.memo.setdefault("pair_ev", {})
        self._lay = _LAY if sc is STANDARD_SCORER else sc.memo.setdefault("lay", {})
        self._limit, self._last_card = r.scorer.limit, sc.last_card
        # counts that invite a ten-card reply to score: 5 (to 15) and 21 (to 31) in the standard game
        self._inviting, self._near_limit = r.scoring.fifteen_total - 10, r.scorer.limit - 10
        self.pair_own, self.pair_opp, self.single = _crib_arrays(self.crib_weight, sc.values)
        self._wild = r.deck_size > 52
        self._players = r.players
        self._hand_size = r.hand_size
        self._all_cards = r.players * r.hand_size
        self._objective = r.objective
