"""Fives and Threes (docs/rules.md, Part 3): the source page's worked positions, the exact finish,
partnerships, every F-VAR knob, and random games of every config with invariants checked."""

import random

import pytest

from cribsim.errors import ConfigError, CribsimError
from cribsim.games.fives_threes.engine import GameOver, draw_for_lead, lay, legal_moves, play_game
from cribsim.games.fives_threes.match import play_match
from cribsim.games.fives_threes.tiles import HAS, N_TILES, PIPS, TILES, parse_tile, tile_str
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, preset_names, rules_from_mapping
from cribsim.strategy import factory
from tests.fives_threes.helpers import T, check_game, ft_rules, play_hand, scripted_game

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

RULES = ft_rules()


def layout_points(*moves):
    """(total, points) after laying (tile, end) moves from an empty table."""
    ends, dbl = [0, 0], [False, False]
    total = None
    for i, (text, end) in enumerate(moves):
        total = lay(ends, dbl, i, (parse_tile(text), end))
    return total, RULES.points(total)


# ---- F-SET-1, tiles -------------------------------------------------------------------------

def test_double_six_set():
    """F-SET-1: the double-six set, 28 tiles [a|b] with 0 <= a <= b <= 6, each once."""
    assert N_TILES == 28  # F-SET-1
    assert sorted(TILES) == [(a, b) for a in range(7) for b in range(7) if a <= b] and len(set(TILES)) == 28
    assert [tile_str(t) for t in T("1-4 4|1 [6|6] 00")] == ["[1|4]", "[1|4]", "[6|6]", "[0|0]"]
    assert all(len(HAS[p]) == 7 for p in range(7))
    with pytest.raises(CribsimError, match="cannot read tile"):
        parse_tile("7-1")


# ---- F-SCORE-1: the source page's worked positions -------------------------------------------

def test_score_table():
    """F-SCORE-1's table: the end totals that score in a double-six set, and nothing else."""
    # F-SCORE-1: 3:1 5:1 6:2 9:3 10:2 12:4 15:8 18:6 20:4, nothing else up to 20
    want = {3: 1, 5: 1, 6: 2, 9: 3, 10: 2, 12: 4, 15: 8, 18: 6, 20: 4}
    assert {t: RULES.points(t) for t in range(21) if RULES.points(t)} == want


def test_worked_positions_from_the_source_page():
    """F-SCORE-1 and F-PLAY-1: a lone first tile and a double at an end count both halves."""
    # F-SCORE-1 / F-PLAY-1, the positions drawn on the source page
    assert layout_points(("1-4", 0)) == (5, 1)  # a lone opening tile counts both halves
    assert layout_points(("1-4", 0), ("1-1", 0)) == (6, 2)  # the double at an end counts 2
    assert layout_points(("3-6", 0), ("6-6", 1)) == (15, 8)  # 3 + 12: 5 by threes + 3 by fives
    assert layout_points(("2-2", 0)) == (4, 0)  # an opening double counts 2d once
    assert layout_points(("0-0", 0)) == (0, 0)  # zero is not a positive multiple
    # [1|4], [1|1] on the 1, [4|4] on the 4: 2 + 8 = 10, 2 points; then [3|4]: 2 + 3 = 5, 1 point
    assert layout_points(("1-4", 0), ("1-1", 0), ("4-4", 1)) == (10, 2)
    assert layout_points(("1-4", 0), ("1-1", 0), ("4-4", 1), ("3-4", 1)) == (5, 1)


def test_no_spinner_the_opening_double_has_two_ends_only():
    """F-PLAY-1: a tile joins a matching open end; the line keeps two ends, no spinner."""
    # F-PLAY-1: after an opening double and one tile on it, the double still counts both halves
    assert layout_points(("5-5", 0), ("5-0", 0)) == (10, 2)  # 0 + 5 + 5
    from cribsim.games.fives_threes.engine import legal_moves
    ends, dbl = [0, 5], [False, True]
    assert legal_moves(T("5-6 0-5"), ends, dbl, 2) == [(parse_tile("5-6"), 1), (parse_tile("0-5"), 0),
                                                       (parse_tile("0-5"), 1)]
    # two identical ends (the opening double): each tile listed once
    assert legal_moves(T("5-6"), [5, 5], [True, True], 1) == [(parse_tile("5-6"), 0)]


