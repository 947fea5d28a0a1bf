"""The Fives and Threes engine: hands and games (F-DEAL-1 to F-WIN-1).

The layout is a single line (F-PLAY-1) kept as its two open ends: ``ends[i]`` is the pip to
match and ``dbl[i]`` whether a double lies crosswise there (it then counts both halves). A
lone opening tile counts its two halves once (an opening double [d|d] counts 2d). No spinner.

Randomness is addressed: the tiles of hand ``h`` of game ``g`` come from
``addressed_draw(28, ..., seed, match_key, g, DECK, h)``; the draw for the first lead and the
strategies' generators have their own streams (``cribsim.rng``)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cribsim.errors import EndlessGame, IllegalMove
from cribsim.gamelog import RecordFileError
from cribsim.records import GameRecord
from cribsim.rng import CUT_FOR_DEAL, DECK, STRATEGY, addressed_draw, derive, rng_at

from .tiles import DOUBLE, N_TILES, PIPS, A, B, tile_str

if TYPE_CHECKING:
    from cribsim.gamelog import GameLog, GameTape
    from cribsim.records import GameRecord

    from .rules import DominoRules

CHANCE = -2  # the actor of a draw, in chance mode
MAX_HANDS = 10_000  # a safety net; with the domino point off and blocked hands, games still end

# kind: lay, knock, domino, cancel, block, draw; ends: (e0, d0, e1, d1) after a lay
Event = namedtuple("Event", "hand seat points kind tile end total ends note")

# per-game tallies, in this order (the result record keeps them as a list)
STATS = ("hands", "blocked", "scoring_events", "cancelled", "placement_points", "domino_points",
         "leader_points", "other_points", "placements")


class Observation:
    """What one seat sees before laying: ``hand`` (own tiles), ``legal`` (moves: (tile, end),
    end 0 or 1; the lead is end 0), ``ends`` ((pip0, double0, pip1, double1), or None before the
    lead), ``total`` (the current end count), ``played`` ((seat, tile, end) this hand, in order),
    ``knocks`` ((seat, pip0, pip1): that seat then held no tile showing either pip), ``counts``
    (tiles left per seat), ``scores`` (by side), ``leader``, ``hand_no``, and ``seat``, ``side``,
    ``players``, ``rules``, ``target``. Never another seat's tiles or the sleeping tiles."""

    __slots__ = ("seat", "side", "players", "rules", "target", "hand", "legal", "ends", "total",
                 "played", "knocks", "counts", "scores", "leader", "hand_no")

    seat: int
    side: int
    players: int
    rules: DominoRules
    target: int
    hand: tuple[int, ...]
    legal: tuple[tuple[int, int], ...]
    ends: tuple[int, bool, int, bool] | None
    total: int
    played: tuple[tuple[int, int, int], ...]
    knocks: tuple[tuple[int, int, int], ...]
    counts: tuple[int, ...]
    scores: tuple[int, ...]
    leader: int
    hand_no: int

    def __init__(self, seat: int, side: int, rules: DominoRules) -> None:
        self.seat, self.side, self.rules = seat, side, rules
        self.players = rules.players
        self.target = rules.target
        self.hand = self.legal = self.played = self.knocks = self.counts = self.scores = ()
        self.ends = None
        self.total = self.leader = self.hand_no = 0


def hand_tiles(count: int, seed: int, address: Sequence[int], hand_no: int) -> list[int]:
    """The tiles of hand ``hand_no`` of the game at ``address`` (match key, game number), seat
    after seat: the one place a hand's address is formed."""
    return addressed_draw(N_TILES, count, seed, *address, DECK, hand_no)


def legal_moves(hand: Iterable[int], ends: Sequence[int], dbl: Sequence[bool], laid: int) -> list[tuple[int, int]]:
    """Every (tile, end) a hand may lay (F-PLAY-1); a tile fitting two identical ends once."""
    if not laid:
        return [(t, 0) for t in hand]
    e0, e1 = ends
    same = e0 == e1 and dbl[0] == dbl[1]
    out = []
    for t in hand:
        a, b = A[t], B[t]
        if a == e0 or b == e0:
            out.append((t, 0))
        if (a == e1 or b == e1) and not same:
            out.append((t, 1))
    return out


