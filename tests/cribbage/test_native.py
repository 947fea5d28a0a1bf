"""The native lane (``cribsim/games/cribbage/native``) plays the Python engine's games: the same
decks, decisions and records, for every shipped rules file in its family and for scoring blocks
drawn at random; a run writes the same tables with and without ``--no-fast``; and it plays only
what it has. ``benchmarks/native_differential.py`` runs the same comparison over thousands of
seeds."""

import gzip
import random
from collections import Counter
from pathlib import Path

import pytest

from cribsim.cli.main import main
from cribsim.games.cribbage import cribtables
from cribsim.games.cribbage.cards import RANK, card_str
from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.match import play_match
from cribsim.games.cribbage.native import lane
from cribsim.games.cribbage.rules import build_rules
from cribsim.rng import derive
from cribsim.ruleset import load_rules, preset_names, rules_from_mapping
from cribsim.strategy import factory
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from tests.cribbage.helpers import C, c1

FAMILY = [n for n in preset_names() if load_rules(n).game == "cribbage" and lane.refusal(load_rules(n)) is None]


@pytest.fixture(autouse=True)
def small_tables(tmp_path, monkeypatch):
    """ev's crib tables for a new show scoring are built in the test's own cache folder, with
    few samples (what is under test is that both lanes read the same tables)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(cribtables, "SCORING_SAMPLES", 10)


def _lineups(players):
    return [("random",) * players, ("greedy",) * players, ("ev",) * players, ("hoyle",) * players,
            tuple(("greedy", "random", "ev")[s % 3] for s in range(players)),
            tuple(("hoyle", "ev", "random")[s % 3] for s in range(players))]


def counters_at(match, players):
    """A counting model for each seat (miss rate, vigilance), drawn from the match key."""
    rnd = random.Random(match)
    return [(rnd.choice([0.0, 0.05, 0.3, 0.6]), rnd.choice([0.0, 0.5, 0.9, 1.0])) for _ in range(players)]


def _same_games(rules, names, seed, addresses, counting=False):
    """Every game at ``addresses`` played in both lanes: the same GameResult, field by field.
    ``names``: each seat's strategy, a name or (name, parameters); ``counting``: the seats
    overlook points (:func:`counters_at`)."""
    entries = [(n, {}) if isinstance(n, str) else n for n in names]
    native = lane.fast_lane(rules, entries)
    assert native is not None and native.plays(range(len(names)))
    for address in addresses:
        counters = counters_at(address[0], len(names)) if counting else None
        expected = play_game(rules, [factory(n, p)(random.Random()) for n, p in entries], seed, address,
                             counters=counters)
        got = native.play_game(seed, address, None, range(len(names)), counters)
        assert got.__dict__ == expected.__dict__, (rules.name, names, address)
        assert got.record(1, rules) == expected.record(1, rules)


def c_against_python(real, decisions):
    """``MCStrategy.play`` (``real``) that answers each play decision twice from the same generator
    state, its searches in C and then on the engine, asserts the same card and the generator left
    in the same state, and appends to ``decisions`` whether the decision had a choice."""
    def both(self, obs):
        state = self.rng.getstate()
        native = real(self, obs)
        after = self.rng.getstate()
        self.rng.setstate(state)
        before = lane.allow_rollouts(False)
        try:
            python = real(self, obs)
        finally:
            lane.allow_rollouts(before)
        assert native == python and self.rng.getstate() == after, (obs.hand, obs.played)
        decisions.append(len(obs.legal) > 1)
        return native
    return both


def test_the_lane_is_built():
    assert lane.module() is not None, lane.status()  # the README's install builds it (a C compiler is here)


def test_the_addressed_keys_are_pythons():
    rnd = random.Random(3)
    for n in range(1, 8):
        ints = [rnd.randrange(-2**63, 2**63) for _ in range(n)]
        assert lane.module().derive(ints) == derive(*ints)


def test_the_family_holds_the_rules_that_are_data():
    assert {"standard", "three_player", "four_player_partners", "five_player_continued", "seven_card",
            "short_game_61", "three_player_winner_takes_all", "match_acc", "lowball", "lowball_partners",
            "toss_fives", "five_card", "nineteen", "back_ten", "back_ten_each", "muggins", "auction",
            "lowball_auction", "canadian_doubles", "three_player_team", "three_player_team_inspect", "jokers",
            "jokers_non_dealer"} <= set(FAMILY)
    for name in (n for n in preset_names() if load_rules(n).game == "cribbage"):
        rules = load_rules(name)  # every cribbage rules file we ship, but where a variant has no port
        unported = [v.name for v in rules.modules if v.native is None]
        assert (name in FAMILY) == (not unported), (name, lane.refusal(rules))


def test_a_variant_without_a_port_plays_in_python_and_the_run_says_why(tmp_path, capsys):
    """Porting a variant to the native lane is an optimisation, not a condition of shipping it
    (issue 41): a rule set with a variant that has none plays in the Python engine, and the run's
    first line says which and why (pone_crib adds a phase and a decision: no hook of the lane's
    can play them)."""
    pone_crib = Path(__file__).resolve().parents[2] / "examples" / "variants" / "pone_crib.yaml"
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nvariants: [standard, '{pone_crib}']\nlineup: [ev, greedy]\nmatches: 2\n")
    assert main(["run", str(cfg), "--serial", "--out", str(tmp_path / "out")]) == 0
    assert ("engine: native lane for 1 of 2 tables, pure Python for the rest (pone_crib: the variant pone_crib is "
            "not in the native lane)") in capsys.readouterr().err


@pytest.mark.parametrize("preset", FAMILY)
def test_every_rules_file_of_the_family_plays_the_same_games(preset):
    rules = load_rules(preset)
    matches = 12 if rules.players < 4 else 6  # (four and five seats: longer games, each lineup its own)
    for names in _lineups(rules.players):
        _same_games(rules, names, 20261202, [(m, m % 3) for m in range(matches)])


@pytest.mark.parametrize("preset", FAMILY)
def test_seats_that_overlook_points_play_the_same_games(preset):
    """V-MUGGINS and the counting model (engine/counting.py): every item overlooked, noticed or
    lost on the same draws, in every rules file of the family (muggins gives them away)."""
    rules = load_rules(preset)
    for names in _lineups(rules.players)[1:]:
        _same_games(rules, names, 11, [(m, m % 3) for m in range(8)], counting=True)


def test_muggins_takes_what_is_overlooked_in_the_lane():
    rules = load_rules("muggins")
    native = lane.fast_lane(rules, [("greedy", {}), ("greedy", {})])
    taken = [native.play_game(3, (m, 0), None, (0, 1), [(0.2, 1.0), (0.2, 1.0)]).metrics.get("muggins", 0)
             for m in range(20)]
    assert min(taken) > 0  # (the same games as the engine's: the test above)
    assert "muggins" not in native.play_game(3, (0, 0), None, (0, 1), [(0.2, 0.0), (0.2, 0.0)]).metrics


@pytest.mark.parametrize("preset", ["three_player_team", "three_player_team_inspect"])
def test_a_match_whose_games_have_their_own_sides_is_the_engines(preset):
    """V-TEAM3-1: each game of a match its own partnership and targets (the variant's layout),
    packed game by game; the matches (three games, most won) are the engine's, with the lone
    player's inspection of the crib (V-TEAM3-2) by each strategy."""
    rules = load_rules(preset)
    for names in (("ev", "greedy", "random"), ("ev", "ev", "ev"), ("greedy", "random", "ev"), ("hoyle", "ev", "hoyle")):
        native = lane.fast_lane(rules, [(n, {}) for n in names])
        for m in range(6):
            counters = counters_at(m, 3) if m % 2 else None
            expected = play_match(rules, [factory(n) for n in names], 9, m, counters=counters)
            assert native.play_match(9, m, range(3), counters) == expected, (names, m)


def test_inspecting_plays_the_same_games_up_to_the_largest_keep_the_lane_holds():
    big = {"players": 3, "variants": ["team3", "inspect"], "deal": 9, "discard": 2, "match": {"games": 3}}
    rules = build_rules(big, "seven kept of fourteen")  # a hand of 7 and a crib of 7 (with the deck's card)
    for names in (("ev", "greedy", "random"), ("greedy", "ev", "ev")):
        _same_games(rules, names, 2, [(m, m % 3) for m in range(6)])
    larger = build_rules(dict(big, deal=12, discard=3), "nine kept of nineteen")
    assert "inspecting more than 16 cards" in lane.refusal(larger)


@pytest.mark.parametrize("deal", [10, 16])
def test_ev_keeps_hands_of_more_than_7_cards_in_both_lanes(deal):
    """ev's reply chances stopped at hands of 7 cards (an IndexError, so a forfeit, with a keep
    of 8); they go to the largest hand the rules allow, and the lane plays such deals alike."""
    rules = build_rules({"players": 2, "deal": deal, "discard": 2}, f"{deal} dealt")
    assert lane.fast_lane(rules, [("ev", {}), ("ev", {})]).plays((0, 1))
    _same_games(rules, ("ev", "hoyle"), 3, [(m, 0) for m in range(3)])


def test_every_built_in_plays_the_largest_deal_the_rules_allow():
    """A deal of 20 (a keep of 18; the native lane refuses deals over 16, so the Python engine
    plays it, searches included): every built-in plays whole games without an error (which
    would raise here) and without the game stopping short of its target."""
    rules = build_rules({"players": 2, "deal": 20, "discard": 2}, "twenty dealt")
    assert lane.fast_lane(rules, [("ev", {}), ("ev", {})]) is None
    for name in ("ev", "hoyle", "greedy", "mc", "expert"):
        m = play_match(rules, [factory(name, {"rollouts": 2} if name in ("mc", "expert") else {}),
                               factory("ev")], 1, 0)
        game = m.games[0]
        assert game.stopped is None and max(game.scores) >= rules.target and game.deals >= 1, name


def test_evs_two_card_discard_takes_hands_of_up_to_16_cards():
    """ev's two-card discard had its pairs for hands of up to 8 cards only (a KeyError, so a
    forfeit, with a deal of 9); both lanes now play such deals alike."""
    rules = build_rules({"players": 2, "deal": 9, "discard": 2}, "nine dealt")
    _same_games(rules, ("ev", "ev"), 3, [(m, 0) for m in range(4)])


def _random_scoring(rnd):
    bounds = {"fifteen": (0, 5), "fifteen_total": (11, 40), "pair": (0, 5), "run_min": (2, 5), "run_card": (0, 3),
              "hand_flush": (0, 8), "flush_starter": (0, 3), "crib_flush": (0, 9), "nobs": (0, 3), "heels": (0, 4),
              "go": (0, 3),
              "count_limit": (10, 60), "hit_limit": (0, 4), "last_card": (0, 3)}
    return {k: rnd.randint(lo, hi) for k, (lo, hi) in bounds.items() if rnd.random() < 0.5}


def test_scoring_blocks_drawn_at_random_play_the_same_games():
    rnd = random.Random(20261202)
    played = 0
    while played < 16:  # (benchmarks/native_differential.py draws thousands)
        players = rnd.choice([2, 2, 3, 4, 5])
        data = {"players": players, "target": rnd.choice([31, 61, 121]), "scoring": _random_scoring(rnd)}
        if players in (3, 5) and rnd.random() < 0.5:
            data["match"] = {"scoring": "continued"}
        try:
            rules = build_rules(data, "drawn")
        except Exception:  # a block the rules refuse (a limit the hands cannot reach): not a game
            continue
        names = tuple(rnd.choice(["random", "greedy", "ev"]) for _ in range(players))
        _same_games(rules, names, played, [(m, 0) for m in range(6)], counting=played % 2 == 1)
        played += 1


VARIANT_KNOBS = ({"variants": ["lowball"]}, {"toss_fives": True}, {"null_penalty": True}, {"back_ten": "both"},
                 {"back_ten": "each", "score_floor": -20}, {"play_once": True}, {"first_pone_points": 3},
                 {"variants": ["auction"], "max_bid": 9, "score_floor": 0}, {"variants": ["muggins"]},
                 {"variants": ["canadian"], "players": 4, "sides": [[0, 2], [1, 3]], "deal": 5, "discard": 1},
                 {"jokers": 2}, {"jokers": 1, "starter_joker_named_by": "non_dealer"})


def test_the_lanes_variants_combined_play_the_same_games():
    rnd = random.Random(7)
    played = 0
    while played < 16:
        players = rnd.choice([2, 3, 4])
        data = {"players": players, "target": rnd.choice([61, 121])}
        for knobs in rnd.sample(VARIANT_KNOBS, 3):
            data.update({k: v for k, v in knobs.items() if k != "variants"})
            data["variants"] = data.get("variants", []) + knobs.get("variants", [])
        try:
            rules = build_rules(data, "combined")
        except Exception:  # a combination the rules refuse
            continue
        assert lane.refusal(rules) is None  # (nineteen with back ten too: back ten's hook comes first)
        names = tuple(rnd.choice(["random", "greedy", "ev", "hoyle"]) for _ in range(rules.players))
        _same_games(rules, names, played, [(m, m % 2) for m in range(8)], counting=played % 3 == 2)
        played += 1


@pytest.mark.parametrize("back_ten", ["both", "each"])
def test_nineteen_with_back_ten_plays_the_same_games(back_ten):
    """Both penalties on one hand of nothing: back ten first (the registry's order, rules Part 2),
    then nineteen, at the floor and near the target, with seats that overlook points too."""
    for players in (2, 3):
        rules = build_rules({"players": players, "target": 61, "null_penalty": True, "back_ten": back_ten,
                             "score_floor": -5}, "penalties")
        for names in _lineups(players):
            _same_games(rules, names, 8, [(m, 0) for m in range(10)], counting=names[0] == "ev")


EV_PARAMS = ({"crib_weight": 0.5}, {"reply_weight": 2.0}, {"reply_weight": -1.0, "crib_weight": 0.0},
             {"tables": "standard"}, {"tables": "rules", "crib_weight": 1.5})


@pytest.mark.parametrize("preset", ["standard", "four_player_partners", "lowball", "toss_fives"])
def test_evs_parameters_play_the_same_games(preset):
    rules = load_rules(preset)
    for params in EV_PARAMS:
        names = [("ev", params) if s % 2 else ("ev", {}) for s in range(rules.players)]
        _same_games(rules, names, 5, [(m, 0) for m in range(8)])


def test_ev_by_its_own_tables_or_the_standard_ones_under_a_new_show():
    rules = build_rules({"players": 2, "scoring": {"pair": 3, "fifteen_total": 17, "count_limit": 35}}, "new show")
    _same_games(rules, [("ev", {}), ("ev", {"tables": "standard"})], 3, [(m, m % 2) for m in range(16)])


def _logged(rules, names, seed, addresses):
    """The events of the Python engine's games at ``addresses`` (the games _same_games compares)."""
    for address in addresses:
        yield from play_game(rules, [factory(n)(random.Random()) for n in names], seed, address, log=True).events


@pytest.mark.parametrize("data, cribs", [
    ({"deal": 5, "discard": 1, "scoring": {"hand_flush": 2, "crib_flush": 9}}, {9}),  # a crib of 2: flushes common
    ({"deal": 5, "discard": 1, "scoring": {"hand_flush": 7, "flush_starter": 2}}, {2 + 2}),
    ({"deal": 5, "discard": 1, "crib_flush_needs_starter": False, "scoring": {"hand_flush": 7, "flush_starter": 2}},
     {2, 2 + 2}),
    ({"extends": "five_card", "scoring": {"hand_flush": 5, "crib_flush": 8}}, None),  # (cribs of 4: rare flushes)
])
def test_the_cribs_own_flush_plays_the_same_games(data, cribs):
    """S-DATA-4 in both lanes: ``hand_flush`` is the hand's alone, ``crib_flush`` the crib's (the
    lane carries it), and a crib that needs no starter scores the crib's flush without it too
    (one a card); the games compared hold the crib flushes ``cribs`` scores."""
    rules = rules_from_mapping({"players": 2, **data}, "crib flush")
    addresses = [(m, m % 2) for m in range(10)]
    for names in (("greedy", "ev"), ("random", "hoyle")):
        _same_games(rules, names, 4, addresses)
    if cribs is not None:
        events = _logged(rules, ("greedy", "ev"), 4, addresses)
        assert {e.points for e in events if e.source == "crib" and e.reason == "flush"} == cribs


@pytest.mark.parametrize("preset", ["jokers", "jokers_non_dealer"])
def test_a_joker_starters_heels_take_the_blocks_value_in_both_lanes(preset):
    """V-JOKERS and S-DATA-5: a joker turned as the starter gives the dealer the block's
    ``heels`` (3 here), as a jack does, in both lanes; the games compared turn jokers."""
    rules = rules_from_mapping({"extends": preset, "scoring": {"heels": 3}}, "joker heels")
    addresses = [(m, m % 2) for m in range(16)]
    _same_games(rules, ("ev", "greedy"), 6, addresses)
    events = list(_logged(rules, ("ev", "greedy"), 6, addresses))
    starters = [e.cards[0] for e in events if e.source == "starter"]
    heels = [e for e in events if e.source == "heels"]
    assert any(c >= 52 for c in starters) and {e.points for e in heels} == {3}
    assert len(heels) == sum(1 for c in starters if c >= 52 or card_str(c)[0] == "J")


def test_two_separate_runs_score_alike_in_both_lanes():
    """S-DATA-3: with ``run_min: 2`` every distinct maximal run scores, two separate runs of one
    show both (2-3-4 and 7-8: 3 + 2), in the Python engine and the lane, game by game."""
    rules = rules_from_mapping({"extends": "standard", "scoring": {"run_min": 2}}, "runs of two")
    assert rules.scorer.show(C("2C 3D 4H 8S"), c1("7C")) == 4 + 3 + 2
    addresses = [(m, m % 2) for m in range(12)]
    for names in (("ev", "greedy"), ("hoyle", "random")):
        _same_games(rules, names, 7, addresses)
    assert _separate_runs(_logged(rules, ("ev", "greedy"), 7, addresses)) > 0  # the games compared hold them


def _separate_runs(events):
    """How many shows scored two runs with no rank in common (separate runs, not a double run)."""
    found, runs = 0, []
    for e in [*events, None]:
        if e is None or e.source == "show":
            found += any(not a & b for a in runs for b in runs)
            runs = []
        elif e.source in ("hand", "crib") and e.reason == "run":
            runs.append({RANK[c] for c in e.cards})
    return found


def test_it_plays_only_what_it_has():
    standard = load_rules("standard")
    assert lane.fast_lane(standard, [("mc", {}), ("expert", {})]) is None
    assert lane.fast_lane(load_rules("seven_card"), [("ev", {})]) is not None  # hands of 7: ev's reply table holds them
    mixed = lane.fast_lane(standard, [("random", {}), ("hoyle", {}), ("greedy", {}), ("ev", {}),
                                      ("tests.kernel.bad_strategies:Raiser", {})])
    assert mixed.plays([0, 2]) and mixed.plays([3, 1]) and not mixed.plays([0, 4])
    assert lane.fast_lane(standard, [("random", {"x": 1})]) is None  # parameters: not the built-in's defaults
    big_show = build_rules({"jokers": 2, "deal": 8, "discard": 1}, "big")  # 3 bits a rank: no 8 of a kind
    assert lane.fast_lane(big_show, [("random", {})]) is None
    assert lane.refusal(big_show) == "jokers with a show of more than 7 cards are not in the native lane"
    assert "plays cribbage" in lane.refusal(load_rules("fives_threes"))


JOKER_KNOBS = ({"variants": ["auction"], "max_bid": 9, "score_floor": 0}, {"variants": ["muggins"]},
               {"variants": ["team3", "inspect"], "players": 3}, {"variants": ["lowball"]},
               {"toss_fives": True}, {"jokers": 3}, {"starter_joker_named_by": "non_dealer"},
               {"back_ten": "both", "null_penalty": True}, {"play_once": True, "deal": 5, "discard": 1})


@pytest.mark.parametrize("knobs", JOKER_KNOBS)
def test_jokers_with_each_variant_play_the_same_games(knobs):
    """V-JOKERS: named in the play, at the show (to the objective's best, a joker starter by each
    player or by the non-dealer) and by random, greedy and ev's discards, bids, inspecting and
    plays; under a counting model too (the items of the hand as named)."""
    data = {"jokers": 2, **{k: v for k, v in knobs.items()}}
    rules = build_rules(data, "jokers and more")
    assert lane.refusal(rules) is None
    for names in _lineups(rules.players):
        _same_games(rules, names, 4, [(m, m % 2) for m in range(6)], counting=names[0] == "greedy")


def test_the_joker_games_meet_what_they_are_about():
    """The first games the rules-file tests play (at their seed and addresses) lay jokers named,
    name them at the show, and turn one as the starter (his heels)."""
    met = set()
    for preset in ("jokers", "jokers_non_dealer"):
        for m in range(12):
            players = [factory(n, {})(random.Random()) for n in ("ev", "greedy")]
            for e in play_game(load_rules(preset), players, 20261202, (m, m % 3), log=True).events:
                met |= {e.source} & {"name"} | ({"lay"} if e.source == "lay" and len(e.cards) == 2 else set())
                met |= {"heels"} if e.source == "heels" and max(e.cards) >= 52 else set()
    assert met == {"name", "lay", "heels"}


def test_under_jokers_the_searches_run_natively(monkeypatch):
    """mc's play search runs in C under jokers (the hidden cards drawn from the 54, a joker laid
    as each name that fits), and its discard's rollouts too."""
    assert lane.rollouts_for(load_rules("jokers"))
    calls = {"mc_play": 0, "run": 0}
    real_mc, real_run = lane.mc_play, lane.NativePlayRollout.run
    monkeypatch.setattr(lane, "mc_play", lambda *a, **k: calls.__setitem__("mc_play", calls["mc_play"] + 1)
                        or real_mc(*a, **k))
    monkeypatch.setattr(lane.NativePlayRollout, "run",
                        lambda self, *a, **k: calls.__setitem__("run", calls["run"] + 1) or real_run(self, *a, **k))
    play_game(load_rules("jokers"), [factory("mc", {"rollouts": 2})(random.Random(1))] * 2, 1, (0, 0))
    assert calls["mc_play"] > 0 and calls["run"] > 0


def test_a_lane_built_from_another_source_is_not_used(monkeypatch):
    monkeypatch.setattr(lane, "_LOADED", [])
    monkeypatch.setattr(lane, "_WHY", [])
    monkeypatch.setattr(lane, "source_hash", lambda folder=lane.SOURCE.parent: "another")
    assert lane.module() is None
    assert "stale" in lane.status()


CONFIG = """
name: lanes
variants: [standard, three_player, {{name: short, extends: four_player_partners, scoring: {{go: 2}}}}]
lineup: [{{name: g, strategy: greedy}}, {{name: e, strategy: ev}},
         {{name: p, strategy: "tests.kernel.bad_strategies:Plain", trusted: true}}]
matches: 16
paired: true
seed: 9
record: {{sample: 2}}
"""


def _tables(folder):
    return {f.name: f.read_bytes() for f in folder.iterdir()
            if f.suffix in (".md", ".csv", ".json") and f.name not in ("run.json",)}


def _run_both_ways(tmp_path, capsys, config):
    """The config run with and without ``--no-fast``: (the fast run's start line, its tables);
    the tables and records must be the same bytes."""
    cfg = tmp_path / "run.yaml"
    cfg.write_text(config)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "fast", serial=True)
    said = capsys.readouterr().err
    run_experiment(exp, tmp_path / "slow", serial=True, quiet=True, fast=False)
    fast, slow = _tables(tmp_path / "fast"), _tables(tmp_path / "slow")
    assert [k for k in fast if fast[k] != slow.get(k)] == []
    assert gzip.decompress((tmp_path / "fast" / "matches.jsonl.gz").read_bytes()) == \
        gzip.decompress((tmp_path / "slow" / "matches.jsonl.gz").read_bytes())
    return said, fast


