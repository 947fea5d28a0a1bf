"""A run says where a rule set changes what a strategy values without its knowing (issue 39,
item 4): strategies declare what they model (``models``), variants what they change (their
hooks, decisions and phases), and a run warns in its first lines, in the manifest and in
summary.md: a table of such players describes misinformed play."""

import json
import textwrap

import pytest

from cribsim.cli.main import main
from cribsim.games import game_named
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import unmodelled

CRIB3 = '''
from cribsim.games.cribbage.engine.events import CRIB, OTHER
from cribsim.games.cribbage.engine.variant import Variant


class CribThrice(Variant):
    """The crib counts three times: after it is counted its owner pegs its points twice more."""

    name = "crib3"
    rule = "CRIB3-1"
    summary = "the crib counts three times"

    @staticmethod
    def after_count(g, seat, points, source):
        if source == CRIB and points:
            g.award(seat, 2 * points, OTHER, "the crib again, twice")
'''


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A designer's folder: the variant beside its rules file (one per test session: a module
    name is one module in a process)."""
    d = tmp_path_factory.mktemp("crib3")
    (d / "crib3.py").write_text(textwrap.dedent(CRIB3))
    (d / "crib3.yaml").write_text("extends: standard\nname: crib3_rules\nvariants: ['crib3:CribThrice']\n")
    return d


def test_a_hook_variant_of_ones_own_is_news_to_ev_and_a_scoring_block_is_not(folder):
    r = load_rules(str(folder / "crib3.yaml"))
    assert game_named("cribbage").changes(r) == {"crib3": ("after_count",)}
    assert unmodelled("ev", r) == ["ev: its discards value the show and crib, and its play the pegging, by the "
                                   "rules' scoring; crib3 changes them (after_count)"]
    assert unmodelled("random", r) == []  # (it values nothing)
    pairs = rules_from_mapping({"extends": "standard", "name": "pairs3", "scoring": {"pair": 3}}, "p.yaml")
    assert game_named("cribbage").changes(pairs) == {"scoring": ("pair",)}
    assert unmodelled("ev", pairs) == unmodelled("greedy", pairs) == []  # they value the rules' own scoring
    assert unmodelled("ev", load_rules("back_ten"))[0].endswith("back_ten changes them (after_count)")
    assert unmodelled("ev", load_rules("auction")) == []  # ev bids by its own values


def test_a_run_warns_in_its_first_lines_its_manifest_and_its_summary(folder, tmp_path, capsys):
    cfg = folder / "exp.yaml"
    cfg.write_text("name: x\nvariants: [crib3.yaml, {name: pairs3, extends: standard, scoring: {pair: 3}}]\n"
                   "lineup: [ev, random]\nmatches: 2\n")
    assert main(["run", str(cfg), "--serial", "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[1] == ("cribsim: warning: ev: its discards value the show and crib, and its play the pegging, by the "
                      "rules' scoring; crib3 changes them (after_count) (in crib3_rules): its table there describes "
                      "a player who does not know that rule")
    assert not [line for line in err if "pairs3" in line]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert list(manifest["unmodelled"]) == ["crib3_rules"] and list(manifest["unmodelled"]["crib3_rules"]) == ["ev"]
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "**Players who do not know every rule they play.**" in summary
    assert "- crib3_rules (ev): ev: its discards value the show and crib" in summary
