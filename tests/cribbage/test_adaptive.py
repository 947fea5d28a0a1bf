"""``adaptive`` (issue 39): a player that plays every rule set, a designer's own variants
included, from what the engine tells it: the engine's scratch count of a show (every hook), a
crib table learnt once per rule set through the engine and kept on disk, every decision a
variant adds answered by simulation (never the decision's default), and nothing seen but its
own view."""

import random
from pathlib import Path

import pytest

from cribsim.games import game_named
from cribsim.games.cribbage.engine import game as engine_game
from cribsim.games.cribbage.engine.rollout import ShowCount
from cribsim.games.cribbage.engine.state import GameState
from cribsim.games.cribbage.worlds import world
from cribsim.ruleset import load_rules
from cribsim.strategy import answer_fn, factory, unmodelled
from strategies import adaptive

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "variants"
TINY = {"learn_deals": 20, "learn_samples": 20, "rollouts": 2, "discard_rollouts": 2, "worlds": 2, "candidates": 3}


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Models learnt here are kept in a folder of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(adaptive, "_MODELS", {})


def card(text: str) -> int:
    ranks, suits = "A23456789TJQK", "CDHS"
    return ranks.index(text[0]) * 4 + suits.index(text[1])


def cards(text: str) -> list[int]:
    return [card(t) for t in text.split()]


def test_the_engines_show_count_awards_every_hook():
    """Counted on a scratch game through the engine's own count: 5C 5D 5H JS with the 5S
    starter is 29 in hand and in the crib; crib3 awards a crib three times, under4 takes back
    a hand under four, dealer_double gives a dealer's hand twice."""
    hand, starter = cards("5C 5D 5H JS"), card("5S")
    low, cut = cards("2C 4D 9H KS"), card("7C")  # 2 + 4 + 9: one fifteen, 2 points
    std = ShowCount(load_rules("standard"))
    assert std.count(0, hand, starter, crib=True) == [29, 0]
    assert std.count(1, hand, starter, dealer=0) == [0, 29]
    assert std.count(1, low, cut, dealer=0) == [0, 2]
    crib3 = ShowCount(load_rules(str(EXAMPLES / "crib3.yaml")))
    assert crib3.count(0, hand, starter, crib=True) == [87, 0]
    assert crib3.count(1, hand, starter, dealer=0) == [0, 29]  # a hand is counted once
    under4 = ShowCount(load_rules(str(EXAMPLES / "under4.yaml")))
    assert under4.count(1, low, cut, dealer=0) == [0, 0] and under4.count(1, hand, starter, dealer=0) == [0, 29]
    double = ShowCount(load_rules(str(EXAMPLES / "dealer_double.yaml")))
    assert double.count(0, hand, starter, dealer=0) == [58, 0] and double.count(1, hand, starter, dealer=0) == [0, 29]
    # the whole show: the pone's hand, the dealer's, then the crib (its owner's), every hook
    kept, crib = [low, hand[2:] + cards("QC KD")], hand[:2] + cards("AD 6S")
    plain = std.show(kept, crib, cut, dealer=1)
    again = std.count(1, crib, cut, crib=True)[1]
    assert again > 0 and crib3.show(kept, crib, cut, dealer=1) == [plain[0], plain[1] + 2 * again]


def test_adaptive_models_every_rule_so_no_run_warns_about_it():
    for name in ("crib3", "under4", "dealer_double", "pone_crib", "crib_pone", "no_crib", "no_pairs"):
        r = load_rules(str(EXAMPLES / f"{name}.yaml"))
        assert unmodelled("ev", r) and unmodelled("adaptive", r) == []
    assert adaptive.AdaptiveStrategy.models.everything


def test_its_model_is_learnt_once_kept_on_disk_and_rebuilt_when_damaged(tmp_path, capsys):
    r = load_rules(str(EXAMPLES / "crib3.yaml"))
    first = adaptive.model_for(r, 20, 20)
    assert "adaptive is learning what crib3's show is worth" in capsys.readouterr().err
    kept = list((tmp_path / "cache" / "cribsim").glob("adaptive-*.json"))
    assert len(kept) == 1
    adaptive._MODELS.clear()
    assert adaptive.model_for(r, 20, 20) == first and capsys.readouterr().err == ""  # read from disk
    kept[0].write_text('{"own": ')  # damaged
    adaptive._MODELS.clear()
    assert adaptive.model_for(r, 20, 20) == first and "learning" in capsys.readouterr().err
    # crib3's crib is worth about three times the standard one to its owner
    std = adaptive.model_for(load_rules("standard"), 20, 20)
    assert first["mean"]["own"] > 2 * std["mean"]["own"] > 0