def test_a_run_writes_the_same_tables_and_records_with_and_without_no_fast(tmp_path, capsys):
    said, fast = _run_both_ways(tmp_path, capsys, CONFIG.format())
    assert "engine: native lane for 2 of 7 tables" in said  # greedy against ev, without the plug-in at the table
    assert "entries.csv" in fast
    assert "native lane" in (tmp_path / "fast" / "run.json").read_text()
    assert "(--no-fast)" in (tmp_path / "slow" / "run.json").read_text()


SLOPPY = """
name: sloppy
variants: [muggins, lowball]
lineup: [{name: g, strategy: greedy, miss_rate: 0.1, vigilance: 0.7}, {name: e, strategy: ev}]
matches: 30
paired: true
seed: 4
"""


def test_a_lineup_that_overlooks_points_plays_in_the_lane_with_the_same_tables(tmp_path, capsys):
    said, fast = _run_both_ways(tmp_path, capsys, SLOPPY)
    assert "engine: native lane (every table" in said
    assert "muggins points/deal" in fast["variants.csv"].decode()


SEARCHERS = (("mc", {"rollouts": 6, "discard_rollouts": 4}), ("expert", {"rollouts": 6, "board_samples": 6}))


def _search_games(rules, names, games, native, game_nos=(0,)):
    lane.allow_rollouts(native)
    try:
        return [play_game(rules, [factory(n, p)(random.Random(m)) for n, p in names], 4, (m, g)).__dict__
                for m in range(games) for g in game_nos]
    finally:
        lane.allow_rollouts(True)