def lay(ends: list[int], dbl: list[bool], laid: int, move: tuple[int, int]) -> int:
    """Lay ``move`` on the layout (in place); returns the new end count (F-SCORE-1)."""
    t, e = move
    if not laid:
        ends[0], ends[1] = A[t], B[t]
        dbl[0] = dbl[1] = DOUBLE[t]
        return PIPS[t]
    ends[e] = B[t] if A[t] == ends[e] else A[t]
    dbl[e] = DOUBLE[t]
    return ends[0] * (1 + dbl[0]) + ends[1] * (1 + dbl[1])


@dataclass
class GameResult:
    winner: int
    scores: tuple[int, ...]
    first_leader: int
    hands: int
    stats: list[int]  # values in STATS order
    last_leader: int = 0
    events: list[Event] | None = field(default=None, repr=False)
    start_scores: tuple[int, ...] | None = None  # a game started from a later position (by side)
    trail: list[tuple[int, ...]] = field(default_factory=list)  # scores: start, after each hand, end
    decisions: int = 0  # decisions asked (forced moves are not)
    stopped: str | None = None  # a replay of a game that did not finish (a forfeit): why (winner is -1)

    @property
    def deals(self) -> int:
        """Hands played (a hand is this game's deal)."""
        return self.hands

    def record(self, level: int, rules: DominoRules) -> GameRecord:
        """The :class:`cribsim.records.GameRecord` the tournament keeps for this game: hands
        as deals, the first leader as the first dealer, the tallies as named metrics."""

        sides = rules.sides
        side_of = rules.side_of
        order = (self.winner,) + tuple(sorted((s for s in range(len(sides)) if s != self.winner),
                                              key=lambda s: -self.scores[s]))
        metrics: dict[str, float] = dict(zip(STATS, self.stats))
        del metrics["hands"]
        metrics["all_points"] = metrics["leader_points"] + metrics["other_points"]
        metrics["other_points_per_side"] = metrics["other_points"] / (len(sides) - 1)
        return GameRecord(winner=self.winner, scores=list(self.scores), deals=self.hands,
                          first_dealer=self.first_leader, first_dealer_won=side_of[self.first_leader] == self.winner,
                          skunk=level, sides=[list(s) for s in sides], order=list(order), metrics=metrics,
                          trail=[list(s) for s in self.trail], decisions=self.decisions)


def cancelled(rules: DominoRules, new: int, is_lead: bool) -> str:
    """Why a scoring event that would take a side to ``new`` is cancelled whole ("" if it counts):
    past the target under the exact finish (F-WIN-1), or the winning points scored on the lead
    where the lead may not win (F-VAR)."""
    if rules.exact_finish and new > rules.target:
        return f"past {rules.target} under the exact finish (F-WIN-1)"
    if is_lead and not rules.lead_may_win and new >= rules.target:
        return "the lead may not score the winning points (F-VAR)"
    return ""


class GameOver(Exception):
    def __init__(self, side: int) -> None:
        self.side = side


def draw_for_lead(rules: DominoRules, seed: int, address: Sequence[int], events: list[Event] | None = None) -> int:
    """F-LEAD-1: each seat draws a tile; the most pips leads; those tied draw again."""
    contenders = list(range(rules.players))
    rnd = 0
    while True:
        drawn = rng_at(seed, *address, CUT_FOR_DEAL, rnd).sample(range(N_TILES), len(contenders))
        if events is not None:
            for seat, t in zip(contenders, drawn):
                events.append(Event(-1, seat, 0, "draw", t, 0, 0, None, f"round {rnd + 1}"))
        top = max(PIPS[t] for t in drawn)
        contenders = [s for s, t in zip(contenders, drawn) if PIPS[t] == top]
        if len(contenders) == 1:
            return contenders[0]
        rnd += 1


