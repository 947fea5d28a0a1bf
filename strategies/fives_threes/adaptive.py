"""adaptive: learns each rule set from the engine, then searches worlds through its own hand.

It plays every Fives and Threes rules file from what the engine tells it and nothing else
(issue 39, item 6): no rule is special-cased and no value assumes a scoring.

- **Prepared once per rule set** (:meth:`AdaptiveTiles.prepare_rules`, outside any time limit,
  kept on disk under the rules' fingerprint; a damaged or stale file is learnt again), every
  hand dealt by the engine and played through its own hand (``Game.play_hand``):

  1. *the rollout policy*: the move that scores most now by the engine's count
     (:func:`cribsim.games.fives_threes.strategy.immediate`: the points table, the domino point,
     the cancellations; a win above all), less a weight times what the line it leaves gives the
     next lay. That reply is learnt by line (its two open ends) from ``learn_hands`` hands played
     on the points alone: the mean points of the next lay, against the side that left the line
     if another side lays it. The weight (0, 0.25, 0.5, 0.75 or 1) is the one whose side gains
     most points a hand, on ``learn_hands`` deals each played with one side weighing the reply
     and the others on the points alone (weight 0: every side on the points alone);
  2. *the win table*: ``learn_hands`` hands played by that policy, each kept as the scoring
     events the engine scored (placement and domino point, whether on the lead); from them, by
     dynamic programming over the board from the end of the game backwards, the chance that a
     side reaches the target before another from any two scores with any seat to lead, every
     event counted or cancelled by the engine's own rule (``engine.cancelled``: the exact
     finish, a lead that may not win). With three sides, each side's chances against each
     other side are taken together.

- **Each decision**: ``worlds`` deals of the tiles the seat has not seen, consistent with what it
  has seen (its hand, the line, the tiles laid, every seat's tile count, and every knock: a seat
  that knocked holds no tile showing a pip it knocked on), kept from ``draws`` times as many in
  proportion to how likely each makes the other seats' lays of this hand: each lay read as the
  rollout policy's choice softened by ``read`` (chosen in proportion to exp(read x), x what the
  policy makes of it; zero: every consistent deal alike). Each legal move is played out in every
  world through the engine's hand (the hand so far replayed unscored, the move, then the rollout
  policy for every seat, scored by the engine) to the hand's end: a game won or lost in it is 1
  or 0, else the win table at the scores and the next leader. Every move meets the same worlds
  and the same rollout draws; from 32 worlds on, a move that trails the best by more than
  ``prune`` standard errors of the paired difference is dropped. The best mean is laid.

Fives and Threes asks one decision (``play``: a tile and an end); forced lays and knocks are the
engine's. It reads nothing but its observation (a test checks that its answers do not change
with the tiles it cannot see)."""

from __future__ import annotations

import hashlib
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, TypedDict, TypeGuard

import numpy as np
import numpy.typing as npt

from cribsim.errors import CribsimError
from cribsim.games.fives_threes.engine import Event, Game, GameOver, Observation, cancelled, lay, legal_moves
from cribsim.games.fives_threes.rules import DominoRules
from cribsim.games.fives_threes.strategy import TileStrategy, excluded, immediate, unseen
from cribsim.games.fives_threes.tiles import N_TILES
from cribsim.learnt import kept
from cribsim.params import Param
from cribsim.strategy import Models

MODEL_VERSION = 2
LEARN_HANDS = 3000  # hands played through the engine to learn a rule set's win table
SPAN = 150  # the win table's reach: distances to the target up to this (beyond: shifted into it)

Move = tuple[int, int]
Scored = tuple[int, int, bool]  # a scoring event: (seat counted from the hand's leader, points, on the lead)
Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
Reals = npt.NDArray[np.float64]
Bank = tuple[npt.NDArray[np.int8], Ints, Ints]  # a pair's events: who scored, 2 * points + lead, hands per column


# ---- the rollout policy --------------------------------------------------------------------

LINES = 14 * 14  # a line's two open ends, each a pip and whether a double lies there