def _rule_files() -> list[str]:
    files = [str(p) for p in sorted((ROOT / "configs" / "rules").glob("*.yaml"))]
    files += [str(p) for p in sorted(EXAMPLES.glob("*.yaml")) if "lineup:" not in p.read_text()]
    return [f for f in files if load_rules(f).game == "cribbage"]


@pytest.mark.parametrize("path", _rule_files(), ids=lambda p: Path(p).stem)
def test_it_plays_every_rules_file_and_answers_every_decision_itself(path, monkeypatch):
    """A whole game of every shipped rules file and example variant, adaptive in seat 0 and
    ev elsewhere; every decision of the rules is adaptive's own (a method, or its ``decide``:
    the engine never falls back on a default for it), and a variant's decision is answered by
    its simulation."""
    rules = load_rules(path)
    a = factory("adaptive", params=TINY, rules=(rules,), game="cribbage")
    e = factory("ev", rules=(rules,), game="cribbage")
    me = a(random.Random(1))
    asked: dict[str, int] = {}
    decided = []
    plain = me.decide

    def decide(name, obs):
        answer = plain(name, obs)
        decided.append(name)
        if me.simulated is not None:  # (None: a single legal answer)
            assert me.simulated[0] == name and sum(me.simulated[2]) > 0, me.simulated  # simulated deals reached it
            me.simulated = None
        return answer
    me.decide = decide
    resolved = set()
    real_answer_fn = engine_game.answer_fn

    def spy(strategy, name):
        fn = real_answer_fn(strategy, name)
        if strategy is not me:
            return fn
        assert fn is not None, name  # (None: the variant's default would answer for it)
        resolved.add(name)

        def ask(obs):
            asked[name] = asked.get(name, 0) + 1
            return fn(obs)
        return ask
    monkeypatch.setattr(engine_game, "answer_fn", spy)
    strategies = [me] + [e(random.Random(s)) for s in range(1, rules.players)]
    result = game_named("cribbage").play_game(rules, strategies, 11, (3, 0))
    assert result.winner >= 0
    assert resolved == set(rules.program.decisions)
    assert asked.get("discard", 0) + asked.get("pass_cards", 0) > 0 and asked["play"] > 0
    for name in set(rules.program.decisions) - {"discard", "play"}:
        assert asked.get(name, 0) == decided.count(name), name  # every ask answered by decide()


def _same_answers(rules, g, seat, decision, other_view):
    a = factory("adaptive", params=TINY, rules=(rules,), game="cribbage")
    real = answer_fn(a(random.Random(5)), decision)(g.observation())
    seen = answer_fn(a(random.Random(5)), decision)(other_view)
    return real == seen or sorted(real) == sorted(seen)


@pytest.mark.parametrize("name,scores", [("standard", None), (str(EXAMPLES / "crib3.yaml"), None),
                                         ("standard", [104, 110])], ids=["standard", "crib3", "standard-board"])
def test_it_never_sees_a_hidden_card(name, scores):
    """At each of its decisions, a world that differs from the real game only in the cards
    the seat has not seen (the engine's own information-set sampling) gets the same answer;
    near the end of a game too, where it plays to the board."""
    rules = load_rules(name)
    ev = factory("ev", rules=(rules,), game="cribbage")(random.Random(3))
    g = GameState(rules, 4, (1, 0), 0, scores=scores).start() if scores else GameState(rules, 4, (1, 0), 0).start()
    rng = random.Random(2)
    differ = decisions = 0
    while not g.is_terminal and decisions < 24:
        seat, decision = g.actor, g.decision
        if seat == 0:
            w = world(g.observation(), decision, rng)
            differ += sorted(w.hands[1]) != sorted(g.hands[1])
            assert _same_answers(rules, g, seat, decision, w.observation())
            decisions += 1
        g.apply(getattr(ev, decision)(g.observation()))
    assert differ > 0 and decisions > (5 if scores is None else 2)  # (near the end: a deal or two)


