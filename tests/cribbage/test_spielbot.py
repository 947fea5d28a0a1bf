"""An OpenSpiel bot in a cribsim seat: the worlds it searches agree with what the seat has seen
and nothing else, and information-set MCTS plays whole games (and is refused where the worlds
cannot be drawn)."""

import random
import re
import subprocess
import sys

import pytest

from cribsim.env.table import table_for
from cribsim.errors import CribsimError
from cribsim.games import game_named
from cribsim.games.cribbage.engine.state import GameState
from cribsim.games.cribbage.worlds import _draw, _replayed, sampleable, world
from cribsim.matchplay import make_strategies
from cribsim.ruleset import load_rules
from cribsim.strategy import factory
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment


@pytest.mark.parametrize("name", ["standard", "three_player", "four_player_partners", "lowball"])
def test_a_world_shows_the_seat_exactly_what_it_saw_and_draws_the_rest(name):
    rules = load_rules(name)
    g = GameState(rules, 5, (2, 0), 0).start()
    rng = random.Random(1)
    real = table_for(rules)
    hidden_differ = 0
    while not g.is_terminal:
        seat, view, decision = g.actor, g.observation(), g.decision
        real.g = g
        for _ in range(2):
            w = world(view, decision, rng)
            t = table_for(rules)
            t.g = w
            assert t.info_key(seat) == real.info_key(seat)
            copy = table_for(rules)
            copy.g = w.clone()  # what OpenSpiel's copies of a sampled root do
            assert copy.info_key(seat) == real.info_key(seat)
            assert (w.actor, w.decision, tuple(w.scores)) == (seat, decision, tuple(g.scores))
            others = [sorted(w.hands[s]) for s in range(rules.players) if s != seat]
            hidden_differ += others != [sorted(g.hands[s]) for s in range(rules.players) if s != seat]
        g.apply(rng.choice(g.legal_actions()))
    assert hidden_differ > 0


def test_worlds_are_refused_where_a_variant_hides_more():
    for name in ("auction", "jokers", "canadian_doubles", "three_player_team_inspect", "five_card",
                 "three_player_continued", "toss_fives"):
        assert sampleable(load_rules(name)) is not None, name
    with pytest.raises(CribsimError, match="openspiel:ismcts cannot play auction"):
        factory("openspiel:ismcts", rules=(load_rules("auction"),), game="cribbage")
    factory("openspiel:ismcts", rules=(load_rules("lowball"),), game="cribbage")  # a reversed objective is fine


def test_ismcts_plays_a_whole_game_of_legal_answers():
    rules = load_rules("three_player")
    bot = factory("openspiel:ismcts", params={"simulations": 5}, rules=(rules,), game="cribbage")
    other = factory("greedy", rules=(rules,), game="cribbage")
    result = game_named("cribbage").play_game(rules, make_strategies([bot, other, other]), 3, (0, 0))
    assert max(result.scores) >= 121


ISMCTS_RUN = """\
name: ismcts_run
variants: [standard]
lineup:
  - {name: ismcts, strategy: "openspiel:ismcts", params: {simulations: 3}}
  - {name: greedy, strategy: greedy}
matches: 4
paired: true
seed: 3
"""


def test_an_openspiel_bot_plays_a_cribsim_run_and_appears_in_its_tables(tmp_path, ray_cluster):
    """The same tables played in this process and on two Ray workers."""
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(ISMCTS_RUN)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True)
    run_experiment(exp, tmp_path / "w2", workers=2, quiet=True, batch_seconds=0.02)
    names = ("summary.md", "entries.csv", "variants.csv")
    serial = {n: (tmp_path / "serial" / n).read_text() for n in names}
    assert serial == {n: (tmp_path / "w2" / n).read_text() for n in names}
    assert "ismcts" in serial["entries.csv"] and re.search(r"\| forfeits\s+\| 0\s", serial["summary.md"])


def test_without_openspiel_the_strategy_says_what_to_install_and_list_still_lists():
    """A plain install (OpenSpiel hidden from the import system): one line naming the extra."""
    hide = ("import sys; sys.modules['pyspiel'] = None; from cribsim.cli.main import main; "
            "sys.argv = ['cribsim', {}]; sys.exit(main())")
    play = subprocess.run([sys.executable, "-c", hide.format("'play', '--strategy', 'openspiel:ismcts'")],
                          capture_output=True, text=True, timeout=120)
    assert play.returncode != 0 and play.stderr.count("\n") == 1
    assert "pip install 'cribsim[openspiel]'" in play.stderr
    listed = subprocess.run([sys.executable, "-c", hide.format("'list'")], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "openspiel:ismcts               (not available:" in listed.stdout


def test_every_draw_agrees_with_the_gos_said():
    """The cards a seat still holds are drawn among those its gos allow: no draw is wasted (a
    search draws a world per simulation; a view whose draws mostly disagreed forfeited games)."""
    rules = load_rules("standard")
    ev = factory("ev", rules=(rules,))(random.Random(2))
    rng = random.Random(1)
    for game in range(12):
        g = GameState(rules, 9, (game, 0), game % 2).start()
        while not g.is_terminal:
            view, decision = g.observation(), g.decision
            for _ in range(5):
                deck, discards = _draw(view, decision, rng)
                assert _replayed(view, decision, deck, discards, [0, 0], rng) is not None
            g.apply(getattr(ev, decision)(view))