def line_key(e0: int, d0: bool, e1: int, d1: bool) -> int:
    """The index of a line by its open ends (in either order)."""
    a, b = 2 * e0 + d0, 2 * e1 + d1
    return 14 * a + b if a <= b else 14 * b + a


class Uniform(Protocol):
    """A source of uniform draws in [0, 1) (``random.Random`` or :class:`Ties`)."""

    def random(self) -> float: ...


class Ties:
    """The rollouts' tie-breaks: a small linear congruential stream, restarted for each world so
    that every move meets the same draws (cheaper to restart than ``random.Random``)."""

    def __init__(self) -> None:
        self.state = 0

    def seed(self, seed: int) -> None:
        self.state = seed & 0x7FFFFFFF

    def random(self) -> float:
        self.state = (1103515245 * self.state + 12345) & 0x7FFFFFFF
        return self.state / 2147483648


class Policy:
    """The rollout policy of a rule set: the move that scores most now by the engine's count
    (:func:`~cribsim.games.fives_threes.strategy.immediate`: the points table, the domino point,
    the cancellations; a win above all), less ``weight`` times what the line it leaves gives
    the next lay (``reply``, by line: the points that lay scores, against us if another side's;
    learnt), ties at random."""

    def __init__(self, reply: Sequence[float], weight: float, rng: Uniform) -> None:
        self.reply, self.weight, self.rng = reply, weight, rng

    def __call__(self, obs: Observation) -> Move:
        best: list[Move] = []
        top = -math.inf
        reply, weight = self.reply, self.weight
        for m in obs.legal:
            pts, wins, ends, dbl = immediate(obs, m)
            v = 1e9 if wins else pts - weight * reply[line_key(ends[0], dbl[0], ends[1], dbl[1])] if weight else pts
            if v > top + 1e-9:
                best, top = [m], v
            elif v >= top - 1e-9:
                best.append(m)
        return best[0] if len(best) == 1 else best[int(self.rng.random() * len(best))]

    def worth(self, rules: DominoRules, ends: list[int], dbl: list[bool], laid: int, move: Move) -> float:
        """What the policy makes of ``move`` on a line, by its placement points alone (a lay of
        the past, the scores then not at hand)."""
        e, d = list(ends), list(dbl)
        pts = rules.points_table[lay(e, d, laid, move)]
        return pts - self.weight * self.reply[line_key(e[0], d[0], e[1], d[1])] if self.weight else float(pts)


GREEDY = (0.0,) * LINES  # no reply learnt yet: the points now alone


# ---- the engine's hand, scored or held ------------------------------------------------------

class _Hand(Game):
    """The engine's game, used for one hand at a time: its scoring events are scored (a world's
    rest of the hand), held (the hand so far, replayed) or kept as events (the learning)."""

    def __init__(self, rules: DominoRules, plays: Sequence[Callable[[Observation], Move]], seed: int = 0,
                 events: list[Event] | None = None) -> None:
        super().__init__(rules, [], seed, (0, 0), events=events, plays=plays)
        self.holding = False
        self.kept: list[Scored] | None = None

    def score(self, seat: int, placement: int, domino: int, hand_no: int, leader: int, is_lead: bool,
              note: str) -> None:
        if self.kept is not None:
            self.kept.append(((seat - leader) % self.n, placement + domino, is_lead))
        elif not self.holding:
            super().score(seat, placement, domino, hand_no, leader, is_lead, note)


def play_out(game: _Hand, hand_no: int, leader: int, dealt: list[list[int]] | None) -> int:
    """One hand through the engine from the tiles ``dealt`` (None: the engine deals); the side
    that won the game in it, or -1 (the hand ended: a domino or a block)."""
    try:
        for _ in game.play_hand(hand_no, leader, dealt):
            raise CribsimError("cribsim: adaptive: the engine's hand asked for a decision it had an answer for")
    except GameOver as over:
        return over.side
    return -1