def test_its_take_crib_does_not_see_the_dealers_cards():
    """pone_crib's own decision: two deals that give the pone the same six cards and the
    dealer different ones get the same answer."""
    rules = load_rules(str(EXAMPLES / "pone_crib.yaml"))
    rng = random.Random(7)
    for _ in range(3):
        deck = list(range(52))
        rng.shuffle(deck)
        other = deck[:6] + rng.sample(deck[6:], 46)  # the pone is dealt first (R-DEAL-2)
        g = GameState(rules, 1, (0, 0), 0, decks={0: deck}).start()
        h = GameState(rules, 1, (0, 0), 0, decks={0: other}).start()
        assert g.decision == h.decision == "take_crib" and g.actor == h.actor == 1
        assert sorted(g.hands[0]) != sorted(h.hands[0])
        assert _same_answers(rules, g, 1, "take_crib", h.observation())


@pytest.mark.parametrize("name", ["crib3", "crib_pone", "no_pairs"])
def test_its_play_rollouts_in_a_hooked_variant_are_the_engines(name):
    """A hook of the show (crib3's ``after_count``, crib_pone's and no_pairs' ``count_hand``) is
    called at the show only: adaptive's searches of the play run in the native lane there (mc's
    stay in Python), and each rollout pegs what the engine's play phase pegs, for sampled hands
    and every candidate card, at play decisions met in real games."""
    from cribsim.games.cribbage.engine.rollout import PlayRollout
    from cribsim.games.cribbage.native import lane
    from strategies.mc import unseen_cards

    rules = load_rules(str(EXAMPLES / f"{name}.yaml"))
    if lane.module() is None:
        pytest.skip("the native lane is not built")
    me = factory("adaptive", params=TINY, rules=(rules,), game="cribbage")(random.Random(4))
    ev = factory("ev", rules=(rules,), game="cribbage")(random.Random(5))
    met = []
    g = GameState(rules, 8, (2, 0), 0).start()
    rng = random.Random(6)
    while not g.is_terminal and len(met) < 60:
        obs = g.observation()
        if g.decision == "play" and len(obs.legal) > 1:
            native, engine = me.play_rollout(obs), PlayRollout(obs, me.one_ply)
            assert type(native).__name__ == "NativePlayRollout"
            sample = me.sampler_for(obs, unseen_cards(obs))
            for _ in range(3):
                dealt = sample()
                dealt[obs.seat] = list(obs.hand)
                first = rng.choice(obs.legal)
                met.append((native.run(dealt, first), engine.run(dealt, first)))
        g.apply(getattr(ev, g.decision)(obs))
    assert len(met) >= 30 and all(a == b for a, b in met) and any(sum(a) for a, _ in met)


GIFT = '''\
from cribsim.errors import IllegalMove
from cribsim.games.cribbage.engine.events import OTHER
from cribsim.games.cribbage.engine.variant import Decision, Phase, Variant


def offer(g):
    d = g.dealer
    obs = g.obs[d]
    obs.hand, obs.dealer, obs.crib_owner, obs.scores = tuple(g.hands[d]), g.dealer, g.crib_owner, tuple(g.scores)
    ask = g.answers["gift"] if g.answers is not None else None
    take = ask[d](obs) if ask is not None else (yield d)
    if not isinstance(take, bool):
        raise IllegalMove(f"seat {d} answered gift with {take!r}", d)
    g.metric("gift", take)
    if take:
        g.award(d, 2, OTHER, "the gift")


class Gift(Variant):
    name = "gift"
    rule = "GIFT-1"
    summary = "the dealer may take two points after the deal"
    phases = (Phase("after_deal", offer, "gift"),)
    decisions = (Decision("gift", "True to take two points", legal=lambda obs: [False, True],
                          check=lambda obs, a: None if isinstance(a, bool) else "expected true or false"),)
'''