def test_all_fives_scores_multiples_of_five_only():
    r = ft_rules(score_threes=False)  # F-VAR "All Fives"
    assert {t: r.points(t) for t in range(21) if r.points(t)} == {5: 1, 10: 2, 15: 3, 20: 4}


# ---- F-WIN-1: the exact finish -------------------------------------------------------------

# A two-tile hand for two players, Alice (seat 0) leading:
#   Alice leads [1|3] (4: nothing);  Bob [3|3] -> 1|3d = 7 (nothing);
#   Alice's last tile [0|1] -> 0|3d = 6: 2 for the ends and 1 for domino, one event of 3
LAST_TILE = [T("1-3 0-1"), T("3-3 2-5")]
LEAD = {0: T("1-3")}


def test_exact_61_last_tile_that_would_make_62_scores_nothing_and_ends_the_hand():
    """F-WIN-1: ends and domino point are one event; passing 61 cancels it whole; the hand ends."""
    # F-WIN-1: Alice on 59; her last tile's 2 + 1 would make 62: cancelled whole, hand over
    g = scripted_game(ft_rules(hand_size=2), LEAD, scores=[59, 0])
    play_hand(g, 0, 0, hands=LAST_TILE)
    assert g.scores == [59, 0]
    kinds = [e.kind for e in g.events if e.kind != "deal"]
    assert kinds == ["lay", "lay", "lay", "cancel", "out"]


def test_exact_61_ends_six_without_going_out_scores_two_and_wins():
    """F-WIN-1: landing on 61 exactly wins at once."""
    # F-WIN-1: Alice on 59; Bob leads [3|3] (6: 2); Alice's [0|3] makes 0 + 6 = 6 and she still
    # holds [5|5]: 59 + 2 = 61 exactly, she wins at once
    g = scripted_game(ft_rules(hand_size=2), {1: T("3-3")}, scores=[59, 0])
    with pytest.raises(GameOver) as over:
        play_hand(g, 0, 1, hands=[T("0-3 5-5"), T("3-3 1-2")])
    assert over.value.side == 0 and g.scores == [61, 2]


def test_bounce_free_variant_reaches_or_passes():
    # F-VAR: without the exact finish, 59 + 3 = 62 wins
    g = scripted_game(ft_rules(hand_size=2, exact_finish=False), LEAD, scores=[59, 0])
    with pytest.raises(GameOver) as over:
        play_hand(g, 0, 0, hands=LAST_TILE)
    assert over.value.side == 0 and g.scores == [62, 0]


def test_lead_may_not_win_variant():
    # F-VAR: with lead_may_win false, a lead of [2|4] (6: 2) from 59 is cancelled; allowed, it wins
    g = scripted_game(ft_rules(hand_size=2, lead_may_win=False), {0: T("2-4")}, scores=[59, 0])
    play_hand(g, 0, 0, hands=[T("2-4 6-6"), T("0-0 1-1")])
    assert g.scores[0] == 59 and "cancel" in [e.kind for e in g.events]
    g = scripted_game(ft_rules(hand_size=2), {0: T("2-4")}, scores=[59, 0])
    with pytest.raises(GameOver):
        play_hand(g, 0, 0, hands=[T("2-4 6-6"), T("0-0 1-1")])


def test_no_domino_point_variant():
    # F-VAR: domino point off: Alice's last tile scores just the 2 for the ends
    g = scripted_game(ft_rules(hand_size=2, domino_point=False), LEAD)
    play_hand(g, 0, 0, hands=LAST_TILE)
    assert g.scores == [2, 0]