def learn_reply(rules: DominoRules, hands: int, seed: int) -> list[float]:
    """What each line gives the next lay, from ``hands`` hands dealt by the engine and played
    through it by the points now alone: the mean points of the lay that follows (by the
    engine's count, against the side that left the line if another side's, for it if its own;
    nothing if the hand ended)."""
    rng = random.Random(seed)
    log: list[Event] = []
    game = _Hand(rules, [Policy(GREEDY, 0.0, rng)] * rules.players, seed, events=log)
    table, side_of = rules.points_table, rules.side_of
    sums, counts = [0.0] * LINES, [0] * LINES
    for k in range(hands):
        log.clear()
        game.kept = []
        play_out(game, k, 0, None)
        lays = [e for e in log if e.kind == "lay"]
        for i, e in enumerate(lays):
            key = line_key(*e.ends)
            counts[key] += 1
            if i + 1 < len(lays):
                nxt = lays[i + 1]
                sums[key] += table[nxt.total] if side_of[nxt.seat] != side_of[e.seat] else -table[nxt.total]
    return [round(x / c, 4) if c else 0.0 for x, c in zip(sums, counts)]


WEIGHTS = (0.25, 0.5, 0.75, 1.0)  # the reply's weights tried against the points now alone


def tune_weight(rules: DominoRules, reply: Sequence[float], deals: int, seed: int) -> float:
    """The weight of the reply that gains most: each deal played through the engine twice, once
    with side 0 weighing the reply and once with every seat on the points now alone, side 0's
    points less the others' mean compared; 0 if no weight gains."""
    rng = random.Random(seed)
    greedy = Policy(GREEDY, 0.0, rng)
    mine = rules.sides[0]

    def gain(weight: float) -> float:
        tuned = Policy(reply, weight, rng)
        game = _Hand(rules, [tuned if s in mine else greedy for s in range(rules.players)], seed)
        total = 0.0
        for k in range(deals):
            game.kept = []
            play_out(game, k, k % rules.players, None)
            total += _net(game.kept, rules, k % rules.players)
        return total / max(1, deals)
    base = gain(0.0)
    best, top = 0.0, base
    for w in WEIGHTS:
        g = gain(w)
        if g > top:
            best, top = w, g
    return best


def _net(events: Sequence[Scored], rules: DominoRules, leader: int) -> float:
    """Side 0's points in a hand's events less the other sides' mean."""
    got = [0.0] * len(rules.sides)
    for off, pts, _ in events:
        got[rules.side_of[(off + leader) % rules.players]] += pts
    return got[0] - (sum(got) - got[0]) / (len(got) - 1)


# ---- the win table of a rule set -------------------------------------------------------------

def learn_bank(rules: DominoRules, hands: int, seed: int, reply: Sequence[float] = GREEDY,
               weight: float = 0.0) -> list[list[Scored]]:
    """``hands`` hands dealt by the engine (its own addressed deals) and played through it by the
    rollout policy, every seat's: each hand's scoring events as the engine scored them."""
    game = _Hand(rules, [Policy(reply, weight, random.Random(seed))] * rules.players, seed)
    out = []
    for k in range(hands):
        game.kept = []
        play_out(game, k, 0, None)
        out.append(game.kept)
    return out


def counted(rules: DominoRules, span: int, top: int) -> Flags:
    """``ok[d, p, lead]``: whether an event of ``p`` points by a side ``d`` short of the target
    counts (on the lead or not), by the engine's own rule (``engine.cancelled``)."""
    ok = np.zeros((span + 1, top + 1, 2), dtype=bool)
    for d in range(1, span + 1):
        for p in range(top + 1):
            for lead in (0, 1):
                ok[d, p, lead] = not cancelled(rules, rules.target - d + p, bool(lead))
    return ok


