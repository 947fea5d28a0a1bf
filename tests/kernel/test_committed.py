"""Every committed results folder still belongs to its config: the config, loaded by today's code,
has the hash the folder's manifest records, and every rule set in the manifest rebuilds to the
same rules JSON. A change that moved a rules file's JSON or fingerprint (a new knob that is not
left out at its default, such as a ``scoring:`` block of standard values) fails here, before a
re-run would be refused as another config."""

import json
from pathlib import Path

import pytest

from cribsim.games.cribbage import cribtables
from cribsim.ruleset import rules_from_dict
from cribsim.tournament.config import load_experiment
from strategies import adaptive
from strategies.fives_threes import adaptive as tiles_adaptive

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = sorted(p.parent for p in (ROOT / "results").glob("*/manifest.json"))


def _config(name: str) -> Path | None:
    for path in (ROOT / "configs" / "experiments" / f"{name}.yaml", ROOT / "configs" / f"{name}.yaml"):
        if path.is_file():
            return path
    return None


@pytest.fixture(autouse=True)
def quick_tables(tmp_path, monkeypatch):
    """Loading a config prepares its strategies for its rule sets; ev's tables for a new scoring
    and the two adaptive players' models (cribbage's, Fives and Threes') are built small here."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(cribtables, "SCORING_SAMPLES", 4)
    monkeypatch.setattr(adaptive, "LEARN_DEALS", 20)
    monkeypatch.setattr(adaptive, "LEARN_SAMPLES", 20)
    monkeypatch.setattr(tiles_adaptive, "LEARN_HANDS", 40)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_a_committed_run_still_belongs_to_its_config(folder):
    manifest = json.loads((folder / "manifest.json").read_text())
    config = _config(folder.name)
    assert config is not None, f"results/{folder.name} has no config in configs/ to make it again"
    # (the config first: reading it makes the variant modules beside its rules files importable, which the
    # manifest's rules name; before, this test passed only after another test in its process had done so)
    exp = load_experiment(config, seed=manifest["seed"])
    for rules in manifest["variants"]:
        assert rules_from_dict(json.loads(json.dumps(rules)), game=manifest.get("game")).to_dict() == rules
    assert exp.config_hash() == manifest["config_hash"], f"{config.name} no longer makes results/{folder.name}"
