"""``adaptive`` for Fives and Threes (issue 39, item 6): a player that plays every rules file from
what the engine tells it: a win table learnt once per rule set from hands played through the
engine and kept on disk (a damaged file learnt again), every decision answered by its search
through the engine's own hand, and nothing seen but its own view."""

import random

import pytest

from cribsim.games.fives_threes.engine import Game, Observation, lay, legal_moves, play_game
from cribsim.games.fives_threes.tiles import HAS, N_TILES, parse_tile
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, preset_names
from cribsim.strategy import factory
from strategies.fives_threes import adaptive
from tests.fives_threes.helpers import T, check_game, ft_rules

FT_PRESETS = [n for n in preset_names() if load_rules(n).game == "fives_threes"]
TINY = {"worlds": 3, "learn_hands": 40}


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """Tables learnt here are kept in a folder of this module's own (learnt once per rules file)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        mp.setattr(adaptive, "_MODELS", {})
        yield


def adaptive_player(rules, seed=1, **params):
    return factory("adaptive", {**TINY, **params}, rules=(rules,), game="fives_threes")(random.Random(seed))


@pytest.mark.parametrize("preset", FT_PRESETS)
def test_it_plays_every_rules_file_answering_every_decision_by_its_search(preset, monkeypatch):
    """A whole game of every shipped rules file, adaptive in seat 0 and greedy elsewhere, every
    rule checked on the log; each decision the engine asks it (its only one, ``play``: forced
    lays and knocks are the engine's) is answered after every legal move was valued in every
    world by the search through the engine, never by a default."""
    rules = load_rules(preset)
    valued = []
    value = adaptive.Search.value
    monkeypatch.setattr(adaptive.Search, "value", lambda self, dealt, move, seed: (
        valued.append(move), value(self, dealt, move, seed))[1])
    me = adaptive_player(rules)
    search = me.play
    asked = []

    def play(obs):
        before = len(valued)
        move = search(obs)
        assert sorted(valued[before:]) == sorted(list(obs.legal) * TINY["worlds"]) and move in obs.legal
        asked.append(move)
        return move
    me.play = play
    others = make_strategies([factory("greedy", game="fives_threes")] * (rules.players - 1))
    result = play_game(rules, [me, *others], 7, (2, 0), log=True)
    check_game(rules, result)
    assert result.winner >= 0 and asked


def test_it_takes_the_exact_finish():
    """F-WIN-1: on 59 with ends 3 | 6, [6|6] would make 15 (8 points: 67, cancelled) and [0|3] on
    the 3 makes 6 (2 points: exactly 61, the game). The search finds the win in every world."""
    rules = ft_rules()
    o = Observation(0, 0, rules)
    ends, dbl = [0, 0], [False, False]
    lay(ends, dbl, 0, (parse_tile("3-6"), 0))
    o.hand = tuple(T("6-6 0-3 1-1"))
    o.legal = tuple(legal_moves(o.hand, ends, dbl, 1))
    o.ends, o.total = (ends[0], dbl[0], ends[1], dbl[1]), 9
    o.played, o.knocks, o.scores, o.counts, o.leader = ((1, parse_tile("3-6"), 0),), (), (59, 40), (3, 6), 1
    assert adaptive_player(rules, worlds=8).play(o) == (parse_tile("0-3"), 0)


class _Asked(Exception):
    def __init__(self, view, answer):
        self.view, self.answer = view, answer


class _Forced(Exception):
    """The seat's lay was forced: the engine laid it without asking."""


def _asked_in(rules, dealt, scores, hand_no, leader, history, k, seed):
    """Replay a hand through the engine from ``dealt`` (lays from ``history``) to its ``k``-th
    lay, seat 0's, and ask a fresh adaptive there, inside the engine's own hand: (its view, its
    answer)."""
    def answer(view):
        if len(view.played) < k:
            return history[len(view.played)]
        if len(view.played) > k or view.seat != 0:
            raise _Forced
        seen = {f: getattr(view, f) for f in ("seat", "hand", "legal", "ends", "total", "played", "knocks", "counts",
                                             "scores", "leader", "hand_no")}
        raise _Asked(seen, adaptive_player(rules, seed).play(view))
    g = Game(rules, [], 0, (0, 0), scores=scores, plays=[answer] * rules.players)
    with pytest.raises(_Asked) as got:
        for _ in g.play_hand(hand_no, leader, [list(h) for h in dealt]):
            pass
    return got.value.view, got.value.answer


def _other_deal(rules, dealt, view, rng):
    """A deal that gives the seat its tiles and every other seat the tiles it laid so far, the
    rest drawn at random from the tiles the seat has not seen (none showing a pip that seat
    knocked on)."""
    me = view["seat"]
    laid = {s: [t for p, t, _ in view["played"] if p == s] for s in range(rules.players)}
    free = [t for t in range(N_TILES) if t not in view["hand"] and all(t not in ts for ts in laid.values())]
    rng.shuffle(free)
    out = []
    for s, tiles in enumerate(dealt):
        if s == me:
            out.append(list(tiles))
            continue
        bar = set().union(*(HAS[a] | HAS[b] for p, a, b in view["knocks"] if p == s))
        took = [t for t in free if t not in bar][:view["counts"][s]]
        free = [t for t in free if t not in took]
        out.append(laid[s] + took)
    return out


@pytest.mark.parametrize("preset", ["fives_threes", "fives_threes_partners"])
def test_it_never_sees_a_hidden_tile(preset):
    """At each of its decisions in a real game, a deal that differs from the real one only in the
    tiles the seat has not seen (the other hands and the sleeping tiles, every knock respected),
    replayed through the engine to the same view, gets the same answer: asked from inside the
    engine's hand both times."""
    rules = load_rules(preset)
    me = adaptive_player(rules)
    others = make_strategies([factory("greedy", game="fives_threes")] * (rules.players - 1))
    result = play_game(rules, [me, *others], 5, (4, 0), log=True)
    rng = random.Random(9)
    decisions = differ = 0
    for h in range(result.hands):
        events = [e for e in result.events if e.hand == h]
        dealt = [None] * rules.players
        for e in events:
            if e.kind == "deal":
                dealt[e.seat] = list(e.note)
        history = [(e.tile, e.end) for e in events if e.kind == "lay"]
        mine = [k for k, e in enumerate(e for e in events if e.kind == "lay") if e.seat == 0]
        leader = (result.first_leader + h) % rules.players
        for k in mine[:3]:
            try:
                view, answer = _asked_in(rules, dealt, result.trail[h], h, leader, history, k, 5)
            except _Forced:
                continue
            other = _other_deal(rules, dealt, view, rng)
            differ += sorted(t for s in range(1, rules.players) for t in other[s]) != \
                sorted(t for s in range(1, rules.players) for t in dealt[s])
            assert _asked_in(rules, other, result.trail[h], h, leader, history, k, 5) == (view, answer)
            decisions += 1
    assert decisions >= 5 and differ >= decisions // 2


def test_its_table_is_learnt_once_kept_on_disk_and_rebuilt_when_damaged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(adaptive, "_MODELS", {})
    rules = load_rules("fives_threes")
    first = adaptive.model_for(rules, 40)
    assert "adaptive is learning what fives_threes's board is worth" in capsys.readouterr().err
    kept = list((tmp_path / "cribsim").glob("ft-adaptive-*.json"))
    assert len(kept) == 1
    adaptive._MODELS.clear()
    assert adaptive.model_for(rules, 40).pairs == first.pairs and capsys.readouterr().err == ""  # read from disk
    whole = kept[0].read_text()
    for damaged in ('{"span": ', whole.replace("0.", "7.", 1), whole.replace('"seats": 2', '"seats": 3')):
        kept[0].write_text(damaged)
        adaptive._MODELS.clear()
        assert adaptive.model_for(rules, 40).pairs == first.pairs and "learning" in capsys.readouterr().err
    assert kept[0].read_text() == whole


def test_its_win_table_learns_the_finish_of_each_rule_set():
    """Learnt through the engine's own cancellations: 60 against 50 with the other side to lead
    is a near-certain win when reaching 61 is enough, far from it when exactly 61 is needed; at
    59 all, the side to lead fares worse when the lead may not score the winning points."""
    exact = adaptive.model_for(load_rules("fives_threes"), 400)
    free = adaptive.model_for(load_rules("fives_threes_bounce_free"), 400)
    no_lead = adaptive.model_for(load_rules("fives_threes_no_lead_win"), 400)
    assert free.chance(0, (60, 50), 1) > 0.9 > exact.chance(0, (60, 50), 1) + 0.1
    assert no_lead.chance(0, (59, 59), 0) < exact.chance(0, (59, 59), 0) - 0.1