def pair_events(rules: DominoRules, bank: Sequence[Sequence[Scored]], a: int, b: int,
                leader: int) -> Bank:
    """The bank's events of sides ``a`` (1) and ``b`` (2) with ``leader`` leading, as arrays
    (hand, event), the hands with most events first: who scored, the points and whether on
    the lead (the two packed as ``2 * points + lead``), and how many hands have an event in
    each column. Other sides' events are left out."""
    n, side_of = rules.players, rules.side_of
    rows = []
    for events in bank:
        row = []
        for off, points, on_lead in events:
            side = side_of[(off + leader) % n]
            if side in (a, b) and points:
                row.append((1 if side == a else 2, 2 * points + on_lead))
        rows.append(row)
    rows.sort(key=len, reverse=True)
    width = max(1, len(rows[0]) if rows else 0)
    who = np.zeros((len(rows), width), dtype=np.int8)
    key = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        for j, (w, k) in enumerate(r):
            who[i, j], key[i, j] = w, k
    used = np.array([sum(1 for r in rows if len(r) > j) for j in range(width)])
    return who, key, used


def _row(da: int, span: int, events: Bank, ok: Flags) -> tuple[npt.NDArray[np.int8], Ints, Ints]:
    """Every hand of the bank played on every state (``da``, db) for db = 1..span: (who won:
    0 nobody yet, 1 side a, 2 side b; a's distance after; b's distance after), (span, hands).
    An event counts where ``ok`` says (the engine's rule, by distance, points and lead)."""
    who, key, used = events
    hands = who.shape[0]
    ca = np.full((span, hands), da, dtype=np.int64)
    cb = np.repeat(np.arange(1, span + 1, dtype=np.int64)[:, None], hands, axis=1)
    res = np.zeros((span, hands), dtype=np.int8)
    flat = ok.reshape(span + 1, -1)
    for e in range(who.shape[1]):
        c = int(used[e])
        is_a = (who[:c, e] == 1)[None, :]
        sa, sb, r = ca[:, :c], cb[:, :c], res[:, :c]
        cur = np.where(is_a, sa, sb)
        k = key[:c, e][None, :]
        upd = (r == 0) & flat[np.clip(cur, 0, span), k]
        new = cur - np.where(upd, k >> 1, 0)
        np.copyto(sa, new, where=upd & is_a)
        np.copyto(sb, new, where=upd & ~is_a)
        np.copyto(r, np.where(is_a, 1, 2).astype(np.int8), where=upd & (new <= 0))
    return res, ca, cb


def pair_table(rules: DominoRules, bank: Sequence[Sequence[Scored]], a: int, b: int, span: int) -> Reals:
    """``V[da - 1, db - 1, leader]``: the chance that side ``a``, ``da`` short of the target,
    reaches it before side ``b``, ``db`` short, with ``leader`` to lead the next hand, hands
    drawn from the bank (the other sides' events left out); solved from the end of the game
    backwards, row by row of ``da``, a hand that changes neither score passing the lead on."""
    n = rules.players
    top = max((p for hand in bank for _, p, _ in hand), default=0)
    ok = counted(rules, span, top)
    events = [pair_events(rules, bank, a, b, lead) for lead in range(n)]
    V = np.zeros((span, span, n))
    for da in range(1, span + 1):
        A, M = _row_terms(da, span, events, ok, V)
        for j in range(span):
            V[da - 1, j] = _cycle([A[lead, j] + M[lead, j, :j] @ V[da - 1, :j, (lead + 1) % n] for lead in range(n)],
                                  [M[lead, j, j] for lead in range(n)])
    return V


def _row_terms(da: int, span: int, events: Sequence[Bank], ok: Flags, V: Reals) -> tuple[Reals, Reals]:
    """For the row ``da``, each leader and each db: ``A``, the chance side a wins in the hand
    plus the values of the rows already solved that the hand leads to; ``M[db, db']``, the
    chance the hand leaves side a where it is and side b at db' (the next leader's values of
    this row, solved in order of db)."""
    n = len(events)
    hands = max(1, events[0][0].shape[0])  # (the bank's size)
    A = np.zeros((n, span))
    M = np.zeros((n, span, span))
    at = np.arange(span)[:, None] * span
    for lead in range(n):
        res, ca, cb = _row(da, span, events[lead], ok)
        cont = res == 0
        done = cont & (ca < da)
        later = V[np.clip(ca - 1, 0, span - 1), np.clip(cb - 1, 0, span - 1), (lead + 1) % n]
        A[lead] = (np.count_nonzero(res == 1, axis=1) + np.where(done, later, 0.0).sum(axis=1)) / hands
        here = cont & (ca == da)
        M[lead] = np.bincount((at + cb - 1)[here], minlength=span * span).reshape(span, span) / hands
    return A, M


