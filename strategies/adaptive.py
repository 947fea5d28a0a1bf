"""``adaptive``: plays every rule set, a designer's own variants included, from what the engine
tells it and nothing else (issue 39): no rule is special-cased and no value assumes a scoring.

What a hand and a crib are worth comes from the engine's own show code
(:class:`cribsim.games.cribbage.engine.rollout.ShowCount`: the rules' count, a variant's
``count_hand`` and every ``after_count`` hook take part, so a crib that counts three times, a
hand under four that scores nothing or a dealer's hand that counts double are all learnt):

- **Prepared once per rule set** (:meth:`AdaptiveStrategy.prepare_rules`, outside any time
  limit, kept on disk under the rules' fingerprint and their variants' source): a crib table.
  Deals are dealt, discarded, played out and shown through the engine (:func:`learn`), the
  players discarding by this module's own discard value (the exact awarded hand over the
  starters, plus the previous iteration's crib table); from their cribs and starters, the
  expected points the crib awards its owner's side (less the others') when a player of each
  role (its side owns the crib, or not) throws each rank pair, suited or not (each single rank
  where one card is thrown): every cell counted on the same deals (common random numbers)
  through the engine's crib count. Two iterations. Then, for two players dealt six, a pegging
  table (:func:`learn_pegs`): what a keep pegs (its side's points in the play less the
  other's) by its four ranks and the keeper's role, from 500 plays a cell rolled out through
  the engine's play, the other player's six read as it would keep them by the crib table. And
  for two players whose deal asks nothing after the discard but the play (a variant's own
  decision before it, the pone's offer of the crib, allowed, where ``ev`` can answer it or it
  has a default), a board table: the
  dealer's chance to win from every pair of scores, from 21,000 games of ``ev`` against ``ev``
  under these rules (:func:`strategies.boardtable.learn`, the shipped standard table's method).
- **Discard**: for every legal keep, the expected points its count awards our side (less the
  others') over every starter it has not seen, each counted by the engine with the real
  dealer, crib owner and scores; plus the learnt crib value of the cards thrown (ours, or
  against us) and the learnt pegging of the keep; then, for the best few the table leaves
  within ``table_margin`` (``discard_margin`` without a table), the pegging of plays rolled out
  through the engine's play (``mc``'s), the other player's four drawn as it would keep them
  from six, in place of the table's. Where the native lane plays the rules, the counts are the
  lane's copy of the show code and the rollouts one call to it (the same numbers, tests hold
  both).
- **Near the end** of a two-player game (a side within ``board_from`` of its target): the
  best keeps and every distinct card valued by the chance to win on the learnt board
  (``expert``'s play to the board, :class:`strategies.expert.Board`).
- **Play**: ``expert``'s search: worlds drawn from what the seat has seen (hand sizes, every go
  said), the other player's hand read as it would have kept it and played it so far, each
  card rolled out to the end of the play on the engine's play phase (in the compiled lane
  wherever it plays the rules, a designer's ``after_count`` hook included: a play runs no
  such hook). The other player is read as a player who values the crib by the learnt table
  and plays by ``ev``'s one-ply rule (the same stand-in ``expert`` reads by): a model of the
  opponent, not of the rules.
- **Every other decision** (a bid, Canadian doubles' passes, two against one's inspection, an
  outside module's own such as ``take_crib``): each legal answer (at most ``candidates``) is
  valued by simulation: ``worlds`` deals that agree with what the seat holds (the other
  seats' cards drawn from those it has not seen, placed where the rules' own deal puts them),
  each run through the engine to the end of the deal with that answer, the points our side
  gains less the others' averaged; the same worlds for every answer. Never the decision's
  default (``decides_any``: the engine asks :meth:`AdaptiveStrategy.decide` before any
  default). Inside the simulations every seat (ours after this answer too) plays ``ev``'s
  rules: a quick stand-in whose choices matter less than the engine's count of what follows.

It reads nothing but its observation (a test checks that its answers do not change with the
cards it cannot see)."""

from __future__ import annotations

import copy
import hashlib
import inspect
import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from cribsim.errors import ConfigError, IllegalMove
from cribsim.games.cribbage.engine.rollout import PlayRollout, ShowCount
from cribsim.games.cribbage.engine.state import INF, GameOver, GameState
from cribsim.games.cribbage.native import lane
from cribsim.games.cribbage.native.lane import EvValues
from cribsim.games.cribbage.strategy import allowed_keeps
from cribsim.learnt import kept
from cribsim.params import Param
from cribsim.ruleset import told_rules
from cribsim.strategy import Models
from strategies import boardtable
from strategies.ev import HOLD_COL, JOKER_CRIB, JOKER_KEEP, PAIRS, EVStrategy
from strategies.expert import Board, ReadingMC
from strategies.mc import sampler
from strategies.pegtable import cells as peg_cells

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation

MODEL_VERSION = 6  # 5: a board too where a variant asks its own decision before the discard (the pone's crib);
# 6: none where a deal can take points back (the auction's bid: 5 learnt its board from the few deals without)
ADAPTIVE = Models("it learns what every rule is worth from the engine itself", everything=True)

LEARN_DEALS = 3000  # deals played through the engine per iteration of the crib table
LEARN_SAMPLES = 6000  # cribs counted per cell and role
LEARN_COUNTS = 4_200_000  # at most this many counts of a hand by the simulated players per iteration (big deals)
BOARD_GAMES = 7  # games of ev against ev per learning deal (21,000 at the default) whose deals give the board table
# The pegging table: PEG_HANDS hands of ours a cell and role, each rolled out learn_samples // PEG_SHARE times (500 a
# cell at the default); a budget under PEG_SHARE cribs a cell learns none (the discard then rolls out its best keeps)
PEG_HANDS = 4
PEG_SHARE = 48


def _rank(c: int) -> int:
    return c >> 2 if c < 52 else 13  # 13: a wild card


def cell(thrown: Sequence[int]) -> str | None:
    """The crib table's cell of a throw: its ranks (and whether two are suited), or None for
    a throw the table does not split (three cards or more: the role's mean)."""
    if len(thrown) == 1:
        return str(_rank(thrown[0]))
    if len(thrown) == 2:
        a, b = sorted(thrown, key=_rank)
        suited = a < 52 and b < 52 and a & 3 == b & 3
        return f"{_rank(a)}-{_rank(b)}{'s' if suited else ''}"
    return None