# ---- F-END-1, F-END-2: partnerships and blocks -------------------------------------------

def test_partnership_first_partner_out_does_not_end_the_hand():
    """F-END-1: with four, play passes over a partner who is out; the domino point comes when the
    second partner goes out. F-SET-1: seats 3 and 1 score into their partnership's one score."""
    # F-END-1 (seats 0+2 against 1+3, two tiles each, seat 0 leads [0|1]):
    #  s0 [0|1] -> 0|1 = 1;  s1 knocks (2-3, 6-6);  s2 [1|3] -> 0|3 = 3: 1 (A)
    #  s3 [3|6] -> 0|6 = 6: 2 (B);  s0 [0|2] -> 2|6 = 8, s0 is out: the hand goes on, no domino
    #  s1 chooses [6|6] -> 2|6d = 14;  s2 knocks (4-5);  s3 [5|6] -> 2|5 = 7, s3 out (first of B)
    #  s0 is skipped;  s1 [2|3] -> 3|5 = 8: s1 out, B's second partner: 1 for domino
    rules = ft_rules(players=4, hand_size=2)
    g = scripted_game(rules, {0: T("0-1"), 1: T("6-6"), 2: T("1-3"), 3: T("3-6")})
    play_hand(g, 0, 0, hands=[T("0-1 0-2"), T("2-3 6-6"), T("1-3 4-5"), T("3-6 5-6")])
    assert g.scores == [1, 3]
    lays = [(e.seat, tile_str(e.tile), e.total) for e in g.events if e.kind == "lay"]
    assert lays == [(0, "[0|1]", 1), (2, "[1|3]", 3), (3, "[3|6]", 6), (0, "[0|2]", 8),
                    (1, "[6|6]", 14), (3, "[5|6]", 7), (1, "[2|3]", 8)]
    scores = [(e.seat, e.points, e.note) for e in g.events if e.kind == "score"]
    assert scores[-1] == (1, 1, "1 for domino")
    assert g.stats[5] == 1 and g.stats[1] == 0  # one domino point, not blocked


def test_partnership_block_with_one_player_left_per_side():
    """F-END-2: nobody still holding tiles can lay: the hand is blocked, no domino point, and the
    tiles left count nothing."""
    # F-END-2: s0 leads [0|0]; s1 [0|2] -> 2|0d = 2; s2, s3 knock; s0 [0|1] -> 2|1 = 3: 1, s0 out;
    # s1 [2|2] -> 2d|1 = 5: 1, s1 out; s2 and s3 (one per side) cannot play: blocked, no domino
    rules = ft_rules(players=4, hand_size=2)
    g = scripted_game(rules, {0: T("0-0")})
    play_hand(g, 0, 0, hands=[T("0-0 0-1"), T("0-2 2-2"), T("5-5 6-6"), T("4-4 3-3")])
    assert g.scores == [1, 1]
    assert g.stats[1] == 1 and g.stats[5] == 0
    assert [e.kind for e in g.events][-3:] == ["knock", "knock", "block"]


def test_two_players_going_out_ends_the_hand_with_the_domino_point():
    """F-END-1: with two, going out ends the hand and earns 1 for domino."""
    # F-END-1: Alice's last tile scores 2 for the ends + 1 for domino; the hand is over
    g = scripted_game(ft_rules(hand_size=2), LEAD)
    play_hand(g, 0, 0, hands=LAST_TILE)
    assert g.scores == [3, 0] and g.events[-1].kind == "out"


# ---- F-LEAD-1 -------------------------------------------------------------------------------