def _cycle(A: Sequence[float], P: Sequence[float]) -> list[float]:
    """The values ``V[l] = A[l] + P[l] * V[l + 1]`` around the circle of leaders (a hand
    that changes nothing passes the lead); 0.5 where nothing ever changes."""
    n = len(A)
    num, carry = 0.0, 1.0
    for i in range(n):
        num += carry * A[i]
        carry *= P[i]
    if carry > 1 - 1e-12:
        return [0.5] * n
    out = [0.0] * n
    out[0] = num / (1 - carry)
    nxt = out[0]
    for i in range(n - 1, 0, -1):
        out[i] = A[i] + P[i] * nxt
        nxt = out[i]
    return out


class Model(TypedDict):
    """A rule set's model as kept on disk (JSON): its key and version, the win table's reach and
    seats, a flat table per pair of sides (``"a-b"``), and the rollout policy's reply and weight."""

    key: str
    version: int
    span: int
    seats: int
    pairs: dict[str, list[float]]
    reply: list[float]
    weight: float


def learn(rules: DominoRules, hands: int = LEARN_HANDS, seed: int = 39, progress: bool = False) -> Model:
    """The model of ``rules`` (see the module doc): the rollout policy's reply by line and its
    weight, and the win table, a table per pair of sides, each a flat list over (a's distance,
    b's distance, leader)."""
    t0 = time.time()
    reply = learn_reply(rules, hands, seed)
    weight = tune_weight(rules, reply, hands, seed + 1)
    if progress:
        print(f"cribsim: adaptive: {rules.name}: the rollout policy learnt (reply weight {weight}; "
              f"{time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    bank = learn_bank(rules, hands, seed + 2, reply, weight)
    span = min(rules.target, SPAN)
    k = len(rules.sides)
    pairs = {}
    for a in range(k):
        for b in range(a + 1, k):
            V = pair_table(rules, bank, a, b, span)
            pairs[f"{a}-{b}"] = [round(float(v), 5) for v in V.ravel()]
            if progress:
                print(f"cribsim: adaptive: {rules.name}: the win table of sides {a} and {b} learnt "
                      f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return {"key": "", "version": MODEL_VERSION, "span": span, "seats": rules.players, "pairs": pairs, "reply": reply,
            "weight": weight}


def model_key(rules: DominoRules, hands: int) -> str:
    """What a model is kept under: the rules' fingerprint, this module's model version and the
    learning budget."""
    return hashlib.sha256(f"fives_threes|{rules.fingerprint()}|{MODEL_VERSION}|{hands}".encode()).hexdigest()[:20]


_MODELS: dict[str, WinTable] = {}  # this process's tables by key (read or learnt once)


def _valid(model: object, key: str, rules: DominoRules) -> TypeGuard[Model]:
    if not (isinstance(model, dict) and model.get("key") == key and model.get("version") == MODEL_VERSION
            and model.get("span") == min(rules.target, SPAN) and model.get("seats") == rules.players
            and isinstance(model.get("pairs"), dict)):
        return False
    k, size = len(rules.sides), model["span"] ** 2 * rules.players
    want = {f"{a}-{b}" for a in range(k) for b in range(a + 1, k)}
    pairs, reply = model["pairs"], model.get("reply")
    if not (isinstance(reply, list) and len(reply) == LINES and all(isinstance(x, (int, float)) for x in reply)
            and model.get("weight") in (0.0, *WEIGHTS)):
        return False
    return set(pairs) == want and all(
        isinstance(v, list) and len(v) == size and all(isinstance(x, (int, float)) and 0 <= x <= 1 for x in v)
        for v in pairs.values())


def model_for(rules: DominoRules, hands: int = LEARN_HANDS) -> WinTable:
    """The win table of ``rules``: learnt once per rule set (a progress line on stderr) and kept
    in the cache folder; a damaged or stale file is learnt again."""
    key = model_key(rules, hands)
    got = _MODELS.get(key)
    if got is not None:
        return got
    model = kept(f"ft-adaptive-{key}.json", lambda got: _valid(got, key, rules), lambda: _learnt(rules, key, hands),
                 f"adaptive is learning what {rules.name}'s board is worth through the engine (once per rule set, "
                 f"{hands} hands played; seconds to a minute on one core)")
    table = _MODELS[key] = WinTable(rules, model)
    return table


def _learnt(rules: DominoRules, key: str, hands: int) -> Model:
    model = learn(rules, hands, progress=True)
    model["key"] = key
    return model


class WinTable:
    """A rule set's model: its win table (the chance each side wins the game from the scores and
    the seat to lead the next hand) and its rollout policy's reply and weight."""

    def __init__(self, rules: DominoRules, model: Model) -> None:
        self.target, self.span, self.seats = rules.target, int(model["span"]), rules.players
        self.sides = len(rules.sides)
        self.pairs = {tuple(int(x) for x in k.split("-")): v for k, v in model["pairs"].items()}
        self.reply: list[float] = [float(x) for x in model["reply"]]
        self.weight = float(model["weight"])

    def pair(self, a: int, b: int, scores: Sequence[int], leader: int) -> float:
        """The chance side ``a`` reaches the target before side ``b``."""
        if a > b:
            return 1.0 - self.pair(b, a, scores, leader)
        da, db = self.target - scores[a], self.target - scores[b]
        shift = max(0, min(da, db) - self.span)  # both beyond the table's reach: kept apart as they are
        da, db = min(da - shift, self.span), min(db - shift, self.span)
        return float(self.pairs[(a, b)][((da - 1) * self.span + db - 1) * self.seats + leader])

    def chance(self, side: int, scores: Sequence[int], leader: int) -> float:
        """The chance ``side`` wins: each side's chance of beating every other (the pairs'),
        taken together and shared out (with two sides, the pair's own)."""
        k = self.sides
        each = [math.prod(self.pair(i, j, scores, leader) for j in range(k) if j != i) for i in range(k)]
        total = sum(each)
        return each[side] / total if total > 0 else 1.0 / k


# ---- a decision: worlds, read, searched through the engine ---------------------------------

class Worlds:
    """Deals of the tiles a seat has not seen, consistent with what it has seen: each other
    seat's tile count, no tile showing a pip it knocked on, the tiles it laid this hand; each
    weighted by the chance of that seat's lays this hand under the rollout policy softened by
    ``read`` (a lay the policy values at x, points now less the weighed reply, chosen in
    proportion to exp(read * x))."""

    def __init__(self, obs: Observation, rng: random.Random, read: float, policy: Policy) -> None:
        self.obs, self.rng, self.read, self.policy = obs, rng, read, policy
        n = obs.players
        self.others = [s for s in range(n) if s != obs.seat and obs.counts[s] > 0]
        self.bars = {s: excluded(obs, s) for s in self.others}
        self.others.sort(key=lambda s: -len(self.bars[s]))  # the most constrained first
        self.pool = unseen(obs)
        self.allowed = {s: [t for t in self.pool if t not in self.bars[s]] for s in self.others}
        self.laid: list[list[int]] = [[] for _ in range(n)]
        for s, t, _ in obs.played:
            self.laid[s].append(t)
        self.mine = list(obs.hand) + self.laid[obs.seat]
        self.lays = self._lays() if read > 0 else []

    def _lays(self) -> list[tuple[int, int, Move, list[int], list[bool], int, dict[Move, float]]]:
        """The other seats' lays this hand: (seat, how many tiles it had laid before, move, ends,
        dbl, tiles laid before, and every move's odds on that line: exp(read * x), x what the
        rollout policy makes of it)."""
        obs = self.obs
        ends, dbl = [0, 0], [False, False]
        out = []
        every = list(range(N_TILES))
        before = [0] * obs.players
        for k, (s, t, e) in enumerate(obs.played):
            if s != obs.seat:
                pts = {m: self.policy.worth(obs.rules, ends, dbl, k, m) for m in legal_moves(every, ends, dbl, k)}
                top = max(pts.values())
                odds = {m: math.exp(self.read * (v - top)) for m, v in pts.items()}
                out.append((s, before[s], (t, e), list(ends), list(dbl), k, odds))
            before[s] += 1
            lay(ends, dbl, k, (t, e))
        return out

    def deal(self, tries: int = 50) -> list[list[int]]:
        """Every seat's tiles at the hand's start in one world (its hand now and what it laid)."""
        obs, sample = self.obs, self.rng.sample
        for _ in range(tries):
            free = set(self.pool)
            dealt = [self.mine if s == obs.seat else list(self.laid[s]) for s in range(obs.players)]
            for s in self.others:
                allowed = [t for t in self.allowed[s] if t in free]
                need = obs.counts[s]
                if len(allowed) < need:
                    break
                took = sample(allowed, need)
                dealt[s][:0] = took
                free.difference_update(took)
            else:
                return dealt
        raise CribsimError(f"cribsim: adaptive: no deal of the unseen tiles agrees with seat {obs.seat}'s view "
                           f"in {tries} tries")

    def weight(self, dealt: list[list[int]]) -> float:
        """The chance of the other seats' lays this hand in this world, under the reading."""
        w = 1.0
        for s, nth, move, ends, dbl, laid, odds in self.lays:
            later = self.laid[s]
            held = dealt[s][:len(dealt[s]) - len(later)] + later[nth:]
            legal = legal_moves(held, ends, dbl, laid)
            if len(legal) > 1:
                w *= odds[move] / sum(odds[m] for m in legal)
        return w

    def draw(self, worlds: int, draws: int) -> list[list[list[int]]]:
        """``worlds`` deals: ``worlds * draws`` drawn, kept in proportion to their weights
        (systematic resampling; every deal alike without a reading)."""
        if not self.lays or draws == 1:
            return [self.deal() for _ in range(worlds)]
        pool = [self.deal() for _ in range(worlds * draws)]
        weights = [self.weight(d) for d in pool]
        total = sum(weights)
        if total <= 0:
            return pool[:worlds]
        step = total / worlds
        at, acc = self.rng.random() * step, 0.0
        out: list[list[list[int]]] = []
        for d, w in zip(pool, weights):
            acc += w
            while at < acc and len(out) < worlds:
                out.append(d)
                at += step
        return out


class Search:
    """One decision's rollouts through the engine's own hand: in a world, the hand so far is
    replayed unscored, the move laid, then every seat plays the rollout policy, the engine
    scoring, to the hand's end."""

    def __init__(self, obs: Observation, table: WinTable, reply: bool = True) -> None:
        self.obs, self.table, self.rng = obs, table, Ties()
        self.policy = Policy(table.reply, table.weight if reply else 0.0, self.rng)
        self.history = [(t, e) for _, t, e in obs.played]
        self.game = _Hand(obs.rules, [self._answer] * obs.rules.players)
        self.move: Move = obs.legal[0]

    def _answer(self, view: Observation) -> Move:
        k = len(view.played)
        if k < len(self.history):
            return self.history[k]
        if k == len(self.history):
            self.game.holding = False
            return self.move
        return self.policy(view)

    def value(self, dealt: Sequence[Sequence[int]], move: Move, seed: int) -> float:
        """The chance the seat's side wins the game after ``move`` in this world: 1 or 0 if the
        game ends in the hand, else the win table at the hand's end."""
        obs, g = self.obs, self.game
        g.holding = True
        g.scores = list(obs.scores)
        self.move = move
        self.rng.seed(seed)
        won = play_out(g, obs.hand_no, obs.leader, [list(h) for h in dealt])
        if won >= 0:
            return 1.0 if won == obs.side else 0.0
        return self.table.chance(obs.side, g.scores, (obs.leader + 1) % obs.players)


PRUNE_FROM, PRUNE_EVERY = 32, 16


def trailing_dropped(values: Sequence[Sequence[float]], alive: list[int], z: float) -> list[int]:
    """The moves of ``alive`` (each valued in the same worlds so far) whose mean paired
    difference to the best's is not below zero by more than ``z`` standard errors."""
    n = len(values[alive[0]])
    best = max(alive, key=lambda i: sum(values[i]))
    top = values[best]
    kept = []
    for i in alive:
        d = [a - b for a, b in zip(values[i], top)]
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / (n - 1)
        if i == best or mean + z * math.sqrt(var / n) >= 0:
            kept.append(i)
    return kept


class AdaptiveTiles(TileStrategy):
    name = "adaptive"
    models = Models("it learns what the board is worth from hands played through the engine", everything=True)
    params: ClassVar[tuple[Param, ...]] = (
        Param("worlds", int, 96, "deals of the unseen tiles searched per decision", lo=1, hi=100_000),
        Param("read", float, 1.0, "how sharply the other seats' lays this hand weigh a deal (0: every consistent "
              "deal alike)", lo=0, hi=10),
        Param("draws", int, 4, "deals drawn per deal searched, kept by the reading's weights", lo=1, hi=1000),
        Param("prune", float, 3.0, "a move is dropped from the search once it trails the best by more than this "
              "many standard errors, paired over the same worlds (0: every move in every world)", lo=0, hi=100),
        Param("reply", bool, True, "the rollout policy weighs the learnt reply (false: the points now alone)"),
        Param("learn_hands", int, LEARN_HANDS, "hands played through the engine to learn a rule set's win table",
              lo=10, hi=1_000_000),
    )

    def __init__(self, rng: random.Random, worlds: int = 96, read: float = 1.0, draws: int = 4, prune: float = 3.0,
                 reply: bool = True, learn_hands: int = LEARN_HANDS) -> None:
        super().__init__(rng)
        self.worlds, self.read, self.draws, self.learn_hands = worlds, read, draws, learn_hands
        self.prune, self.reply = prune, reply
        self._tables: dict[DominoRules, WinTable] = {}

    @classmethod
    def prepare_rules(cls, rules: DominoRules, params: dict[str, Any]) -> None:
        """Before it plays a rule set (untimed): its win table, learnt through the engine once and
        kept on disk (read back in well under a second)."""
        model_for(rules, params.get("learn_hands", LEARN_HANDS))

    @classmethod
    def notes(cls, rules: DominoRules, params: dict[str, Any]) -> list[str]:
        return ["values the board by a win table learnt from hands played through the engine under these rules"]

    def table(self, rules: DominoRules) -> WinTable:
        got = self._tables.get(rules)
        if got is None:
            got = self._tables[rules] = model_for(rules, self.learn_hands)
        return got

    def play(self, obs: Observation) -> Move:
        """Every legal move valued in the same worlds with the same rollout draws; from
        ``PRUNE_FROM`` worlds on, every ``PRUNE_EVERY``, a move that trails the best by more than
        ``prune`` standard errors of the paired difference is dropped; the best mean is laid."""
        moves = obs.legal
        table = self.table(obs.rules)
        search = Search(obs, table, self.reply)
        values: list[list[float]] = [[] for _ in moves]
        alive = list(range(len(moves)))
        for w, dealt in enumerate(Worlds(obs, self.rng, self.read, search.policy).draw(self.worlds, self.draws)):
            seed = self.rng.getrandbits(32)
            for i in alive:
                values[i].append(search.value(dealt, moves[i], seed))
            if self.prune and len(alive) > 1 and w + 1 >= PRUNE_FROM and (w + 1) % PRUNE_EVERY == 0:
                alive = trailing_dropped(values, alive, self.prune)
        means = {i: sum(values[i]) / len(values[i]) for i in alive}
        best = max(means.values())
        tied = [moves[i] for i in alive if means[i] >= best - 1e-9]
        return tied[int(self.rng.random() * len(tied))]