def _cell_cards(deck_size: int) -> dict[str, list[tuple[int, ...]]]:
    """Every cell of one and two cards, with the concrete throws it stands for."""
    out: dict[str, list[tuple[int, ...]]] = {}
    for c in range(deck_size):
        out.setdefault(cell((c,)) or "", []).append((c,))
    for pair in combinations(range(deck_size), 2):
        out.setdefault(cell(pair) or "", []).append(pair)
    return out


def net(points: Sequence[int], side: int) -> float:
    """What points awarded to every side are worth to ``side``: its own less the others' mean."""
    k = len(points)
    if k < 2:
        return float(points[side])
    return points[side] - (sum(points) - points[side]) / (k - 1)


# ---- the model of a rule set --------------------------------------------------------------

def model_key(rules: Any, deals: int, samples: int) -> str:
    """What a model is kept under: the rules' fingerprint, the source of every variant module
    they load (a designer who edits a hook gets a new model) and the learning budget."""
    h = hashlib.sha256(f"{rules.fingerprint()}|{MODEL_VERSION}|{deals}|{samples}".encode())
    for v in rules.modules:
        try:
            path = inspect.getsourcefile(v)
            h.update(Path(path).read_bytes() if path else v.__qualname__.encode())
        except (OSError, TypeError):
            h.update(v.__qualname__.encode())
    return h.hexdigest()[:20]


_MODELS: dict[str, dict[str, Any]] = {}  # this process's models by key (read or learnt once)


def _valid(model: Any, key: str) -> bool:
    return (isinstance(model, dict) and model.get("key") == key and model.get("version") == MODEL_VERSION
            and all(isinstance(model.get(r), dict) for r in ("own", "opp", "mean"))
            and all(isinstance(v, (int, float)) for r in ("own", "opp") for v in model[r].values())
            and _board_valid(model.get("board", False)) and _pegs_valid(model.get("pegs", False)))


def _pegs_valid(pegs: Any) -> bool:
    """A pegging table (a value per cell, by role) or None (the rules have none)."""
    n = len(peg_cells())
    return pegs is None or (isinstance(pegs, dict) and set(pegs) == {"dealer", "pone"} and all(
        isinstance(v, list) and len(v) == n and all(isinstance(x, (int, float)) for x in v) for v in pegs.values()))


def _board_valid(board: Any) -> bool:
    """A board table (rows of chances, as many as columns) or None (the rules have none)."""
    return board is None or (isinstance(board, list) and all(
        isinstance(row, list) and len(row) == len(board) and all(isinstance(v, (int, float)) for v in row)
        for row in board))


def model_for(rules: Any, deals: int = LEARN_DEALS, samples: int = LEARN_SAMPLES) -> dict[str, Any]:
    """The crib table of ``rules``: learnt once per rule set (a progress line on stderr) and
    kept in the cache folder; a damaged or stale file is learnt again."""
    key = model_key(rules, deals, samples)
    model = _MODELS.get(key)
    if model is not None:
        return model
    model = kept(f"adaptive-{key}.json", lambda got: _valid(got, key), lambda: _learnt(rules, key, deals, samples),
                 f"adaptive is learning what {rules.name}'s show is worth through the engine (once per rule set, "
                 "a minute or a few on one core)")
    _MODELS[key] = model
    return model