class Game:
    """One game in progress."""

    def __init__(self, rules: DominoRules, strategies: Sequence[Any], seed: int, address: Iterable[int],
                 events: list[Event] | None = None, scores: Sequence[int] | None = None,
                 plays: Sequence[Callable[[Observation], Any]] | None = None, driven: bool = False,
                 chance: bool = False) -> None:
        self.rules = rules
        self.chance = chance  # a driven game whose tiles are drawn one by one (the flow yields CHANCE)
        self.drawing: list[int] = []  # chance mode: the tiles drawn so far of this hand
        self.n = rules.players
        self.side_of = rules.side_of
        self.sides = rules.sides
        self.table = rules.points_table
        self.strategies = strategies
        # each seat's answer; None (``driven``): the flow yields the seat and receives its answer
        self.plays: list[Callable[[Observation], Any]] | None = None if driven else \
            list(plays) if plays is not None else [s.play for s in strategies]
        self.seed, self.address = seed, tuple(address)
        self.scores = list(scores) if scores is not None else [0] * len(rules.sides)
        self.start_scores = tuple(scores) if scores else None  # a game started from a later position
        self.dealt: list[list[int]] | None = None  # a game record: each hand's tiles, seat by seat
        self.trail: list[tuple[int, ...]] = [tuple(self.scores)]  # scores: start, after each hand, end
        self.asked = 0  # decisions asked (a forced move is not asked)
        self.stats = [0] * len(STATS)
        self.hand_no = 0  # the hand in play
        self.events = events
        self.obs = [Observation(s, self.side_of[s], rules) for s in range(self.n)]
        for seat, strat in enumerate(strategies):
            strat.rng.seed(derive(seed, *self.address, STRATEGY, seat))

    def score(self, seat: int, placement: int, domino: int, hand_no: int, leader: int, is_lead: bool,
              note: str) -> None:
        """One scoring event of ``placement`` points for the ends and ``domino`` for going out
        (F-SCORE-1, F-END-1): cancelled whole if it would pass the target with the exact finish
        (F-WIN-1) or win on the lead where that is barred (F-VAR); counted in the tallies, the
        winning event included; raises GameOver on a win."""
        points = placement + domino
        side = self.side_of[seat]
        st = self.stats
        st[2] += 1
        new = self.scores[side] + points
        why = cancelled(self.rules, new, is_lead)
        if why:
            st[3] += 1
            if self.events is not None:
                self.events.append(Event(hand_no, seat, 0, "cancel", None, 0, 0, None,
                                         f"{points} would make {new}: cancelled, {why}"))
            return
        self.scores[side] = new
        st[4] += placement
        st[5] += domino
        st[6 if side == self.side_of[leader] else 7] += points
        if self.events is not None:
            self.events.append(Event(hand_no, seat, points, "score", None, 0, 0, None, note))
        if new >= self.rules.target:
            raise GameOver(side)

    def flow(self, first_leader: int, hands: Sequence[Sequence[int]] | None = None,
             given_only: bool = False) -> Generator[int, Any, None]:
        """The game, hand after hand, to its end (GameOver); yields the seat to act at each
        decision when ``driven`` (its observation is ready in ``obs``) and receives its answer.
        ``hands`` (the tiles of the first hands, seat by seat) replace the addressed deals."""
        hs = self.rules.hand_size
        while self.hand_no < MAX_HANDS:
            h = self.hand_no
            dealt = None
            if hands is not None and h < len(hands):
                dealt = [hands[h][i * hs:(i + 1) * hs] for i in range(self.n)]
            elif given_only:
                raise ValueError(f"the tiles of {len(hands or ())} hands are given, the game plays more")
            yield from self.play_hand(h, (first_leader + h) % self.n, dealt)  # F-LEAD-1: the lead passes clockwise
            self.trail.append(tuple(self.scores))
            self.hand_no += 1
        raise EndlessGame(self.rules.name, MAX_HANDS, "hands")

    def play_hand(self, hand_no: int, leader: int,
                  hands: Iterable[Iterable[int]] | None = None) -> Generator[int, Any, None]:
        """One hand; returns when it ends (domino or block), raises GameOver on a win; yields
        the seat to act when the game is ``driven``. ``hands`` replaces the addressed deal."""
        n, hs = self.n, self.rules.hand_size
        if hands is None and self.chance:
            drawn = self.drawing = []
            for _ in range(n * hs):
                drawn.append((yield CHANCE))
            dealt = [drawn[i * hs:(i + 1) * hs] for i in range(n)]
        elif hands is None:
            drawn = hand_tiles(n * hs, self.seed, self.address, hand_no)
            dealt = [drawn[i * hs:(i + 1) * hs] for i in range(n)]
        else:
            dealt = [list(h) for h in hands]
        if self.dealt is not None:
            self.dealt.append([t for h in dealt for t in h])
        ev = self.events
        if ev is not None:
            for s in range(n):
                ev.append(Event(hand_no, s, 0, "deal", None, 0, 0, None, tuple(dealt[s])))
        ends, dbl = [0, 0], [False, False]
        laid = 0
        played: list[tuple[int, int, int]] = []
        knocks: list[tuple[int, int, int]] = []
        side_of, sides, table = self.side_of, self.sides, self.table
        domino = 1 if self.rules.domino_point else 0
        st = self.stats
        active = n
        passes = 0
        seat = leader
        while True:
            hand = dealt[seat]
            if not hand:  # a partner already out is skipped (F-END-1)
                seat = (seat + 1) % n
                continue
            legal = legal_moves(hand, ends, dbl, laid)
            if not legal:  # F-PLAY-2: knock
                knocks.append((seat, ends[0], ends[1]))
                if ev is not None:
                    ev.append(Event(hand_no, seat, 0, "knock", None, 0, 0, None, ""))
                passes += 1
                if passes >= active:  # F-END-2: blocked, no domino point
                    st[1] += 1
                    if ev is not None:
                        ev.append(Event(hand_no, -1, 0, "block", None, 0, 0, None, ""))
                    return
                seat = (seat + 1) % n
                continue
            passes = 0
            if len(legal) == 1:
                move = legal[0]  # forced: no decision to ask for
            else:
                o = self.obs[seat]
                o.hand, o.legal = tuple(hand), tuple(legal)
                o.ends = (ends[0], dbl[0], ends[1], dbl[1]) if laid else None
                o.total = (ends[0] * (1 + dbl[0]) + ends[1] * (1 + dbl[1])) if laid > 1 else \
                    (ends[0] + ends[1] if laid else 0)
                o.played, o.knocks = tuple(played), tuple(knocks)
                o.counts = tuple(len(h) for h in dealt)
                o.scores = tuple(self.scores)
                o.leader, o.hand_no = leader, hand_no
                self.asked += 1
                plays = self.plays
                move = plays[seat](o) if plays is not None else (yield seat)
                if isinstance(move, list):
                    move = tuple(move)
                if move not in legal:
                    raise IllegalMove(f"seat {seat} laid {_move_str(move)}, not a legal move "
                                      f"(legal: {', '.join(_move_str(m) for m in legal)})", seat)
            hand.remove(move[0])
            total = lay(ends, dbl, laid, move)
            laid += 1
            played.append((seat, move[0], move[1]))
            st[8] += 1
            pts = table[total]
            done = False
            if not hand:
                active -= 1
                done = all(not dealt[s] for s in sides[side_of[seat]])
            if ev is not None:
                ev.append(Event(hand_no, seat, 0, "lay", move[0], move[1], total,
                                (ends[0], dbl[0], ends[1], dbl[1]), ""))
            event = pts + (domino if done else 0)
            if event:
                note = f"{total}: {pts}" if pts else ""
                if done and domino:
                    note = (note + " + " if note else "") + "1 for domino"
                self.score(seat, pts, event - pts, hand_no, leader, laid == 1, note)
            if done:
                if ev is not None:
                    ev.append(Event(hand_no, seat, 0, "out", None, 0, 0, None, ""))
                return
            seat = (seat + 1) % n


    def result(self, winner: int, first_leader: int) -> GameResult:
        """The :class:`GameResult` of the game just won by side ``winner``."""
        h = self.hand_no
        self.stats[0] = h + 1
        return GameResult(winner, tuple(self.scores), first_leader, h + 1, self.stats, (first_leader + h) % self.n,
                          self.events, self.start_scores, [*self.trail, tuple(self.scores)], self.asked)