def test_a_designers_decision_without_a_default_is_answered_by_simulation(tmp_path):
    """A decision of one's own with no default refuses ev when the lineup loads; adaptive
    takes it, and its simulations find that two points taken are worth taking."""
    (tmp_path / "gift.py").write_text(GIFT)
    (tmp_path / "gift.yaml").write_text('extends: standard\nname: gift\nvariants: ["gift:Gift"]\n')
    rules = load_rules(str(tmp_path / "gift.yaml"))
    from cribsim.errors import CribsimError
    with pytest.raises(CribsimError, match="cannot play gift"):
        factory("ev", rules=(rules,), game="cribbage")
    a = factory("adaptive", params=TINY, rules=(rules,), game="cribbage")
    # (no board: its games of ev against ev could not be played, ev answering no gift)
    assert adaptive.model_for(rules, TINY["learn_deals"], TINY["learn_samples"])["board"] is None
    e = factory("ev", params={}, rules=(load_rules("standard"),), game="cribbage")
    ev = e(random.Random(2))
    ev.gift = lambda obs: False  # (ev cannot answer it: a stand-in seat that never takes)
    result = game_named("cribbage").play_game(rules, [a(random.Random(1)), ev], 3, (0, 0))
    taken = result.metrics.get("gift", 0)
    assert taken >= result.deals // 2 - 1 and taken > 0  # adaptive deals every other deal and always takes


def _lane_counted():
    """The rules files the lane plays whose seats discard (Canadian doubles' pass instead)."""
    from cribsim.games.cribbage.native import lane
    return [f for f in _rule_files()
            if lane.rollouts_for(r := load_rules(f)) and "pass_cards" not in r.program.decisions]


@pytest.mark.parametrize("path", _lane_counted(), ids=lambda p: Path(p).stem)
def test_the_lanes_hand_values_are_the_engines(path):
    """Where the lane plays a rule set, adaptive values its keeps by the lane's count: the same
    values, to the bit, as the engine's own count (ShowCount), for every keep of every seat's
    discard in a few deals, at scores that put back ten's floor and a win in reach."""
    from cribsim.games.cribbage.native import lane
    rules = load_rules(path)
    rng = random.Random(9)
    seen = 0
    for deal in range(4):
        g = GameState(rules, 31, (deal, 0), deal % rules.players).start()
        while g.decision != "discard":
            g.apply(rng.choice(list(rules.program.decisions[g.decision].legal(g.observation()))))
        obs = g.observation()
        obs.scores = tuple(rng.choice((0, 4, 60, 118)) for _ in obs.scores)
        counter = ShowCount(rules, obs.dealer, obs.game_no)
        starters = [c for c in range(rules.deck_size) if c not in obs.hand]
        packed = lane.pack_rules(rules, game_no=obs.game_no)
        assert adaptive.hand_values(counter, obs, starters, packed) == adaptive.hand_values(counter, obs, starters,
                                                                                             None)
        seen += 1
    assert seen == 4


def test_its_discard_rollouts_in_the_lane_are_the_engines(monkeypatch):
    """The discard's rollouts, the other player's six drawn and read, run in one call to the lane
    where it plays the rules: the same pegs for every keep, the same discard and the same
    generator state after as the rollouts on the engine's play phase."""
    from cribsim.games.cribbage.native import lane
    calls = []
    in_lane = lane.discard_pegs
    monkeypatch.setattr(lane, "discard_pegs", lambda *args: calls.append(1) or in_lane(*args))
    rules = load_rules("standard")
    params = {**TINY, "discard_rollouts": 12, "discard_top": 4, "discard_margin": 50.0, "table_margin": 50.0}
    a = factory("adaptive", params=params, rules=(rules,), game="cribbage")
    compared = 0
    for deal in range(6):
        g = GameState(rules, 7, (deal, 0), deal % 2).start()
        got = []
        try:
            for native in (True, False):
                lane.allow_rollouts(native)
                me = a(random.Random(deal))
                pegs = []
                real = me._pegs

                def spy(*args, real=real, pegs=pegs):
                    pegs.append(real(*args))
                    return pegs[-1]
                me._pegs = spy
                got.append((me.discard(g.observation()), pegs, me.rng.getstate()))
        finally:
            lane.allow_rollouts(True)
        assert got[0] == got[1]
        compared += bool(got[0][1])
    assert compared >= 4 and len(calls) == compared  # (each compared discard's lane side ran in the lane)