def test_draw_for_lead_is_fair_and_redraws_ties():
    """F-LEAD-1: the draw for the first lead is fair, and a tie is drawn again among fewer players."""
    for n in (2, 3, 4):
        r = ft_rules(players=n, **({"hand_size": 5} if n > 2 else {}))
        counts = [0] * n
        for k in range(3000):
            counts[draw_for_lead(r, 7, (k, 0))] += 1
        assert all(abs(c / 3000 - 1 / n) < 0.04 for c in counts), counts
    events = []
    found = False
    for k in range(200):  # some address has a tie; its redraw is among the tied only
        events.clear()
        draw_for_lead(ft_rules(players=4, hand_size=5), 7, (k, 0), events)
        if any(e.note == "round 2" for e in events):
            found = True
            assert len([e for e in events if e.note == "round 2"]) < 4
            break
    assert found


def test_the_most_pips_lead_and_only_the_tied_draw_again():
    """F-LEAD-1: every player draws a tile and the most pips leads; those tied for the most, and
    only they, draw again; a game's first leader is the draw's; the leader may lay any tile."""
    rules = ft_rules(players=4)
    redraws = 0
    for k in range(300):
        events = []
        first = draw_for_lead(rules, 7, (k, 0), events)
        rounds = {}
        for e in events:
            rounds.setdefault(int(e.note.split()[1]), []).append((e.seat, PIPS[e.tile]))
        seq = [rounds[r] for r in sorted(rounds)]
        assert sorted(s for s, _ in seq[0]) == [0, 1, 2, 3]
        for prev, nxt in zip(seq, seq[1:]):
            top = max(p for _, p in prev)
            assert sorted(s for s, _ in nxt) == sorted(s for s, p in prev if p == top)
        top = max(p for _, p in seq[-1])
        assert [s for s, p in seq[-1] if p == top] == [first]
        redraws += len(seq) > 1
    assert redraws
    makers = [factory("random", game="fives_threes")] * 4
    assert all(play_game(rules, make_strategies(makers), 7, (k, 0)).first_leader == draw_for_lead(rules, 7, (k, 0))
               for k in range(5))
    hand = T("0-0 1-6 2-5 3-3 4-6")
    assert legal_moves(hand, [0, 0], [False, False], 0) == [(t, 0) for t in hand]


# ---- F-SET-1, F-DEAL-1, F-PLAY-2, F-MATCH-1 ---------------------------------------------------

def test_two_to_four_players_four_as_facing_partnerships():
    """F-SET-1: two, three or four play; with two or three each plays alone, with four the facing
    seats (0 and 2, 1 and 3) are partners sharing one score."""
    assert ft_rules(players=2).sides == ((0,), (1,))
    assert ft_rules(players=3).sides == ((0,), (1,), (2,))
    r4 = ft_rules(players=4)
    assert r4.sides == ((0, 2), (1, 3)) and r4.side_of == (0, 1, 0, 1)
    for bad in (1, 5):
        with pytest.raises(ConfigError) as err:
            ft_rules(players=bad)
        assert err.value.key == "players"
    # (the shared score is played out in test_partnership_first_partner_out_does_not_end_the_hand)


@pytest.mark.parametrize("players, size, asleep", [(2, 7, 14), (3, 5, 13), (4, 5, 8)])
def test_the_deal_and_the_sleeping_tiles(players, size, asleep):
    """F-DEAL-1: 7 tiles each with two players, 5 each with three or four; the tiles left over
    sleep: every tile laid comes from its player's own deal, nobody ever draws."""
    rules = ft_rules(players=players)
    assert rules.hand_size == size
    makers = [factory("random", game="fives_threes")] * players
    for k in range(8):
        g = play_game(rules, make_strategies(makers), 3, (k, 0), log=True)
        for h in range(g.hands):
            ev = [e for e in g.events if e.hand == h]
            dealt = {e.seat: e.note for e in ev if e.kind == "deal"}
            tiles = [t for hand in dealt.values() for t in hand]
            assert sorted(dealt) == list(range(players)) and {len(x) for x in dealt.values()} == {size}
            assert len(set(tiles)) == len(tiles) and N_TILES - len(tiles) == asleep
            assert all(e.tile in dealt[e.seat] for e in ev if e.kind == "lay")


