"""A run says where a rule set changes what a strategy values without its knowing (issue 39,
item 4): strategies declare what they model (``models``), variants what they change (their
hooks, decisions and phases), and a run warns in its first lines, in the manifest and in
summary.md: a table of such players describes misinformed play."""

import json
from pathlib import Path

from cribsim.cli.main import main
from cribsim.games import game_named
from cribsim.ruleset import load_rules, rules_from_mapping
from cribsim.strategy import unmodelled

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


def test_a_hook_variant_of_ones_own_is_news_to_ev_and_a_scoring_block_is_not():
    r = load_rules(str(EXAMPLES / "crib3.yaml"))
    assert game_named("cribbage").changes(r) == {"crib3": ("after_count",)}
    assert unmodelled("ev", r) == ["ev: its discards value the show and crib, and its play the pegging, by the "
                                   "rules' scoring; crib3 changes them (after_count)"]
    assert unmodelled("random", r) == []  # (it values nothing)
    pairs = rules_from_mapping({"extends": "standard", "name": "pairs3", "scoring": {"pair": 3}}, "p.yaml")
    assert game_named("cribbage").changes(pairs) == {"scoring": ("pair",)}
    assert unmodelled("ev", pairs) == unmodelled("greedy", pairs) == []  # they value the rules' own scoring
    assert unmodelled("ev", load_rules("back_ten"))[0].endswith("back_ten changes them (after_count)")
    assert unmodelled("ev", load_rules("auction")) == []  # ev bids by its own values


def test_a_run_warns_in_its_first_lines_its_manifest_and_its_summary(tmp_path, capsys):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nvariants: ['{EXAMPLES / 'crib3.yaml'}', {{name: pairs3, extends: standard, "
                   "scoring: {pair: 3}}]\nlineup: [ev, random]\nmatches: 2\n")
    assert main(["run", str(cfg), "--serial", "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[1] == ("cribsim: warning: ev: its discards value the show and crib, and its play the pegging, by the "
                      "rules' scoring; crib3 changes them (after_count) (in crib3): its table there describes "
                      "a player who does not know that rule")
    assert not [line for line in err if "pairs3" in line]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert list(manifest["unmodelled"]) == ["crib3"] and list(manifest["unmodelled"]["crib3"]) == ["ev"]
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "**Players who do not know every rule they play.**" in summary
    assert "- crib3 (ev): ev: its discards value the show and crib" in summary