LATE_QUESTION = """
from cribsim.games.cribbage.engine.variant import Decision, Phase, Variant


def ask(g):
    return
    yield


class Late(Variant):
    name = "late_question"
    rule = "LATE-1"
    summary = "a question after the discard"
    players = (2,)
    phases = (Phase("after_discard", ask, "late"),)
    decisions = (Decision("late", "true or false", legal=lambda obs: [True, False], check=lambda obs, a: None,
                          default=lambda strategy, obs: True),)
"""


def late_question(folder):
    """Rules whose deal asks a decision of their own after the discard."""
    (folder / "late_question.py").write_text(LATE_QUESTION)
    (folder / "late.yaml").write_text('extends: standard\nname: late\nvariants: ["late_question:Late"]\n')
    return load_rules(str(folder / "late.yaml"))


def test_it_learns_a_board_table_per_two_player_rule_set_and_plays_to_it_near_the_end(monkeypatch, tmp_path):
    """The board (the dealer's chance to win by both scores) is learnt with the crib table from
    games of these rules: the standard game's is close to the shipped one, crib3's dealer is
    further ahead; a rule set whose deal asks another decision before the discard (the pone's
    offer of the crib) has one too; one that asks a decision after the discard, or of three
    players, has none.
    Near the end of a game adaptive's discard and play go to the board; early, they do not."""
    from strategies import boardtable
    std = adaptive.model_for(load_rules("standard"), 200, 20)["board"]
    shipped = boardtable.load()["dealer_wins"]
    assert len(std) == 121 and all(len(row) == 121 for row in std)
    assert abs(std[100][100] - shipped[100][100]) < 0.08 and abs(std[0][0] - shipped[0][0]) < 0.05
    crib3 = adaptive.model_for(load_rules(str(EXAMPLES / "crib3.yaml")), 200, 20)["board"]
    assert crib3[100][100] > std[100][100] + 0.05
    pone_crib = adaptive.model_for(load_rules(str(EXAMPLES / "pone_crib.yaml")), 20, 20)["board"]
    assert pone_crib is not None and len(pone_crib) == 121
    assert adaptive.model_for(load_rules("three_player"), 20, 20)["board"] is None
    assert not boardtable.fits(late_question(tmp_path)) and boardtable.fits(load_rules("auction"))
    assert boardtable.learn(load_rules("auction"), 60) is None  # (a bid paid takes points back: no recursion)
    rules = load_rules("standard")
    ev = factory("ev", rules=(rules,), game="cribbage")(random.Random(1))
    for scores, near in ((None, False), ([100, 112], True)):
        me = factory("adaptive", params=TINY, rules=(rules,), game="cribbage")(random.Random(4))
        asked = []
        for name in ("board_discard", "board_play"):
            real = getattr(me, name)
            def spy(obs, ranked, real=real, name=name, asked=asked):
                asked.append(name)
                return real(obs, ranked)
            monkeypatch.setattr(me, name, spy)
        g = GameState(rules, 5, (2, 0), 0, scores=scores).start() if scores else GameState(rules, 5, (2, 0), 0).start()
        for _ in range(10):  # the first deal's discards and the first plays
            if g.is_terminal:
                break
            g.apply(answer_fn(me if g.actor == 0 else ev, g.decision)(g.observation()))
        assert ("board_discard" in asked) == near and ("board_play" in asked) == near, (scores, asked)


def test_it_learns_a_pegging_table_per_rule_set():
    """What a keep pegs, by its ranks and role, is learnt from the rules' own play: the standard
    game's is near the shipped table (the dealer ahead by about 2.4 a deal); where the last card
    is worth 5 the dealer, who lays it most often, gains far more; three players, or a budget
    too small for it, learn none."""
    from statistics import correlation, mean

    from strategies import pegtable
    std = load_rules("standard")
    model = adaptive.model_for(std, 20, 20)
    assert model["pegs"] is None  # 20 cribs a cell: under PEG_SHARE, no table
    pegs = adaptive.learn_pegs(std, model, 4)
    assert pegs is not None and all(len(pegs[role]) == 1820 for role in ("dealer", "pone"))
    shipped = pegtable.load()["dealer"]
    assert correlation(pegs["dealer"], [shipped[",".join(map(str, c))] for c in adaptive.peg_cells()]) > 0.6
    gap = mean(pegs["dealer"]) - mean(pegs["pone"])
    assert 1.9 < gap < 2.9
    last5 = load_rules(str(EXAMPLES / "last5.yaml"))
    late = adaptive.learn_pegs(last5, adaptive.model_for(last5, 20, 20), 4)
    assert late is not None and mean(late["dealer"]) - mean(late["pone"]) > gap + 3
    assert adaptive.learn_pegs(load_rules("three_player"), adaptive.model_for(load_rules("three_player"), 20, 20),
                               4) is None