def test_a_player_who_cannot_lay_knocks_and_one_who_can_must_lay():
    """F-PLAY-2: a player with no tile that fits knocks and the turn moves on; one whose tile
    fits lays it. F-END-1: with three, the first player out ends the hand with 1 for domino."""
    # Three players, two tiles each. Alice leads [1|3] (1|3 = 4: nothing); Bob holds [5|5] [6|6]:
    # knocks; Claire's [3|4] fits the 3 and she must lay it (1|4 = 5: 1); Alice's [0|1] on the 1
    # (0|4 = 4: nothing) is her last tile: 1 for domino and the hand is over, Bob and Claire
    # still holding a tile each, which counts nothing.
    g = scripted_game(ft_rules(players=3, hand_size=2), {0: T("1-3")})
    play_hand(g, 0, 0, hands=[T("1-3 0-1"), T("5-5 6-6"), T("3-4 2-2")])
    assert [(e.kind, e.seat) for e in g.events if e.kind != "deal"] == [
        ("lay", 0), ("knock", 1), ("lay", 2), ("score", 2), ("lay", 0), ("score", 0), ("out", 0)]
    assert [tile_str(e.tile) for e in g.events if e.kind == "lay"] == ["[1|3]", "[3|4]", "[0|1]"]
    assert g.scores == [1, 0, 1]


def test_a_match_to_n_games_or_of_a_fixed_number_one_game_point_a_game():
    """F-MATCH-1: a match lasts until a side has won N games, or for a fixed number of games;
    each game won is worth 1 game point, with no skunks."""
    makers = [factory("random", game="fives_threes")] * 2
    for key in range(4):
        m = play_match(ft_rules(match={"first_to": 3}), makers, 5, key)
        wins = [sum(g.winner == s for g in m.games) for s in range(2)]
        assert m.game_points == wins and max(wins) == 3 and wins[m.winner] == 3
        assert m.games[-1].winner == m.winner and set(m.skunks) == {0}  # it stops at the third win
        m = play_match(ft_rules(match={"games": 4}), makers, 5, key)
        wins = [sum(g.winner == s for g in m.games) for s in range(2)]
        assert len(m.games) == 4 and m.game_points == wins
        assert m.winner == (-1 if wins == [2, 2] else wins.index(max(wins)))


# ---- rules files and validation ---------------------------------------------------------------

FT_PRESETS = [n for n in preset_names() if load_rules(n).game == "fives_threes"]


def test_every_f_var_knob_has_a_rules_file():
    assert {"fives_threes", "fives_threes_partners", "fives_threes_teesdale", "fives_threes_bounce_free",
            "all_fives"} <= set(FT_PRESETS)
    assert load_rules("fives_threes_teesdale").hand_size == 9
    assert load_rules("fives_threes_teesdale_partners").hand_size == 6
    assert load_rules("fives_threes_partners").sides == ((0, 2), (1, 3))


@pytest.mark.parametrize("data, key, what", [
    ({"players": 5}, "players", "2..4"),
    ({"players": 4, "hand_size": 8}, "hand_size", "32 tiles"),
    ({"deal": 6}, "deal", "unknown key"),
    ({"exact_finish": "yes"}, "exact_finish", "true or false"),
    ({"game": "chess"}, "game", "cribbage, fives_threes"),
])
def test_bad_rules_are_one_line_errors(data, key, what):
    with pytest.raises(ConfigError) as err:
        ft_rules(**data) if "game" not in data else rules_from_mapping(data, "x.yaml")
    assert err.value.key == key and what in str(err.value) and "\n" not in str(err.value)


# ---- random games of every config: invariants at every step ----------------------------------

