"""Random games for every player count with the engine's invariants checked at every step:
cards conserved, count never above 31, every seat plays all its cards unless the game ends,
scores equal the events, exactly one winning side, the game stops at the target."""

import random

import pytest

from cribsim.games.cribbage.cards import VALUE
from cribsim.games.cribbage.engine import GameState, answerers, cut_for_deal, play_game
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules, preset_names
from cribsim.strategy import factory
from strategies.random_play import RandomStrategy

BASE = ["standard", "three_player", "four_player", "four_player_partners", "five_player"]
# every cribbage rules file under configs/rules (the variants too)
PRESETS = [n for n in preset_names() if load_rules(n).game == "cribbage"]


class Checked(RandomStrategy):
    """A random player that checks what it is shown at every decision."""

    def discard(self, obs):
        r = obs.rules
        assert len(set(obs.hand)) == len(obs.hand)
        assert len(obs.hand) == (r.dealer_deal if obs.seat == obs.dealer else r.deal)
        assert obs.discards == (r.dealer_discard if obs.seat == obs.dealer else r.discard)
        assert obs.starter is None  # R-DEAL-3: discards before the starter is seen
        return super().discard(obs)

    def play(self, obs):
        assert 0 <= obs.count <= 30
        assert obs.count == sum(VALUE[c] for c in obs.pile)
        assert set(obs.legal) == {c for c in obs.hand if obs.count + VALUE[c] <= 31}  # R-PEG-2
        assert obs.legal, "asked to play with no legal card"
        assert obs.starter is not None and obs.starter not in obs.hand
        assert not hasattr(obs, "deck") and not hasattr(obs, "hands")
        for seat, count in obs.gos:  # a go is public and true: that seat could not play
            if seat == obs.seat:
                assert all(VALUE[c] > 31 - count for c in obs.hand)
        return super().play(obs)


def check_game(rules, res):
    n = rules.players
    ev = res.events
    sides = res.sides  # the game's own sides and targets (V-TEAM3 changes them game by game)
    side_of = [next(i for i, side in enumerate(sides) if s in side) for s in range(n)]
    targets = res.targets
    # scores equal the events
    side_pts = [0] * len(sides)
    for e in ev:
        side_pts[side_of[e.seat]] += e.points
    assert side_pts == list(res.scores)
    if res.placings:  # R-MATCH-5: the sides placed are those at the target, in the order they got there
        running = [0] * len(sides)
        order = []
        for e in ev:
            if e.points:
                running[side_of[e.seat]] += e.points
                for s in range(len(sides)):
                    if running[s] >= targets[s] and s not in order:
                        order.append(s)
        assert order == list(res.placings) and res.winner == order[0]
        assert len(order) == rules.match.places(len(sides))
        assert tuple(res.order[:len(order)]) == tuple(order)
    else:
        # exactly one side at or over its target, and it is the winner; the last event crossed it
        assert [s >= t for s, t in zip(res.scores, targets)].count(True) == 1
        reached = next(s for s, x in enumerate(res.scores) if x >= targets[s])
        order, shared = rules.program.rank_sides(reached, list(res.scores))
        assert res.winner == order[0] and tuple(res.order) == order  # R-WIN-1 (V-LOWBALL: the other side)
        assert res.shared == shared
        # R-SHOW-2: the game stops the instant the target is reached: whatever follows the first
        # event that reaches it belongs to the same scoring act (same seat, same source, no action)
        running = [0] * len(sides)
        crossed = None
        for i, e in enumerate(ev):
            running[side_of[e.seat]] += e.points
            if crossed is None and any(x >= t for x, t in zip(running, targets)):
                crossed = i
        tail = ev[crossed:]
        assert all(e.points > 0 and e.seat == tail[0].seat and e.source == tail[0].source for e in tail)
        assert side_of[tail[0].seat] == reached
    # per deal: cards conserved, counts, every kept card played unless the game ended
    deals = sorted({e.deal for e in ev if e.deal >= 0})
    assert len(deals) == res.deals
    for k in deals:
        de = [e for e in ev if e.deal == k]
        dealt = [c for e in de if e.source == "deal" and e.reason != "from partner" for c in e.cards]
        starter = [e.cards[0] for e in de if e.source == "starter"]
        canadian = "canadian" in rules.variants  # V-CANADIAN: two seats dealt 10, partners passed 4
        want = 20 if canadian else (n - 1) * rules.deal + rules.dealer_deal + rules.crib_from_deck
        assert len(dealt) == len(set(dealt)) == want
        assert not set(starter) & set(dealt)
        held = {e.seat: list(e.cards) for e in de if e.source == "deal" and e.reason != "crib"}
        for e in de:
            if e.source == "pass":
                for c in e.cards:
                    held[e.seat].remove(c)
            if e.source == "discard":
                for c in e.cards:
                    held[e.seat].remove(c)
                if rules.toss_fives:  # V-TOSSFIVES: every 5 to the crib, or only 5s
                    fives = [c for c in held[e.seat] + list(e.cards) if c >> 2 == 4]
                    thrown5 = [c for c in e.cards if c >> 2 == 4]
                    assert len(thrown5) == min(len(fives), len(e.cards))
        for e in de:
            if e.source == "inspect":  # V-TEAM3-2: the lone player keeps four of its four and the crib's
                crib = [c for x in de if x.source in ("discard",) or (x.source == "deal" and x.reason == "crib")
                        for c in x.cards]
                assert set(e.cards) <= set(held[e.seat]) | set(crib) and len(e.cards) == rules.hand_size
                held[e.seat] = list(e.cards)
        for seat in range(n):
            assert len(held[seat]) == rules.hand_size
        count = 0
        resets = 0
        for e in de:
            if e.source == "lay":
                assert not (rules.play_once and resets), "V-FIVECARD: no card after the first 31 or go"
                held[e.seat].remove(e.cards[0])  # only own cards
                count += VALUE[e.cards[-1]]  # a joker counts as the card named (V-JOKERS)
                assert e.count == count <= 31
            elif e.source == "reset":
                count = 0
                resets += 1
        if k != deals[-1] and not rules.play_once:
            assert all(not h for h in held.values()), "a seat kept cards at the end of the play"
            shows = [e for e in de if e.source == "show"]
            assert len(shows) == n + 1