@pytest.mark.parametrize("preset", ["standard", "lowball", "four_player_partners", "toss_fives", "five_card",
                                    "three_player", "seven_card", "auction", "lowball_auction",
                                    "canadian_doubles", "jokers", "jokers_non_dealer"])
def test_mcs_rollouts_in_the_lane_give_the_same_games(preset):
    """mc rolls its play out in C (every seat on ev's one-ply rule): the same points a rollout, so
    the same decisions and games as its rollouts on the engine's play phase."""
    rules = load_rules(preset)
    names = [SEARCHERS[0] if s % 2 == 0 else ("ev", {}) for s in range(rules.players)]
    assert lane.rollouts_for(rules)
    assert _search_games(rules, names, 2, True) == _search_games(rules, names, 2, False)


@pytest.mark.parametrize("preset", ["three_player_team", "three_player_team_inspect"])
def test_the_searches_under_two_against_one_read_each_games_sides(preset, monkeypatch):
    """V-TEAM3-1: each game of a match has its own lone player; mc and expert search in C with
    the rules packed for the game at hand, and play the Python searches' games in all three.
    With inspecting (V-TEAM3-2) the lone player's view holds the four cards it put back in the
    crib as its own laid away, so its searches deal none of them to another seat."""
    rules = load_rules(preset)
    assert lane.rollouts_for(rules)
    searched = []
    real = lane.mc_play
    monkeypatch.setattr(lane, "mc_play", lambda *a, **k: searched.append(1) or real(*a, **k))
    for searcher in SEARCHERS:
        names = [searcher, ("ev", {}), ("hoyle", {})]
        assert _search_games(rules, names, 1, True, (0, 1, 2)) == _search_games(rules, names, 1, False, (0, 1, 2))
    assert searched