def test_with_a_pegging_table_it_rolls_out_only_the_keeps_the_table_leaves_close(monkeypatch):
    """The learnt pegging is added to every keep's points; only the keeps within table_margin of
    the best are rolled out (none with a margin of 0: the discard is the best by points and
    table)."""
    rules = load_rules("standard")
    model = adaptive.model_for(rules, 20, 20)
    model["pegs"] = adaptive.learn_pegs(rules, model, 2)
    rolled: list[int] = []
    for margin in (0.0, 50.0):
        me = factory("adaptive", params={**TINY, "table_margin": margin, "discard_top": 3},
                     rules=(rules,), game="cribbage")(random.Random(3))
        real = me._top_pegs
        monkeypatch.setattr(me, "_top_pegs", lambda obs, top, real=real: rolled.append(len(top)) or real(obs, top))
        for deal in range(4):
            obs = GameState(rules, 11, (deal, 0), deal % 2).start().observation()
            thrown = me.discard(obs)
            if margin == 0.0:
                table = me._peg_table(obs)
                best = max(zip(me.keep_values(obs), table), key=lambda t: t[0][0] + t[1])[0]
                assert sorted(thrown) == sorted(best[2])
    assert rolled == [3, 3, 3, 3]  # none with a margin of 0; every deal's best three with 50


def test_told_other_rules_it_plays_by_them_and_refuses_rules_that_ask_other_decisions():
    """``believes``: a skilled player told another rule set (to measure what knowing a rule is
    worth). In crib3, believing the standard game, it discards as it would in the standard game
    on the same deal; believing a rule set that asks other decisions is a one-line error."""
    from cribsim.errors import CribsimError
    crib3, std = load_rules(str(EXAMPLES / "crib3.yaml")), load_rules("standard")
    told = factory("adaptive", params={**TINY, "believes": "standard"}, rules=(crib3,), game="cribbage")
    plain = factory("adaptive", params=TINY, rules=(std,), game="cribbage")
    knows = factory("adaptive", params=TINY, rules=(crib3,), game="cribbage")
    differ = 0
    for deal in range(12):
        in_crib3 = GameState(crib3, 5, (deal, 0), deal % 2).start().observation()
        in_std = GameState(std, 5, (deal, 0), deal % 2).start().observation()
        assert in_crib3.hand == in_std.hand
        choice = told(random.Random(deal)).discard(in_crib3)
        assert choice == plain(random.Random(deal)).discard(in_std)
        differ += choice != knows(random.Random(deal)).discard(in_crib3)
    assert differ >= 1  # (knowing the triple crib moves some discards)
    assert "believes" in adaptive.AdaptiveStrategy.notes(crib3, {"believes": "standard"})[0]
    assert "believes" not in adaptive.AdaptiveStrategy.notes(crib3, {})[0]
    with pytest.raises(CribsimError, match="no_such_rules"):
        factory("adaptive", params={**TINY, "believes": "no_such_rules"}, rules=(crib3,), game="cribbage")
    with pytest.raises(CribsimError, match="standard: key 'believes': adaptive cannot play pone_crib"):
        factory("adaptive", params={**TINY, "believes": "standard"},
                rules=(load_rules(str(EXAMPLES / "pone_crib.yaml")),), game="cribbage")