@pytest.mark.parametrize("preset", PRESETS)
def test_random_games_keep_every_invariant(preset):
    """Every rules file, checked at each step: R-DEAL-2 (what each seat is dealt and throws, every
    hand ends with its 4), R-DEAL-3 (the discards are made before the starter is seen), R-START-1
    (the starter is none of the cards dealt, so it is never laid), R-WIN-1 (the one side that
    reaches its target wins)."""
    rules = load_rules(preset)
    rng = random.Random(preset)
    for i in range(60):
        strategies = [Checked(random.Random()) for _ in range(rules.players)]
        res = play_game(rules, strategies, rng.getrandbits(32), (i, 0), log=True)
        check_game(rules, res)


# variants combined where the rules allow (docs/rules.md, Part 2: "several may be combined")
COMBOS = {
    "muggins+jokers": {"extends": "jokers", "variants": ["muggins"]},
    "lowball+auction": {"extends": "lowball", "variants": ["lowball", "auction"], "score_floor": 0, "max_bid": 8},
    "jokers+partners": {"extends": "four_player_partners", "jokers": 2},
    "toss_fives+jokers+nineteen": {"extends": "toss_fives", "jokers": 2, "null_penalty": True},
    "five_card+back_ten": {"extends": "five_card", "back_ten": "each"},
    "auction+partners+muggins": {"extends": "four_player_partners", "variants": ["auction", "muggins"]},
    "three_player_six+jokers": {"extends": "three_player_dealer_six", "jokers": 2},
    "canadian+lowball": {"extends": "canadian_doubles", "variants": ["canadian", "lowball"]},
}


@pytest.mark.parametrize("combo", sorted(COMBOS))
def test_combined_variants_keep_every_invariant(combo):
    from cribsim.ruleset import rules_from_mapping

    rules = rules_from_mapping(dict(COMBOS[combo], name=combo))
    counters = [(0.05, 0.7)] * rules.players if "muggins" in rules.variants else None
    for i in range(25):  # random explores every corner; ev (up to 0.7 s a game with four players) the skilled ones
        for name in ("random", "ev") if i < 8 else ("random",):
            res = play_game(rules, make_strategies([factory(name)] * rules.players), 5, (i, 0), log=True,
                            counters=counters)
            check_game(rules, res)