@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_experts_rollouts_in_the_lane_give_the_same_games(preset):
    rules = load_rules(preset)
    names = [SEARCHERS[1], ("ev", {})]
    assert _search_games(rules, names, 3, True) == _search_games(rules, names, 3, False)


@pytest.mark.parametrize("preset", ["four_player_partners", "jokers"])
def test_a_rollout_is_the_engines(preset, monkeypatch):
    """NativePlayRollout.run against engine.rollout.PlayRollout.run, from play decisions met in
    real games, for candidate answers (a joker as each name that fits) and sampled hands."""
    from cribsim.games.cribbage.engine.rollout import PlayRollout
    from cribsim.games.cribbage.variants.jokers import play_options
    from strategies.mc import MCStrategy, unseen_cards

    rules, met = load_rules(preset), []
    real = MCStrategy.play

    def spy(self, obs):
        if len(met) < 40:
            rng = random.Random(len(met))
            sample = self.sampler_for(obs, unseen_cards(obs))
            native, engine = self.play_rollout(obs), PlayRollout(obs, self.one_ply)
            assert type(native).__name__ == "NativePlayRollout"
            answers = [a for a, _ in play_options(obs)] if rules.jokers else list(obs.legal)
            for _ in range(3):
                dealt = sample()
                dealt[obs.seat] = list(obs.hand)
                first = rng.choice(answers)
                met.append((native.run(dealt, first), engine.run(dealt, first), first))
        return real(self, obs)

    monkeypatch.setattr(MCStrategy, "play", spy)
    m = 0
    while len(met) < 40:
        play_game(rules, [factory("mc", {"rollouts": 2, "discard_rollouts": 0})(random.Random(m))] * rules.players, 2,
                  (m, 0))
        m += 1
    assert all(a == b for a, b, _ in met) and any(sum(a) for a, _, _ in met)
    if rules.jokers:  # a joker laid as a name, and jokers in the hands dealt
        assert any(isinstance(f, tuple) for _, _, f in met)