@pytest.mark.parametrize("preset", FT_PRESETS)
def test_random_games_of_every_config_keep_the_invariants(preset):
    rules = load_rules(preset)
    games = 120 if rules.players == 2 else 60
    for k in range(games):
        names = ["random", "greedy", "defensive"]
        makers = [factory(names[(k + s) % 3], game="fives_threes") for s in range(rules.players)]
        g = play_game(rules, make_strategies(makers), 11, (k, 0), log=True)
        check_game(rules, g)


def test_search_strategy_plays_legal_games():
    for preset in ("fives_threes", "fives_threes_three", "fives_threes_partners"):
        rules = load_rules(preset)
        makers = [factory("mc", {"samples": 4}, game="fives_threes")] + \
                 [factory("greedy", game="fives_threes")] * (rules.players - 1)
        g = play_game(rules, make_strategies(makers), 3, (1, 0), log=True)
        check_game(rules, g)


def test_same_seed_same_game_and_match():
    rules = load_rules("fives_threes_partners")
    makers = [factory("defensive", game="fives_threes")] * 4
    a = play_game(rules, make_strategies(makers), 5, (9, 0), log=True)
    b = play_game(rules, make_strategies(makers), 5, (9, 0), log=True)
    assert a.events == b.events
    rules = ft_rules(match={"first_to": 3})
    m = play_match(rules, [factory("random", game="fives_threes")] * 2, 5, 4)
    assert max(m.game_points) == 3 and len(m.games) >= 3
    # the lead keeps rotating from game to game (F-LEAD-1)
    for prev, nxt in zip(m.games, m.games[1:]):
        assert nxt.first_leader == (prev.last_leader + 1) % 2


# ---- strategies: hand-worked decisions --------------------------------------------------------

def obs_for(rules, hand, played, scores=(0, 0), seat=0, knocks=(), counts=None):
    """An Observation after laying ``played`` ((seat, text, end) from an empty table)."""
    from cribsim.games.fives_threes.engine import Observation, legal_moves

    o = Observation(seat, rules.side_of[seat], rules)
    ends, dbl = [0, 0], [False, False]
    pl = []
    for i, (s, text, end) in enumerate(played):
        lay(ends, dbl, i, (parse_tile(text), end))
        pl.append((s, parse_tile(text), end))
    o.hand = tuple(T(hand))
    o.legal = tuple(legal_moves(o.hand, ends, dbl, len(pl)))
    o.ends = (ends[0], dbl[0], ends[1], dbl[1]) if pl else None
    o.played, o.knocks, o.scores = tuple(pl), tuple(knocks), tuple(scores)
    o.counts = tuple(counts or [len(o.hand)] * rules.players)
    return o


def choose(name, o, **params):
    return factory(name, params, game="fives_threes")(random.Random(1)).play(o)


def test_greedy_takes_the_fifteen():
    # ends 3 | 6 after Bob's [3|6] lead: [6|6] on the 6 makes 3 + 12 = 15 (8 points, F-SCORE-1);
    # [2|3] on the 3 makes 2 + 6 = 8 (nothing)
    o = obs_for(RULES, "6-6 2-3", [(1, "3-6", 0)])
    assert choose("greedy", o) == (parse_tile("6-6"), 1)


@pytest.mark.parametrize("name", ["greedy", "defensive", "mc"])
def test_every_strategy_respects_the_exact_finish(name):
    # F-WIN-1: Alice on 59, ends 3 | 6. [6|6] would make 15 (8: 67, cancelled, nothing);
    # [0|3] on the 3 makes 0 + 6 = 6 (2: exactly 61, wins). Each strategy must take the 61.
    o = obs_for(RULES, "6-6 0-3 1-1", [(1, "3-6", 0)], scores=(59, 40))
    params = {"samples": 8} if name == "mc" else {}
    assert choose(name, o, **params) == (parse_tile("0-3"), 0)