def _move_str(move: Any) -> str:
    try:
        t, e = move
        return f"{tile_str(t)} on end {e}"
    except (TypeError, ValueError, IndexError):
        return repr(move)


def play_game(rules: DominoRules, strategies: Sequence[Any], seed: int, address: tuple[int, int],
              first_leader: int | None = None, log: bool = False, start_scores: Sequence[int] | None = None,
              tape: GameTape | None = None, hands: Sequence[Sequence[int]] | None = None,
              plays: Sequence[Callable[[Observation], Any]] | None = None, given_only: bool = False,
              events: list[Event] | None = None) -> GameResult:
    """One game to the target. ``address`` is (match_key, game); ``first_leader`` None draws.
    ``start_scores`` (by side) starts from a later position; a ``tape`` records the draw for the
    lead, the tiles of every hand and every answer (a game record); ``hands`` (the tiles of the
    first hands, seat by seat: a deal book, or every hand with ``given_only``: a replay) replace
    the addressed deals, and ``plays`` the strategies' answers; ``events`` is the list the log
    is kept in (one of the caller's)."""
    if events is None:
        events = [] if log or tape is not None else None
    if first_leader is None:
        first_leader = draw_for_lead(rules, seed, address, events)
    if tape is not None:
        tape.cuts = [[e.seat, e.tile] for e in events or ()]
        tape.first_dealer = first_leader
        tape.start_scores = list(start_scores) if start_scores is not None else None
        plays = [tape.wrap(s.play) for s in strategies]
        if not log:
            events = None
    g = Game(rules, strategies, seed, address, events, start_scores, plays)
    if tape is not None:
        g.dealt = tape.decks
    try:
        for _ in g.flow(first_leader, hands, given_only):
            raise RuntimeError("a hand asked for a decision it was given answers for")
        raise RuntimeError(f"game {address} ended without a winner")
    except GameOver as over:
        if tape is not None:
            tape.finish(over.side, g.scores, g.hand_no + 1)
        return g.result(over.side, first_leader)