def test_no_fast_keeps_the_searches_in_python_too(tmp_path, monkeypatch):
    def refuse(*_args):
        raise AssertionError("a native rollout under --no-fast")

    monkeypatch.setattr(lane.NativePlayRollout, "run", refuse)
    monkeypatch.setattr(lane, "_ROLLOUTS", [True])
    cfg = tmp_path / "mc.yaml"
    cfg.write_text("name: mc\nlineup: [{name: m, strategy: mc, params: {rollouts: 2, discard_rollouts: 2}}, ev]\n"
                   "matches: 2\nseed: 1\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True, report=False, fast=False)
    assert lane.rollouts_for(load_rules("standard"))  # the setting before the run's batches, again


@pytest.mark.parametrize("name,preset", [("expert", "standard"), ("expert", "nineteen"), ("expert", "auction"),
                                         ("expert", "jokers"), ("mc", "standard"), ("mc", "canadian_doubles"),
                                         ("mc", "four_player_partners"), ("mc", "lowball_three"),
                                         ("mc", "jokers_non_dealer")])
def test_the_search_in_c_is_the_pythons_decision_by_decision(name, preset, monkeypatch):
    """mc's play search in C (the samples from the strategy's own generator state, expert's
    reading of the other player with its discards, replays and slack draws, the rollouts of every
    card; under jokers a joker once per name that fits, the samples drawn from the 54 cards)
    against the Python search from the same generator state, at every play decision of real
    games: the same answer, and the generator left in the same state."""
    from strategies.mc import MCStrategy

    decisions = []
    both = c_against_python(MCStrategy.play, decisions)
    real_mc_play, searched = lane.mc_play, Counter()

    def counted(view, capsule, packed, rollouts, rng, reading, options=None):
        searched["in C"] += 1
        searched["a joker named"] += any(isinstance(a, tuple) for a, _ in options or ())
        return real_mc_play(view, capsule, packed, rollouts, rng, reading, options)

    monkeypatch.setattr(MCStrategy, "play", both)
    monkeypatch.setattr(lane, "mc_play", counted)
    rules, m = load_rules(preset), 0
    params = {"rollouts": 6, "board_from": 0} if name == "expert" else {"rollouts": 6, "discard_rollouts": 0}
    while sum(decisions) < 60 or (rules.jokers and not searched["a joker named"] and m < 200):
        seats = [factory(name, params)(random.Random(m)) if s % 2 == 0 else factory("ev")(random.Random(m))
                 for s in range(rules.players)]
        play_game(rules, seats, 6, (m, 0))
        m += 1
    assert searched["in C"] >= sum(decisions)  # the "native" answers were the C search's
    assert searched["a joker named"] or not rules.jokers


@pytest.mark.parametrize("preset", ["standard", "nineteen", "back_ten", "auction"])
def test_experts_board_in_c_is_the_pythons_decision_by_decision(preset, monkeypatch):
    """expert's board (deals sampled from its generator state, each played to the end of its
    show from the real scores, valued by the board table) in C against the Python board, from
    the same generator state, at every board discard and play of real games: the same answer
    and the generator left in the same state. Back ten's zero hands are judged within each
    sampled deal (engine.rollout.DealRollout empties the variants' notes each run)."""
    from strategies.expert import ExpertStrategy

    met = []

    def both(real, kind):
        def compare(self, obs, arg):
            state = self.rng.getstate()
            native = real(self, obs, arg)
            after = self.rng.getstate()
            self.rng.setstate(state)
            before = lane.allow_rollouts(False)
            try:
                python = real(self, obs, arg)
            finally:
                lane.allow_rollouts(before)
            assert native == python and self.rng.getstate() == after, (kind, obs.hand, obs.scores)
            met.append(kind)
            return native
        return compare

    monkeypatch.setattr(ExpertStrategy, "board_discard", both(ExpertStrategy.board_discard, "discard"))
    monkeypatch.setattr(ExpertStrategy, "board_play", both(ExpertStrategy.board_play, "play"))
    rules, m = load_rules(preset), 0
    while met.count("discard") < 12 or met.count("play") < 12:
        play_game(rules, [factory("expert", {"rollouts": 2, "board_samples": 6, "board_from": 121})(
            random.Random(m)), factory("ev")(random.Random(m))], 8, (m, 0))
        m += 1


def test_experts_board_in_c_reads_a_score_below_zero_as_the_python_board_does():
    """A bid paid can leave a score below zero (the auction): from such scores, expert's board
    answers in C as in Python (a score below zero read as 0 by both), the generator left in the
    same state, at every decision of the deal."""
    from cribsim.games.cribbage.engine.state import GameState
    from cribsim.strategy import answer_fn

    rules, met = load_rules("auction"), 0
    for m in range(4):
        g = GameState(rules, 3, (m, 0), 0, scores=[-6, 104]).start()
        while not g.is_terminal and g.deal_no == 0:
            obs = g.observation()
            if g.actor == 0 and g.decision in ("discard", "play") and len(getattr(obs, "legal", None) or [0, 1]) > 1:
                e = factory("expert", {"rollouts": 2, "board_samples": 6})(random.Random(m))
                native = answer_fn(e, g.decision)(obs)
                after = e.rng.getstate()
                e = factory("expert", {"rollouts": 2, "board_samples": 6})(random.Random(m))
                before = lane.allow_rollouts(False)
                try:
                    python = answer_fn(e, g.decision)(g.observation())
                finally:
                    lane.allow_rollouts(before)
                assert native == python and e.rng.getstate() == after
                met += 1
                answer = native
            else:
                answer = answer_fn(factory("ev")(random.Random(m)), g.decision)(obs)
            g.apply(answer)
    assert met >= 8


def test_the_start_line_says_which_strategies_search_natively(tmp_path, capsys):
    cfg = tmp_path / "mc.yaml"
    cfg.write_text("name: mc\nlineup: [{name: m, strategy: mc, params: {rollouts: 2, discard_rollouts: 2}}, ev]\n"
                   "matches: 2\nseed: 1\n")
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "fast", serial=True, report=False)
    assert "; mc search in the native lane" in capsys.readouterr().err
    run_experiment(exp, tmp_path / "slow", serial=True, report=False, fast=False)
    assert "search in the native lane" not in capsys.readouterr().err