def test_defensive_avoids_leaving_an_easy_reply():
    # Bob led [0|1] (ends 0 | 1). Alice holds [0|3] and [1|2]; neither scores now.
    #   [0|3] on the 0 leaves 3 | 1: Bob's [1|6] would make 3 + 6 = 9 (3 points), [1|3] or [3|5]
    #   6 (2), [1|1], [2|3] or [3|4] 5 or 3 (1).
    #   [1|2] on the 1 leaves 0 | 2: [0|4] or [2|6] make 6 (2), [2|3] or [2|5] 3 or 5 (1).
    # Bob holds 7 of the 25 unseen tiles (p = 0.28 each): expected best reply 1.77 against 1.21.
    # So defensive lays [1|2]; greedy sees two zeros and would toss a coin.
    o = obs_for(RULES, "0-3 1-2", [(1, "0-1", 0)])
    assert choose("defensive", o) == (parse_tile("1-2"), 1)


def test_search_samples_respect_knocks():
    # Bob knocked on ends 2 | 5: every deal the search samples gives him no tile showing 2 or 5
    from strategies.fives_threes.mc import SearchTiles

    o = obs_for(RULES, "0-1 0-2 3-3", [(0, "2-5", 0)], knocks=((1, 2, 5),), counts=(3, 7))
    s = SearchTiles(random.Random(3), samples=4)
    pool = __import__("cribsim.games.fives_threes.strategy", fromlist=["unseen"]).unseen(o)
    bars = {1: __import__("cribsim.games.fives_threes.strategy", fromlist=["excluded"]).excluded(o, 1)}
    for _ in range(200):
        hands = s._sample(o, pool, [1], bars)
        assert len(hands[1]) == 7
        assert not any(t in HAS[2] or t in HAS[5] for t in hands[1])
        assert not set(hands[1]) & set(T("0-1 0-2 3-3 2-5"))