class _Stop(Exception):
    """A partial replay ran out of answers (or its last was refused)."""


def replay_game(rules: DominoRules, log: GameLog, seed: int, address: tuple[int, int],
                counters: Any = None, where: str = "record", partial: bool = False) -> GameResult:
    """Play a recorded game again: its hands, its first leader and its answers (forced moves
    are not recorded: the engine makes them), each checked by the rules. Returns the result
    with the events. Raises RecordFileError (naming ``where``) for a record the rules refuse,
    that ends before (or after) the game or leaves hands unused. With ``partial`` (a match that
    ended in a forfeit) a record that stops early, or whose last answer is refused, gives the
    game as far as it went (``stopped`` says why)."""

    _check_log(rules, log, where)
    asked = [0]
    events: list[Event] = []

    def play(obs: Observation) -> Any:
        if asked[0] == len(log.actions):
            if partial:
                raise _Stop(f"the record ends here, at seat {obs.seat}'s lay")
            raise RecordFileError(f"cribsim: {where}: the record ends before the game does "
                                  f"({len(log.actions)} answers recorded)")
        asked[0] += 1
        return log.actions[asked[0] - 1]
    try:
        result = play_game(rules, [], seed, address, log.first_dealer, log=True, start_scores=log.start_scores,
                           hands=log.decks, plays=[play] * rules.players, given_only=True, events=events)
    except _Stop as stop:
        return _partial(rules, log, events, str(stop))
    except IllegalMove as e:
        if partial and asked[0] == len(log.actions):
            return _partial(rules, log, events, f"answer {asked[0]} is refused by the rules: {e}")
        raise RecordFileError(f"cribsim: {where}: answer {asked[0]} is refused by the rules: {e}") from None
    except (ValueError, IndexError, TypeError) as e:
        raise RecordFileError(f"cribsim: {where}: {e}") from None
    if asked[0] != len(log.actions) or len(log.decks) != result.hands:
        raise RecordFileError(f"cribsim: {where}: the game ended with {asked[0]} of {len(log.actions)} answers "
                              f"and {result.hands} of {len(log.decks)} hands used")
    if result.events is not None and log.cuts:
        result.events[:0] = [Event(-1, seat, 0, "draw", tile, 0, 0, None, "") for seat, tile in log.cuts]
    return result


def _check_log(rules: DominoRules, log: GameLog, where: str) -> None:
    if not log.first_dealer < rules.players or any(not 0 <= s < rules.players or not 0 <= t < N_TILES
                                                   for s, t in log.cuts):
        raise RecordFileError(f"cribsim: {where}: a first leader or a draw that is not a seat and a tile")
    for k, deck in enumerate(log.decks):
        if len(deck) != rules.players * rules.hand_size or len(set(deck)) != len(deck) or \
                not all(0 <= t < N_TILES for t in deck):
            raise RecordFileError(f"cribsim: {where}: the tiles of hand {k + 1} are not {rules.players} hands of "
                                  f"{rules.hand_size} different tiles")


def _partial(rules: DominoRules, log: GameLog, events: list[Event], why: str) -> GameResult:
    """A game stopped part-way: its scores from the events (winner -1)."""
    scores = list(log.start_scores or [0] * len(rules.sides))
    for e in events:
        if e.kind == "score":
            scores[rules.side_of[e.seat]] += e.points
    hands = 1 + max((e.hand for e in events), default=0)
    return GameResult(-1, tuple(scores), log.first_dealer, hands, [0] * len(STATS), events=events,
                      start_scores=tuple(log.start_scores) if log.start_scores else None, stopped=why)