def _hash_from(config, cwd):
    """The config's hash as a run started in ``cwd`` reads it, in a process of its own (this one
    keeps the first folder's variant of a name: a variant registers once a process)."""
    import subprocess
    import sys
    read = subprocess.run([sys.executable, "-c", "import sys; from cribsim.tournament.config import load_experiment; "
                           "print(load_experiment(sys.argv[1]).config_hash())", str(config)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)
    assert read.returncode == 0, read.stderr
    return read.stdout.strip()


def test_a_believed_rules_file_is_read_from_the_configs_folder_wherever_the_run_starts(tmp_path, monkeypatch):
    """``believes: crib3.yaml`` in a config is read beside the config, as its ``variants:`` are,
    when the config is read, and kept for the run's processes under the name as written: a run
    started from another folder plays by that file, the parameter and the manifest say what the
    config says, and the same config in another folder has the same hash."""
    from cribsim import codepath, ruleset
    from cribsim.errors import ConfigError
    from cribsim.tournament.config import load_experiment
    monkeypatch.setattr(ruleset, "_TOLD", {})
    tiny = ", ".join(f"{k}: {v}" for k, v in TINY.items())
    hashes = []
    for place in ("study", "moved"):
        folder = tmp_path / place
        folder.mkdir()
        (folder / "crib3_beside.py").write_text(  # (a module and a variant of their own names: nothing shadowed)
            (EXAMPLES / "crib3.py").read_text().replace('name = "crib3"', 'name = "crib3_beside"'))
        (folder / "crib3.yaml").write_text((EXAMPLES / "crib3.yaml").read_text().replace("crib3:", "crib3_beside:"))
        (folder / "run.yaml").write_text(
            "variants: [standard]\nmatches: 2\nlineup:\n"
            f"  - {{name: knows, strategy: adaptive, params: {{{tiny}}}}}\n"
            f"  - {{name: told, strategy: adaptive, params: {{{tiny}, believes: crib3.yaml}}}}\n"
            f"  - {{name: named, strategy: adaptive, params: {{{tiny}, believes: standard}}}}\n")
        elsewhere = tmp_path / f"elsewhere_{place}"
        elsewhere.mkdir()
        monkeypatch.chdir(elsewhere)
        exp = load_experiment(folder / "run.yaml")
        hashes.append(_hash_from(folder / "run.yaml", elsewhere))
        if place == "study":
            assert exp.lineup[1].param_dict()["believes"] == "crib3.yaml"
            assert exp.lineup[2].param_dict()["believes"] == "standard"
            told = adaptive.belief("crib3.yaml", exp.variants[0])
            assert told.variants == ("crib3_beside:CribThrice",)
            assert ruleset.remembered_rules()["crib3.yaml"] is told
        adaptive._BELIEFS.clear()
        codepath.forget("crib3_beside")  # (the other folder's module of the same name is then its own)
    assert hashes[0] == hashes[1]
    with pytest.raises(ConfigError, match=r"lineup\[0\].params.believes.*no such rules file"):
        (tmp_path / "bad.yaml").write_text(f"variants: [standard]\nlineup:\n  - {{name: a, strategy: adaptive, "
                                           f"params: {{{tiny}, believes: missing.yaml}}}}\n  - ev\n")
        load_experiment(tmp_path / "bad.yaml")


def test_its_keep_values_read_from_the_pair_arrays_are_the_general_paths():
    """Where the lane counts the rules and two of the 52 cards are thrown, the keeps' values come
    from one loop over the pair arrays: the same values, keeps and throws, in the same order, as
    the general path (the lane's counts by keep, plus the crib value of each throw)."""
    rules = load_rules("standard")
    me = factory("adaptive", params=TINY, rules=(rules,), game="cribbage")(random.Random(2))
    compared = 0
    for deal in range(8):
        obs = GameState(rules, 13, (deal, 0), deal % 2).start().observation()
        fast = me.keep_values(obs)
        starters = [c for c in range(52) if c not in obs.hand]
        parts = me._deal_parts(obs)
        assert parts is not None and me._pairs_thrown(obs)
        mine = obs.side_of[obs.crib_owner] == obs.side
        values = adaptive.hand_values(me._counter(obs), obs, starters, parts[2])
        model = me._model_of(rules)
        general = [(values[keep] + me._crib_value(obs, model, thrown, mine), keep, thrown)
                   for keep, thrown in adaptive.allowed_keeps(obs)]
        assert fast == general
        compared += 1
    assert compared == 8