def test_narrated_game(capsys):
    from cribsim.cli.main import main

    assert main(["play", "--rules", "fives_threes_partners", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "leads" in out and "ends" in out and "scores" in out and "win" in out.splitlines()[-1]


def test_tile_strategy_faults_are_forfeits(tmp_path):
    from cribsim.tournament.config import load_experiment
    from cribsim.tournament.runner import run_experiment

    cfg = tmp_path / "x.yaml"
    cfg.write_text("name: x\ngame: fives_threes\nlineup: [greedy, {name: cheat, strategy: "
                   "'tests.kernel.bad_strategies:TileCheater'}]\nmatches: 60\nseed: 2\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    forfeits = (tmp_path / "out" / "forfeits.csv").read_text()
    assert "tile boom" in forfeits and "not a legal move" in forfeits


# ---- the independent referee's findings (issue 26) ----------------------------------------------

@pytest.mark.parametrize("preset", ["fives_threes", "fives_threes_no_lead_win", "fives_threes_partners"])
def test_the_tallies_count_every_event_the_winning_one_included(preset):
    """F-SCORE-1, F-END-1: the placement and domino tallies of a game add up to every point scored
    (the leader's side's and the others'), the event that wins the game included."""
    rules = load_rules(preset)
    for key in range(30):
        g = play_game(rules, make_strategies([factory("greedy", game="fives_threes")] * rules.players), 5, (key, 0))
        m = g.record(0, rules).metrics
        assert m["placement_points"] + m["domino_points"] == m["leader_points"] + m["other_points"]
        assert m["leader_points"] + m["other_points"] == sum(g.scores)


def test_a_cancelled_score_is_narrated_with_its_reason(capsys):
    """F-WIN-1 and F-VAR: past the target under the exact finish, or the winning points on a lead
    that may not win (exactly 61 here, or with the exact finish off)."""
    from cribsim.cli.main import main

    assert main(["play", "--rules", "fives_threes_no_lead_win", "--seed", "79"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "cancelled" in ln]
    assert any("2 would make 61: cancelled, the lead may not score the winning points (F-VAR)" in ln for ln in lines)
    for ln in lines:
        made = int(ln.split("would make ")[1].split(":")[0])
        assert ("under the exact finish" in ln) == (made > 61), ln
    rules = ft_rules(exact_finish=False, lead_may_win=False)
    from cribsim.games.fives_threes.engine import cancelled

    assert cancelled(rules, 64, True) == "the lead may not score the winning points (F-VAR)"
    assert cancelled(rules, 64, False) == ""


@pytest.mark.parametrize("data, key, rule", [
    ({"players": 4, "sides": [[0], [1], [2], [3]]}, "sides", "F-SET-1"),  # four alone
    ({"players": 4, "sides": [[0, 1], [2, 3]]}, "sides", "F-SET-1"),  # partners side by side
    ({"players": 3, "sides": [[0, 2], [1]]}, "sides", "F-SET-1"),  # a partnership among three
    ({"hand_size": 1, "lead_may_win": False}, "lead_may_win", "F-VAR"),  # no game could end
    ({"players": 3, "hand_size": 1, "lead_may_win": False}, "lead_may_win", "F-VAR"),
    ({"match": {"scoring": "continued"}}, "match.scoring", "F-MATCH-1"),
    ({"match": {"scoring": "winner_takes_all"}}, "match.scoring", "F-MATCH-1"),
    ({"match": {"game_points": {"skunk": 3}}}, "match.game_points", "F-MATCH-1"),
    ({"match": {"game_points": "acc"}}, "match.game_points", "F-MATCH-1"),
    ({"match": {"triple_skunk_wins_match": True}}, "match.triple_skunk_wins_match", "F-MATCH-1"),
])
def test_what_the_rules_do_not_define_is_refused_naming_the_key_and_the_rule(data, key, rule):
    with pytest.raises(ConfigError) as err:
        ft_rules(**data)
    assert err.value.key == key and rule in str(err.value) and "\n" not in str(err.value)


def test_what_the_rules_define_still_loads():
    """F-SET-1: four as facing partnerships in either order of the sides; F-VAR: one tile each
    with partners (a partner's tile is not a lead, so a game can end); F-MATCH-1: N games."""
    assert ft_rules(players=4, sides=[[1, 3], [0, 2]]).sides == ((1, 3), (0, 2))
    r = ft_rules(players=4, hand_size=1, lead_may_win=False)
    g = play_game(r, make_strategies([factory("random", game="fives_threes")] * 4), 1, (0, 0))
    assert max(g.scores) == 61
    assert ft_rules(match={"games": 3}).match.games == 3


def test_an_experiment_match_that_fives_and_threes_does_not_define_is_refused(tmp_path):
    """F-MATCH-1, for a match format an experiment sets over its variants."""
    from cribsim.tournament.config import load_experiment

    cfg = tmp_path / "x.yaml"
    cfg.write_text("game: fives_threes\nlineup: [random, greedy]\nmatch: {scoring: winner_takes_all}\nmatches: 2\n")
    with pytest.raises(ConfigError, match="F-MATCH-1"):
        load_experiment(cfg)


@pytest.mark.parametrize("game, parent", [("fives_threes", "fives_threes"), ("cribbage", "standard")])
def test_a_childs_match_length_replaces_the_parents(tmp_path, game, parent):
    """F-MATCH-1, R-MATCH-1: a rules file extending one with first_to asks for a fixed number
    of games (and the other way round): the child's choice replaces the parent's."""
    (tmp_path / "parent.yaml").write_text(f"game: {game}\nextends: {parent}\nmatch: {{first_to: 1}}\n")
    (tmp_path / "child.yaml").write_text("extends: parent.yaml\nmatch: {games: 4}\n")
    (tmp_path / "grandchild.yaml").write_text("extends: child.yaml\nmatch: {first_to: 3}\n")
    child = load_rules(str(tmp_path / "child.yaml"))
    assert (child.match.games, child.match.first_to) == (4, 0)
    grandchild = load_rules(str(tmp_path / "grandchild.yaml"))
    assert (grandchild.match.games, grandchild.match.first_to) == (0, 3)