def _learnt(rules: Any, key: str, deals: int, samples: int) -> dict[str, Any]:
    """The model of ``rules`` learnt afresh: its crib table, then (two players dealt six)
    its pegging table and its board."""
    model = learn(rules, deals, samples, progress=True)
    t0 = time.time()
    model["pegs"] = learn_pegs(rules, model, samples // PEG_SHARE) if samples >= PEG_SHARE else None
    if model["pegs"] is not None:
        print(f"cribsim: adaptive: {rules.name}: its pegging table learnt ({time.time() - t0:.0f} s)",
              file=sys.stderr, flush=True)
    t0 = time.time()
    model["board"] = boardtable.learn(rules, BOARD_GAMES * deals, seed=39)
    if model["board"] is not None:
        print(f"cribsim: adaptive: {rules.name}: its board table learnt from {BOARD_GAMES * deals} games "
              f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    model["key"], model["version"] = key, MODEL_VERSION
    return model


_BELIEFS: dict[tuple[str, int], tuple[Any, Any]] = {}  # (believed, id of the rules played) -> (those, believed)


def belief(ref: str, rules: Any) -> Any:
    """The rules ``ref`` names (loaded once), for a player of ``rules`` told them instead: they
    must ask the same decisions of the same number of players, or a one-line error."""
    key = (ref, id(rules))
    got = _BELIEFS.get(key)
    if got is None or got[0] is not rules:
        told = told_rules(ref)
        if told.players != rules.players or set(told.program.decisions) != set(rules.program.decisions):
            raise ConfigError(ref, "believes", f"adaptive cannot play {rules.name} as if it were these rules: they "
                              f"do not ask the decisions {rules.name} asks of {rules.players} players")
        got = _BELIEFS[key] = (rules, told)
    return got[1]


def reads(rules: Any) -> bool:
    """Whether the discard's rollouts read the other player's hand as ``ev`` would keep it, and
    a pegging table is learnt: two players dealt six, keeping four, no discard rule, the
    standard deck and objective."""
    return (rules.players == 2 and rules.deal == rules.dealer_deal == 6
            and rules.discard == rules.dealer_discard == 2 and rules.deck_size == 52
            and rules.program.hooks.discard_rule is None and rules.objective > 0)


def learn_pegs(rules: Any, model: dict[str, Any], rollouts: int) -> dict[str, list[float]] | None:
    """What a keep pegs under ``rules``, by its four ranks and the keeper's role (dealer or
    pone; None where :func:`reads` does not hold): for each cell, ``PEG_HANDS`` hands of six
    (the cell's ranks in random suits and two cards thrown at random), each with ``rollouts``
    draws of the other player's six, read and kept by the crib table just learnt, and the play
    rolled out through the engine's play (:meth:`AdaptiveStrategy._pegs`: in the lane where it
    plays the rules); the keeper's pegging less the other's, averaged. Every cell of a role
    draws from the same seeds (common random numbers)."""
    if not reads(rules):
        return None
    player = AdaptiveStrategy(random.Random(0), discard_rollouts=rollouts)
    player.use_model(rules, model)
    out: dict[str, list[float]] = {}
    for role, dealer in (("dealer", 0), ("pone", 1)):
        obs = GameState(rules, 39, (0, 0), dealer).start().observation(0)
        out[role] = [_cell_pegs(player, obs, ranks, role) for ranks in peg_cells()]
    return out


def _cell_pegs(player: AdaptiveStrategy, obs: Observation, ranks: Sequence[int], role: str) -> float:
    """:func:`learn_pegs`' value of one cell and role."""
    total = 0
    for h in range(PEG_HANDS):
        rng = random.Random(f"pegs-{role}-{h}")
        keep = [r * 4 + s for r in sorted(set(ranks)) for s in rng.sample(range(4), ranks.count(r))]
        rest = [c for c in range(52) if c not in keep]
        thrown = rng.sample(rest, 2)
        obs.hand = tuple(keep + thrown)
        player.rng = rng
        total += player._top_pegs(obs, [(0.0, tuple(keep), thrown)])[0]
    return total / (PEG_HANDS * player.discard_rollouts)


class _Learner:
    """The simulated players of :func:`learn`: discards by this module's value (the awarded
    hand over every starter, plus the crib table so far), the play by ``ev``'s one-ply
    rule, a variant's decisions at random among the legal answers."""

    def __init__(self, rules: Any, rng: random.Random, model: dict[str, Any] | None) -> None:
        self.rules, self.rng, self.model = rules, rng, model
        self.counter = ShowCount(rules)
        self.packed = lane.pack_rules(rules) if lane.rollouts_for(rules) else None  # (its games are each a game 0)
        self.ev = EVStrategy(random.Random(rng.getrandbits(32)))

    def discard(self, obs: Observation) -> list[int]:
        hand = obs.hand
        starters = [c for c in range(obs.rules.deck_size) if c not in hand]
        mine = obs.side_of[obs.crib_owner] == obs.side
        best, choice = None, None
        values = hand_values(self.counter, obs, starters, self.packed)
        for keep, thrown in allowed_keeps(obs):
            v = values[keep] + crib_value(self.model, thrown, mine)
            v *= obs.rules.objective
            if best is None or v > best:
                best, choice = v, thrown
        assert choice is not None
        return choice

    def answers(self) -> dict[str, list[Callable[[Any], Any]]]:
        n = self.rules.players
        out: dict[str, list[Callable[[Any], Any]]] = {}
        for name, d in self.rules.program.decisions.items():
            if name == "discard":
                fn: Callable[[Any], Any] = self.discard
            elif name == "play":
                fn = self.ev.play
            else:
                fn = self.at_random(d.legal)
            out[name] = [fn] * n
        return out

    def at_random(self, legal: Callable[[Any], list[Any]]) -> Callable[[Any], Any]:
        """A variant's decision while learning: any legal answer (so every branch is seen)."""
        return lambda obs: self.rng.choice(legal(obs))


def hand_values(counter: ShowCount, obs: Observation, starters: Sequence[int],
                packed: bytes | None) -> dict[tuple[int, ...], float]:
    """:func:`hand_value` of every legal keep of ``obs.hand``: counted in the native lane
    (``packed``: the rules as it reads them, for the game being played) where it counts these
    rules as the engine does (:func:`lane.rollouts_for`; a test holds the two counts equal),
    else through the engine."""
    keeps = [keep for keep, _ in allowed_keeps(obs)]
    if packed is None:
        return {keep: hand_value(counter, obs, keep, starters) for keep in keeps}
    hand, size = tuple(obs.hand), len(obs.hand) - obs.discards
    scores = obs.scores or [0] * counter.sides
    means = lane.show_values(packed, hand, size, starters, obs.seat, obs.dealer, obs.crib_owner, scores)
    every = dict(zip(combinations(hand, size), means))
    return {keep: every[keep] for keep in keeps}


def hand_value(counter: ShowCount, obs: Observation, keep: Sequence[int], starters: Sequence[int]) -> float:
    """The mean over ``starters`` of what counting ``keep`` as ``obs.seat``'s hand awards its
    side (less the others), through the engine, at the real dealer, crib owner and scores."""
    me, side, dealer, owner, scores = obs.seat, obs.side, obs.dealer, obs.crib_owner, obs.scores or None
    count = counter.count
    total = 0.0
    for s in starters:
        total += net(count(me, keep, s, dealer=dealer, crib_owner=owner, scores=scores), side)
    return total / max(1, len(starters))


def crib_value(model: dict[str, Any] | None, thrown: Sequence[int], mine: bool) -> float:
    """The learnt crib value of ``thrown`` for the thrower's side: what the crib awards its
    owner's side (less the others'), added when our side owns it, subtracted when not."""
    if model is None or not thrown:
        return 0.0
    role = "own" if mine else "opp"
    k = cell(thrown)
    v = model[role].get(k) if k is not None else None
    if v is None:
        v = model["mean"].get(role, 0.0)
    return float(v) if mine else -float(v)


def learn(rules: Any, deals: int = LEARN_DEALS, samples: int = LEARN_SAMPLES, iterations: int = 2,
          progress: bool = False, seed: int = 39) -> dict[str, Any]:
    """The crib table of ``rules`` (see the module doc): ``iterations`` rounds of ``deals``
    deals through the engine and ``samples`` cribs counted per cell and role."""
    rng = random.Random(seed)
    model: dict[str, Any] | None = None
    t0 = time.time()
    deals = min(deals, max(50, LEARN_COUNTS // max(1, counts_per_deal(rules))))
    for it in range(iterations):
        bank = _bank(rules, deals, rng, model)
        model = _table(rules, bank, samples, rng)
        if progress:
            print(f"cribsim: adaptive: {rules.name}: iteration {it + 1} of {iterations} learnt "
                  f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    assert model is not None
    return model


def counts_per_deal(rules: Any) -> int:
    """How many hands the simulated players of a deal count (every keep of every seat that
    discards, with every starter): what a deal of the learning costs, to cap the deals of rules
    with big hands so that a new rule set is learnt in minutes."""
    out = 0
    for s in range(rules.players):
        dealt = rules.dealer_deal if s == 0 else rules.deal
        thrown = rules.dealer_discard if s == 0 else rules.discard
        if thrown:
            out += comb(dealt, thrown) * (rules.deck_size - dealt)
    return out


def _bank(rules: Any, deals: int, rng: random.Random, model: dict[str, Any] | None) -> list[tuple[Any, ...]]:
    """``deals`` deals dealt, discarded, played and shown through the engine: for each, its
    dealer, crib owner, scores at its start, starter, crib, and every seat's throw."""
    learner = _Learner(rules, rng, model)
    asks = learner.answers()
    n = rules.players
    out = []
    for k in range(deals):
        sides = len(rules.sides)
        scores = [rng.randrange(0, max(1, int(min(rules.target, 10_000)) - 20)) for _ in range(sides)]
        deal_no = rng.randrange(0, 12)
        g = GameState(rules, rng.getrandbits(63), (k, 0), k % n, deal_no=deal_no, scores=scores,
                      until_deal=deal_no)
        g.scores = list(scores)[:len(g.sides)] + [0] * max(0, len(g.sides) - len(scores))
        start = tuple(g.scores)
        g.targets = g.game_targets = (INF,) * len(g.sides)
        try:
            g.run(asks)
        except (GameOver, IllegalMove):
            continue
        if g.starter is None or not g.crib:
            continue
        thrown = tuple((s, tuple(g.obs[s].discarded)) for s in range(n))
        out.append((g.dealer, g.crib_owner, start, g.starter, tuple(g.crib), thrown, tuple(g.side_of)))
    return out


def _table(rules: Any, bank: list[tuple[Any, ...]], samples: int, rng: random.Random) -> dict[str, Any]:
    """Crib values by cell and role from ``bank``: each sample takes a deal, one seat of the
    role whose throw is replaced by the cell's (suits at random among those still free), and
    counts the crib through the engine; every cell uses the same deals."""
    counter = ShowCount(rules)
    cells = _cell_cards(rules.deck_size)
    sums: dict[str, dict[str, float]] = {"own": {}, "opp": {}}
    counts: dict[str, dict[str, int]] = {"own": {}, "opp": {}}
    mean_sum = {"own": 0.0, "opp": 0.0}
    mean_n = {"own": 0, "opp": 0}
    if not bank:
        return {"own": {}, "opp": {}, "mean": {"own": 0.0, "opp": 0.0}}
    for j in range(samples):
        dealer, owner, scores, starter, crib, thrown, side_of = bank[j % len(bank)]
        for role in ("own", "opp"):
            seats = [(s, t) for s, t in thrown if t and (side_of[s] == side_of[owner]) == (role == "own")]
            if not seats:
                continue
            seat, throw = seats[rng.randrange(len(seats))]
            rest = list(crib)
            for c in throw:
                rest.remove(c)
            if j < len(bank):  # the role's mean, from the deals as they were
                pts = counter.count(owner, crib, starter, crib=True, dealer=dealer, scores=scores)
                mean_sum[role] += net(pts, side_of[owner])
                mean_n[role] += 1
            taken = set(rest)
            taken.add(starter)
            size = len(throw)
            s_role, c_role = sums[role], counts[role]
            for key, options in cells.items():
                if len(options[0]) != size:
                    continue
                start = rng.randrange(len(options))
                for i in range(len(options)):
                    cards = options[(start + i) % len(options)]
                    if not taken.intersection(cards):
                        break
                else:
                    continue
                pts = counter.count(owner, list(cards) + rest, starter, crib=True, dealer=dealer, scores=scores)
                s_role[key] = s_role.get(key, 0.0) + net(pts, side_of[owner])
                c_role[key] = c_role.get(key, 0) + 1
    model: dict[str, Any] = {role: {k: round(sums[role][k] / counts[role][k], 4) for k in sums[role]}
                             for role in ("own", "opp")}
    model["mean"] = {role: round(mean_sum[role] / mean_n[role], 4) if mean_n[role] else 0.0
                     for role in ("own", "opp")}
    return model


# ---- a variant's decisions, by simulation ---------------------------------------------------

class _Mismatch(Exception):
    """A simulated deal that does not reach the decision as the seat sees it."""


def crib_arrays(model: dict[str, Any]) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """The learnt crib table as ``ev``'s arrays (by card pair, ``52 * a + b``: our own crib's
    value, and an opponent's, negated; by single rank), for the other player's discard as the
    play's reading supposes it and for the native lane."""
    own, opp = [0.0] * 2704, [0.0] * 2704
    for a, b in combinations(range(52), 2):
        own[a * 52 + b] = own[b * 52 + a] = crib_value(model, (a, b), True)
        opp[a * 52 + b] = opp[b * 52 + a] = crib_value(model, (a, b), False)
    single = tuple(crib_value(model, (r * 4,), True) for r in range(13))
    return tuple(own), tuple(opp), single


class AdaptiveStrategy(Board, ReadingMC):
    name = "adaptive"
    models = ADAPTIVE
    understands = frozenset({"objective", "discard_rule"})
    decides_any = True  # every decision it has no method for (a variant's, an outside module's): decide()
    native_samples: ClassVar[bool] = True  # its sampler: ReadingMC's (the lane reads) or mc's plain one
    params: ClassVar[tuple[Param, ...]] = (
        Param("rollouts", int, 32, "play rollouts per decision (mc's search through the engine)", lo=1, hi=100_000),
        Param("read", bool, True, "the play's worlds draw the other player's hand as it would have kept and played "
              "it (expert's reading, by this player's own crib table)"),
        Param("read_play", bool, True, "... and as it would have played it so far (with read)"),
        Param("read_slack", float, 0.1, "chance a card the reading would not have laid passes", lo=0, hi=1),
        Param("discard_rollouts", int, 48, "pegging rollouts per discard candidate", lo=1, hi=100_000),
        Param("discard_top", int, 3, "discard candidates refined by rollouts", lo=1, hi=100),
        Param("discard_margin", float, 1.0, "only candidates within this many points of the best", lo=0, hi=100),
        Param("peg_table", bool, True, "add the pegging learnt for these rules (a table by the ranks kept and the "
              "role; two players dealt six) to every keep, and roll out only those within table_margin of the best"),
        Param("table_margin", float, 0.0, "with the pegging table: roll out only candidates within this many points "
              "of the best (0: none, the table decides)", lo=0, hi=100),
        Param("believes", str, "", "play as if the rules were these (a shipped name or a rules file asking the same "
              "decisions): a skilled player told another rule set, to measure what knowing a rule is worth (empty: "
              "the rules played); a file is read from the config's folder", rules_ref=True),
        Param("worlds", int, 24, "simulated deals per answer of a variant's decision", lo=1, hi=10_000),
        Param("candidates", int, 12, "answers of a variant's decision valued by simulation, at most", lo=2, hi=1000),
        Param("board_from", int, 40, "play to the board (its learnt table) when a side is this close to its target "
              "(0: never)", lo=0, hi=1000),
        Param("board_samples", int, 32, "deals sampled per board decision", lo=1, hi=100_000),
        Param("board_keeps", int, 4, "keeps valued by the board at a discard", lo=1, hi=15),
        Param("board_margin", float, 0.02, "leave the points' choice only for this much more chance to win",
              lo=0, hi=1),
        Param("learn_deals", int, LEARN_DEALS, "deals per iteration when learning a rule set", lo=10, hi=1_000_000),
        Param("learn_samples", int, LEARN_SAMPLES, "cribs counted per cell and role when learning", lo=10,
              hi=1_000_000),
    )

    def __init__(self, rng: random.Random, rollouts: int = 32, read: bool = True, read_play: bool = True,
                 read_slack: float = 0.1, discard_rollouts: int = 48, discard_top: int = 3,
                 discard_margin: float = 1.0, peg_table: bool = True, table_margin: float = 0.0, believes: str = "",
                 worlds: int = 24, candidates: int = 12, board_from: int = 40,
                 board_samples: int = 32, board_keeps: int = 4, board_margin: float = 0.02,
                 learn_deals: int = LEARN_DEALS, learn_samples: int = LEARN_SAMPLES) -> None:
        super().__init__(rng, rollouts, read_play, read_slack)
        self.board_setup(board_from, board_samples, board_keeps, board_margin)
        self.read = read
        self.discard_rollouts, self.discard_top, self.discard_margin = discard_rollouts, discard_top, discard_margin
        self.peg_table, self.table_margin = peg_table, table_margin
        self.believes = believes
        self.worlds = worlds
        self.candidates = candidates
        self.learn_deals, self.learn_samples = learn_deals, learn_samples
        self._model_rules: Any = None
        self._model: dict[str, Any] | None = None
        self._counters: dict[tuple[int, int], tuple[Any, ShowCount]] = {}
        self._policy = EVStrategy(random.Random(rng.getrandbits(32)))
        self.simulated: tuple[str, list[Any], list[int]] | None = None  # the last decide's answers and valid worlds

    @classmethod
    def prepare_rules(cls, rules: Any, params: dict[str, Any]) -> None:
        """Before it plays a rule set (untimed): its crib table, learnt through the engine once
        and kept on disk (seconds when kept), and ``ev``'s tables for the stand-in players of
        its simulations."""
        if params.get("believes"):
            rules = belief(params["believes"], rules)
        EVStrategy.prepare_rules(rules, {})
        model_for(rules, params.get("learn_deals", LEARN_DEALS), params.get("learn_samples", LEARN_SAMPLES))

    def _believed(self, obs: Observation) -> Observation:
        """``obs`` as this player reads it: itself, or with ``believes`` a copy whose rules are
        the ones it is told (every value, table, search and simulation then those rules')."""
        if not self.believes:
            return obs
        view = copy.copy(obs)
        view.rules = belief(self.believes, obs.rules)
        return view

    @classmethod
    def notes(cls, rules: Any, params: dict[str, Any]) -> list[str]:
        if params.get("believes"):
            return [f"plays as if the rules were {params['believes']} (believes: told nothing of {rules.name}'s own): "
                    "values hands, cribs and pegging by the engine's count of those, with their learnt tables"]
        return ["values hands and cribs by the engine's own count of these rules (every hook), its crib, pegging and "
                "board tables learnt from deals and games played through the engine"]

    # ---- the play: mc's search, the other player read by this player's values -------------
    def sampler_for(self, obs: Observation, unseen: list[int]) -> Callable[[], list[list[int]]]:
        return super().sampler_for(obs, unseen) if self.read else sampler(obs, unseen, self.rng)

    def native_reading(self) -> tuple[bool, float, int] | None:
        return super().native_reading() if self.read else None

    def _set_rules(self, r: Any) -> None:
        """``ev``'s values of the rules (its one-ply rule in the rollouts, and the other
        player's discard as the reading supposes it), with this player's learnt crib table in
        place of ev's."""
        super()._set_rules(r)
        self.pair_own, self.pair_opp, self.single = self._arrays(r)

    def _arrays(self, rules: Any) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        model = self._model_of(rules)
        got = model.get("_arrays")
        if got is None:
            got = model["_arrays"] = crib_arrays(model)
        return got

    def native_values(self, rules: Any) -> EvValues:
        sc = rules.scorer
        own, opp, single = self._arrays(rules)
        return EvValues(sc.values, own, opp, single, HOLD_COL, self.reply_weight, JOKER_KEEP, JOKER_CRIB)

    def use_model(self, rules: Any, model: dict[str, Any]) -> None:
        """Play ``rules`` with ``model`` (one being learnt, :func:`learn_pegs`) rather than the
        model kept for them."""
        self._model, self._model_rules = model, rules

    def _model_of(self, rules: Any) -> dict[str, Any]:
        if rules is not self._model_rules:
            self._model = model_for(rules, self.learn_deals, self.learn_samples)
            self._model_rules = rules
        assert self._model is not None
        return self._model

    def _counter(self, obs: Observation) -> ShowCount:
        key = (id(obs.rules), obs.game_no)
        got = self._counters.get(key)
        if got is None or got[0] is not obs.rules:
            got = self._counters[key] = (obs.rules, ShowCount(obs.rules, obs.dealer, obs.game_no))
        return got[1]

    # ---- discard ------------------------------------------------------------------------
    def keep_values(self, obs: Observation) -> list[tuple[float, tuple[int, ...], list[int]]]:
        """(value, keep, thrown) of every legal discard: the expected points the keep's count
        awards our side over every starter not seen, counted as the engine counts (in the lane
        where it plays the rules), plus the learnt crib value of the throw."""
        rules = obs.rules
        starters = [c for c in range(rules.deck_size) if c not in obs.hand]
        mine = obs.side_of[obs.crib_owner] == obs.side
        model = self._model_of(rules)
        parts = self._deal_parts(obs)
        if parts is not None and self._pairs_thrown(obs):
            return self._lane_keep_values(obs, parts[2], starters, mine)
        values = hand_values(self._counter(obs), obs, starters, None if parts is None else parts[2])
        return [(values[keep] + self._crib_value(obs, model, thrown, mine), keep, thrown)
                for keep, thrown in allowed_keeps(obs)]

    @staticmethod
    def _pairs_thrown(obs: Observation) -> bool:
        """Whether every discard of ``obs`` is a pair of the 52 cards, any pair allowed (no
        discard rule): the crib value is then one read of the pair arrays."""
        return obs.discards == 2 and obs.discard_rule is None and all(c < 52 for c in obs.hand)

    def _lane_keep_values(self, obs: Observation, packed: bytes, starters: list[int],
                          mine: bool) -> list[tuple[float, tuple[int, ...], list[int]]]:
        """:meth:`keep_values` where the lane counts the rules and two of the 52 cards are
        thrown with no discard rule: the same sums in the same order (``allowed_keeps`` yields
        every keep, in ``combinations`` order), without a dictionary or a call per keep."""
        hand = tuple(obs.hand)
        size = len(hand) - 2
        scores = obs.scores or [0] * (max(obs.side_of) + 1)
        means = lane.show_values(packed, hand, size, starters, obs.seat, obs.dealer, obs.crib_owner, scores)
        self._sync(obs)
        pairs = self.pair_own if mine else self.pair_opp
        out = []
        thrown_at = reversed(PAIRS[len(hand)])  # the two places each keep leaves, in combinations order of the keeps
        for mean, keep, (i, j) in zip(means, combinations(hand, size), thrown_at):
            a, b = hand[i], hand[j]
            out.append((mean + float(pairs[a * 52 + b]), keep, [a, b]))
        return out

    def _crib_value(self, obs: Observation, model: dict[str, Any], thrown: Sequence[int], mine: bool) -> float:
        """:func:`crib_value`, read from this player's arrays of it for a throw of two of the 52
        cards (the same numbers: :func:`crib_arrays` fills them from it)."""
        if len(thrown) == 2 and thrown[0] < 52 and thrown[1] < 52:
            self._sync(obs)
            return float((self.pair_own if mine else self.pair_opp)[thrown[0] * 52 + thrown[1]])
        return crib_value(model, thrown, mine)

    def discard(self, obs: Observation) -> list[int]:
        """The keeps by :meth:`keep_values` (plus the learnt pegging of each, where the rules
        have a pegging table: :meth:`_peg_table`); the ``discard_top`` best within
        ``discard_margin`` points of the best (``table_margin`` with the table) refined by the
        pegging of ``discard_rollouts`` plays rolled out (in place of the table's)
        through the engine (mc's), the other player's four cards drawn as it would keep them
        from six (by the same values the play's reading supposes; any unseen cards where the
        rules deal otherwise); near the end of a two-player game, the best of those ranked so
        are valued by the chance to win on its learnt board (``Board.board_discard``)."""
        obs = self._believed(obs)
        obj = obs.rules.objective
        scored = sorted(((obj * v, keep, thrown) for v, keep, thrown in self.keep_values(obs)), key=lambda t: -t[0])
        pegs = self._peg_table(obs)
        table = None if pegs is None else dict(zip(combinations(obs.hand, len(obs.hand) - obs.discards), pegs))
        margin = self.discard_margin
        if table is not None:  # the learnt pegging of every keep; the rollouts only where it leaves it close
            scored = sorted(((v + table[keep], keep, thrown) for v, keep, thrown in scored), key=lambda t: -t[0])
            margin = self.table_margin
        top = [t for t in scored[:self.discard_top] if t[0] >= scored[0][0] - margin]
        if len(top) > 1:  # the best refined by their pegging
            rolled = self._top_pegs(obs, top)
            refined = ((v - (table[keep] if table is not None else 0.0) + obj * p / self.discard_rollouts, keep, thrown)
                       for (v, keep, thrown), p in zip(top, rolled))
            top = sorted(refined, key=lambda t: -t[0])
        ranked = top + scored[len(top):] if len(top) > 1 else scored
        if self.on_board(obs):
            return self.board_discard(obs, [(v, list(thrown)) for v, _, thrown in ranked])
        return list(ranked[0][2])

    def _peg_table(self, obs: Observation) -> list[float] | None:
        """The learnt pegging (:func:`learn_pegs`) of every keep of ``obs.hand`` for its role,
        in ``combinations`` order of the keeps (kept by the hand's ranks and the role), or None
        (no table for these rules, or ``peg_table`` off)."""
        if not self.peg_table:
            return None
        model = self._model_of(obs.rules)
        got = model.get("_pegs")
        if got is None:
            pegs = model.get("pegs")
            got = model["_pegs"] = ({role: (dict(zip(peg_cells(), pegs[role])), {}) for role in pegs}
                                    if pegs else {})
        if not got:
            return None
        cells, by_ranks = got["dealer" if obs.seat == obs.dealer else "pone"]
        ranks = tuple(c >> 2 for c in obs.hand)
        values = by_ranks.get(ranks)
        if values is None:
            if len(by_ranks) > 200_000:
                by_ranks.clear()
            size = len(ranks) - obs.discards
            values = by_ranks[ranks] = [cells[tuple(sorted(keep))] for keep in combinations(ranks, size)]
        return cast(list[float], values)

    def _top_pegs(self, obs: Observation, top: list[tuple[float, tuple[int, ...], list[int]]]) -> list[int]:
        """The pegging of each keep of ``top`` (:meth:`_pegs`), rolled out from its own view."""
        rules = obs.rules
        view = rules.program.observation(obs.seat, obs.side, rules, obs.side_of)
        view.dealer, view.crib_owner, view.game_no = obs.dealer, obs.crib_owner, obs.game_no
        rollouts = []
        native = lane.keeps_a_hand(obs)
        for _, _, thrown in top:  # one view, its discards set per keep (a rollout copies what it reads)
            view.discarded = tuple(thrown)
            rollouts.append(self.play_rollout(view, native))
        return self._pegs(obs, [keep for _, keep, _ in top], rollouts)

    def play(self, obs: Observation) -> Any:
        """``expert``'s search of the play; near the end, to the board (its learnt table)."""
        obs = self._believed(obs)
        choice = super().play(obs)
        if len(obs.legal) > 1 and self.on_board(obs):
            return self.board_play(obs, choice)
        return choice

    def board_for(self, obs: Observation) -> list[list[float]] | None:
        """The board table learnt for these rules with the crib table (two players; None: none)."""
        board = self._model_of(obs.rules).get("board")
        return board if board is not None and len(set(obs.side_of)) == 2 else None

    def _pegs(self, obs: Observation, keeps: Sequence[Sequence[int]],
              rollouts: Sequence[PlayRollout | lane.NativePlayRollout]) -> list[int]:
        """For each keep, the sum over ``discard_rollouts`` draws of the other hands of twice
        our side's points pegged less all points pegged, the play rolled out from the keep's
        view. Where the other player is read (:meth:`_reads`) and the rollouts are the lane's,
        the whole loop runs in one call to the lane, its draws from this player's generator as
        here (the same pegs: a test holds it)."""
        if self._reads(obs) and all(isinstance(r, lane.NativePlayRollout) for r in rollouts):
            first = cast(lane.NativePlayRollout, rollouts[0])
            unseen = [c for c in range(obs.rules.deck_size) if c not in obs.hand]
            views = [cast(lane.NativePlayRollout, r).view for r in rollouts]
            return lane.discard_pegs(first.packed, first.capsule, views, keeps, unseen, self.discard_rollouts, self.rng)
        deal = self._other_hands(obs)
        pegs = [0] * len(keeps)
        for _ in range(self.discard_rollouts):
            others = deal()
            for i, keep in enumerate(keeps):
                others[obs.seat] = list(keep)
                pegged = rollouts[i].run(others)
                pegs[i] += 2 * pegged[obs.side] - sum(pegged)
        return pegs

    @staticmethod
    def _reads(obs: Observation) -> bool:
        """Whether the discard's draws read the other player's hand (two players dealt six,
        keeping four, no discard rule, the standard deck and objective), as ev would keep it."""
        return reads(obs.rules)

    def _other_hands(self, obs: Observation) -> Callable[[], list[list[int]]]:
        """Draws of the other seats' hands for the discard's rollouts: with two players dealt
        six and keeping four, the other player's six drawn from the cards not in our hand and
        kept as the play's reading supposes it keeps them; else any unseen cards."""
        rules, me, rng = obs.rules, obs.seat, self.rng
        unseen = [c for c in range(rules.deck_size) if c not in obs.hand]
        n, size = rules.players, rules.hand_size
        if self._reads(obs):
            other = 1 - me
            view = rules.program.observation(other, obs.side_of[other], rules, obs.side_of)
            view.discards, view.dealer, view.crib_owner = 2, obs.dealer, obs.crib_owner

            def read() -> list[list[int]]:
                six = rng.sample(unseen, 6)
                view.hand = tuple(six)
                thrown = EVStrategy.discard(self, view)
                hands: list[list[int]] = [[], []]
                hands[other] = [c for c in six if c not in thrown]
                return hands
            return read

        def uniform() -> list[list[int]]:
            rng.shuffle(unseen)
            hands: list[list[int]] = [[] for _ in range(n)]
            pos = 0
            for s in range(n):
                if s != me:
                    hands[s] = unseen[pos:pos + size]
                    pos += size
            return hands
        return uniform

    # ---- a variant's decisions ----------------------------------------------------------
    # ev's answers to the shipped variants' decisions, inherited through expert, are not
    # adaptive's: these hand them to decide(), as decides_any does for every other decision
    def bid(self, obs: Observation) -> Any:
        return self.decide("bid", obs)

    def pass_cards(self, obs: Observation) -> Any:
        return self.decide("pass_cards", obs)

    def inspect(self, obs: Observation) -> Any:
        return self.decide("inspect", obs)

    def decide(self, name: str, obs: Observation) -> Any:
        """A variant's decision, by simulated deals through the engine (see the module doc):
        where there are more than ``candidates`` legal answers, up to four times as many (drawn
        at random beyond that) are first valued on a quarter of the ``worlds`` deals and the
        best ``candidates`` go on; those are valued on every deal (the first quarter's
        included: every answer meets the same deals); the best on average."""
        obs = self._believed(obs)
        decision = obs.rules.program.decisions[name]
        legal = list(decision.legal(obs))
        if len(legal) <= 1:
            return legal[0] if legal else None
        pool = legal if len(legal) <= 4 * self.candidates else self.rng.sample(legal, 4 * self.candidates)
        layout = self._layout(obs)
        known, thrown = self._known(obs, len(layout[0][obs.seat]))
        seen = self._seen(obs, known)
        totals = [0.0] * len(pool)
        valid = [0] * len(pool)
        alive = list(range(len(pool)))
        first = max(1, self.worlds // 4) if len(pool) > self.candidates else 0
        obj = obs.rules.objective

        def mean(i: int) -> float:
            return obj * totals[i] / valid[i] if valid[i] else -INF

        for w in range(self.worlds):
            if w == first and len(alive) > self.candidates:  # the screen: the best go on
                alive = sorted(sorted(alive, key=lambda i: -mean(i))[:self.candidates])
            deck = self._deck(obs, layout, known, seen)
            seed = self.rng.getrandbits(63)
            memo: dict[Any, Any] = {}  # the stand-ins' answers to variant decisions in this world
            for i in alive:
                v = self._simulate(obs, name, pool[i], deck, seed, thrown, seen, memo)
                if v is not None:
                    totals[i] += v
                    valid[i] += 1
        self.simulated = (name, [pool[i] for i in alive], [valid[i] for i in alive])
        best = max(alive, key=lambda i: (mean(i), -i))
        return pool[best]

    @staticmethod
    def _known(obs: Observation, dealt: int) -> tuple[list[int], list[int]]:
        """(the cards the seat was dealt this deal as far as it knows them, what it threw
        before this decision): its hand, and once it holds fewer than the ``dealt`` cards the
        rules deal it, its discards and the cards it laid (before its discard,
        ``obs.discarded`` is still the last deal's)."""
        hand = list(obs.hand)
        if len(hand) >= dealt:
            return hand, []
        thrown = [c for c in obs.discarded if c not in hand]
        laid = [c for s, c in obs.played if s == obs.seat]
        return hand + thrown + laid, thrown

    @staticmethod
    def _seen(obs: Observation, known: list[int]) -> list[int]:
        """The cards of other seats the seat has been shown this deal: those they laid, and the
        cards of every field a variant declares as cards (two against one's inspected crib)."""
        out = [c for s, c in obs.played if s != obs.seat]
        for f in obs.rules.program.features:
            if f.kind == "cards":
                out += [c for c in getattr(obs, f.field, ()) or () if isinstance(c, int)]
        mine = set(known)
        return [c for c in dict.fromkeys(out) if c not in mine and c != obs.starter]

    @staticmethod
    def _layout(obs: Observation) -> tuple[list[list[int]], list[int], int]:
        """Where in a deal's deck the rules' own deal puts each seat's cards, the cards it
        lays straight into the crib, and the starter: a deck of the cards in order is dealt on
        a scratch game and read back (no dealing rule is copied here)."""
        rules = obs.rules
        g = GameState(rules, 0, (0, obs.game_no), obs.dealer, decks={obs.deal_no: list(range(rules.deck_size))},
                      deal_no=obs.deal_no, scores=obs.scores or None, until_deal=obs.deal_no)
        g.targets = g.game_targets = (INF,) * len(g.sides)
        g.start()
        return [sorted(h) for h in g.hands], sorted(g.crib), g.stock[-1] if g.stock else -1

    def _deck(self, obs: Observation, layout: tuple[list[list[int]], list[int], int], known: list[int],
              seen: list[int]) -> list[int]:
        """A deck that deals the seat the cards it knows, every other seat the cards it laid,
        the cards the seat saw in the crib to those who could have put them there (a seat
        that throws, or the deck's own cards to the crib), the starter it saw, and the rest at
        random from those it has not seen."""
        rules, rng = obs.rules, self.rng
        hands, crib_pos, starter_pos = layout
        deck: list[int] = [-1] * rules.deck_size
        for p, c in zip(hands[obs.seat], known):
            deck[p] = c
        if obs.starter is not None and starter_pos >= 0:
            deck[starter_pos] = obs.starter
        laid: dict[int, list[int]] = {}
        for s, c in obs.played:
            if s != obs.seat:
                laid.setdefault(s, []).append(c)
        free: list[int] = []  # positions that may hold a card seen in the crib
        for s, pos in enumerate(hands):
            if s == obs.seat:
                continue
            mine = laid.get(s, [])
            for p, c in zip(pos, mine):
                deck[p] = c
            throws = rules.dealer_discard if s == obs.dealer else rules.discard
            free += rng.sample(pos[len(mine):], min(throws, len(pos) - len(mine)))
        free += crib_pos
        rng.shuffle(free)
        placed = set(deck)
        crib_seen = [c for c in seen if c not in placed]
        for p, c in zip(free, crib_seen):
            if deck[p] < 0:
                deck[p] = c
        used = set(deck)
        rest = [c for c in range(rules.deck_size) if c not in used]
        rng.shuffle(rest)
        it = iter(rest)
        return [c if c >= 0 else next(it) for c in deck]

    def _simulate(self, obs: Observation, name: str, answer: Any, deck: list[int], seed: int,
                  thrown: list[int], seen: list[int], memo: dict[Any, Any]) -> float | None:
        """Our side's points less the others' from the deal's start to its end, with ``answer``
        given at the decision (None: the simulated deal did not reach it as the seat saw it)."""
        rules, me = obs.rules, obs.seat
        g = GameState(rules, seed, (seed & 0x7FFFFFFF, obs.game_no), obs.dealer, decks={obs.deal_no: deck},
                      deal_no=obs.deal_no, scores=obs.scores or None, until_deal=obs.deal_no,
                      match_score=obs.match_score, shown=obs.shown)
        g.targets = g.game_targets = (INF,) * len(g.sides)
        start = list(g.scores)
        policy = self._policy
        hand = sorted(obs.hand)
        asked = [False]

        def ours(d: str, stand_in: Callable[[Any], Any]) -> Callable[[Any], Any]:
            def answer_it(view: Any) -> Any:
                if d == name and not asked[0]:
                    asked[0] = True
                    if sorted(view.hand) != hand:
                        raise _Mismatch
                    return answer
                if d == "discard" and not asked[0] and thrown and all(c in view.hand for c in thrown):
                    return list(thrown)  # what the seat really threw before this decision
                return stand_in(view)
            return answer_it

        shown = set(seen)

        def throws_seen(stand_in: Callable[[Any], Any]) -> Callable[[Any], Any]:
            def answer_it(view: Any) -> Any:  # another seat throws what the seat saw in the crib
                held = [c for c in view.hand if c in shown]
                return held if len(held) == view.discards else stand_in(view)
            return answer_it

        def remembered(d: str, stand_in: Callable[[Any], Any]) -> Callable[[Any], Any]:
            def answer_it(view: Any) -> Any:  # the same view in the same world: the same answer
                key = (d, view.seat, repr(sorted(view.to_dict().items())))
                if key not in memo:
                    memo[key] = stand_in(view)
                return memo[key]
            return answer_it

        asks: dict[str, list[Callable[[Any], Any]]] = {}
        for d, spec in rules.program.decisions.items():
            stand_in = getattr(policy, d, None)
            if stand_in is None:
                stand_in = (lambda view, spec=spec: spec.default(policy, view)) if spec.default is not None \
                    else (lambda view, spec=spec: spec.legal(view)[0])
            if d not in ("discard", "play"):
                stand_in = remembered(d, stand_in)
            fns = [stand_in] * rules.players
            if d == "discard" and seen:
                fns = [throws_seen(stand_in)] * rules.players
            fns[me] = ours(d, stand_in)
            asks[d] = fns
        try:
            g.run(asks)
        except (_Mismatch, IllegalMove):
            return None
        except GameOver:
            pass
        if not asked[0]:
            return None
        return net([a - b for a, b in zip(g.scores, start)], g.side_of[me])
