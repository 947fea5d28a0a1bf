"""Fives and Threes test helpers: tiles by text, scripted seats, and a replay checker."""

from cribsim.games.fives_threes.engine import Game, lay, legal_moves
from cribsim.games.fives_threes.strategy import TileStrategy
from cribsim.games.fives_threes.tiles import N_TILES, parse_tile
from cribsim.ruleset import rules_from_mapping


def T(text):
    """'1-4 1-1' -> list of tiles."""
    return [parse_tile(w) for w in text.split()]


def ft_rules(**kw):
    return rules_from_mapping({"game": "fives_threes", **kw})


class ScriptedTiles(TileStrategy):
    """Lays the first tile of its script that is legal (and not yet laid); an entry may be
    (tile, end). The engine lays forced moves itself, so scripts list only the choices."""

    name = "scripted"

    def __init__(self, rng, script=()):
        self.rng = rng
        self.script = list(script)

    def play(self, obs):
        for want in self.script:
            for m in obs.legal:
                if (m == want) if isinstance(want, tuple) else (m[0] == want):
                    self.script.remove(want)
                    return m
        raise AssertionError(f"no scripted move among {obs.legal}")


def scripted_game(rules, scripts=None, scores=None):
    import random

    scripts = scripts or {}
    strategies = [ScriptedTiles(random.Random(), scripts.get(s, ())) for s in range(rules.players)]
    g = Game(rules, strategies, 1, (0, 0), events=[])
    if scores:
        g.scores = list(scores)
    return g


def play_hand(g, hand_no, leader, hands=None):
    """One hand of ``g`` answered by its strategies (the hand yields only to a driven game)."""
    for seat in g.play_hand(hand_no, leader, hands):
        raise AssertionError(f"a hand with strategies yielded seat {seat}")


def check_game(rules, result):
    """Replay a logged game and check every rule the log can show; returns the number of lays."""
    ev = result.events
    table = rules.points_table
    scores = [0] * len(rules.sides)
    n = rules.players
    lays = 0
    hands = ends = dbl = None
    laid = 0
    hand_no = -1
    last_total = None
    last_seat = None
    pending_points = 0
    for e in ev:
        if e.hand < 0:
            continue
        if e.hand != hand_no:  # a new hand
            assert e.hand == hand_no + 1
            hand_no = e.hand
            hands, ends, dbl, laid = {}, [0, 0], [False, False], 0
            leader = (result.first_leader + hand_no) % n
            first_lay = True
        if e.kind == "deal":
            hands[e.seat] = list(e.note)
            assert len(e.note) == rules.hand_size
            if len(hands) == n:  # F-DEAL-1: distinct tiles; the rest sleep, never drawn
                dealt = [t for h in hands.values() for t in h]
                assert len(set(dealt)) == len(dealt) == n * rules.hand_size <= N_TILES
        elif e.kind == "lay":
            if first_lay:
                assert e.seat == leader, "F-LEAD-1: the lead passes clockwise hand by hand"
                first_lay = False
            assert e.tile in hands[e.seat], "a tile laid must come from the hand (no drawing)"
            assert (e.tile, e.end) in legal_moves(hands[e.seat], ends, dbl, laid), "F-PLAY-1: must match its end"
            hands[e.seat].remove(e.tile)
            total = lay(ends, dbl, laid, (e.tile, e.end))
            laid += 1
            assert total == e.total
            assert (ends[0], dbl[0], ends[1], dbl[1]) == tuple(e.ends)
            out = not hands[e.seat]
            side = rules.side_of[e.seat]
            done = out and all(not hands[s] for s in rules.sides[side])
            pending_points = table[total] + (1 if done and rules.domino_point else 0)
            last_seat, last_total = e.seat, total
            lays += 1
        elif e.kind == "knock":
            assert hands[e.seat], "a seat that is out is skipped, it does not knock"
            assert not legal_moves(hands[e.seat], ends, dbl, laid), "F-PLAY-2: a player who can play must"
        elif e.kind in ("score", "cancel"):
            assert e.seat == last_seat and pending_points > 0
            if e.kind == "score":
                assert e.points == pending_points, (e, last_total)
                scores[rules.side_of[e.seat]] += e.points
                if rules.exact_finish:
                    assert scores[rules.side_of[e.seat]] <= rules.target
            else:
                new = scores[rules.side_of[e.seat]] + pending_points
                assert new > rules.target or (not rules.lead_may_win and laid == 1 and new >= rules.target)
            pending_points = 0
        elif e.kind == "block":
            for h in hands.values():
                if h:
                    assert not legal_moves(h, ends, dbl, laid), "F-END-2: blocked only if nobody can play"
        elif e.kind == "out":
            side = rules.side_of[e.seat]
            assert all(not hands[s] for s in rules.sides[side])
        assert pending_points == 0 or e.kind == "lay", f"a score of {pending_points} was neither given nor cancelled"
    assert list(result.scores) == scores
    winners = [s for s, x in enumerate(scores) if x >= rules.target]
    assert winners == [result.winner], "exactly one side reaches the target, and it wins at once"
    if rules.exact_finish:
        assert scores[result.winner] == rules.target
    return lays
