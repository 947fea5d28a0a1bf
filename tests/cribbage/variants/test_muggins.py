"""Muggins (V-MUGGINS) and the counting model."""


import pytest

from cribsim.errors import ConfigError
from cribsim.ruleset import load_rules
from cribsim.strategy import factory

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

# ---- V-MUGGINS --------------------------------------------------------------------------------------

def _match(rules_name, counters, key=3):
    from cribsim.games.cribbage.match import play_match

    return play_match(load_rules(rules_name), [factory("ev"), factory("ev")], 9, key, log=True, counters=counters)


def test_muggins_with_perfect_counters_is_the_standard_game():
    # V-MUGGINS: "with perfect counting, muggins plays exactly like the standard game"
    for key in range(5):
        a = _match("muggins", [(0.0, 1.0), (0.0, 0.3)], key)
        b = _match("standard", None, key)
        assert [g.events for g in a.games] == [g.events for g in b.games]
        assert a.winner == b.winner and a.game_points == b.game_points


def test_missed_points_are_lost_without_muggins_and_taken_with_it():
    from cribsim.games.cribbage.engine import play_game
    from cribsim.matchplay import make_strategies

    def game(name, counters):
        return play_game(load_rules(name), make_strategies([factory("ev")] * 2), 4, (1, 0), log=True,
                         counters=counters)

    # seat 0 overlooks everything it could count in the play and the show (not his heels)
    lost = game("standard", [(1.0, 1.0), (0.0, 1.0)])
    counted = {e.source for e in lost.events if e.seat == 0 and e.points > 0}
    assert counted <= {"heels"}
    assert any(e.source == "overlooked" and e.seat == 0 for e in lost.events)
    # with muggins and a vigilant opponent, every overlooked point goes to the opponent
    taken = game("muggins", [(1.0, 1.0), (0.0, 1.0)])
    for i, e in enumerate(taken.events):
        if e.source == "overlooked":
            follow = [x for x in taken.events[i + 1:] if x.source != "overlooked"][0]
            assert follow.seat == 1 and follow.reason == "muggins"
    # an opponent who never notices takes nothing
    blind = game("muggins", [(1.0, 1.0), (0.0, 0.0)])
    assert not any(e.reason == "muggins" for e in blind.events)


def test_counting_model_in_the_lineup(tmp_path):
    from cribsim.tournament.config import load_experiment

    cfg = tmp_path / "x.yaml"
    cfg.write_text("name: x\nvariants: [muggins]\nlineup: [{name: sloppy, strategy: greedy, miss_rate: 0.05, "
                   "vigilance: 0.5}, greedy]\nmatches: 4\n")
    exp = load_experiment(cfg)
    assert (exp.lineup[0].miss_rate, exp.lineup[0].vigilance) == (0.05, 0.5)
    cfg.write_text("name: x\nlineup: [{strategy: greedy, miss_rate: 1.5}, random]\n")
    with pytest.raises(ConfigError) as err:
        load_experiment(cfg)
    assert err.value.key == "lineup[0].miss_rate"