def test_a_subclass_with_a_sampler_of_its_own_searches_in_python():
    from strategies.expert import ReadingMC
    from strategies.mc import MCStrategy, samples_natively

    class Peeker(MCStrategy):
        def sampler_for(self, obs, unseen):
            return super().sampler_for(obs, unseen)

    class Quieter(ReadingMC):
        rollouts_note = "no new sampler"

    assert samples_natively(MCStrategy) and samples_natively(ReadingMC) and samples_natively(Quieter)
    assert not samples_natively(Peeker)


def test_the_search_calls_refuse_what_is_not_a_deal():
    """The C calls check what they are handed (an exception, never a crash): a card seen twice,
    a hand too long for the lane, a view cut short, a generator state of the wrong size, names
    that do not match the cards laid, a joker where the rules have none."""
    from strategies.ev import ev_values

    rules = load_rules("standard")
    c, packed = lane.module(), lane.pack_rules(rules)
    values = lane.ev_capsule(rules, ev_values(rules, 1.0, 1.0, "rules"))
    view = (0, 1, 1, 51, 0, 0, 0, 0, 0)  # seat 0, dealer 1 owning the crib, the starter, seat 0 to play, nothing laid
    bad = [lambda: c.rollout(packed, values, view, [[1, 2, 3, 4], [1, 6, 7, 8]], -1),
           lambda: c.rollout(packed, values, view, [list(range(17)), [20, 21]], -1),
           lambda: c.rollout(packed, values, view[:5], [[1, 2], [3, 4]], -1),
           lambda: c.rollout(packed, values, view, [[1, 2], [3, 99]], -1),
           lambda: c.rollout(packed, values, view, [[1, 2], [3, 4]], 7),
           lambda: c.mc_play(packed, values, view, [1, 2], [1, 2], (), 4, (0,) * 624, None),
           lambda: c.mc_play(packed, values, view, [1, 51], [1, 51], (), 4, (0,) * 625, None),
           lambda: c.mc_play(packed, values, view, [1, 2, 3, 4], [1, 2, 3, 4], (), 4,
                             random.Random(1).getstate()[1], None, [1, 2]),
           lambda: c.mc_play(packed, values, view, [1, 2, 3, 52], [1, 52], (), 4,
                             random.Random(1).getstate()[1], None, [1, 3]),
           lambda: c.rollout(lane.pack_rules(load_rules("jokers")), values, view, [[52, 2], [3, 4]], 52, 53)]
    for call in bad:
        with pytest.raises((ValueError, TypeError, OverflowError)):
            call()
    assert c.rollout(packed, values, view, [[1, 2, 3, 4], [5, 6, 7, 8]], 2) is not None
    assert c.mc_play(packed, values, view, [1, 2, 3, 4], [1, 2, 3, 4], (), 4, random.Random(1).getstate()[1], None)


