"""Strategies play the scoring they are given (S-DATA): ev's values and crib tables come from the
rules' ``scoring:`` block; expert leaves out the tables built for the standard scoring."""

import math
import random
from itertools import combinations

import pytest

from cribsim.games.cribbage import cribtables
from cribsim.games.cribbage.cards import RANK
from cribsim.games.cribbage.match import play_match
from cribsim.games.cribbage.points import Scoring
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import factory
from tests.cribbage.variants.helpers import observe


@pytest.fixture(autouse=True)
def small_tables(tmp_path, monkeypatch):
    """Crib tables for a new scoring are built in a test's own cache folder, with few samples
    (the mechanism is under test here; the shipped sample count is for real runs)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(cribtables, "SCORING_SAMPLES", 30)
    monkeypatch.setattr(cribtables, "_BUILT", {})  # none kept in this process by an earlier test


PAIRS6 = {"extends": "standard", "scoring": {"pair": 6}}


def _kept_pairs(strategy, rules, hands):
    kept = 0
    for hand in hands:
        obs = observe(rules, seat=1)
        obs.hand, obs.discards, obs.dealer, obs.crib_owner = tuple(hand), 2, 0, 0
        thrown = strategy.discard(obs)
        keep = [c for c in hand if c not in thrown]
        kept += any(RANK[a] == RANK[b] for a, b in combinations(keep, 2))
    return kept


def test_ev_values_pairs_at_six_keeps_more_pairs_and_wins(capsys):
    """ev with its tables for pairs worth 6 keeps a pair measurably more often than ev valuing by
    the standard scoring, and beats it: 3,000 games in pairs with the seats swapped, 95% Wilson
    interval above one half."""
    rules = rules_from_mapping(PAIRS6)
    rng = random.Random(11)
    hands = [rng.sample(range(52), 6) for _ in range(600)]
    aware = factory("ev")(random.Random(1))
    unaware = factory("ev", {"tables": "standard"})(random.Random(1))
    mine, theirs = _kept_pairs(aware, rules, hands), _kept_pairs(unaware, rules, hands)
    assert mine > theirs + 20, (mine, theirs)  # e.g. 45% of hands against 40%
    assert "building ev's crib tables" in capsys.readouterr().err  # the progress line, the first time
    a, b = factory("ev"), factory("ev", {"tables": "standard"})
    n, wins = 3000, 0
    for i in range(n):
        seats = [a, b] if i % 2 == 0 else [b, a]
        wins += play_match(rules, seats, 5, i // 2).winner == i % 2
    p, z = wins / n, 1.96
    low = (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)
    assert low > 0.5, (p, low)


def test_crib_tables_are_built_once_per_scoring_and_kept(tmp_path, capsys):
    scoring = Scoring(fifteen=3)
    first = cribtables.for_scoring(scoring)
    assert "building ev's crib tables" in capsys.readouterr().err
    files = list((tmp_path / "cache" / "cribsim").iterdir())
    assert len(files) == 1 and first["scoring"] == {"fifteen": 3}
    again = cribtables.for_scoring(Scoring(fifteen=3))
    assert again == first and capsys.readouterr().err == ""  # read from the cache folder, no line
    assert cribtables.for_scoring(Scoring()) is cribtables.load()  # the standard game: the shipped tables
    # the same scoring gives the same tables wherever they are built (seeded by cell)
    files[0].unlink()
    assert cribtables.for_scoring(Scoring(fifteen=3)) == first


def test_expert_leaves_out_the_standard_tables_under_another_scoring():
    """expert's pegging table and board table were built for the standard scoring."""
    expert = factory("expert", {"rollouts": 0})(random.Random(2))
    pairs = rules_from_mapping(PAIRS6)
    obs = observe(pairs, seat=1)
    obs.scores = (100, 100)
    assert not expert.on_board(obs)
    obs = observe(load_rules("standard"), seat=1)
    obs.scores = (100, 100)
    assert expert.on_board(obs)


def test_the_manifest_says_which_tables_a_strategy_built_or_left_out(tmp_path):
    from cribsim.tournament.config import load_experiment
    from cribsim.tournament.runner import manifest_for

    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: notes\nvariants: [standard, {name: pairs6, extends: standard, scoring: {pair: 6}},\n"
                   "  {name: late, extends: standard, scoring: {last_card: 0}}]\n"
                   "lineup: [{name: expert, strategy: expert}, {name: ev, strategy: ev},\n"
                   "  {name: unaware, strategy: ev, params: {tables: standard}}, {name: greedy, strategy: greedy}]\n"
                   "matches: 2\n")
    notes = manifest_for(load_experiment(cfg)).notes
    assert set(notes) == {"pairs6", "late"}  # nothing to say of the standard game: the manifest as before
    assert notes["pairs6"]["ev"] == ["expected show and pegging by these rules' scoring; crib tables built for "
                                     "its show (30 samples a cell and role)"]
    assert notes["pairs6"]["expert"][-1].startswith("without its pegging table and board table")
    assert notes["pairs6"]["unaware"] == ["values by the standard scoring (tables: standard), not these rules'"]
    assert notes["late"]["ev"][0].startswith("pegging by these rules' scoring; the shipped crib tables")
    assert "greedy" not in notes["pairs6"]