@pytest.mark.parametrize("preset", PRESETS)
def test_fast_path_equals_logged_path(preset):
    rules = load_rules(preset)
    for i in range(30):
        a = play_game(rules, [RandomStrategy(random.Random()) for _ in range(rules.players)], 11, (i, 0))
        b = play_game(rules, [RandomStrategy(random.Random()) for _ in range(rules.players)], 11, (i, 0), log=True)
        assert (a.winner, a.scores, a.deals, a.first_dealer, a.by_role) == \
               (b.winner, b.scores, b.deals, b.first_dealer, b.by_role)


def test_same_seed_same_game_and_different_seed_differs():
    rules = load_rules("standard")
    mk = [factory("random")] * 2
    a = play_game(rules, make_strategies(mk), 7, (3, 1), log=True)
    b = play_game(rules, make_strategies(mk), 7, (3, 1), log=True)
    c = play_game(rules, make_strategies(mk), 8, (3, 1), log=True)
    assert a.events == b.events
    assert a.events != c.events


def test_a_deal_replays_alone_from_its_address():
    """The deck of deal k depends only on (seed, match, game, k): replaying deal k alone, with
    the dealer and scores it started with, deals the same hands and the same starter."""
    rules = load_rules("three_player")
    full = play_game(rules, make_strategies([factory("random")] * 3), 5, (9, 2), log=True)
    scores = [0, 0, 0]
    for k in range(full.deals):
        dealer = (full.first_dealer + k) % 3
        g = GameState(rules, 5, (9, 2), dealer, log=True, deal_no=k, scores=scores, until_deal=k)
        from cribsim.games.cribbage.engine import drive
        drive(g, answerers(g.program, make_strategies([factory("random")] * 3)))
        orig = [(e.seat, e.cards) for e in full.events if e.deal == k and e.source in ("deal", "starter")]
        again = [(e.seat, e.cards) for e in g.events if e.source in ("deal", "starter")]
        assert orig == again
        for e in full.events:
            if e.deal == k:
                scores[rules.side_of[e.seat]] += e.points


def test_first_dealer_cut_reproducible_and_fair():
    """R-DEAL-1: the cut for the first deal is reproducible and gives each seat an equal chance."""
    # R-DEAL-1: lowest cut deals; ties recut among the tied only. Over many addresses each seat
    # deals first about equally often.
    from cribsim.games.cribbage.engine import cut_for_deal
    rules = load_rules("three_player")
    firsts = [cut_for_deal(rules, 1, (m, 0)) for m in range(3000)]
    assert firsts == [cut_for_deal(rules, 1, (m, 0)) for m in range(3000)]
    for seat in range(3):
        assert 900 < firsts.count(seat) < 1100


def test_cut_ties_recut_among_tied_only():
    """R-DEAL-1: the lowest card cut deals first; players tied for lowest, and only they, cut again."""
    from cribsim.games.cribbage.cards import RANK
    from cribsim.games.cribbage.engine import cut_for_deal
    rules = load_rules("five_player")
    for m in range(400):
        ev = []
        first = cut_for_deal(rules, 3, (m, 0), ev)
        rounds = {}
        for e in ev:
            rounds.setdefault(e.reason, []).append((e.seat, RANK[e.cards[0]]))
        seq = [rounds[k] for k in sorted(rounds, key=lambda r: int(r.split()[1]))]
        for prev, nxt in zip(seq, seq[1:]):
            low = min(r for _, r in prev)
            assert sorted(s for s, _ in nxt) == sorted(s for s, r in prev if r == low)
        low = min(r for _, r in seq[-1])
        assert [s for s, r in seq[-1] if r == low] == [first]


@pytest.mark.parametrize("preset", BASE)
def test_the_deal_passes_one_seat_clockwise_with_every_hand(preset):
    """R-DEAL-1: the cut picks the first dealer, then the deal moves one seat to the left with
    every hand (the dealer turns the starter and owns the crib)."""
    rules = load_rules(preset)
    n = rules.players
    for i in range(5):
        res = play_game(rules, make_strategies([factory("random")] * n), 4, (i, 0), log=True)
        assert res.first_dealer == cut_for_deal(rules, 4, (i, 0))
        dealers = [e.seat for e in res.events if e.source == "starter"]
        assert dealers == [(res.first_dealer + k) % n for k in range(res.deals)]
        cribs = [e.seat for e in res.events if e.source == "show" and e.reason == "crib"]
        assert res.deals > 2 and len(cribs) >= res.deals - 1 and cribs == dealers[:len(cribs)]