def test_the_searchers_take_evs_tables_parameter_in_both_lanes():
    """mc and expert inherit ev's ``tables`` parameter (values by the standard scoring whatever
    the rules say); their searches in C value by the same tables as in Python."""
    rules = build_rules({"players": 2, "scoring": {"pair": 3}}, "pairs at three")
    for name, params in SEARCHERS:
        names = [(name, dict(params, tables="standard")), ("ev", {})]
        assert _search_games(rules, names, 2, True) == _search_games(rules, names, 2, False)


def _batch_rules():
    """Rule sets the C match loop plays (``lane.batch_refusal``), with match formats of several games."""
    named = [load_rules(n) for n in FAMILY]
    acc = load_rules("match_acc")
    fixed = rules_from_mapping({"extends": "standard", "name": "three_games", "match": {"games": 3}})
    triple = rules_from_mapping({"extends": "standard", "name": "triple", "target": 61,
                                 "match": {"first_to": 5, "game_points": "acc", "triple_skunk_wins_match": True}})
    return [r for r in [*named, acc, fixed, triple] if lane.batch_refusal(r, bool(lane.hooked(r))) is None]


BATCH_RULES = _batch_rules()


def _one_by_one(rules, native, specs):
    """The records of ``specs`` as the runner makes them one match at a time."""
    from cribsim.records import MatchRecord

    records = []
    for s in specs:
        m = native.play_match(5, s.key, [s.sides[side] for side in rules.side_of])
        rec = MatchRecord(s.id, s.variant, s.table, s.group, s.seating, list(s.sides), m.winner, list(m.game_points),
                          None)
        rec.games = [g.record(level, rules) for g, level in zip(m.games, m.skunks)]
        records.append(rec)
    return records


