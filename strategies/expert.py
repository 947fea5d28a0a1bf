"""``expert``: discards by hand, crib and pegging together; plays to the board near the end.

Discard (two players, two cards each): ``ev``'s value of every keep (the exact expected show
plus the crib tables' value of the throw) plus ``peg_weight`` times the pegging value of the
four cards kept in this seat's role (``strategies.pegtable``: the keeper's pegging minus the
other player's, played out on the engine by ``ev``'s one-ply rule, by the ranks kept). The
pegging table and the board's table were built for the standard scoring: under a ``scoring:``
block (S-DATA) expert leaves both out and keeps the rest.

Play: ``ev``'s one-ply rule, or with ``rollouts`` > 0, ``mc``'s rollouts of the play, the other
player's hand drawn (with ``read``) as an ``ev`` player would have kept it, given what it laid,
and (with ``read_play``) as it would have played it so far: the play, replayed with the drawn
hand, has it lay what ``ev``'s one-ply rule lays at each of its turns, but for a
``read_slack`` chance of a difference (``ReadingMC``, ``Reader``).

To the board (standard two-player 121 only, when a side is within ``board_from`` points of its
target): the ``board_keeps`` best keeps, and every distinct card that may be laid, are valued
by the chance to win, not by points. ``board_samples`` times, the unseen cards are dealt
(at a discard: the other player's six, which it discards as ``ev`` does, and a starter; in the
play: its remaining cards, consistent with its gos, and the crib's other two) and the rest of
the deal runs on the engine (``cribsim.engine.rollout.DealRollout``: his heels, the play, the
show in the rules' order, the game ending the instant a side reaches its target). A deal that
ends the game is a win or a loss; one that does not is worth the chance to win from the scores
it leaves (``strategies.boardtable``). The same samples serve every candidate; the points
rule's choice stands unless another is better by more than ``board_margin`` (a chance to win:
with a few dozen samples, smaller differences are mostly sampling noise). Other rule sets get
the same discards and play without the board."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cribsim.games.cribbage.observation import Observation

import random
from collections.abc import Callable
from typing import Any, ClassVar

from cribsim.games.cribbage.cards import VALUE, card_str, cards_str
from cribsim.games.cribbage.engine.rollout import DealRollout, PlayRollout
from cribsim.games.cribbage.native import lane
from cribsim.params import Param
from strategies.boardtable import load as board_table
from strategies.ev import PAIRS, EVStrategy
from strategies.mc import MCStrategy, sampler, unseen_cards
from strategies.pegtable import cell_index, flat

_CELL: dict[tuple[int, ...], list[int]] = {}


def kept_cells(ranks: tuple[int, ...]) -> list[int]:
    """For a six-card hand's ranks: the pegging-table cell of the four kept, for every pair
    thrown in ``PAIRS[6]`` order (cached by the ranks)."""
    cells = _CELL.get(ranks)
    if cells is None:
        cells = [cell_index([r for k, r in enumerate(ranks) if k != i and k != j]) for i, j in PAIRS[6]]
        if len(_CELL) > 200_000:
            _CELL.clear()
        _CELL[ranks] = cells
    return cells


class _Refused(Exception):
    """A supposed hand the replay of the play so far rules out."""


class _Replayed(Exception):
    """The replay has reached the present decision."""


class _Script:
    """The policy of a replay of the play so far: every seat lays the card it really laid, and
    at each of the other player's decisions ``ev``'s one-ply rule is asked what it would have
    laid from the supposed hand. A different rank is refused, but for a ``slack`` chance (the
    other player is read as ``ev`` erring that often, so a player that is not ``ev`` is still
    read by its keep)."""

    __slots__ = ("laid", "other", "rule", "slack", "rng", "at")

    def __init__(self, laid: tuple[tuple[int, int], ...], other: int, rule: Callable[[Any], Any], slack: float,
                 rng: random.Random) -> None:
        self.laid, self.other, self.rule, self.slack, self.rng = laid, other, rule, slack, rng
        self.at = 0

    def reset(self) -> None:
        self.at = 0

    def __call__(self, obs: Observation) -> int:
        at = self.at
        if at == len(self.laid):
            if obs.seat == self.other:  # the supposed hand could lay a card where the real one said go
                raise _Refused
            raise _Replayed
        seat, c = self.laid[at]
        if seat != obs.seat or c not in obs.legal:  # a go the supposed hand would not have said
            raise _Refused
        if seat == self.other:
            # the real card first: the rule keeps the first of equal values (a jack and a king
            # tie), and the order the other player held its cards in is not known
            rank = c >> 2
            obs.legal = tuple(sorted(obs.legal, key=lambda x: x >> 2 != rank))
            if self.rule(obs) >> 2 != rank and self.rng.random() >= self.slack:
                raise _Refused
        self.at = at + 1
        return c


class ReadingMC(MCStrategy):
    """``mc``'s play with the other player's hand read (two players): its six cards are drawn
    from those it could have been dealt (not ours, not the starter), it keeps four as ``ev``
    discards, and a draw stands only if the four kept hold every card it has laid, nothing its
    gos rule out and (with ``by_play``) the play so far, replayed with that hand, has it lay
    what ``ev``'s one-ply rule would have laid at each of its turns (a ``slack`` chance of
    letting a difference pass: the draws follow the hands an ``ev`` player keeps and plays so,
    given its play). After ``tries`` refused draws: the last that held its laid cards and
    honoured its gos, else the plain uniform deal of ``mc``. The other player is read as an
    ``ev`` player with this strategy's ``crib_weight`` and ``reply_weight`` (exact against
    ``ev`` at the defaults, 1)."""

    tries = 24
    native_samples: ClassVar[bool] = True  # its sampler_for is the lane's reading (native_reading)

    def __init__(self, rng: random.Random, rollouts: int = 64, by_play: bool = True, slack: float = 0.1,
                 crib_weight: float = 1.0, reply_weight: float = 1.0, tables: str = "rules") -> None:
        super().__init__(rng, rollouts, 0, crib_weight=crib_weight, reply_weight=reply_weight, tables=tables)
        self.by_play = by_play
        self.slack = slack

    def sampler_for(self, obs: Observation, unseen: list[int]) -> Callable[[], list[list[int]]]:
        plain = sampler(obs, unseen, self.rng)
        if obs.players != 2 or obs.rules.hand_size != 4 or obs.rules.deck_size != 52 or obs.rules.discard != 2:
            return plain
        reader = Reader(obs, unseen, self)

        def sample() -> list[list[int]]:
            held = reader.draw(self.tries)
            if held is None:
                return plain()
            hands: list[list[int]] = [[], []]
            hands[reader.other] = held
            return hands

        return sample

    def native_reading(self) -> tuple[bool, float, int] | None:
        return self.by_play, self.slack, self.tries


class Reader:
    """What the other player (two players, ``obs.seat``'s opponent) may hold, read by
    ``ev``'s rules: see :class:`ReadingMC`. ``unseen``: the cards ``obs.seat`` has not seen
    (``mc.unseen_cards``), from which the other player's are drawn; ``rule``: the
    :class:`ReadingMC` whose ``ev`` discard and one-ply play stand for the other player's."""

    def __init__(self, obs: Observation, unseen: list[int], rule: ReadingMC) -> None:
        me = obs.seat
        self.other = other = 1 - me
        self.laid = [c for s, c in obs.played if s == other]
        limit = obs.rules.scoring.count_limit
        self.floor = max([limit - k for s, k in obs.gos if s == other], default=0)
        self.pool = unseen
        view = self.view = obs.rules.program.observation(other, obs.side_of[other], obs.rules, obs.side_of)
        view.discards, view.dealer, view.crib_owner = 2, obs.dealer, obs.crib_owner
        self.rng = rule.rng
        self.discard = super(MCStrategy, rule).discard  # ev's discard (the other player's, in its seat)
        self.replay = None
        if rule.by_play and self.laid:
            script = _Script(tuple(obs.played), other, rule.one_ply, rule.slack, rule.rng)
            self.replay = PlayRollout(obs, script, from_start=True)
            self.full: list[list[int]] = [[], []]
            self.full[me] = list(obs.hand) + [c for s, c in obs.played if s == me]
            self.thrown: list[list[int]] = [[], []]

    def plays_as_ev(self, held: list[int], thrown: list[int]) -> bool:
        """Whether the play so far, replayed with the other player holding ``held`` (besides
        the cards it laid) and having thrown ``thrown``, has it lay what ``ev`` would have (but
        for the slack)."""
        if self.replay is None:
            return True
        self.full[self.other], self.thrown[self.other] = held + self.laid, thrown
        try:
            self.replay.run(self.full, None, self.thrown)
        except _Refused:
            return False
        except _Replayed:
            pass
        return True

    def draw(self, tries: int) -> list[int] | None:
        """The other player's cards not yet laid, from ``tries`` draws at most: the first that
        passes, else the last that held its laid cards, else None."""
        rng, laid, pool, view, floor = self.rng, self.laid, self.pool, self.view, self.floor
        need = 6 - len(laid)
        fallback = None
        for _ in range(tries):
            six = laid + rng.sample(pool, need)
            view.hand = tuple(six)
            thrown = self.discard(view)
            if any(c in thrown for c in laid):
                continue
            held = [c for c in six if c not in thrown and c not in laid]
            if floor and any(VALUE[c] <= floor for c in held):
                continue
            if self.plays_as_ev(held, thrown):
                return held
            fallback = held
        return fallback


class Board(EVStrategy):
    """Play to the board (see the module doc): near the end of a two-player game, the best
    keeps and every distinct card are valued by the chance to win, from deals sampled and run to
    the end of their show, a deal that leaves the game undecided worth the chance to win from
    the scores it leaves (the board table a subclass gives, :meth:`board_for`). Mixed into a
    player by :meth:`board_setup`."""

    trace: dict[str, Any] | None = None  # what a decision computed, while an explanation asks

    def board_setup(self, board_from: int, board_samples: int, board_keeps: int, board_margin: float) -> None:
        self.board_from = board_from
        self.board_samples = board_samples
        self.board_keeps = board_keeps
        self.board_margin = board_margin
        self._board_rules: Any = None
        self._board_ok = False
        self._win: list[list[float]] = []

    # ---- the board ------------------------------------------------------------------------
    def on_board(self, obs: Observation) -> bool:
        """Whether to play this decision to the board: a rule set with a board table
        (:meth:`board_for`) and a side within ``board_from`` points of its target."""
        r = obs.rules
        if r is not self._board_rules:
            self._board_rules = r
            win = self.board_for(obs)
            self._board_ok, self._win = win is not None, win or []
        return self._board_ok and self.board_from > 0 and max(obs.scores) >= r.target - self.board_from

    def board_for(self, obs: Observation) -> list[list[float]] | None:
        """The board table of ``obs``'s rules (the dealer's chance to win by both scores), or
        None where this player has none."""
        return None

    def chance(self, obs: Observation, side: int, scores: list[int]) -> float:
        """Our chance to win from the scores at the end of a deal (``side``: who reached the
        target in it, or -1): the board table, with the deal passing to the present pone."""
        if side >= 0:
            return 1.0 if side == obs.side else 0.0
        dealer_side = obs.side_of[obs.dealer]
        nxt, other = 1 - dealer_side, dealer_side  # the next deal's dealer side, and the other
        v = self._win[max(0, scores[nxt])][max(0, scores[other])]  # (a score below zero, a bid paid: read as 0)
        return v if nxt == obs.side else 1.0 - v

    def _views(self, obs: Observation, throws: list[list[int]]) -> list[DealRollout]:
        rules, me = obs.rules, obs.seat
        out: list[DealRollout] = []
        for thrown in throws:
            view = rules.program.observation(me, obs.side, rules, obs.side_of)
            view.dealer, view.crib_owner, view.discarded = obs.dealer, obs.crib_owner, tuple(thrown)
            view.scores = obs.scores
            out.append(DealRollout(view, self.one_ply, (rules.target,) * 2))
        return out

    def board_discard(self, obs: Observation, ranked: list[tuple[float, list[int]]]) -> list[int]:
        """The keep with the best chance to win among the best ``board_keeps`` by points."""
        top = ranked[:self.board_keeps]
        parts = self._deal_parts(obs)
        if parts is not None:  # the samples in C, from this player's generator
            wins = list(lane.board_discard(obs, parts[1], parts[2], [t for _, t in top], self.board_samples, self.rng,
                                           obs.rules.target, self._win))
        else:
            wins = self._board_discard_wins(obs, top)
        best = max(range(len(top)), key=lambda i: (wins[i], -i))
        if self.trace is not None:
            self.trace["board"] = ([t for _, t in top], wins, self.board_samples)
        if wins[best] - wins[0] <= self.board_margin * self.board_samples:
            return top[0][1]  # not clearly better than the best keep by points
        return top[best][1]

    def _board_discard_wins(self, obs: Observation, top: list[tuple[float, list[int]]]) -> list[float]:
        """The chance to win of each keep of ``top``, summed over the deals sampled."""
        hand, me, other = obs.hand, obs.seat, 1 - obs.seat
        rolls = self._views(obs, [t for _, t in top])
        view = obs.rules.program.observation(other, obs.side_of[other], obs.rules, obs.side_of)
        view.discards, view.dealer, view.crib_owner = 2, obs.dealer, obs.crib_owner
        unseen = [c for c in range(52) if c not in hand]
        wins = [0.0] * len(top)
        for _ in range(self.board_samples):
            self.rng.shuffle(unseen)
            view.hand = tuple(unseen[:6])
            their_throw = EVStrategy.discard(self, view)
            theirs = [c for c in unseen[:6] if c not in their_throw]
            for i, (_, thrown) in enumerate(top):
                kept: list[list[int]] = [[], []]
                kept[me], kept[other] = [c for c in hand if c not in thrown], theirs
                side, scores = rolls[i].run(kept, kept, thrown + their_throw, unseen[6])
                wins[i] += self.chance(obs, side, scores)
        return wins

    def board_play(self, obs: Observation, points_choice: Any) -> Any:
        """The card with the best chance to win, if it beats ``points_choice`` (the points
        rule's card) by more than ``board_margin``; else ``points_choice``."""
        options: list[int] = []
        for c in obs.legal:
            if all(c >> 2 != o >> 2 for o in options):
                options.append(c)
        if len(options) == 1:
            return points_choice
        parts = self._deal_parts(obs)
        if parts is not None:  # the samples in C, from this player's generator
            wins = list(lane.board_play(obs, parts[1], parts[2], options, self.board_samples, self.rng,
                                        obs.rules.target, self._win))
        else:
            wins = self._board_play_wins(obs, options)
        best = max(range(len(options)), key=lambda i: wins[i])
        by_points = next(i for i, c in enumerate(options) if c >> 2 == points_choice >> 2)
        if self.trace is not None:
            self.trace["board"] = (options, wins, self.board_samples)
        if wins[best] - wins[by_points] <= self.board_margin * self.board_samples:
            return points_choice  # not clearly better than the points rule's card
        return options[best]

    def _board_play_wins(self, obs: Observation, options: list[int]) -> list[float]:
        """The chance to win of each card of ``options``, summed over the deals sampled."""
        me, other = obs.seat, 1 - obs.seat
        unseen = unseen_cards(obs)
        sample = sampler(obs, unseen, self.rng)
        roll = DealRollout(obs, self.one_ply, (obs.rules.target,) * 2)
        mine_full = list(obs.hand) + [c for s, c in obs.played if s == me]
        theirs_played = [c for s, c in obs.played if s == other]
        wins = [0.0] * len(options)
        for _ in range(self.board_samples):
            held = sample()
            held[me] = list(obs.hand)
            taken = set(held[other])
            rest = [c for c in unseen if c not in taken]
            crib = list(obs.discarded) + self.rng.sample(rest, 4 - len(obs.discarded))
            kept: list[list[int]] = [[], []]
            kept[me], kept[other] = mine_full, held[other] + theirs_played
            for i, c in enumerate(options):
                assert obs.starter is not None  # the board values cards of the play
                side, scores = roll.run(held, kept, crib, obs.starter, c)
                wins[i] += self.chance(obs, side, scores)
        return wins



class ExpertStrategy(Board):
    name = "expert"
    params: ClassVar[tuple[Param, ...]] = EVStrategy.params + (
        Param("peg_weight", float, 1.0, "weight of the kept cards' pegging value in the discard", lo=-10, hi=10),
        Param("rollouts", int, 32, "mc play rollouts away from the board (0: ev's one-ply rule)", lo=0, hi=100_000),
        Param("read", bool, True, "mc rollouts draw the other player's hand as ev would have kept it", ),
        Param("read_play", bool, True, "... and as ev would have played it so far (with read)"),
        Param("read_slack", float, 0.1, "chance a card ev would not have laid passes the reading", lo=0, hi=1),
        Param("board_from", int, 40, "play to the board when a side is this close to its target (0: never)",
              lo=0, hi=1000),
        Param("board_samples", int, 32, "deals sampled per board decision", lo=1, hi=100_000),
        Param("board_keeps", int, 4, "keeps valued by the board at a discard", lo=1, hi=15),
        Param("board_margin", float, 0.02, "leave the points rule's choice only for this much more chance to win",
              lo=0, hi=1),
    )

    def __init__(self, rng: random.Random, peg_weight: float = 1.0, rollouts: int = 32, board_from: int = 40,
                 board_samples: int = 32, board_keeps: int = 4, crib_weight: float = 1.0, reply_weight: float = 1.0,
                 board_margin: float = 0.02, read: bool = True, read_play: bool = True,
                 read_slack: float = 0.1, tables: str = "rules") -> None:
        super().__init__(rng, crib_weight, reply_weight, tables)
        self.peg_weight = peg_weight
        self.board_setup(board_from, board_samples, board_keeps, board_margin)
        self.peg_dealer, self.peg_pone = flat()
        self._mc: MCStrategy | None = None
        if rollouts and read:
            self._mc = ReadingMC(rng, rollouts, read_play, read_slack, crib_weight, reply_weight, tables)
        elif rollouts:
            self._mc = MCStrategy(rng, rollouts, 0, crib_weight=crib_weight, reply_weight=reply_weight, tables=tables)

    @classmethod
    def notes(cls, rules: Any, params: dict[str, Any]) -> list[str]:
        """For the manifest: ev's, and the standard-built tables it leaves out."""
        out = super().notes(rules, params)
        if out:
            out.append("without its pegging table and board table (both built for the standard scoring)")
        return out

    def board_for(self, obs: Observation) -> list[list[float]] | None:
        """The shipped board table, where it describes the rules: two players, 121, four-card
        hands, the standard scoring, scored high."""
        r, t = obs.rules, board_table()
        fits = (r.players == 2 and len(set(obs.side_of)) == 2 and r.target == t["target"] and r.hand_size == 4
                and r.objective > 0 and r.deck_size == 52
                and r.scoring.standard)  # the table was built for the standard scoring
        return t["dealer_wins"] if fits else None

    # ---- discard and play -------------------------------------------------------------------
    def discard(self, obs: Observation) -> list[int]:
        values = self.two_card_values(obs)
        if values is None or len(obs.hand) != 6 or obs.rules.hand_size != 4:
            return super().discard(obs)
        hand = obs.hand
        if self.trace is not None:
            self.trace["ev"] = list(values)
        if self.peg_weight and obs.rules.scoring.standard:  # the table was built for the standard scoring
            table = self.peg_dealer if obs.seat == obs.dealer else self.peg_pone
            w = self.peg_weight
            cells = kept_cells(tuple(c >> 2 for c in hand))
            values = [v + w * table[k] for v, k in zip(values, cells)]
            if self.trace is not None:
                self.trace["peg"] = [w * table[k] for k in cells]
        if not self.on_board(obs):
            return self.best_pair(hand, values)
        order = sorted(range(len(values)), key=lambda k: -values[k])
        ranked = [(values[k], [hand[PAIRS[6][k][0]], hand[PAIRS[6][k][1]]]) for k in order]
        return self.board_discard(obs, ranked)

    def play(self, obs: Observation) -> Any:
        choice = self._mc.play(obs) if self._mc is not None else self.one_ply(obs)
        if len(obs.legal) > 1 and self.on_board(obs):
            return self.board_play(obs, choice)
        return choice

    # ---- why (a person's hint: cribsim play --human) ------------------------------------------
    def explain(self, obs: Observation, decision: str) -> tuple[Any, str | None]:
        """This player's answer to ``decision`` and, where it is not the one ``ev``'s points
        choose, one line saying why, from what the decision computed (its rollouts played in
        Python, which choose as the native lane's do)."""
        trace: dict[str, Any] = {}
        self.trace = trace
        if self._mc is not None:
            self._mc.trace = trace
        try:
            answer = getattr(self, decision)(obs)
        finally:
            self.trace = None
            if self._mc is not None:
                self._mc.trace = None
        if decision == "discard" and "ev" in trace:
            return answer, why_discard(obs.hand, answer, trace)
        if decision == "play":
            return answer, why_play(answer, self.one_ply(obs), trace)
        return answer, None


def why_discard(hand: tuple[int, ...], answer: list[int], trace: dict[str, Any]) -> str | None:
    """Why expert's throw is not ``ev``'s (the best by hand and crib), from the discard's trace:
    the board moved it, or the pegging of the cards kept did; None when they agree."""
    ev_throw = EVStrategy.best_pair(hand, trace["ev"])
    if sorted(answer) == sorted(ev_throw):
        return None
    head = f"expert throws {cards_str(answer)}, not ev's {cards_str(ev_throw)}"
    board = trace.get("board")
    if board is not None and sorted(board[0][0]) != sorted(answer):
        throws, wins, samples = board
        at = next(i for i, t in enumerate(throws) if sorted(t) == sorted(answer))
        return (f"{head}: near the end it plays to the board, and throwing {cards_str(answer)} wins "
                f"{wins[at] / samples:.0%} of its {samples} sampled deals, {cards_str(throws[0])} (its best by "
                f"points) {wins[0] / samples:.0%}")
    if "peg" not in trace:
        return None
    k_e, k_b = _pair_index(hand, answer), _pair_index(hand, ev_throw)
    peg, ev = trace["peg"], trace["ev"]
    return (f"{head}: it weighs the pegging of the cards kept, and its keep pegs {peg[k_e] - peg[k_b]:.2f} points "
            f"more than ev's, which gains only {ev[k_b] - ev[k_e]:.2f} in hand and crib")


def why_play(answer: Any, ev_answer: Any, trace: dict[str, Any]) -> str | None:
    """Why expert lays a card of another rank than ``ev``'s one-ply rule (the points now less the
    next player's likely reply), from the play's trace: the board moved it, or the rollouts of
    the rest of the play chose it; None when the ranks agree."""
    mine, theirs = _counted(answer), _counted(ev_answer)
    rolled = trace.get("rollouts")
    if mine >> 2 == theirs >> 2:
        return None
    head = f"expert lays {_shown(answer)}, not ev's {_shown(ev_answer)}"
    by_points = rolled[0][rolled[3]][1] if rolled is not None else theirs
    if "board" in trace and by_points >> 2 != mine >> 2:
        return f"{head}: {_board_line(trace['board'], mine, by_points)}"
    return None if rolled is None else f"{head}: {_rollouts_line(rolled, mine, theirs)}"


def _board_line(board: tuple[list[int], Any, int], mine: int, by_points: int) -> str:
    """The board's chances to win of the card laid and of the points' choice."""
    options, wins, samples = board
    at = [next(i for i, c in enumerate(options) if c >> 2 == x >> 2) for x in (mine, by_points)]
    return (f"near the end it plays to the board, and {card_str(mine)} wins {wins[at[0]] / samples:.0%} of its "
            f"{samples} sampled deals, {card_str(by_points)} (its best by points) {wins[at[1]] / samples:.0%}")


def _rollouts_line(rolled: tuple[list[Any], list[int], int, int], mine: int, theirs: int) -> str:
    """The rollouts' pegging of the card laid and of ``ev``'s."""
    options, totals, rollouts, _ = rolled
    at = [next(i for i, (_, c) in enumerate(options) if c >> 2 == x >> 2) for x in (mine, theirs)]
    return (f"it plays the rest of the play out ({rollouts} rollouts), where {card_str(mine)} nets "
            f"{totals[at[0]] / rollouts:+.2f} points of pegging (ours less theirs) and {card_str(theirs)} "
            f"{totals[at[1]] / rollouts:+.2f}; ev looks only at this card and the next reply")


def _shown(answer: Any) -> str:
    """A card of the play as a person reads it (a wild card laid as one: ``JK as 5S``)."""
    return f"{card_str(answer[0])} as {card_str(answer[1])}" if isinstance(answer, tuple) else card_str(answer)


def _counted(answer: Any) -> int:
    """The card an answer of the play counts as (a wild card laid as one, ``(card, named)``)."""
    return int(answer[1]) if isinstance(answer, tuple) else int(answer)


def _pair_index(hand: tuple[int, ...], pair: list[int]) -> int:
    i, j = sorted(hand.index(c) for c in pair)
    return PAIRS[len(hand)].index((i, j))