@pytest.mark.parametrize("rules", BATCH_RULES, ids=[r.name for r in BATCH_RULES])
def test_whole_matches_in_c_write_the_lines_and_sums_of_the_one_by_one_path(rules):
    """``_lane.matches`` (the match loop, the lines, the figures) against the runner's one-match
    path: the same line a match, byte for byte, and the same summary sums (paired and not)."""
    import numpy as np

    from cribsim.game import LaneMatches
    from cribsim.games import game_named
    from cribsim.records import Column
    from cribsim.tournament import lanebatch
    from cribsim.tournament.aggregate import Partial, VariantShape
    from cribsim.tournament.recordfile import line_of
    from cribsim.tournament.schedule import Schedule

    k = len(rules.sides)
    native = lane.fast_lane(rules, [("random", {}), ("greedy", {}), ("ev", {"tables": "standard"})])
    assert native is not None and native.batch_fields() is not None
    columns = tuple(Column.from_json(c) for c in game_named("cribbage").summary_info(rules)["columns"])
    for paired in (False, True):
        tables = [[(i + j) % 3 for i in range(k)] for j in range(3)]
        schedule = Schedule([tables], 24, paired)
        specs = [schedule.spec(p, 77) for p in schedule.order()]
        rows = np.array([[s.variant, s.table, s.group, s.seating, *s.sides] for s in specs], dtype=np.int64)
        out: LaneMatches = native.play_matches(5, 77, rows)
        records = _one_by_one(rules, native, specs)
        assert out.text == b"".join(line_of(r) for r in records), rules.name
        shape = VariantShape(k, rules.objective, columns, len(schedule.seats[0]) if paired else 1, paired and k == 2)
        expected, got = Partial([shape]), Partial([shape])
        expected.add_all(records)
        lanebatch.add_sums(got, lanebatch.LanePart(0, list(range(len(specs))), rows), out)
        assert got.variants[0] == expected.variants[0] and got.tables == expected.tables, rules.name
        assert got.matches == expected.matches


def test_the_c_match_loop_takes_only_what_it_plays():
    """Rules whose games the lane plays but whose match loop or ranking is Python's own: one by one."""
    for name in ("lowball", "three_player_continued", "three_player_winner_takes_all", "three_player_team"):
        rules = load_rules(name)
        if lane.refusal(rules) is None:
            assert lane.batch_refusal(rules, bool(lane.hooked(rules))) is not None, name


BATCHED = """
name: batched
variants: [standard, match_acc, three_player, {name: short, extends: four_player_partners, scoring: {go: 2}}]
lineup: [{name: g, strategy: greedy}, {name: e, strategy: ev}, {name: r, strategy: random},
         {name: p, strategy: "tests.kernel.bad_strategies:Plain", trusted: true}]
matches: 12
paired: true
seed: 9
"""


def test_a_run_of_whole_batches_writes_the_same_tables_and_records(tmp_path, capsys, monkeypatch):
    """A run whose batches the lane plays whole but for the plug-in's tables (played one by one,
    their lines in their places) against ``--no-fast``: the same records, in the same order, and
    tables."""
    from cribsim.tournament import lanebatch

    parts = []
    real = lanebatch.play
    monkeypatch.setattr(lanebatch, "play", lambda *a: parts.append(a[1]) or real(*a))
    _run_both_ways(tmp_path, capsys, BATCHED)
    assert sum(len(p.positions) for p in parts) > 0
    fast = gzip.decompress((tmp_path / "fast" / "matches.jsonl.gz").read_bytes()).splitlines()
    slow = gzip.decompress((tmp_path / "slow" / "matches.jsonl.gz").read_bytes()).splitlines()
    assert fast == slow and len(fast) > sum(len(p.positions) for p in parts)
